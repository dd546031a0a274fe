// Ports of the "Candidate Filtering" cases of core:pkg/controllers/disruption/suite_test.go and
// of the ScoreMove cases of balanced_test.go (kubernetes-sigs/karpenter HEAD 2266468), plus the
// Balanced policy end to end.

#include "core/karpenter/disruption_consolidation.hpp"
#include "tests/unit/disruption/disruption_harness.hpp"
#include "core/base/rng.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

namespace capsim::karpenter::dtest {

namespace {

PodOpts app_pod()
{
  PodOpts o;
  o.labels = {{"app", "test"}};
  return o;
}

model::PodDisruptionBudget pdb(const std::string& name, const std::string& max_unavailable)
{
  model::PodDisruptionBudget p;
  p.name = name;
  p.selector.match_labels = {{"app", "test"}};
  p.max_unavailable = max_unavailable;
  return p;
}

// Two cheap on-demand nodes of a consolidation suite; node-1's single pod is the one tested.
Sim two_nodes()
{
  Sim sim;
  sim.pool("default");
  const auto& t = sim.cheapest("on-demand");
  sim.node("node-0", "default", t.name, resources(32000, 0, 100));
  sim.node("node-1", "default", t.name, resources(32000, 0, 100));
  PodOpts other;
  sim.pods_on("node-0", 2, other);
  return sim;
}

void drift(Sim& sim, const std::string& node)
{
  model::ScenarioEvent e;
  e.kind = "Drift";
  e.selector.node_name = node;
  sim.scenario.events.push_back(e);
}

} // namespace

TEST_CASE("Candidate Filtering: should not consider candidates that have multiple PDBs on the same pod",
          "[disruption][candidates][pdb]")
{
  Sim sim = two_nodes();
  sim.pods_on("node-1", 1, app_pod());
  // Each PDB alone would allow the eviction (maxUnavailable 1), but a pod may have only one.
  sim.scenario.pdbs = {pdb("pdb-a", "1"), pdb("pdb-b", "1")};
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(sim.alive() == std::vector<std::string>{"node-1"});
  CHECK(has_decision(result, "node-1", "keep", "eviction does not support multiple PDBs (default/pdb-a, default/pdb-b)"));
}

TEST_CASE("Candidate Filtering: a PDB that still allows disruptions does not block", "[disruption][candidates][pdb]")
{
  Sim sim = two_nodes();
  sim.pods_on("node-1", 1, app_pod());
  sim.scenario.pdbs = {pdb("pdb", "1")}; // 1 healthy pod, maxUnavailable 1 -> 1 disruption allowed
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(sim.alive() == std::vector<std::string>{"node-0"});
}

TEST_CASE("Candidate Filtering: should consider candidates that have do-not-disrupt pods scheduled with a "
          "terminationGracePeriod set for eventual disruption",
          "[disruption][candidates]")
{
  Sim sim = two_nodes();
  auto& pool = sim.scenario.node_pools[0];
  pool.termination_grace_period = 5 * k_minute;
  pool.consolidate_after = k_hour;
  auto blocked = app_pod();
  blocked.do_not_disrupt = k_never;
  sim.pods_on("node-1", 1, blocked);
  drift(sim, "node-1");
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // Drift may proceed (bounded by terminationGracePeriod); the do-not-disrupt pod is not
  // simulated (not currently reschedulable), so no replacement is launched for it.
  const auto drifts = decisions(result, "drift");
  REQUIRE(!drifts.empty());
  CHECK(drifts.front().action == "delete");
  CHECK(drifts.front().candidate == "node-1");
}

TEST_CASE("Candidate Filtering: should not consider candidates that have do-not-disrupt pods scheduled without a "
          "terminationGracePeriod set for eventual disruption",
          "[disruption][candidates]")
{
  Sim sim = two_nodes();
  sim.scenario.node_pools[0].consolidate_after = k_hour;
  auto blocked = app_pod();
  blocked.do_not_disrupt = k_never;
  sim.pods_on("node-1", 1, blocked);
  drift(sim, "node-1");
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(sim.alive(std::string("node-1")));
  CHECK(has_decision(result, "node-1", "keep", "karpenter.sh/do-not-disrupt"));
}

TEST_CASE("Candidate Filtering: should not consider candidates that have do-not-disrupt pods scheduled with a "
          "terminationGracePeriod set for graceful disruption",
          "[disruption][candidates]")
{
  Sim sim = two_nodes();
  sim.scenario.node_pools[0].termination_grace_period = 5 * k_minute;
  auto blocked = app_pod();
  blocked.do_not_disrupt = k_never;
  sim.pods_on("node-1", 1, blocked);
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // Consolidation (graceful) still respects the annotation: node-0 goes, node-1 stays.
  CHECK(sim.alive() == std::vector<std::string>{"node-1"});
}

TEST_CASE("Candidate Filtering: should not consider candidates that are not owned by a NodePool",
          "[disruption][candidates]")
{
  Sim sim;
  sim.pool("default");
  model::InitialNode n;
  n.name = "static-0";
  n.labels[std::string(model::labels::k_instance_type)] = sim.cheapest("on-demand").name;
  n.labels[std::string(model::labels::k_zone)] = "test-zone-1";
  n.labels[std::string(model::labels::k_capacity_type)] = "on-demand";
  sim.scenario.nodes.push_back(n);
  const auto result = sim.run(5 * k_minute);
  CHECK(sim.alive() == std::vector<std::string>{"static-0"});
  CHECK(result.decisions.empty());
}

// ---------------------------------------------------------------------------------------------
// Balanced (balanced_test.go ScoreMove; RFC example pool: $58.08/day, disruption 90)

TEST_CASE("Balanced ScoreMove", "[disruption][balanced]")
{
  const PoolTotals totals{58.08, 90};
  const double threshold = 1.0 / k_balanced_k;
  SECTION("should approve an oversized node consolidation")
  {
    const double score = balanced_score(7.26, 4.0, totals);
    CHECK(score == Approx((7.26 / 58.08) / (4.0 / 90)));
    CHECK(score >= threshold);
  }
  SECTION("should approve a spare capacity delete")
  {
    CHECK(balanced_score(4.84, 5.0, totals) >= threshold);
  }
  SECTION("should reject a marginal move")
  {
    const double score = balanced_score(2.42, 9.0, totals);
    CHECK(score == Approx((2.42 / 58.08) / (9.0 / 90)).epsilon(0.01));
    CHECK(score < threshold);
  }
  SECTION("should reject a well-packed node with zero savings")
  {
    CHECK(balanced_score(0.0, 11.0, totals) == 0.0);
  }
  SECTION("should approve a replace in a uniform pool")
  {
    CHECK(balanced_score(2.42, 9.0, PoolTotals{48.40, 90}) >= threshold);
  }
  SECTION("should approve low-disruption nodes and reject high-disruption nodes")
  {
    const PoolTotals het{58.08, 117};
    CHECK(balanced_score(4.84, 5.0, het) >= threshold);
    CHECK(balanced_score(4.84, 32.0, het) < threshold);
  }
  SECTION("edge cases with zero values")
  {
    CHECK(balanced_score(1.0, 0.0, totals) == std::numeric_limits<double>::infinity());
    CHECK(balanced_score(0.0, 0.0, totals) == 0.0);
    CHECK(balanced_score(1.0, 1.0, PoolTotals{0, 90}) == 0.0);
  }
}

TEST_CASE("Balanced policy: a move whose savings are small next to the pool's cost is rejected",
          "[disruption][balanced]")
{
  // node-a (cheap, one pod) could be deleted onto node-big (expensive, do-not-disrupt, empty).
  // Balanced: savings $0.207 of $20.35 pool cost against 2 of 3 disruption units -> score
  // 0.015 < 0.5, kept. WhenEmptyOrUnderutilized deletes it.
  for (const auto policy : {model::ConsolidationPolicy::balanced, model::ConsolidationPolicy::when_empty_or_underutilized}) {
    Sim sim;
    sim.pool("default").consolidation_policy = policy;
    sim.node("node-a", "default", sim.cheapest("on-demand").name, resources(32000, 0, 100));
    sim.node("node-big", "default", sim.most_expensive("on-demand").name, resources(32000, 0, 100), {}, {}, true);
    sim.pods_on("node-a", 1, app_pod());
    const auto result = sim.run(5 * k_minute);
    INFO(dump(result));
    if (policy == model::ConsolidationPolicy::balanced) {
      CHECK(sim.alive(std::string("node-a")));
      CHECK(has_decision(result, "node-a", "keep", "Balanced policy"));
    } else {
      CHECK(!sim.alive(std::string("node-a")));
    }
  }
}

} // namespace capsim::karpenter::dtest

