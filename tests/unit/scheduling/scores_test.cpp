// Score plugins: formulas against upstream's tables (kubernetes/kubernetes
// pkg/scheduler/framework/plugins/{noderesources,tainttoleration,nodeaffinity}/*_test.go), and the
// direction each score pushes real placements in.

#include "helpers.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace capsim;
using namespace capsim::test;
using scheduling::KubeScheduler;
using scheduling::NodeScore;
using scheduling::SchedulerConfig;
using scheduling::ScoringStrategy;

TEST_CASE("LeastAllocated and MostAllocated formulas (upstream TestLeastAllocatedScoringStrategy / "
          "TestMostAllocatedScoringStrategy)",
          "[scheduling][scores]")
{
  using scheduling::resource_fit_score;
  const auto least = ScoringStrategy::least_allocated;
  const auto most = ScoringStrategy::most_allocated;
  SECTION("nothing scheduled, resources requested, differently sized nodes")
  {
    // Pod requests cpu 3000, memory 5000 (two containers of 1000/2000 and 2000/3000).
    CHECK(resource_fit_score(least, 3000, 4000, 5000, 10000) == 37);
    CHECK(resource_fit_score(least, 3000, 6000, 5000, 10000) == 50);
    CHECK(resource_fit_score(most, 3000, 4000, 5000, 10000) == 62);
    CHECK(resource_fit_score(most, 3000, 6000, 5000, 10000) == 50);
  }
  SECTION("resources requested, pods scheduled with resources")
  {
    CHECK(resource_fit_score(least, 6000, 10000, 5000, 20000) == 57);
    CHECK(resource_fit_score(least, 6000, 10000, 10000, 20000) == 45);
    CHECK(resource_fit_score(least, 6000, 10000, 10000, 50000) == 60);
  }
  SECTION("requested resources exceed node capacity")
  {
    CHECK(resource_fit_score(least, 6000, 4000, 0, 10000) == 50);
    CHECK(resource_fit_score(least, 6000, 4000, 5000, 10000) == 25);
    CHECK(resource_fit_score(most, 6000, 4000, 5000, 10000) == 75); // requested capped at capacity
  }
  SECTION("zero node resources, pods scheduled with resources")
  {
    CHECK(resource_fit_score(least, 3000, 0, 5000, 0) == 0);
    CHECK(resource_fit_score(most, 3000, 0, 5000, 0) == 0);
  }
}

TEST_CASE("BalancedAllocation formula (upstream TestNodeResourcesBalancedAllocation)", "[scheduling][scores]")
{
  using scheduling::balanced_allocation_score;
  SECTION("nothing scheduled, resources requested, differently sized nodes")
  {
    CHECK(balanced_allocation_score(3000, 4000, 5000, 10000) == 87);
    CHECK(balanced_allocation_score(3000, 6000, 5000, 10000) == 100);
  }
  SECTION("resources requested, pods scheduled with resources")
  {
    // node1: cpu 6000/10000 = 0.6, memory 5000/20000 = 0.25 -> 1 - 0.175 = 82
    // node2: cpu 6000/10000 = 0.6, memory 10000/20000 = 0.5 -> 1 - 0.05 = 95
    CHECK(balanced_allocation_score(6000, 10000, 5000, 20000) == 82);
    CHECK(balanced_allocation_score(6000, 10000, 10000, 20000) == 95);
  }
  SECTION("requested resources at node capacity")
  {
    CHECK(balanced_allocation_score(6000, 6000, 10000, 10000) == 100);
  }
}

