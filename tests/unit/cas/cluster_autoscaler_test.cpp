#include "core/cas/cluster_autoscaler.hpp"
#include "core/cas/templates.hpp"

#include "tests/unit/cas/cas_fixtures.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

using namespace capsim;
using namespace capsim::cas;
using namespace capsim::cas::testing;

namespace {

model::Scenario base_scenario()
{
  model::Scenario sc;
  sc.settings.spot.interruption_model = "none";
  return sc;
}

std::vector<report::Decision> decisions(const report::EngineResult& r, const std::string& method,
                                        const std::string& action)
{
  std::vector<report::Decision> out;
  std::copy_if(r.decisions.begin(), r.decisions.end(), std::back_inserter(out),
               [&](const report::Decision& d) { return d.method == method && d.action == action; });
  return out;
}

double seconds(SimTime t)
{
  return static_cast<double>(t) / 1000.0;
}

// The node a pod is bound to, or nullptr.
const cluster::NodeState* node_of(const cluster::Cluster& c, const std::string& pod)
{
  for (const auto& p : c.pods()) {
    if (p.pod().name == pod && p.node != cluster::k_none) {
      return &c.node(p.node);
    }
  }
  return nullptr;
}

} // namespace

TEST_CASE("the controller is Cluster Autoscaler and ignores spot notices unless rebalancing", "[cas][controller]")
{
  auto sc = base_scenario();
  const auto cat = default_catalog();
  ClusterAutoscaler plain(sc, cat, 1);
  CHECK(plain.name() == "cluster-autoscaler");
  CHECK(plain.interruption_lead_time() == 0);
  sc.settings.cluster_autoscaler.rebalance_recommendation = true;
  ClusterAutoscaler rebalancing(sc, cat, 1);
  CHECK(rebalancing.interruption_lead_time() == 10 * k_minute);
  auto made = make_cluster_autoscaler(sc, cat, 1);
  CHECK(made->name() == "cluster-autoscaler");
}

TEST_CASE("bad node groups and expanders are input errors", "[cas][controller]")
{
  const auto cat = default_catalog();
  auto sc = base_scenario();
  sc.node_groups.push_back(make_group("ng", {"m5.lrge"}, 0, 3));
  CHECK_THROWS_WITH(ClusterAutoscaler(sc, cat, 1), Catch::Contains("did you mean 'm5.large'"));
  sc.node_groups[0].instance_types = {"m5.large"};
  sc.node_groups[0].min_size = 4;
  CHECK_THROWS_AS(ClusterAutoscaler(sc, cat, 1), InputError);
  sc.node_groups[0].min_size = 0;
  sc.settings.cluster_autoscaler.expander = "cheapest";
  CHECK_THROWS_AS(ClusterAutoscaler(sc, cat, 1), InputError);
}

TEST_CASE("desiredCapacity launches at t=0 and minSize is kept by scale-down", "[cas][controller][scale-down]")
{
  auto sc = base_scenario();
  auto g = make_group("ng", {"m5.large"}, 2, 5);
  g.desired_capacity = 3;
  sc.node_groups.push_back(g);
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  ClusterAutoscaler ca(sc, cat, 1);
  auto run_result = run(sc, cat, workload, k_hour, ca);
  const auto& r = run_result.result;
  CHECK(r.nodes.launched == 3);
  CHECK(r.disruptions.scale_down == 1); // 3 -> 2 (minSize)
  CHECK(r.nodes.final_count == 2);
  CHECK(ca.target_size(0) == 2);
  const auto downs = decisions(r, "scale-down", "delete");
  REQUIRE(downs.size() == 1);
  // Ready at 90 s, unneeded from the loop at 90 s, deleted at the first loop after 90 s + 10 min.
  CHECK(seconds(downs[0].t) == Approx(700).margin(0.01));
}