namespace capsim::karpenter::dtest {

namespace {

// One NodePool offering fake.InstanceTypes(3), and a cluster of its Ready nodes of the largest
// type (not copied: the pool input points into the scenario).
struct MemoCluster
{
  std::vector<catalog::InstanceType> types = testing::fake_instance_types(3);
  model::Scenario scenario;
  std::vector<NodePoolInput> pools = std::vector<NodePoolInput>(1);
  cluster::Cluster c;

  MemoCluster()
  {
    scenario.node_pools.emplace_back();
    scenario.node_pools[0].name = "default";
    std::vector<const catalog::InstanceType*> offered;
    for (const auto& t : types) {
      offered.push_back(&t);
    }
    pools[0].pool = &scenario.node_pools[0];
    pools[0].instance_types = make_type_list(offered);
  }
  MemoCluster(const MemoCluster&) = delete;
  MemoCluster& operator=(const MemoCluster&) = delete;

  cluster::NodeIndex node(const std::string& name, SimTime expire_at)
  {
    cluster::NodeState n;
    n.name = name;
    n.owner = cluster::NodeOwner::node_pool;
    n.pool = 0;
    n.lifecycle = cluster::NodeLifecycle::ready;
    n.instance_type = &types[2];
    n.zone = types[2].offerings.front().zone;
    n.capacity_type = types[2].offerings.front().capacity_type;
    n.allocatable = types[2].allocatable();
    n.expire_at = expire_at;
    return c.add_node(n);
  }

  [[nodiscard]] CandidateContext context(CandidateMemos* memo) const
  {
    CandidateContext ctx;
    ctx.cluster = &c;
    ctx.pools = &pools;
    ctx.memo = memo;
    return ctx;
  }
};

} // namespace

TEST_CASE("make_candidate answers the same with its per-node memo as without, as pods come and go",
          "[disruption][candidates]")
{
  MemoCluster mc;
  auto& c = mc.c;
  const auto node = mc.node("node-0", 10 * k_hour);

  const auto spec = [](std::int32_t priority, std::int64_t deletion_cost, Duration do_not_disrupt) {
    auto s = std::make_shared<model::PodSpec>();
    s->priority = priority;
    s->deletion_cost = deletion_cost;
    s->do_not_disrupt = do_not_disrupt;
    return model::PodSpecPtr(s);
  };
  const std::vector<model::PodSpecPtr> specs = {spec(0, 0, 0), spec(1 << 26, 0, 0), spec(0, -(1 << 29), 0),
                                                spec(0, 0, 5 * k_minute)};
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 8; ++i) {
    model::Pod p;
    p.name = "pod-" + std::to_string(i);
    p.spec = specs[static_cast<std::size_t>(i) % specs.size()];
    pods.push_back(c.add_pod(p));
  }

