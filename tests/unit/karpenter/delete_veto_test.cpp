// SolveOptions::stop_on_delete_veto: consolidation of spot candidates without spot-to-spot, run
// without --explain, lets the solve stop at the first sign that the candidates cannot simply be
// deleted. A stopped solve must be one whose full result consolidation rejects, and a solve that
// does not stop must give the full result.
#include "core/karpenter/pod_data.hpp"
#include "core/karpenter/solve.hpp"
#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <limits>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

constexpr std::int64_t k_gib = 1024LL * 1024 * 1024;

PodOptions cpu(std::int64_t milli)
{
  PodOptions o;
  o.cpu_milli = milli;
  o.memory = k_gib / 4;
  return o;
}

model::Resources allocatable(std::int64_t cpu_milli)
{
  model::Resources r;
  r[model::k_cpu] = cpu_milli;
  r[model::k_memory] = 16 * k_gib;
  r[model::k_pods] = 110;
  return r;
}

// What compute_consolidation rejects when the candidates are spot and spot-to-spot is off: a
// non-pending pod that fails, a moved pod on a node that is not Ready, more than one NodeClaim, or
// one that may launch spot.
bool consolidation_rejects(const Env& env, const SolveResult& r, const std::vector<cluster::NodeIndex>& deleting = {})
{
  for (const auto& e : r.errors) {
    if (env.cluster.pod(e.pod).phase != cluster::PodPhase::pending) {
      return true;
    }
  }
  for (const auto& p : r.existing) {
    const auto& pod = env.cluster.pod(p.pod);
    const bool from_deleting = std::find(deleting.begin(), deleting.end(), pod.node) != deleting.end();
    if (pod.phase != cluster::PodPhase::pending && !from_deleting
        && env.cluster.node(p.node).lifecycle != cluster::NodeLifecycle::ready) {
      return true;
    }
  }
  if (r.claims.size() > 1) {
    return true;
  }
  if (r.claims.size() == 1) {
    const auto* ct = r.claims.front().requirements.find(k_ct);
    return ct == nullptr || ct->has(model::k_capacity_spot);
  }
  return false;
}

// A fixed-seed generator: next(n) is in [0, n).
class Random
{
public:
  explicit Random(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t operator()(std::uint64_t n)
  {
    m_state = m_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (m_state >> 33) % n;
  }

private:
  std::uint64_t m_state;
};

struct Runs
{
  SolveResult full;
  SolveResult early;
};

// The simulation of deleting `candidate`: pending pods, the candidate's pods and `draining` (pods
// of deleting nodes), candidate excluded; over env's cache.
SolveInput delete_input(Env& env, cluster::NodeIndex candidate, const std::vector<cluster::PodIndex>& draining = {})
{
  SolveInput in = env.input();
  for (const auto p : env.cluster.node(candidate).pods) {
    in.pods.push_back(p);
  }
  in.pods.insert(in.pods.end(), draining.begin(), draining.end());
  in.excluded_nodes = {candidate};
  in.options.consolidation_simulation = true;
  in.options.sketch_claims = true;
  in.options.now = env.now;
  return in;
}

Runs simulate_delete(Env& env, cluster::NodeIndex candidate, const std::vector<cluster::PodIndex>& draining = {})
{
  SolveInput in = delete_input(env, candidate, draining);
  Runs runs;
  runs.full = solve(in);
  in.options.stop_on_delete_veto = true;
  runs.early = solve(in);
  return runs;
}

void check_consistent(const Env& env, const Runs& runs)
{
  CHECK_FALSE(runs.full.stopped);
  if (runs.early.stopped) {
    CHECK(consolidation_rejects(env, runs.full));
    CHECK(runs.early.claims.empty());
    CHECK(runs.early.existing.empty());
    CHECK(runs.early.errors.empty());
    return;
  }
  check_same(runs.early, runs.full);
}

// The input remembered_stop_holds gets for deleting `candidate` (Ready, every pod of it moving)
// over env's cache: the input of delete_input with the pending pods only.
SolveInput quick_input(Env& env, cluster::NodeIndex candidate)
{
  SolveInput in = env.input();
  in.excluded_nodes = {candidate};
  in.options.consolidation_simulation = true;
  in.options.sketch_claims = true;
  in.options.now = env.now;
  in.options.stop_on_delete_veto = true;
  return in;
}

bool quick_stop(Env& env, cluster::NodeIndex candidate)
{
  const auto& node = env.cluster.node(candidate);
  return remembered_stop_holds(quick_input(env, candidate), node.pods_revision, node.pods, {});
}

// The early solve of deleting `candidate` over env's cache (which remembers stops), checked
// against the same solve over a fresh cache.
SolveResult early_checked(Env& env, cluster::NodeIndex candidate)
{
  SolveInput in = delete_input(env, candidate);
  in.options.stop_on_delete_veto = true;
  auto shared = solve(in);
  SolveCache fresh;
  in.cache = &fresh;
  check_same(shared, solve(in));
  return shared;
}

// A spot + on-demand pool without limits (limits may take options from a NodeClaim, so a limited
// pool's solves check nothing before placing pods); with `spot_zones_only`, restricted to the
// zones where every fake type offers spot (test-zone-3 is on-demand only).
model::NodePool& add_spot_pool(Env& env, bool spot_zones_only)
{
  auto& pool = env.node_pool();
  pool.limits.reset();
  pool.requirements.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  if (spot_zones_only) {
    pool.requirements.add(req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"}));
  }
  return pool;
}

// An on-demand pool without limits: NodeClaims never allow spot, so nothing is checked before
// placing pods and only a placement on a node that is not Ready stops a solve.
model::NodePool& add_on_demand_pool(Env& env)
{
  auto& pool = env.node_pool();
  pool.limits.reset();
  pool.requirements.add(req(k_ct, Operator::in, {"on-demand"}));
  return pool;
}

// fake.InstanceTypes(n) sizes, on-demand in test-zones 1-3; spot where `spot_zones(i)` says
// (a bit per zone).
template <typename SpotZones>
std::vector<catalog::InstanceType> catalog_with_spot(int n, SpotZones spot_zones)
{
  std::vector<catalog::InstanceType> out;
  for (int i = 0; i < n; ++i) {
    testing::FakeTypeOptions o;
    o.cpu_milli = 1000LL * (i + 1);
    o.memory = 2LL * (i + 1) * k_gib;
    o.pods = 10LL * (i + 1);
    const double price = testing::fake_price(o.cpu_milli, o.memory);
    std::vector<catalog::Offering> offerings;
    const unsigned zones = spot_zones(i);
    for (int z = 0; z < 3; ++z) {
      const std::string zone = "test-zone-" + std::to_string(z + 1);
      if (((zones >> z) & 1U) != 0) {
        offerings.push_back(testing::fake_offering(zone, "spot", price * 0.4));
      }
      offerings.push_back(testing::fake_offering(zone, "on-demand", price));
    }
    o.offerings = offerings;
    out.push_back(testing::fake_instance_type("fake-it-" + std::to_string(i), o));
  }
  return out;
}

// Ten fake types; one in `mixed` offers spot in random zones, the others in all three.
std::vector<catalog::InstanceType> random_spot_catalog(Random& next, std::uint64_t mixed)
{
  std::vector<unsigned> spot_zones(10);
  for (auto& z : spot_zones) {
    z = next(mixed) == 0 ? static_cast<unsigned>(next(8)) : 7U;
  }
  return catalog_with_spot(10, [&](int i) { return spot_zones[static_cast<std::size_t>(i)]; });
}

// A spot + on-demand pool over `env`'s types and a candidate holding `count` pods of `milli` CPU.
Runs simulate_candidate_with(Env& env, std::int64_t milli, int count)
{
  add_spot_pool(env, false);
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  for (const auto p : env.pods(cpu(milli), count)) {
    env.bind(p, candidate);
  }
  return simulate_delete(env, candidate);
}

} // namespace

TEST_CASE("stop_on_delete_veto: a moved pod no other node has room for stops the solve",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(1000));
  env.bind(env.pod(cpu(2000)), candidate);
  const auto runs = simulate_delete(env, candidate);
  CHECK(runs.early.stopped);
  REQUIRE(runs.full.claims.size() == 1);
  check_consistent(env, runs);
}

TEST_CASE("stop_on_delete_veto: the first NodeClaim that may launch spot stops the solve",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(1500));
  // Each pod fits the other node alone, the two together do not.
  const auto pods = env.pods(cpu(1000), 2);
  for (const auto p : pods) {
    env.bind(p, candidate);
  }
  const auto runs = simulate_delete(env, candidate);
  CHECK(runs.early.stopped);
  CHECK(runs.full.existing.size() == 1);
  CHECK(runs.full.claims.size() == 1);
  check_consistent(env, runs);
}

TEST_CASE("stop_on_delete_veto: a moved pod placed on a node that is not Ready stops the solve",
          "[karpenter][solve][consolidation]")
{
  // Even when NodeClaims could be on-demand only (test-zone-3 has no spot): the rule does not
  // depend on them.
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, false);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::registered);
  env.bind(env.pod(cpu(1000)), candidate);
  const auto runs = simulate_delete(env, candidate);
  CHECK(runs.early.stopped);
  REQUIRE(runs.full.existing.size() == 1);
  CHECK(runs.full.claims.empty());
  check_consistent(env, runs);
}

TEST_CASE("stop_on_delete_veto: a deleting node's pod placed on a node that is not Ready does not stop the solve",
          "[karpenter][solve][consolidation]")
{
  // Only moved pods may not land on uninitialized nodes; a deleting node's pods may.
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto draining = env.node("draining", {}, allocatable(4000), cluster::NodeLifecycle::deleting);
  const auto other = env.node("other", {}, allocatable(1000));
  const auto launching = env.node("launching", {}, allocatable(2000), cluster::NodeLifecycle::registered);
  const auto evicted = env.pod(cpu(2000)); // fits the launching node only
  env.bind(evicted, draining);
  const auto moved = env.pod(cpu(500));
  env.bind(moved, candidate);
  const auto runs = simulate_delete(env, candidate, {evicted});
  CHECK_FALSE(runs.early.stopped);
  REQUIRE(runs.full.existing.size() == 2);
  CHECK(runs.full.claims.empty());
  for (const auto& p : runs.full.existing) {
    CHECK(p.node == (p.pod == evicted ? launching : other));
  }
  CHECK_FALSE(consolidation_rejects(env, runs.full, {draining}));
  CHECK(consolidation_rejects(env, runs.full)); // the same placements, were its pod a moved one
  check_consistent(env, runs);
}

