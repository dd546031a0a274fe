// Further cases ported from Karpenter's topology suite, kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/topology_test.go (Describe "Topology" and "Taints"):
// fake default catalog, NodePool with capacity-type Exists, the upstream expectations. Each case
// names its Describe/Context path and It() text. Cases tagged [.gap] keep the upstream
// expectation where capsim differs (hidden).

#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <set>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

const model::Labels k_labels{{"test", "test"}};
const model::Labels k_aff{{"security", "s2"}};

model::NodePool& topology_pool(Env& env, const std::string& name = "default")
{
  auto& np = env.node_pool(name);
  np.requirements.add(req(k_ct, Operator::exists));
  return np;
}

// nodePool.Spec.Template.Spec.Requirements = {...}: replaces every requirement.
void replace_requirements(Env& env, model::NodePool& np, const std::vector<Requirement>& reqs)
{
  np.requirements = model::Requirements{};
  for (const auto& r : reqs) {
    np.requirements.add(r);
  }
  env.cache.clear();
}

PodOptions spread_pod(std::vector<model::TopologySpreadConstraint> tscs, std::int64_t cpu_milli = 0)
{
  PodOptions o;
  o.labels = k_labels;
  o.spread = std::move(tscs);
  o.cpu_milli = cpu_milli;
  return o;
}

PodOptions self_affinity_pod(const std::string& key)
{
  PodOptions o;
  o.labels = k_aff;
  o.pod_requirements = {affinity_term(key, k_aff)};
  return o;
}

std::vector<int> v(std::initializer_list<int> xs)
{
  std::vector<int> out(xs);
  std::sort(out.begin(), out.end());
  return out;
}

// ExpectMaxSkew: largest minus smallest count over the domains that hold a matching pod.
int max_skew(const Env& env, const std::string& key)
{
  const auto counts = env.skew(key, match_labels(k_labels));
  return counts.empty() ? 0 : counts.back() - counts.front();
}

model::Resources cpu_only(std::int64_t milli)
{
  model::Resources r;
  r[model::k_cpu] = milli;
  return r;
}

} // namespace

// --- Zonal --------------------------------------------------------------------------------------

TEST_CASE("topology_test.go Topology/Zonal: should respect NodePool zonal constraints (subset) with requirements and "
          "labels",
          "[karpenter][upstream][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  replace_requirements(env, np, {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"})});
  np.template_labels = {{k_zone, "test-zone-1"}};
  env.provision(env.pods(spread_pod({spread(k_zone, k_labels)}), 4));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({4}));
}

// --- CapacityType -------------------------------------------------------------------------------

TEST_CASE("topology_test.go Topology/CapacityType: should respect NodePool capacity type constraints",
          "[karpenter][upstream][topology]")
{
  Env env;
  replace_requirements(env, topology_pool(env), {req(k_ct, Operator::in, {"spot", "on-demand"})});
  env.provision(env.pods(spread_pod({spread(k_ct, k_labels)}), 4));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({2, 2}));
}

TEST_CASE("topology_test.go Topology/CapacityType: should only count running/scheduled pods with matching labels "
          "scheduled to nodes with a corresponding domain",
          "[karpenter][upstream][topology]")
{
  Env env;
  topology_pool(env);
  const auto first = env.node("first", {{k_ct, "spot"}}, {});
  const auto second = env.node("second", {{k_ct, "on-demand"}}, {});
  const auto third = env.node("third", {}, {}); // missing topology capacity type
  env.bind(env.pod(), first);                   // ignored, missing labels
  PodOptions labelled;
  labelled.labels = k_labels;
  // (upstream's pending pod without the unschedulable condition and its terminating pod are not
  // provisionable: no capsim counterpart)
  env.bind(env.pod(labelled), third); // ignored, no domain on node
  PodOptions other_ns = labelled;
  other_ns.ns = "wrong-namespace";
  env.bind(env.pod(other_ns), first); // ignored, wrong namespace
  const auto failed = env.pod(labelled);
  env.bind(failed, first);
  env.remove(failed); // ignored, phase=Failed (finished)
  env.bind(env.pod(labelled), first);
  env.bind(env.pod(labelled), first);
  env.bind(env.pod(labelled), second);
  const auto pods = env.pods(spread_pod({spread(k_ct, k_labels)}), 2);
  env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({2, 3}));
}

