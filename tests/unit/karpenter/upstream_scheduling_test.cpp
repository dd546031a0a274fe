// Further cases ported from Karpenter's scheduling suite, kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/suite_test.go (Context "Scheduling"), with the fake
// default catalog and the upstream expectations. Each case names its Describe/Context path and
// It() text. Cases tagged [.gap] keep the upstream expectation where capsim differs (hidden).

#include "core/io/scenario_yaml.hpp"
#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <set>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

// The suite's NodePool (BeforeEach): capacity types spot, on-demand and reserved.
model::NodePool& scheduling_pool(Env& env, const std::string& name = "default")
{
  auto& np = env.node_pool(name);
  np.requirements.add(req(k_ct, Operator::in, {"spot", "on-demand", "reserved"}));
  return np;
}

// nodePool.Spec.Template.Spec.Requirements = {...} (test.ReplaceRequirements): the capacity-type
// requirement of the BeforeEach is dropped.
void replace_requirements(Env& env, model::NodePool& np, const std::vector<Requirement>& reqs)
{
  np.requirements = model::Requirements{};
  for (const auto& r : reqs) {
    np.requirements.add(r);
  }
  env.cache.clear();
}

PodOptions cpu_mem(std::int64_t cpu_milli, std::int64_t memory)
{
  PodOptions o;
  o.cpu_milli = cpu_milli;
  o.memory = memory;
  return o;
}

std::set<std::string> node_names(const Env& env, const std::vector<cluster::PodIndex>& pods)
{
  std::set<std::string> names;
  for (const auto p : pods) {
    names.insert(env.node_of(p).name);
  }
  return names;
}

} // namespace

// --- Custom Constraints / Well Known Labels -----------------------------------------------------

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Well Known Labels: should not schedule the pod if nodeselector "
          "unknown",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req(k_zone, Operator::in, {"test-zone-1"})});
  PodOptions o;
  o.node_selector = {{k_zone, "unknown"}};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Well Known Labels: should schedule compatible requirements with "
          "Operator=In",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-3"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
}

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Well Known Labels: should not schedule incompatible preferences "
          "and requirements with Operator=In",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"unknown"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Well Known Labels: should schedule incompatible preferences and "
          "requirements with Operator=NotIn",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2", "test-zone-3", "unknown"})};
  o.node_preferences = {req(k_zone, Operator::not_in, {"test-zone-1", "test-zone-2", "test-zone-3"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK(env.scheduled(pod));
}

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Well Known Labels: should schedule compatible node selectors, "
          "preferences and requirements",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_selector = {{k_zone, "test-zone-3"}};
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2", "test-zone-3"})};
  o.node_preferences = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2", "test-zone-3"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
}

// --- Custom Constraints / Constraints Validation ------------------------------------------------

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Constraints Validation: should not schedule pods that have node "
          "selectors with restricted labels",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  scheduling_pool(env);
  // v1.RestrictedLabels = {kubernetes.io/hostname}
  PodOptions o;
  o.node_requirements = {req(k_host, Operator::in, {"test"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
  REQUIRE(round.result.errors.size() == 1);
  CHECK(round.result.errors[0].pod == pod);
}

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Constraints Validation: should schedule pods that have node "
          "selectors with label in subdomain from kubernetes domains",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env),
                       {req("subdomain.kubernetes.io/test", Operator::in, {"test-value"}),
                        req("subdomain.k8s.io/test", Operator::in, {"test-value"})});
  for (const std::string domain : {"kubernetes.io", "k8s.io"}) {
    const auto pod = env.pod();
    env.provision(pod);
    REQUIRE(env.scheduled(pod));
    CHECK(env.label(pod, "subdomain." + domain + "/test") == "test-value");
  }
}

