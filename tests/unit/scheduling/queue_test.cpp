// Binding passes: queue order, sampling rotation, retries, nominated nodes, callbacks and
// determinism.

#include "helpers.hpp"

#include <catch2/catch.hpp>

#include <array>

using namespace capsim;
using namespace capsim::test;
using scheduling::Binding;
using scheduling::KubeScheduler;
using scheduling::SchedulerConfig;

TEST_CASE("Queue order: priority descending, then pending since, then index", "[scheduling][queue]")
{
  Cluster c;
  add_node(c, "only", 1000, 16 * k_gi);
  const auto low = make_spec([](auto& sp) { sp.priority = 0; });
  const auto high = make_spec([](auto& sp) { sp.priority = 100; });
  SECTION("a higher priority pod that became pending later goes first")
  {
    const auto first = pending_pod(c, "low", low, 800, 0, 0);
    const auto second = pending_pod(c, "high", high, 800, 0, 5);
    KubeScheduler s;
    const auto b = s.bind_pending(c, 10);
    REQUIRE(b.size() == 1);
    CHECK(b[0].pod == second);
    CHECK(c.pod(first).phase == cluster::PodPhase::pending);
  }
  SECTION("same priority: the pod pending longest goes first")
  {
    pending_pod(c, "newer", low, 800, 0, 5);
    const auto older = pending_pod(c, "older", low, 800, 0, 1);
    KubeScheduler s;
    const auto b = s.bind_pending(c, 10);
    REQUIRE(b.size() == 1);
    CHECK(b[0].pod == older);
  }
  SECTION("same priority and time: the lower pod index goes first")
  {
    const auto a = pending_pod(c, "a", low, 800, 0, 3);
    pending_pod(c, "b", low, 800, 0, 3);
    KubeScheduler s;
    const auto b = s.bind_pending(c, 10);
    REQUIRE(b.size() == 1);
    CHECK(b[0].pod == a);
  }
}

TEST_CASE("Sampling rotates the start node like nextStartNodeIndex", "[scheduling][queue]")
{
  Cluster c;
  for (int i = 0; i < 200; ++i) {
    add_node(c, "n" + std::to_string(i), 4000, 16 * k_gi);
  }
  const auto spec = make_spec();
  for (int i = 0; i < 4; ++i) {
    pending_pod(c, "p" + std::to_string(i), spec, 100, 100 * 1024 * 1024, i);
  }
  // 200 nodes: 100 feasible nodes are enough (50% - 1% = 49% is below the floor of 100). The first
  // pod scores nodes 0..99 and the second 100..199; ties go to the lowest index.
  KubeScheduler s;
  const auto b = s.bind_pending(c, 10);
  REQUIRE(b.size() == 4);
  CHECK(b[0].node == 0);
  CHECK(b[1].node == 100);
  CHECK(b[2].node == 1);
  CHECK(b[3].node == 101);
  SECTION("select_node does not advance the rotation")
  {
    const auto probe = make_pod("probe", spec, 100, 0);
    const auto n1 = s.select_node(c, probe);
    const auto n2 = s.select_node(c, probe);
    CHECK(n1 == 2);
    CHECK(n2 == 2);
  }
  SECTION("a pod that fits nowhere leaves the rotation at the start it wrapped around to")
  {
    // After the four pods the next start is 0; one more puts it at 100. With 150 nodes gone,
    // a pod too large for any node starts at 100 % 50 = 0 and, passing over every node, leaves
    // the rotation there; 70 nodes join and the next pod scores positions 0..99.
    CHECK(s.bind_pending(c, 11).empty());
    pending_pod(c, "p4", spec, 100, 100 * 1024 * 1024, 11);
    REQUIRE(s.bind_pending(c, 12).size() == 1);
    for (NodeIndex n = 50; n < 200; ++n) {
      c.mark_terminated(n, 13);
    }
    pending_pod(c, "huge", spec, 100000, 0, 13);
    CHECK(s.bind_pending(c, 14).empty());
    std::vector<NodeIndex> joined;
    for (int i = 0; i < 70; ++i) {
      joined.push_back(add_node(c, "m" + std::to_string(i), 4000, 16 * k_gi));
    }
    // Every node but positions 80..99 (m30..m49) gets busier than them.
    for (NodeIndex n = 0; n < 50; ++n) {
      bind_pod(c, "busy-n" + std::to_string(n), spec, n, 1000, k_gi);
    }
    for (int i = 0; i < 70; ++i) {
      if (i < 30 || i >= 50) {
        bind_pod(c, "busy-m" + std::to_string(i), spec, joined[static_cast<std::size_t>(i)], 1000, k_gi);
      }
    }
    pending_pod(c, "probe", spec, 100, 100 * 1024 * 1024, 15);
    const auto next = s.bind_pending(c, 16);
    REQUIRE(next.size() == 1);
    CHECK(next[0].node == joined[30]);
  }
  SECTION("percentageOfNodesToScore 100 scores every node")
  {
    Cluster d;
    for (int i = 0; i < 200; ++i) {
      add_node(d, "n" + std::to_string(i), 4000, 16 * k_gi);
    }
    for (int i = 0; i < 2; ++i) {
      pending_pod(d, "p" + std::to_string(i), spec, 100, 100 * 1024 * 1024, i);
    }
    SchedulerConfig cfg;
    cfg.percentage_of_nodes_to_score = 100;
    KubeScheduler all(cfg);
    const auto bd = all.bind_pending(d, 10);
    REQUIRE(bd.size() == 2);
    CHECK(bd[0].node == 0);
    CHECK(bd[1].node == 1);
  }
}

