// Filter plugins of the default kube-scheduler profile, one by one. Cases ported from
// kubernetes/kubernetes pkg/scheduler/framework/plugins/{noderesources/fit_test.go,
// nodeaffinity/node_affinity_test.go, tainttoleration/taint_toleration_test.go} keep the upstream
// test names in their SECTION titles.

#include "helpers.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::test;
using scheduling::FilterPlugin;
using scheduling::KubeScheduler;

namespace {

// fit_test.go's node: makeResources(10, 20, 32, ...) = 10m cpu, 20 bytes, 32 pods.
NodeIndex fit_node(Cluster& c, std::int64_t pods = 32)
{
  return add_node(c, "machine1", 10, 20, {}, pods);
}

} // namespace

TEST_CASE("NodeResourcesFit: upstream TestEnoughRequests", "[scheduling][filters]")
{
  KubeScheduler s;
  const auto run = [&](std::int64_t pod_cpu, std::int64_t pod_mem, std::int64_t used_cpu, std::int64_t used_mem) {
    Cluster c;
    const auto n = fit_node(c);
    bind_pod(c, "existing", make_spec(), n, used_cpu, used_mem);
    return s.check(c, make_pod("p", make_spec(), pod_cpu, pod_mem), n);
  };
  SECTION("no resources requested always fits")
  {
    CHECK(run(0, 0, 10, 20).ok());
  }
  SECTION("too many resources fails")
  {
    const auto r = run(1, 1, 10, 20);
    CHECK(r.plugin == FilterPlugin::node_resources_fit);
    CHECK(r.reason == "Insufficient cpu, Insufficient memory");
  }
  SECTION("both resources fit")
  {
    CHECK(run(1, 1, 5, 5).ok());
  }
  SECTION("one resource memory fits")
  {
    CHECK(run(2, 1, 9, 5).reason == "Insufficient cpu");
  }
  SECTION("one resource cpu fits")
  {
    CHECK(run(1, 2, 5, 19).reason == "Insufficient memory");
  }
  SECTION("equal edge case")
  {
    CHECK(run(5, 1, 5, 19).ok());
  }
}

TEST_CASE("NodeResourcesFit: pods count and extended resources", "[scheduling][filters]")
{
  KubeScheduler s;
  SECTION("even if both resources fit, too many pods fails (upstream TestNotEnoughRequests)")
  {
    Cluster c;
    const auto n = fit_node(c, 1);
    bind_pod(c, "existing", make_spec(), n, 5, 5);
    const auto r = s.check(c, make_pod("p", make_spec(), 1, 1), n);
    CHECK(r.plugin == FilterPlugin::node_resources_fit);
    CHECK(r.reason == "Too many pods");
  }
  SECTION("extended resources are compared against allocatable minus requested")
  {
    const auto id = model::resource_id("example.com/foo");
    REQUIRE(id.has_value());
    Cluster c;
    const auto n = add_node(c, "n", 4000, 4 * k_gi);
    c.node_mut(n).allocatable[*id] = 2;
    auto holder = make_pod("holder", make_spec(), 100, 0);
    holder.requests[*id] = 1;
    const auto h = c.add_pod(holder);
    c.set_pending(h, 0);
    c.bind(h, n, 0);
    auto one = make_pod("one", make_spec(), 100, 0);
    one.requests[*id] = 1;
    auto two = make_pod("two", make_spec(), 100, 0);
    two.requests[*id] = 2;
    CHECK(s.check(c, one, n).ok());
    const auto r = s.check(c, two, n);
    CHECK(r.plugin == FilterPlugin::node_resources_fit);
    CHECK(r.reason == "Insufficient example.com/foo");
  }
  SECTION("a resource the pod does not request never rejects it, even overcommitted")
  {
    Cluster c;
    const auto n = add_node(c, "n", 1000, 1 * k_gi);
    c.node_mut(n).requested[model::k_memory] = 2 * k_gi; // e.g. DaemonSet overhead above allocatable
    CHECK(s.check(c, make_pod("p", make_spec(), 500, 0), n).ok());
    CHECK(s.check(c, make_pod("p", make_spec(), 500, 1), n).plugin == FilterPlugin::node_resources_fit);
  }
}

TEST_CASE("NodeName: only the named node passes", "[scheduling][filters]")
{
  KubeScheduler s;
  Cluster c;
  const auto a = add_node(c, "node-a", 4000, 4 * k_gi);
  const auto b = add_node(c, "node-b", 4000, 4 * k_gi);
  auto pod = make_pod("p", make_spec(), 100, 0);
  pod.node_name = "node-b";
  const auto r = s.check(c, pod, a);
  CHECK(r.plugin == FilterPlugin::node_name);
  CHECK(r.reason == "node(s) didn't match the requested node name");
  CHECK(s.check(c, pod, b).ok());
}