// --- Custom Constraints / Scheduling Logic ------------------------------------------------------

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Scheduling Logic: should schedule pods that have node selectors "
          "with matching value and In operator",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req("test-key", Operator::in, {"test-value"})});
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::in, {"test-value"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "test-key") == "test-value");
}

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Scheduling Logic: should not schedule pods that have node "
          "selectors with matching value and NotIn operator",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req("test-key", Operator::in, {"test-value"})});
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::not_in, {"test-value"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Scheduling/Custom Constraints/Scheduling Logic: should not schedule pods that have node "
          "selectors with different value and In operator",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req("test-key", Operator::in, {"test-value"})});
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::in, {"another-value"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

// --- Preferential Fallback ----------------------------------------------------------------------

TEST_CASE("suite_test.go Scheduling/Preferential Fallback/Preferred: should schedule even if preference requirements "
          "are conflicting",
          "[karpenter][upstream][scheduling][preferences]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_preferences = {req(k_zone, Operator::in, {"invalid"}), req(k_zone, Operator::not_in, {"invalid"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK(env.scheduled(pod));
}

// --- Instance Type Compatibility ----------------------------------------------------------------

TEST_CASE("suite_test.go Scheduling/Instance Type Compatibility: should exclude instance types that are not supported "
          "by the pod constraints (node affinity/instance type)",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req(k_arch, Operator::in, {"amd64"})});
  PodOptions o;
  o.node_requirements = {req(k_it, Operator::in, {"arm-instance-type"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  // arm instance type conflicts with the nodePool limitation of AMD only
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Scheduling/Instance Type Compatibility: should exclude instance types that are not supported "
          "by the pod constraints (node affinity/operating system)",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req(k_arch, Operator::in, {"amd64"})});
  PodOptions o;
  o.node_requirements = {req(k_os, Operator::in, {"ios"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  // only arm-instance-type offers ios, and the NodePool allows amd64 only
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Scheduling/Instance Type Compatibility: should launch pods with different operating systems "
          "on different instances",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req(k_arch, Operator::in, {"arm64", "amd64"})});
  PodOptions linux_pod;
  linux_pod.node_selector = {{k_os, "linux"}};
  PodOptions windows_pod;
  windows_pod.node_selector = {{k_os, "windows"}};
  const std::vector<cluster::PodIndex> pods{env.pod(linux_pod), env.pod(windows_pod)};
  env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(node_names(env, pods).size() == 2);
}

TEST_CASE("suite_test.go Scheduling/Instance Type Compatibility: should launch pods with different instance type node "
          "selectors on different instances",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req(k_arch, Operator::in, {"arm64", "amd64"})});
  PodOptions small;
  small.node_selector = {{"beta.kubernetes.io/instance-type", "small-instance-type"}}; // corev1.LabelInstanceType
  PodOptions def;
  def.node_selector = {{k_it, "default-instance-type"}};
  const std::vector<cluster::PodIndex> pods{env.pod(small), env.pod(def)};
  env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(node_names(env, pods).size() == 2);
  CHECK(env.type_of(pods[0]).name == "small-instance-type");
  CHECK(env.type_of(pods[1]).name == "default-instance-type");
}

TEST_CASE("suite_test.go Scheduling/Instance Type Compatibility: should launch pods with different zone selectors on "
          "different instances",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req(k_arch, Operator::in, {"arm64", "amd64"})});
  PodOptions z1;
  z1.node_selector = {{k_zone, "test-zone-1"}};
  PodOptions z2;
  z2.node_selector = {{k_zone, "test-zone-2"}};
  const std::vector<cluster::PodIndex> pods{env.pod(z1), env.pod(z2)};
  env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(node_names(env, pods).size() == 2);
  CHECK(env.label(pods[0], k_zone) == "test-zone-1");
  CHECK(env.label(pods[1], k_zone) == "test-zone-2");
}

// --- Binpacking ---------------------------------------------------------------------------------

TEST_CASE("suite_test.go Scheduling/Binpacking: should handle zero-quantity resource requests",
          "[karpenter][upstream][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  const auto spec = spec_from_yaml(R"(  containers:
    - name: app
      resources:
        requests: {foo.com/weird-resources: "0"}
        limits: {foo.com/weird-resources: "0"}
)");
  const auto pod = pending_pod(env, spec, "zero-quantity");
  env.provision(pod);
  // requesting a resource of quantity zero of a type unsupported by any instance is fine
  CHECK(env.scheduled(pod));
}

TEST_CASE("suite_test.go Scheduling/Binpacking: should take into account initContainer resource requests when "
          "binpacking",
          "[karpenter][upstream][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  const auto spec = spec_from_yaml(R"(  initContainers:
    - name: init
      resources: {requests: {cpu: "2", memory: 1Gi}}
  containers:
    - name: app
      resources: {requests: {cpu: "1", memory: 1Gi}}
)");
  const auto pod = pending_pod(env, spec, "init-binpack");
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_it) == "default-instance-type");
}

TEST_CASE("suite_test.go Scheduling/Binpacking: should not schedule pods when initContainer resource requests are "
          "greater than available instance types",
          "[karpenter][upstream][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  const auto spec = spec_from_yaml(R"(  initContainers:
    - name: init
      resources: {requests: {cpu: "2", memory: 1Ti}}
  containers:
    - name: app
      resources: {requests: {cpu: "1", memory: 1Gi}}
)");
  const auto pod = pending_pod(env, spec, "init-too-big");
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Scheduling/Binpacking: should take pod runtime class into consideration",
          "[karpenter][upstream][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  // Upstream's API server applies the RuntimeClass's overhead at admission; capsim's scenario
  // reader does, so the pod goes through it.
  const auto scenario = io::parse_scenario(R"(apiVersion: capsim/v1
kind: Scenario
spec: {duration: 1h}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: my-runtime-class}
handler: default
overhead:
  podFixed: {cpu: "2"}
---
apiVersion: v1
kind: Pod
metadata: {name: runtime-class}
spec:
  runtimeClassName: my-runtime-class
  containers:
    - name: app
      resources: {requests: {cpu: "1"}}
)",
                                           "t.yaml");
  REQUIRE(scenario.pods.size() == 1);
  const auto pod = pending_pod(env, scenario.pods[0].spec, "runtime-class");
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  // overhead of 2 + request of 1 = at least 3 CPUs, so it won't fit on small-instance-type which it
  // otherwise would
  CHECK(env.label(pod, k_it) == "default-instance-type");
}