TEST_CASE("The sampled node list follows NodeTree's zone order as nodes join and leave", "[scheduling][queue]")
{
  // A scheduler kept over a churning cluster lists its nodes again from the first position a join
  // or a leave changes; one made afresh lists them all. With more than 100 nodes a cycle scores
  // the first 100 of the list (from the same start: select_node does not rotate it), and nodes of
  // many sizes make the chosen node tell which ones those are. Zones empty and come back.
  Cluster c;
  KubeScheduler kept;
  const std::array<std::string, 4> zones{"a", "b", "c", "d"};
  std::uint64_t x = 88172645463325252ULL; // xorshift64: the same churn on every platform
  const auto next = [&x](std::uint64_t n) {
    x ^= x << 13U;
    x ^= x >> 7U;
    x ^= x << 17U;
    return x % n;
  };
  std::vector<NodeIndex> alive;
  const auto join = [&] {
    // Zone d is rare, so that it empties and comes back.
    const auto z = next(10) == 0 ? 3 : next(3);
    const auto cpu = 1000 + static_cast<std::int64_t>(next(64)) * 1000;
    alive.push_back(add_node(c, "n" + std::to_string(c.nodes().size()), cpu, 64 * k_gi,
                             {{std::string(model::labels::k_zone), zones[z]}}));
  };
  for (int i = 0; i < 150; ++i) {
    join();
  }
  const auto probe = make_pod("probe", make_spec(), 500, k_gi);
  std::size_t differs_from_first = 0;
  const NodeIndex first = kept.select_node(c, probe);
  for (SimTime t = 1; t <= 300; ++t) {
    for (auto changes = 1 + next(3); changes > 0; --changes) {
      if (alive.size() > 110 && (alive.size() > 190 || next(2) == 0)) {
        const auto at = static_cast<std::ptrdiff_t>(next(alive.size()));
        c.mark_terminated(alive[static_cast<std::size_t>(at)], t);
        alive.erase(alive.begin() + at);
      } else {
        join();
      }
    }
    KubeScheduler fresh;
    const NodeIndex chosen = kept.select_node(c, probe);
    REQUIRE(chosen == fresh.select_node(c, probe));
    differs_from_first += chosen != first ? 1 : 0;
  }
  CHECK(differs_from_first > 100); // the churn did move the list
}

