// Ports of core:pkg/controllers/disruption/consolidation_test.go (kubernetes-sigs/karpenter HEAD
// 2266468), Context("Delete") and Context("TTL"), the cases consolidation_test.cpp does not
// hold. The Delete context's BeforeEach: two NodeClaims of leastExpensiveInstance with
// allocatable {cpu: 32, pods: 100}, Consolidatable. Upstream drives one reconcile; here the
// engine runs, so commands are validated 15 s after they are computed (see
// consolidation_test.cpp).

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

namespace capsim::karpenter::dtest {

namespace {

const model::Labels k_app = {{"app", "test"}};

// The suite's NodePool and the Delete context's two nodes, node-0 and node-1.
struct DeleteContext : ConsolidationSuite
{
  DeleteContext() { two_cheap_nodes(); }
};

} // namespace

TEST_CASE("Consolidation Delete: can delete nodes, when non-Karpenter capacity can fit pods",
          "[disruption][consolidation]")
{
  DeleteContext s;
  // Only node-0 of the context's nodes exists upstream; the unmanaged node has 32 CPUs, 100 pods.
  s.sim.scenario.nodes.pop_back();
  s.sim.node("unmanaged", "", s.sim.cheapest("on-demand").name, resources(32000, 0, 100));
  auto& unmanaged = s.sim.scenario.nodes.back();
  unmanaged.owner = model::InitialNode::Owner::static_node;
  unmanaged.labels.erase(std::string(model::labels::k_nodepool));
  s.sim.pods_on("node-0", 3, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // Every pod fits the unmanaged node: node-0 is deleted, no NodeClaim is left.
  CHECK(s.sim.alive() == std::vector<std::string>{"unmanaged"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_delete == 1);
  CHECK(result.pods.unschedulable == 0);
}

TEST_CASE("Consolidation Delete: does not consolidate nodes with karpenter.sh/do-not-disrupt set to true on pods "
          "when the NodePool's TerminationGracePeriod is not nil",
          "[disruption][consolidation]")
{
  DeleteContext s;
  s.pool().termination_grace_period = 300 * k_second;
  auto blocked = rs_pod();
  blocked.do_not_disrupt = k_never;
  s.sim.pods_on("node-0", 2, blocked);
  s.sim.pods_on("node-1", 1, blocked);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // A terminationGracePeriod lets eventual disruption (drift, expiry) past the annotation, not
  // consolidation.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0", "node-1"});
  CHECK(result.disruptions.consolidation_delete == 0);
  CHECK(has_decision(result, "node-1", "keep", "has the \"karpenter.sh/do-not-disrupt\" annotation"));
}

TEST_CASE("Consolidation Delete: does not consolidate nodes with pods with blocking PDBs when the NodePool's "
          "TerminationGracePeriod is not nil",
          "[disruption][consolidation][pdb]")
{
  DeleteContext s;
  s.pool().termination_grace_period = 300 * k_second;
  s.sim.pods_on("node-0", 2, rs_pod());
  s.sim.pods_on("node-1", 1, rs_pod());
  s.sim.scenario.pdbs.push_back(blocking_pdb(k_app));
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0", "node-1"});
  CHECK(result.disruptions.consolidation_delete == 0);
  CHECK(has_decision(result, "node-1", "keep", "PDB default/pdb allows no disruption"));
}

TEST_CASE("Consolidation Delete: can delete nodes, evicts pods without an ownerRef", "[disruption][consolidation]")
{
  DeleteContext s;
  s.sim.pods_on("node-0", 2, rs_pod());
  auto bare = rs_pod();
  bare.labels = {};
  bare.owner = model::OwnerKind::none;
  s.sim.pods_on("node-1", 1, bare);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // The node with the fewest pods goes although its pod has no owner and will not come back.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_delete == 1);
  CHECK(result.pods.lost == 1);
  const auto deletes = decisions(result, "single-node", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].candidate == "node-1");
}

TEST_CASE("Consolidation Delete: should consolidate pods onto a destination node with consolidateAfter set to Never",
          "[disruption][consolidation]")
{
  // consolidateAfter: Never keeps a node from ever being a candidate, not from receiving pods.
  DeleteContext s;
  s.sim.scenario.nodes.pop_back();
  auto& destination = s.sim.pool("destination");
  destination.consolidate_after = k_never;
  s.sim.node("destination-node", "destination", s.sim.cheapest("on-demand").name, resources(32000, 0, 100));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"destination-node"});
  const auto deletes = decisions(result, "single-node", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].candidate == "node-0");
  // Upstream reconciles at once, with no clock step: the command is computed in the first pass.
  CHECK(deletes[0].t == 15 * k_second);
}