TEST_CASE("scale-up from zero: the estimate uses CA's AWS template (allocatable = capacity)",
          "[cas][controller][scale-up]")
{
  auto sc = base_scenario();
  sc.node_groups.push_back(make_group("ng", {"m5.large"}, 0, 10));
  const auto cat = default_catalog();
  SECTION("pods that also fit the real node")
  {
    std::vector<model::Pod> workload;
    add_pods(workload, "web", make_spec("web", 900, 1024), 6);
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 30 * k_minute, ca);
    CHECK(rr.result.nodes.launched == 3);
    CHECK(rr.result.pods.unschedulable == 0);
    // All pods "new" at t=0, so the first scale-up is at the 10 s loop; nodes ready 90 s later.
    const auto ups = decisions(rr.result, "scale-up", "launch");
    REQUIRE(ups.size() == 1);
    CHECK(seconds(ups[0].t) == Approx(10).margin(0.01));
    CHECK(rr.result.pods.pending_max_s == Approx(100).margin(0.01));
  }
  SECTION("pods that only fit CA's optimistic template take extra rounds")
  {
    std::vector<model::Pod> workload;
    add_pods(workload, "web", make_spec("web", 1000, 1024), 6);
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 30 * k_minute, ca);
    CHECK(rr.result.nodes.launched == 6);
    CHECK(rr.result.pods.unschedulable == 0);
    // 3 nodes at 10 s (2 pods each on paper, 1 in reality), 2 more at 100 s (the template is
    // still the catalog's: the first real node is not a good template until Ready for a
    // minute). At 160 s the real node becomes the template; the 2 upcoming nodes are now
    // copies of it (one pod each), so the third pod gets its own node at 160 s, ready at 250 s.
    const auto ups = decisions(rr.result, "scale-up", "launch");
    REQUIRE(ups.size() == 3);
    CHECK(seconds(ups[1].t) == Approx(100).margin(0.01));
    CHECK(seconds(ups[2].t) == Approx(160).margin(0.01));
    CHECK(rr.result.pods.pending_max_s == Approx(250).margin(0.01));
  }
  SECTION("use_real_allocatable plans with the real node")
  {
    sc.settings.cluster_autoscaler.use_real_allocatable = true;
    std::vector<model::Pod> workload;
    add_pods(workload, "web", make_spec("web", 1000, 1024), 6);
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 30 * k_minute, ca);
    CHECK(rr.result.nodes.launched == 6);
    CHECK(decisions(rr.result, "scale-up", "launch").size() == 1);
    CHECK(rr.result.pods.pending_max_s == Approx(100).margin(0.01));
  }
}

TEST_CASE("scale-up limits: max size and max-nodes-total", "[cas][controller][scale-up]")
{
  auto sc = base_scenario();
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  add_pods(workload, "web", make_spec("web", 900, 1024), 10);
  SECTION("maxSize caps the estimate")
  {
    sc.node_groups.push_back(make_group("ng", {"m5.large"}, 0, 2));
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    CHECK(rr.result.nodes.launched == 2);
    CHECK(rr.result.pods.unschedulable == 6);
    CHECK(ca.target_size(0) == 2);
  }
  SECTION("max-nodes-total caps the cluster")
  {
    sc.node_groups.push_back(make_group("ng", {"m5.large"}, 0, 10));
    sc.settings.cluster_autoscaler.max_nodes_total = 3;
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    CHECK(rr.result.nodes.launched == 3);
    CHECK(rr.result.pods.unschedulable == 4);
    CHECK_FALSE(decisions(rr.result, "scale-up", "skip").empty()); // max-nodes-total reached
  }
}

TEST_CASE("filter-out-schedulable: pods fitting an upcoming node do not scale up again", "[cas][controller][filter]")
{
  auto sc = base_scenario();
  sc.node_groups.push_back(make_group("ng", {"m5.large"}, 0, 10));
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  const auto spec = make_spec("web", 900, 1024);
  workload.push_back(make_pod("first", spec, 0));
  workload.push_back(make_pod("second", spec, 30 * k_second)); // while the first node boots
  ClusterAutoscaler ca(sc, cat, 1);
  auto rr = run(sc, cat, workload, 30 * k_minute, ca);
  CHECK(rr.result.nodes.launched == 1);
  CHECK(rr.result.pods.unschedulable == 0);
  CHECK(node_of(rr.engine->cluster(), "first") == node_of(rr.engine->cluster(), "second"));
}

