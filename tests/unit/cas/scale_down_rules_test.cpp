#include "core/cas/scale_down.hpp"

#include "tests/unit/cas/cas_fixtures.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace capsim;
using namespace capsim::cas;
using namespace capsim::cas::testing;

namespace {

// A cluster with `count` running pods of `spec` on one ready node.
cluster::Cluster running_cluster(const model::PodSpecPtr& spec, int count)
{
  cluster::Cluster c;
  cluster::NodeState n;
  n.name = "n";
  n.lifecycle = cluster::NodeLifecycle::ready;
  const auto ni = c.add_node(n);
  for (int i = 0; i < count; ++i) {
    const auto pi = c.add_pod(make_pod(spec->template_name + "-" + std::to_string(i), spec));
    c.bind(pi, ni, 0);
    c.pod_mut(pi).started_at = 0;
  }
  return c;
}

} // namespace

TEST_CASE("utilization is max(cpu, memory) of requests over allocatable", "[cas][scale-down]")
{
  model::Resources alloc;
  alloc[model::k_cpu] = 2000;
  alloc[model::k_memory] = 8 * k_gib;
  model::Resources req;
  req[model::k_cpu] = 500;
  req[model::k_memory] = 4 * k_gib;
  auto u = node_utilization(req, alloc);
  CHECK(u.cpu == Approx(0.25));
  CHECK(u.memory == Approx(0.5));
  CHECK(u.value == Approx(0.5));
  CHECK_FALSE(u.gpu_node);
  // GPU nodes: GPU utilization alone.
  alloc[model::k_nvidia_gpu] = 4;
  req[model::k_nvidia_gpu] = 1;
  u = node_utilization(req, alloc);
  CHECK(u.gpu_node);
  CHECK(u.value == Approx(0.25));
  // No allocatable CPU: CA cannot compute it and skips the node.
  model::Resources none;
  CHECK_FALSE(node_utilization(req, none).valid);
}