TEST_CASE("Consolidation Delete: should replace a node with a cheaper one even when consolidateAfter has not expired",
          "[disruption][consolidation]")
{
  // consolidateAfter gates existing destinations; a replacement is a new NodeClaim, so nothing
  // holds it back once the source itself is past its window.
  Sim sim;
  auto& pool = sim.pool("default");
  pool.consolidate_after = k_minute;
  const auto& expensive = sim.most_expensive("on-demand");
  sim.node("node-0", "default", expensive.name, resources(32000));
  sim.pods_on("node-0", 1, rs_pod());
  const auto result = sim.run(6 * k_minute);
  INFO(dump(result));
  // node-0 becomes consolidatable at 60 s; the pass then replaces it with a cheaper NodeClaim.
  const auto alive = sim.alive();
  REQUIRE(alive.size() == 1);
  CHECK(alive[0] != "node-0");
  CHECK(sim.alive_types() != std::vector<std::string>{expensive.name});
  CHECK(result.disruptions.consolidation_replace == 1);
  const auto replaces = decisions(result, "single-node", "replace");
  REQUIRE(replaces.size() == 1);
  CHECK(replaces[0].candidate == "node-0");
  CHECK(replaces[0].t >= 75 * k_second);
  CHECK(replaces[0].t <= 90 * k_second);
}

TEST_CASE("Consolidation Delete: can delete nodes with a permanently pending pod", "[disruption][consolidation]")
{
  DeleteContext s;
  s.sim.pods_on("node-0", 2, rs_pod());
  s.sim.pods_on("node-1", 1, rs_pod());
  PodOpts pending;
  pending.owner = model::OwnerKind::none;
  pending.node_selector = {{"non-existent", "node-label"}};
  s.sim.pending(0, 1, pending);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_delete == 1);
  // The pending pod is still pending and bound nowhere.
  CHECK(bound_pods(s.sim) == 3);
  CHECK(result.pods.unschedulable == 1);
}

TEST_CASE("Consolidation Delete: can delete nodes while an invalid node pool exists", "[disruption][consolidation]")
{
  // Upstream's bad NodePool makes the cloud provider fail to list its instance types; capsim
  // refuses an unknown nodeClassRef when it reads the scenario, so the nearest valid case is a
  // NodePool whose requirements no instance type meets.
  DeleteContext s;
  auto& bad = s.sim.pool("bad-nodepool");
  bad.requirements.add(
      model::Requirement::make(std::string(model::labels::k_instance_type), model::Operator::in, {"no-such-type"}));
  s.sim.pods_on("node-0", 2, rs_pod());
  s.sim.pods_on("node-1", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_delete == 1);
}

// ---------------------------------------------------------------------------------------------
// TTL: the context's nodes are mostExpensiveInstance with allocatable {cpu: 32, pods: 100}, and
// the real validator runs: a command waits 15 s (upstream steps the clock 31 s past it) and is
// simulated again before it executes.

namespace {

PodOpts pinned_to(const std::string& node, PodOpts o = {})
{
  o.node_selector[std::string(model::labels::k_hostname)] = node;
  return o;
}

// node-0 and node-1 of `type`, each of 32 CPUs and 100 pods.
Sim ttl_sim(bool cheapest)
{
  Sim sim;
  sim.pool("default");
  sim.scenario.settings.karpenter.spot_to_spot_consolidation = true;
  const auto type = cheapest ? sim.cheapest("on-demand").name : sim.most_expensive("on-demand").name;
  sim.node("node-0", "default", type, resources(32000, 0, 100));
  sim.node("node-1", "default", type, resources(32000, 0, 100));
  return sim;
}

} // namespace

