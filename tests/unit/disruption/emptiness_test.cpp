// Ports of core:pkg/controllers/disruption/emptiness_test.go (kubernetes-sigs/karpenter HEAD
// 2266468). Each case names its upstream `It(...)`. The upstream suite drives one reconcile at a
// time with no-op validators; here the whole engine runs, so the 15 s validation wait and the
// drain happen in simulated time and the assertions look at the cluster afterwards.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

namespace capsim::karpenter::dtest {

namespace {

// BeforeEach of the Emptiness suite: a WhenEmpty NodePool with a 100% budget; nodes of the
// cheapest spot type with allocatable {cpu: 32, pods: 100}.
struct EmptinessSuite
{
  Sim sim;
  std::string type;

  EmptinessSuite()
  {
    auto& p = sim.pool("default");
    p.consolidation_policy = model::ConsolidationPolicy::when_empty;
    type = sim.cheapest("spot").name;
  }

  std::string add_node(const std::string& name, bool do_not_disrupt = false)
  {
    return sim.node(name, "default", type, resources(32000, 0, 100), {}, {}, do_not_disrupt);
  }
};

} // namespace

TEST_CASE("Emptiness: can delete empty nodes", "[disruption][emptiness]")
{
  EmptinessSuite s;
  s.add_node("node-a");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive().empty());
  CHECK(result.disruptions.emptiness == 1);
  // Computed at t=0, validated after commandValidationDelay (15 s), then deleted.
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].t == 15 * k_second);
  CHECK(deletes[0].candidate == "node-a");
}

TEST_CASE("Emptiness: can delete multiple empty nodes (one command)", "[disruption][emptiness]")
{
  EmptinessSuite s;
  s.add_node("node-a");
  s.add_node("node-b");
  const auto result = s.sim.run(5 * k_minute);
  CHECK(s.sim.alive().empty());
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1); // both in the same command
  CHECK(deletes[0].candidate == "node-a,node-b");
}

TEST_CASE("Emptiness: should ignore nodes with the karpenter.sh/do-not-disrupt annotation", "[disruption][emptiness]")
{
  EmptinessSuite s;
  s.add_node("node-a", true);
  const auto result = s.sim.run(5 * k_minute);
  CHECK(s.sim.alive() == std::vector<std::string>{"node-a"});
  CHECK(has_decision(result, "node-a", "keep", "karpenter.sh/do-not-disrupt"));
}

TEST_CASE("Emptiness: a NodePool template's karpenter.sh/do-not-disrupt annotation reaches the nodes it launches",
          "[disruption][emptiness]")
{
  // The template's annotations are copied to each NodeClaim and synced onto its Node at
  // registration (lifecycle/registration.go); the candidate filter then reads the node's
  // annotation (disruption/types.go NewCandidate). Without it the emptied node goes.
  for (const std::string value : {"", "false", "true"}) {
    EmptinessSuite s;
    if (!value.empty()) {
      s.sim.scenario.node_pools[0].template_annotations[std::string(model::labels::k_do_not_disrupt)] = value;
    }
    PodOpts pod;
    pod.cpu_milli = 1000;
    pod.runtime = 5 * k_minute;
    s.sim.pending(0, 1, pod);
    const auto result = s.sim.run(30 * k_minute);
    INFO(value << "\n" << dump(result));
    CHECK(result.nodes.launched == 1);
    if (value == "true") {
      CHECK(s.sim.alive().size() == 1);
      CHECK(result.disruptions.emptiness == 0);
      CHECK(has_decision(result, s.sim.alive().front(), "keep", "karpenter.sh/do-not-disrupt"));
    } else {
      CHECK(s.sim.alive().empty());
      CHECK(result.disruptions.emptiness == 1);
    }
  }
}

TEST_CASE("Emptiness: should ignore nodes that have pods", "[disruption][emptiness]")
{
  EmptinessSuite s;
  s.add_node("node-a");
  s.sim.pods_on("node-a", 1);
  const auto result = s.sim.run(5 * k_minute);
  CHECK(s.sim.alive() == std::vector<std::string>{"node-a"});
  CHECK(result.disruptions.emptiness == 0);
  // WhenEmpty: consolidation is not allowed to move the pod either.
  CHECK(has_decision(result, "node-a", "keep", "WhenEmpty"));
}