TEST_CASE("scale-down: underutilized nodes whose pods fit elsewhere go after the unneeded time",
          "[cas][controller][scale-down]")
{
  auto sc = base_scenario();
  sc.settings.cluster_autoscaler.use_real_allocatable = true;
  sc.node_groups.push_back(make_group("ng", {"m5.large"}, 0, 10));
  const auto cat = default_catalog();
  // Two pods fill an m5.large (1900m allocatable) at t=0 and two more fill a second one at
  // 20 min, so each node holds one long and one short pod whatever the scheduler's scoring.
  // The short ones run an hour (until 3700 s and 4900 s); then each node is at 50%: still
  // eligible (utilization <= threshold), and either long pod fits next to the other.
  const auto workload_of = [](std::int64_t cpu) {
    std::vector<model::Pod> w;
    const auto long_spec = make_spec("long", cpu, 512);
    const auto short_spec = make_spec("short", cpu, 512);
    w.push_back(make_pod("long-1", long_spec, 0));
    w.push_back(make_pod("short-1", short_spec, 0, k_hour));
    w.push_back(make_pod("long-2", long_spec, 20 * k_minute));
    w.push_back(make_pod("short-2", short_spec, 20 * k_minute, k_hour));
    return w;
  };
  SECTION("threshold 0.5: one node is drained onto the other")
  {
    auto workload = workload_of(950);
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 2 * k_hour, ca);
    CHECK(rr.result.nodes.launched == 2);
    CHECK(rr.result.disruptions.scale_down == 1);
    CHECK(rr.result.nodes.final_count == 1);
    CHECK(rr.result.pods.unschedulable == 0);
    CHECK(rr.result.pods.evicted == 1);
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    // short-2 started at 1300 s (scale-up at 1210 s + 90 s) and finished at 4900 s.
    CHECK(seconds(downs[0].t) > 4900 + 600);
    CHECK(seconds(downs[0].t) < 4900 + 600 + 11);
  }
  SECTION("threshold 0.4: nothing is underutilized")
  {
    sc.settings.cluster_autoscaler.scale_down_utilization_threshold = 0.4;
    auto workload = workload_of(950);
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 2 * k_hour, ca);
    CHECK(rr.result.nodes.launched == 2);
    CHECK(rr.result.disruptions.scale_down == 0);
    CHECK(rr.result.nodes.final_count == 2);
  }
  SECTION("a threshold a hair below 50% keeps the nodes, whether the hair is wide or within rounding")
  {
    // 950 / 1900 is exactly 0.5: above 0.5 - 1e-7 by far more than a division's rounding, and
    // above 0.5 - 1e-12 by less than the quick test's margin (the exact division decides).
    for (const double threshold : {0.5 - 1e-7, 0.5 - 1e-12}) {
      sc.settings.cluster_autoscaler.scale_down_utilization_threshold = threshold;
      auto workload = workload_of(950);
      ClusterAutoscaler ca(sc, cat, 1);
      auto rr = run(sc, cat, workload, 2 * k_hour, ca);
      CHECK(rr.result.nodes.launched == 2);
      CHECK(rr.result.disruptions.scale_down == 0);
    }
  }
  SECTION("DaemonSet pods count in utilization")
  {
    model::DaemonSet ds;
    ds.name = "logging";
    ds.spec = make_spec("logging", 100, 128, model::OwnerKind::daemon_set);
    sc.daemon_sets.push_back(ds);
    // 850m pods + the 100m DaemonSet pod: 950 / 1900 = exactly 50% once the short pods are gone.
    auto w1 = workload_of(850);
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, w1, 2 * k_hour, ca);
    CHECK(rr.result.nodes.launched == 2);
    CHECK(rr.result.disruptions.scale_down == 1);
    sc.settings.cluster_autoscaler.scale_down_utilization_threshold = 0.49;
    auto w2 = workload_of(850);
    ClusterAutoscaler strict(sc, cat, 1);
    auto rr2 = run(sc, cat, w2, 2 * k_hour, strict);
    CHECK(rr2.result.disruptions.scale_down == 0); // 0.5 > 0.49 only because the DaemonSet counts
    sc.settings.cluster_autoscaler.ignore_daemonsets_utilization = true;
    auto w3 = workload_of(850);
    ClusterAutoscaler ignoring(sc, cat, 1);
    auto rr3 = run(sc, cat, w3, 2 * k_hour, ignoring);
    CHECK(rr3.result.disruptions.scale_down == 1); // 850 / 1800 = 0.47
  }
}