TEST_CASE("topology_test.go Topology/CapacityType: should balance pods across capacity-types (node required affinity "
          "constrained)",
          "[karpenter][upstream][topology]")
{
  Env env;
  topology_pool(env);
  PodOptions first;
  first.labels = k_labels;
  first.node_requirements = {req(k_zone, Operator::in, {"test-zone-1"}), req(k_ct, Operator::in, {"on-demand"})};
  const auto p = env.pod(first);
  env.provision(p);
  REQUIRE(env.scheduled(p));
  // restricted to test-zone-2 spot: the on-demand pod in zone 1 does not count for this spread
  PodOptions o = spread_pod({spread(k_ct, k_labels)});
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-2"}), req(k_ct, Operator::in, {"spot"})};
  env.provision(env.pods(o, 5));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({1, 5}));
}

TEST_CASE("topology_test.go Topology/CapacityType: should balance pods across capacity-types (no constraints)",
          "[karpenter][upstream][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  PodOptions first;
  first.labels = k_labels;
  first.node_selector = {{k_it, "single-pod-instance-type"}};
  first.node_requirements = {req(k_ct, Operator::in, {"on-demand"})};
  const auto p = env.pod(first);
  env.provision(p);
  REQUIRE(env.scheduled(p));
  replace_requirements(env, np, {req(k_ct, Operator::in, {"spot"})});
  // the single on-demand node limits us to 2 more spot pods before max-skew is violated
  env.provision(env.pods(spread_pod({spread(k_ct, k_labels)}, 2000), 5));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({1, 2}));
}

TEST_CASE("topology_test.go Topology/CapacityType: should balance pods across arch (no constraints)",
          "[karpenter][upstream][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  PodOptions first;
  first.labels = k_labels;
  first.node_selector = {{k_it, "single-pod-instance-type"}};
  first.node_requirements = {req(k_arch, Operator::in, {"amd64"})};
  const auto p = env.pod(first);
  env.provision(p);
  REQUIRE(env.scheduled(p));
  replace_requirements(env, np, {req(k_arch, Operator::in, {"arm64"})});
  env.provision(env.pods(spread_pod({spread(k_arch, k_labels)}, 2000), 5));
  CHECK(env.skew(k_arch, match_labels(k_labels)) == v({1, 2}));
}

// --- Combined Hostname and Zonal Topology -------------------------------------------------------

TEST_CASE("topology_test.go Topology/Combined Hostname and Zonal Topology: should balance pods across NodePool "
          "requirements",
          "[karpenter][upstream][topology]")
{
  const std::string key = "capacity.spread.4-1";
  Env env;
  auto& spot = env.node_pool("spot-nodepool");
  spot.requirements.add(req(k_ct, Operator::in, {"spot"}));
  spot.requirements.add(req(key, Operator::in, {"2", "3", "4", "5"}));
  auto& od = env.node_pool("on-demand-nodepool");
  od.requirements.add(req(k_ct, Operator::in, {"on-demand"}));
  od.requirements.add(req(key, Operator::in, {"1"}));
  const auto pods = env.pods(spread_pod({spread(key, k_labels)}), 20);
  env.provision(pods);
  for (const auto p : pods) {
    CHECK(env.scheduled(p));
  }
  CHECK(env.skew(key, match_labels(k_labels)) == v({4, 4, 4, 4, 4}));
  // due to the spread across nodePools, we've forced a 4:1 spot to on-demand spread
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({4, 16}));
}