TEST_CASE("stop_on_delete_veto: pods that fit Ready nodes run to the same result", "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("a", {}, allocatable(1500));
  env.node("b", {}, allocatable(2500));
  for (const auto p : env.pods(cpu(700), 4)) {
    env.bind(p, candidate);
  }
  const auto runs = simulate_delete(env, candidate);
  CHECK_FALSE(runs.early.stopped);
  CHECK(runs.full.existing.size() == 4);
  CHECK(runs.full.claims.empty());
  check_consistent(env, runs);
}

TEST_CASE("stop_on_delete_veto: no stop on NodeClaims that may end on-demand only", "[karpenter][solve][consolidation]")
{
  SECTION("the pool offers a zone without spot")
  {
    Env env(testing::fake_instance_types(10));
    add_spot_pool(env, false);
    const auto candidate = env.node("candidate", {}, allocatable(4000));
    env.bind(env.pod(cpu(2000)), candidate);
    const auto runs = simulate_delete(env, candidate);
    CHECK_FALSE(runs.early.stopped);
    CHECK(runs.full.claims.size() == 1);
    check_consistent(env, runs);
  }
  SECTION("the pod requires on-demand")
  {
    Env env(testing::fake_instance_types(10));
    add_spot_pool(env, true);
    const auto candidate = env.node("candidate", {}, allocatable(4000));
    PodOptions o = cpu(2000);
    o.node_selector = {{k_ct, "on-demand"}};
    env.bind(env.pod(o), candidate);
    const auto runs = simulate_delete(env, candidate);
    CHECK_FALSE(runs.early.stopped);
    REQUIRE(runs.full.claims.size() == 1);
    CHECK_FALSE(consolidation_rejects(env, runs.full)); // an on-demand replacement is priced next
    check_consistent(env, runs);
  }
  SECTION("a pod spreads over capacity types")
  {
    Env env(testing::fake_instance_types(10));
    add_spot_pool(env, true);
    const auto candidate = env.node("candidate", {}, allocatable(4000));
    PodOptions o = cpu(2000);
    o.labels = {{"app", "x"}};
    o.spread = {spread(k_ct, {{"app", "x"}})};
    env.bind(env.pod(o), candidate);
    const auto runs = simulate_delete(env, candidate);
    CHECK_FALSE(runs.early.stopped);
    check_consistent(env, runs);
  }
  SECTION("the pool is on-demand only")
  {
    Env env(testing::fake_instance_types(10));
    env.node_pool().requirements.add(req(k_ct, Operator::in, {"on-demand"}));
    const auto candidate = env.node("candidate", {}, allocatable(4000));
    env.bind(env.pod(cpu(2000)), candidate);
    const auto runs = simulate_delete(env, candidate);
    CHECK_FALSE(runs.early.stopped);
    CHECK(runs.full.claims.size() == 1);
    check_consistent(env, runs);
  }
}

TEST_CASE("stop_on_delete_veto: NodeClaims keep spot while a spot option in each zone has room for every pod",
          "[karpenter][solve][consolidation]")
{
  SECTION("the largest options offer no spot, smaller ones do in every zone")
  {
    Env env(catalog_with_spot(10, [](int i) { return i < 7 ? 7U : 0U; }));
    env.node("other", {}, allocatable(1000));
    const auto runs = simulate_candidate_with(env, 1500, 2);
    CHECK(runs.early.stopped);
    REQUIRE(runs.full.claims.size() == 1);
    check_consistent(env, runs);
  }
  SECTION("only options without spot have room for every pod")
  {
    Env env(catalog_with_spot(10, [](int i) { return i < 2 ? 7U : 0U; }));
    const auto runs = simulate_candidate_with(env, 1200, 3);
    CHECK_FALSE(runs.early.stopped);
    REQUIRE(runs.full.claims.size() == 1);
    CHECK_FALSE(consolidation_rejects(env, runs.full)); // an on-demand claim, priced next
    check_consistent(env, runs);
  }
  SECTION("one zone has spot only on options too small for every pod")
  {
    // test-zone-3 has spot on the two smallest types only; a claim may end there on-demand.
    Env env(catalog_with_spot(10, [](int i) { return i < 2 ? 7U : 3U; }));
    const auto runs = simulate_candidate_with(env, 1200, 3);
    CHECK_FALSE(runs.early.stopped);
    check_consistent(env, runs);
  }
}

TEST_CASE("stop_on_delete_veto: a pending pod that fits nowhere does not stop the solve",
          "[karpenter][solve][consolidation]")
{
  // Its failure does not veto the command (only non-pending pods' failures do).
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(2000));
  env.pod(cpu(1000 * 1000)); // larger than every instance type
  env.bind(env.pod(cpu(1000)), candidate);
  const auto runs = simulate_delete(env, candidate);
  CHECK_FALSE(runs.early.stopped);
  CHECK(runs.full.errors.size() == 1);
  CHECK(runs.full.existing.size() == 1);
  CHECK_FALSE(consolidation_rejects(env, runs.full));
  check_consistent(env, runs);
}

TEST_CASE("stop_on_delete_veto: stopped solves are rejected ones over many clusters",
          "[karpenter][solve][consolidation]")
{
  // Clusters of three Ready nodes and one launching node with random free room; the candidate holds
  // 1-4 pods of random sizes; instance types offer spot in random zones. Every outcome must agree
  // with the full solve.
  Random next(12345);
  int stopped = 0;
  int ran = 0;
  for (int round = 0; round < 200; ++round) {
    CAPTURE(round);
    Env env(random_spot_catalog(next, 3));
    add_spot_pool(env, next(4) != 0);
    const auto candidate = env.node("candidate", {}, allocatable(8000));
    for (int i = 0; i < 3; ++i) {
      env.node("ready-" + std::to_string(i), {}, allocatable(500 + 500 * static_cast<std::int64_t>(next(6))));
    }
    env.node("launching", {}, allocatable(500 * static_cast<std::int64_t>(next(4))), cluster::NodeLifecycle::launching);
    const auto pods = 1 + next(4);
    for (std::uint64_t i = 0; i < pods; ++i) {
      PodOptions o = cpu(250 * static_cast<std::int64_t>(1 + next(8)));
      if (next(8) == 0) {
        o.node_selector = {{k_ct, next(2) == 0 ? "on-demand" : "spot"}};
      }
      env.bind(env.pod(o), candidate);
    }
    if (next(5) == 0) {
      env.pod(cpu(250 * static_cast<std::int64_t>(1 + next(8)))); // a pending pod
    }
    const auto runs = simulate_delete(env, candidate);
    check_consistent(env, runs);
    (runs.early.stopped ? stopped : ran) += 1;
  }
  // Both paths were exercised.
  CHECK(stopped > 20);
  CHECK(ran > 20);
}

TEST_CASE("stop_on_delete_veto: a remembered stop answers the same solve while its pod still fits nowhere",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto other = env.node("other", {}, allocatable(2000));
  const auto filler = env.pod(cpu(1500));
  env.bind(filler, other);
  env.bind(env.pod(cpu(2000)), candidate);

  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 0); // solved in full, remembered
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 1);

  // Less room elsewhere: still no room for the pod.
  const auto small = env.pod(cpu(300));
  env.bind(small, other);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  const auto hits = env.cache.veto_memo_hits();
  CHECK(hits >= 2);

  // A pod joins the candidate, then leaves it: still no room for the first. (A solve of the
  // cluster as it is first brings the cache's snapshot up to date, as another candidate's would.)
  const auto refresh = [&env] { (void)solve(env.input()); };
  const auto joining = env.pod(cpu(100));
  env.bind(joining, candidate);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits + 1);
  env.remove(joining);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits + 2);
  const auto extra = env.pod(cpu(100));
  env.bind(extra, candidate);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits + 3);

  // A pending pod joins the solve: the candidate's pods are the same, the answer too.
  const auto pending = env.pod(cpu(100));
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits + 4);
  env.remove(pending);

  // Room for the pod on the other node: the solve runs in full and moves it there.
  env.remove(filler);
  env.remove(small);
  env.remove(extra);
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 1);
  CHECK(moved.existing.front().node == other);
  CHECK(env.cache.veto_memo_hits() == hits + 4);
  // Asked again at the same clock, over the snapshot that solve refreshed: the room found there
  // is not forgotten.
  CHECK_FALSE(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits + 4);
}

TEST_CASE("stop_on_delete_veto: a moved pod with room on nodes that are not Ready only stops the solve before placing",
          "[karpenter][solve][consolidation]")
{
  // The pod goes to the launching node (a veto) or, were that full, to a NodeClaim that may launch
  // spot: rejected either way, so the solve stops on it before anything is placed and remembers
  // it as a stop on no room, which holds while no Ready node has room, whichever nodes that are
  // not Ready come and go.
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto ready = env.node("ready", {}, allocatable(1000));
  const auto launching = env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::registered);
  const auto small = env.pod(cpu(300));
  env.bind(small, candidate); // queued after the big one: nothing is placed before it
  env.bind(env.pod(cpu(2000)), candidate);
  const auto runs = simulate_delete(env, candidate);
  CHECK(runs.early.stopped);
  REQUIRE(runs.full.existing.size() == 2);
  CHECK(runs.full.existing.front().node == launching);
  check_consistent(env, runs);
  CHECK(env.cache.veto_memo_hits() == 0); // solved in full, remembered

  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 1);
  CHECK(quick_stop(env, candidate));
  CHECK(env.cache.veto_memo_hits() == 2);
  // Another launching node with room, and the first filled: the answer stands.
  env.node("launching-2", {}, allocatable(8000), cluster::NodeLifecycle::launching);
  env.bind(env.pod(cpu(3500)), launching);
  (void)solve(env.input()); // brings the cache's snapshot up to date, as another candidate's solve would
  CHECK(quick_stop(env, candidate));
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 4);
  // The first launching node becomes Ready, still full: the answer stands.
  env.cluster.node_mut(launching).lifecycle = cluster::NodeLifecycle::ready;
  (void)solve(env.input());
  CHECK(quick_stop(env, candidate));
  CHECK(env.cache.veto_memo_hits() == 5);
  // The Ready node gets room for the big pod: the solve runs in full.
  env.cluster.node_mut(ready).allocatable = allocatable(3000);
  CHECK_FALSE(quick_stop(env, candidate));
  const auto moved = early_checked(env, candidate);
  CHECK(env.cache.veto_memo_hits() == 5);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 2);
  CHECK(moved.existing.front().node == ready);
}