TEST_CASE("scale-down: unneeded time and the delay after a scale-up", "[cas][controller][scale-down]")
{
  auto sc = base_scenario();
  auto g0 = make_group("idle", {"m5.large"}, 1, 5);
  g0.desired_capacity = 2;
  sc.node_groups.push_back(g0);
  auto g1 = make_group("special", {"c5.xlarge"}, 0, 5);
  g1.labels = {{"pool", "special"}};
  sc.node_groups.push_back(g1);
  const auto cat = default_catalog();
  SECTION("default: deleted 10 minutes after becoming unneeded")
  {
    std::vector<model::Pod> workload;
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    CHECK(seconds(downs[0].t) == Approx(700).margin(0.01));
  }
  SECTION("scaleDownUnneededTime 20m")
  {
    sc.settings.cluster_autoscaler.scale_down_unneeded_time = 20 * k_minute;
    std::vector<model::Pod> workload;
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    CHECK(seconds(downs[0].t) == Approx(1300).margin(0.01));
  }
  SECTION("a scale-up at 510 s delays every deletion to 10 minutes later")
  {
    std::vector<model::Pod> workload;
    auto spec = make_spec("special", 1000, 1024);
    spec->node_selector = {{"pool", "special"}};
    workload.push_back(make_pod("special-0", spec, 500 * k_second));
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    const auto ups = decisions(rr.result, "scale-up", "launch");
    REQUIRE(ups.size() == 1);
    CHECK(seconds(ups[0].t) == Approx(510).margin(0.01));
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    CHECK(seconds(downs[0].t) >= 1110);
    CHECK(seconds(downs[0].t) < 1111);
    CHECK(rr.result.nodes.final_count == 2); // idle at its minSize + the special node
  }
}

TEST_CASE("scale-down: blocking pods keep their node", "[cas][controller][scale-down][drain]")
{
  auto sc = base_scenario();
  auto g = make_group("ng", {"m5.large"}, 0, 5);
  g.desired_capacity = 2;
  sc.node_groups.push_back(g);
  const auto cat = default_catalog();
  // x and y land on different nodes (LeastAllocated sends y to the empty one); y is movable.
  auto spec = make_spec("x", 100, 128);
  std::vector<model::Pod> workload;
  workload.push_back(make_pod("x", spec, 0));
  workload.push_back(make_pod("y", make_spec("y", 100, 128), 0));

  const auto run_once = [&](const model::Scenario& s) {
    ClusterAutoscaler ca(s, cat, 1);
    std::vector<model::Pod> w = workload;
    auto rr = run(s, cat, w, k_hour, ca);
    CHECK(rr.result.disruptions.scale_down == 1);
    CHECK(rr.result.nodes.final_count == 1);
    CHECK(rr.result.pods.evicted == 1);
    CHECK(rr.result.pods.unschedulable == 0);
    return rr;
  };
  SECTION("movable pods: the first candidate is drained onto the other node")
  {
    auto rr = run_once(sc);
    CHECK(node_of(rr.engine->cluster(), "x") == node_of(rr.engine->cluster(), "y"));
  }
  SECTION("blocking pods: the node of the movable pod goes instead")
  {
    SECTION("no controller") { spec->owner = model::OwnerKind::none; }
    SECTION("safe-to-evict=false") { spec->safe_to_evict_false = true; }
    SECTION("local storage") { spec->has_local_storage = true; }
    SECTION("kube-system without PDB") { spec->namespace_ = "kube-system"; }
    SECTION("PDB allowing no disruption")
    {
      model::PodDisruptionBudget pdb;
      pdb.selector.match_labels = {{"app", "x"}};
      pdb.min_available = "1";
      sc.pdbs.push_back(pdb);
    }
    auto rr = run_once(sc);
    const auto* x = node_of(rr.engine->cluster(), "x");
    REQUIRE(x != nullptr);
    CHECK(x == node_of(rr.engine->cluster(), "y")); // y moved next to x
  }
}

