// Ports of core:pkg/controllers/disruption/drift_test.go (kubernetes-sigs/karpenter HEAD 2266468).
// Nodes drift through scenario Drift events (NodeState::drifted_at), as an AMI change would mark
// them. The suite's BeforeEach: consolidateAfter 1h (so emptiness and consolidation stay out of
// the way), budgets 100%, nodes of mostExpensiveInstance with allocatable {cpu: 32, pods: 100}.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

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

TEST_CASE("Drift: should continue to the next drifted node if the first cannot reschedule all pods",
          "[disruption][drift]")
{
  // node-0's pod asks for 150 CPUs, more than any instance type has; node-1 (allocatable 1 CPU)
  // holds a 1-CPU pod that a replacement can take.
  DriftSuite s;
  s.add_node("node-0");
  s.sim.node("node-1", "default", s.type, resources(1000, 0, 100));
  s.sim.pods_on("node-0", 1, app_pod(150'000));
  s.sim.pods_on("node-1", 1, app_pod(1000));
  s.drift("node-0");
  s.drift("node-1");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive(std::string("node-0")));
  CHECK_FALSE(s.sim.alive(std::string("node-1")));
  CHECK(s.sim.alive().size() == 2);
  CHECK(result.nodes.launched == 1);
  const auto replaces = decisions(result, "drift", "replace");
  REQUIRE(replaces.size() == 1);
  CHECK(replaces[0].candidate == "node-1");
}

TEST_CASE("Drift: should ignore nodes with the karpenter.sh/do-not-disrupt annotation set to true",
          "[disruption][drift]")
{
  DriftSuite s;
  s.sim.node("node-0", "default", s.type, resources(32000, 0, 100), {}, {}, true);
  s.drift("node-0");
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.disruptions.drift == 0);
}

TEST_CASE("Drift: should not create replacements for drifted nodes that have pods with the karpenter.sh/do-not-disrupt "
          "annotation set to true when the NodePool's TerminationGracePeriod is not nil",
          "[disruption][drift]")
{
  // With a terminationGracePeriod the node is a drift candidate (eventual disruption), but the
  // pod that cannot be evicted is not rescheduled: the command deletes the node without a
  // replacement, and the drain waits for the grace period.
  DriftSuite s;
  s.pool().termination_grace_period = 300 * k_second;
  s.add_node("node-0");
  auto blocked = app_pod();
  blocked.do_not_disrupt = k_never;
  s.sim.pods_on("node-0", 1, blocked);
  s.drift("node-0");
  const auto result = s.sim.run(2 * k_minute);
  INFO(dump(result));
  CHECK(result.nodes.launched == 0);
  CHECK(decisions(result, "drift", "replace").empty());
  CHECK(decisions(result, "drift", "delete").size() == 1);
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"}); // draining until the grace period ends
}

TEST_CASE("Drift: should not create replacements for drifted nodes that have pods with the blocking PDBs when the "
          "NodePool's TerminationGracePeriod is not nil",
          "[disruption][drift][pdb]")
{
  DriftSuite s;
  s.pool().termination_grace_period = 300 * k_second;
  s.add_node("node-0");
  PodOpts pod;
  pod.labels = {{"test", "value"}};
  s.sim.pods_on("node-0", 1, pod);
  s.sim.scenario.pdbs.push_back(blocking_pdb(pod.labels));
  s.drift("node-0");
  const auto result = s.sim.run(2 * k_minute);
  INFO(dump(result));
  CHECK(result.nodes.launched == 0);
  CHECK(decisions(result, "drift", "replace").empty());
  CHECK(decisions(result, "drift", "delete").size() == 1);
}

TEST_CASE("Drift: should not drift nodes with pods that have a duration-based do-not-disrupt annotation that is still "
          "active",
          "[disruption][drift]")
{
  for (const SimTime end : {2 * k_minute - k_second, 3 * k_minute}) {
    DriftSuite s;
    s.add_node("node-0");
    auto blocked = app_pod();
    blocked.do_not_disrupt = 2 * k_minute;
    s.sim.pods_on("node-0", 1, blocked);
    s.drift("node-0");
    const auto result = s.sim.run(end);
    INFO(dump(result));
    if (end < 2 * k_minute) {
      CHECK(result.nodes.launched == 0); // blocked while the grace period runs
      CHECK(decisions(result, "drift", "replace").empty());
    } else {
      CHECK(result.nodes.launched == 1); // then a replacement is created
      CHECK(decisions(result, "drift", "replace").size() == 1);
    }
  }
}

TEST_CASE("Drift: should not drift nodes until the longest duration-based do-not-disrupt grace period expires across "
          "multiple pods",
          "[disruption][drift]")
{
  for (const SimTime end : {2 * k_minute, 3 * k_minute - k_second, 4 * k_minute}) {
    DriftSuite s;
    s.add_node("node-0");
    auto one = app_pod();
    one.do_not_disrupt = k_minute;
    auto three = app_pod();
    three.do_not_disrupt = 3 * k_minute;
    s.sim.pods_on("node-0", 1, one);
    s.sim.pods_on("node-0", 1, three);
    s.drift("node-0");
    const auto result = s.sim.run(end);
    INFO(dump(result));
    CHECK(result.nodes.launched == (end < 3 * k_minute ? 0 : 1));
  }
}

TEST_CASE("Drift Budgets: should respect budgets for multiple nodepools", "[disruption][drift][budgets]")
{
  // Ten NodePools with a budget of one node, three drifted nodes each, two of them with a pod.
  // Upstream reconciles 30 times without executing a command and finds one per NodePool, each
  // deleting its empty node (drift takes empty nodes first). Here commands execute, and a node
  // stops counting against its budget once its instance is terminating (InstanceTerminating):
  // each NodePool starts with its empty node and never has two nodes disrupted at once.
  DriftSuite s;
  s.sim.scenario.node_pools.clear();
  for (int p = 0; p < 10; ++p) {
    auto& pool = s.sim.pool(fmt::format("pool-{}", p));
    pool.consolidate_after = k_never;
    pool.budgets = {model::DisruptionBudget{"1", std::nullopt, std::nullopt, {}}};
  }
  for (int p = 0; p < 10; ++p) {
    for (int i = 0; i < 3; ++i) {
      const auto name = fmt::format("pool-{}-node-{}", p, i);
      s.sim.node(name, fmt::format("pool-{}", p), s.type, resources(32000, 0, 100));
      if (i < 2) {
        s.sim.pods_on(name, 1, app_pod(1000));
      }
      s.drift(name);
    }
  }
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  std::map<std::string, SimTime> terminated;
  for (const auto& n : s.sim.cluster().nodes()) {
    terminated[n.name] = n.alive() ? -1 : n.terminated_at;
  }
  for (int p = 0; p < 10; ++p) {
    const auto prefix = fmt::format("pool-{}-", p);
    std::vector<report::Decision> commands;
    for (const auto& d : result.decisions) {
      if (d.method == "drift" && (d.action == "delete" || d.action == "replace") && d.candidate.rfind(prefix, 0) == 0) {
        commands.push_back(d);
      }
    }
    REQUIRE(commands.size() == 3);
    CHECK(commands[0].candidate == prefix + "node-2");
    CHECK(commands[0].action == "delete");
    for (std::size_t i = 1; i < commands.size(); ++i) {
      INFO(commands[i].candidate);
      const SimTime previous_gone = terminated.at(commands[i - 1].candidate);
      CHECK(previous_gone >= 0);
      CHECK(commands[i].t >= previous_gone);
    }
  }
}
} // namespace capsim::karpenter::dtest