TEST_CASE("Score normalizations", "[scheduling][scores]")
{
  SECTION("DefaultNormalizeScore, reversed for TaintToleration")
  {
    std::vector<std::int64_t> s{0, 1, 2};
    scheduling::default_normalize(s, true);
    CHECK(s == std::vector<std::int64_t>{100, 50, 0});
    std::vector<std::int64_t> zeros{0, 0};
    scheduling::default_normalize(zeros, true);
    CHECK(zeros == std::vector<std::int64_t>{100, 100});
    std::vector<std::int64_t> weights{2, 0, 8};
    scheduling::default_normalize(weights, false);
    CHECK(weights == std::vector<std::int64_t>{25, 0, 100});
  }
  SECTION("PodTopologySpread: 100 * (max + min - s) / max, ignored nodes 0")
  {
    std::vector<std::int64_t> s{4, 2, 0, 5};
    std::vector<std::uint8_t> ignored{0, 0, 0, 0};
    scheduling::topology_spread_normalize(s, ignored);
    CHECK(s == std::vector<std::int64_t>{20, 60, 100, 0});
    std::vector<std::int64_t> t{3, 7};
    std::vector<std::uint8_t> ign{0, 1};
    scheduling::topology_spread_normalize(t, ign);
    CHECK(t == std::vector<std::int64_t>{100, 0});
  }
  SECTION("InterPodAffinity: min-max over the scored nodes")
  {
    std::vector<std::int64_t> s{24, 12, 24, 24, 12};
    scheduling::inter_pod_affinity_normalize(s);
    CHECK(s == std::vector<std::int64_t>{100, 0, 100, 100, 0});
    std::vector<std::int64_t> neg{-5, 0, 5};
    scheduling::inter_pod_affinity_normalize(neg);
    CHECK(neg == std::vector<std::int64_t>{0, 50, 100});
  }
}

TEST_CASE("percentageOfNodesToScore", "[scheduling][scores]")
{
  using scheduling::num_feasible_nodes_to_find;
  CHECK(num_feasible_nodes_to_find(0, 50) == 50);
  CHECK(num_feasible_nodes_to_find(0, 100) == 100);
  CHECK(num_feasible_nodes_to_find(0, 500) == 230);
  CHECK(num_feasible_nodes_to_find(0, 1000) == 420);
  CHECK(num_feasible_nodes_to_find(0, 5000) == 500);
  CHECK(num_feasible_nodes_to_find(0, 10000) == 500);
  CHECK(num_feasible_nodes_to_find(10, 500) == 100);
  CHECK(num_feasible_nodes_to_find(100, 500) == 500);
}

TEST_CASE("TaintToleration score (upstream TestTaintTolerationScore)", "[scheduling][scores]")
{
  using model::TaintEffect;
  KubeScheduler s;
  SECTION("node with taints tolerated by the pod, gets a higher score than those node with intolerable taints")
  {
    Cluster c;
    add_node(c, "nodeA", 4000, 4 * k_gi, {}, 110, {{"foo", "bar", TaintEffect::prefer_no_schedule}});
    add_node(c, "nodeB", 4000, 4 * k_gi, {}, 110, {{"foo", "blah", TaintEffect::prefer_no_schedule}});
    const auto pod = make_pod("p", make_spec([](auto& sp) {
                                sp.tolerations = {toleration("foo", "bar", TaintEffect::prefer_no_schedule)};
                              }),
                              100, 100);
    const auto scores = plugin_scores(s, c, pod, &NodeScore::taint_toleration);
    CHECK(scores.at("nodeA") == 100);
    CHECK(scores.at("nodeB") == 0);
  }
  SECTION("the more intolerable taints a node has, the lower score it gets.")
  {
    Cluster c;
    add_node(c, "nodeA", 4000, 4 * k_gi);
    add_node(c, "nodeB", 4000, 4 * k_gi, {}, 110, {{"cpu-type", "arm64", TaintEffect::prefer_no_schedule}});
    add_node(c, "nodeC", 4000, 4 * k_gi, {}, 110,
             {{"cpu-type", "arm64", TaintEffect::prefer_no_schedule},
              {"disk-type", "ssd", TaintEffect::prefer_no_schedule}});
    const auto pod = make_pod("p", make_spec([](auto& sp) {
                                sp.tolerations = {toleration("foo", "bar", TaintEffect::prefer_no_schedule)};
                              }),
                              100, 100);
    const auto scores = plugin_scores(s, c, pod, &NodeScore::taint_toleration);
    CHECK(scores.at("nodeA") == 100);
    CHECK(scores.at("nodeB") == 50);
    CHECK(scores.at("nodeC") == 0);
  }
  SECTION("only taints and tolerations that have effect PreferNoSchedule are checked by prioritizer function")
  {
    Cluster c;
    add_node(c, "nodeA", 4000, 4 * k_gi, {}, 110, {{"cpu-type", "arm64", TaintEffect::no_schedule}});
    add_node(c, "nodeB", 4000, 4 * k_gi, {}, 110, {{"cpu-type", "arm64", TaintEffect::prefer_no_schedule}});
    const auto pod = make_pod("p", make_spec([](auto& sp) {
                                sp.tolerations = {toleration("cpu-type", "arm64", TaintEffect::no_schedule)};
                              }),
                              100, 100);
    const auto scores = plugin_scores(s, c, pod, &NodeScore::taint_toleration);
    CHECK(scores.at("nodeA") == 100);
    CHECK(scores.at("nodeB") == 0);
  }
}