TEST_CASE("scale-down candidates: empty nodes first, then the previous loop's unneeded nodes",
          "[cas][controller][scale-down][order]")
{
  // ScaleDownCandidatesSortingProcessor (EmptySorting, then PreviousCandidates): the order
  // decides which of two nodes that could each take the other's pods is found unneeded.
  auto sc = base_scenario();
  const auto cat = default_catalog();
  // Preferred node affinity (kube-scheduler scoring only; CA's simulations filter) pins the
  // pods' first placement to a group.
  const auto prefer = [](const std::shared_ptr<model::PodSpec>& spec, const std::string& pool) -> model::PodSpecPtr {
    spec->preferred_node_affinity.push_back({100, {{model::Requirement::make("pool", model::Operator::in, {pool})}}});
    return spec;
  };
  const auto group = [&](const std::string& name) {
    auto g = make_group(name, {"m5.large"}, 0, 1);
    g.desired_capacity = 1;
    g.labels = {{"pool", name}};
    return g;
  };
  sc.node_groups = {group("a"), group("b")}; // node a is first in the snapshot
  SECTION("an empty node is simulated first, so the busy one keeps its pod")
  {
    std::vector<model::Pod> workload;
    workload.push_back(make_pod("x", prefer(make_spec("x", 100, 128), "a"), 0));
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    INFO(rr.result.decisions.size());
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    CHECK(downs[0].detail.find("empty node of b") == 0);
    CHECK(rr.result.pods.evicted == 0);
  }
  SECTION("a node unneeded in the previous loop is simulated before one that just became eligible")
  {
    // Until a-short ends (90 s + 3 min) node a is at 1000m / 1900m (53%, above the 0.5
    // threshold) and node b (400m) is unneeded: its pod fits on a. Then a (300m) is eligible
    // too and comes first in the snapshot, but b, unneeded already, is simulated first: b
    // stays unneeded and goes 10 minutes after it became so. (In snapshot order a would be
    // found unneeded instead, b unremovable, and a would go 10 minutes after a-short ended.)
    std::vector<model::Pod> workload;
    workload.push_back(make_pod("a-long", prefer(make_spec("a-long", 300, 128), "a"), 0));
    workload.push_back(make_pod("a-short", prefer(make_spec("a-short", 700, 128), "a"), 0, 3 * k_minute));
    workload.push_back(make_pod("b", prefer(make_spec("b", 400, 128), "b"), 0));
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    CHECK(downs[0].detail.find("underutilized node of b") == 0);
    CHECK(seconds(downs[0].t) < 90 + 180 + 600);
    const auto* b = node_of(rr.engine->cluster(), "b");
    REQUIRE(b != nullptr);
    CHECK(b == node_of(rr.engine->cluster(), "a-long"));
  }
}

TEST_CASE("scale-down: unneeded nodes get the DeletionCandidateOfClusterAutoscaler soft taint",
          "[cas][controller][scale-down][soft-taint]")
{
  // static_autoscaler.go updateSoftDeletionTaints / actuation.UpdateSoftDeletionTaints: CA taints
  // its unneeded nodes PreferNoSchedule (kube-scheduler's TaintToleration score, weight 3, then
  // steers new pods away from them) and untaints nodes that are needed again.
  auto sc = base_scenario();
  auto g = make_group("ng", {"m5.large"}, 0, 5);
  g.desired_capacity = 2;
  sc.node_groups.push_back(g);
  const auto cat = default_catalog();
  const auto has_soft_taint = [](const cluster::NodeState& n) {
    return std::any_of(n.taints.begin(), n.taints.end(), [](const model::Taint& t) {
      return t.key == model::k_deletion_candidate_taint_key && t.effect == model::TaintEffect::prefer_no_schedule;
    });
  };
  // `busy` fills one node above the threshold (1000m of 1900m); the other stays empty, so
  // it is unneeded from the first loop. A small pod arrives at 5 minutes.
  std::vector<model::Pod> base;
  base.push_back(make_pod("busy", make_spec("busy", 1000, 128), 0));
  SECTION("the small pod avoids the tainted node, which is then deleted empty")
  {
    auto workload = base;
    workload.push_back(make_pod("small", make_spec("small", 200, 128), 5 * k_minute));
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    CHECK(node_of(rr.engine->cluster(), "small") == node_of(rr.engine->cluster(), "busy"));
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    CHECK(downs[0].detail.find("empty node") == 0);
    CHECK(rr.result.pods.evicted == 0);
  }
  SECTION("maxBulkSoftTaintCount 0: the small pod goes to the empty node (LeastAllocated) and is drained")
  {
    sc.settings.cluster_autoscaler.max_bulk_soft_taint_count = 0;
    auto workload = base;
    workload.push_back(make_pod("small", make_spec("small", 200, 128), 5 * k_minute));
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, k_hour, ca);
    const auto downs = decisions(rr.result, "scale-down", "delete");
    REQUIRE(downs.size() == 1);
    CHECK(downs[0].detail.find("underutilized node") == 0);
    CHECK(rr.result.pods.evicted == 1);
  }
  SECTION("a node needed again loses the taint")
  {
    // `big` fits only on the empty node: once there, that node is no longer unneeded.
    auto workload = base;
    workload.push_back(make_pod("big", make_spec("big", 1500, 128), 5 * k_minute));
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 30 * k_minute, ca);
    CHECK(rr.result.disruptions.scale_down == 0);
    const auto* big = node_of(rr.engine->cluster(), "big");
    REQUIRE(big != nullptr);
    CHECK_FALSE(has_soft_taint(*big));
  }
  SECTION("the empty node carries the taint while it waits out the unneeded time")
  {
    auto workload = base;
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 5 * k_minute, ca);
    int tainted = 0;
    for (const auto& n : rr.engine->cluster().nodes()) {
      tainted += n.alive() && has_soft_taint(n) ? 1 : 0;
      CHECK(has_soft_taint(n) == (n.alive() && n.pods.empty()));
    }
    CHECK(tainted == 1);
  }
}