// --- In-Flight Nodes ----------------------------------------------------------------------------

TEST_CASE("suite_test.go Scheduling/In-Flight Nodes/Topology: should balance pods across hostnames with in-flight "
          "nodes",
          "[karpenter][upstream][scheduling][inflight]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.labels = {{"foo", "bar"}};
  o.spread = {spread(k_host, {{"foo", "bar"}})};
  env.provision(env.pods(o, 4));
  CHECK(env.skew(k_host, match_labels({{"foo", "bar"}})) == std::vector<int>{1, 1, 1, 1});
  env.provision(env.pods(o, 5));
  // we prefer to launch new nodes to satisfy the topology spread even though we could
  // technically schedule against existingNodes
  CHECK(env.skew(k_host, match_labels({{"foo", "bar"}})) == std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("suite_test.go Scheduling/In-Flight Nodes/Taints: should assume pod will schedule to a tainted node with no "
          "taints",
          "[karpenter][upstream][scheduling][inflight]")
{
  Env env;
  scheduling_pool(env);
  const auto p1 = env.pod(cpu_mem(8000, 0));
  env.provision(p1);
  REQUIRE(env.scheduled(p1));
  const auto n1 = env.cluster.pod(p1).node;
  env.remove(p1);
  env.cluster.node_mut(n1).taints.clear();
  const auto p2 = env.pod();
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node == n1);
}

TEST_CASE("suite_test.go Scheduling/In-Flight Nodes/Taints: should not assume pod will schedule to a node with startup "
          "taints after initialization",
          "[karpenter][upstream][scheduling][inflight]")
{
  Env env;
  const model::Taint startup{"ignore-me", "nothing-to-see-here", model::TaintEffect::no_schedule};
  scheduling_pool(env).startup_taints = {startup};
  const auto p1 = env.pod();
  env.provision(p1);
  REQUIRE(env.scheduled(p1));
  const auto n1 = env.cluster.pod(p1).node;
  env.remove(p1);
  // Initialized (the startup taint was removed at some point) and the startup taint re-applied.
  auto& n = env.cluster.node_mut(n1);
  n.lifecycle = cluster::NodeLifecycle::ready;
  n.labels["karpenter.sh/initialized"] = "true";
  n.taints = {startup};
  const auto p2 = env.pod();
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node != n1);
}

// Upstream labels the node initialized but never reconciles that into cluster state, so the
// scheduler still sees an uninitialized in-flight node. capsim's equivalent of a NotReady
// in-flight node is a registered (not yet Ready) one.
TEST_CASE("suite_test.go Scheduling/In-Flight Nodes/Taints: should consider a tainted NotReady node as in-flight even "
          "if initialized",
          "[karpenter][upstream][scheduling][inflight]")
{
  Env env;
  scheduling_pool(env);
  const auto p1 = env.pod(cpu_mem(10, 0));
  env.provision(p1);
  REQUIRE(env.scheduled(p1));
  const auto n1 = env.cluster.pod(p1).node;
  REQUIRE(env.cluster.node(n1).lifecycle == cluster::NodeLifecycle::registered);
  env.cluster.node_mut(n1).taints = {
      {"node.kubernetes.io/not-ready", "", model::TaintEffect::no_schedule},
      {"node.kubernetes.io/unreachable", "", model::TaintEffect::no_schedule},
      {"node.cloudprovider.kubernetes.io/uninitialized", "true", model::TaintEffect::no_schedule},
  };
  const auto p2 = env.pod(cpu_mem(10, 0));
  const auto round = env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node == n1);
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Scheduling/In-Flight Nodes/Daemonsets: should handle unexpected daemonset pods binding to the "
          "node",
          "[karpenter][upstream][scheduling][inflight][daemonsets]")
{
  Env env;
  scheduling_pool(env);
  PodOptions ds1 = cpu_mem(1000, 1 * k_gi);
  ds1.node_selector = {{"my-node-label", "value"}};
  env.daemon_set(ds1);
  env.daemon_set(cpu_mem(1, 0));
  const auto p1 = env.pod(cpu_mem(8000, 0));
  env.provision(p1);
  REQUIRE(env.scheduled(p1));
  const auto n1 = env.cluster.pod(p1).node;
  REQUIRE(env.label(p1, k_it) == "arm-instance-type"); // 16 CPU
  // this label appears on the node for some reason that Karpenter can't track
  env.cluster.node_mut(n1).labels["my-node-label"] = "value";
  env.remove(p1);
  CHECK(env.cluster.node(n1).daemon_requested.cpu() == 0);
  CHECK(env.cluster.node(n1).available().cpu() == 15900); // no pods: 16 CPU - 100m overhead
  PodOptions ds_pod = cpu_mem(1000, 2 * k_gi);
  ds_pod.node_selector = {{"my-node-label", "value"}};
  const auto ds = env.daemon_pod(ds_pod);
  env.bind(ds, n1);
  CHECK(env.cluster.node(n1).daemon_requested.cpu() == 1000);
  CHECK(env.cluster.node(n1).available().cpu() == 14900);
  // more CPU than the in-flight node has left: remaining DaemonSet overhead must not go negative
  const auto p2 = env.pod(cpu_mem(15500, 0));
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node != n1);
}