  CandidateMemos memo;
  CandidateContext with = mc.context(&memo);
  CandidateContext without = mc.context(nullptr);

  // Bind and unbind in an order that reorders the node's pod list, at times inside and after
  // the do-not-disrupt window.
  const std::vector<std::pair<std::size_t, bool>> steps = {{0, true}, {1, true}, {2, true}, {1, false}, {3, true},
                                                           {4, true}, {3, false}, {5, true}, {0, false}, {6, true},
                                                           {7, true}, {2, false}, {1, true}, {7, false}};
  SimTime now = 0;
  std::size_t compared = 0;
  for (const auto& [i, bind] : steps) {
    now += 2 * k_minute;
    if (bind) {
      c.bind(pods[i], node, now);
      c.pod_mut(pods[i]).started_at = now;
    } else {
      c.unbind(pods[i], now);
    }
    for (const SimTime at : {now, now + 10 * k_minute}) {
      with.now = without.now = at;
      const auto a = make_candidate(with, node, DisruptionClass::graceful);
      const auto b = make_candidate(without, node, DisruptionClass::graceful);
      const auto again = make_candidate(with, node, DisruptionClass::graceful); // from the memo
      for (const auto* x : {&a, &again}) {
        CHECK(x->blocked == b.blocked);
        REQUIRE(x->candidate.has_value() == b.candidate.has_value());
        if (b.candidate) {
          CHECK(x->candidate->reschedulable == b.candidate->reschedulable);
          CHECK(x->candidate->instance_type == b.candidate->instance_type);
          CHECK(x->candidate->price == b.candidate->price);
          CHECK(x->candidate->reschedule_cost == b.candidate->reschedule_cost);
          CHECK(x->candidate->disruption_cost == b.candidate->disruption_cost);
          ++compared;
        }
      }
    }
  }
  CHECK(compared > 10); // both blocked (do-not-disrupt) and candidate answers were seen
  CHECK(memo.size() == 1);

  // One pod replaced by another at the same moment: same count and last pod event, new list.
  REQUIRE(c.pod(pods[6]).node == node);
  REQUIRE(c.pod(pods[7]).node == cluster::k_none);
  now += 2 * k_minute;
  c.unbind(pods[6], now);
  c.bind(pods[7], node, now);
  c.pod_mut(pods[7]).started_at = now;
  with.now = without.now = now + 10 * k_minute;
  const auto a = make_candidate(with, node, DisruptionClass::graceful);
  const auto b = make_candidate(without, node, DisruptionClass::graceful);
  REQUIRE(a.candidate.has_value());
  REQUIRE(b.candidate.has_value());
  CHECK(a.candidate->reschedulable == b.candidate->reschedulable);
  CHECK(std::count(a.candidate->reschedulable.begin(), a.candidate->reschedulable.end(), pods[7]) == 1);
  CHECK(std::count(a.candidate->reschedulable.begin(), a.candidate->reschedulable.end(), pods[6]) == 0);
}

TEST_CASE("make_candidate: a candidate's pod list stays as made while the node's memo writes its list again",
          "[disruption][candidates]")
{
  MemoCluster mc;
  auto& c = mc.c;
  const auto node = mc.node("node-0", 10 * k_hour);
  auto spec = std::make_shared<model::PodSpec>();
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 6; ++i) {
    model::Pod p;
    p.name = "pod-" + std::to_string(i);
    p.spec = spec;
    pods.push_back(c.add_pod(p));
  }
  CandidateMemos memo;
  const CandidateContext ctx = mc.context(&memo);
  const auto sorted_pods = [&] {
    std::vector<cluster::PodIndex> v(c.node(node).pods.begin(), c.node(node).pods.end());
    std::sort(v.begin(), v.end());
    return v;
  };
  const auto list_of = [](const CandidateCheck& check) {
    REQUIRE(check.candidate.has_value());
    const auto span = check.candidate->reschedulable.span();
    return std::vector<cluster::PodIndex>(span.begin(), span.end());
  };

  // Bound in an order that is not the index order (the list is sorted).
  for (const std::size_t i : {2U, 0U, 1U}) {
    c.bind(pods[i], node, 0);
  }
  const CandidateCheck held = make_candidate(ctx, node, DisruptionClass::graceful);
  const auto held_list = list_of(held);
  CHECK(held_list == std::vector<cluster::PodIndex>{pods[0], pods[1], pods[2]});

  // The list changes while `held` shares the memo's: a new list is made, the held one stays.
  c.bind(pods[4], node, 0);
  CandidateCheck check;
  make_candidate(ctx, node, DisruptionClass::graceful, check);
  CHECK(list_of(check) == sorted_pods());
  CHECK(list_of(held) == held_list);

  // Made again into the same check, which alone shared the memo's list: written in place.
  const auto* before = check.candidate->reschedulable.span().data();
  c.bind(pods[3], node, 0);
  c.unbind(pods[0], 0);
  make_candidate(ctx, node, DisruptionClass::graceful, check);
  CHECK(check.candidate->reschedulable.span().data() == before);
  CHECK(list_of(check) == sorted_pods());
  CHECK(list_of(held) == held_list);

  // A check made into from one that was blocked or held another node's answer is as a fresh one.
  CandidateCheck reused;
  reused.blocked = "left over";
  reused.lasting = true;
  make_candidate(ctx, node, DisruptionClass::graceful, reused);
  const CandidateCheck fresh = make_candidate(ctx, node, DisruptionClass::graceful);
  CHECK(reused.blocked == fresh.blocked);
  CHECK(reused.lasting == fresh.lasting);
  CHECK(reused.all_cost == fresh.all_cost);
  CHECK(list_of(reused) == list_of(fresh));
}

