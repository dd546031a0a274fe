// Ports of core:pkg/controllers/disruption/drift_test.go (kubernetes-sigs/karpenter HEAD 2266468).
// Nodes drift through scenario Drift events (NodeState::drifted_at), as an AMI change would mark
// them. The suite's BeforeEach: consolidateAfter 1h (so emptiness and consolidation stay out of
// the way), budgets 100%, nodes of mostExpensiveInstance with allocatable {cpu: 32, pods: 100}.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace capsim::karpenter::dtest {

namespace {

struct DriftSuite
{
  Sim sim;
  std::string type;

  explicit DriftSuite(std::vector<catalog::InstanceType> types = testing::fake_instance_types_assorted(),
                      std::vector<std::string> zones = {"test-zone-1", "test-zone-2", "test-zone-3"})
    : sim(std::move(types), std::move(zones))
  {
    auto& p = sim.pool("default");
    p.consolidate_after = k_hour;
    type = sim.most_expensive("on-demand").name;
  }

  model::NodePool& pool() { return sim.scenario.node_pools[0]; }

  std::string add_node(const std::string& name)
  {
    return sim.node(name, "default", type, resources(32000, 0, 100));
  }

  void drift(const std::string& node, SimTime at = 0)
  {
    model::ScenarioEvent e;
    e.at = at;
    e.kind = "Drift";
    e.selector.node_name = node;
    sim.scenario.events.push_back(e);
  }
};

PodOpts app_pod(std::int64_t cpu_milli = 0)
{
  PodOpts o;
  o.labels = {{"app", "test"}};
  o.cpu_milli = cpu_milli;
  return o;
}

} // namespace

TEST_CASE("Drift: should replace drifted nodes", "[disruption][drift]")
{
  DriftSuite s;
  s.add_node("node-0");
  s.sim.pods_on("node-0", 1, app_pod());
  s.drift("node-0");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  const auto alive = s.sim.alive();
  REQUIRE(alive.size() == 1);
  CHECK(alive[0] != "node-0");
  CHECK(result.disruptions.drift == 1);
  const auto replaces = decisions(result, "drift", "replace");
  REQUIRE(replaces.size() == 1);
  CHECK(replaces[0].t == 0); // drift is not validated: the command starts at once
}

TEST_CASE("Drift: should delete drifted nodes", "[disruption][drift]")
{
  // The drifted node's pod fits on the other node: no replacement.
  DriftSuite s;
  s.add_node("node-0");
  s.add_node("node-1");
  s.sim.pods_on("node-0", 1, app_pod());
  s.drift("node-0");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-1"});
  CHECK(result.nodes.launched == 0);
  CHECK(decisions(result, "drift", "delete").size() == 1);
}

TEST_CASE("Drift: should delete drifted nodes when they are empty and consolidation is disabled", "[disruption][drift]")
{
  DriftSuite s;
  s.pool().consolidate_after = k_never;
  s.add_node("node-0");
  s.drift("node-0");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive().empty());
  CHECK(result.disruptions.drift == 1);
  CHECK(result.disruptions.emptiness == 0);
}

TEST_CASE("Drift: should drift empty nodes before non-empty nodes", "[disruption][drift]")
{
  DriftSuite s;
  s.pool().consolidate_after = k_never;
  s.add_node("node-0");
  s.add_node("node-1");
  s.sim.pods_on("node-0", 1, app_pod());
  s.drift("node-0");
  s.drift("node-1");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  const auto acts = decisions(result, "drift");
  const auto first = std::find_if(acts.begin(), acts.end(),
                                  [](const report::Decision& d) { return d.action == "delete" || d.action == "replace"; });
  REQUIRE(first != acts.end());
  CHECK(first->candidate == "node-1"); // the empty one
  CHECK(first->action == "delete");
}

TEST_CASE("Drift: should drift one non-empty node at a time, starting with the earliest drift", "[disruption][drift]")
{
  DriftSuite s;
  s.add_node("node-0");
  s.add_node("node-1");
  s.sim.pods_on("node-0", 1, app_pod(30000));
  s.sim.pods_on("node-1", 1, app_pod(30000));
  s.drift("node-1", 1 * k_second); // drifted first
  s.drift("node-0", 2 * k_second);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  const auto replaces = decisions(result, "drift", "replace");
  REQUIRE(replaces.size() == 2);
  CHECK(replaces[0].candidate == "node-1"); // one candidate per command, oldest drift first
  CHECK(replaces[1].candidate == "node-0");
  CHECK(s.sim.alive().size() == 2);
  CHECK(!s.sim.alive(std::string("node-0")));
  CHECK(!s.sim.alive(std::string("node-1")));
}