TEST_CASE("Unschedulable pods stay pending and are retried when the cluster changes", "[scheduling][queue]")
{
  Cluster c;
  const auto n = add_node(c, "n", 2000, 16 * k_gi);
  const auto blocker = bind_pod(c, "blocker", make_spec(), n, 1500, 0);
  const auto spec = make_spec();
  std::vector<PodIndex> waiting;
  for (int i = 0; i < 3; ++i) {
    waiting.push_back(pending_pod(c, "w" + std::to_string(i), spec, 1000, 0, i));
  }
  KubeScheduler s;
  CHECK(s.bind_pending(c, 10).empty());
  CHECK(s.bind_pending(c, 11).empty());
  CHECK(c.pending().size() == 3);
  SECTION("a pod leaving the node frees room for two of them")
  {
    c.unbind(blocker, 12);
    c.pod_mut(blocker).phase = cluster::PodPhase::finished;
    const auto b = s.bind_pending(c, 12);
    REQUIRE(b.size() == 2);
    CHECK(b[0].pod == waiting[0]);
    CHECK(b[1].pod == waiting[1]);
    CHECK(c.pending() == std::vector<PodIndex>{waiting[2]});
  }
  SECTION("a new Ready node takes them")
  {
    add_node(c, "m", 4000, 16 * k_gi);
    CHECK(s.bind_pending(c, 12).size() == 3);
  }
  SECTION("an evicted pod queues behind the pods pending longer")
  {
    const auto m = add_node(c, "m", 1000, 16 * k_gi);
    const auto b = s.bind_pending(c, 12);
    REQUIRE(b.size() == 1);
    CHECK(b[0] == Binding{waiting[0], m});
    c.unbind(waiting[0], 13);
    c.set_pending(waiting[0], 13);
    const auto again = s.bind_pending(c, 13);
    REQUIRE(again.size() == 1);
    CHECK(again[0] == Binding{waiting[1], m});
    CHECK(c.pod(waiting[0]).phase == cluster::PodPhase::pending);
  }
}

TEST_CASE("A pass skips only the pods asking what a pod of their spec found no node for", "[scheduling][queue]")
{
  // Trace rows of one spec ask their own amounts. Pending in turn: a pod too big for the node,
  // another asking exactly the same (skipped as equivalent), and a small pod asking its own
  // memory, which fits. A hundred failing amounts: more than the pass's set of them starts with.
  Cluster c;
  add_node(c, "only", 1000, 16 * k_gi);
  const auto spec = make_spec();
  std::vector<PodIndex> too_big;
  std::vector<PodIndex> fitting;
  for (int i = 0; i < 100; ++i) {
    const auto n = std::to_string(i);
    too_big.push_back(pending_pod(c, "big-" + n, spec, 2000 + i, k_gi, i));
    too_big.push_back(pending_pod(c, "big-again-" + n, spec, 2000 + i, k_gi, i));
    fitting.push_back(pending_pod(c, "small-" + n, spec, 5, k_gi / 64 + i, i));
  }
  KubeScheduler s;
  const auto b = s.bind_pending(c, 1000);
  CHECK(b.size() == fitting.size());
  for (const auto p : fitting) {
    CHECK(c.pod(p).phase == cluster::PodPhase::bound);
  }
  for (const auto p : too_big) {
    CHECK(c.pod(p).phase == cluster::PodPhase::pending);
  }
}

TEST_CASE("A pod that found no node is tried again against the nodes changed since", "[scheduling][queue]")
{
  // 200 nodes with 500m free each: the 1000m pod fits nowhere. Each change below makes the pass
  // try it again; it binds exactly when a changed node has room for it and passes its filters.
  Cluster c;
  std::vector<NodeIndex> nodes;
  std::vector<PodIndex> fillers;
  for (int i = 0; i < 200; ++i) {
    nodes.push_back(add_node(c, "n" + std::to_string(i), 4000, 16 * k_gi));
    fillers.push_back(bind_pod(c, "filler" + std::to_string(i), make_spec(), nodes.back(), 3500, 0));
  }
  const auto leave = [&c](PodIndex p, SimTime now) {
    c.unbind(p, now);
    c.pod_mut(p).phase = cluster::PodPhase::finished;
  };
  const auto waiting = pending_pod(c, "waiting", make_spec(), 1000, 0, 1);
  KubeScheduler s;
  SimTime now = 1;
  CHECK(s.bind_pending(c, ++now).empty());
  SECTION("room on a node it may not use, then on one it may")
  {
    c.node_mut(nodes[150]).taints = {{"dedicated", "x", model::TaintEffect::no_schedule}};
    leave(fillers[150], ++now);
    CHECK(s.bind_pending(c, now).empty());
    c.node_mut(nodes[10]).labels["tier"] = "a";
    CHECK(s.bind_pending(c, ++now).empty());
    c.node_mut(nodes[150]).taints.clear();
    const auto b = s.bind_pending(c, ++now);
    REQUIRE(b.size() == 1);
    CHECK(b[0] == Binding{waiting, nodes[150]});
  }
  SECTION("a Ready node joins")
  {
    const auto m = add_node(c, "m", 2000, 16 * k_gi);
    const auto b = s.bind_pending(c, ++now);
    REQUIRE(b.size() == 1);
    CHECK(b[0] == Binding{waiting, m});
  }
  SECTION("many nodes change at once")
  {
    for (int i = 0; i < 120; ++i) {
      c.node_mut(nodes[static_cast<std::size_t>(i)]).labels["round"] = "1";
    }
    CHECK(s.bind_pending(c, ++now).empty());
    leave(fillers[199], ++now);
    const auto b = s.bind_pending(c, now);
    REQUIRE(b.size() == 1);
    CHECK(b[0] == Binding{waiting, nodes[199]});
  }
  SECTION("an existing pod's anti-affinity lifts on nodes that did not change")
  {
    // Every node is in rack r1; a guard pod on n0 keeps app=x pods out of the rack.
    for (const auto n : nodes) {
      c.node_mut(n).labels["rack"] = "r1";
    }
    const auto guard = bind_pod(c, "guard", make_spec([](model::PodSpec& sp) {
                                  sp.pod_anti_affinity_required = {affinity_term(match_labels({{"app", "x"}}), "rack")};
                                }),
                                nodes[0], 100, 0);
    leave(fillers[1], ++now); // n1 has room for both pods now
    const auto x = pending_pod(c, "x", labelled({{"app", "x"}}), 1000, 0, now);
    const auto first = s.bind_pending(c, now);
    REQUIRE(first.size() == 1);
    CHECK(first[0] == Binding{waiting, nodes[1]});
    CHECK(c.pod(x).phase == cluster::PodPhase::pending);
    leave(guard, ++now); // only n0 changes (and has no room); n1, unchanged since, takes x
    const auto b = s.bind_pending(c, now);
    REQUIRE(b.size() == 1);
    CHECK(b[0] == Binding{x, nodes[1]});
  }
}