TEST_CASE("topology_test.go Topology/Combined Hostname and Zonal Topology: should spread pods while respecting both "
          "constraints (zonal DoNotSchedule, hostname ScheduleAnyway, disabled NodePool in test-zone-3)",
          "[karpenter][upstream][topology]")
{
  Env env;
  replace_requirements(env, topology_pool(env), {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"})});
  // a second nodePool that can't provision at all
  auto& b = env.node_pool("nodepool-b");
  b.requirements.add(req(k_zone, Operator::in, {"test-zone-3"}));
  model::Resources limits;
  limits.v.fill(std::numeric_limits<std::int64_t>::max());
  limits[model::k_cpu] = 0;
  b.limits = limits;
  const auto zonal = spread(k_zone, k_labels);
  const auto host = spread(k_host, k_labels, 1, false);
  env.provision(env.pods(spread_pod({zonal, host}), 10));
  // one pod per zone: test-zone-3 cannot be provisioned, its nodePool is effectively disabled
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1}));
  // and one pod per node
  CHECK(env.skew(k_host, match_labels(k_labels)) == v({1, 1}));
}

TEST_CASE("topology_test.go Topology/Combined Hostname and Zonal Topology: should spread pods while respecting both "
          "constraints (capacity type DoNotSchedule, hostname maxSkew 3)",
          "[karpenter][upstream][topology]")
{
  Env env;
  topology_pool(env);
  const auto ct = spread(k_ct, k_labels);
  const auto host = spread(k_host, k_labels, 3);
  const auto no_host_over_3 = [&] {
    const auto counts = env.skew(k_host, match_labels(k_labels));
    return std::none_of(counts.begin(), counts.end(), [](int c) { return c > 3; });
  };
  env.provision(env.pods(spread_pod({ct, host}), 2));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({1, 1}));
  CHECK(no_host_over_3());
  env.provision(env.pods(spread_pod({ct, host}), 3));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({3, 2}));
  CHECK(no_host_over_3());
  env.provision(env.pods(spread_pod({ct, host}), 5));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({5, 5}));
  CHECK(no_host_over_3());
  env.provision(env.pods(spread_pod({ct, host}), 11));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({11, 10}));
  CHECK(no_host_over_3());
}

// --- NodeTaintsPolicy ---------------------------------------------------------------------------

namespace {

// Two tainted existing nodes (100m CPU) with fake-label foo and bar; the NodePool labels its
// nodes fake-label=baz.
void tainted_label_nodes(Env& env)
{
  topology_pool(env).template_labels = {{"fake-label", "baz"}};
  const model::Taint taint{"taintname", "taintvalue", model::TaintEffect::no_schedule};
  const auto n1 = env.node("node-foo", {{"fake-label", "foo"}}, cpu_only(100));
  const auto n2 = env.node("node-bar", {{"fake-label", "bar"}}, cpu_only(100));
  env.cluster.node_mut(n1).taints = {taint};
  env.cluster.node_mut(n2).taints = {taint};
  env.provision(std::vector<cluster::PodIndex>{});
}

} // namespace

TEST_CASE("topology_test.go Topology/NodeTaintsPolicy: should balance pods across a label (NodeTaintsPolicy=ignore)",
          "[karpenter][upstream][topology][taints]")
{
  Env env;
  tainted_label_nodes(env);
  auto tsc = spread("fake-label", k_labels);
  tsc.node_taints_policy_honor = false;
  env.provision(env.pods(spread_pod({tsc}, 1000), 5));
  // three domains known, but a single pod can go to the only one where nodes can be created
  CHECK(env.skew("fake-label", match_labels(k_labels)) == v({1}));
}

TEST_CASE("topology_test.go Topology/NodeTaintsPolicy: should balance pods across a label (NodeTaintsPolicy=honor)",
          "[karpenter][upstream][topology][taints]")
{
  Env env;
  tainted_label_nodes(env);
  auto tsc = spread("fake-label", k_labels);
  tsc.node_taints_policy_honor = true;
  env.provision(env.pods(spread_pod({tsc}, 1000), 5));
  // the tainted nodes' domains are not counted: every pod schedules in baz
  CHECK(env.skew("fake-label", match_labels(k_labels)) == v({5}));
}