TEST_CASE("NodeAffinity score: preferred terms (upstream TestNodeAffinityPriority)", "[scheduling][scores]")
{
  KubeScheduler s;
  Cluster c;
  add_node(c, "node1", 4000, 4 * k_gi, {{"foo", "bar"}});
  add_node(c, "node2", 4000, 4 * k_gi, {{"key", "value"}});
  add_node(c, "node3", 4000, 4 * k_gi, {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}});
  SECTION("all nodes are same priority as NodeAffinity is nil")
  {
    const auto scores = plugin_scores(s, c, make_pod("p", make_spec(), 100, 100), &NodeScore::node_affinity);
    CHECK(scores.at("node1") == 0);
    CHECK(scores.at("node2") == 0);
    CHECK(scores.at("node3") == 0);
  }
  SECTION("the node which matches the most preferred terms gets the highest score")
  {
    const auto pod = make_pod("p", make_spec([](auto& sp) {
                                sp.preferred_node_affinity = {
                                    {2, {{req("foo", model::Operator::in, {"bar"})}}},
                                    {4, {{req("key", model::Operator::in, {"value"})}}},
                                    {5, {{req("foo", model::Operator::in, {"bar"}), req("key", model::Operator::in, {"value"}),
                                          req("az", model::Operator::in, {"az1"})}}},
                                };
                              }),
                              100, 100);
    const auto scores = plugin_scores(s, c, pod, &NodeScore::node_affinity);
    // Raw 2, 4, 11 normalized by the maximum 11.
    CHECK(scores.at("node1") == 18);
    CHECK(scores.at("node2") == 36);
    CHECK(scores.at("node3") == 100);
  }
}

TEST_CASE("Score direction in real placements", "[scheduling][scores]")
{
  const auto spec = make_spec();
  const auto setup = [&](Cluster& c) {
    add_node(c, "a", 4000, 16 * k_gi);
    add_node(c, "b", 4000, 16 * k_gi);
    add_node(c, "c", 4000, 16 * k_gi);
    for (int i = 0; i < 3; ++i) {
      pending_pod(c, "p" + std::to_string(i), spec, 500, k_gi, i);
    }
  };
  SECTION("LeastAllocated spreads pods over empty nodes")
  {
    Cluster c;
    setup(c);
    KubeScheduler s;
    const auto bindings = s.bind_pending(c, 10);
    REQUIRE(bindings.size() == 3);
    CHECK(c.node(0).pods.size() == 1);
    CHECK(c.node(1).pods.size() == 1);
    CHECK(c.node(2).pods.size() == 1);
  }
  SECTION("MostAllocated packs them on one node")
  {
    Cluster c;
    setup(c);
    SchedulerConfig cfg;
    cfg.strategy = ScoringStrategy::most_allocated;
    KubeScheduler s(cfg);
    const auto bindings = s.bind_pending(c, 10);
    REQUIRE(bindings.size() == 3);
    CHECK(c.node(0).pods.size() == 3);
    CHECK(c.node(1).pods.empty());
    CHECK(c.node(2).pods.empty());
  }
  SECTION("a PreferNoSchedule taint is avoided even when the other node is busier")
  {
    Cluster c;
    add_node(c, "tainted", 4000, 16 * k_gi, {}, 110, {{"spot", "", model::TaintEffect::prefer_no_schedule}});
    const auto busy = add_node(c, "busy", 4000, 16 * k_gi);
    bind_pod(c, "existing", make_spec(), busy, 1500, 4 * k_gi);
    pending_pod(c, "p", spec, 500, k_gi);
    KubeScheduler s;
    const auto bindings = s.bind_pending(c, 10);
    REQUIRE(bindings.size() == 1);
    CHECK(c.node(bindings[0].node).name == "busy");
  }
  SECTION("a preferred node-affinity term is honoured over a less loaded node")
  {
    Cluster c;
    add_node(c, "empty", 4000, 16 * k_gi);
    const auto preferred = add_node(c, "preferred", 4000, 16 * k_gi, {{"disk", "ssd"}});
    bind_pod(c, "existing", make_spec(), preferred, 1000, 2 * k_gi);
    pending_pod(c, "p", make_spec([](auto& sp) {
                  sp.preferred_node_affinity = {{50, {{req("disk", model::Operator::in, {"ssd"})}}}};
                }),
                500, k_gi);
    KubeScheduler s;
    const auto bindings = s.bind_pending(c, 10);
    REQUIRE(bindings.size() == 1);
    CHECK(c.node(bindings[0].node).name == "preferred");
  }
  SECTION("best-effort pods skip BalancedAllocation (upstream issue 129138)")
  {
    Cluster c;
    setup(c);
    KubeScheduler s;
    const auto scores = plugin_scores(s, c, make_pod("be", make_spec()), &NodeScore::balanced_allocation);
    CHECK(scores.at("a") == 0);
    CHECK(scores.at("b") == 0);
    CHECK(scores.at("c") == 0);
  }
}

