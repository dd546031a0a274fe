// Static NodePools (spec.replicas). Ports of core:pkg/controllers/static/provisioning/suite_test.go,
// static/deprovisioning/suite_test.go and disruption/staticdrift_test.go (kubernetes-sigs/karpenter
// HEAD 2266468), run end to end: nodes of a static NodePool exist at t=0 (or are launched by
// the static provisioning controller when the StaticCapacity gate is on) and drift through
// scenario Drift events.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace capsim::karpenter::dtest {

namespace {

struct StaticSuite
{
  Sim sim;
  std::string type;

  explicit StaticSuite(std::int64_t replicas, bool gate = true)
  {
    auto& p = sim.pool("default");
    p.replicas = replicas;
    sim.scenario.settings.karpenter.static_capacity = gate;
    type = sim.most_expensive("on-demand").name;
  }

  model::NodePool& pool() { return sim.scenario.node_pools[0]; }

  // node-0 .. node-(n-1) of the static NodePool at t=0, each drifted at t=0 when `drifted`.
  void nodes(int n, bool drifted)
  {
    for (int i = 0; i < n; ++i) {
      const std::string name = fmt::format("node-{}", i);
      sim.node(name, "default", type, resources(32000, 0, 100));
      if (drifted) {
        drift(name);
      }
    }
  }

  void drift(const std::string& node)
  {
    model::ScenarioEvent e;
    e.kind = "Drift";
    e.selector.node_name = node;
    sim.scenario.events.push_back(e);
  }

  // A new version of the NodePool with `replicas`, applied at `at`.
  void resize(SimTime at, std::int64_t replicas)
  {
    model::NodePoolUpdate u;
    u.at = at;
    u.pool = pool();
    u.pool.replicas = replicas;
    sim.scenario.node_pool_updates.push_back(u);
  }
};

// Replace decisions of drift started at time t.
std::size_t replaces_at(const report::EngineResult& result, SimTime t)
{
  const auto all = decisions(result, "drift", "replace");
  return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](const report::Decision& d) {
    return d.t == t;
  }));
}

} // namespace

// --- static provisioning (suite_test.go "Static Provisioning Controller")

TEST_CASE("Static provisioning: should create nodeclaims when current node count is less than desired replicas",
          "[disruption][static]")
{
  StaticSuite s(3);
  s.pool().template_labels = {{"tier", "fixed"}};
  s.pool().taints = {model::Taint{"dedicated", "fixed", model::TaintEffect::no_schedule}};
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.nodes.launched == 3);
  CHECK(s.sim.alive().size() == 3);
  // "should respect nodepool template specifications": the template's labels and taints.
  for (const auto& n : s.sim.cluster().nodes()) {
    CHECK(n.labels.at("tier") == "fixed");
    CHECK(n.labels.at(std::string(model::labels::k_nodepool)) == "default");
    REQUIRE(n.taints.size() == 1);
    CHECK(n.taints[0].key == "dedicated");
  }
}

TEST_CASE("Static provisioning: should create additional nodeclaims to reach desired replicas",
          "[disruption][static]")
{
  StaticSuite s(5);
  s.nodes(2, false);
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.nodes.launched == 3);
  CHECK(s.sim.alive().size() == 5);
}

TEST_CASE("Static provisioning: should not create additional nodeclaims when node limits are reached",
          "[disruption][static]")
{
  StaticSuite s(5);
  s.pool().limit_nodes = 3;
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.nodes.launched == 3);
  CHECK(has_decision(result, "default", "keep", "nodepool node limit reached"));
}

TEST_CASE("Static provisioning: should handle zero replicas", "[disruption][static]")
{
  StaticSuite s(0);
  const auto result = s.sim.run(10 * k_minute);
  CHECK(result.nodes.launched == 0);
}

TEST_CASE("Static provisioning: without the StaticCapacity gate a static NodePool launches nothing",
          "[disruption][static]")
{
  StaticSuite s(3, false);
  s.sim.pending(0, 1, rs_pod());
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.nodes.launched == 0);
  CHECK(result.pods.unschedulable == 1);
}

TEST_CASE("Static provisioning: a deleted NodeClaim is replaced, and pods never make a static NodePool grow",
          "[disruption][static]")
{
  // The provisioner's scheduler skips static NodePools (provisioner.go NewScheduler): a pod that
  // fits none of the static nodes stays pending. An expired node is replaced by the static
  // provisioning controller, which watches NodeClaim deletions.
  StaticSuite s(2);
  s.pool().expire_after = 20 * k_minute;
  PodOpts big = rs_pod();
  big.cpu_milli = 1'000'000;
  s.sim.pending(k_minute, 1, big);
  const auto result = s.sim.run(30 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.expiration == 2);
  CHECK(result.nodes.launched == 4);
  CHECK(s.sim.alive().size() == 2);
  CHECK(result.pods.unschedulable == 1);
}

TEST_CASE("Static NodePools are never consolidated", "[disruption][static]")
{
  // emptiness.go and consolidation.go ShouldDisrupt: OwnedByStaticNodePool -> false.
  StaticSuite s(3);
  s.pool().consolidate_after = 0;
  const auto result = s.sim.run(k_hour);
  INFO(dump(result));
  CHECK(s.sim.alive().size() == 3);
  CHECK(result.disruptions.emptiness == 0);
  CHECK(result.disruptions.consolidation_delete == 0);
  CHECK(has_decision(result, "default-000001", "keep", "is static (spec.replicas)"));
}