TEST_CASE("stop_on_delete_veto: a remembered stop ends with a pending pod that leaves spot options no room",
          "[karpenter][solve][consolidation]")
{
  // Spot on the four smallest types only (in every zone).
  Env env(catalog_with_spot(10, [](int i) { return i < 4 ? 7U : 0U; }));
  add_spot_pool(env, false);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(1000));
  env.bind(env.pod(cpu(2000)), candidate);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  // With 3 more CPUs pending, no spot type has room for every pod: a NodeClaim may end on-demand,
  // so the solve runs in full (one on-demand NodeClaim for both pods).
  const auto pending = env.pod(cpu(3000));
  const auto full = early_checked(env, candidate);
  CHECK_FALSE(full.stopped);
  REQUIRE(full.claims.size() == 1);
  CHECK(full.claims.front().pods.size() == 2);
  CHECK(env.cache.veto_memo_hits() == 1);

  env.remove(pending); // the remembered stop holds again
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 2);
}

TEST_CASE("stop_on_delete_veto: a remembered stop is dropped when the templates change",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(1000));
  env.bind(env.pod(cpu(2000)), candidate);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  const auto hits = env.cache.veto_memo_hits();
  REQUIRE(hits == 1);

  // With limits, NodeClaims may lose options: nothing is checked before placing pods, so nothing
  // is remembered (the first NodeClaim still stops the solve).
  auto& pool = *env.pools.front();
  pool.limits = pool.limits.value_or(model::Resources{});
  pool.limits->v.fill(std::numeric_limits<std::int64_t>::max());
  (*pool.limits)[model::k_cpu] = 1000 * 1000;
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits);
  pool.limits.reset(); // the remembered stop holds again
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits + 2);

  // The pool turns on-demand only: a replacement may be on-demand, the solve does not stop.
  pool.requirements.add(req(k_ct, Operator::in, {"on-demand"}));
  const auto on_demand = early_checked(env, candidate);
  CHECK_FALSE(on_demand.stopped);
  CHECK(on_demand.claims.size() == 1);
  CHECK(env.cache.veto_memo_hits() == hits + 2);
}

// A small cluster that changes between solves of the same candidates: pods come and go on every
// node and pending (some requiring on-demand), nodes join, nodes become Ready, the pool's capacity
// types change. In a third of the clusters the pool is on-demand only, so only stops on nodes
// that are not Ready are remembered.
class ChangingCluster
{
public:
  explicit ChangingCluster(Random& next)
      : env(catalog_with_spot(10, [](int i) { return i < 8 ? 7U : 3U; })), m_next(next)
  {
    add_spot_pool(env, next(3) != 0);
    on_demand = next(3) == 0;
    if (on_demand) {
      env.pools.front()->requirements.erase(k_ct);
      env.pools.front()->requirements.add(req(k_ct, Operator::in, {"on-demand"}));
    }
    for (int i = 0; i < 4; ++i) {
      add_node(1000 + 1000 * static_cast<std::int64_t>(next(4)));
    }
    for (int i = 0; i < 10; ++i) {
      bind_some(nodes[next(nodes.size())]);
    }
  }

  void step()
  {
    auto& next = m_next;
    switch (next(9)) {
    case 0: { // a pod leaves a node
      const auto& pods = env.cluster.node(nodes[next(nodes.size())]).pods;
      if (!pods.empty()) {
        env.remove(pods[next(pods.size())]);
      }
      break;
    }
    case 1: bind_some(nodes[next(nodes.size())]); break;
    case 2:
      if (next(3) == 0) {
        PodOptions o = cpu(250 * static_cast<std::int64_t>(1 + next(16)));
        if (next(3) == 0) {
          o.node_selector = {{k_ct, "on-demand"}};
        }
        env.pod(o);
      } else {
        env.delete_unscheduled();
      }
      break;
    case 3:
      if (next(4) == 0) {
        add_node(500 * static_cast<std::int64_t>(1 + next(6)));
      }
      break;
    case 4:
      if (next(4) == 0 && !on_demand) {
        auto& pool = *env.pools.front();
        pool.requirements.erase(k_ct);
        pool.requirements.add(req(k_ct, Operator::in, next(3) == 0 ? std::vector<std::string>{"on-demand"}
                                                                    : std::vector<std::string>{"spot", "on-demand"}));
      }
      break;
    case 5: { // a node becomes Ready
      const auto n = nodes[next(nodes.size())];
      if (env.cluster.node(n).lifecycle != cluster::NodeLifecycle::ready) {
        env.cluster.node_mut(n).lifecycle = cluster::NodeLifecycle::ready;
      }
      break;
    }
    default: break; // the same cluster again
    }
  }

  // Sixty such clusters of thirty steps each, drawn from `seed`: `each` for every node with pods
  // after every step, `done` once per cluster.
  static void run(std::uint64_t seed, const std::function<void(ChangingCluster&, cluster::NodeIndex)>& each,
                  const std::function<void(ChangingCluster&)>& done = {})
  {
    Random next(seed);
    for (int round = 0; round < 60; ++round) {
      CAPTURE(round);
      ChangingCluster c(next);
      for (int step = 0; step < 30; ++step) {
        CAPTURE(step);
        c.step();
        for (const auto n : c.nodes) {
          if (!c.env.cluster.node(n).pods.empty()) {
            each(c, n);
          }
        }
      }
      if (done) {
        done(c);
      }
    }
  }

  Env env;
  std::vector<cluster::NodeIndex> nodes;
  bool on_demand = false;

private:
  Random& m_next;

  void add_node(std::int64_t milli)
  {
    const auto lifecycle = m_next(3) == 0 ? cluster::NodeLifecycle::registered : cluster::NodeLifecycle::ready;
    nodes.push_back(env.node("node-" + std::to_string(nodes.size()), {}, allocatable(milli), lifecycle));
  }
  void bind_some(cluster::NodeIndex n) { env.bind(env.pod(cpu(250 * static_cast<std::int64_t>(1 + m_next(8)))), n); }
};

TEST_CASE("stop_on_delete_veto: remembered stops agree with fresh solves over changing clusters",
          "[karpenter][solve][consolidation]")
{
  // Every solve over the shared cache must equal the same solve over a fresh one.
  int stopped = 0;
  int ran = 0;
  std::size_t hits = 0;
  std::size_t on_demand_hits = 0;
  ChangingCluster::run(
      987654321, [&](ChangingCluster& c, cluster::NodeIndex n) { (early_checked(c.env, n).stopped ? stopped : ran) += 1; },
      [&](ChangingCluster& c) {
        hits += c.env.cache.veto_memo_hits();
        if (c.on_demand) {
          on_demand_hits += c.env.cache.veto_memo_hits();
        }
      });
  // Every path was taken: remembered stops of both kinds, full stops and full runs.
  CHECK(hits > 500);
  CHECK(on_demand_hits > 100);
  CHECK(stopped > static_cast<int>(hits) + 200);
  CHECK(ran > 200);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on a node that is not Ready holds while that node comes first",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(500));
  const auto launching = env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::registered);
  env.bind(env.pod(cpu(1000)), candidate);
  env.bind(env.pod(cpu(200)), candidate);

  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 1);

  // A smaller pending pod queues after the candidate's first pod: the same answer.
  const auto small = env.pod(cpu(100));
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 2);
  env.remove(small);

  // A larger pending pod queues first: placed again first (on the launching node: a pending pod
  // vetoes nothing), then the candidate's pod goes there too: the same answer.
  const auto large = env.pod(cpu(1500));
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 3);
  env.remove(large);
  // One that takes most of the launching node's room: the candidate's pod needs a NodeClaim
  // (on-demand), the solve does not stop.
  const auto larger = env.pod(cpu(3500));
  const auto claimed = early_checked(env, candidate);
  CHECK_FALSE(claimed.stopped);
  CHECK(claimed.claims.size() == 1);
  CHECK(env.cache.veto_memo_hits() == 3);
  env.remove(larger);
  CHECK(early_checked(env, candidate).stopped);
  const auto hits = env.cache.veto_memo_hits();

  // The node becomes Ready: the pods move there and the solve runs to its end.
  env.cluster.node_mut(launching).lifecycle = cluster::NodeLifecycle::ready;
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  CHECK(moved.claims.empty());
  REQUIRE(moved.existing.size() == 2);
  CHECK(moved.existing.front().node == launching);
  CHECK(env.cache.veto_memo_hits() == hits);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on a node that is not Ready needs room there in every resource",
          "[karpenter][solve][consolidation]")
{
  // The free-capacity index sees CPU, memory and pods only; the node's last GPU is taken.
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  auto with_gpu = allocatable(4000);
  with_gpu[model::k_nvidia_gpu] = 1;
  const auto launching = env.node("launching", {}, with_gpu, cluster::NodeLifecycle::registered);
  PodOptions gpu = cpu(1000);
  gpu.extended = {{"nvidia.com/gpu", 1}};
  env.bind(env.pod(gpu), candidate);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  env.bind(env.pod(gpu), launching);
  for (int again = 0; again < 2; ++again) { // the second over a current snapshot
    const auto full = early_checked(env, candidate);
    CHECK_FALSE(full.stopped);
    CHECK(full.existing.empty());
    CHECK(full.errors.size() == 1); // no instance type has a GPU
  }
  CHECK(env.cache.veto_memo_hits() == 1);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on a node that is not Ready ends when its pool's startup taints change",
          "[karpenter][solve][consolidation]")
{
  // The launching node carries a taint its NodePool lists as a startup taint, so while it is not
  // initialized pods are placed as if it were gone.
  Env env(testing::fake_instance_types(10));
  auto& pool = add_on_demand_pool(env);
  const model::Taint startup{"example.com/booting", "", model::TaintEffect::no_schedule};
  pool.startup_taints = {startup};
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto launching = env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::registered, 0U);
  env.cluster.node_mut(launching).taints = {startup};
  env.bind(env.pod(cpu(1000)), candidate);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  // No longer a startup taint: the pod cannot go there, it needs a NodeClaim (on-demand).
  pool.startup_taints.clear();
  for (int again = 0; again < 2; ++again) { // the second over a current snapshot
    const auto full = early_checked(env, candidate);
    CHECK_FALSE(full.stopped);
    CHECK(full.existing.empty());
    CHECK(full.claims.size() == 1);
  }
  CHECK(env.cache.veto_memo_hits() == 1);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on a node that is not Ready follows the first such node the pod goes to",
          "[karpenter][solve][consolidation]")
{
  // Nodes that are not initialized come after the others, by name: a new one named first takes
  // the pod instead; the answer holds as long as the pod goes, as written, to a node that is not
  // Ready.
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(500));
  const auto second = env.node("launching-b", {}, allocatable(4000), cluster::NodeLifecycle::registered);
  env.bind(env.pod(cpu(1000)), candidate);
  const auto refresh = [&env] { (void)solve(env.input()); };
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  const auto first = env.node("launching-a", {}, allocatable(4000), cluster::NodeLifecycle::launching);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 2);
  env.cluster.node_mut(first).lifecycle = cluster::NodeLifecycle::registered; // a new stamp
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 3);

  // A taint the pod does not tolerate on the first node the index offers: the solves run in full
  // (and with launching-b full, the pod needs a NodeClaim, on-demand: no stop).
  env.cluster.node_mut(first).taints = {model::Taint{"example.com/special", "", model::TaintEffect::no_schedule}};
  refresh();
  CHECK(early_checked(env, candidate).stopped); // on launching-b
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 3);
  const auto filler = env.pod(cpu(3500));
  env.bind(filler, second);
  refresh();
  const auto claimed = early_checked(env, candidate);
  CHECK_FALSE(claimed.stopped);
  CHECK(claimed.claims.size() == 1);
  CHECK(env.cache.veto_memo_hits() == 3);
  env.remove(filler);

  // launching-a becomes Ready and the pod goes there as written: no stop.
  env.cluster.node_mut(first).taints.clear();
  env.cluster.node_mut(first).lifecycle = cluster::NodeLifecycle::ready;
  refresh();
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 1);
  CHECK(moved.existing.front().node == first);
  CHECK(env.cache.veto_memo_hits() == 3);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on a node that is not Ready becomes a stop on no room",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  env.node("other", {}, allocatable(500));
  const auto launching = env.node("launching", {}, allocatable(1500), cluster::NodeLifecycle::registered);
  env.bind(env.pod(cpu(1000)), candidate);
  const auto refresh = [&env] { (void)solve(env.input()); };
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  // The node that is not Ready fills up: the pod fits nowhere, so the solve stops before placing.
  const auto filler = env.pod(cpu(1000));
  env.bind(filler, launching);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 2);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 3);

  // Room again, on the Ready node: the pod moves there.
  env.remove(filler);
  env.cluster.node_mut(launching).lifecycle = cluster::NodeLifecycle::ready;
  refresh();
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 1);
  CHECK(moved.existing.front().node == launching);
  CHECK(env.cache.veto_memo_hits() == 3);
}