TEST_CASE("NodeUnschedulable: only Ready nodes take pods", "[scheduling][filters]")
{
  KubeScheduler s;
  Cluster c;
  const auto ready = add_node(c, "ready", 4000, 4 * k_gi);
  const auto registered =
      add_node(c, "registered", 4000, 4 * k_gi, {}, 110, {}, cluster::NodeLifecycle::registered);
  const auto launching = add_node(c, "launching", 4000, 4 * k_gi, {}, 110, {}, cluster::NodeLifecycle::launching);
  const auto deleting = add_node(c, "deleting", 4000, 4 * k_gi, {}, 110, {}, cluster::NodeLifecycle::deleting);
  const auto pod = make_pod("p", make_spec(), 100, 0);
  CHECK(s.check(c, pod, ready).ok());
  CHECK(s.check(c, pod, registered).plugin == FilterPlugin::node_unschedulable);
  CHECK(s.check(c, pod, registered).reason == "node(s) were not ready");
  CHECK(s.check(c, pod, launching).reason == "node(s) were not ready");
  CHECK(s.check(c, pod, deleting).reason == "node(s) were unschedulable");

  SECTION("a node turning Ready becomes feasible")
  {
    c.node_mut(registered).lifecycle = cluster::NodeLifecycle::ready;
    CHECK(s.check(c, pod, registered).ok());
  }
  SECTION("Karpenter's disrupted taint rejects pods that do not tolerate it")
  {
    c.node_mut(ready).disrupted_taint = true;
    const auto r = s.check(c, pod, ready);
    CHECK(r.plugin == FilterPlugin::taint_toleration);
    CHECK(r.reason == "node(s) had untolerated taint {karpenter.sh/disrupted: }");
    const auto tolerant = make_pod("t", make_spec([](model::PodSpec& sp) {
                                     sp.tolerations = {toleration("", "", std::nullopt, true)};
                                   }),
                                   100, 0);
    CHECK(s.check(c, tolerant, ready).ok());
  }
}