TEST_CASE("suite_test.go Scheduling/In-Flight Nodes/Daemonsets: Should properly handle DaemonSet resources with Node "
          "Affinity for `karpenter.sh/initialized` and `karpenter.sh/registered`",
          "[karpenter][upstream][scheduling][inflight][daemonsets]")
{
  Env env;
  scheduling_pool(env);
  PodOptions ds1 = cpu_mem(1000, 0);
  ds1.node_requirements = {req("karpenter.sh/initialized", Operator::in, {"true"})};
  env.daemon_set(ds1);
  PodOptions ds2 = cpu_mem(1000, 0);
  ds2.node_requirements = {req("karpenter.sh/registered", Operator::in, {"true"})};
  env.daemon_set(ds2);
  const auto p1 = env.pod(cpu_mem(2000, 0));
  const auto round = env.provision(p1);
  REQUIRE(env.scheduled(p1));
  const auto n1 = env.cluster.pod(p1).node;
  // both DaemonSets count: 2 + 1 + 1 CPU does not fit a 4 CPU type, so the 16 CPU one
  CHECK(env.label(p1, k_it) == "arm-instance-type");
  // simulation-only requirements don't leak into the created NodeClaim
  REQUIRE(round.result.claims.size() == 1);
  const auto& claim = round.result.claims[0];
  CHECK(claim.requirements.find("karpenter.sh/registered") == nullptr);
  CHECK(claim.requirements.find("karpenter.sh/initialized") == nullptr);
  CHECK(claim.labels.count("karpenter.sh/registered") == 0);
  CHECK(claim.labels.count("karpenter.sh/initialized") == 0);
  env.remove(p1);
  CHECK(env.cluster.node(n1).daemon_requested.cpu() == 0);
  CHECK(env.cluster.node(n1).available().cpu() == 15900);
  env.bind(env.daemon_pod(cpu_mem(1000, 0)), n1);
  env.bind(env.daemon_pod(cpu_mem(1000, 0)), n1);
  CHECK(env.cluster.node(n1).daemon_requested.cpu() == 2000);
  CHECK(env.cluster.node(n1).available().cpu() == 13900);
}

TEST_CASE("suite_test.go Scheduling/In-Flight Nodes: should not launch a second node if there is an in-flight node "
          "that can support the pod (#2011)",
          "[karpenter][upstream][scheduling][inflight]")
{
  Env env;
  scheduling_pool(env);
  const auto pod = env.pod(cpu_mem(10, 0));
  env.provision(std::vector<cluster::PodIndex>{}); // ExpectProvisionedNoBinding
  CHECK(env.node_count() == 1);
  CHECK_FALSE(env.scheduled(pod));
  const auto round = env.provision(std::vector<cluster::PodIndex>{});
  // shouldn't create a second node
  CHECK(env.node_count() == 1);
  CHECK(round.result.claims.empty());
  REQUIRE(round.result.existing.size() == 1);
  CHECK(round.result.existing[0].pod == pod);
}

TEST_CASE("suite_test.go Scheduling/In-Flight Nodes: should order initialized nodes for scheduling uninitialized nodes "
          "when all other nodes are inflight",
          "[karpenter][upstream][scheduling][inflight]")
{
  Env env;
  scheduling_pool(env);
  const model::Resources alloc = env.types[0].allocatable();
  std::vector<cluster::NodeIndex> nodes;
  // 99 NodeClaims without a Node (launching) and one initialized node
  for (int i = 0; i < 100; ++i) {
    nodes.push_back(env.node(fmt::format("nodeclaim-{:03d}", i), {{k_it, "default-instance-type"}}, alloc,
                             cluster::NodeLifecycle::launching, 0));
  }
  const auto elem = nodes[63];
  env.cluster.node_mut(elem).lifecycle = cluster::NodeLifecycle::ready;
  env.cluster.node_mut(elem).labels["karpenter.sh/initialized"] = "true";
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.cluster.pod(pod).node == elem);
}

// --- Existing Nodes -----------------------------------------------------------------------------

TEST_CASE("suite_test.go Scheduling/Existing Nodes: should schedule a pod to an existing node unowned by Karpenter",
          "[karpenter][upstream][scheduling][existing]")
{
  Env env;
  model::Resources alloc;
  alloc[model::k_cpu] = 10000;
  alloc[model::k_memory] = 10 * k_gi;
  alloc[model::k_pods] = 110;
  const auto n = env.node("static-node", {}, alloc);
  scheduling_pool(env);
  const auto pod = env.pod(cpu_mem(10, 0));
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.cluster.pod(pod).node == n);
  CHECK(round.result.claims.empty());
}

// --- No Pre-Binding -----------------------------------------------------------------------------