namespace {

// A candidate of two pods (1500m, then 2500m) that fit on no other node: the other node has
// 2000m, 1000m of it taken by a filler pod. The first pod is the first witness of a no-room stop.
struct TwoWitnesses
{
  Env env{testing::fake_instance_types(10)};
  cluster::NodeIndex candidate = 0;
  cluster::NodeIndex other = 0;
  cluster::PodIndex filler = 0;
  cluster::PodIndex larger = 0;

  TwoWitnesses()
  {
    add_spot_pool(env, true);
    candidate = env.node("candidate", {}, allocatable(8000));
    other = env.node("other", {}, allocatable(2000));
    filler = env.pod(cpu(1000));
    env.bind(filler, other);
    env.bind(env.pod(cpu(1500)), candidate);
    larger = env.pod(cpu(2500));
    env.bind(larger, candidate);
  }

  // The first solve stops; then the other node has room for 1500m, not for 2500m: the larger pod
  // is the stop's witness, answered before the solve.
  [[nodiscard]] bool larger_is_witness()
  {
    const bool stopped = early_checked(env, candidate).stopped;
    env.remove(filler);
    refresh();
    return stopped && quick_stop(env, candidate);
  }

  void refresh() { (void)solve(env.input()); } // (brings the cache's snapshot up to date)

  // No remembered stop answers, and the solve moves the candidate's pods.
  [[nodiscard]] SolveResult moved_by_solve()
  {
    CHECK_FALSE(quick_stop(env, candidate));
    auto moved = early_checked(env, candidate);
    CHECK_FALSE(moved.stopped);
    return moved;
  }

  // The remembered stop answers before the solve (a memo hit), again from the record it leaves,
  // and the solve stops too.
  void check_answered_before_solve()
  {
    const auto hits = env.cache.veto_memo_hits();
    CHECK(quick_stop(env, candidate));
    CHECK(env.cache.veto_memo_hits() == hits + 1);
    CHECK(quick_stop(env, candidate));
    CHECK(early_checked(env, candidate).stopped);
  }
};

} // namespace

TEST_CASE("stop_on_delete_veto: a remembered stop on no room takes another of the candidate's pods that fits nowhere",
          "[karpenter][solve][consolidation]")
{
  TwoWitnesses w;
  auto& env = w.env;
  const auto candidate = w.candidate;
  const auto other = w.other;
  const auto filler = w.filler;
  const auto refresh = [&env] { (void)solve(env.input()); };
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  // Room for 1500m elsewhere, not for 2500m: the larger pod is the witness now.
  env.remove(filler);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 2);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 3);

  // The larger pod leaves the candidate: the smaller one fits on the other node.
  env.remove(env.cluster.node(candidate).pods.back());
  refresh();
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 1);
  CHECK(moved.existing.front().node == other);
  CHECK(env.cache.veto_memo_hits() == 3);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on a node that is not Ready needs the pod's requirements met there",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto second = env.node("launching-b", {{"example.com/tier", "a"}}, allocatable(4000),
                               cluster::NodeLifecycle::registered);
  PodOptions tier = cpu(1000);
  tier.node_selector = {{"example.com/tier", "a"}};
  env.bind(env.pod(tier), candidate);
  const auto refresh = [&env] { (void)solve(env.input()); };
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  // A node without the label comes first: the pod still goes to launching-b, found by a full solve.
  env.node("launching-a", {}, allocatable(4000), cluster::NodeLifecycle::registered);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 1);
  // With launching-b full, the pod fits nowhere (no NodeClaim can have the label): no stop.
  env.bind(env.pod(cpu(3500)), second);
  refresh();
  const auto failed = early_checked(env, candidate);
  CHECK_FALSE(failed.stopped);
  CHECK(failed.errors.size() == 1);
  CHECK(env.cache.veto_memo_hits() == 1);
}

TEST_CASE("stop_on_delete_veto: a remembered stop ends when its pod is evicted and pending again",
          "[karpenter][solve][consolidation]")
{
  // A pending pod placed on a node that is not Ready does not veto anything.
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto other = env.node("other", {}, allocatable(500));
  env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::registered);
  const auto first = env.pod(cpu(1000));
  env.bind(first, candidate);
  env.bind(env.pod(cpu(500)), candidate);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  env.cluster.unbind(first, env.now);
  env.cluster.set_pending(first, env.now);
  (void)solve(env.input());
  const auto ran = early_checked(env, candidate);
  CHECK_FALSE(ran.stopped);
  REQUIRE(ran.existing.size() == 2);
  CHECK(ran.existing.back().node == other); // the candidate's pod; the pending one went first
  CHECK(env.cache.veto_memo_hits() == 1);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on no room takes no witness that is pending again",
          "[karpenter][solve][consolidation]")
{
  // Moved pods skip nodes inside their consolidateAfter window; pending pods do not. "quiet" had
  // a pod event just now, "other" an hour ago.
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true).consolidate_after = 600 * k_second;
  env.now = 7200 * k_second;
  const auto candidate = env.node("candidate", {}, allocatable(8000), cluster::NodeLifecycle::ready, 0U);
  const auto other = env.node("other", {}, allocatable(2000), cluster::NodeLifecycle::ready, 0U);
  const auto quiet = env.node("quiet", {}, allocatable(3000), cluster::NodeLifecycle::ready, 0U);
  const auto filler = env.pod(cpu(1000));
  env.bind(filler, other);
  env.bind(env.pod(cpu(1500)), candidate); // the witness
  const auto large = env.pod(cpu(2500));
  env.bind(large, candidate);
  const auto settle = [&env](cluster::NodeIndex n, SimTime at) { env.cluster.node_mut(n).last_pod_event = at; };
  settle(candidate, 0);
  settle(other, env.now - 3600 * k_second);
  settle(quiet, env.now);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  // The witness has room now; the large pod, pending again, goes to the quiet node.
  env.remove(filler);
  env.cluster.unbind(large, env.now);
  env.cluster.set_pending(large, env.now);
  settle(candidate, 0);
  settle(other, env.now - 3600 * k_second);
  (void)solve(env.input());
  const auto ran = early_checked(env, candidate);
  CHECK_FALSE(ran.stopped);
  REQUIRE(ran.existing.size() == 2);
  CHECK(ran.existing.front().node == quiet);
  CHECK(ran.existing.back().node == other);
  CHECK(env.cache.veto_memo_hits() == 1);
}

TEST_CASE("stop_on_delete_veto: a remembered stop on a node that is not Ready places the pods queued before it again",
          "[karpenter][solve][consolidation]")
{
  // The candidate's larger pod goes to a Ready node first; the smaller one then finds room only on
  // the node that is not Ready.
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto other = env.node("other", {}, allocatable(2600));
  const auto launching = env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::registered);
  const auto filler = env.pod(cpu(1000));
  env.bind(filler, other);
  env.bind(env.pod(cpu(1500)), candidate);
  env.bind(env.pod(cpu(1000)), candidate);
  const auto refresh = [&env] { (void)solve(env.input()); };
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);
  CHECK(early_checked(env, candidate).stopped); // the replay's placements were undone
  CHECK(env.cache.veto_memo_hits() == 2);

  // A pending pod queued between the two takes the rest of the Ready node: the same answer.
  const auto between = env.pod(cpu(1200));
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 3);
  env.remove(between);

  // The Ready node fills up: the larger pod itself goes to the node that is not Ready.
  const auto full = env.pod(cpu(1500));
  env.bind(full, other);
  refresh();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == 4);
  env.remove(full);

  // Room for both on the Ready node: no stop.
  env.remove(filler);
  refresh();
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 2);
  CHECK(moved.existing.front().node == other);
  CHECK(moved.existing.back().node == other);
  CHECK(env.cache.veto_memo_hits() == 4);
  (void)launching;
}

// A candidate with a 1-CPU pod, a Ready node with 0.6 CPU free and a node that is not Ready with 4
// CPUs: deleting the candidate moves its pod to the node that is not Ready.
struct NotReadyStop
{
  explicit NotReadyStop(std::int64_t candidate_cpu) : env(testing::fake_instance_types(10))
  {
    add_on_demand_pool(env);
    candidate = env.node("candidate", {}, allocatable(candidate_cpu));
    other = env.node("other", {}, allocatable(2600));
    launching = env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::registered);
    filler = env.pod(cpu(2000));
    env.bind(filler, other);
    env.bind(env.pod(cpu(1000)), candidate);
  }

  // The first solve stops and remembers the stop, which then answers before the solve.
  [[nodiscard]] bool remembered() { return early_checked(env, candidate).stopped && quick_stop(env, candidate); }

  Env env;
  cluster::NodeIndex candidate = 0;
  cluster::NodeIndex other = 0;
  cluster::NodeIndex launching = 0;
  cluster::PodIndex filler = 0;
};

