// Ports of core:pkg/controllers/disruption/consolidation_test.go (kubernetes-sigs/karpenter HEAD
// 2266468). Each case names its upstream `It(...)` / `DescribeTable(...)` entry. The suite's
// BeforeEach: a WhenEmptyOrUnderutilized NodePool, consolidateAfter 0s, budgets 100%, the
// SpotToSpotConsolidation gate on, the fake.InstanceTypesAssorted() catalog. Upstream drives one
// reconcile with no-op validators; here the engine runs, so commands are validated 15 s after
// they are computed and replacements initialize 75 s after launch (45 s + 30 s) before the
// candidates are drained.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace capsim::karpenter::dtest {

namespace {

const model::Labels k_app = {{"app", "test"}};

const cluster::NodeState* find_alive(const Sim& sim, const std::string& name)
{
  for (const auto& n : sim.cluster().nodes()) {
    if (n.alive() && n.name == name) {
      return &n;
    }
  }
  return nullptr;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Delete

TEST_CASE("Consolidation Delete: can delete nodes", "[disruption][consolidation]")
{
  ConsolidationSuite s;
  s.two_cheap_nodes();
  s.sim.pods_on("node-0", 2, rs_pod());
  s.sim.pods_on("node-1", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // node-1 has the fewer pods (best savings ratio): its pod moves to node-0, no new node.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.disruptions.consolidation_delete == 1);
  CHECK(result.nodes.launched == 0);
  REQUIRE(find_alive(s.sim, "node-0") != nullptr);
  CHECK(result.pods.unschedulable == 0);
  CHECK(find_alive(s.sim, "node-0")->pods.size() == 3);
  const auto deletes = decisions(result, "single-node", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].candidate == "node-1");
  CHECK(deletes[0].t == 15 * k_second);
  CHECK(deletes[0].saving_per_hour == Approx(s.sim.cheapest("on-demand").offerings[0].price_per_hour));
}

TEST_CASE("Consolidation Delete: can delete nodes, considers PDB", "[disruption][consolidation][pdb]")
{
  ConsolidationSuite s;
  s.two_cheap_nodes();
  PodOpts plain;
  s.sim.pods_on("node-0", 2, plain);
  s.sim.pods_on("node-1", 1, rs_pod()); // only this pod is covered by the PDB
  s.sim.scenario.pdbs.push_back(blocking_pdb(k_app));
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // The node with more pods goes: the other one's pod has a PDB with zero disruptions allowed.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-1"});
  CHECK(has_decision(result, "node-1", "keep", "PDB default/pdb allows no disruption"));
}

TEST_CASE("Consolidation Delete: can delete nodes, considers karpenter.sh/do-not-disrupt set to true on nodes",
          "[disruption][consolidation]")
{
  ConsolidationSuite s;
  const auto& t = s.sim.cheapest("on-demand");
  s.sim.node("node-0", "default", t.name, resources(32000, 0, 100));
  s.sim.node("node-1", "default", t.name, resources(32000, 0, 100), {}, {}, true);
  s.sim.pods_on("node-0", 2, rs_pod());
  s.sim.pods_on("node-1", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-1"});
}

TEST_CASE("Consolidation Delete: can delete nodes, considers karpenter.sh/do-not-disrupt set to true on pods",
          "[disruption][consolidation]")
{
  ConsolidationSuite s;
  s.two_cheap_nodes();
  s.sim.pods_on("node-0", 2, rs_pod());
  auto blocked = rs_pod();
  blocked.do_not_disrupt = k_never;
  s.sim.pods_on("node-1", 1, blocked);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-1"});
  CHECK(has_decision(result, "node-1", "keep", "has the \"karpenter.sh/do-not-disrupt\" annotation"));
}

TEST_CASE("Consolidation Delete: does not consolidate nodes with pods that have a duration-based do-not-disrupt "
          "annotation that is still active",
          "[disruption][consolidation]")
{
  ConsolidationSuite s;
  s.two_cheap_nodes();
  s.sim.pods_on("node-0", 2, rs_pod());
  auto blocked = rs_pod();
  blocked.do_not_disrupt = 2 * k_minute;
  s.sim.pods_on("node-1", 1, blocked);
  const auto result = s.sim.run(60 * k_second);
  INFO(dump(result));
  // node-1 is protected for 2 minutes, so node-0 (two pods) is deleted onto it.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-1"});
}

TEST_CASE("Consolidation Delete: can consolidate nodes after duration-based do-not-disrupt annotation expires",
          "[disruption][consolidation]")
{
  for (const SimTime end : {2 * k_minute - k_second, 3 * k_minute}) {
    ConsolidationSuite s;
    s.two_cheap_nodes();
    auto blocked = rs_pod();
    blocked.do_not_disrupt = 2 * k_minute;
    s.sim.pods_on("node-0", 2, blocked);
    s.sim.pods_on("node-1", 1, blocked);
    const auto result = s.sim.run(end);
    INFO(dump(result));
    if (end < 2 * k_minute) {
      CHECK(s.sim.alive().size() == 2); // no command while every pod is protected
    } else {
      CHECK(s.sim.alive() == std::vector<std::string>{"node-0"}); // one command after expiry
    }
  }
}

TEST_CASE("Consolidation Delete: won't delete nodes if it would make a non-pending pod go pending",
          "[disruption][consolidation]")
{
  ConsolidationSuite s;
  s.two_cheap_nodes();
  s.sim.label_node("node-0", {{"foo", "1"}});
  s.sim.label_node("node-1", {{"foo", "2"}});
  auto on1 = rs_pod();
  on1.node_selector = {{"foo", "1"}};
  auto on2 = rs_pod();
  on2.node_selector = {{"foo", "2"}};
  s.sim.pods_on("node-0", 2, on1);
  s.sim.pods_on("node-1", 1, on2);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive().size() == 2);
  CHECK(has_decision(result, "node-1", "keep", "fits nowhere"));
}

TEST_CASE("Consolidation Delete: won't delete node if it would require pods to schedule on an uninitialized node",
          "[disruption][consolidation]")
{
  // node-b's pod could move to a node that provisioning just launched for a pending pod; that
  // node is not initialized yet, so consolidation must wait for it.
  ConsolidationSuite s;
  const auto& t = s.sim.cheapest("on-demand"); // test-zone-1
  s.sim.node("node-b", "default", t.name, resources(32000, 0, 100));
  s.sim.pods_on("node-b", 1, rs_pod());
  auto other_zone = rs_pod();
  other_zone.node_selector = {{std::string(model::labels::k_zone), "test-zone-2"}};
  s.sim.pending(0, 1, other_zone);
  const auto result = s.sim.run(60 * k_second);
  INFO(dump(result));
  CHECK(s.sim.alive(std::string("node-b")));
  CHECK(has_decision(result, "node-b", "keep", "would schedule against uninitialized node"));
}

TEST_CASE("Consolidation Delete: should not consolidate pods onto a destination node that is under its "
          "consolidateAfter window",
          "[disruption][consolidation]")
{
  // consolidateAfter 1m. node-0 gets a new pod at 50 s, so it is inside its window until 110 s;
  // node-1 becomes consolidatable at 60 s but its pod may not move onto node-0 yet. The pass at
  // 60 s finds nothing and marks the cluster consolidated; nothing changes afterwards, so the
  // next pass comes with the 5-minute ConsolidationState refresh.
  ConsolidationSuite s;
  s.pool().consolidate_after = k_minute;
  s.two_cheap_nodes();
  s.sim.pods_on("node-0", 2, rs_pod());
  s.sim.pods_on("node-1", 1, rs_pod());
  auto pinned = rs_pod();
  pinned.node_selector = {{std::string(model::labels::k_hostname), "node-0"}};
  s.sim.pending(50 * k_second, 1, pinned);
  {
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    CHECK(s.sim.alive().size() == 2);
  }
  ConsolidationSuite later;
  later.pool().consolidate_after = k_minute;
  later.two_cheap_nodes();
  later.sim.pods_on("node-0", 2, rs_pod());
  later.sim.pods_on("node-1", 1, rs_pod());
  later.sim.pending(50 * k_second, 1, pinned);
  const auto result = later.sim.run(8 * k_minute);
  INFO(dump(result));
  CHECK(later.sim.alive() == std::vector<std::string>{"node-0"});
}

// ---------------------------------------------------------------------------------------------
// Replace

TEST_CASE("Consolidation Replace: can replace node (if the candidate is on-demand node)", "[disruption][consolidation]")
{
  ConsolidationSuite s;
  const auto& expensive = s.sim.most_expensive("on-demand");
  s.sim.node("node-0", "default", expensive.name, resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  const auto& n = only_alive(s.sim);
  CHECK(n.name != "node-0");
  REQUIRE(n.instance_type != nullptr);
  CHECK(n.instance_type->name != expensive.name);
  // On-demand -> [on-demand, spot]: the price rule assumed spot, so the replacement is spot.
  CHECK(n.capacity_type == "spot");
  CHECK(n.pods.size() == 1);
  CHECK(result.disruptions.consolidation_replace == 1);
  // Launched when the command starts (15 s), candidate drained once it is initialized (+75 s).
  const auto terminate = decisions(result, "single-node", "terminate");
  REQUIRE(terminate.size() == 1);
  CHECK(terminate[0].t == 90 * k_second);
}

TEST_CASE("Consolidation Replace: can replace node (if the candidate is spot node)", "[disruption][consolidation]")
{
  ConsolidationSuite s;
  const auto& expensive = s.sim.most_expensive("spot");
  s.sim.node("node-0", "default", expensive.name, resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  const auto& n = only_alive(s.sim);
  CHECK(n.name != "node-0");
  CHECK(n.capacity_type == "spot");
  // Spot-to-spot single-node: the launch list is the 15 cheapest options.
  CHECK(has_decision(result, "node-0", "replace", "(15 option(s), spot)"));
}

TEST_CASE("Consolidation Replace: cannot replace spot with spot if the spotToSpotConsolidation is disabled",
          "[disruption][consolidation][spot]")
{
  ConsolidationSuite s;
  s.sim.scenario.settings.karpenter.spot_to_spot_consolidation = false;
  const auto& expensive = s.sim.most_expensive("spot");
  s.sim.node("node-0", "default", expensive.name, resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(has_decision(result, "node-0", "keep",
                     "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"));
}

TEST_CASE("Consolidation Replace: cannot replace spot with spot if less than minimum InstanceTypes flexibility",
          "[disruption][consolidation][spot]")
{
  // The first 5 assorted types; the first gets a spot offering at $0.001.
  auto types = testing::fake_instance_types_assorted();
  types.resize(5);
  types[0].offerings[0].price_per_hour = 0.001;
  types[0].offerings[0].capacity_type = "spot";
  catalog::finalize_requirements(types[0]);
  ConsolidationSuite s(types);
  // The most expensive spot type among them.
  const auto& expensive = s.sim.most_expensive("spot");
  s.sim.node("node-0", "default", expensive.name, resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(has_decision(result, "node-0", "keep",
                     "SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to "
                     "consolidate, got 1"));
}

TEST_CASE("Consolidation Replace: won't replace on-demand node if on-demand replacement is more expensive",
          "[disruption][consolidation]")
{
  testing::FakeTypeOptions current;
  current.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", 0.5, false)};
  testing::FakeTypeOptions replacement;
  replacement.offerings = std::vector<catalog::Offering>{
      testing::fake_offering("test-zone-1a", "on-demand", 0.6), testing::fake_offering("test-zone-1b", "on-demand", 0.6),
      testing::fake_offering("test-zone-1b", "spot", 0.2), testing::fake_offering("test-zone-1c", "spot", 0.3)};
  ConsolidationSuite s({testing::fake_instance_type("current-on-demand", current),
                        testing::fake_instance_type("on-demand-replacement", replacement)},
                       {"test-zone-1a", "test-zone-1b", "test-zone-1c"});
  s.pool().requirements.add(model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in,
                                                     {"on-demand"}));
  s.sim.node("node-0", "default", "current-on-demand", resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(has_decision(result, "node-0", "keep", "can't replace with a cheaper node"));
}

TEST_CASE("Consolidation Replace: won't replace node if any spot replacement is more expensive",
          "[disruption][consolidation]")
{
  testing::FakeTypeOptions current;
  current.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", 0.5, false)};
  testing::FakeTypeOptions replacement;
  replacement.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "spot", 1.0),
                                                         testing::fake_offering("test-zone-1b", "spot", 0.2),
                                                         testing::fake_offering("test-zone-1c", "spot", 0.4)};
  ConsolidationSuite s({testing::fake_instance_type("current-on-demand", current),
                        testing::fake_instance_type("potential-spot-replacement", replacement)},
                       {"test-zone-1a", "test-zone-1b", "test-zone-1c"});
  s.sim.node("node-0", "default", "current-on-demand", resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // The worst spot launch price ($1.0) is not below the current $0.5.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(has_decision(result, "node-0", "keep", "up to $1.0000/h"));
}

// ---------------------------------------------------------------------------------------------
// Multi-NodeClaim

TEST_CASE("Consolidation Multi-NodeClaim: can merge 3 nodes into 1", "[disruption][consolidation][multi]")
{
  for (const bool spot : {false, true}) {
    ConsolidationSuite s;
    const auto& expensive = s.sim.most_expensive(spot ? "spot" : "on-demand");
    for (int i = 0; i < 3; ++i) {
      const auto name = fmt::format("node-{}", i);
      s.sim.node(name, "default", expensive.name, resources(32000, 0, 100));
      s.sim.pods_on(name, 1, rs_pod());
    }
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    const auto& n = only_alive(s.sim);
    CHECK(n.pods.size() == 3);
    const auto replaces = decisions(result, "multi-node", "replace");
    REQUIRE(replaces.size() == 1);
    CHECK(replaces[0].candidate == "node-0,node-1,node-2");
    CHECK(result.disruptions.consolidation_replace == 3);
  }
}

TEST_CASE("Consolidation Multi-NodeClaim: won't merge 2 nodes into 1 of the same type",
          "[disruption][consolidation][multi]")
{
  for (const bool spot : {false, true}) {
    ConsolidationSuite s;
    const auto& cheap = s.sim.cheapest(spot ? "spot" : "on-demand");
    s.sim.node("node-0", "default", cheap.name, resources(32000, 0, 100));
    s.sim.node("node-1", "default", cheap.name, resources(32000, 0, 100));
    s.sim.pods_on("node-0", 1, rs_pod());
    s.sim.pods_on("node-1", 2, rs_pod());
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    // Not [delete 2 x cheap, launch cheap]: just delete the node with the fewest pods.
    CHECK(s.sim.alive() == std::vector<std::string>{"node-1"});
    CHECK(result.nodes.launched == 0);
    CHECK(decisions(result, "multi-node", "replace").empty());
  }
}

TEST_CASE("Consolidation Budgets: should only allow 3 nodes to be deleted in multi node consolidation delete",
          "[disruption][consolidation][budgets]")
{
  // 10 nodes of the cheapest type, one pod each, plus a big node that can take every pod;
  // budget 30% of 11 nodes rounds up to 4 but the pool's... upstream: 10 nodes, budget 30% -> 3.
  ConsolidationSuite s;
  s.pool().budgets = {model::DisruptionBudget{"30%", std::nullopt, std::nullopt, {}}};
  const auto& cheap = s.sim.cheapest("on-demand");
  for (int i = 0; i < 10; ++i) {
    const auto name = fmt::format("node-{:02d}", i);
    s.sim.node(name, "default", cheap.name, resources(32000, 0, 100));
    s.sim.pods_on(name, 1, rs_pod());
  }
  const auto result = s.sim.run(20 * k_second);
  INFO(dump(result));
  const auto deletes = decisions(result, "multi-node", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(std::count(deletes[0].candidate.begin(), deletes[0].candidate.end(), ',') == 2); // 3 nodes
  CHECK(s.sim.alive().size() == 7);
}

TEST_CASE("Consolidation Budgets: single-node tries the candidates multi-node's budget left out in their own order",
          "[disruption][consolidation][budgets]")
{
  // Two NodePools of one node each per Underutilized disruption. By savings ratio (one price,
  // fewer pods first): a1, a2, a3, b1. Multi-node searches only a1 and b1 (the budget keeps a2
  // and a3 out), and fails: each holds a pod pinned to it by a label no NodePool offers.
  // Single-node then tries a1, b1 (failing), a2 (its pods move): a2 is deleted, not a3. Whether
  // or not decisions are recorded (the controller takes multi-node's sorted list for single-node
  // only when they are not), the same node goes.
  const auto place = [](bool explain) {
    ConsolidationSuite s;
    s.sim.scenario.node_pools.clear();
    s.sim.pool("a").budgets = {model::DisruptionBudget{"1", std::nullopt, std::nullopt, {}}};
    s.sim.pool("b").budgets = {model::DisruptionBudget{"1", std::nullopt, std::nullopt, {}}};
    const auto& t = s.sim.cheapest("on-demand");
    const std::vector<std::pair<std::string, int>> nodes = {{"a1", 1}, {"a2", 2}, {"a3", 3}, {"b1", 4}};
    for (const auto& [name, pods] : nodes) {
      s.sim.node(name, name == "b1" ? "b" : "a", t.name, resources(32000, 0, 100));
      auto pod = rs_pod();
      pod.cpu_milli = 100;
      if (name == "a1" || name == "b1") {
        s.sim.label_node(name, {{"example.com/only", name}});
        auto pinned = pod;
        pinned.node_selector = {{"example.com/only", name}};
        s.sim.pods_on(name, 1, pinned);
        s.sim.pods_on(name, pods - 1, pod);
      } else {
        s.sim.pods_on(name, pods, pod);
      }
    }
    const auto result = s.sim.run(20 * k_second, explain);
    INFO(dump(result));
    std::vector<std::string> going;
    for (const auto& n : s.sim.cluster().nodes()) {
      if (!n.alive() || n.lifecycle == cluster::NodeLifecycle::deleting) {
        going.push_back(n.name);
      }
    }
    if (explain) {
      CHECK(decisions(result, "multi-node", "delete").empty());
      const auto deletes = decisions(result, "single-node", "delete");
      REQUIRE(deletes.size() == 1);
      CHECK(deletes[0].candidate == "a2");
    }
    return going;
  };
  CHECK(place(true) == std::vector<std::string>{"a2"});
  CHECK(place(false) == std::vector<std::string>{"a2"});
}

// ---------------------------------------------------------------------------------------------
// TTL (validation)

TEST_CASE("Consolidation TTL: should not consolidate if the action becomes invalid during the node TTL wait",
          "[disruption][consolidation][validation]")
{
  // An empty node's command is computed at t=0 and re-validated at 15 s; a do-not-disrupt pod
  // binds to the node at 5 s, so the command is abandoned and the node stays.
  ConsolidationSuite s;
  const auto& t = s.sim.cheapest("on-demand");
  s.sim.node("node-0", "default", t.name, resources(32000, 0, 100));
  auto pinned = rs_pod();
  pinned.node_selector = {{std::string(model::labels::k_hostname), "node-0"}};
  pinned.do_not_disrupt = k_never;
  s.sim.pending(5 * k_second, 1, pinned);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  const auto abandoned = decisions(result, "emptiness", "abandon");
  REQUIRE(abandoned.size() == 1);
  CHECK(abandoned[0].t == 15 * k_second);
  CHECK(abandoned[0].candidate == "node-0");
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.disruptions.emptiness == 0);
}

TEST_CASE("Consolidation Node Lifetime Consideration: should consolidate the node with best savings ratio first",
          "[disruption][consolidation]")
{
  ConsolidationSuite s;
  s.two_cheap_nodes();
  s.sim.pods_on("node-0", 2, rs_pod());
  s.sim.pods_on("node-1", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
}

TEST_CASE("Consolidation: v1.13 orders candidates by disruption cost (fewest pods / nearest expiry first)",
          "[disruption][consolidation][version]")
{
  // Same cluster as above with karpenter.version 1.13: DisruptionCost ascending also removes
  // node-1 (one pod), so the outcome agrees; the pod-priority case separates the orders.
  for (const std::string version : {"1.13", "1.14"}) {
    ConsolidationSuite s;
    s.sim.scenario.settings.karpenter.version = version;
    const auto& cheap = s.sim.cheapest("on-demand");
    const auto& big = s.sim.most_expensive("on-demand");
    // node-a: expensive with 3 pods; node-b: cheap with 1 pod. Both can take the other's pods.
    s.sim.node("node-a", "default", big.name, resources(32000, 0, 100));
    s.sim.node("node-b", "default", cheap.name, resources(32000, 0, 100));
    s.sim.pods_on("node-a", 3, rs_pod());
    s.sim.pods_on("node-b", 1, rs_pod());
    const auto result = s.sim.run(20 * k_second);
    INFO(version << "\n" << dump(result));
    const auto deletes = decisions(result, "single-node", "delete");
    REQUIRE(deletes.size() == 1);
    // v1.13: node-b first (cost 1 < 3). v1.14: node-a first (price/4 >> cheap price/2).
    CHECK(deletes[0].candidate == (version == "1.13" ? "node-b" : "node-a"));
  }
}

// ---------------------------------------------------------------------------------------------
// capsim: without --explain, single-node asks each candidate's remembered stop before making a
// simulation for it (stops_on_remembered_veto); debug builds solve each such answer and check it.

TEST_CASE("Consolidation Delete: single-node's remembered stops answer the stuck candidates and leave the others "
          "to the simulation",
          "[disruption][consolidation]")
{
  // Four spot nodes with a 3-CPU pod and 1 CPU free each (no pod has room elsewhere, no
  // spot-to-spot replacement) and a fifth of 2 CPU whose small pod fits on any of them: only the
  // fifth goes, whether or not decisions are recorded; the stuck four are answered from memory on
  // the later passes.
  const auto run = [](bool explain) {
    Sim sim;
    for (int i = 0; i < 5; ++i) {
      spot_node_with_pod(sim, fmt::format("node-{}", i), i < 4 ? 4000 : 2000, i < 4 ? 3000 : 100);
    }
    // Pods arriving now and then change the cluster, so consolidation runs again.
    PodOpts small = rs_pod();
    small.cpu_milli = 10;
    for (int m = 1; m < 30; m += 3) {
      sim.pending(m * k_minute, 1, small);
    }
    const auto result = sim.run(30 * k_minute, explain);
    INFO(dump(result));
    const auto& cache = sim.controller().cache();
    return std::tuple{sim.alive(), result.nodes.launched, cache.veto_memo_hits(), cache.stops_held_again()};
  };
  const auto [alive_explained, launched_explained, hits_explained, again_explained] = run(true);
  const auto [alive, launched, hits, again] = run(false);
  CHECK(alive == std::vector<std::string>{"node-0", "node-1", "node-2", "node-3"});
  CHECK(launched == 0);
  CHECK(alive == alive_explained);
  CHECK(launched == launched_explained);
  CHECK(hits_explained == 0); // reasons wanted: no early stops
  CHECK(again_explained == 0);
  CHECK(hits > 0);
  CHECK(again > 0); // the later candidates of a pass, once the first set the pass's checks up
  CHECK(again <= hits);
}

TEST_CASE("Consolidation Delete: a stop answered again without the pass's checks gives way when another node gains "
          "room",
          "[disruption][consolidation]")
{
  // Spot nodes with one pod each that has room nowhere else: node-0's of 3.5 CPU, node-1's to
  // node-3's of 3 CPU, and node-x of 8 CPU full with one of 4.8 CPU and one of 3 CPU that ends at
  // 10 minutes. Then node-x has 3.2 CPU free: node-1's pod has room there and node-1 goes, although
  // node-0, checked first in the pass, still stays; once node-1's pod took the room, node-2's and
  // node-3's stops are answered again.
  const auto run = [](bool explain) {
    Sim sim;
    spot_node_with_pod(sim, "node-0", 4000, 3500);
    for (int i = 1; i < 4; ++i) {
      spot_node_with_pod(sim, fmt::format("node-{}", i), 4000, 3000);
    }
    spot_node_with_pod(sim, "node-x", 8000, 4800);
    PodOpts ending = rs_pod();
    ending.cpu_milli = 3000;
    ending.runtime = 10 * k_minute;
    sim.pods_on("node-x", 1, ending);
    const auto result = sim.run(30 * k_minute, explain);
    INFO(dump(result));
    return std::tuple{sim.alive(), result.nodes.launched, sim.controller().cache().stops_held_again()};
  };
  const auto [alive_explained, launched_explained, again_explained] = run(true);
  const auto [alive, launched, again] = run(false);
  CHECK(alive == std::vector<std::string>{"node-0", "node-2", "node-3", "node-x"});
  CHECK(launched == 0);
  CHECK(alive == alive_explained);
  CHECK(launched == launched_explained);
  CHECK(again_explained == 0);
  CHECK(again > 0);
}

// ---------------------------------------------------------------------------------------------
// capsim: without --explain, a spot candidate's simulation that ends with one on-demand NodeClaim
// is rejected from the sketched claim's prices when none of its options launches below the
// candidate's (compute_consolidation); debug builds solve for the full claim and check it.

namespace {

struct SketchedRun
{
  std::vector<std::string> alive;
  std::int64_t launched = 0;
  std::size_t rejections = 0; // SolveCache::sketch_price_rejections
  bool kept_on_price = false;  // a decision says why (recorded with --explain only)
};

// A spot node of `type` whose 3.5-CPU pod asks for on-demand, run for 30 minutes.
SketchedRun run_on_demand_pod(const std::string& type, bool explain)
{
  Sim sim;
  sim.pool();
  sim.node("node-0", "default", type, std::nullopt, "test-zone-1", "spot");
  PodOpts on_demand = rs_pod();
  on_demand.cpu_milli = 3500;
  on_demand.node_selector = {{std::string(model::labels::k_capacity_type), "on-demand"}};
  sim.pods_on("node-0", 1, on_demand);
  const auto result = sim.run(30 * k_minute, explain);
  INFO(dump(result));
  return {sim.alive(), static_cast<std::int64_t>(result.nodes.launched),
          sim.controller().cache().sketch_price_rejections(),
          has_decision(result, "node-0", "keep", "can't replace with a cheaper node")};
}

} // namespace

TEST_CASE("Consolidation Replace: a sketched on-demand replacement no cheaper than the spot candidate is rejected "
          "without the full claim",
          "[disruption][consolidation]")
{
  // The cheapest 4-CPU type: every replacement option launches at its price or more, so the node
  // stays, whether or not decisions are recorded.
  const auto explained = run_on_demand_pod("4-cpu-1-mem-amd64-linux-test-zone-1-spot", true);
  const auto quiet = run_on_demand_pod("4-cpu-1-mem-amd64-linux-test-zone-1-spot", false);
  CHECK(quiet.alive == std::vector<std::string>{"node-0"});
  CHECK(quiet.launched == 0);
  CHECK(explained.kept_on_price);
  CHECK(quiet.alive == explained.alive);
  CHECK(quiet.launched == explained.launched);
  CHECK(explained.rejections == 0); // reasons wanted: the full claim's
  CHECK(quiet.rejections > 0);
}

TEST_CASE("Consolidation Replace: a sketched on-demand replacement cheaper than the spot candidate is solved in full",
          "[disruption][consolidation]")
{
  // A 4-CPU type with 8 GiB: the 1-GiB one launches on-demand below its price and replaces it,
  // whether or not decisions are recorded.
  const auto explained = run_on_demand_pod("4-cpu-8-mem-amd64-linux-test-zone-1-spot", true);
  const auto quiet = run_on_demand_pod("4-cpu-8-mem-amd64-linux-test-zone-1-spot", false);
  CHECK(quiet.launched == 1);
  CHECK_FALSE(explained.kept_on_price);
  CHECK(quiet.alive.size() == 1);
  CHECK(quiet.alive != std::vector<std::string>{"node-0"});
  CHECK(quiet.launched == explained.launched);
  CHECK(quiet.alive.size() == explained.alive.size());
  CHECK(quiet.rejections == 0);
}

} // namespace capsim::karpenter::dtest