TEST_CASE("A PreferNoSchedule taint outweighs better resource scores in real placements", "[scheduling][scores]")
{
  // b has far more room (NodeResourcesFit 94 + BalancedAllocation 98 against a's 81 + 93), but
  // its taint scores it 0 against a's 100 with weight 3. A pod that tolerates the taint goes there.
  const model::Taint soft{"example.com/batch", "", model::TaintEffect::prefer_no_schedule};
  const auto place = [&](const model::PodSpecPtr& spec) {
    Cluster c;
    add_node(c, "a", 4000, 8 * k_gi);
    add_node(c, "b", 16000, 32 * k_gi, {}, 110, {soft});
    pending_pod(c, "p", spec, 1000, k_gi);
    KubeScheduler s;
    const auto bound = s.bind_pending(c, 10);
    REQUIRE(bound.size() == 1);
    return c.node(bound[0].node).name;
  };
  CHECK(place(make_spec()) == "a");
  const auto tolerating = make_spec([&](model::PodSpec& sp) {
    sp.tolerations = {model::Toleration{soft.key, true, "", soft.effect}};
  });
  CHECK(place(tolerating) == "b");
}

namespace {

// NodeResourcesFit (LeastAllocated) + BalancedAllocation of a pod asking `cpu` and `mem` on `ns`,
// from the formulas.
std::int64_t resource_total(const cluster::NodeState& ns, std::int64_t cpu, std::int64_t mem)
{
  const auto cpu_req = ns.requested.cpu() + cpu;
  const auto mem_req = ns.requested.memory() + mem;
  return scheduling::resource_fit_score(ScoringStrategy::least_allocated, cpu_req, ns.allocatable.cpu(), mem_req,
                                        ns.allocatable.memory())
         + scheduling::balanced_allocation_score(cpu_req, ns.allocatable.cpu(), mem_req, ns.allocatable.memory());
}

// kube-scheduler's sampled filtering over one zone's nodes (the list is the nodes in order), as
// the tests below work it out: from `next_start`, the first numFeasibleNodesToFind nodes with
// room (Ready, a pod slot, cpu and memory). `next_start` moves past the last node looked at when
// some node was kept.
std::vector<NodeIndex> sample_nodes(const Cluster& c, std::size_t& next_start, std::int64_t cpu, std::int64_t mem)
{
  const std::size_t all = c.nodes().size();
  const std::size_t to_find = scheduling::num_feasible_nodes_to_find(0, all);
  std::vector<NodeIndex> kept;
  std::size_t processed = 0;
  for (std::size_t k = 0; k < all && kept.size() < to_find; ++k) {
    const auto n = static_cast<NodeIndex>((next_start + k) % all);
    ++processed;
    const auto& ns = c.node(n);
    const auto free = ns.allocatable - ns.requested;
    if (ns.lifecycle == cluster::NodeLifecycle::ready && free[model::k_pods] >= 1 && free.cpu() >= cpu
        && free.memory() >= mem) {
      kept.push_back(n);
    }
  }
  if (!kept.empty()) {
    next_start = (next_start + processed) % all;
  }
  return kept;
}

// Random integers in [lo, hi].
struct Uniform
{
  std::mt19937_64 rng;
  std::int64_t operator()(std::int64_t lo, std::int64_t hi)
  {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  }
};

// Pod `i` of `spec`, asking `cpu` and `mem`, arrives at time i and binds where the scheduler puts
// it; one that finds no node is dropped, so that later cycles schedule one pod each. Its node
// (k_none: dropped) and the pod.
std::pair<NodeIndex, PodIndex> arrive(Cluster& c, KubeScheduler& s, const model::PodSpecPtr& spec, std::int64_t cpu,
                                      std::int64_t mem, int i)
{
  const auto p = pending_pod(c, "p" + std::to_string(i), spec, cpu, mem, i);
  const auto b = s.bind_pending(c, i);
  if (b.empty()) {
    c.clear_pending(p);
    c.pod_mut(p).phase = cluster::PodPhase::finished;
    return {cluster::k_none, p};
  }
  return {b[0].node, p};
}

// One of the `bound` pods, the `k`th, finishes at `now`.
void finish_pod(Cluster& c, std::vector<PodIndex>& bound, std::size_t k, SimTime now)
{
  c.unbind(bound[k], now);
  c.pod_mut(bound[k]).phase = cluster::PodPhase::finished;
  bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(k));
}

} // namespace