TEST_CASE("Consolidation TTL: should wait for the node TTL for non-empty nodes before consolidating",
          "[disruption][consolidation][validation]")
{
  // Both nodes are assigned the least expensive offering, so only one of them is deleted.
  for (const SimTime end : {14 * k_second, 5 * k_minute}) {
    auto sim = ttl_sim(true);
    sim.pods_on("node-0", 2, rs_pod());
    sim.pods_on("node-1", 1, rs_pod());
    const auto result = sim.run(end);
    INFO(dump(result));
    if (end < 15 * k_second) {
      CHECK(sim.alive() == std::vector<std::string>{"node-0", "node-1"}); // waiting on the TTL
      CHECK(decisions(result, "single-node", "delete").empty());
    } else {
      CHECK(sim.alive() == std::vector<std::string>{"node-0"});
      const auto deletes = decisions(result, "single-node", "delete");
      REQUIRE(deletes.size() == 1);
      CHECK(deletes[0].t == 15 * k_second);
    }
  }
}

TEST_CASE("Consolidation TTL: should not consolidate if the action picks different instance types after the node "
          "TTL wait",
          "[disruption][consolidation][validation]")
{
  auto sim = ttl_sim(false);
  sim.scenario.nodes.pop_back();
  auto cpu = rs_pod();
  cpu.cpu_milli = 1000;
  sim.pods_on("node-0", 1, cpu);
  // A second 1-CPU pod binds to the node while the replace command waits.
  sim.pending(5 * k_second, 1, pinned_to("node-0", cpu));
  const auto result = sim.run(20 * k_second);
  INFO(dump(result));
  CHECK(sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_replace == 0);
}

TEST_CASE("Consolidation TTL: should not replace node if a pod schedules with karpenter.sh/do-not-disrupt set to "
          "true during the TTL wait",
          "[disruption][consolidation][validation]")
{
  auto sim = ttl_sim(false);
  sim.scenario.nodes.pop_back();
  sim.pods_on("node-0", 1);
  PodOpts blocked;
  blocked.do_not_disrupt = k_never;
  sim.pending(5 * k_second, 1, pinned_to("node-0", blocked));
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // Without the late pod the node would be replaced (see "can replace node").
  CHECK(sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  const auto abandoned = decisions(result, "single-node", "abandon");
  REQUIRE(abandoned.size() == 1);
  CHECK(abandoned[0].t == 15 * k_second);
}

TEST_CASE("Consolidation TTL: should not replace node if a pod schedules with a blocking PDB during the TTL wait",
          "[disruption][consolidation][validation][pdb]")
{
  auto sim = ttl_sim(false);
  sim.scenario.nodes.pop_back();
  sim.pods_on("node-0", 1);
  sim.scenario.pdbs.push_back(blocking_pdb(k_app));
  sim.pending(5 * k_second, 1, pinned_to("node-0", rs_pod()));
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  const auto abandoned = decisions(result, "single-node", "abandon");
  REQUIRE(abandoned.size() == 1);
  CHECK(abandoned[0].t == 15 * k_second);
}

TEST_CASE("Consolidation TTL: should not delete node if pods schedule with karpenter.sh/do-not-disrupt set to true "
          "during the TTL wait",
          "[disruption][consolidation][validation]")
{
  auto sim = ttl_sim(false);
  sim.pods_on("node-0", 1);
  sim.pods_on("node-1", 1);
  PodOpts blocked;
  blocked.do_not_disrupt = k_never;
  sim.pending(5 * k_second, 1, pinned_to("node-0", blocked));
  sim.pending(5 * k_second, 1, pinned_to("node-1", blocked));
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // Both nodes are kept: the command computed at 0 s is abandoned at 15 s, and every later pass
  // finds both nodes blocked.
  CHECK(sim.alive() == std::vector<std::string>{"node-0", "node-1"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_delete == 0);
  CHECK(result.disruptions.consolidation_replace == 0);
  CHECK_FALSE(decisions(result, "", "abandon").empty());
}

TEST_CASE("Consolidation TTL: should not delete node if pods schedule with a blocking PDB during the TTL wait",
          "[disruption][consolidation][validation][pdb]")
{
  auto sim = ttl_sim(false);
  sim.pods_on("node-0", 1);
  sim.pods_on("node-1", 1);
  sim.scenario.pdbs.push_back(blocking_pdb(k_app));
  sim.pending(5 * k_second, 1, pinned_to("node-0", rs_pod()));
  sim.pending(5 * k_second, 1, pinned_to("node-1", rs_pod()));
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(sim.alive() == std::vector<std::string>{"node-0", "node-1"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_delete == 0);
  CHECK(result.disruptions.consolidation_replace == 0);
  CHECK_FALSE(decisions(result, "", "abandon").empty());
}

} // namespace capsim::karpenter::dtest