TEST_CASE("suite_test.go Scheduling/No Pre-Binding: should not bind pods to nodes",
          "[karpenter][upstream][scheduling][inflight]")
{
  Env env;
  scheduling_pool(env);
  CHECK(env.node_count() == 0);
  const auto p1 = env.pod(cpu_mem(10, 0));
  env.provision(std::vector<cluster::PodIndex>{});
  CHECK_FALSE(env.scheduled(p1));
  CHECK(env.node_count() == 1); // a single node
  const auto p2 = env.pod(cpu_mem(10, 0));
  env.provision(std::vector<cluster::PodIndex>{});
  CHECK_FALSE(env.scheduled(p2));
  // no second node: both fit the in-flight one
  CHECK(env.node_count() == 1);
}

// GAP: capsim counts an uninitialized node at NodeState::allocatable as it stands (solve.cpp
// Scheduler::set_remaining); upstream StateNode.Allocatable() replaces zero quantities by the
// NodeClaim's capacity until the node is initialized, so no second node is launched.
TEST_CASE("suite_test.go Scheduling/No Pre-Binding: should handle resource zeroing of extended resources by kubelet",
          "[karpenter][upstream][scheduling][inflight][.gap]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o = cpu_mem(10, 0);
  o.extended = {{std::string(testing::k_fake_vendor_a), 1}};
  const auto p1 = env.pod(o);
  env.provision(std::vector<cluster::PodIndex>{});
  REQUIRE(env.node_count() == 1);
  CHECK_FALSE(env.scheduled(p1));
  // kubelet zeroes the extended resources of the (not yet initialized) node at startup; the
  // scheduler keeps using the NodeClaim's capacity for zero values until initialization
  // (StateNode.Allocatable)
  cluster::NodeIndex n1 = cluster::k_none;
  for (cluster::NodeIndex i = 0; i < env.cluster.nodes().size(); ++i) {
    n1 = i;
  }
  REQUIRE(env.cluster.node(n1).lifecycle == cluster::NodeLifecycle::registered);
  REQUIRE(env.cluster.node(n1).allocatable[*model::find_resource_id(testing::k_fake_vendor_a)] > 0);
  env.cluster.node_mut(n1).allocatable[*model::find_resource_id(testing::k_fake_vendor_a)] = 0;
  env.cluster.node_mut(n1).allocatable[*model::find_resource_id(testing::k_fake_vendor_b)] = 0;
  const auto p2 = env.pod(o);
  env.provision(std::vector<cluster::PodIndex>{});
  CHECK_FALSE(env.scheduled(p2));
  // shouldn't create a second node as it can bind to the existing node
  CHECK(env.node_count() == 1);
}

TEST_CASE("suite_test.go Scheduling/No Pre-Binding: should respect self pod affinity without pod binding (zone)",
          "[karpenter][upstream][scheduling][inflight][affinity]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.labels = {{"security", "s2"}};
  o.pod_requirements = {affinity_term(k_zone, {{"security", "s2"}})};
  const auto s = env.spec(o);
  pending_pod(env, s, "affinity-0");
  env.provision(std::vector<cluster::PodIndex>{});
  REQUIRE(env.node_count() == 1);
  // the second pod can schedule against the in-flight node if the self-affinity takes the
  // existing node's domain over any other viable one
  pending_pod(env, s, "affinity-1");
  env.provision(std::vector<cluster::PodIndex>{});
  CHECK(env.node_count() == 1);
}

// --- NodePool requirements instance filtering ---------------------------------------------------

TEST_CASE("suite_test.go Scheduling/NodePool requirements instance filtering: should return appropriate pod error "
          "when no available instance types exist",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  auto& np = scheduling_pool(env);
  const auto normal = env.pod();
  env.provision(normal);
  REQUIRE(env.scheduled(normal));
  replace_requirements(env, np, {req(k_it, Operator::in, {"non-existent-instance-type"})});
  const auto pod = env.pod(cpu_mem(32000, 256 * k_gi));
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  REQUIRE(round.result.errors.size() == 1);
  CHECK(round.result.errors[0].pod == pod);
  CHECK_THAT(round.result.errors[0].reason,
             Catch::Contains("nodepool requirements filtered out all available instance types"));
}

TEST_CASE("suite_test.go Scheduling/NodePool requirements instance filtering: should handle multiple pods when "
          "requirements filter out all instance types",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env), {req(k_arch, Operator::in, {"non-existent-arch"})});
  const std::vector<cluster::PodIndex> pods{env.pod(), env.pod(), env.pod()};
  const auto round = env.provision(pods);
  REQUIRE(round.result.errors.size() == 3);
  for (const auto& e : round.result.errors) {
    CHECK_FALSE(env.scheduled(e.pod));
    CHECK_THAT(e.reason, Catch::Contains("nodepool requirements filtered out all available instance types"));
  }
}