TEST_CASE("PDB disruptions allowed follow the disruption controller", "[cas][scale-down][pdb]")
{
  model::PodDisruptionBudget pdb;
  pdb.min_available = "2";
  CHECK(pdb_disruptions_allowed(pdb, 3, 3) == 1);
  CHECK(pdb_disruptions_allowed(pdb, 3, 2) == 0);
  CHECK(pdb_disruptions_allowed(pdb, 3, 1) == 0);
  pdb.min_available = "50%"; // of 5 expected: ceil(2.5) = 3
  CHECK(pdb_disruptions_allowed(pdb, 5, 5) == 2);
  pdb.min_available.reset();
  pdb.max_unavailable = "1";
  CHECK(pdb_disruptions_allowed(pdb, 4, 4) == 1);
  CHECK(pdb_disruptions_allowed(pdb, 4, 3) == 0);
  pdb.max_unavailable = "25%"; // of 10: ceil(2.5) = 3 unavailable, 7 healthy needed
  CHECK(pdb_disruptions_allowed(pdb, 10, 10) == 3);
  pdb.max_unavailable = "0";
  CHECK(pdb_disruptions_allowed(pdb, 4, 4) == 0);
  pdb.max_unavailable = "lots";
  CHECK(pdb_disruptions_allowed(pdb, 4, 4) == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("drainability rules block scale-down as CA's rules.Default does", "[cas][scale-down][drain]")
{
  const PdbTracker no_pdbs;
  const DrainOptions options;
  const SimTime now = 10 * k_minute;
  auto spec = make_spec("web", 100, 128);
  auto pod = make_pod("web-0", spec);
  CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::none);

  SECTION("pods without a controller block")
  {
    spec->owner = model::OwnerKind::none;
    CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::not_replicated);
    spec->safe_to_evict_true = true; // safe-to-evict=true overrides every blocker below it
    CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::none);
  }
  SECTION("kube-system pods without a PDB block until the disruption timeout")
  {
    spec->namespace_ = "kube-system";
    CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::kube_system);
    CHECK(drainability(pod, 0, k_hour, options, no_pdbs) == BlockReason::kube_system);
    CHECK(drainability(pod, 0, k_hour + 1, options, no_pdbs) == BlockReason::none);
    // Past the timeout the system rule says drainable, which ends the rules (system/rule.go
    // returns NewDrainableStatus): the later not-safe-to-evict and local-storage rules do not run.
    spec->safe_to_evict_false = true;
    spec->has_local_storage = true;
    CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::kube_system);
    CHECK(drainability(pod, 0, k_hour + 1, options, no_pdbs) == BlockReason::none);
    spec->safe_to_evict_false = false;
    spec->has_local_storage = false;
    DrainOptions lax = options;
    lax.skip_nodes_with_system_pods = false;
    CHECK(drainability(pod, 0, now, lax, no_pdbs) == BlockReason::none);
    // With a PDB the system rule passes; the PDB rule then decides.
    std::vector<model::PodDisruptionBudget> pdbs(1);
    pdbs[0].namespace_ = "kube-system";
    pdbs[0].selector.match_labels = {{"app", "web"}};
    pdbs[0].max_unavailable = "1";
    const auto c = running_cluster(spec, 2);
    const PdbTracker tracker(pdbs, c);
    CHECK(tracker.allowed(0) == 1);
    CHECK(drainability(pod, 0, now, options, tracker) == BlockReason::none);
  }
  SECTION("safe-to-evict=false blocks")
  {
    spec->safe_to_evict_false = true;
    CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::not_safe_to_evict);
  }
  SECTION("local storage blocks only with skip-nodes-with-local-storage")
  {
    spec->has_local_storage = true;
    CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::local_storage);
    DrainOptions lax = options;
    lax.skip_nodes_with_local_storage = false;
    CHECK(drainability(pod, 0, now, lax, no_pdbs) == BlockReason::none);
  }
  SECTION("a PDB with no disruption left blocks; the tracker counts moved pods")
  {
    std::vector<model::PodDisruptionBudget> pdbs(1);
    pdbs[0].selector.match_labels = {{"app", "web"}};
    pdbs[0].max_unavailable = "1";
    cluster::Cluster c;
    PdbTracker tracker(pdbs, c); // no matching pods: 0 expected, 0 healthy -> 0 allowed
    CHECK(tracker.allowed(0) == 0);
    CHECK(drainability(pod, 0, now, options, tracker) == BlockReason::pdb);
    // Three running pods: one disruption allowed, used by the first move.
    const auto running = running_cluster(spec, 3);
    PdbTracker live(pdbs, running);
    CHECK(live.allowed(0) == 1);
    CHECK(drainability(pod, 0, now, options, live) == BlockReason::none);
    live.remove_pods({&pod});
    CHECK(drainability(pod, 0, now, options, live) == BlockReason::pdb);
  }
  SECTION("DaemonSet pods never block")
  {
    spec->owner = model::OwnerKind::daemon_set;
    spec->safe_to_evict_false = true;
    CHECK(drainability(pod, 0, now, options, no_pdbs) == BlockReason::none);
  }
}

TEST_CASE("deletion budgets: 10 in flight, 1 of them a drain", "[cas][scale-down][budget]")
{
  auto b = crop_deletions(15, 3, 0, 0, 10, 1);
  CHECK(b.empty == 10);
  CHECK(b.drain == 0);
  b = crop_deletions(4, 3, 0, 0, 10, 1);
  CHECK(b.empty == 4);
  CHECK(b.drain == 1);
  b = crop_deletions(4, 3, 0, 1, 10, 1); // a drain already in flight
  CHECK(b.empty == 4);
  CHECK(b.drain == 0);
  b = crop_deletions(20, 0, 7, 1, 10, 1);
  CHECK(b.empty == 2);
  b = crop_deletions(3, 3, 0, 0, 10, 5);
  CHECK(b.empty == 3);
  CHECK(b.drain == 3);
}