TEST_CASE("Binding passes see every node change the filters read", "[scheduling][queue]")
{
  // "big" scores best (LeastAllocated) whenever it passes the filters; each step changes it
  // after the scheduler has seen it, and the next pod goes to "small" exactly while it fails.
  Cluster c;
  const auto big = add_node(c, "big", 8000, 32 * k_gi, {}, 3);
  const auto small = add_node(c, "small", 2000, 8 * k_gi);
  KubeScheduler s;
  SimTime now = 0;
  const auto place = [&](const std::string& name, model::PodSpecPtr spec, std::int64_t cpu, std::int64_t memory) {
    pending_pod(c, name, std::move(spec), cpu, memory, ++now);
    const auto b = s.bind_pending(c, now);
    return b.size() == 1 ? b[0].node : cluster::k_none;
  };
  CHECK(place("first", make_spec(), 100, k_gi) == big);

  c.node_mut(big).taints = {{"dedicated", "x", model::TaintEffect::no_schedule}};
  CHECK(place("untolerating", make_spec(), 100, k_gi) == small);
  const auto tolerant = make_spec([](model::PodSpec& sp) {
    sp.tolerations = {toleration("dedicated", "x", model::TaintEffect::no_schedule)};
  });
  CHECK(place("tolerating", tolerant, 100, k_gi) == big);
  c.node_mut(big).taints = {{"dedicated", "x", model::TaintEffect::prefer_no_schedule}};
  CHECK(place("soft taint only", make_spec(), 100, 0) == small); // TaintToleration score: 0 vs 100

  c.node_mut(big).taints.clear();
  c.node_mut(big).lifecycle = cluster::NodeLifecycle::registered;
  CHECK(place("not ready", make_spec(), 100, k_gi) == small);
  c.node_mut(big).lifecycle = cluster::NodeLifecycle::ready;
  c.node_mut(big).disrupted_taint = true;
  CHECK(place("disrupted", make_spec(), 100, k_gi) == small);
  c.node_mut(big).disrupted_taint = false;
  CHECK(place("room again", make_spec(), 100, k_gi) == big);

  // Three pods bound: no pod slot left on big.
  REQUIRE(c.node(big).pods.size() == 3);
  CHECK(place("no pod slot", make_spec(), 100, k_gi) == small);
  c.node_mut(big).allocatable[model::k_pods] = 110;
  CHECK(place("slots again", make_spec(), 100, k_gi) == big);

  // Room per requested resource, on whichever node the change gives it.
  CHECK(c.node(big).requested.memory() == 4 * k_gi);
  CHECK(place("memory heavy", make_spec(), 100, 30 * k_gi) == cluster::k_none);
  c.node_mut(small).allocatable[model::k_memory] = 64 * k_gi;
  const auto bound = s.bind_pending(c, ++now);
  REQUIRE(bound.size() == 1);
  CHECK(bound[0].node == small);
  c.node_mut(big).allocatable[model::k_cpu] = 100; // 400m requested: overcommitted
  CHECK(place("cpu over free", make_spec(), 200, k_gi) == small);
  // A resource the pod does not request is not checked, even where it is overcommitted.
  c.node_mut(small).lifecycle = cluster::NodeLifecycle::registered;
  CHECK(place("no cpu request", make_spec(), 0, k_gi) == big);
  CHECK(place("cpu request", make_spec(), 1, k_gi) == cluster::k_none);
}