TEST_CASE("Drift: can replace drifted nodes with multiple nodes", "[disruption][drift]")
{
  testing::FakeTypeOptions current;
  current.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", 0.5, false)};
  testing::FakeTypeOptions replacement;
  replacement.cpu_milli = 3000;
  replacement.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", 0.3)};
  DriftSuite s({testing::fake_instance_type("current-on-demand", current),
                testing::fake_instance_type("replacement-on-demand", replacement)},
               {"test-zone-1a"});
  s.sim.node("node-0", "default", "current-on-demand", resources(8000, 0, 100));
  s.sim.pods_on("node-0", 3, app_pod(2000));
  s.drift("node-0");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(!s.sim.alive(std::string("node-0")));
  CHECK(s.sim.alive_types() == std::vector<std::string>(3, "replacement-on-demand"));
  CHECK(has_decision(result, "node-0", "replace", "replace with 3 node(s)"));
}

TEST_CASE("Drift: should untaint nodes when drift replacement fails", "[disruption][drift]")
{
  DriftSuite s;
  s.add_node("node-0");
  s.sim.pods_on("node-0", 1, app_pod());
  s.drift("node-0");
  // Every launch fails with insufficient capacity for the first 10 minutes.
  model::ScenarioEvent ice;
  ice.kind = "InsufficientCapacity";
  ice.at = 0;
  ice.duration = 10 * k_minute;
  s.sim.scenario.events.push_back(ice);
  const auto result = s.sim.run(60 * k_second);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(has_decision(result, "node-0", "abandon", "candidates un-tainted"));
  const auto& cluster = s.sim.cluster();
  const auto it = std::find_if(cluster.nodes().begin(), cluster.nodes().end(),
                               [](const cluster::NodeState& n) { return n.name == "node-0"; });
  REQUIRE(it != cluster.nodes().end());
  CHECK(!it->disrupted_taint);
  CHECK(it->pods.size() == 1);
}

TEST_CASE("Drift: should not create replacements for drifted nodes that have pods with the karpenter.sh/do-not-disrupt "
          "annotation set to true",
          "[disruption][drift]")
{
  DriftSuite s;
  s.add_node("node-0");
  auto blocked = app_pod();
  blocked.do_not_disrupt = k_never;
  s.sim.pods_on("node-0", 1, blocked);
  s.drift("node-0");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
}

TEST_CASE("Drift Budgets: should disrupt 3 nodes, taking into account commands in progress",
          "[disruption][drift][budgets]")
{
  // 10 nodes, the first 5 drifted with a 1-CPU pod each; budget 30% -> 3 commands at a time.
  DriftSuite s;
  s.pool().budgets = {model::DisruptionBudget{"30%", std::nullopt, std::nullopt, {}}};
  for (int i = 0; i < 10; ++i) {
    const auto name = fmt::format("node-{}", i);
    s.add_node(name);
    if (i < 5) {
      s.sim.pods_on(name, 1, app_pod(1000));
      s.drift(name);
    }
  }
  {
    const auto result = s.sim.run(2 * k_second);
    INFO(dump(result));
    CHECK(decisions(result, "drift", "delete").size() == 3);
    const auto kept = decisions(result, "drift", "keep");
    CHECK(std::any_of(kept.begin(), kept.end(), [](const report::Decision& d) {
      return d.detail.find("allows no more Drifted disruptions") != std::string::npos;
    }));
  }
  DriftSuite all;
  all.pool().budgets = {model::DisruptionBudget{"30%", std::nullopt, std::nullopt, {}}};
  for (int i = 0; i < 10; ++i) {
    const auto name = fmt::format("node-{}", i);
    all.add_node(name);
    if (i < 5) {
      all.sim.pods_on(name, 1, app_pod(1000));
      all.drift(name);
    }
  }
  const auto result = all.sim.run(2 * k_minute);
  INFO(dump(result));
  // Once the first three are gone the budget opens again for the last two.
  CHECK(all.sim.alive() == std::vector<std::string>{"node-5", "node-6", "node-7", "node-8", "node-9"});
}

TEST_CASE("Drift: RequirementsDrifted - a node whose labels no longer satisfy the NodePool drifts",
          "[disruption][drift]")
{
  // core:pkg/controllers/nodeclaim/disruption/drift.go areRequirementsDrifted: the NodePool now
  // requires on-demand, the node is spot.
  DriftSuite s;
  s.pool().requirements.add(model::Requirement::make(std::string(model::labels::k_capacity_type),
                                                     model::Operator::in, {"on-demand"}));
  s.sim.node("node-0", "default", s.sim.most_expensive("spot").name, resources(32000, 0, 100));
  s.sim.pods_on("node-0", 1, app_pod());
  // A compatible node does not drift.
  s.add_node("node-1");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(!s.sim.alive(std::string("node-0")));
  CHECK(s.sim.alive(std::string("node-1")));
  CHECK(result.disruptions.drift == 1);
}

} // namespace capsim::karpenter::dtest
