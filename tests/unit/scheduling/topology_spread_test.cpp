// PodTopologySpread: the DoNotSchedule filter and the ScheduleAnyway score. Cases ported from
// kubernetes/kubernetes pkg/scheduler/framework/plugins/podtopologyspread/{filtering_test.go
// (TestSingleConstraint, TestMultipleConstraints), scoring_test.go (TestPodTopologySpreadScore)}
// keep their upstream names. Upstream runs the plugin alone; here every filter runs, so nodes that
// upstream notes "in real case, it's false" fail NodeAffinity or TaintToleration instead.

#include "helpers.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::test;
using scheduling::FilterPlugin;
using scheduling::KubeScheduler;
using scheduling::NodeScore;

namespace {

constexpr FilterPlugin k_ok = FilterPlugin::none;
constexpr FilterPlugin k_spread = FilterPlugin::pod_topology_spread;

const model::Labels k_foo{{"foo", ""}};

// Nodes node-a, node-b (zone1) and node-x, node-y (zone2), labelled "zone" and "node".
void four_nodes(Cluster& c)
{
  add_node(c, "node-a", 64000, 64 * k_gi, {{"zone", "zone1"}, {"node", "node-a"}});
  add_node(c, "node-b", 64000, 64 * k_gi, {{"zone", "zone1"}, {"node", "node-b"}});
  add_node(c, "node-x", 64000, 64 * k_gi, {{"zone", "zone2"}, {"node", "node-x"}});
  add_node(c, "node-y", 64000, 64 * k_gi, {{"zone", "zone2"}, {"node", "node-y"}});
}

NodeIndex by_name(const Cluster& c, const std::string& name)
{
  for (NodeIndex n = 0; n < c.nodes().size(); ++n) {
    if (c.node(n).name == name) {
      return n;
    }
  }
  FAIL("no node " << name);
  return cluster::k_none;
}

// Existing pods labelled foo on the named nodes (one entry per pod).
void existing(Cluster& c, const std::vector<std::string>& nodes, const model::PodSpecPtr& spec = labelled(k_foo))
{
  int i = 0;
  for (const auto& n : nodes) {
    bind_pod(c, "existing-" + std::to_string(i++), spec, by_name(c, n));
  }
}

model::Pod spread_pod(std::vector<model::TopologySpreadConstraint> constraints, model::Labels labels = k_foo,
                      const std::function<void(model::PodSpec&)>& edit = {})
{
  return make_pod("p", labelled(std::move(labels), [&](model::PodSpec& s) {
                    s.topology_spread = constraints;
                    if (edit) {
                      edit(s);
                    }
                  }));
}

} // namespace