// --- static deprovisioning (static/deprovisioning/suite_test.go)

TEST_CASE("Static deprovisioning: should terminate excess nodeclaims, empty nodes first", "[disruption][static]")
{
  // Replicas go from 3 to 1 (a new version of the NodePool): the two empty nodes go, the node
  // with pods stays ("should prioritize empty nodes ... for termination").
  StaticSuite s(3);
  s.nodes(3, false);
  s.sim.pods_on("node-1", 2, rs_pod());
  s.resize(10 * k_minute, 1);
  const auto result = s.sim.run(20 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-1"});
  const auto deletes = decisions(result, "static", "delete");
  REQUIRE(deletes.size() == 2);
  CHECK(deletes[0].t == 10 * k_minute);
  CHECK(result.nodes.launched == 0);
}

TEST_CASE("Static deprovisioning: nodes with do-not-disrupt pods go last, then by rescheduling cost",
          "[disruption][static]")
{
  StaticSuite s(3);
  s.nodes(3, false);
  PodOpts dnd = rs_pod();
  dnd.do_not_disrupt = k_never;
  s.sim.pods_on("node-0", 1, dnd);
  s.sim.pods_on("node-1", 3, rs_pod());
  s.sim.pods_on("node-2", 1, rs_pod());
  s.resize(10 * k_minute, 1);
  const auto result = s.sim.run(20 * k_minute);
  INFO(dump(result));
  const auto deletes = decisions(result, "static", "delete");
  REQUIRE(deletes.size() == 2);
  CHECK(deletes[0].candidate == "node-2"); // cost 1
  CHECK(deletes[1].candidate == "node-1"); // cost 3
  CHECK(s.sim.alive(std::string("node-0")));
}

TEST_CASE("Static deprovisioning: should handle zero replicas by terminating all nodeclaims", "[disruption][static]")
{
  StaticSuite s(2);
  s.nodes(2, false);
  s.resize(5 * k_minute, 0);
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive().empty());
  CHECK(result.disruptions.drift + result.disruptions.emptiness == 0);
}

// --- StaticDrift (disruption/staticdrift_test.go; the static controllers off, as that suite)

TEST_CASE("StaticDrift: should respect disruption budgets (Nodes Count) for static drift", "[disruption][static]")
{
  StaticSuite s(10, false);
  s.pool().budgets = {model::DisruptionBudget{"2", std::nullopt, std::nullopt, {model::DisruptionReason::drifted}}};
  s.nodes(10, true);
  const auto result = s.sim.run(k_hour);
  INFO(dump(result));
  CHECK(replaces_at(result, 0) == 2); // two commands in the first pass
  CHECK(result.disruptions.drift == 10);
  CHECK(s.sim.alive().size() == 10);
  CHECK(result.nodes.peak <= 12);
}

TEST_CASE("StaticDrift: should respect disruption budgets (Nodes Percentage) for static drift",
          "[disruption][static]")
{
  StaticSuite s(10, false);
  s.pool().budgets = {model::DisruptionBudget{"20%", std::nullopt, std::nullopt, {model::DisruptionReason::drifted}}};
  s.nodes(10, true);
  const auto result = s.sim.run(5 * k_second);
  INFO(dump(result));
  CHECK(replaces_at(result, 0) == 2);
}

TEST_CASE("StaticDrift: should not drift nodes when we cannot acquire limits", "[disruption][static]")
{
  StaticSuite s(3, false);
  s.pool().limit_nodes = 3;
  s.nodes(3, true);
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.drift == 0);
  CHECK(has_decision(result, "node-0", "keep", "no room under limits.nodes"));
}

TEST_CASE("StaticDrift: should drift partially when we can acquire some limits", "[disruption][static]")
{
  StaticSuite s(5, false);
  s.pool().limit_nodes = 7;
  s.nodes(5, true);
  const auto result = s.sim.run(k_hour);
  INFO(dump(result));
  CHECK(replaces_at(result, 0) == 2);
  CHECK(result.disruptions.drift == 5);
  CHECK(result.nodes.peak <= 7);
}

TEST_CASE("StaticDrift: should keep drifting partially when we can acquire some limits for each reconcile",
          "[disruption][static]")
{
  StaticSuite s(5, false);
  s.pool().limit_nodes = 6;
  s.nodes(5, true);
  const auto result = s.sim.run(k_hour);
  INFO(dump(result));
  CHECK(replaces_at(result, 0) == 1);
  CHECK(result.disruptions.drift == 5);
  CHECK(result.nodes.peak == 6); // at no point over the limit
  CHECK(s.sim.alive().size() == 5);
}

TEST_CASE("StaticDrift: should wait until nodes are deprovisioned when we are overscaled", "[disruption][static]")
{
  StaticSuite s(1, false);
  s.nodes(2, true);
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.drift == 0);
  CHECK(has_decision(result, "node-0", "keep", "scales down first"));
}

TEST_CASE("StaticDrift: should ignore nodes with the karpenter.sh/do-not-disrupt annotation", "[disruption][static]")
{
  StaticSuite s(2, false);
  s.sim.node("node-0", "default", s.type, resources(32000, 0, 100), {}, {}, true);
  s.sim.node("node-1", "default", s.type, resources(32000, 0, 100));
  s.drift("node-0");
  s.drift("node-1");
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.drift == 1);
  CHECK(s.sim.alive(std::string("node-0")));
  CHECK(!s.sim.alive(std::string("node-1")));
}

} // namespace capsim::karpenter::dtest