TEST_CASE("make_candidate: a NodePool's new revision gives the memo its new instance types", "[disruption][candidates]")
{
  // A later EC2NodeClass version rebuilds its NodePools' types (new objects, e.g. more pods per
  // node): a memo derived before must answer with the type the NodePool offers now.
  MemoCluster mc;
  const auto node = mc.node("node-0", 10 * k_hour);
  CandidateMemos memo;
  CandidateContext with = mc.context(&memo);
  with.now = k_hour;
  mc.pools[0].revision = 1;
  const auto before = make_candidate(with, node, DisruptionClass::graceful);
  REQUIRE(before.candidate.has_value());
  CHECK(before.candidate->instance_type == &mc.types[2]);

  std::vector<catalog::InstanceType> rebuilt = mc.types;
  rebuilt[2].offerings.front().price_per_hour *= 2;
  std::vector<const catalog::InstanceType*> offered;
  for (const auto& t : rebuilt) {
    offered.push_back(&t);
  }
  mc.pools[0].instance_types = make_type_list(offered);
  mc.pools[0].revision = 2;
  const auto after = make_candidate(with, node, DisruptionClass::graceful);
  CandidateContext without = mc.context(nullptr);
  without.now = with.now;
  const auto fresh = make_candidate(without, node, DisruptionClass::graceful);
  REQUIRE(after.candidate.has_value());
  REQUIRE(fresh.candidate.has_value());
  CHECK(after.candidate->instance_type == &rebuilt[2]);
  CHECK(after.candidate->price == fresh.candidate->price);
  CHECK(after.candidate->price == 2 * before.candidate->price);
}

TEST_CASE("make_candidate: memos kept up binding by binding equal fresh ones bit for bit", "[disruption][candidates]")
{
  // Eviction costs of every kind (clamped both ways, fractions of 2^-27, extreme deletion costs)
  // over three nodes whose pods come and go at random; each node's memo is brought up to date
  // by the bindings since it was made and must equal a fresh look at its pods.
  MemoCluster mc;
  auto& c = mc.c;
  std::vector<cluster::NodeIndex> nodes;
  for (int i = 0; i < 3; ++i) {
    nodes.push_back(mc.node("node-" + std::to_string(i), i == 0 ? 10 * k_hour : -1));
  }
  const std::vector<std::pair<std::int32_t, std::int64_t>> costs = {
      {0, 0}, {1, 0}, {-1, 3}, {1 << 26, 0}, {0, -(1LL << 29)}, {2'000'000'000, 0}, {-2'000'000'000, 0},
      {0, std::numeric_limits<std::int64_t>::max()}, {0, std::numeric_limits<std::int64_t>::min()}, {12345, -987654321},
      {-33554432, 0}, {7, (1LL << 53) + 1}};
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 40; ++i) {
    auto s = std::make_shared<model::PodSpec>();
    const auto& [priority, deletion] = costs[static_cast<std::size_t>(i) % costs.size()];
    s->priority = priority;
    s->deletion_cost = deletion;
    s->do_not_disrupt = i % 7 == 3 ? k_never : 0;
    model::Pod p;
    p.name = "pod-" + std::to_string(i);
    p.spec = i % 11 == 5 ? nullptr : model::PodSpecPtr(s);
    pods.push_back(c.add_pod(p));
  }
  CandidateMemos memo;
  CandidateContext with = mc.context(&memo);
  CandidateContext without = mc.context(nullptr);
  Rng rng(11);
  SimTime now = 0;
  int compared = 0;
  for (int step = 0; step < 600; ++step) {
    now += k_minute;
    const auto p = pods[rng.below(pods.size())];
    if (c.pod(p).node == cluster::k_none) {
      c.bind(p, nodes[rng.below(nodes.size())], now);
      c.pod_mut(p).started_at = now;
    } else {
      c.unbind(p, now);
    }
    if (rng.below(3) != 0) {
      continue; // several bindings between looks
    }
    with.now = without.now = now;
    for (const auto n : nodes) {
      const auto a = make_candidate(with, n, DisruptionClass::eventual);
      const auto b = make_candidate(without, n, DisruptionClass::eventual);
      REQUIRE(a.blocked == b.blocked);
      REQUIRE(a.candidate.has_value() == b.candidate.has_value());
      if (b.candidate) {
        CHECK(a.candidate->reschedulable == b.candidate->reschedulable);
        CHECK(a.candidate->plain_pods == b.candidate->plain_pods);
        // Bit for bit: == on doubles, and the same bytes.
        CHECK(std::memcmp(&a.candidate->reschedule_cost, &b.candidate->reschedule_cost, sizeof(double)) == 0);
        CHECK(std::memcmp(&a.candidate->disruption_cost, &b.candidate->disruption_cost, sizeof(double)) == 0);
        ++compared;
      }
    }
  }
  CHECK(compared > 150); // the rest were blocked by do-not-disrupt pods, as they are without the memo
}