TEST_CASE("suite_test.go Scheduling/NodePool requirements instance filtering: should handle conflicting requirements "
          "that eliminate all instance types",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env),
                       {req(k_arch, Operator::in, {"amd64"}), req(k_arch, Operator::in, {"arm64"})});
  const auto pod = env.pod();
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  REQUIRE(round.result.errors.size() == 1);
  CHECK_THAT(round.result.errors[0].reason,
             Catch::Contains("nodepool requirements filtered out all available instance types"));
}

TEST_CASE("suite_test.go Scheduling/NodePool requirements instance filtering: should handle zone requirements that "
          "filter out all instance types",
          "[karpenter][upstream][scheduling]")
{
  Env env;
  replace_requirements(env, scheduling_pool(env),
                       {req(k_zone, Operator::in, {"non-existent-zone-1", "non-existent-zone-2"})});
  const auto pod = env.pod();
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  REQUIRE(round.result.errors.size() == 1);
  CHECK_THAT(round.result.errors[0].reason,
             Catch::Contains("nodepool requirements filtered out all available instance types"));
}

// ================================================================================================
// kubernetes-sigs/karpenter pkg/controllers/provisioning/suite_test.go (Describe "Provisioning")
// ================================================================================================

namespace {

// AddInstanceResources: an extra type with these resources (arch "arch", linux, one spot
// offering in test-zone-1 at PriceFromResources). Upstream names all of them "example"; here
// each gets its own name so that nothing keyed by name can mix them up.
catalog::InstanceType example_type(std::int64_t cpu, std::int64_t mem_gi)
{
  testing::FakeTypeOptions o;
  o.cpu_milli = cpu * 1000;
  o.memory = mem_gi * k_gi;
  o.arch = "arch";
  o.os = {"linux"};
  o.offerings = std::vector<catalog::Offering>{
      testing::fake_offering("test-zone-1", "spot", testing::fake_price(o.cpu_milli, o.memory))};
  return testing::fake_instance_type(fmt::format("example-{}-{}", cpu, mem_gi), o);
}

// The default catalog plus the 10/4Gi, 11/5Gi and 12/6Gi examples; the pod from `spec_yaml`
// must land on a type with exactly `cpu` CPUs and `mem_gi` Gi of capacity.
void expect_capacity_for(const std::string& spec_yaml, std::int64_t cpu, std::int64_t mem_gi)
{
  auto types = testing::fake_default_catalog();
  types.push_back(example_type(10, 4));
  types.push_back(example_type(11, 5));
  types.push_back(example_type(12, 6));
  Env env(std::move(types));
  env.node_pool();
  const auto pod = pending_pod(env, spec_from_yaml(spec_yaml), "sized");
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == cpu * 1000);
  CHECK(env.type_of(pod).capacity.memory() == mem_gi * k_gi);
}

} // namespace

TEST_CASE("provisioning/suite_test.go Provisioning: should schedule all pods on one inflight node when node is in "
          "deleting state",
          "[karpenter][upstream][provisioning][inflight]")
{
  Env env;
  env.node_pool();
  const auto old = env.node("deleting-node", {{k_it, env.types[0].name}}, env.types[0].allocatable(),
                            cluster::NodeLifecycle::ready, 0);
  std::vector<cluster::PodIndex> bound;
  for (int i = 0; i < 3; ++i) {
    bound.push_back(env.pod());
    env.bind(bound.back(), old);
  }
  env.cluster.node_mut(old).lifecycle = cluster::NodeLifecycle::deleting;
  const std::vector<cluster::PodIndex> fresh{env.pod(), env.pod()};
  // Provisioner.Schedule: pending pods plus the pods of deleting nodes
  SolveInput in = env.input();
  in.pods.insert(in.pods.end(), bound.begin(), bound.end());
  const auto result = solve(in);
  // a single new node for all five pods, none on the deleting node
  CHECK(result.existing.empty());
  REQUIRE(result.claims.size() == 1);
  CHECK(result.claims[0].pods.size() == 5);
  CHECK(result.errors.empty());
}

TEST_CASE("provisioning/suite_test.go Provisioning: should schedule based on the max resource requests of containers "
          "and initContainers with sidecar containers when initcontainer comes first",
          "[karpenter][upstream][provisioning][binpacking]")
{
  expect_capacity_for(R"(  initContainers:
    - {name: init, resources: {requests: {cpu: "10", memory: 4Gi}, limits: {cpu: "10", memory: 4Gi}}}
    - name: sidecar
      restartPolicy: Always
      resources: {requests: {cpu: "4.9", memory: 2.9Gi}, limits: {cpu: "4.9", memory: 2.9Gi}}
  containers:
    - {name: app, resources: {requests: {cpu: "6", memory: 2Gi}, limits: {cpu: "6", memory: 2Gi}}}
)",
                      11, 5);
}

TEST_CASE("provisioning/suite_test.go Provisioning: should schedule based on the max resource requests of containers "
          "and initContainers with sidecar containers when sidecar container comes first and init container resources "
          "are smaller than container resources",
          "[karpenter][upstream][provisioning][binpacking]")
{
  expect_capacity_for(R"(  initContainers:
    - name: sidecar
      restartPolicy: Always
      resources: {requests: {cpu: "4.9", memory: 2.9Gi}, limits: {cpu: "4.9", memory: 2.9Gi}}
    - {name: init, resources: {requests: {cpu: "5", memory: 1Gi}, limits: {cpu: "5", memory: 1Gi}}}
  containers:
    - {name: app, resources: {requests: {cpu: "6", memory: 2Gi}, limits: {cpu: "6", memory: 2Gi}}}
)",
                      11, 5);
}