TEST_CASE("PodTopologySpread filter: upstream TestSingleConstraint", "[scheduling][topology]")
{
  KubeScheduler s;
  Cluster c;
  four_nodes(c);
  using Want = std::map<std::string, FilterPlugin>;
  SECTION("no existing pods")
  {
    CHECK(filter_all(s, c, spread_pod({spread(1, "zone", true, key_exists("foo"))}))
          == Want{{"node-a", k_ok}, {"node-b", k_ok}, {"node-x", k_ok}, {"node-y", k_ok}});
  }
  SECTION("no existing pods, incoming pod doesn't match itself")
  {
    CHECK(filter_all(s, c, spread_pod({spread(1, "zone", true, key_exists("bar"))}))
          == Want{{"node-a", k_ok}, {"node-b", k_ok}, {"node-x", k_ok}, {"node-y", k_ok}});
  }
  SECTION("existing pods in a different namespace do not count")
  {
    existing(c, {"node-a"}, labelled(k_foo, [](auto& sp) { sp.namespace_ = "ns1"; }));
    existing(c, {"node-a"}, labelled(k_foo, [](auto& sp) { sp.namespace_ = "ns2"; }));
    existing(c, {"node-x", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(1, "zone", true, key_exists("foo"))}))
          == Want{{"node-a", k_ok}, {"node-b", k_ok}, {"node-x", k_spread}, {"node-y", k_spread}});
  }
  SECTION("existing pods do not match null selector")
  {
    existing(c, {"node-x", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(1, "zone", true, std::nullopt)}))
          == Want{{"node-a", k_ok}, {"node-b", k_ok}, {"node-x", k_ok}, {"node-y", k_ok}});
  }
  SECTION("pods spread across zones as 3/3, all nodes fit")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-y", "node-y", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(1, "zone", true, key_exists("foo"))}))
          == Want{{"node-a", k_ok}, {"node-b", k_ok}, {"node-x", k_ok}, {"node-y", k_ok}});
  }
  SECTION("pods spread across zones as 1/2 due to absence of label 'zone' on node-b")
  {
    c.node_mut(by_name(c, "node-b")).labels.erase("zone");
    existing(c, {"node-a", "node-b", "node-x", "node-y"});
    const auto pod = spread_pod({spread(1, "zone", true, key_exists("foo"))});
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_ok}, {"node-b", k_spread}, {"node-x", k_spread}, {"node-y", k_spread}});
    CHECK(s.check(c, pod, by_name(c, "node-b")).reason
          == "node(s) didn't match pod topology spread constraints (missing required label)");
    CHECK(s.check(c, pod, by_name(c, "node-x")).reason == "node(s) didn't match pod topology spread constraints");
  }
  SECTION("pod cannot be scheduled as all nodes don't have label 'rack'")
  {
    const auto result = filter_all(s, c, spread_pod({spread(1, "rack", true, key_exists("foo"))}));
    for (const auto& [name, plugin] : result) {
      CHECK(plugin == k_spread);
    }
  }
  SECTION("pods spread across nodes as 2/1/0/3, only node-x fits")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-y", "node-y", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(1, "node", true, key_exists("foo"))}))
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_ok}, {"node-y", k_spread}});
  }
  SECTION("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-y", "node-y", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(2, "node", true, key_exists("foo"))}))
          == Want{{"node-a", k_spread}, {"node-b", k_ok}, {"node-x", k_ok}, {"node-y", k_spread}});
  }
  SECTION("pods spread across nodes as 2/1/0/3, but pod doesn't match itself")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-y", "node-y", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(1, "node", true, key_exists("foo"))}, {{"bar", ""}}))
          == Want{{"node-a", k_spread}, {"node-b", k_ok}, {"node-x", k_ok}, {"node-y", k_spread}});
  }
  SECTION("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-y", "node-y", "node-y"});
    const auto pod = spread_pod({spread(1, "node", true, key_exists("foo"))}, k_foo, [](auto& sp) {
      sp.required_node_affinity = {{{req("node", model::Operator::in, {"node-a", "node-y"})}}};
    });
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_ok},
                  {"node-b", FilterPlugin::node_affinity},
                  {"node-x", FilterPlugin::node_affinity},
                  {"node-y", k_spread}});
  }
  SECTION("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits")
  {
    existing(c, {"node-b", "node-b", "node-y"});
    const auto pod = spread_pod({spread(1, "zone", true, key_exists("foo"))}, k_foo, [](auto& sp) {
      sp.required_node_affinity = {{{req("node", model::Operator::not_in, {"node-b"})}}};
    });
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_ok}, {"node-b", FilterPlugin::node_affinity}, {"node-x", k_spread}, {"node-y", k_spread}});
  }
  SECTION("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit")
  {
    existing(c, {"node-a", "node-b", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(2, "zone", true, key_exists("foo"), 3)}))
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_ok}, {"node-y", k_ok}});
  }
  SECTION("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit")
  {
    existing(c, {"node-a", "node-b", "node-y"});
    CHECK(filter_all(s, c, spread_pod({spread(2, "zone", true, key_exists("foo"), 1)}))
          == Want{{"node-a", k_ok}, {"node-b", k_ok}, {"node-x", k_ok}, {"node-y", k_ok}});
  }
}

