// SolveOptions::stop_on_delete_veto: consolidation of spot candidates without spot-to-spot, run
// without --explain, lets the solve stop at the first sign that the candidates cannot simply be
// deleted. A stopped solve must be one whose full result consolidation rejects, and a solve that
// does not stop must give the full result.
#include "core/karpenter/solve.hpp"
#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

const std::string k_ct(model::labels::k_capacity_type);
const std::string k_zone(model::labels::k_zone);
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

struct Runs
{
  SolveResult full;
  SolveResult early;
};

// Simulates deleting `candidate`: pending pods, the candidate's pods and `draining` (pods of
// deleting nodes), candidate excluded.
Runs simulate_delete(Env& env, cluster::NodeIndex candidate, const std::vector<cluster::PodIndex>& draining = {})
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
    return;
  }
  CHECK(runs.early.errors.size() == runs.full.errors.size());
  REQUIRE(runs.early.existing.size() == runs.full.existing.size());
  for (std::size_t i = 0; i < runs.full.existing.size(); ++i) {
    CHECK(runs.early.existing[i].pod == runs.full.existing[i].pod);
    CHECK(runs.early.existing[i].node == runs.full.existing[i].node);
  }
  REQUIRE(runs.early.claims.size() == runs.full.claims.size());
  for (std::size_t i = 0; i < runs.full.claims.size(); ++i) {
    CHECK(runs.early.claims[i].pods == runs.full.claims[i].pods);
    CHECK(runs.early.claims[i].instance_types == runs.full.claims[i].instance_types);
    CHECK(runs.early.claims[i].requirements == runs.full.claims[i].requirements);
  }
}

// A spot + on-demand pool; with `spot_zones_only`, restricted to the zones where every fake type
// offers spot (test-zone-3 is on-demand only).
void add_spot_pool(Env& env, bool spot_zones_only)
{
  auto& pool = env.node_pool();
  pool.requirements.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  if (spot_zones_only) {
    pool.requirements.add(req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"}));
  }
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

// A spot + on-demand pool over `env`'s types and a candidate holding `count` pods of `milli` CPU.
Runs simulate_candidate_with(Env& env, std::int64_t milli, int count)
{
  env.node_pool().requirements.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
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
  std::uint64_t state = 12345;
  const auto next = [&state](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  int stopped = 0;
  int ran = 0;
  for (int round = 0; round < 200; ++round) {
    CAPTURE(round);
    std::vector<unsigned> spot_zones(10);
    for (auto& z : spot_zones) {
      z = next(3) == 0 ? static_cast<unsigned>(next(8)) : 7U;
    }
    Env env(catalog_with_spot(10, [&](int i) { return spot_zones[static_cast<std::size_t>(i)]; }));
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