TEST_CASE("CandidateChecks answers as make_candidate does now while keeping answers from step to step",
          "[disruption][candidates]")
{
  // NodePool nodes (two expiring) and a static one; at random, pods bind and leave (some ask for
  // do-not-disrupt for a while), nodes are nominated, queued, annotated, lose readiness, join
  // and leave, and the clock moves. After each step every answer must be make_candidate's now,
  // and the candidates that may be empty are listed. The kept checks know when the last
  // nomination ends, as the controllers tell them; the fresh ones ask for every node. With a PDB
  // over some of the pods, answers also change with pods elsewhere.
  const bool with_pdb = GENERATE(false, true);
  // The kept checks either read a log of the nominations made, as the controllers give it, or
  // ask every node whether it is nominated.
  const bool logged = GENERATE(false, true);
  MemoCluster mc;
  auto& c = mc.c;
  std::vector<cluster::NodeIndex> nodes;
  for (int i = 0; i < 5; ++i) {
    nodes.push_back(mc.node("node-" + std::to_string(i), i < 2 ? (6 + i) * k_hour : -1));
  }
  {
    cluster::NodeState s;
    s.name = "static";
    s.lifecycle = cluster::NodeLifecycle::ready;
    nodes.push_back(c.add_node(s));
  }
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 30; ++i) {
    auto s = std::make_shared<model::PodSpec>();
    s->priority = i % 5;
    s->do_not_disrupt = i % 6 == 1 ? 4 * k_minute : 0;
    if (i % 3 == 0) {
      s->labels = {{"app", "test"}};
    }
    model::Pod p;
    p.name = "pod-" + std::to_string(i);
    p.spec = model::PodSpecPtr(s);
    pods.push_back(c.add_pod(p));
  }
  std::vector<SimTime> nominated;
  std::vector<cluster::NodeIndex> nomination_log;
  SimTime nominations_end = -1;
  std::vector<cluster::NodeIndex> queued;
  std::uint64_t queue_version = 0;
  std::uint64_t refreshed_version = 0;
  std::size_t walks = 0; // refreshes that must walk every node: the first and each new queue
  CandidateMemos memo;
  CandidateContext with = mc.context(&memo);
  CandidateContext without = mc.context(nullptr);
  for (auto* ctx : {&with, &without}) {
    ctx->in_queue = [&queued](cluster::NodeIndex n) {
      return std::find(queued.begin(), queued.end(), n) != queued.end();
    };
  }
  std::vector<model::PodDisruptionBudget> budgets(1);
  budgets[0].name = "some";
  budgets[0].selector.match_labels = {{"app", "test"}};
  budgets[0].min_available = "4";
  CandidateChecks checks;
  AdmittedOrder admitted;
  std::size_t admitted_total = 0; // candidates listed in order, over the steps
  std::size_t waiting = 0;        // candidates not admitted yet, over the steps
  Rng rng(5);
  SimTime now = 0;
  std::size_t candidates = 0;
  std::size_t empty = 0;
  std::size_t blocked = 0;
  std::size_t pdb_blocked = 0;
  for (int step = 0; step < 800; ++step) {
    now += static_cast<SimTime>(rng.below(4)) * 30 * k_second;
    const auto& alive = c.alive_node_indices();
    const auto n = alive[rng.below(alive.size())];
    switch (rng.below(10)) {
    case 0:
    case 1:
    case 2:
    case 3: {
      const auto p = pods[rng.below(pods.size())];
      if (c.pod(p).node == cluster::k_none) {
        c.bind(p, n, now);
        c.pod_mut(p).started_at = now;
      } else {
        c.unbind(p, now);
        c.set_pending(p, now);
      }
      break;
    }
    case 4:
      nominated.resize(c.nodes().size(), -1);
      nominated[n] = now + static_cast<SimTime>(rng.below(3)) * k_minute;
      nomination_log.push_back(n);
      nominations_end = std::max(nominations_end, nominated[n]);
      break;
    case 5:
      if (const auto it = std::find(queued.begin(), queued.end(), n); it != queued.end()) {
        queued.erase(it);
      } else {
        queued.push_back(n);
      }
      ++queue_version;
      break;
    case 6: c.node_mut(n).do_not_disrupt = !c.node(n).do_not_disrupt; break;
    case 7: {
      auto& node = c.node_mut(n);
      node.lifecycle = node.lifecycle == cluster::NodeLifecycle::ready ? cluster::NodeLifecycle::registered
                                                                        : cluster::NodeLifecycle::ready;
      break;
    }
    case 8: {
      // (Every other name the same in its first 16 bytes: the order compares such names whole.)
      const std::string name = (nodes.size() % 2 == 0 ? "default-nodepool-" : "node-") + std::to_string(nodes.size());
      nodes.push_back(mc.node(name, rng.below(2) == 0 ? now + k_hour : -1));
      break;
    }
    default:
      if (alive.size() > 3 && c.node(n).owner == cluster::NodeOwner::node_pool) {
        while (!c.node(n).pods.empty()) {
          c.unbind(c.node(n).pods.back(), now);
        }
        c.mark_terminated(n, now);
      }
      break;
    }
    with.now = without.now = now;
    with.nominations[0] = without.nominations[0] = nominated;
    with.nominations_end = nominations_end;
    if (logged) {
      with.nomination_logs = std::array<std::span<const cluster::NodeIndex>, 2>{nomination_log, {}};
    }
    std::optional<PdbLimits> limits;
    if (with_pdb) {
      limits.emplace(budgets, c);
      with.pdbs = without.pdbs = &*limits;
    }
    if (step == 0 || queue_version != refreshed_version) {
      ++walks;
    }
    refreshed_version = queue_version;
    const auto& entries = checks.refresh(with, queue_version);
    // (Nodes join at the end only: every other refresh reads the logs.)
    REQUIRE(checks.walks() == walks);
    std::vector<std::uint32_t> maybe_empty;
    std::size_t at = 0;
    for (const auto node : c.alive_node_indices()) {
      if (c.node(node).owner != cluster::NodeOwner::node_pool) {
        continue;
      }
      REQUIRE(at < entries.size());
      REQUIRE(entries[at].node == node);
      const auto& kept = entries[at++].check;
      const auto fresh = make_candidate(without, node, DisruptionClass::graceful);
      REQUIRE(kept.blocked == fresh.blocked);
      REQUIRE(kept.candidate.has_value() == fresh.candidate.has_value());
      if (fresh.candidate) {
        if (is_empty(*fresh.candidate, true) || is_empty(*fresh.candidate, false)) {
          maybe_empty.push_back(static_cast<std::uint32_t>(at - 1));
          ++empty;
        }
        CHECK(kept.candidate->reschedulable == fresh.candidate->reschedulable);
        CHECK(kept.candidate->pods_revision == fresh.candidate->pods_revision);
        CHECK(kept.candidate->spot == fresh.candidate->spot);
        CHECK(std::memcmp(&kept.candidate->reschedule_cost, &fresh.candidate->reschedule_cost, sizeof(double)) == 0);
        CHECK(std::memcmp(&kept.candidate->disruption_cost, &fresh.candidate->disruption_cost, sizeof(double)) == 0);
        ++candidates;
      } else if (!fresh.blocked.empty()) {
        ++blocked;
        pdb_blocked += fresh.blocked.find(": PDB ") != std::string::npos ? 1 : 0;
      }
    }
    REQUIRE(at == entries.size());
    CHECK(checks.maybe_empty() == maybe_empty);
    // Consolidation's admitted candidates in order, kept from step to step (read at two steps of
    // three, so that changes pile up between reads), are a fresh listing sorted. A candidate is
    // admitted from a time its node's last pod event sets (minutes later, or more than a day for
    // others, so that waits made void pile up and are swept out), or never.
    if (step % 3 != 1) {
      const auto due = [&c](const CandidateChecks::Entry& e) {
        SimTime& d = e.due[1];
        if (d == CandidateChecks::Entry::k_unknown) {
          const SimTime after = e.node % 5 == 4   ? 40 * k_minute
                                : e.node % 5 == 2 ? 30 * k_hour
                                                  : static_cast<SimTime>(e.node % 4) * k_minute;
          d = e.node % 7 == 3 ? k_never : std::max<SimTime>(c.node(e.node).last_pod_event, 0) + after;
        }
        return d;
      };
      std::vector<const Candidate*> kept_order;
      REQUIRE(admitted.list(checks, c, now, due, kept_order));
      std::vector<const Candidate*> expected;
      for (const auto& e : entries) {
        if (e.check.candidate) {
          const SimTime d = due(e);
          waiting += d != k_never && now < d ? 1 : 0;
          if (d != k_never && now >= d) {
            expected.push_back(&*e.check.candidate);
          }
        }
      }
      sort_candidates(expected, "1.6", c);
      CHECK(kept_order == expected);
      admitted_total += expected.size();
    }
  }
  CHECK(admitted_total > 300);
  CHECK(waiting > 50);
  CHECK(candidates > 500);
  CHECK(empty > 100);
  CHECK(blocked > 200);
  if (with_pdb) {
    CHECK(pdb_blocked > 50);
  } else {
    CHECK(pdb_blocked == 0);
  }
}