TEST_CASE("Cluster::node_log lists the node of each stamp, in stamp order", "[scheduling][queue]")
{
  // The scheduler refreshes the nodes logged since its last look: every stamp (a new node, a
  // change through node_mut, a termination) is logged; bindings go to the binding log instead.
  Cluster c;
  const auto a = add_node(c, "a", 4000, 8 * k_gi);
  const auto b = add_node(c, "b", 4000, 8 * k_gi);
  CHECK(c.node_log() == std::vector<NodeIndex>{a, b});
  (void)c.node_mut(b);
  (void)c.node_mut(a);
  c.mark_terminated(b, 10);
  CHECK(c.node_log() == std::vector<NodeIndex>{a, b, b, a, b});
  CHECK(c.node_epoch() == 5);
  CHECK(c.node_stamp(a) == 4);
  CHECK(c.node_stamp(b) == 5);
  const auto p = pending_pod(c, "p", make_spec(), 100, k_gi);
  c.bind(p, a, 11);
  CHECK(c.node_log().size() == 5);
  CHECK(c.binding_log().size() == 1);
}

TEST_CASE("Nominated node preference is optional", "[scheduling][queue]")
{
  Cluster c;
  add_node(c, "empty", 4000, 16 * k_gi);
  const auto busy = add_node(c, "busy", 4000, 16 * k_gi);
  bind_pod(c, "existing", make_spec(), busy, 2000, 4 * k_gi);
  const auto p = pending_pod(c, "p", make_spec(), 500, k_gi);
  c.pod_mut(p).nominated = busy;
  SECTION("off by default: scoring decides")
  {
    KubeScheduler s;
    const auto b = s.bind_pending(c, 10);
    REQUIRE(b.size() == 1);
    CHECK(c.node(b[0].node).name == "empty");
  }
  SECTION("on: the nominated node is taken when it passes the filters")
  {
    SchedulerConfig cfg;
    cfg.prefer_nominated = true;
    KubeScheduler s(cfg);
    const auto b = s.bind_pending(c, 10);
    REQUIRE(b.size() == 1);
    CHECK(b[0].node == busy);
  }
  SECTION("on, but the nominated node does not fit: scoring decides")
  {
    c.node_mut(busy).lifecycle = cluster::NodeLifecycle::registered;
    SchedulerConfig cfg;
    cfg.prefer_nominated = true;
    KubeScheduler s(cfg);
    const auto b = s.bind_pending(c, 10);
    REQUIRE(b.size() == 1);
    CHECK(c.node(b[0].node).name == "empty");
  }
}

TEST_CASE("Pods with spec.nodeName go only to that node", "[scheduling][queue]")
{
  Cluster c;
  add_node(c, "a", 4000, 16 * k_gi);
  const auto b = add_node(c, "b", 4000, 16 * k_gi);
  auto pod = make_pod("pinned", make_spec(), 100, 0);
  pod.node_name = "b";
  const auto p = c.add_pod(pod);
  c.set_pending(p, 0);
  KubeScheduler s;
  const auto out = s.bind_pending(c, 1);
  REQUIRE(out.size() == 1);
  CHECK(out[0].node == b);
}

TEST_CASE("Callbacks see each binding applied before the next pod", "[scheduling][queue]")
{
  Cluster c;
  add_node(c, "a", 4000, 16 * k_gi);
  add_node(c, "b", 4000, 16 * k_gi);
  const auto spec = make_spec();
  for (int i = 0; i < 4; ++i) {
    pending_pod(c, "p" + std::to_string(i), spec, 1000, 0, i);
  }
  SECTION("bind_pending binds, then calls on_bound")
  {
    KubeScheduler s;
    std::vector<Binding> seen;
    const auto out = s.bind_pending(c, 10, [&](PodIndex pod, NodeIndex node) {
      CHECK(c.pod(pod).node == node);
      CHECK(c.pod(pod).phase == cluster::PodPhase::bound);
      seen.push_back({pod, node});
    });
    CHECK(seen == out);
    CHECK(c.node(0).pods.size() == 2);
    CHECK(c.node(1).pods.size() == 2);
  }
  SECTION("place() leaves the binding to the engine's callback")
  {
    KubeScheduler s;
    const std::vector<PodIndex> candidates = c.pending();
    std::size_t calls = 0;
    s.place(c, candidates, [&](PodIndex pod, NodeIndex node) {
      c.bind(pod, node, 10);
      ++calls;
    });
    CHECK(calls == 4);
    CHECK(c.pending().empty());
    CHECK(c.node(0).pods.size() == 2);
    CHECK(c.node(1).pods.size() == 2);
  }
}

