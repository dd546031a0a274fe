// Ports of core:pkg/controllers/disruption/consolidation_test.go (kubernetes-sigs/karpenter HEAD
// 2266468): Context("Multi-NodeClaim"), Context("Topology Consideration"),
// Context("Parallelization"), Context("Preferences") and Context("MinValuesPolicy"), the cases
// consolidation_test.cpp does not hold. Upstream drives one reconcile; here the engine runs, so
// commands are validated 15 s after they are computed and replacements initialize 75 s after
// launch (45 s + 30 s) before the candidates are drained.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <tuple>

namespace capsim::karpenter::dtest {

namespace {

const model::Labels k_app = {{"app", "test"}};

Sim suite_sim()
{
  Sim sim;
  sim.pool("default");
  sim.scenario.settings.karpenter.spot_to_spot_consolidation = true;
  return sim;
}

// The pods added to the workload since `from` get a copy of their spec changed by `change`
// (what test.PodOptions sets that PodOpts has no field for).
void change_specs(Sim& sim, std::size_t from, const std::function<void(model::PodSpec&)>& change)
{
  auto spec = std::make_shared<model::PodSpec>(*sim.workload.at(from).spec);
  change(*spec);
  for (std::size_t i = from; i < sim.workload.size(); ++i) {
    sim.workload[i].spec = spec;
  }
}

// leastExpensiveInstanceWithZone / mostExpensiveInstanceWithZone: the cheapest (dearest)
// on-demand type with an offering in `zone` (the assorted catalog's types have one offering).
const catalog::InstanceType& on_demand_in_zone(const Sim& sim, const std::string& zone, bool cheapest)
{
  const catalog::InstanceType* best = nullptr;
  double price = cheapest ? std::numeric_limits<double>::infinity() : -1;
  for (const auto& t : sim.catalog.instance_types()) {
    for (const auto& o : t.offerings) {
      if (o.capacity_type == "on-demand" && o.zone == zone && (cheapest ? o.price_per_hour < price : o.price_per_hour > price)) {
        price = o.price_per_hour;
        best = &t;
      }
    }
  }
  REQUIRE(best != nullptr);
  return *best;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Multi-NodeClaim: three mostExpensiveInstance (or mostExpensiveSpotInstance) nodes with
// allocatable {cpu: 32, pods: 100}.

TEST_CASE("Consolidation Multi-NodeClaim: can merge 3 nodes into 1 if the candidates have both spot and on-demand",
          "[disruption][consolidation][multi]")
{
  auto sim = suite_sim();
  const auto& on_demand = sim.most_expensive("on-demand");
  const auto& spot = sim.most_expensive("spot");
  sim.node("node-0", "default", on_demand.name, resources(32000, 0, 100));
  sim.node("node-1", "default", on_demand.name, resources(32000, 0, 100));
  sim.node("node-2", "default", spot.name, resources(32000, 0, 100));
  for (const char* name : {"node-0", "node-1", "node-2"}) {
    sim.pods_on(name, 1, rs_pod());
  }
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  const auto alive = sim.alive();
  REQUIRE(alive.size() == 1);
  CHECK(alive[0].rfind("node-", 0) != 0);
  const auto replaces = decisions(result, "multi-node", "replace");
  REQUIRE(replaces.size() == 1);
  CHECK(replaces[0].candidate == "node-0,node-1,node-2");
  CHECK(result.disruptions.consolidation_replace == 3);
  CHECK(bound_pods(sim) == 3);
}

TEST_CASE("Consolidation Multi-NodeClaim: should wait for the node TTL for non-empty nodes before consolidating "
          "(multi-node)",
          "[disruption][consolidation][multi][validation]")
{
  for (const bool spot : {false, true}) {
    for (const SimTime end : {14 * k_second, 5 * k_minute}) {
      auto sim = suite_sim();
      const auto& expensive = sim.most_expensive(spot ? "spot" : "on-demand");
      sim.node("node-0", "default", expensive.name, resources(32000, 0, 100));
      sim.node("node-1", "default", expensive.name, resources(32000, 0, 100));
      sim.pods_on("node-0", 2, rs_pod());
      sim.pods_on("node-1", 1, rs_pod());
      const auto result = sim.run(end);
      INFO(dump(result));
      if (end < 15 * k_second) {
        CHECK(sim.alive() == std::vector<std::string>{"node-0", "node-1"});
        CHECK(result.nodes.launched == 0);
      } else {
        // One smaller replacement; both large nodes deleted.
        const auto alive = sim.alive();
        REQUIRE(alive.size() == 1);
        CHECK(alive[0].rfind("node-", 0) != 0);
        const auto replaces = decisions(result, "multi-node", "replace");
        REQUIRE(replaces.size() == 1);
        // (node-1, with the fewer pods, has the better savings ratio and is listed first.)
        CHECK(replaces[0].candidate == "node-1,node-0");
        CHECK(replaces[0].t == 15 * k_second);
        CHECK(bound_pods(sim) == 3);
      }
    }
  }
}

TEST_CASE("Consolidation Multi-NodeClaim: should consolidate multiple empty nodes via multi-nodeclaim consolidation",
          "[disruption][consolidation][multi][validation]")
{
  for (const bool spot : {false, true}) {
    auto sim = suite_sim();
    const auto& expensive = sim.most_expensive(spot ? "spot" : "on-demand");
    for (const char* name : {"node-0", "node-1", "node-2"}) {
      sim.node(name, "default", expensive.name, resources(32000, 0, 100));
    }
    const auto result = sim.run(5 * k_minute);
    INFO(dump(result));
    // One command deletes the three empty nodes after the 15 s validation.
    CHECK(sim.alive().empty());
    CHECK(result.nodes.launched == 0);
    std::vector<report::Decision> deletes;
    for (const auto& d : result.decisions) {
      if (d.action == "delete") {
        deletes.push_back(d);
      }
    }
    REQUIRE(deletes.size() == 1);
    CHECK(deletes[0].candidate == "node-0,node-1,node-2");
    CHECK(deletes[0].t == 15 * k_second);
  }
}

TEST_CASE("Consolidation Multi-NodeClaim: should continue to single nodeclaim consolidation when multi-nodeclaim "
          "consolidation fails validation after the node ttl",
          "[disruption][consolidation][multi][validation]")
{
  for (const bool spot : {false, true}) {
    auto sim = suite_sim();
    const auto& expensive = sim.most_expensive(spot ? "spot" : "on-demand");
    for (const char* name : {"node-0", "node-1", "node-2"}) {
      sim.node(name, "default", expensive.name, resources(32000, 0, 100));
      sim.pods_on(name, 1, rs_pod());
    }
    // While the merge of the three waits, 1-CPU pods bind to node-0 and node-1: the merge is
    // invalid at 15 s, and single-node consolidation then deletes node-2, whose pod moves.
    PodOpts extra;
    extra.cpu_milli = 1000;
    extra.owner = model::OwnerKind::none;
    for (const char* name : {"node-0", "node-1"}) {
      auto pinned = extra;
      pinned.node_selector = {{std::string(model::labels::k_hostname), name}};
      sim.pending(5 * k_second, 1, pinned);
    }
    const auto result = sim.run(5 * k_minute);
    INFO(dump(result));
    const auto abandoned = decisions(result, "multi-node", "abandon");
    REQUIRE(abandoned.size() == 1);
    CHECK(abandoned[0].t == 15 * k_second);
    CHECK(sim.alive() == std::vector<std::string>{"node-0", "node-1"});
    CHECK(result.nodes.launched == 0);
    const auto deletes = decisions(result, "single-node", "delete");
    REQUIRE(deletes.size() == 1);
    CHECK(deletes[0].candidate == "node-2");
    // Upstream goes on to single-node consolidation in the same reconcile.
    CHECK(deletes[0].t == 30 * k_second);
    CHECK(bound_pods(sim) == 5);
  }
}

// ---------------------------------------------------------------------------------------------
// Topology Consideration: three nodes with allocatable {cpu: 1}: the cheapest on-demand type in
// test-zone-1, the dearest in test-zone-2, the cheapest in test-zone-3.

namespace {

struct TopologyContext
{
  Sim sim = suite_sim();
  std::string zone2_type;

  explicit TopologyContext(bool cheap_zone2 = false)
  {
    const std::vector<std::string> zones = {"test-zone-1", "test-zone-2", "test-zone-3"};
    for (std::size_t i = 0; i < zones.size(); ++i) {
      const bool cheapest = i != 1 || cheap_zone2;
      const auto& t = on_demand_in_zone(sim, zones[i], cheapest);
      if (i == 1) {
        zone2_type = t.name;
      }
      sim.node(fmt::format("node-{}", i), "default", t.name, resources(1000, 0, 100), zones[i], "on-demand");
    }
  }
};

} // namespace

TEST_CASE("Consolidation Topology Consideration: can replace node maintaining zonal topology spread",
          "[disruption][consolidation][topology]")
{
  TopologyContext s;
  const model::Labels spread_labels = {{"app", "test-zonal-spread"}};
  model::TopologySpreadConstraint tsc;
  tsc.max_skew = 1;
  tsc.topology_key = std::string(model::labels::k_zone);
  tsc.selector = model::LabelSelector{};
  tsc.selector->match_labels = spread_labels;
  PodOpts pod;
  pod.labels = spread_labels;
  pod.cpu_milli = 1000;
  pod.spread = {tsc};
  for (int i = 0; i < 3; ++i) {
    s.sim.pods_on(fmt::format("node-{}", i), 1, pod);
  }
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // The dear zone-2 node is replaced by a cheaper one in the same zone, keeping the skew 1,1,1.
  CHECK_FALSE(s.sim.alive(std::string("node-1")));
  CHECK(s.sim.alive(std::string("node-0")));
  CHECK(s.sim.alive(std::string("node-2")));
  CHECK(s.sim.alive().size() == 3);
  CHECK(result.disruptions.consolidation_replace == 1);
  std::map<std::string, int> per_zone;
  for (const auto& n : s.sim.cluster().nodes()) {
    if (n.alive()) {
      per_zone[n.zone] += static_cast<int>(n.pods.size());
      if (n.name.rfind("node-", 0) != 0) {
        CHECK(n.zone == "test-zone-2");
        REQUIRE(n.instance_type != nullptr);
        CHECK(n.instance_type->name != s.zone2_type);
      }
    }
  }
  CHECK(per_zone == std::map<std::string, int>{{"test-zone-1", 1}, {"test-zone-2", 1}, {"test-zone-3", 1}});
}

TEST_CASE("Consolidation Topology Consideration: won't delete node if it would violate pod anti-affinity",
          "[disruption][consolidation][topology]")
{
  TopologyContext s(true); // the zone-2 node is also the cheapest there
  PodOpts pod = rs_pod();
  pod.cpu_milli = 1000;
  model::PodAffinityTerm term;
  term.selector = model::LabelSelector{};
  term.selector->match_labels = k_app;
  term.topology_key = std::string(model::labels::k_hostname);
  pod.anti_affinity = {term};
  for (int i = 0; i < 3; ++i) {
    s.sim.pods_on(fmt::format("node-{}", i), 1, pod);
  }
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // Already the cheapest nodes, and a delete would break the anti-affinity: nothing happens.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0", "node-1", "node-2"});
  CHECK(result.nodes.launched == 0);
  CHECK(result.disruptions.consolidation_delete == 0);
  CHECK(result.disruptions.consolidation_replace == 0);
}

// ---------------------------------------------------------------------------------------------
// Parallelization

TEST_CASE("Consolidation Parallelization: should not schedule an additional node when receiving pending pods while "
          "consolidating",
          "[disruption][consolidation]")
{
  // The replacement is launched at 15 s and ready at 90 s, when node-0 starts draining (upstream
  // holds it with a finalizer). A pod arriving then goes to the replacement: no third node.
  auto sim = suite_sim();
  const auto& expensive = sim.most_expensive("on-demand");
  sim.node("node-0", "default", expensive.name, resources(32000, 0, 100));
  sim.pods_on("node-0", 1, rs_pod());
  PodOpts late;
  late.owner = model::OwnerKind::none;
  sim.pending(91 * k_second, 1, late);
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.consolidation_replace == 1);
  CHECK(result.nodes.launched == 1);
  CHECK(result.pods.unschedulable == 0);
  CHECK(bound_pods(sim) == 2);
}

TEST_CASE("Consolidation Parallelization: should not consolidate a node that is launched for pods on a deleting node",
          "[disruption][consolidation]")
{
  // Upstream marks a node for deletion by hand, provisions a node for its five pods, binds two
  // pods there and expects no command. Here node-0's NodePool "old" is deleted at 1m, so node-0
  // drains as a deleted NodeClaim while provisioning launches one node of "default" for its five
  // pods. Two of them move; the other three stay, their PDB exhausted by a pod that never
  // schedules (but not fully blocking, so they are still reschedulable). The new node, with two
  // pods on it, is neither deleted nor replaced by a smaller one: the provisioner, triggered
  // every 10 s by the deleting node, nominates it for those three again and again, and every
  // consolidation simulation places them too.
  auto sim = suite_sim();
  auto& old = sim.pool("old");
  old.deleted_at = k_minute;
  old.consolidate_after = k_hour;
  sim.node("node-0", "old", sim.most_expensive("on-demand").name, resources(32000, 0, 100));
  const auto pdb_for = [&sim](const model::Labels& labels) {
    model::PodDisruptionBudget pdb;
    pdb.name = "pdb-" + labels.begin()->second;
    pdb.selector.match_labels = labels;
    pdb.max_unavailable = std::string("1"); // (assigning the literal trips GCC 12's -Wrestrict)
    sim.scenario.pdbs.push_back(pdb);
  };
  PodOpts moving = rs_pod();
  moving.labels = {{"app", "moving"}};
  moving.cpu_milli = 1000;
  sim.pods_on("node-0", 2, moving);
  pdb_for(moving.labels);
  PodOpts staying = rs_pod();
  staying.labels = {{"app", "staying"}};
  staying.cpu_milli = 1000;
  sim.pods_on("node-0", 3, staying);
  pdb_for(staying.labels);
  PodOpts never = staying; // unhealthy for good: its PDB allows no eviction
  never.cpu_milli = 1000 * 1000;
  sim.pending(0, 1, never);
  const auto result = sim.run(15 * k_minute);
  INFO(dump(result));
  CHECK(result.nodes.launched == 1);
  CHECK(result.pods.evicted == 2);
  CHECK(sim.alive().size() == 2);
  for (const auto& n : sim.cluster().nodes()) {
    if (n.name == "node-0") {
      CHECK(n.pods.size() == 3);
    } else {
      CHECK(n.labels.at(std::string(model::labels::k_nodepool)) == "default");
      CHECK(n.pods.size() == 2);
    }
  }
  CHECK(result.disruptions.consolidation_delete == 0);
  CHECK(result.disruptions.consolidation_replace == 0);
  CHECK(result.disruptions.emptiness == 0);
}

// ---------------------------------------------------------------------------------------------
// Preferences (PreferencePolicy Ignore)

TEST_CASE("Consolidation Preferences: should consolidate a node through deletion when ignoring preferences",
          "[disruption][consolidation][preferences]")
{
  auto sim = suite_sim();
  sim.scenario.settings.karpenter.preference_policy_ignore = true;
  const auto& t = sim.cheapest("on-demand");
  sim.node("node-0", "default", t.name, resources(5000, 0, 100));
  sim.node("node-1", "default", t.name, resources(5000, 0, 100));
  PodOpts pod; // (upstream's pods have no owner; a ReplicaSet's come back, so they can be counted)
  pod.labels = {{"app", "foo"}};
  const auto first = sim.workload.size();
  sim.pods_on("node-0", 2, pod);
  sim.pods_on("node-1", 1, pod);
  change_specs(sim, first, [](model::PodSpec& spec) {
    model::WeightedPodAffinityTerm w;
    w.weight = 1;
    w.term.topology_key = std::string(model::labels::k_hostname);
    w.term.selector = model::LabelSelector{};
    w.term.selector->match_labels = {{"app", "foo"}};
    spec.pod_anti_affinity_preferred = {w};
  });
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // The preferred anti-affinity is ignored: node-1's pod joins node-0's two.
  CHECK(sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  CHECK(bound_pods(sim) == 3);
}

TEST_CASE("Consolidation Preferences: should consolidate a node through replacement when ignoring preferences",
          "[disruption][consolidation][preferences]")
{
  auto sim = suite_sim();
  sim.scenario.settings.karpenter.preference_policy_ignore = true;
  const auto& expensive = sim.most_expensive("on-demand");
  sim.node("node-0", "default", expensive.name, resources(32000, 0, 100));
  PodOpts pod; // (upstream's pods have no owner; a ReplicaSet's come back, so they can be counted)
  pod.labels = {{"app", "foo"}};
  const auto first = sim.workload.size();
  sim.pods_on("node-0", 1, pod);
  change_specs(sim, first, [&](model::PodSpec& spec) {
    model::PreferredNodeTerm preferred;
    preferred.weight = 1;
    preferred.term.requirements = {
        model::Requirement::make(std::string(model::labels::k_instance_type), model::Operator::in, {expensive.name})};
    spec.preferred_node_affinity = {preferred};
  });
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // The preference for the dearest type is ignored: the node is replaced by a cheaper type.
  const auto alive = sim.alive();
  REQUIRE(alive.size() == 1);
  CHECK(alive[0] != "node-0");
  CHECK(sim.alive_types() != std::vector<std::string>{expensive.name});
  CHECK(result.disruptions.consolidation_replace == 1);
  CHECK(bound_pods(sim) == 1);
}

// ---------------------------------------------------------------------------------------------
// MinValuesPolicy

TEST_CASE("Consolidation MinValuesPolicy: should not consolidate a node by relaxing min values when policy is set to "
          "BestEffort",
          "[disruption][consolidation][minvalues]")
{
  // The catalog is only the least and most expensive instances; the NodePool (weight 100) asks
  // for 3 instance types, which no launch can meet, and the node is on the dearer one.
  Sim probe;
  const auto cheap = probe.cheapest("on-demand");
  const auto dear = probe.most_expensive("on-demand");
  Sim sim(std::vector<catalog::InstanceType>{cheap, dear});
  sim.scenario.settings.karpenter.spot_to_spot_consolidation = true;
  sim.scenario.settings.karpenter.min_values_best_effort = true;
  auto& pool = sim.pool("min-values");
  pool.weight = 100;
  pool.requirements.add(model::Requirement::make(std::string(model::labels::k_instance_type), model::Operator::in,
                                                 {cheap.name, dear.name}, 3));
  sim.node("node-0", "min-values", dear.name, resources(5000, 0, 100));
  sim.pods_on("node-0", 1);
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // Best effort relaxes minValues for provisioning only: consolidation keeps the node.
  CHECK(sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  CHECK(has_decision(result, "node-0", "keep", "minValues"));
}


// ---------------------------------------------------------------------------------------------
// capsim: without --explain, multi-node's binary search answers a shorter prefix from the stop
// of a longer one (SolveResult::stop_pod); debug builds solve each such answer and check it.

TEST_CASE("Consolidation Multi-NodeClaim: a shorter prefix is answered by a longer one's stop without changing the "
          "outcome",
          "[disruption][consolidation][multi]")
{
  // Four spot nodes, each with a 3-CPU pod and 1 CPU free: no pod has room on another node, so
  // each search's prefixes stop (the pre-check's pod on the first candidate) and single-node
  // cannot delete either; a spot replacement is refused (no spot-to-spot).
  const auto run = [](bool explain) {
    Sim sim;
    for (int i = 0; i < 4; ++i) {
      spot_node_with_pod(sim, fmt::format("node-{}", i), 4000, 3000);
    }
    const auto result = sim.run(30 * k_minute, explain);
    return std::tuple{sim.alive(), result.nodes.launched, sim.controller().cache().prefix_stop_hits()};
  };
  const auto [alive_explained, launched_explained, hits_explained] = run(true);
  const auto [alive, launched, hits] = run(false);
  CHECK(alive == std::vector<std::string>{"node-0", "node-1", "node-2", "node-3"});
  CHECK(launched == 0);
  CHECK(alive == alive_explained);
  CHECK(launched == launched_explained);
  CHECK(hits_explained == 0); // reasons wanted: no early stops
  CHECK(hits > 0);
}

} // namespace capsim::karpenter::dtest