TEST_CASE("Resource scores stay exact over more request sizes than the scheduler remembers",
          "[scheduling][scores]")
{
  // Pods of distinct sizes bound one by one; each goes to the node with the best
  // NodeResourcesFit + BalancedAllocation among those it may use, worked out here from the
  // formulas (the other plugins score every node alike: no taints, affinity preferences or
  // spreading). The scheduler keeps each node's scores per request size, naming sizes by id in a
  // table that starts again past 4,096 sizes: "d" is scored for the first sizes, then left out by
  // the selector of the next 4,088 pods (unchanged, so it keeps its scores), then scored again for
  // sizes that take the first ids anew.
  Cluster c;
  const std::int64_t k_ti = 1024 * k_gi;
  const std::string zone(model::labels::k_zone);
  const auto a = add_node(c, "a", 30'000'000, 6 * k_ti, {{zone, "y"}}, 5000);
  const auto b = add_node(c, "b", 40'000'000, 5 * k_ti, {{zone, "y"}}, 5000);
  const auto d = add_node(c, "d", 20'000, 16 * k_gi, {{zone, "x"}}, 5000);
  bind_pod(c, "busy", make_spec(), d, 15'000, 8 * k_gi); // small and busy: each size scores it differently
  const auto anywhere = make_spec();
  const auto zone_y = make_spec([&](model::PodSpec& sp) { sp.node_selector = {{zone, "y"}}; });
  KubeScheduler s;
  int mismatches = 0;
  int on_d = 0;
  const auto place = [&](int i, const model::PodSpecPtr& spec, const std::vector<NodeIndex>& allowed) {
    const std::int64_t cpu = i;
    const std::int64_t mem = (i % 5 + 1) * k_gi / 4;
    NodeIndex expected = cluster::k_none;
    std::int64_t best = -1;
    for (const auto n : allowed) {
      const auto& ns = c.node(n);
      const std::int64_t total = resource_total(ns, cpu, mem);
      if (total > best) {
        best = total;
        expected = n;
      }
    }
    pending_pod(c, "p" + std::to_string(i), spec, cpu, mem, i);
    const auto bound = s.bind_pending(c, i);
    REQUIRE(bound.size() == 1);
    mismatches += bound[0].node != expected ? 1 : 0;
    on_d += bound[0].node == d ? 1 : 0;
  };
  int i = 1;
  for (; i <= 8; ++i) {
    place(i, anywhere, {a, b, d});
  }
  for (; i <= 4096; ++i) { // the table is full: the next size starts it again, as id 1
    place(i, zone_y, {a, b});
  }
  for (; i <= 4300; ++i) {
    place(i, anywhere, {a, b, d});
  }
  CHECK(mismatches == 0);
  CHECK(on_d == 0); // d stayed as it was, so its remembered scores were asked for
  CHECK(c.node(a).pods.size() > 100);
  CHECK(c.node(b).pods.size() > 100);
}

TEST_CASE("Sampled placements over hundreds of nodes agree with kube-scheduler's rules worked out here",
          "[scheduling][scores]")
{
  // One zone, so the snapshot list is the nodes in order. Each cycle walks the list from where
  // the last one stopped, keeps the first numFeasibleNodesToFind nodes with room (Ready, a pod
  // slot, cpu and memory) and takes the best NodeResourcesFit + BalancedAllocation (ties: the
  // first node); the next cycle starts after the last node it looked at. Memory sizes are not
  // whole MiB (the scan tests room in MiB first), a few nodes are not Ready, some allow few
  // pods, and one has more cpu than 32 bits hold; pods leave now and then.
  Cluster c;
  Uniform uniform{std::mt19937_64(20261201)};
  constexpr int k_nodes = 300;
  for (int i = 0; i < k_nodes; ++i) {
    const bool huge = i == 137;
    const auto lifecycle = i % 41 == 7 ? cluster::NodeLifecycle::registered : cluster::NodeLifecycle::ready;
    add_node(c, "n" + std::to_string(1000 + i), huge ? 5'000'000'000 : uniform(2, 16) * 1000,
             uniform(4, 64) * k_gi + uniform(0, 1 << 20), {}, i % 9 == 0 ? 3 : 110, {}, lifecycle);
  }
  const auto spec = make_spec();
  KubeScheduler s;
  std::size_t next_start = 0;
  std::vector<PodIndex> bound;
  int mismatches = 0;
  int placed = 0;
  int unplaced = 0;
  for (int i = 0; i < 4000; ++i) {
    if (i % 5 == 4 && !bound.empty()) { // a pod leaves
      finish_pod(c, bound, static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(bound.size()) - 1)), i);
    }
    const std::int64_t cpu = i % 97 == 0 ? 3'000'000'000 : uniform(1, 40) * 100;
    const std::int64_t mem = uniform(1, 8 * 1024) * (1 << 20) / 4 + uniform(-1000, 1000);
    // Reference: sampled filtering from next_start, then the best score.
    NodeIndex expected = cluster::k_none;
    std::int64_t best = -1;
    for (const auto n : sample_nodes(c, next_start, cpu, mem)) {
      const std::int64_t total = resource_total(c.node(n), cpu, mem);
      if (total > best || (total == best && n < expected)) {
        best = total;
        expected = n;
      }
    }
    const auto [got, p] = arrive(c, s, spec, cpu, mem, i);
    mismatches += got != expected ? 1 : 0;
    if (got != cluster::k_none) {
      bound.push_back(p);
      ++placed;
    } else {
      ++unplaced;
    }
  }
  CHECK(mismatches == 0);
  CHECK(placed > 1000);
  CHECK(unplaced > 100);
}