namespace {

void foo_and_tainted_bar_pools(Env& env)
{
  topology_pool(env).requirements.add(req("fake-label", Operator::in, {"foo"}));
  auto& tainted = topology_pool(env, "tainted");
  tainted.taints = {{"taint-key", "taint-value", model::TaintEffect::no_schedule}};
  tainted.requirements.add(req("fake-label", Operator::in, {"bar"}));
}

} // namespace

TEST_CASE("topology_test.go Topology/NodeTaintsPolicy: should balance pods across a label when discovered from the "
          "nodepool (NodeTaintsPolicy=ignore)",
          "[karpenter][upstream][topology][taints]")
{
  Env env;
  foo_and_tainted_bar_pools(env);
  auto tsc = spread("fake-label", k_labels);
  tsc.node_taints_policy_honor = false;
  env.provision(env.pods(spread_pod({tsc}), 2));
  // one pod in domain foo, the other cannot go to bar
  CHECK(env.skew("fake-label", match_labels(k_labels)) == v({1}));
}

TEST_CASE("topology_test.go Topology/NodeTaintsPolicy: should balance pods across a label when discovered from the "
          "nodepool (NodeTaintsPolicy=honor)",
          "[karpenter][upstream][topology][taints]")
{
  Env env;
  foo_and_tainted_bar_pools(env);
  auto tsc = spread("fake-label", k_labels);
  tsc.node_taints_policy_honor = true;
  env.provision(env.pods(spread_pod({tsc}), 2));
  // all pods to domain foo, bar ignored since the pods don't tolerate its taint
  CHECK(env.skew("fake-label", match_labels(k_labels)) == v({2}));
}

TEST_CASE("topology_test.go Topology/NodeTaintsPolicy: should balance pods across a label when mutually exclusive "
          "NodePools (by taints) share domains (NodeTaintsPolicy=honor)",
          "[karpenter][upstream][topology][taints]")
{
  Env env;
  const std::vector<std::vector<std::string>> domains{{"foo", "bar"}, {"foo", "baz"}};
  for (std::size_t i = 0; i < domains.size(); ++i) {
    auto& np = topology_pool(env, "nodepool-" + std::to_string(i));
    np.taints = {{"taint-key", "nodepool-" + std::to_string(i), model::TaintEffect::no_schedule}};
    np.requirements.add(req("fake-label", Operator::in, domains[i]));
  }
  auto tsc = spread("fake-label", k_labels);
  tsc.node_taints_policy_honor = true;
  std::vector<cluster::PodIndex> pods;
  for (std::size_t i = 0; i < domains.size(); ++i) {
    PodOptions o = spread_pod({tsc});
    model::Toleration t;
    t.key = "taint-key";
    t.value = "nodepool-" + std::to_string(i);
    t.effect = model::TaintEffect::no_schedule;
    o.tolerations = {t};
    const auto batch = env.pods(o, static_cast<int>((i + 1) * 2));
    pods.insert(pods.end(), batch.begin(), batch.end());
  }
  env.provision(pods);
  // foo: 2 (either nodepool), bar: 1 (nodepool 0), baz: 3 (nodepool 1)
  CHECK(env.skew("fake-label", match_labels(k_labels)) == v({3, 2, 1}));
}

// --- NodeAffinityPolicy -------------------------------------------------------------------------

namespace {

void mismatched_label_nodes(Env& env)
{
  topology_pool(env).template_labels = {{"fake-label", "baz"}, {"selector", "value"}};
  env.node("node-foo", {{"fake-label", "foo"}, {"selector", "mismatch"}}, cpu_only(100));
  env.node("node-bar", {{"fake-label", "bar"}, {"selector", "mismatch"}}, cpu_only(100));
  env.provision(std::vector<cluster::PodIndex>{});
}

} // namespace