TEST_CASE("Emptiness: should ignore nodes without the consolidatable status condition (consolidateAfter)",
          "[disruption][emptiness]")
{
  EmptinessSuite s;
  s.sim.scenario.node_pools[0].consolidate_after = 10 * k_minute;
  s.add_node("node-a");
  const auto result = s.sim.run(9 * k_minute);
  CHECK(s.sim.alive() == std::vector<std::string>{"node-a"});
  CHECK(has_decision(result, "node-a", "keep", "consolidateAfter (10m)"));
}

TEST_CASE("Emptiness: should wait for the node TTL for empty nodes before consolidating", "[disruption][emptiness]")
{
  // Upstream blocks the controller on the validation timeout and steps the clock 31 s; the
  // node must still exist before the wait and be gone after it.
  EmptinessSuite s;
  s.add_node("node-a");
  const auto early = s.sim.run(14 * k_second);
  CHECK(s.sim.alive() == std::vector<std::string>{"node-a"});
  CHECK(decisions(early, "emptiness", "delete").empty());
  EmptinessSuite s2;
  s2.add_node("node-a");
  const auto later = s2.sim.run(31 * k_second);
  CHECK(s2.sim.alive().empty());
}

TEST_CASE("Emptiness: will consider a node with a DaemonSet pod as empty", "[disruption][emptiness]")
{
  EmptinessSuite s;
  model::DaemonSet ds;
  ds.name = "ds";
  auto spec = std::make_shared<model::PodSpec>();
  spec->owner = model::OwnerKind::daemon_set;
  spec->requests[model::k_cpu] = 100;
  ds.spec = spec;
  s.sim.scenario.daemon_sets.push_back(ds);
  s.add_node("node-a");
  s.sim.run(5 * k_minute);
  CHECK(s.sim.alive().empty());
}

TEST_CASE("Emptiness Budgets: should only allow 3 empty nodes to be disrupted", "[disruption][emptiness][budgets]")
{
  // 10 empty nodes, budget 30% -> 3 per command. The suite's nodes use leastExpensiveInstance.
  EmptinessSuite s;
  s.type = s.sim.cheapest("on-demand").name;
  s.sim.scenario.node_pools[0].budgets = {model::DisruptionBudget{"30%", std::nullopt, std::nullopt, {}}};
  for (int i = 0; i < 10; ++i) {
    s.add_node(fmt::format("node-{:02d}", i));
  }
  const auto result = s.sim.run(20 * k_second);
  INFO(dump(result));
  // One command of 3 nodes after the first validation wait (upstream: 7 NodeClaims left).
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].candidate == "node-00,node-01,node-02");
  CHECK(s.sim.alive().size() == 7);
}

TEST_CASE("Emptiness Budgets: should allow no empty nodes to be disrupted", "[disruption][emptiness][budgets]")
{
  EmptinessSuite s;
  s.sim.scenario.node_pools[0].budgets = {model::DisruptionBudget{"0%", std::nullopt, std::nullopt, {}}};
  for (int i = 0; i < 10; ++i) {
    s.add_node(fmt::format("node-{:02d}", i));
  }
  const auto result = s.sim.run(10 * k_minute);
  CHECK(s.sim.alive().size() == 10);
  CHECK(has_decision(result, "node-00", "keep", "allows no more Empty disruptions"));
}

TEST_CASE("Emptiness Budgets: should allow 2 nodes from each nodePool to be deleted", "[disruption][emptiness][budgets]")
{
  // Two NodePools of 10 nodes, budget 20% each: one command removes 2 + 2 nodes.
  EmptinessSuite s;
  auto& second = s.sim.pool("other");
  second.consolidation_policy = model::ConsolidationPolicy::when_empty;
  s.sim.scenario.node_pools[0].budgets = {model::DisruptionBudget{"20%", std::nullopt, std::nullopt, {}}};
  s.sim.scenario.node_pools[1].budgets = {model::DisruptionBudget{"20%", std::nullopt, std::nullopt, {}}};
  for (int i = 0; i < 10; ++i) {
    s.sim.node(fmt::format("a-{:02d}", i), "default", s.type, resources(32000, 0, 100));
    s.sim.node(fmt::format("b-{:02d}", i), "other", s.type, resources(32000, 0, 100));
  }
  const auto result = s.sim.run(20 * k_second);
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(s.sim.alive().size() == 16);
}

} // namespace capsim::karpenter::dtest