TEST_CASE("Sampled placements among nodes with PreferNoSchedule taints agree with the rules worked out here",
          "[scheduling][scores]")
{
  // As the test above, with PreferNoSchedule taints on some nodes (none, one, two or another key's)
  // that change now and then, for pods that tolerate none and pods that tolerate one key. Among
  // the nodes a cycle keeps, TaintToleration counts each node's taints the pod does not tolerate,
  // scales them by the most of any kept node (reversed: 100 for none) and weighs 3; the best
  // NodeResourcesFit + BalancedAllocation + that wins, ties to the first node.
  Cluster c;
  Uniform uniform{std::mt19937_64(20261206)};
  const model::Taint soft_a{"example.com/a", "", model::TaintEffect::prefer_no_schedule};
  const model::Taint soft_b{"example.com/b", "", model::TaintEffect::prefer_no_schedule};
  const model::Taint soft_c{"example.com/c", "", model::TaintEffect::prefer_no_schedule};
  const auto random_taints = [&]() -> std::vector<model::Taint> {
    switch (uniform(0, 7)) {
    case 0: case 1: return {soft_a};
    case 2: return {soft_a, soft_b};
    case 3: return {soft_c};
    default: return {};
    }
  };
  constexpr int k_nodes = 200;
  for (int i = 0; i < k_nodes; ++i) {
    add_node(c, "n" + std::to_string(1000 + i), uniform(2, 16) * 1000, uniform(4, 64) * k_gi, {}, 110,
             random_taints());
  }
  const auto plain = make_spec();
  const auto tolerating = make_spec([&](model::PodSpec& sp) {
    sp.tolerations = {model::Toleration{soft_a.key, true, "", soft_a.effect}};
  });
  KubeScheduler s;
  std::size_t next_start = 0;
  std::vector<PodIndex> bound;
  int mismatches = 0;
  int placed = 0;
  int on_tainted = 0; // placements on a node with a taint the pod does not tolerate
  for (int i = 0; i < 3000; ++i) {
    if (i % 5 == 4 && !bound.empty()) { // a pod leaves
      finish_pod(c, bound, static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(bound.size()) - 1)), i);
    }
    if (i % 7 == 3) {
      c.node_mut(static_cast<NodeIndex>(uniform(0, k_nodes - 1))).taints = random_taints();
    }
    const bool tolerates_a = i % 2 == 1;
    const auto intolerable = [&](const cluster::NodeState& ns) {
      std::int64_t n = 0;
      for (const auto& t : ns.taints) {
        n += tolerates_a && t.key == soft_a.key ? 0 : 1;
      }
      return n;
    };
    const std::int64_t cpu = uniform(1, 40) * 100;
    const std::int64_t mem = uniform(1, 8 * 1024) * (1 << 20) / 4;
    const auto kept = sample_nodes(c, next_start, cpu, mem);
    std::int64_t most = 0;
    for (const auto n : kept) {
      most = std::max(most, intolerable(c.node(n)));
    }
    NodeIndex expected = cluster::k_none;
    std::int64_t best = -1;
    for (const auto n : kept) {
      const std::int64_t taint = most == 0 ? 100 : 100 - 100 * intolerable(c.node(n)) / most;
      const std::int64_t total = resource_total(c.node(n), cpu, mem) + 3 * taint;
      if (total > best || (total == best && n < expected)) {
        best = total;
        expected = n;
      }
    }
    const auto [got, p] = arrive(c, s, tolerates_a ? tolerating : plain, cpu, mem, i);
    mismatches += got != expected ? 1 : 0;
    if (got != cluster::k_none) {
      bound.push_back(p);
      ++placed;
      on_tainted += intolerable(c.node(got)) > 0 ? 1 : 0;
    }
  }
  CHECK(mismatches == 0);
  CHECK(placed > 1000);
  CHECK(on_tainted > 50); // some cycles keep only tainted nodes, or taints make no difference
}