TEST_CASE("scale-down: at most 10 deletions in flight", "[cas][controller][scale-down][budget]")
{
  auto sc = base_scenario();
  auto g = make_group("ng", {"m5.large"}, 0, 20);
  g.desired_capacity = 12;
  sc.node_groups.push_back(g);
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  ClusterAutoscaler ca(sc, cat, 1);
  auto rr = run(sc, cat, workload, k_hour, ca);
  const auto downs = decisions(rr.result, "scale-down", "delete");
  REQUIRE(downs.size() == 12);
  std::map<SimTime, int> per_time;
  for (const auto& d : downs) {
    ++per_time[d.t];
  }
  REQUIRE(per_time.size() == 2);
  CHECK(per_time.begin()->second == 10);
  CHECK(per_time.rbegin()->second == 2);
  CHECK(rr.result.nodes.final_count == 0);
}

TEST_CASE("mixed-instances ASG: CA plans with the first type, the ASG launches per its distribution",
          "[cas][controller][mixed]")
{
  auto sc = base_scenario();
  auto g = make_group("mixed", {"m5.large", "m5a.large"}, 0, 10, {"us-east-1a", "us-east-1b"});
  g.mixed = true;
  g.capacity_type = "mixed";
  g.on_demand_base_capacity = 1;
  g.on_demand_percentage_above_base = 50;
  g.spot_allocation_strategy = model::SpotAllocationStrategy::lowest_price;
  sc.node_groups.push_back(g);
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  add_pods(workload, "web", make_spec("web", 900, 1024), 8); // 4 nodes on paper
  ClusterAutoscaler ca(sc, cat, 1);
  auto rr = run(sc, cat, workload, 30 * k_minute, ca);
  const auto ups = decisions(rr.result, "scale-up", "launch");
  REQUIRE(ups.size() == 1);
  CHECK_THAT(ups[0].detail, Catch::Contains("planned as m5.large"));
  std::map<std::string, int> launched; // type/capacity/zone
  for (const auto* n : group_nodes(rr.engine->cluster(), 0)) {
    ++launched[n->instance_type->name + "/" + n->capacity_type + "/" + n->zone];
  }
  // od, od (1 + 50% of 1 rounded up), spot, od; zones alternate; spot picks the cheaper
  // m5a.large, on-demand the first override.
  CHECK(launched
        == std::map<std::string, int>{{"m5.large/on-demand/us-east-1a", 1},
                                      {"m5.large/on-demand/us-east-1b", 2},
                                      {"m5a.large/spot/us-east-1a", 1}});
  CHECK(rr.result.pods.unschedulable == 0);
}

TEST_CASE("insufficient capacity: the group backs off and the expander picks another", "[cas][controller][backoff]")
{
  auto sc = base_scenario();
  sc.node_groups.push_back(make_group("general", {"m5.large"}, 0, 10));
  sc.node_groups.push_back(make_group("memory", {"r5.large"}, 0, 10));
  model::ScenarioEvent ice;
  ice.at = 0;
  ice.kind = "InsufficientCapacity";
  ice.selector.instance_type = "m5.large";
  ice.duration = 30 * k_minute;
  sc.events.push_back(ice);
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  workload.push_back(make_pod("web", make_spec("web", 900, 1024), 0));
  ClusterAutoscaler ca(sc, cat, 1);
  auto rr = run(sc, cat, workload, 20 * k_minute, ca);
  // least-waste prefers m5.large; its launch fails, the ASG refresh (60 s) backs it off, and
  // the next scale-up goes to r5.large.
  CHECK_FALSE(decisions(rr.result, "scale-up", "backoff").empty());
  const auto* node = node_of(rr.engine->cluster(), "web");
  REQUIRE(node != nullptr);
  CHECK(node->instance_type->name == "r5.large");
  CHECK(ca.target_size(0) == 0);
  const auto ups = decisions(rr.result, "scale-up", "launch");
  REQUIRE(ups.size() == 2);
  CHECK(ups[0].candidate == "general");
  CHECK(ups[1].candidate == "memory");
  CHECK(seconds(ups[1].t) == Approx(60).margin(0.1));
}