TEST_CASE("topology_test.go Topology/NodeAffinityPolicy: should balance pods across a label "
          "(NodeAffinityPolicy=ignore)",
          "[karpenter][upstream][topology]")
{
  Env env;
  mismatched_label_nodes(env);
  auto tsc = spread("fake-label", k_labels);
  tsc.node_affinity_policy_honor = false;
  PodOptions o = spread_pod({tsc}, 1000);
  o.node_selector = {{"selector", "value"}};
  env.provision(env.pods(o, 5));
  // three domains known, a single pod can go to the one where nodes can be created
  CHECK(env.skew("fake-label", match_labels(k_labels)) == v({1}));
}

TEST_CASE("topology_test.go Topology/NodeAffinityPolicy: should balance pods across a label (NodeAffinityPolicy=honor)",
          "[karpenter][upstream][topology]")
{
  Env env;
  mismatched_label_nodes(env);
  auto tsc = spread("fake-label", k_labels);
  tsc.node_affinity_policy_honor = true;
  PodOptions o = spread_pod({tsc}, 1000);
  o.node_selector = {{"selector", "value"}};
  env.provision(env.pods(o, 5));
  CHECK(env.skew("fake-label", match_labels(k_labels)) == v({5}));
}

// --- Combined Hostname, Zonal, and Capacity Type Topology ---------------------------------------

TEST_CASE("topology_test.go Topology/Combined Hostname, Zonal, and Capacity Type Topology: should spread pods while "
          "respecting all constraints",
          "[karpenter][upstream][topology]")
{
  Env env(testing::fake_instance_types_assorted());
  topology_pool(env);
  const auto ct = spread(k_ct, k_labels, 1);
  const auto zone = spread(k_zone, k_labels, 2);
  const auto host = spread(k_host, k_labels, 3);
  for (int i = 1; i < 15; ++i) {
    const auto pods = env.pods(spread_pod({ct, zone, host}), i);
    env.provision(pods);
    CHECK(max_skew(env, k_ct) <= 1);
    CHECK(max_skew(env, k_zone) <= 2);
    CHECK(max_skew(env, k_host) <= 3);
    for (const auto p : pods) {
      CHECK(env.scheduled(p));
    }
  }
}

// --- Combined Zonal Topology and Node Affinity --------------------------------------------------

TEST_CASE("topology_test.go Topology/Combined Zonal Topology and Node Affinity: should limit spread options by node "
          "requirements",
          "[karpenter][upstream][topology]")
{
  Env env;
  topology_pool(env);
  PodOptions o = spread_pod({spread(k_zone, k_labels)});
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"})};
  env.provision(env.pods(o, 10));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({5, 5}));
}

TEST_CASE("topology_test.go Topology/Combined Zonal Topology and Node Affinity: should limit spread options by "
          "required node affinity",
          "[karpenter][upstream][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  const auto tsc = spread(k_zone, k_labels);
  PodOptions a = spread_pod({tsc});
  a.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"})};
  env.provision(env.pods(a, 6));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({3, 3}));
  // open the nodePool back up so it can see all zones again
  replace_requirements(env, np, {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2", "test-zone-3"})});
  PodOptions b = spread_pod({tsc});
  b.node_requirements = {req(k_zone, Operator::in, {"test-zone-2", "test-zone-3"})};
  env.provision(env.pod(b));
  // it schedules on the empty zone-3 even though max-skew is violated, as that improves it
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({3, 3, 1}));
  env.provision(env.pods(spread_pod({tsc}), 5));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({4, 4, 4}));
}