TEST_CASE("remembered_stop_holds: a stop is answered before the solve while it holds as remembered",
          "[karpenter][solve][consolidation]")
{
  // The candidate's pod has no room on the Ready node and goes to the node that is not Ready.
  NotReadyStop c(2000);
  auto& env = c.env;
  const auto candidate = c.candidate;
  const auto other = c.other;
  const auto filler = c.filler;
  CHECK_FALSE(quick_stop(env, candidate)); // nothing remembered yet
  CHECK(early_checked(env, candidate).stopped);
  CHECK(quick_stop(env, candidate));
  CHECK(env.cache.veto_memo_hits() == 1);

  // A pending pod queued before it goes first, to the node that is not Ready, and leaves room
  // there: the same answer, with the pending pod placed once for every candidate.
  const auto between = env.pod(cpu(1100));
  CHECK(quick_stop(env, candidate));
  CHECK(early_checked(env, candidate).stopped);
  env.remove(between);
  // One that leaves no room there: the solve answers (a NodeClaim for the pod).
  const auto big = env.pod(cpu(3500));
  CHECK_FALSE(quick_stop(env, candidate));
  CHECK_FALSE(early_checked(env, candidate).stopped);
  env.remove(big);
  CHECK(quick_stop(env, candidate));

  // A pod joins the candidate: its pod list changed, so this check declines and the solve's check
  // of the remembered stop answers (with the pod as one of the others), then takes the new list.
  const auto joined = env.pod(cpu(500));
  env.bind(joined, candidate);
  (void)solve(env.input());
  CHECK_FALSE(quick_stop(env, candidate));
  const auto hits = env.cache.veto_memo_hits();
  CHECK(early_checked(env, candidate).stopped);
  CHECK(env.cache.veto_memo_hits() == hits + 1);
  CHECK(quick_stop(env, candidate));
  env.remove(joined);
  (void)solve(env.input());
  CHECK(early_checked(env, candidate).stopped); // the list changed back: taken again
  CHECK(quick_stop(env, candidate));
  // A pod that queues before the stop pod joins (as much CPU, more memory): the stop keeps its
  // list (that pod would be a prefix, placed again by each check).
  PodOptions larger = cpu(1000);
  larger.memory = 1024LL * 1024 * 1024;
  const auto before_stop = env.pod(larger);
  env.bind(before_stop, candidate);
  (void)solve(env.input());
  CHECK(early_checked(env, candidate).stopped);
  CHECK_FALSE(quick_stop(env, candidate));
  env.remove(before_stop);
  (void)solve(env.input());
  env.bind(env.pod(cpu(500)), candidate);
  (void)solve(env.input());

  // Room on the Ready node: the check does not answer, the solve moves the pods there.
  env.remove(filler);
  (void)solve(env.input());
  CHECK_FALSE(quick_stop(env, candidate));
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 2);
  CHECK(moved.existing.front().node == other);
}

TEST_CASE("remembered_stop_holds: a stop whose node changed is checked as written there",
          "[karpenter][solve][consolidation]")
{
  NotReadyStop c(2000);
  REQUIRE(c.remembered());
  auto& env = c.env;
  const auto candidate = c.candidate;
  // The node changes (its labels or taints may have): the pod is checked there as written, and
  // the stop now rests on the node as it is.
  (void)env.cluster.node_mut(c.launching);
  (void)solve(env.input()); // (another candidate's solve brings the snapshot up to date)
  CHECK(quick_stop(env, candidate));
  CHECK(quick_stop(env, candidate));
  CHECK(early_checked(env, candidate).stopped);
  // A taint the pod does not tolerate: left to the solve, which moves the pod to a NodeClaim.
  env.cluster.node_mut(c.launching).taints = {model::Taint{"example.com/special", "", model::TaintEffect::no_schedule}};
  (void)solve(env.input());
  CHECK_FALSE(quick_stop(env, candidate));
  CHECK_FALSE(early_checked(env, candidate).stopped);
}

TEST_CASE("remembered_stop_holds: a pending pod whose first fit is the candidate is left to the solve",
          "[karpenter][solve][consolidation]")
{
  NotReadyStop c(4000);
  REQUIRE(c.remembered());
  auto& env = c.env;
  const auto candidate = c.candidate;
  // Queued first and placed first: on the candidate itself in a replay that excludes no node.
  env.pod(cpu(1100));
  CHECK_FALSE(quick_stop(env, candidate));
  CHECK(early_checked(env, candidate).stopped); // the solve's check excludes the candidate
}

TEST_CASE("remembered_stop_holds: a stop on no room takes another of the candidate's pods that fits nowhere",
          "[karpenter][solve][consolidation]")
{
  TwoWitnesses w;
  auto& env = w.env;
  const auto candidate = w.candidate;
  const auto refresh = [&env] { (void)solve(env.input()); };
  CHECK(early_checked(env, candidate).stopped);
  CHECK(quick_stop(env, candidate));

  // Room for 1500m elsewhere, not for 2500m: answered before the solve, the larger pod the
  // witness now (the record follows it, so the next check finds it first).
  env.remove(w.filler);
  refresh();
  CHECK(quick_stop(env, candidate));
  CHECK(quick_stop(env, candidate));
  CHECK(early_checked(env, candidate).stopped);

  // A node with room for both: no witness, and the solve moves the pods.
  const auto roomy = env.node("roomy", {}, allocatable(8000));
  refresh();
  CHECK_FALSE(quick_stop(env, candidate));
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 2);
  CHECK(std::any_of(moved.existing.begin(), moved.existing.end(), [&](const Placement& p) { return p.node == roomy; }));
}

TEST_CASE("remembered_stop_holds: a stop on no room whose pod left takes another remembered pod that fits nowhere",
          "[karpenter][solve][consolidation]")
{
  TwoWitnesses w;
  REQUIRE(w.larger_is_witness());
  // The room goes again, then the larger pod leaves the candidate: the smaller one, remembered
  // too and still bound there, fits nowhere else (the record lists the pods that stayed then).
  const auto filler = w.env.pod(cpu(1000));
  w.env.bind(filler, w.other);
  w.env.remove(w.larger);
  w.refresh();
  w.check_answered_before_solve();
  // Room for it too: nothing fits nowhere, and the solve moves it.
  w.env.remove(filler);
  w.refresh();
  const auto moved = w.moved_by_solve();
  REQUIRE(moved.existing.size() == 1);
  CHECK(moved.existing.front().node == w.other);
}

TEST_CASE("remembered_stop_holds: a stop on no room takes a pod that joined the candidate and fits nowhere",
          "[karpenter][solve][consolidation]")
{
  TwoWitnesses w;
  REQUIRE(w.larger_is_witness());
  // The larger pod leaves and a 3000m pod joins: the remembered pod left has room elsewhere, the
  // one that joined has none (the record lists it then).
  w.env.remove(w.larger);
  w.env.bind(w.env.pod(cpu(3000)), w.candidate);
  w.refresh();
  w.check_answered_before_solve();
  // A node with room for both: no witness, and the solve moves the pods.
  const auto roomy = w.env.node("roomy", {}, allocatable(8000));
  w.refresh();
  const auto moved = w.moved_by_solve();
  REQUIRE(moved.existing.size() == 2);
  CHECK(std::any_of(moved.existing.begin(), moved.existing.end(), [&](const Placement& p) { return p.node == roomy; }));
}

TEST_CASE("spec data: whether a pod makes topology groups, and whether all are over zones and hostnames",
          "[karpenter][solve][consolidation]")
{
  // What the pre-check reads of a pod's topology (prepare_topology_shape), and a remembered
  // no-room stop with it: the groups a solve makes, less the preferences it ignores.
  Env env;
  Interner in;
  const model::Labels app{{"app", "s"}};
  const auto data = [&](const PodOptions& o, bool ignore_preferences) {
    const auto d = make_spec_data(env.spec(o), ignore_preferences, false, in);
    return std::pair(d.makes_topology_groups, d.zone_only_topology);
  };
  PodOptions plain = cpu(100);
  CHECK(data(plain, false) == std::pair(false, true));

  PodOptions zonal = plain;
  zonal.spread = {spread(k_zone, app)};
  zonal.pod_anti_requirements = {affinity_term(k_host, app)};
  CHECK(data(zonal, false) == std::pair(true, true));

  PodOptions by_type = plain;
  by_type.spread = {spread(k_ct, app)};
  CHECK(data(by_type, false) == std::pair(true, false));
  by_type.spread = {spread(k_ct, app, 1, false)}; // ScheduleAnyway: a preference
  CHECK(data(by_type, false) == std::pair(true, false));
  CHECK(data(by_type, true) == std::pair(false, true));

  PodOptions preferring = zonal;
  preferring.pod_preferences = {{1, affinity_term(k_arch, app)}};
  CHECK(data(preferring, false) == std::pair(true, false));
  CHECK(data(preferring, true) == std::pair(true, true));
}

TEST_CASE("remembered_stop_holds: a no-room stop of pods with topology over zones and hostnames is remembered",
          "[karpenter][solve][consolidation]")
{
  // The pre-check stops whatever the counts (a pod that fits no other node goes to a NodeClaim
  // narrowed by zones only), so the stop is remembered; with a group over another key the
  // pre-check does not apply and nothing is remembered.
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto other = env.node("other", {}, allocatable(2000));
  env.bind(env.pod(cpu(1000)), other);
  const model::Labels app{{"app", "s"}};
  PodOptions zonal = cpu(2500); // fits nowhere else
  zonal.labels = app;
  zonal.spread = {spread(k_zone, app)};
  zonal.pod_anti_preferences = {{1, affinity_term(k_host, app)}};
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  env.bind(env.pod(zonal), candidate);
  env.bind(env.pod(zonal), other); // counted in the groups: the counts differ from none
  CHECK(early_checked(env, candidate).stopped);
  CHECK(quick_stop(env, candidate));

  PodOptions by_type = zonal;
  by_type.spread = {spread(k_ct, app)};
  const auto typed = env.node("typed", {}, allocatable(8000));
  env.bind(env.pod(by_type), typed);
  (void)early_checked(env, typed);
  CHECK_FALSE(quick_stop(env, typed));
}