TEST_CASE("node templates drop the DeletionCandidate soft taint of the node they copy", "[cas][soft-taint]")
{
  // taints.SanitizeTaints: a group's new nodes will not carry scale-down's taint; its own stay.
  cluster::NodeState node;
  node.name = "ng-1";
  node.taints = {{"dedicated", "batch", model::TaintEffect::no_schedule},
                 {std::string(model::k_deletion_candidate_taint_key), "600", model::TaintEffect::prefer_no_schedule}};
  const auto t = template_from_node(node, 0, "ng");
  CHECK(t.node.taints == std::vector<model::Taint>{{"dedicated", "batch", model::TaintEffect::no_schedule}});
}

TEST_CASE("backoff: a successful scale-up keeps the group's backoff history, so the next failure waits twice as long",
          "[cas][controller][backoff]")
{
  // clusterstate.updateScaleRequests drops a finished request without RemoveBackoff; the
  // exponential backoff data lives until node-group-backoff-reset-timeout (3 h) after the last
  // failure, so a failure after a success doubles the previous duration (5 -> 10 minutes).
  auto sc = base_scenario();
  sc.node_groups.push_back(make_group("general", {"m5.large"}, 0, 10));
  for (const SimTime at : {SimTime{0}, 30 * k_minute}) {
    model::ScenarioEvent ice;
    ice.at = at;
    ice.kind = "InsufficientCapacity";
    ice.selector.instance_type = "m5.large";
    ice.duration = at == 0 ? k_minute : 10 * k_minute;
    sc.events.push_back(ice);
  }
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  workload.push_back(make_pod("first", make_spec("first", 1500, 1024), 0));
  workload.push_back(make_pod("second", make_spec("second", 1500, 1024), 30 * k_minute));
  ClusterAutoscaler ca(sc, cat, 1);
  auto rr = run(sc, cat, workload, 50 * k_minute, ca);
  std::string log;
  for (const auto& d : rr.result.decisions) {
    log += fmt::format("{} {} {} {} {}\n", seconds(d.t), d.method, d.action, d.candidate, d.detail);
  }
  INFO(log);
  REQUIRE(node_of(rr.engine->cluster(), "first") != nullptr); // launched once the backoff ended
  const auto backoffs = decisions(rr.result, "scale-up", "backoff");
  REQUIRE(backoffs.size() == 2);
  CHECK(seconds(backoffs[1].t) > 30 * 60);
  CHECK(ca.backed_off(0, backoffs[1].t + 9 * k_minute));
  CHECK_FALSE(ca.backed_off(0, backoffs[1].t + 11 * k_minute));
}

TEST_CASE("max-node-provision-time: nodes not ready in 15 minutes are removed and the group backs off",
          "[cas][controller][backoff]")
{
  auto sc = base_scenario();
  sc.settings.cluster_autoscaler.launch_latency = 20 * k_minute;
  sc.node_groups.push_back(make_group("slow", {"m5.large"}, 0, 10));
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  workload.push_back(make_pod("web", make_spec("web", 900, 1024), 0));
  ClusterAutoscaler ca(sc, cat, 1);
  auto rr = run(sc, cat, workload, 16 * k_minute, ca);
  const auto timeouts = decisions(rr.result, "scale-up", "timeout");
  REQUIRE(timeouts.size() == 1);
  CHECK(seconds(timeouts[0].t) > 10 + 900);
  CHECK(seconds(timeouts[0].t) < 10 + 900 + 11);
  CHECK(ca.backed_off(0, timeouts[0].t + 4 * k_minute));
  CHECK_FALSE(ca.backed_off(0, timeouts[0].t + 6 * k_minute));
  CHECK(ca.target_size(0) == 0);
  CHECK(rr.result.pods.unschedulable == 1);
}