TEST_CASE("NodeAffinity: upstream TestNodeAffinity", "[scheduling][filters]")
{
  KubeScheduler s;
  const auto fits = [&](model::Labels node_labels, const std::function<void(model::PodSpec&)>& edit) {
    Cluster c;
    const auto n = add_node(c, "node1", 4000, 4 * k_gi, std::move(node_labels));
    const auto r = s.check(c, make_pod("p", make_spec(edit), 100, 0), n);
    if (!r.ok()) {
      CHECK(r.plugin == FilterPlugin::node_affinity);
      CHECK(r.reason == "node(s) didn't match Pod's node affinity/selector");
    }
    return r.ok();
  };
  using model::Operator;
  SECTION("missing labels")
  {
    CHECK_FALSE(fits({}, [](auto& sp) { sp.node_selector = {{"foo", "bar"}}; }));
  }
  SECTION("same labels")
  {
    CHECK(fits({{"foo", "bar"}}, [](auto& sp) { sp.node_selector = {{"foo", "bar"}}; }));
  }
  SECTION("node labels are superset")
  {
    CHECK(fits({{"foo", "bar"}, {"baz", "blah"}}, [](auto& sp) { sp.node_selector = {{"foo", "bar"}}; }));
  }
  SECTION("node labels are subset")
  {
    CHECK_FALSE(fits({{"foo", "bar"}}, [](auto& sp) { sp.node_selector = {{"foo", "bar"}, {"baz", "blah"}}; }));
  }
  SECTION("Pod with matchExpressions using In operator that matches the existing node")
  {
    CHECK(fits({{"foo", "bar"}}, [](auto& sp) {
      sp.required_node_affinity = {{{req("foo", Operator::in, {"bar", "value2"})}}};
    }));
  }
  SECTION("Pod with matchExpressions using Gt operator that matches the existing node")
  {
    CHECK(fits({{"kernel-version", "0206"}},
               [](auto& sp) { sp.required_node_affinity = {{{req("kernel-version", Operator::gt, {"0204"})}}}; }));
  }
  SECTION("Pod with matchExpressions using NotIn operator that matches the existing node")
  {
    CHECK(fits({{"mem-type", "DDR3"}}, [](auto& sp) {
      sp.required_node_affinity = {{{req("mem-type", Operator::not_in, {"DDR", "DDR2"})}}};
    }));
  }
  SECTION("Pod with matchExpressions using Exists operator that matches the existing node")
  {
    CHECK(fits({{"GPU", "NVIDIA-GRID-K1"}},
               [](auto& sp) { sp.required_node_affinity = {{{req("GPU", Operator::exists)}}}; }));
  }
  SECTION("Pod with affinity that don't match node's labels won't schedule onto the node")
  {
    CHECK_FALSE(fits({{"foo", "bar"}}, [](auto& sp) {
      sp.required_node_affinity = {{{req("foo", Operator::in, {"value1", "value2"})}}};
    }));
  }
  SECTION("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node")
  {
    CHECK_FALSE(fits({{"foo", "bar"}}, [](auto& sp) { sp.required_node_affinity = {model::NodeSelectorTerm{}}; }));
  }
  SECTION("Pod with no Affinity will schedule onto a node")
  {
    CHECK(fits({{"foo", "bar"}}, {}));
  }
  SECTION("Pod with multiple matchExpressions ANDed that doesn't match the existing node")
  {
    CHECK_FALSE(fits({{"GPU", "NVIDIA-GRID-K1"}}, [](auto& sp) {
      sp.required_node_affinity = {{{req("GPU", Operator::exists), req("GPU", Operator::in, {"AMD", "INTER"})}}};
    }));
    CHECK(fits({{"GPU", "NVIDIA-GRID-K1"}}, [](auto& sp) {
      sp.required_node_affinity = {{{req("GPU", Operator::exists), req("GPU", Operator::not_in, {"AMD", "INTER"})}}};
    }));
  }
  SECTION("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node")
  {
    CHECK(fits({{"foo", "bar"}}, [](auto& sp) {
      sp.required_node_affinity = {{{req("foo", Operator::in, {"bar", "value2"})}},
                                   {{req("diffkey", Operator::in, {"wrong", "value2"})}}};
    }));
  }
  SECTION("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied")
  {
    CHECK(fits({{"foo", "bar"}}, [](auto& sp) {
      sp.node_selector = {{"foo", "bar"}};
      sp.required_node_affinity = {{{req("foo", Operator::exists)}}};
    }));
  }
  SECTION("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied")
  {
    CHECK_FALSE(fits({{"foo", "bar"}}, [](auto& sp) {
      sp.node_selector = {{"foo", "barrrrrr"}};
      sp.required_node_affinity = {{{req("foo", Operator::exists)}}};
    }));
  }
  SECTION("DoesNotExist and Lt")
  {
    CHECK(fits({{"foo", "bar"}}, [](auto& sp) { sp.required_node_affinity = {{{req("gpu", Operator::does_not_exist)}}}; }));
    CHECK_FALSE(
        fits({{"gpu", "1"}}, [](auto& sp) { sp.required_node_affinity = {{{req("gpu", Operator::does_not_exist)}}}; }));
    CHECK(fits({{"cores", "4"}}, [](auto& sp) { sp.required_node_affinity = {{{req("cores", Operator::lt, {"8"})}}}; }));
    CHECK_FALSE(
        fits({{"cores", "8"}}, [](auto& sp) { sp.required_node_affinity = {{{req("cores", Operator::lt, {"8"})}}}; }));
    CHECK_FALSE(fits({}, [](auto& sp) { sp.required_node_affinity = {{{req("cores", Operator::lt, {"8"})}}}; }));
  }
  SECTION("Pod with matchFields using In operator that matches the existing node")
  {
    CHECK(fits({}, [](auto& sp) { sp.required_node_affinity = {{{req("metadata.name", Operator::in, {"node1"})}}}; }));
    CHECK_FALSE(
        fits({}, [](auto& sp) { sp.required_node_affinity = {{{req("metadata.name", Operator::in, {"node2"})}}}; }));
  }
}