TEST_CASE("provisioning/suite_test.go Provisioning: should schedule based on the max resource requests of containers "
          "and initContainers with sidecar containers when sidecar container comes first and init container resources "
          "are bigger than container resources",
          "[karpenter][upstream][provisioning][binpacking]")
{
  expect_capacity_for(R"(  initContainers:
    - name: sidecar
      restartPolicy: Always
      resources: {requests: {cpu: "4.9", memory: 2.9Gi}, limits: {cpu: "4.9", memory: 2.9Gi}}
    - {name: init, resources: {requests: {cpu: "6", memory: 2Gi}, limits: {cpu: "6", memory: 2Gi}}}
  containers:
    - {name: app, resources: {requests: {cpu: "5", memory: 1Gi}, limits: {cpu: "5", memory: 1Gi}}}
)",
                      11, 5);
}

TEST_CASE("provisioning/suite_test.go Provisioning: should schedule based on the pod level resources requests",
          "[karpenter][upstream][provisioning][binpacking]")
{
  expect_capacity_for(R"(  resources: {requests: {cpu: "9.9", memory: 3.9Gi}, limits: {cpu: "10", memory: 4Gi}}
  initContainers:
    - {name: init, resources: {requests: {cpu: "6", memory: 2Gi}, limits: {cpu: "6", memory: 2Gi}}}
    - name: sidecar
      restartPolicy: Always
      resources: {requests: {cpu: "4", memory: 2Gi}, limits: {cpu: "4", memory: 2Gi}}
  containers:
    - {name: app, resources: {requests: {cpu: "5", memory: 1Gi}, limits: {cpu: "5", memory: 1Gi}}}
)",
                      10, 4);
}

TEST_CASE("provisioning/suite_test.go Provisioning/Daemonsets: should consider a daemonset schedulable with an "
          "incompatible node affinity preference",
          "[karpenter][upstream][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  PodOptions ds = cpu_mem(2000, 2 * k_gi);
  ds.node_preferences = {req("node", Operator::in, {"invalid"})};
  env.daemon_set(ds);
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  // 4 CPU / 4Gi: the DaemonSet was counted (2 CPU / 2Gi would mean it was not)
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
  CHECK(env.type_of(pod).capacity.memory() == 4 * k_gi);
}

TEST_CASE("provisioning/suite_test.go Provisioning/Daemonsets: should not account for daemonset hostports when "
          "daemonset would not schedule on selected node",
          "[karpenter][upstream][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  PodOptions large = cpu_mem(4000, 4 * k_gi);
  large.node_requirements = {req(std::string(testing::k_fake_size), Operator::in, {"large"})};
  large.host_ports = {8080};
  env.daemon_set(large);
  PodOptions small = cpu_mem(2000, 2 * k_gi);
  small.node_requirements = {req(std::string(testing::k_fake_size), Operator::in, {"small"})};
  small.host_ports = {8081};
  env.daemon_set(small);
  PodOptions o = cpu_mem(1000, 1 * k_gi);
  o.node_requirements = {req(std::string(testing::k_fake_size), Operator::in, {"small"})};
  o.host_ports = {8080};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, std::string(testing::k_fake_size)) == "small");
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
  CHECK(env.type_of(pod).capacity.memory() == 4 * k_gi);
}

TEST_CASE("provisioning/suite_test.go Provisioning/Labels: should label nodes", "[karpenter][upstream][provisioning]")
{
  Env env;
  auto& np = env.node_pool();
  np.template_labels = {{"test-key-1", "test-value-1"}};
  np.requirements.add(req("test-key-2", Operator::in, {"test-value-2"}));
  np.requirements.add(req("test-key-3", Operator::not_in, {"test-value-3"}));
  np.requirements.add(req("test-key-4", Operator::lt, {"4"}));
  np.requirements.add(req("test-key-5", Operator::gt, {"5"}));
  np.requirements.add(req("test-key-6", Operator::exists));
  np.requirements.add(req("test-key-7", Operator::does_not_exist));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  const auto& labels = env.node_of(pod).labels;
  CHECK(env.label(pod, std::string(model::labels::k_nodepool)) == "default");
  CHECK(env.label(pod, "test-key-1") == "test-value-1");
  CHECK(env.label(pod, "test-key-2") == "test-value-2");
  REQUIRE(labels.count("test-key-3") == 1);
  CHECK(labels.at("test-key-3") != "test-value-3");
  REQUIRE(labels.count("test-key-4") == 1);
  CHECK(labels.at("test-key-4") != "test-value-4");
  REQUIRE(labels.count("test-key-5") == 1);
  CHECK(labels.at("test-key-5") != "test-value-5");
  CHECK(labels.count("test-key-6") == 1);
  CHECK(labels.count("test-key-7") == 0);
}