TEST_CASE("topology_test.go Topology/Combined Zonal Topology and Node Affinity: should not limit spread options by "
          "preferred node affinity",
          "[karpenter][upstream][topology]")
{
  Env env;
  topology_pool(env);
  PodOptions o = spread_pod({spread(k_zone, k_labels)});
  o.node_preferences = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"})};
  env.provision(env.pods(o, 6));
  // scheduling shouldn't be affected since it's a preferred affinity
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({2, 2, 2}));
}

// --- Combined Capacity Type Topology and Node Affinity ------------------------------------------

TEST_CASE("topology_test.go Topology/Combined Capacity Type Topology and Node Affinity: should limit spread options by "
          "node affinity (capacity type)",
          "[karpenter][upstream][topology]")
{
  Env env;
  topology_pool(env);
  const auto tsc = spread(k_ct, k_labels);
  PodOptions spot = spread_pod({tsc});
  spot.node_requirements = {req(k_ct, Operator::in, {"spot"})};
  env.provision(env.pods(spot, 3));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({3}));
  PodOptions both = spread_pod({tsc});
  both.node_requirements = {req(k_ct, Operator::in, {"on-demand", "spot"})};
  env.provision(env.pod(both));
  // it schedules on the empty on-demand even though max-skew is violated, as that improves it
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({3, 1}));
  env.provision(env.pods(spread_pod({tsc}), 5));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({5, 4}));
}

// --- Pod Affinity/Anti-Affinity -----------------------------------------------------------------

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should schedule a pod with empty pod affinity and "
          "anti-affinity",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const auto pod = env.pod(); // empty PodRequirements / PodAntiRequirements
  env.provision(pod);
  CHECK(env.scheduled(pod));
}

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should respect self pod affinity for first empty "
          "topology domain only (hostname)",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const auto pods = env.pods(self_affinity_pod(k_host), 10);
  env.provision(pods);
  std::set<std::string> names;
  int scheduled = 0;
  for (const auto p : pods) {
    if (env.scheduled(p)) {
      names.insert(env.node_of(p).name);
      ++scheduled;
    }
  }
  // the node can only hold 5 pods: a single node with 5 pods, 5 pods unschedulable
  CHECK(names.size() == 1);
  CHECK(scheduled == 5);
  // pods of a different batch do not schedule either, even though the node is not ready yet
  const auto more = env.pods(self_affinity_pod(k_host), 10);
  env.provision(more);
  for (const auto p : more) {
    CHECK_FALSE(env.scheduled(p));
  }
}

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should respect self pod affinity for first empty "
          "topology domain only (hostname/constrained zones)",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  topology_pool(env);
  PodOptions first = self_affinity_pod(k_host);
  first.node_selector = {{k_zone, "test-zone-1"}};
  const auto p = env.pod(first);
  env.provision(p);
  REQUIRE(env.scheduled(p));
  PodOptions o = self_affinity_pod(k_host);
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-2", "test-zone-3"})};
  const auto pods = env.pods(o, 10);
  env.provision(pods);
  for (const auto q : pods) {
    CHECK_FALSE(env.scheduled(q)); // none of these should schedule
  }
}

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should respect self pod affinity (zone)",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const auto pods = env.pods(self_affinity_pod(k_zone), 3);
  env.provision(pods);
  std::set<std::string> names;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    names.insert(env.node_of(p).name);
  }
  CHECK(names.size() == 1);
}

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should allow two nodes to be created when two pods "
          "with matching affinities have incompatible selectors",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels s1{{"security", "s1"}};
  PodOptions a;
  a.labels = s1;
  a.pod_requirements = {affinity_term(k_zone, s1)};
  a.node_requirements = {req(k_zone, Operator::in, {"test-zone-2"})};
  PodOptions b = a;
  b.node_requirements = {req(k_zone, Operator::in, {"test-zone-3"})};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision(std::vector<cluster::PodIndex>{p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.label(p1, k_zone) == "test-zone-2");
  CHECK(env.label(p2, k_zone) == "test-zone-3");
  CHECK(env.node_of(p1).name != env.node_of(p2).name);
}