TEST_CASE("TaintToleration filter: upstream TestTaintTolerationFilter", "[scheduling][filters]")
{
  using model::TaintEffect;
  KubeScheduler s;
  const auto check = [&](std::vector<model::Taint> taints, std::vector<model::Toleration> tolerations) {
    Cluster c;
    const auto n = add_node(c, "nodeA", 4000, 4 * k_gi, {}, 110, std::move(taints));
    return s.check(c, make_pod("p", make_spec([&](auto& sp) { sp.tolerations = tolerations; }), 100, 0), n);
  };
  SECTION("A pod having no tolerations can't be scheduled onto a node with nonempty taints")
  {
    const auto r = check({{"dedicated", "user1", TaintEffect::no_schedule}}, {});
    CHECK(r.plugin == FilterPlugin::taint_toleration);
    CHECK(r.reason == "node(s) had untolerated taint {dedicated: user1}");
  }
  SECTION("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule")
  {
    CHECK(check({{"dedicated", "user1", TaintEffect::no_schedule}},
                {toleration("dedicated", "user1", TaintEffect::no_schedule)})
              .ok());
  }
  SECTION("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule")
  {
    const auto r = check({{"dedicated", "user1", TaintEffect::no_schedule}},
                         {toleration("dedicated", "user2", TaintEffect::no_schedule)});
    CHECK(r.reason == "node(s) had untolerated taint {dedicated: user1}");
  }
  SECTION("A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node")
  {
    CHECK(check({{"foo", "bar", TaintEffect::no_schedule}}, {toleration("foo", "", TaintEffect::no_schedule, true)})
              .ok());
  }
  SECTION("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node")
  {
    CHECK(check({{"dedicated", "user2", TaintEffect::no_schedule}, {"foo", "bar", TaintEffect::no_schedule}},
                {toleration("dedicated", "user2", TaintEffect::no_schedule),
                 toleration("foo", "", TaintEffect::no_schedule, true)})
              .ok());
  }
  SECTION("A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, can't be scheduled onto the node")
  {
    CHECK(check({{"foo", "bar", TaintEffect::prefer_no_schedule}, {"foo", "bar", TaintEffect::no_schedule}},
                {toleration("foo", "bar", TaintEffect::prefer_no_schedule)})
              .reason
          == "node(s) had untolerated taint {foo: bar}");
  }
  SECTION("The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node")
  {
    CHECK(check({{"foo", "bar", TaintEffect::no_schedule}}, {toleration("foo", "bar", std::nullopt)}).ok());
  }
  SECTION("The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node")
  {
    CHECK(check({{"dedicated", "user1", TaintEffect::prefer_no_schedule}},
                {toleration("dedicated", "user2", TaintEffect::no_schedule)})
              .ok());
  }
  SECTION("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node")
  {
    CHECK(check({{"dedicated", "user1", TaintEffect::prefer_no_schedule}}, {}).ok());
  }
  SECTION("NoExecute taints filter too")
  {
    CHECK(check({{"spot", "", TaintEffect::no_execute}}, {}).plugin == FilterPlugin::taint_toleration);
    CHECK(check({{"spot", "", TaintEffect::no_execute}}, {toleration("spot", "", TaintEffect::no_execute, true)}).ok());
  }
}

TEST_CASE("NodePorts: a host port in use on the node rejects the pod", "[scheduling][filters]")
{
  KubeScheduler s;
  Cluster c;
  const auto a = add_node(c, "node-a", 4000, 4 * k_gi);
  const auto b = add_node(c, "node-b", 4000, 4 * k_gi);
  bind_pod(c, "web", make_spec([](auto& sp) { sp.host_ports = {8080}; }), a, 100, 0);
  const auto same = make_pod("p", make_spec([](auto& sp) { sp.host_ports = {8080}; }), 100, 0);
  const auto other = make_pod("q", make_spec([](auto& sp) { sp.host_ports = {9090}; }), 100, 0);
  const auto r = s.check(c, same, a);
  CHECK(r.plugin == FilterPlugin::node_ports);
  CHECK(r.reason == "node(s) didn't have free ports for the requested pod ports");
  CHECK(s.check(c, same, b).ok());
  CHECK(s.check(c, other, a).ok());
  SECTION("the port is free again once the pod leaves")
  {
    c.unbind(c.node(a).pods.front(), 1);
    CHECK(s.check(c, same, a).ok());
  }
}

TEST_CASE("explain() words the FitError as kube-scheduler does", "[scheduling][filters]")
{
  KubeScheduler s;
  Cluster c;
  add_node(c, "small", 500, 4 * k_gi);
  add_node(c, "gpu", 8000, 4 * k_gi, {{"kind", "gpu"}});
  add_node(c, "tainted", 8000, 4 * k_gi, {}, 110, {{"dedicated", "infra", model::TaintEffect::no_schedule}});
  const auto pod = make_pod("p", make_spec([](auto& sp) { sp.node_selector = {{"kind", "general"}}; }), 1000, 0);
  CHECK(s.explain(c, pod)
        == "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: infra}, "
           "2 node(s) didn't match Pod's node affinity/selector.");
  const auto plain = make_pod("q", make_spec(), 1000, 0);
  CHECK(s.explain(c, plain) == "1/3 nodes are available");
}