TEST_CASE("expanders choose between node groups end to end", "[cas][controller][expander]")
{
  auto sc = base_scenario();
  auto general = make_group("general", {"m5.large"}, 0, 10);
  general.priority = 10;
  auto big = make_group("big", {"m5.xlarge"}, 0, 10);
  sc.node_groups = {general, big};
  const auto cat = default_catalog();
  const auto pick = [&](const std::string& expander) {
    sc.settings.cluster_autoscaler.expander = expander;
    std::vector<model::Pod> workload;
    add_pods(workload, "web", make_spec("web", 1200, 1024), 3);
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 10 * k_minute, ca);
    const auto ups = decisions(rr.result, "scale-up", "launch");
    REQUIRE(ups.size() == 1);
    return ups[0].candidate;
  };
  // Three 1200m pods: three m5.large (one each) or one m5.xlarge. least-waste on capacity:
  // m5.large x3 = (6000-3600)/6000 + (24-3)/24 = 1.275; m5.xlarge = 0.1 + 13/16 = 0.9125.
  CHECK(pick("least-waste") == "big");
  CHECK(pick("least-nodes") == "big");
  CHECK(pick("priority") == "general");
  CHECK(pick("priority,least-waste") == "general");
  CHECK(pick("least-waste,priority") == "big");
}

TEST_CASE("balance-similar-node-groups splits a scale-up across zonal groups", "[cas][controller][balance]")
{
  auto sc = base_scenario();
  sc.node_groups.push_back(make_group("web-a", {"m5.large"}, 0, 10, {"us-east-1a"}));
  sc.node_groups.push_back(make_group("web-b", {"m5.large"}, 0, 10, {"us-east-1b"}));
  sc.node_groups.push_back(make_group("other", {"c5.xlarge"}, 0, 10, {"us-east-1a"}));
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  // 3.5 GiB pods: two per m5.large (2 vCPU, 8 GiB); c5.xlarge (4 vCPU, 8 GiB) wastes more.
  add_pods(workload, "web", make_spec("web", 900, 3584), 8);
  SECTION("balanced")
  {
    sc.settings.cluster_autoscaler.balance_similar_node_groups = true;
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 30 * k_minute, ca);
    CHECK(ca.target_size(0) == 2);
    CHECK(ca.target_size(1) == 2);
    CHECK(ca.target_size(2) == 0);
    CHECK(rr.result.pods.unschedulable == 0);
  }
  SECTION("not balanced")
  {
    ClusterAutoscaler ca(sc, cat, 1);
    auto rr = run(sc, cat, workload, 30 * k_minute, ca);
    CHECK(ca.target_size(0) + ca.target_size(1) == 4);
    CHECK((ca.target_size(0) == 4 || ca.target_size(1) == 4));
  }
}

TEST_CASE("spot interruptions: the ASG replaces the instance, CA alone does not drain early",
          "[cas][controller][spot]")
{
  auto sc = base_scenario();
  auto g = make_group("spot", {"m5.large"}, 0, 10, {"us-east-1a", "us-east-1b"});
  g.capacity_type = "spot";
  sc.node_groups.push_back(g);
  model::ScenarioEvent ev;
  ev.at = k_hour;
  ev.kind = "SpotInterruption";
  ev.selector.instance_type = "m5.large";
  ev.count = 1;
  sc.events.push_back(ev);
  const auto cat = default_catalog();
  std::vector<model::Pod> workload;
  workload.push_back(make_pod("web", make_spec("web", 900, 1024), 0));
  ClusterAutoscaler ca(sc, cat, 1);
  auto rr = run(sc, cat, workload, 2 * k_hour, ca);
  CHECK(rr.result.disruptions.spot_interruption == 1);
  CHECK(rr.result.pods.evicted == 1);
  CHECK(rr.result.nodes.launched == 2); // the original and the ASG's replacement
  const auto* node = node_of(rr.engine->cluster(), "web");
  REQUIRE(node != nullptr);
  // The interrupted pool (us-east-1a spot) is unavailable for a while: the replacement is in b.
  CHECK(node->zone == "us-east-1b");
  CHECK(node->created_at >= k_hour + 2 * k_minute); // the pod ran until the reclaim
}