TEST_CASE("remembered_stop_holds: a stop on no room holds on a changed pod list while its pod stays",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  const auto other = env.node("other", {}, allocatable(2000));
  env.bind(env.pod(cpu(1000)), other);
  const auto stop = env.pod(cpu(2500)); // fits nowhere else
  env.bind(stop, candidate);
  const auto refresh = [&env] { (void)solve(env.input()); };
  CHECK(early_checked(env, candidate).stopped);
  CHECK(quick_stop(env, candidate));
  const auto hits = env.cache.veto_memo_hits();

  // Pods join and leave: answered before the solve, each time taking the new list.
  const auto joined = env.pod(cpu(200));
  env.bind(joined, candidate);
  refresh();
  CHECK(quick_stop(env, candidate));
  CHECK(quick_stop(env, candidate));
  CHECK(env.cache.veto_memo_hits() == hits + 2);
  CHECK(early_checked(env, candidate).stopped);
  env.remove(joined);
  refresh();
  CHECK(quick_stop(env, candidate));
  CHECK(env.cache.veto_memo_hits() == hits + 4);

  // A joining pod with topology over zones is answered before the solve too (the pre-check
  // takes such groups: narrowed_by_zone_only); one over another key is left to the solve.
  PodOptions spread_pod = cpu(200);
  spread_pod.labels = {{"app", "s"}};
  spread_pod.spread = {spread(k_zone, {{"app", "s"}})};
  const auto spreading = env.pod(spread_pod);
  env.bind(spreading, candidate);
  refresh();
  CHECK(quick_stop(env, candidate));
  CHECK(env.cache.veto_memo_hits() == hits + 5);
  CHECK(early_checked(env, candidate).stopped);
  env.remove(spreading);
  PodOptions type_spread_pod = spread_pod;
  type_spread_pod.spread = {spread(k_ct, {{"app", "s"}})};
  const auto type_spreading = env.pod(type_spread_pod);
  env.bind(type_spreading, candidate);
  refresh();
  CHECK_FALSE(quick_stop(env, candidate));
  (void)early_checked(env, candidate);
  env.remove(type_spreading);
  refresh();
  (void)early_checked(env, candidate);

  // The stop pod leaves (another one stays): left to the solve, which moves the rest.
  const auto stays = env.pod(cpu(300));
  env.bind(stays, candidate);
  env.remove(stop);
  refresh();
  CHECK_FALSE(quick_stop(env, candidate));
  const auto moved = early_checked(env, candidate);
  CHECK_FALSE(moved.stopped);
  REQUIRE(moved.existing.size() == 1);
  CHECK(moved.existing.front().node == other);
}

namespace {

// A fake instance type with `cpu_milli` of CPU, `gib` GiB of memory and room for 110 pods.
catalog::InstanceType sized_type(const std::string& name, std::int64_t cpu_milli, std::int64_t gib)
{
  testing::FakeTypeOptions o;
  o.cpu_milli = cpu_milli;
  o.memory = gib * k_gib;
  o.pods = 110;
  return testing::fake_instance_type(name, o);
}

// The candidate's stop on no room, once solved and remembered, still answers before the solve with
// the pending pods `within` (the spot option it found has room for them and the candidate's pods);
// with `beyond` pending as well no spot option has room for every pod, and neither the check nor
// the pre-check answers; with them gone it answers again.
void check_spot_box(Env& env, cluster::NodeIndex candidate, const std::vector<PodOptions>& within,
                    const PodOptions& beyond)
{
  CHECK(early_checked(env, candidate).stopped);
  CHECK(quick_stop(env, candidate));
  std::vector<cluster::PodIndex> pending;
  for (const auto& o : within) {
    pending.push_back(env.pod(o));
  }
  CHECK(quick_stop(env, candidate));
  CHECK(early_checked(env, candidate).stopped);
  pending.push_back(env.pod(beyond));
  CHECK_FALSE(quick_stop(env, candidate));
  CHECK_FALSE(early_checked(env, candidate).stopped);
  for (const auto p : pending) {
    env.remove(p);
  }
  CHECK(early_checked(env, candidate).stopped);
  CHECK(quick_stop(env, candidate));
}

} // namespace

TEST_CASE("remembered_stop_holds: a stop on no room holds while the pods fit the spot options it found",
          "[karpenter][solve][consolidation]")
{
  // Spot in every zone on fake-it-0..7 (1-8 CPUs), on the two largest in zones 1 and 2 only; the
  // pool may use zones 1 and 2: NodeClaims keep spot while some type with spot has room for every
  // pod of the solve, up to 10 CPUs.
  Env env(catalog_with_spot(10, [](int i) { return i < 8 ? 7U : 3U; }));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  env.node("other", {}, allocatable(1000));
  env.bind(env.pod(cpu(2000)), candidate);
  // Pending pods that ask for more than the stop remembered, less than the largest spot option's
  // room, then one beyond every spot option.
  check_spot_box(env, candidate, {cpu(3000), cpu(3000)}, cpu(3500));
}

TEST_CASE("remembered_stop_holds: a stop on no room keeps the spot option with room when the one with the most CPU "
          "has none",
          "[karpenter][solve][consolidation]")
{
  // Two types with spot in zones 1 and 2: "wide" (8 CPUs, 4 GiB) and "tall" (4 CPUs, 32 GiB). The
  // candidate's pod asks for 2 CPUs and 8 GiB: only "tall" has room for it, so NodeClaims keep spot
  // while the pods fit "tall", not "wide" (the type with the most CPU).
  Env env({sized_type("wide", 8000, 4), sized_type("tall", 4000, 32)});
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  env.node("other", {}, allocatable(1000));
  PodOptions big = cpu(2000);
  big.memory = 8 * capsim::k_gib;
  env.bind(env.pod(big), candidate);
  // A pending pod within "tall"'s room (3 CPUs, 9 GiB in all), then one beyond its CPUs (4.5).
  PodOptions small = cpu(1000);
  small.memory = capsim::k_gib;
  check_spot_box(env, candidate, {small}, cpu(1500));
}

TEST_CASE("remembered_stop_holds: a stop on no room holds past the spot option it found while another has room",
          "[karpenter][solve][consolidation]")
{
  // "wide" (8 CPUs, 8 GiB) and "tall" (4 CPUs, 32 GiB), spot in zones 1 and 2. The candidate's pod
  // (2 CPUs, 1 GiB) fits both: the stop remembers the room of "wide", the type with the most CPU.
  // A pending pod of 12 GiB takes the pods past "wide"'s memory, within "tall"'s room: NodeClaims
  // still keep spot, so the remembered check answers without the solve, as the solve does.
  Env env({sized_type("wide", 8000, 8), sized_type("tall", 4000, 32)});
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  env.node("other", {}, allocatable(1000));
  PodOptions own = cpu(2000);
  own.memory = capsim::k_gib;
  env.bind(env.pod(own), candidate);
  // Then one beyond "tall"'s CPUs (4.5 in all) while "wide" lacks the memory: no spot option has room.
  PodOptions tall_only = cpu(1000);
  tall_only.memory = 12 * capsim::k_gib;
  check_spot_box(env, candidate, {tall_only}, cpu(1500));
}

TEST_CASE("remembered_stop_holds: a stop on no room keeps its bound when one zone has no spot option with room",
          "[karpenter][solve][consolidation]")
{
  // Spot on fake-it-0..7 (1-8 CPUs) in zones 1 and 2, on fake-it-8..9 (9-10 CPUs) in zone 1 only.
  // Pods of 9 CPUs in all fit a spot option in zone 1, none in zone 2: the check past the bound
  // fails, and the bound stays that of the 8-CPU option (a bound taken from zone 1 alone would let
  // 9.6 CPUs through once the entry is written again).
  Env env(catalog_with_spot(10, [](int i) { return i < 8 ? 3U : 1U; }));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  env.node("other", {}, allocatable(1000));
  env.bind(env.pod(cpu(2000)), candidate);
  const auto refresh = [&env] { (void)solve(env.input()); }; // (the cache's snapshot of the nodes)
  CHECK(early_checked(env, candidate).stopped);
  const auto first = env.pod(cpu(7000));
  CHECK_FALSE(quick_stop(env, candidate));
  env.remove(first);
  env.bind(env.pod(cpu(100)), candidate);
  refresh();
  CHECK(quick_stop(env, candidate)); // (the entry takes the longer list)
  (void)env.pod(cpu(7500));
  CHECK_FALSE(quick_stop(env, candidate));
  CHECK_FALSE(early_checked(env, candidate).stopped);
}

TEST_CASE("remembered_stop_holds: a stop on no room leaves the room of the candidate's pods that left to pending pods",
          "[karpenter][solve][consolidation]")
{
  // Spot on fake-it-0..9 (1-10 CPUs) in zones 1 and 2. The candidate's pods ask 2 + 3 CPUs, and
  // neither fits the other node. Once the 3-CPU pod has left, a pending pod of 6 CPUs makes 8 in
  // all: within the largest spot option, so the solve still stops, and the remembered check,
  // which counted the pod that left too (11), now agrees without the solve.
  Env env(catalog_with_spot(10, [](int) { return 7U; }));
  add_spot_pool(env, true);
  const auto candidate = env.node("candidate", {}, allocatable(8000));
  env.node("other", {}, allocatable(1000));
  env.bind(env.pod(cpu(2000)), candidate);
  const auto leaving = env.pod(cpu(3000));
  env.bind(leaving, candidate);
  const auto refresh = [&env] { (void)solve(env.input()); }; // (the cache's snapshot of the nodes)
  CHECK(early_checked(env, candidate).stopped);
  CHECK(quick_stop(env, candidate));
  env.remove(leaving);
  refresh();
  CHECK(quick_stop(env, candidate)); // (the entry takes the shorter list)
  const auto pending = env.pod(cpu(6000));
  CHECK(quick_stop(env, candidate));
  CHECK(early_checked(env, candidate).stopped);
  // Past every spot option (10.5 CPUs in all): neither stops.
  const auto more = env.pod(cpu(2500));
  CHECK_FALSE(quick_stop(env, candidate));
  CHECK_FALSE(early_checked(env, candidate).stopped);
  env.remove(more);
  env.remove(pending);
  CHECK(quick_stop(env, candidate));
}

namespace {

// A candidate whose one pod fits no other node, over a spot pool in every zone, and the input a
// consolidation pass keeps across its checks of it (NodePools that promise no change: a revision).
struct KeptPass
{
  Env env{catalog_with_spot(10, [](int) { return 7U; })};
  cluster::NodeIndex candidate = cluster::k_none;
  SolveInput in;

  KeptPass()
  {
    add_spot_pool(env, true);
    candidate = env.node("candidate", {}, allocatable(8000));
    env.node("other", {}, allocatable(1000));
    env.bind(env.pod(cpu(2000)), candidate);
    in = quick_input(env, candidate);
    for (auto& p : in.node_pools) {
      p.revision = 1;
    }
  }

  // The input with the candidate's pods: the solve of deleting it.
  [[nodiscard]] SolveInput with_pods() const
  {
    SolveInput all = in;
    const auto& pods = env.cluster.node(candidate).pods;
    all.pods.insert(all.pods.end(), pods.begin(), pods.end());
    return all;
  }