TEST_CASE("AdmittedOrder admits a waiting candidate when its time comes through the sweeps of void waits",
          "[disruption][candidates]")
{
  // Node `churned` gets a pod bound and unbound every 20 s, each change a new wait 10 h away
  // that makes the last one void; node `waiting` changes once and is admitted 30 minutes later;
  // node `steady` is admitted from the start. (Before any change, the first two wait 10 h and
  // 30 minutes from time 0.)
  MemoCluster mc;
  auto& c = mc.c;
  const auto churned = mc.node("churned", -1);
  const auto waiting = mc.node("waiting", -1);
  const auto steady = mc.node("steady", -1);
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 2; ++i) {
    model::Pod p;
    p.name = "pod-" + std::to_string(i);
    p.spec = std::make_shared<model::PodSpec>();
    pods.push_back(c.add_pod(p));
  }
  const auto due = [&](const CandidateChecks::Entry& e) {
    SimTime& d = e.due[1];
    if (d == CandidateChecks::Entry::k_unknown) {
      const auto last = std::max<SimTime>(c.node(e.node).last_pod_event, 0);
      d = e.node == churned ? last + 10 * k_hour : e.node == waiting ? last + 30 * k_minute : 0;
    }
    return d;
  };
  CandidateMemos memo;
  CandidateContext ctx = mc.context(&memo);
  CandidateChecks checks;
  AdmittedOrder order;
  const auto admitted = [&](SimTime now) {
    ctx.now = now;
    checks.refresh(ctx, 0);
    std::vector<const Candidate*> out;
    REQUIRE(order.list(checks, c, now, due, out));
    std::vector<cluster::NodeIndex> nodes;
    for (const Candidate* cand : out) {
      nodes.push_back(cand->node);
    }
    std::sort(nodes.begin(), nodes.end());
    return nodes;
  };
  const std::vector<cluster::NodeIndex> all = {churned, waiting, steady};
  CHECK(admitted(0) == std::vector<cluster::NodeIndex>{steady});
  SimTime now = k_minute;
  c.bind(pods[1], waiting, now);
  CHECK(admitted(now) == std::vector<cluster::NodeIndex>{steady});
  // 100 changes of `churned` over 33 minutes: its waits pile up past a sweep's threshold (two per
  // entry and 16) several times.
  for (int i = 0; i < 100; ++i) {
    now += 20 * k_second;
    if (c.pod(pods[0]).node == cluster::k_none) {
      c.bind(pods[0], churned, now);
    } else {
      c.unbind(pods[0], now);
      c.set_pending(pods[0], now);
    }
    const auto expected = now >= k_minute + 30 * k_minute ? std::vector<cluster::NodeIndex>{waiting, steady}
                                                          : std::vector<cluster::NodeIndex>{steady};
    REQUIRE(admitted(now) == expected);
  }
  CHECK(admitted(now + 10 * k_hour) == all);
}