TEST_CASE("PodTopologySpread filter: minDomains on hostname (upstream TestSingleConstraint)",
          "[scheduling][topology]")
{
  KubeScheduler s;
  Cluster c;
  add_node(c, "node-a", 64000, 64 * k_gi, {{"node", "node-a"}});
  add_node(c, "node-b", 64000, 64 * k_gi, {{"node", "node-b"}});
  add_node(c, "node-c", 64000, 64 * k_gi, {{"node", "node-c"}});
  existing(c, {"node-a", "node-a", "node-b", "node-b", "node-c"});
  using Want = std::map<std::string, FilterPlugin>;
  SECTION("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits")
  {
    CHECK(filter_all(s, c, spread_pod({spread(2, "node", true, key_exists("foo"), 4)}))
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-c", k_ok}});
  }
  SECTION("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit")
  {
    CHECK(filter_all(s, c, spread_pod({spread(2, "node", true, key_exists("foo"), 2)}))
          == Want{{"node-a", k_ok}, {"node-b", k_ok}, {"node-c", k_ok}});
  }
  SECTION("the hostname key itself works the same (kubernetes.io/hostname)")
  {
    CHECK(filter_all(s, c, spread_pod({spread(1, std::string(model::labels::k_hostname), true, key_exists("foo"))}))
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-c", k_ok}});
  }
}

TEST_CASE("PodTopologySpread filter: node inclusion policies (upstream TestSingleConstraint)",
          "[scheduling][topology]")
{
  KubeScheduler s;
  Cluster c;
  const std::vector<model::Taint> taints{{"foo", "", model::TaintEffect::no_schedule}};
  add_node(c, "node-a", 64000, 64 * k_gi, {{"node", "node-a"}, {"foo", ""}});
  add_node(c, "node-b", 64000, 64 * k_gi, {{"node", "node-b"}, {"foo", ""}});
  add_node(c, "node-x", 64000, 64 * k_gi, {{"node", "node-x"}, {"foo", ""}});
  add_node(c, "node-y", 64000, 64 * k_gi, {{"node", "node-y"}}, 110, taints);
  existing(c, {"node-a", "node-b", "node-y"});
  using Want = std::map<std::string, FilterPlugin>;
  SECTION("NodeAffinityPolicy honored with labelSelectors")
  {
    const auto pod = spread_pod({spread(1, "node", true, key_exists("foo"))}, k_foo,
                                [](auto& sp) { sp.node_selector = {{"foo", ""}}; });
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_ok}, {"node-y", FilterPlugin::taint_toleration}});
  }
  SECTION("NodeAffinityPolicy ignored with labelSelectors")
  {
    auto constraint = spread(1, "node", true, key_exists("foo"));
    constraint.node_affinity_policy_honor = false;
    const auto pod = spread_pod({constraint}, k_foo, [](auto& sp) {
      sp.node_selector = {{"foo", ""}};
      sp.tolerations = {toleration("foo", "", std::nullopt, true)};
    });
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_ok}, {"node-y", FilterPlugin::node_affinity}});
  }
  SECTION("NodeTaintsPolicy honored")
  {
    // node-y does not count (its taint is not tolerated): spread 1/1/0, node-x fits.
    auto constraint = spread(1, "node", true, key_exists("foo"));
    constraint.node_taints_policy_honor = true;
    CHECK(filter_all(s, c, spread_pod({constraint}))
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_ok}, {"node-y", FilterPlugin::taint_toleration}});
  }
  SECTION("NodeTaintsPolicy ignored")
  {
    // node-y counts: spread 1/1/0/1. A pod tolerating the taint shows that node-y is rejected by
    // the spread itself.
    const auto pod = spread_pod({spread(1, "node", true, key_exists("foo"))}, k_foo,
                                [](auto& sp) { sp.tolerations = {toleration("foo", "", std::nullopt, true)}; });
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_ok}, {"node-y", k_spread}});
  }
}

TEST_CASE("PodTopologySpread filter: upstream TestMultipleConstraints", "[scheduling][topology]")
{
  KubeScheduler s;
  Cluster c;
  four_nodes(c);
  using Want = std::map<std::string, FilterPlugin>;
  const auto pod = spread_pod({spread(1, "zone", true, key_exists("foo")), spread(1, "node", true, key_exists("foo"))});
  SECTION("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-y", "node-y", "node-y"});
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_ok}, {"node-y", k_spread}});
  }
  SECTION("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-y", "node-y", "node-y", "node-y"});
    CHECK(filter_all(s, c, pod)
          == Want{{"node-a", k_spread}, {"node-b", k_spread}, {"node-x", k_spread}, {"node-y", k_spread}});
  }
}

TEST_CASE("PodTopologySpread score: upstream TestPodTopologySpreadScore", "[scheduling][topology]")
{
  KubeScheduler s;
  Cluster c;
  const std::string host(model::labels::k_hostname);
  add_node(c, "node-a", 64000, 64 * k_gi);
  add_node(c, "node-b", 64000, 64 * k_gi);
  add_node(c, "node-c", 64000, 64 * k_gi);
  add_node(c, "node-d", 64000, 64 * k_gi);
  using Want = std::map<std::string, std::int64_t>;
  SECTION("one constraint on node, no existing pods")
  {
    CHECK(plugin_scores(s, c, spread_pod({spread(1, host, false, key_exists("foo"))}), &NodeScore::pod_topology_spread)
          == Want{{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}});
  }
  SECTION("one constraint on node, all 4 nodes are candidates")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-d", "node-d", "node-d"});
    CHECK(plugin_scores(s, c, spread_pod({spread(1, host, false, key_exists("foo"))}), &NodeScore::pod_topology_spread)
          == Want{{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}});
  }
  SECTION("one constraint on node, null selector")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-d", "node-d", "node-d"});
    CHECK(plugin_scores(s, c, spread_pod({spread(1, host, false, std::nullopt)}), &NodeScore::pod_topology_spread)
          == Want{{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}});
  }
  SECTION("one constraint on node, all 4 nodes are candidates, maxSkew=2")
  {
    existing(c, {"node-a", "node-a", "node-b", "node-d", "node-d", "node-d"});
    CHECK(plugin_scores(s, c, spread_pod({spread(2, host, false, key_exists("foo"))}), &NodeScore::pod_topology_spread)
          == Want{{"node-a", 33}, {"node-b", 66}, {"node-c", 100}, {"node-d", 16}});
  }
  SECTION("one constraint on node, only one node is candidate")
  {
    existing(c, {"node-a", "node-a", "node-b"});
    const auto pod = spread_pod({spread(1, host, false, key_exists("foo"))}, k_foo,
                                [](auto& sp) { sp.node_selector = {{std::string(model::labels::k_hostname), "node-a"}}; });
    CHECK(plugin_scores(s, c, pod, &NodeScore::pod_topology_spread) == Want{{"node-a", 100}});
  }
}