  // `hold`: remembered_stop_holds' (0: none).
  [[nodiscard]] bool holds(std::uint64_t hold = 0) const
  {
    const auto& node = env.cluster.node(candidate);
    return remembered_stop_holds(in, node.pods_revision, node.pods, {}, hold);
  }

  // The solve of deleting the candidate over a fresh cache.
  [[nodiscard]] bool fresh_solve_stops() const
  {
    SolveInput full = with_pods();
    SolveCache fresh;
    full.cache = &fresh;
    return solve(full).stopped;
  }
};

} // namespace

TEST_CASE("remembered_stop_holds: the pools a pass prepared are prepared again when availability changes",
          "[karpenter][solve][consolidation]")
{
  // Offering availability named by a version, so the checks after the first skip preparing the
  // pools. Spot in every zone until spot becomes unavailable: NodeClaims then end on-demand, and
  // the solve no longer stops.
  KeptPass pass;
  pass.in.offering_available = [](const catalog::InstanceType&, const catalog::Offering&) { return true; };
  pass.in.availability_version = 1;
  CHECK(solve(pass.with_pods()).stopped); // remembering the stop for these pools
  CHECK(pass.holds());
  CHECK(pass.holds());
  pass.in.offering_available = [](const catalog::InstanceType&, const catalog::Offering& o) {
    return o.capacity_type != "spot";
  };
  pass.in.availability_version = 2;
  CHECK_FALSE(pass.holds());
  CHECK_FALSE(pass.fresh_solve_stops());
}

TEST_CASE("remembered_stop_holds: what a pass found of pools and templates is found again for new limits or nodes",
          "[karpenter][solve][consolidation]")
{
  // The checks after the first take the answers that read no candidate (pools prepared, snapshot
  // and templates current, no template limited) from the first. Limits given to the input, a
  // solve in between and a node joining have them worked out again.
  KeptPass pass;
  const SolveInput early = pass.with_pods();
  CHECK(solve(early).stopped); // remembering the stop
  CHECK(pass.holds());
  CHECK(pass.holds());
  // A pool limited in this solve: its NodeClaims may lose options, so no stop is answered before
  // the solve.
  Limits cap;
  cap.listed = 1U << model::k_cpu;
  cap.max[model::k_cpu] = 1000 * 1000;
  pass.in.remaining_limits.assign(pass.in.node_pools.size(), cap);
  CHECK_FALSE(pass.holds());
  CHECK_FALSE(pass.holds());
  pass.in.remaining_limits.clear();
  CHECK(pass.holds());
  CHECK(solve(early).stopped);
  CHECK(pass.holds());
  // A Ready node with room for the stop pod joins: the solve places it there.
  pass.env.node("roomy", {}, allocatable(4000));
  CHECK_FALSE(pass.holds());
  CHECK_FALSE(pass.fresh_solve_stops());
}

TEST_CASE("remembered_stop_holds: a hold skips the input's checks only while it lasts",
          "[karpenter][solve][consolidation]")
{
  // Within a hold the caller changes nothing but the candidate; solves in between still have the
  // checks that read the cache made again. A new input comes with a new hold, which checks it.
  KeptPass pass;
  const SolveInput early = pass.with_pods();
  CHECK(solve(early).stopped); // remembering the stop
  const auto first = pass.env.cache.new_hold();
  CHECK(first != 0);
  CHECK(pass.holds(first));
  CHECK(pass.holds(first));
  CHECK(solve(early).stopped); // a solve in between: a new Scheduler, the same answers
  CHECK(pass.holds(first));
  // A pool limited in this solve: no stop is answered before the solve, under a new hold as
  // without one.
  Limits cap;
  cap.listed = 1U << model::k_cpu;
  cap.max[model::k_cpu] = 1000 * 1000;
  pass.in.remaining_limits.assign(pass.in.node_pools.size(), cap);
  const auto limited = pass.env.cache.new_hold();
  CHECK(limited != first);
  CHECK_FALSE(pass.holds(limited));
  CHECK_FALSE(pass.holds(limited));
  CHECK_FALSE(pass.holds());
  pass.in.remaining_limits.clear();
  const auto again = pass.env.cache.new_hold();
  CHECK(pass.holds(again));
  // A Ready node with room for the stop pod joins: a new hold sees it.
  pass.env.node("roomy", {}, allocatable(4000));
  CHECK_FALSE(pass.holds(pass.env.cache.new_hold()));
  CHECK_FALSE(pass.fresh_solve_stops());
}

TEST_CASE("remembered_stop_holds: every answer is the solve's over changing clusters", "[karpenter][solve][consolidation]")
{
  // Before each solve of a Ready candidate the remembered stop is checked alone: when it says the
  // solve stops, the solve stops.
  int answered = 0;
  int answered_with_pending = 0;
  ChangingCluster::run(24681357, [&](ChangingCluster& c, cluster::NodeIndex n) {
    if (c.env.cluster.node(n).lifecycle != cluster::NodeLifecycle::ready) {
      return;
    }
    const bool quick = quick_stop(c.env, n);
    const bool stopped = early_checked(c.env, n).stopped;
    CHECK((!quick || stopped));
    answered += quick ? 1 : 0;
    answered_with_pending += quick && !c.env.cluster.pending().empty() ? 1 : 0;
  });
  // Many stops are answered so, some with pending pods in the solve.
  CHECK(answered > 400);
  CHECK(answered_with_pending > 50);
}

TEST_CASE("stop_on_delete_veto: a remembered prefix pod that is pending again is not placed as a moved one",
          "[karpenter][solve][consolidation]")
{
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const auto candidate = env.node("candidate", {}, allocatable(4000));
  const auto other = env.node("other", {}, allocatable(2600));
  env.node("launching", {}, allocatable(2000), cluster::NodeLifecycle::registered);
  env.bind(env.pod(cpu(1000)), other);
  const auto first = env.pod(cpu(1500));
  env.bind(first, candidate); // goes to "other" first
  env.bind(env.pod(cpu(1000)), candidate);
  CHECK(early_checked(env, candidate).stopped);
  CHECK(early_checked(env, candidate).stopped);
  REQUIRE(env.cache.veto_memo_hits() == 1);

  // The first pod, pending again, fits only on the launching node and takes most of it; the
  // second then needs a NodeClaim (on-demand): no stop.
  env.cluster.unbind(first, env.now);
  env.cluster.set_pending(first, env.now);
  env.bind(env.pod(cpu(700)), other);
  (void)solve(env.input());
  const auto claimed = early_checked(env, candidate);
  CHECK_FALSE(claimed.stopped);
  CHECK(claimed.claims.size() == 1);
  CHECK(env.cache.veto_memo_hits() == 1);
}

namespace {

// The early solve of deleting every node of `candidates` at once (multi-node consolidation): the
// pending pods, then each candidate's pods in candidate order.
SolveInput delete_all_input(Env& env, const std::vector<cluster::NodeIndex>& candidates)
{
  SolveInput in = env.input();
  for (const auto c : candidates) {
    const auto& pods = env.cluster.node(c).pods;
    in.pods.insert(in.pods.end(), pods.begin(), pods.end());
    if (candidates.size() > 1) {
      in.candidate_pod_counts.push_back(static_cast<std::uint32_t>(pods.size()));
    }
  }
  in.excluded_nodes = candidates;
  in.options.consolidation_simulation = true;
  in.options.sketch_claims = true;
  in.options.now = env.now;
  in.options.stop_on_delete_veto = true;
  return in;
}

// Whether pod `p` has room (CPU, memory and pods, as the record of node `n` has it) on `n`.
bool room_for(const Env& env, cluster::PodIndex p, cluster::NodeIndex n)
{
  const auto want = pod_requests(env.cluster.pod(p).pod());
  const auto& node = env.cluster.node(n);
  const auto room = node.allocatable - node.requested;
  return want.cpu() <= room.cpu() && want.memory() <= room.memory() && want[model::k_pods] <= room[model::k_pods];
}

} // namespace

TEST_CASE("stop_on_delete_veto: the pod a stop rests on answers fewer candidates while the nodes given back have no "
          "room for it",
          "[karpenter][solve][consolidation]")
{
  // Four candidates with random pods, two other Ready nodes and a launching one with random room,
  // sometimes a pending pod. A solve over all four that stops names a pod of theirs; each shorter
  // prefix of the candidates that keeps its node, and gives back nodes without room for it, stops
  // too, and the full solve of that prefix is one consolidation rejects.
  Random next(2026);
  int answered = 0;
  int named = 0;
  int given_room = 0; // prefixes that gave the pod room back and did not stop
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    Env env(random_spot_catalog(next, 4));
    add_spot_pool(env, next(4) != 0);
    std::vector<cluster::NodeIndex> candidates;
    for (int i = 0; i < 4; ++i) {
      // Mostly full: little room to give back.
      std::vector<std::int64_t> sizes(1 + next(3));
      std::int64_t used = 0;
      for (auto& m : sizes) {
        m = 250 * static_cast<std::int64_t>(1 + next(6));
        used += m;
      }
      const auto c = env.node("candidate-" + std::to_string(i), {}, allocatable(used + 250 * static_cast<std::int64_t>(next(3))));
      for (const auto m : sizes) {
        env.bind(env.pod(cpu(m)), c);
      }
      candidates.push_back(c);
    }
    for (int i = 0; i < 2; ++i) {
      env.node("ready-" + std::to_string(i), {}, allocatable(500 * static_cast<std::int64_t>(next(5))));
    }
    env.node("launching", {}, allocatable(500 * static_cast<std::int64_t>(next(4))), cluster::NodeLifecycle::launching);
    if (next(4) == 0) {
      env.pod(cpu(250 * static_cast<std::int64_t>(1 + next(8)))); // pending
    }
    const SolveResult all = solve(delete_all_input(env, candidates));
    if (!all.stopped || all.stop_pod == cluster::k_none) {
      continue;
    }
    ++named;
    const auto home = env.cluster.pod(all.stop_pod).node;
    const auto at = static_cast<std::size_t>(std::find(candidates.begin(), candidates.end(), home) - candidates.begin());
    REQUIRE(at < candidates.size());
    for (std::size_t k = at + 1; k < candidates.size(); ++k) {
      const std::vector<cluster::NodeIndex> prefix(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k));
      const bool room = std::any_of(candidates.begin() + static_cast<std::ptrdiff_t>(k), candidates.end(),
                                    [&](cluster::NodeIndex n) { return room_for(env, all.stop_pod, n); });
      if (room) {
        // Not answered so: with the room given back the pod may move (the solve may not stop).
        given_room += solve(delete_all_input(env, prefix)).stopped ? 0 : 1;
        continue;
      }
      SolveInput in = delete_all_input(env, prefix);
      CHECK(solve(in).stopped);
      in.options.stop_on_delete_veto = false;
      SolveCache fresh;
      in.cache = &fresh;
      CHECK(consolidation_rejects(env, solve(in)));
      ++answered;
    }
  }
  // Stops named their pod and many prefixes were answered so; some that gave room back did not
  // stop.
  CHECK(named > 100);
  CHECK(answered > 100);
  CHECK(given_room > 0);
}