TEST_CASE("Binding passes are deterministic", "[scheduling][queue]")
{
  const auto build = [](Cluster& c) {
    const std::string zone(model::labels::k_zone);
    const char* zones[] = {"a", "b", "c"};
    for (int i = 0; i < 30; ++i) {
      add_node(c, "n" + std::to_string(i), 2000 + 1000 * (i % 4), (4 + 4 * (i % 3)) * k_gi,
               {{zone, zones[i % 3]}});
    }
    const auto web = labelled({{"app", "web"}}, [&](auto& sp) {
      sp.owner = model::OwnerKind::replica_set;
      sp.topology_spread = {spread(1, zone, true, match_labels({{"app", "web"}}))};
    });
    const auto batch = labelled({{"app", "batch"}}, [](auto& sp) { sp.owner = model::OwnerKind::job; });
    const auto cache = labelled({{"app", "cache"}}, [&](auto& sp) {
      sp.owner = model::OwnerKind::replica_set;
      sp.pod_anti_affinity_required = {
          affinity_term(match_labels({{"app", "cache"}}), std::string(model::labels::k_hostname))};
    });
    for (int i = 0; i < 120; ++i) {
      const auto& spec = i % 3 == 0 ? web : (i % 3 == 1 ? batch : cache);
      pending_pod(c, "p" + std::to_string(i), spec, 100 + 37 * (i % 11), (128 + 64 * (i % 7)) * 1024 * 1024, i % 17);
    }
  };
  Cluster c1;
  Cluster c2;
  build(c1);
  build(c2);
  KubeScheduler s1;
  KubeScheduler s2;
  const auto b1 = s1.bind_pending(c1, 100);
  const auto b2 = s2.bind_pending(c2, 100);
  CHECK(b1 == b2);
  CHECK_FALSE(b1.empty());
  // The constraints hold in the result: web spread with skew <= 1 over zones, one cache pod per
  // node, no node over its allocatable.
  std::map<std::string, int> web_per_zone{{"a", 0}, {"b", 0}, {"c", 0}};
  for (const auto& n : c1.nodes()) {
    int cache = 0;
    for (const auto p : n.pods) {
      const auto& app = c1.pod(p).pod().spec->labels.at("app");
      web_per_zone[n.zone] += app == "web" ? 1 : 0;
      cache += app == "cache" ? 1 : 0;
    }
    CHECK(cache <= 1);
    CHECK(n.requested.fits_in(n.allocatable));
  }
  const auto [lo, hi] = std::minmax_element(web_per_zone.begin(), web_per_zone.end(),
                                            [](const auto& x, const auto& y) { return x.second < y.second; });
  CHECK(hi->second - lo->second <= 1);
  // Departures and a second pass stay identical too.
  for (PodIndex p = 0; p < c1.pods().size(); p += 5) {
    if (c1.pod(p).node != cluster::k_none) {
      c1.unbind(p, 200);
      c2.unbind(p, 200);
      c1.pod_mut(p).phase = cluster::PodPhase::finished;
      c2.pod_mut(p).phase = cluster::PodPhase::finished;
    }
  }
  CHECK(s1.bind_pending(c1, 200) == s2.bind_pending(c2, 200));
}

TEST_CASE("A scheduler handed another cluster rebuilds its indexes", "[scheduling][queue]")
{
  Cluster c;
  const auto n = add_node(c, "n", 1000, 16 * k_gi);
  KubeScheduler s;
  const auto pod = make_pod("p", make_spec(), 800, 0);
  CHECK(s.feasible(c, pod, n));
  Cluster copy = c;
  bind_pod(copy, "filler", make_spec(), n, 500, 0);
  CHECK_FALSE(s.feasible(copy, pod, n));
  CHECK(s.feasible(c, pod, n));
  CHECK_FALSE(s.feasible(copy, pod, n));
}