TEST_CASE("provisioning/suite_test.go Provisioning/Labels: should not label nodes with well-known labels from "
          "requirements",
          "[karpenter][upstream][provisioning]")
{
  Env env;
  auto& np = env.node_pool();
  np.requirements.add(req("foo", Operator::in, {"bar"}));
  np.requirements.add(req(std::string(model::labels::k_windows_build), Operator::not_in, {"test-value"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, std::string(model::labels::k_windows_build)) != "test-value");
  CHECK(env.label(pod, "foo") == "bar");
}

// --- Preferential Fallback / Ignore Preferences (PREFERENCE_POLICY=Ignore) ---------------------

namespace {

// zone1Pod (2 CPU, test-zone-1), two zone2Pods (3 CPU, test-zone-2) and `extra` (1 CPU) in one
// round; the preference of `extra` would pull it to the zone-2 node. Returns {zone1, zone2, extra}.
std::vector<cluster::PodIndex> ignored_preference_round(Env& env, PodOptions extra)
{
  env.options.ignore_preferences = true;
  env.node_pool();
  PodOptions z1 = cpu_mem(2000, 0);
  z1.labels = {{"app", "foo"}};
  z1.node_selector = {{k_zone, "test-zone-1"}};
  PodOptions z2 = cpu_mem(3000, 0);
  z2.labels = {{"app", "bar"}};
  z2.node_selector = {{k_zone, "test-zone-2"}};
  extra.cpu_milli = 1000;
  extra.labels = {{"app", "baz"}};
  const auto zone1 = env.pod(z1);
  const auto zone2 = env.pods(z2, 2);
  const auto x = env.pod(extra);
  const std::vector<cluster::PodIndex> all{zone1, zone2[0], zone2[1], x};
  env.provision(all);
  for (const auto p : all) {
    REQUIRE(env.scheduled(p));
  }
  return {zone1, zone2[0], x};
}

} // namespace

TEST_CASE("provisioning/suite_test.go Provisioning/Preferential Fallback/Ignore Preferences: should ignore node "
          "affinity preferences",
          "[karpenter][upstream][provisioning][preferences]")
{
  Env env;
  PodOptions extra;
  extra.node_preferences = {req(k_zone, Operator::in, {"test-zone-2"})};
  const auto pods = ignored_preference_round(env, extra);
  // without the preference, the pod goes to the NodeClaim with fewer pods: zone1Pod's
  CHECK(env.node_of(pods[2]).name == env.node_of(pods[0]).name);
  CHECK(env.node_of(pods[2]).name != env.node_of(pods[1]).name);
}

TEST_CASE("provisioning/suite_test.go Provisioning/Preferential Fallback/Ignore Preferences: should ignore pod "
          "affinity preferences",
          "[karpenter][upstream][provisioning][preferences]")
{
  for (const std::string& key : {k_zone, k_host}) {
    DYNAMIC_SECTION(key)
    {
      Env env;
      PodOptions extra;
      extra.pod_preferences = {{1, affinity_term(key, {{"app", "bar"}})}};
      const auto pods = ignored_preference_round(env, extra);
      CHECK(env.node_of(pods[2]).name == env.node_of(pods[0]).name);
      CHECK(env.node_of(pods[2]).name != env.node_of(pods[1]).name);
    }
  }
}

TEST_CASE("provisioning/suite_test.go Provisioning/Preferential Fallback/Ignore Preferences: should ignore "
          "topologySpreadConstraint preferences",
          "[karpenter][upstream][provisioning][preferences]")
{
  for (const std::string& key : {k_zone, k_host}) {
    DYNAMIC_SECTION(key)
    {
      Env env;
      env.options.ignore_preferences = true;
      env.node_pool();
      PodOptions o;
      o.labels = {{"app", "foo"}};
      o.spread = {spread(key, {{"app", "foo"}}, 1, false)};
      const auto pods = env.pods(o, 5);
      env.provision(pods);
      for (const auto p : pods) {
        REQUIRE(env.scheduled(p));
      }
      // respecting the preference would put them on separate nodes; ignoring it, on one
      CHECK(node_names(env, pods).size() == 1);
    }
  }
}

TEST_CASE("provisioning/suite_test.go Provisioning/Preferential Fallback/Ignore Preferences: should ignore pod "
          "anti-affinity preferences",
          "[karpenter][upstream][provisioning][preferences]")
{
  for (const std::string& key : {k_zone, k_host}) {
    DYNAMIC_SECTION(key)
    {
      Env env;
      env.options.ignore_preferences = true;
      env.node_pool();
      PodOptions o;
      o.labels = {{"app", "foo"}};
      o.pod_anti_preferences = {{1, affinity_term(key, {{"app", "foo"}})}};
      const auto pods = env.pods(o, 5);
      env.provision(pods);
      for (const auto p : pods) {
        REQUIRE(env.scheduled(p));
      }
      CHECK(node_names(env, pods).size() == 1);
    }
  }
}