TEST_CASE("Room within the same MiB or beyond 32 bits of cpu is decided exactly", "[scheduling][scores]")
{
  // The scan first tests room in MiB and in clamped 32-bit millicores: "near" has 500 bytes less
  // memory free than the pod asks (the same MiB), "vast" fewer millicores than the second pod asks
  // (both beyond 32 bits). Neither pod has a node.
  Cluster c;
  const auto near = add_node(c, "near", 8000, 4 * k_gi + 1300);
  const auto vast = add_node(c, "vast", 3'500'000'000, k_gi);
  const auto spec = make_spec();
  KubeScheduler s;
  const auto first = pending_pod(c, "first", spec, 100, 4 * k_gi + 1800, 1);
  CHECK(s.bind_pending(c, 1).empty());
  c.clear_pending(first);
  c.pod_mut(first).phase = cluster::PodPhase::finished;
  pending_pod(c, "second", spec, 4'000'000'000, 1024, 2);
  CHECK(s.bind_pending(c, 2).empty());
  // With room they do go there.
  const auto third = pending_pod(c, "third", spec, 100, 4 * k_gi + 1300, 3);
  const auto fourth = pending_pod(c, "fourth", spec, 3'500'000'000, 1024, 3);
  CHECK(s.bind_pending(c, 3).size() == 2);
  CHECK(c.pod(third).node == near);
  CHECK(c.pod(fourth).node == vast);
}