TEST_CASE("sort_candidates: savings ratio descending (1.13: disruption cost ascending), then node name and index",
          "[disruption][candidates]")
{
  // Few distinct prices, costs and names, so every tie-break is reached.
  cluster::Cluster c;
  std::uint64_t state = 42;
  const auto next = [&state](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  // Names around the 16 bytes the sort compares packed: prefixes of each other, long names equal
  // in their first 16 bytes, bytes above 0x7f.
  const std::vector<std::string> names = {"a",
                                          "ab",
                                          "z",
                                          "default-nodepool",
                                          "default-nodepoo",
                                          "default-nodepool-",
                                          "default-nodepool-abcd",
                                          "default-nodepool-abcde",
                                          "default-nodepool-abcdf",
                                          "default-nodepool-abcdf-and-more",
                                          "n\xc3\xa9ud-1",
                                          "n\x7fud-1"};
  std::vector<Candidate> candidates;
  for (int i = 0; i < 300; ++i) {
    cluster::NodeState n;
    n.name = next(2) == 0 ? "node-" + std::to_string(next(40)) : names[next(names.size())];
    n.lifecycle = cluster::NodeLifecycle::ready;
    Candidate cand;
    cand.node = c.add_node(n);
    cand.price = 0.1 * static_cast<double>(1 + next(4));
    cand.reschedule_cost = 1.0 + static_cast<double>(next(3));
    cand.disruption_cost = static_cast<double>(next(5));
    cand.reschedulable = PodList(std::vector<cluster::PodIndex>(next(4), static_cast<cluster::PodIndex>(i))); // moved along with its candidate
    candidates.push_back(cand);
  }
  for (const std::string version : {"1.13", "1.6"}) {
    CAPTURE(version);
    const bool v113 = version == "1.13";
    auto sorted = candidates;
    sort_candidates(sorted, version, c);
    REQUIRE(sorted.size() == candidates.size());
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      const auto& a = sorted[i - 1];
      const auto& b = sorted[i];
      const double ka = v113 ? a.disruption_cost : -a.savings_ratio();
      const double kb = v113 ? b.disruption_cost : -b.savings_ratio();
      REQUIRE(ka <= kb);
      if (ka == kb) {
        const auto& na = c.node(a.node).name;
        const auto& nb = c.node(b.node).name;
        REQUIRE(na <= nb);
        if (na == nb) {
          REQUIRE(a.node < b.node);
        }
      }
    }
    const auto nodes_of = [](const std::vector<Candidate>& list) {
      std::vector<cluster::NodeIndex> out;
      for (const auto& x : list) {
        out.push_back(x.node);
      }
      return out;
    };
    // Each candidate kept its own fields.
    for (const auto& s : sorted) {
      const auto& original = candidates[s.node];
      CHECK(s.price == original.price);
      CHECK(s.reschedule_cost == original.reschedule_cost);
      CHECK(s.disruption_cost == original.disruption_cost);
      CHECK(s.reschedulable == original.reschedulable);
    }
    // The overload over pointers (how a disruption pass lists its candidates) orders them the
    // same, with its own memo or none, and moves only the pointers.
    CandidateOrder pointer_memo;
    const auto pointers_sorted = [&](const std::vector<Candidate>& list, CandidateOrder* m) {
      std::vector<const Candidate*> pointers;
      for (const auto& x : list) {
        pointers.push_back(&x);
      }
      sort_candidates(pointers, version, c, m);
      std::vector<cluster::NodeIndex> out;
      for (const auto* x : pointers) {
        const auto at = static_cast<std::size_t>(x - list.data());
        REQUIRE(at < list.size()); // points into the list
        out.push_back(list[at].node);
      }
      return out;
    };
    CHECK(pointers_sorted(candidates, nullptr) == nodes_of(sorted));
    // With a memo: the same input is put in the remembered order, a changed one sorted anew.
    CandidateOrder memo;
    auto input = candidates;
    for (int round = 0; round < 6; ++round) {
      CAPTURE(round);
      if (round == 2 || round == 4) {
        input[next(input.size())].price = 0.05 * static_cast<double>(1 + next(9)); // a new key
      }
      if (round == 5) { // two candidates with the same key (other names) swap places
        const auto key = [&](const Candidate& x) { return v113 ? x.disruption_cost : -x.savings_ratio(); };
        for (std::size_t j = 1; j < input.size(); ++j) {
          if (key(input[j]) == key(input[0]) && c.node(input[j].node).name != c.node(input[0].node).name) {
            std::swap(input[0], input[j]);
            break;
          }
        }
      }
      auto expected = input;
      sort_candidates(expected, version, c);
      auto remembered = input;
      sort_candidates(remembered, version, c, &memo);
      CHECK(nodes_of(remembered) == nodes_of(expected));
      CHECK(pointers_sorted(input, &pointer_memo) == nodes_of(expected));
    }
    // Polls that drop candidates, add them back in other places, change a few keys or turn the
    // whole order around: the remembered order is only a starting point.
    auto pool = candidates;
    for (int round = 0; round < 40; ++round) {
      CAPTURE(round);
      auto list = input;
      if (round % 3 == 0 && list.size() > 2) {
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(next(list.size())));
      }
      if (round % 4 == 1) {
        list.insert(list.begin() + static_cast<std::ptrdiff_t>(next(list.size() + 1)), pool[next(pool.size())]);
        std::sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) { return a.node < b.node; });
        list.erase(std::unique(list.begin(), list.end(),
                               [](const Candidate& a, const Candidate& b) { return a.node == b.node; }),
                   list.end());
      }
      for (std::size_t k = next(3); k > 0; --k) {
        list[next(list.size())].price = 0.05 * static_cast<double>(1 + next(9));
      }
      if (round % 10 == 7) {
        for (auto& x : list) { // every key changes: far from the remembered order
          x.price = 1.0 / (1.0 + x.price);
          x.disruption_cost = -x.disruption_cost;
        }
      }
      auto expected = list;
      sort_candidates(expected, version, c);
      auto remembered = list;
      sort_candidates(remembered, version, c, &memo);
      CHECK(nodes_of(remembered) == nodes_of(expected));
      CHECK(pointers_sorted(list, &pointer_memo) == nodes_of(expected));
      input = list;
    }
    // A node listed twice (not something a poll makes) is sorted like the others, and a memo
    // that remembers it twice keeps every entry once.
    for (int round = 0; round < 3; ++round) {
      CAPTURE(round);
      auto list = input;
      list.push_back(list.front());
      list[next(list.size() - 1) + 1].price = 0.05 * static_cast<double>(1 + next(9));
      auto expected = list;
      sort_candidates(expected, version, c);
      auto remembered = list;
      sort_candidates(remembered, version, c, &memo);
      CHECK(nodes_of(remembered) == nodes_of(expected));
      // The pointers' remembered order leaves such a list to the full sort, and keeps working after.
      CHECK(pointers_sorted(list, &pointer_memo) == nodes_of(expected));
      CHECK(pointers_sorted(input, &pointer_memo) == pointers_sorted(input, nullptr));
    }
    // A NaN key (no price over no reschedule cost) orders nothing: the remembered order is not
    // trusted with it, and is taken up again once it is gone.
    auto with_nan = input;
    with_nan[next(with_nan.size())].price = 0;
    for (auto& x : with_nan) {
      if (x.price == 0) {
        x.reschedule_cost = 0;
        x.disruption_cost = std::numeric_limits<double>::quiet_NaN();
      }
    }
    CHECK(pointers_sorted(with_nan, &pointer_memo) == pointers_sorted(with_nan, nullptr));
    auto expected = input;
    sort_candidates(expected, version, c);
    CHECK(pointers_sorted(input, &pointer_memo) == nodes_of(expected));
    input[next(input.size())].price = 0.05 * static_cast<double>(1 + next(9));
    expected = input;
    sort_candidates(expected, version, c);
    CHECK(pointers_sorted(input, &pointer_memo) == nodes_of(expected));
  }
}

} // namespace capsim::karpenter::dtest