TEST_CASE("stop_on_delete_veto: a stop names no pod when limits or topology read the candidates' nodes",
          "[karpenter][solve][consolidation]")
{
  // Two candidates with a 2-CPU pod each; the other Ready node has no room, a launching one has:
  // the first pod goes there (a stop), or fits no Ready node (the pre-check's stop).
  const auto stop_of = [](Env& env, const PodOptions& o) {
    std::vector<cluster::NodeIndex> candidates;
    for (int i = 0; i < 2; ++i) {
      const auto c = env.node("candidate-" + std::to_string(i), {}, allocatable(4000));
      env.bind(env.pod(o), c);
      candidates.push_back(c);
    }
    env.node("other", {}, allocatable(1000));
    env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::launching);
    const auto r = solve(delete_all_input(env, candidates));
    CHECK(r.stopped);
    return r.stop_pod;
  };
  SECTION("neither")
  {
    Env env(testing::fake_instance_types(10));
    add_spot_pool(env, true);
    CHECK(stop_of(env, cpu(2000)) != cluster::k_none);
  }
  SECTION("the pool has limits")
  {
    Env env(testing::fake_instance_types(10));
    auto& pool = add_spot_pool(env, true);
    model::Resources limits;
    limits[model::k_cpu] = 1000 * 1000;
    pool.limits = limits;
    CHECK(stop_of(env, cpu(2000)) == cluster::k_none);
  }
  SECTION("the pods spread over zones")
  {
    Env env(testing::fake_instance_types(10));
    add_spot_pool(env, true);
    PodOptions o = cpu(2000);
    o.labels = {{"app", "x"}};
    o.spread = {spread(k_zone, {{"app", "x"}})};
    CHECK(stop_of(env, o) == cluster::k_none);
  }
}

namespace {

// delete_all_input's solve over env's cache, checked against a solve over a fresh cache.
SolveResult all_checked(Env& env, const std::vector<cluster::NodeIndex>& candidates)
{
  SolveInput in = delete_all_input(env, candidates);
  auto shared = solve(in);
  SolveCache fresh;
  in.cache = &fresh;
  check_same(shared, solve(in));
  return shared;
}

} // namespace

TEST_CASE("stop_on_delete_veto: a solve of several candidates whose first pod goes to a node that is not Ready stops "
          "before anything is prepared",
          "[karpenter][solve][consolidation]")
{
  // Two candidates; the other Ready node has no room for their pods, a launching node has: the
  // first pod of the queue (2 CPU) goes there.
  Env env(testing::fake_instance_types(10));
  add_on_demand_pool(env);
  const std::vector<cluster::NodeIndex> candidates{env.node("candidate-0", {}, allocatable(4000)),
                                                   env.node("candidate-1", {}, allocatable(4000))};
  const auto other = env.node("other", {}, allocatable(500));
  const auto launching = env.node("launching", {}, allocatable(4000), cluster::NodeLifecycle::launching);
  const auto first = env.pod(cpu(2000));
  env.bind(first, candidates[1]);
  env.bind(env.pod(cpu(1000)), candidates[0]);
  // The solve's answer (checked against a fresh cache's), and whether the check answered it
  // (then naming the stop pod `first`).
  cluster::PodIndex stop_pod = first;
  const auto answered = [&](const std::vector<cluster::NodeIndex>& nodes) {
    const auto before = env.cache.first_pod_stop_hits();
    const auto r = all_checked(env, nodes);
    const bool by_check = env.cache.first_pod_stop_hits() == before + 1;
    CHECK((!by_check || (r.stopped && r.stop_pod == stop_pod)));
    return std::pair{r.stopped, by_check};
  };
  using Answer = std::pair<bool, bool>;

  CHECK(answered(candidates) == Answer{true, true});
  CHECK(answered({candidates[1], candidates[0]}) == Answer{true, true});
  // One candidate: left to the remembered stops of single candidates.
  CHECK_FALSE(answered({candidates[1]}).second);

  // A smaller pending pod queues after the stop pod: the same answer.
  const auto small = env.pod(cpu(100));
  CHECK(answered(candidates) == Answer{true, true});
  env.remove(small);
  // A larger one queues first: the solve answers (it goes to the launching node, the stop pod
  // after it has no room left anywhere).
  const auto large = env.pod(cpu(3000));
  CHECK(answered(candidates) == Answer{true, false});
  env.remove(large);
  // A larger pod that joins a candidate is the first, and goes to the launching node.
  const auto joined = env.pod(cpu(3000));
  env.bind(joined, candidates[0]);
  stop_pod = joined;
  CHECK(answered(candidates) == Answer{true, true});
  stop_pod = first;
  env.remove(joined);

  // A Ready node with room the stop pod does not tolerate is passed over, as the solve does.
  const auto tainted = env.node("tainted", {}, allocatable(4000));
  env.cluster.node_mut(tainted).taints.push_back({"dedicated", "x", model::TaintEffect::no_schedule});
  CHECK(answered(candidates) == Answer{true, true});

  // A candidate's pod with a spread constraint: topology is the solve's.
  PodOptions spreading = cpu(100);
  spreading.labels = {{"app", "x"}};
  spreading.spread = {spread(k_zone, {{"app", "x"}})};
  const auto spread_pod = env.pod(spreading);
  env.bind(spread_pod, candidates[0]);
  CHECK_FALSE(answered(candidates).second);
  env.remove(spread_pod);
  CHECK(answered(candidates) == Answer{true, true});

  // The stop pod not listed (a PodDisruptionBudget keeps it, say): the first of those listed is
  // not known.
  {
    const auto kept = env.pod(cpu(100));
    env.bind(kept, candidates[1]);
    SolveInput in = delete_all_input(env, candidates);
    const auto at = std::find(in.pods.begin(), in.pods.end(), first);
    REQUIRE(at != in.pods.end());
    in.pods.erase(at);
    in.candidate_pod_counts[1] -= 1;
    const auto before = env.cache.first_pod_stop_hits();
    CHECK(solve(in).stopped); // (the 1-CPU pod goes to the launching node)
    CHECK(env.cache.first_pod_stop_hits() == before);
    env.remove(kept);
  }

  // A deleting node's pod listed after the candidates' is left to the solve when it queues first
  // (it goes to the launching node: a deleting node's pod vetoes nothing there), and not when it
  // queues after the stop pod.
  {
    const auto draining = env.node("draining", {}, allocatable(4000), cluster::NodeLifecycle::deleting);
    const auto larger = env.pod(cpu(3000));
    env.bind(larger, draining);
    const auto smaller = env.pod(cpu(500));
    env.bind(smaller, draining);
    const auto with = [&](cluster::PodIndex p) {
      SolveInput in = delete_all_input(env, candidates);
      in.pods.push_back(p);
      const auto before = env.cache.first_pod_stop_hits();
      const auto r = solve(in);
      return std::pair{r.stopped, env.cache.first_pod_stop_hits() == before + 1};
    };
    CHECK(with(larger) == Answer{true, false});
    CHECK(with(smaller) == Answer{true, true});
    env.remove(larger);
    env.remove(smaller);
  }

  // The other Ready node makes room: the pods go there, no stop.
  env.cluster.node_mut(other).allocatable = allocatable(4000);
  const auto moved = all_checked(env, candidates);
  CHECK_FALSE(moved.stopped);
  CHECK(moved.existing.size() == 2);
  env.cluster.node_mut(other).allocatable = allocatable(500);
  CHECK(answered(candidates) == Answer{true, true});

  // The launching node becomes Ready: the pods move there, no stop.
  env.cluster.node_mut(launching).lifecycle = cluster::NodeLifecycle::ready;
  const auto hits = env.cache.first_pod_stop_hits();
  const auto ready = all_checked(env, candidates);
  CHECK_FALSE(ready.stopped);
  REQUIRE(ready.existing.size() == 2);
  CHECK(ready.existing.front().node == launching);
  CHECK(env.cache.first_pod_stop_hits() == hits);
}

TEST_CASE("stop_on_delete_veto: first-pod stops of several candidates agree with fresh solves over changing clusters",
          "[karpenter][solve][consolidation]")
{
  // Three candidates, Ready and launching nodes with random room; between solves pods come and
  // go, nodes fill up, empty or become Ready. Every answer over the shared cache is a fresh
  // cache's, and some come from the check before the solve.
  Random next(47);
  std::size_t hits = 0;
  for (int round = 0; round < 40; ++round) {
    CAPTURE(round);
    Env env(testing::fake_instance_types(10));
    add_on_demand_pool(env);
    std::vector<cluster::NodeIndex> candidates;
    for (int i = 0; i < 3; ++i) {
      const auto c = env.node("candidate-" + std::to_string(i), {}, allocatable(4000));
      for (std::uint64_t k = 0; k < 1 + next(3); ++k) {
        env.bind(env.pod(cpu(250 * static_cast<std::int64_t>(1 + next(6)))), c);
      }
      candidates.push_back(c);
    }
    std::vector<cluster::NodeIndex> others;
    for (int i = 0; i < 3; ++i) {
      const auto lifecycle = next(2) == 0 ? cluster::NodeLifecycle::ready : cluster::NodeLifecycle::launching;
      const auto room = allocatable(500 * static_cast<std::int64_t>(1 + next(6)));
      others.push_back(env.node("other-" + std::to_string(i), {}, room, lifecycle));
    }
    std::vector<cluster::PodIndex> extra;
    for (int step = 0; step < 12; ++step) {
      CAPTURE(step);
      (void)all_checked(env, candidates);
      switch (next(5)) {
      case 0: // a pending pod
        extra.push_back(env.pod(cpu(250 * static_cast<std::int64_t>(1 + next(8)))));
        break;
      case 1: // a pod on another node
        extra.push_back(env.pod(cpu(250 * static_cast<std::int64_t>(1 + next(4)))));
        env.bind(extra.back(), others[next(others.size())]);
        break;
      case 2: // one leaves
        if (!extra.empty()) {
          env.remove(extra.back());
          extra.pop_back();
        }
        break;
      case 3: // a node becomes Ready
        env.cluster.node_mut(others[next(others.size())]).lifecycle = cluster::NodeLifecycle::ready;
        break;
      default: // nothing changes
        break;
      }
    }
    hits += env.cache.first_pod_stop_hits();
  }
  CHECK(hits > 50);
}