TEST_CASE("PodTopologySpread in binding passes: zone and hostname skew, minDomains", "[scheduling][topology]")
{
  const std::string zone(model::labels::k_zone);
  const std::string host(model::labels::k_hostname);
  const auto web = labelled({{"app", "web"}}, [&](model::PodSpec& sp) {
    sp.topology_spread = {spread(1, zone, true, match_labels({{"app", "web"}}))};
  });
  SECTION("six replicas spread 2/2/2 over three zones even when one zone has more room")
  {
    Cluster c;
    add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
    add_node(c, "a2", 16000, 64 * k_gi, {{zone, "a"}});
    add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
    add_node(c, "c1", 16000, 64 * k_gi, {{zone, "c"}});
    for (int i = 0; i < 6; ++i) {
      pending_pod(c, "web-" + std::to_string(i), web, 500, k_gi, i);
    }
    KubeScheduler s;
    REQUIRE(s.bind_pending(c, 10).size() == 6);
    std::map<std::string, int> per_zone;
    for (const auto& n : c.nodes()) {
      per_zone[n.zone] += static_cast<int>(n.pods.size());
    }
    CHECK(per_zone == std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 2}});
  }
  SECTION("hostname maxSkew 1: at most one pod more than the emptiest node")
  {
    Cluster c;
    for (int i = 0; i < 3; ++i) {
      add_node(c, "n" + std::to_string(i), 16000, 64 * k_gi);
    }
    const auto spec = labelled({{"app", "api"}}, [&](model::PodSpec& sp) {
      sp.topology_spread = {spread(1, host, true, match_labels({{"app", "api"}}))};
    });
    for (int i = 0; i < 7; ++i) {
      pending_pod(c, "api-" + std::to_string(i), spec, 100, 0, i);
    }
    KubeScheduler s(most_allocated());
    REQUIRE(s.bind_pending(c, 10).size() == 7);
    std::vector<std::size_t> counts;
    for (const auto& n : c.nodes()) {
      counts.push_back(n.pods.size());
    }
    std::sort(counts.begin(), counts.end());
    CHECK(counts == std::vector<std::size_t>{2, 2, 3});
  }
  SECTION("minDomains 3 with two zones: each zone takes one pod, the rest wait for a third zone")
  {
    Cluster c;
    add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
    add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
    const auto spec = labelled({{"app", "db"}}, [&](model::PodSpec& sp) {
      sp.topology_spread = {spread(1, zone, true, match_labels({{"app", "db"}}), 3)};
    });
    for (int i = 0; i < 4; ++i) {
      pending_pod(c, "db-" + std::to_string(i), spec, 100, 0, i);
    }
    KubeScheduler s;
    CHECK(s.bind_pending(c, 10).size() == 2);
    CHECK(c.pending().size() == 2);
    SECTION("a third zone appears: one more pod in it, then the others can follow")
    {
      add_node(c, "c1", 16000, 64 * k_gi, {{zone, "c"}});
      const auto more = s.bind_pending(c, 20);
      CHECK(more.size() == 2);
      CHECK(c.pending().empty());
      CHECK(c.node(2).pods.size() == 1);
    }
  }
  SECTION("a registered (not yet Ready) node counts as an empty domain")
  {
    Cluster c;
    add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
    add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
    const auto c1 = add_node(c, "c1", 16000, 64 * k_gi, {{zone, "c"}}, 110, {}, cluster::NodeLifecycle::registered);
    for (int i = 0; i < 3; ++i) {
      pending_pod(c, "web-" + std::to_string(i), web, 500, k_gi, i);
    }
    KubeScheduler s;
    CHECK(s.bind_pending(c, 10).size() == 2); // zone c's minimum 0 blocks a second pod in a or b
    c.node_mut(c1).lifecycle = cluster::NodeLifecycle::ready;
    const auto later = s.bind_pending(c, 20);
    REQUIRE(later.size() == 1);
    CHECK(later[0].node == c1);
  }
}