namespace {

struct NamespaceCase
{
  cluster::PodIndex target;
  cluster::PodIndex with_affinity;
};

// 10 hostname-spread pods (10 nodes), the target pod (security=s2 in namespace `ns`), and a pod
// in "default" with hostname affinity to it through `term`.
NamespaceCase namespace_case(Env& env, const std::string& ns, model::PodAffinityTerm term)
{
  topology_pool(env);
  auto pods = env.pods(spread_pod({spread(k_host, k_labels)}), 10);
  PodOptions target;
  target.labels = k_aff;
  target.ns = ns;
  const auto t = env.pod(target);
  PodOptions aff;
  aff.pod_requirements = {std::move(term)};
  const auto a = env.pod(aff);
  pods.push_back(t);
  pods.push_back(a);
  env.provision(pods);
  return {t, a};
}

} // namespace

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should filter pod affinity topologies by namespace, "
          "no matching pods",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  const auto c = namespace_case(env, "other-ns-no-match", affinity_term(k_host, k_aff));
  CHECK(env.scheduled(c.target));
  // the target is in another namespace, not in the term's namespace list or selector
  CHECK_FALSE(env.scheduled(c.with_affinity));
}

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should filter pod affinity topologies by namespace, "
          "matching pods namespace list",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  auto term = affinity_term(k_host, k_aff);
  term.namespaces = {"other-ns-list"};
  const auto c = namespace_case(env, "other-ns-list", term);
  REQUIRE(env.scheduled(c.target));
  REQUIRE(env.scheduled(c.with_affinity));
  CHECK(env.node_of(c.target).name == env.node_of(c.with_affinity).name);
}

TEST_CASE("topology_test.go Topology/Pod Affinity/Anti-Affinity: should filter pod affinity topologies by namespace, "
          "empty namespace selector",
          "[karpenter][upstream][topology][affinity]")
{
  Env env;
  auto term = affinity_term(k_host, k_aff);
  term.all_namespaces = true; // namespaceSelector: {}
  const auto c = namespace_case(env, "empty-ns-selector", term);
  REQUIRE(env.scheduled(c.target));
  REQUIRE(env.scheduled(c.with_affinity));
  CHECK(env.node_of(c.target).name == env.node_of(c.with_affinity).name);
}

// --- Taints -------------------------------------------------------------------------------------

TEST_CASE("topology_test.go Taints: should taint nodes with NodePool taints", "[karpenter][upstream][topology][taints]")
{
  Env env;
  const model::Taint taint{"test", "bar", model::TaintEffect::no_schedule};
  topology_pool(env).taints = {taint};
  PodOptions o;
  model::Toleration t;
  t.op_exists = true;
  t.effect = model::TaintEffect::no_schedule;
  o.tolerations = {t};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  const auto& taints = env.node_of(pod).taints;
  CHECK(std::find(taints.begin(), taints.end(), taint) != taints.end());
}

TEST_CASE("topology_test.go Taints: should provision nodes with taints and schedule pods if the taint is only a "
          "startup taint",
          "[karpenter][upstream][topology][taints]")
{
  Env env;
  topology_pool(env).startup_taints = {{"ignore-me", "nothing-to-see-here", model::TaintEffect::no_schedule}};
  const auto pod = env.pod();
  env.provision(pod);
  CHECK(env.scheduled(pod));
}

TEST_CASE("topology_test.go Taints: should not generate taints for OpExists", "[karpenter][upstream][topology][taints]")
{
  Env env;
  topology_pool(env);
  PodOptions o;
  model::Toleration t;
  t.key = "test-key";
  t.op_exists = true;
  t.effect = model::TaintEffect::no_execute;
  o.tolerations = {t};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  // no taints generated beyond the default one (karpenter.sh/unregistered, not modelled on claims)
  REQUIRE(round.result.claims.size() == 1);
  CHECK(round.result.claims[0].taints.empty());
  CHECK(env.node_of(pod).taints.empty());
}