namespace capsim::karpenter::dtest {

TEST_CASE("single-node consolidation interleaves NodePools round-robin, keeping each pool's order", "[disruption]")
{
  const auto make = [](std::vector<std::uint32_t> pools) {
    std::vector<Candidate> out;
    for (std::size_t i = 0; i < pools.size(); ++i) {
      Candidate c;
      c.node = static_cast<cluster::NodeIndex>(i);
      c.pool = pools[i];
      out.push_back(c);
    }
    return out;
  };
  const auto nodes_of = [](const std::vector<const Candidate*>& list) {
    std::vector<cluster::NodeIndex> out;
    for (const auto* c : list) {
      out.push_back(c->node);
    }
    return out;
  };
  // Pools 2, 0, 2, 1, 0, 2 in sorted order: round one takes pool 0's first (node 1), pool 1's
  // (node 3), pool 2's (node 0); round two pool 0's second (4) and pool 2's second (2); then 5.
  const auto mixed = make({2, 0, 2, 1, 0, 2});
  CHECK(nodes_of(interleave_pools(mixed)) == std::vector<cluster::NodeIndex>{1, 3, 0, 4, 2, 5});
  // One pool: the sorted order itself, into a reused list.
  const auto single = make({7, 7, 7, 7});
  std::vector<const Candidate*> out{&mixed[0], &mixed[1], &mixed[2], &mixed[3], &mixed[4], &mixed[5], &mixed[0]};
  interleave_pools(single, out);
  CHECK(nodes_of(out) == std::vector<cluster::NodeIndex>{0, 1, 2, 3});
  CHECK(out.front() == &single.front());
  interleave_pools(mixed, out);
  CHECK(nodes_of(out) == std::vector<cluster::NodeIndex>{1, 3, 0, 4, 2, 5});
  CHECK(interleave_pools(std::vector<Candidate>{}).empty());
  // Over pointers to the sorted candidates: the same order, pointing at the same candidates.
  std::vector<const Candidate*> sorted_pointers;
  for (const auto& c : mixed) {
    sorted_pointers.push_back(&c);
  }
  std::vector<const Candidate*> from_pointers;
  interleave_pools(sorted_pointers, from_pointers);
  CHECK(from_pointers == interleave_pools(mixed));
  interleave_pools(std::vector<const Candidate*>{&single[0], &single[1]}, from_pointers);
  CHECK(from_pointers == std::vector<const Candidate*>{&single[0], &single[1]});
}

} // namespace capsim::karpenter::dtest