TEST_CASE("PodTopologySpread system defaults spread ReplicaSet pods", "[scheduling][topology]")
{
  const std::string zone(model::labels::k_zone);
  Cluster c;
  add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
  add_node(c, "a2", 16000, 64 * k_gi, {{zone, "a"}});
  add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
  const auto rs = labelled({{"app", "web"}}, [](auto& sp) { sp.owner = model::OwnerKind::replica_set; });
  bind_pod(c, "w0", rs, 0, 100, 0);
  bind_pod(c, "w1", rs, 0, 100, 0);
  bind_pod(c, "w2", rs, 1, 100, 0);
  KubeScheduler s;
  // hostname: weight ln(3+2), counts 2/1/0, + maxSkew-1 = 2; zone: weight ln(2+2), counts a=3, b=0, + 4.
  // raw a1 = 2*1.609+2 + 3*1.386+4 = 13.38 -> 13, a2 = 1.609+2+4.159+4 = 11.77 -> 12, b1 = 2+4 = 6.
  // normalized 100*(13+6-s)/13: a1 46, a2 53, b1 100.
  const auto scores = plugin_scores(s, c, make_pod("w3", rs, 100, 0), &NodeScore::pod_topology_spread);
  CHECK(scores == std::map<std::string, std::int64_t>{{"a1", 46}, {"a2", 53}, {"b1", 100}});
  SECTION("switched off, the plugin does not score")
  {
    scheduling::SchedulerConfig cfg;
    cfg.system_default_spreading = false;
    KubeScheduler off(cfg);
    const auto flat = plugin_scores(off, c, make_pod("w3", rs, 100, 0), &NodeScore::pod_topology_spread);
    CHECK(flat == std::map<std::string, std::int64_t>{{"a1", 0}, {"a2", 0}, {"b1", 0}});
  }
  SECTION("bare pods get no default constraints")
  {
    const auto bare = labelled({{"app", "web"}});
    const auto flat = plugin_scores(s, c, make_pod("x", bare, 100, 0), &NodeScore::pod_topology_spread);
    CHECK(flat == std::map<std::string, std::int64_t>{{"a1", 0}, {"a2", 0}, {"b1", 0}});
  }
}

TEST_CASE("PodTopologySpread on a hypothetical node (Cluster Autoscaler template)", "[scheduling][topology]")
{
  const std::string zone(model::labels::k_zone);
  Cluster c;
  add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
  add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
  const auto spec = labelled({{"app", "web"}}, [&](model::PodSpec& sp) {
    sp.topology_spread = {spread(1, zone, true, match_labels({{"app", "web"}}))};
  });
  bind_pod(c, "w0", spec, 0, 100, 0);
  bind_pod(c, "w1", spec, 0, 100, 0);
  bind_pod(c, "w2", spec, 1, 100, 0);
  KubeScheduler s;
  const auto pod = make_pod("w3", spec, 100, 0);
  const auto templ = [&](const std::string& z) {
    cluster::NodeState n;
    n.name = "template-" + z;
    n.zone = z;
    n.labels = {{zone, z}, {std::string(model::labels::k_hostname), n.name}};
    n.allocatable[model::k_cpu] = 4000;
    n.allocatable[model::k_memory] = 16 * k_gi;
    n.allocatable[model::k_pods] = 110;
    return n;
  };
  // zones a=2, b=1: a template in zone a would make a=3 against b=1.
  CHECK_FALSE(s.feasible(c, pod, templ("a")));
  CHECK(s.check(c, pod, templ("a")).plugin == FilterPlugin::pod_topology_spread);
  CHECK(s.feasible(c, pod, templ("b")));
  // A template in a new zone adds a domain with 0 pods, and the pod fits there.
  CHECK(s.feasible(c, pod, templ("c")));
  // Checks on cluster nodes never see a template.
  CHECK(s.feasible(c, pod, 1));
  SECTION("resources and taints of the template are checked too")
  {
    auto full = templ("b");
    full.requested[model::k_pods] = 110;
    CHECK(s.check(c, pod, full).plugin == FilterPlugin::node_resources_fit);
    auto tainted = templ("b");
    tainted.taints = {{"gpu", "", model::TaintEffect::no_schedule}};
    CHECK(s.check(c, pod, tainted).plugin == FilterPlugin::taint_toleration);
  }
}
