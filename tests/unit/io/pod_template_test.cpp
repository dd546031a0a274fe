#include "core/io/scenario_yaml.hpp"
#include "tests/unit/io/io_test_support.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using capsim::iotest::k_scenario;

namespace {

// A scenario with one bare Pod whose metadata and spec are given as YAML blocks (indented by 2).
std::string pod_doc(const std::string& spec, const std::string& metadata = "  name: p\n")
{
  return k_scenario + "---\napiVersion: v1\nkind: Pod\nmetadata:\n" + metadata + "spec:\n" + spec;
}

model::PodSpec pod_spec(const std::string& spec, const std::string& metadata = "  name: p\n")
{
  const auto s = io::parse_scenario(pod_doc(spec, metadata), "t.yaml");
  REQUIRE(s.pods.size() == 1);
  return *s.pods[0].spec;
}

} // namespace

TEST_CASE("pods: container requests, limits-only defaulting and quantities", "[io][pod][resources]")
{
  const auto spec = pod_spec(R"(  containers:
    - name: a
      resources:
        requests: {cpu: 250m, memory: 1.5Gi}
    - name: b
      resources:
        limits: {cpu: "1", memory: 512Mi, nvidia.com/gpu: "1"}
    - name: c
      resources:
        requests: {cpu: "0.5", ephemeral-storage: 1e9}
        limits: {cpu: "2", memory: 129M}
)");
  CHECK(spec.requests.cpu() == 250 + 1000 + 500);
  CHECK(spec.requests.memory() == 1610612736 + 512 * k_mib + 129'000'000); // c's memory limit only
  CHECK(spec.requests[model::k_nvidia_gpu] == 1);
  CHECK(spec.requests[model::k_ephemeral_storage] == 1'000'000'000);
  CHECK(spec.requests.pods() == 0); // pods: 1 is added by the scheduler, not here
}

TEST_CASE("pods: a template without a spec is reported at a line, even when its metadata has none",
          "[io][pod]")
{
  // `metadata:` with no value ends the document: yaml-cpp gives that empty value no position.
  const std::string deployment = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
                                 "  replicas: 1\n  template:\n    metadata:\n";
  REQUIRE_ERROR(k_scenario + deployment + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n",
                "t.yaml:11:5: error: Deployment/d.spec.template.spec: the pod needs a 'spec' with containers");
  REQUIRE_ERROR(k_scenario + deployment,
                "t.yaml:11:5: error: Deployment/d.spec.template.spec: the pod needs a 'spec' with containers");
  // With a place of its own, the metadata is where it is reported.
  REQUIRE_ERROR(k_scenario + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
                             "  template:\n    metadata: {labels: {a: b}}\n",
                "t.yaml:10:15: error: Deployment/d.spec.template.spec: the pod needs a 'spec' with containers");
}

TEST_CASE("pods: init containers and sidecars follow PodRequests", "[io][pod][resources]")
{
  // max(sum of containers, largest init container) when there is no sidecar.
  const auto plain = pod_spec(R"(  initContainers:
    - {name: migrate, resources: {requests: {cpu: "2", memory: 256Mi}}}
    - {name: warm, resources: {requests: {cpu: 500m, memory: 2Gi}}}
  containers:
    - {name: app, resources: {requests: {cpu: "1", memory: 1Gi}}}
)");
  CHECK(plain.requests.cpu() == 2000);
  CHECK(plain.requests.memory() == 2 * k_gib);

  // Sidecars (restartPolicy: Always) add to the sum and to every later init container.
  const auto sidecar = pod_spec(R"(  initContainers:
    - {name: first, resources: {requests: {cpu: 800m, memory: 100Mi}}}
    - {name: proxy, restartPolicy: Always, resources: {requests: {cpu: 300m, memory: 200Mi}}}
    - {name: late, resources: {requests: {cpu: "1", memory: 50Mi}}}
  containers:
    - {name: app, resources: {requests: {cpu: 500m, memory: 1Gi}}}
)");
  // sum = app + proxy = 800m / 1Gi+200Mi; late + proxy = 1300m / 250Mi; first = 800m / 100Mi.
  CHECK(sidecar.requests.cpu() == 1300);
  CHECK(sidecar.requests.memory() == k_gib + 200 * k_mib);

  // Pod overhead (RuntimeClass) is added after.
  const auto overhead = pod_spec(R"(  runtimeClassName: sandboxed
  overhead: {cpu: 250m, memory: 120Mi}
  containers:
    - {name: app, resources: {requests: {cpu: 500m, memory: 1Gi}}}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: sandboxed}
handler: kata
overhead:
  podFixed: {cpu: 250m, memory: 120Mi}
)");
  CHECK(overhead.requests.cpu() == 750);
  CHECK(overhead.requests.memory() == k_gib + 120 * k_mib);

  // Pod-level resources replace the container sum for what they set.
  const auto pod_level = pod_spec(R"(  resources: {requests: {cpu: "3"}}
  containers:
    - {name: app, resources: {requests: {cpu: 500m, memory: 1Gi}}}
)");
  CHECK(pod_level.requests.cpu() == 3000);
  CHECK(pod_level.requests.memory() == k_gib);

  REQUIRE_ERROR(pod_doc("  containers:\n    - {name: a, restartPolicy: Always}\n"),
                "t.yaml:11:32: error: 'Pod/p.spec.containers[0].restartPolicy' is only allowed on init containers "
                "(sidecars)");
  REQUIRE_ERROR(pod_doc("  containers:\n    - {name: a, resources: {requests: {cpu: 2}, limits: {cpu: 1}}}\n"),
                "t.yaml:11:28: error: 'Pod/p.spec.containers[0].resources': the cpu request (2000) is larger than its "
                "limit (1000)");
}

TEST_CASE("pods: node selectors and node affinity", "[io][pod][affinity]")
{
  const auto spec = pod_spec(R"(  nodeSelector: {kubernetes.io/arch: arm64, team: a}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ["3"]}
              - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["17"]}
          - matchExpressions:
              - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}
            matchFields:
              - {key: metadata.name, operator: NotIn, values: [bad-node]}
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 60
          preference:
            matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
        - weight: 1
          preference:
            matchExpressions: [{key: example.com/fast, operator: Exists}]
  containers: [{name: c}]
)");
  CHECK(spec.node_selector == model::Labels{{"kubernetes.io/arch", "arm64"}, {"team", "a"}});
  REQUIRE(spec.required_node_affinity.size() == 2);
  const auto& t0 = spec.required_node_affinity[0].requirements;
  REQUIRE(t0.size() == 2);
  CHECK(t0[0].greater_than == 3);
  CHECK(t0[1].less_than == 17);
  CHECK(t0[0].has("4"));
  CHECK_FALSE(t0[0].has("3"));
  const auto& t1 = spec.required_node_affinity[1].requirements;
  REQUIRE(t1.size() == 2);
  CHECK(t1[0].values == std::vector<std::string>{"m5.large", "m5.xlarge"});
  CHECK(t1[1].key == "kubernetes.io/hostname");
  CHECK(t1[1].complement);
  REQUIRE(spec.preferred_node_affinity.size() == 2);
  CHECK(spec.preferred_node_affinity[0].weight == 60);
  CHECK(spec.preferred_node_affinity[0].term.requirements[0].values == std::vector<std::string>{"spot"});
  CHECK(spec.preferred_node_affinity[1].term.requirements[0].op() == model::Operator::exists);

  REQUIRE_ERROR(pod_doc(R"(  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions: [{key: a, operator: Gt, values: ["x"]}]
  containers: [{name: c}]
)"),
                "t.yaml:14:32: error: 'Pod/p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                "nodeSelectorTerms.matchExpressions': operator Gt needs exactly one integer value");
  REQUIRE_ERROR(pod_doc(R"(  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions: [{key: a, operator: in, values: [x]}]
  containers: [{name: c}]
)"),
                "t.yaml:14:51: error: 'in' is not a valid value for 'Pod/p.spec.affinity.nodeAffinity."
                "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.matchExpressions.operator' (expected "
                "In, NotIn, Exists, DoesNotExist, Gt, Lt; did you mean 'In'?)");
}

TEST_CASE("pods: pod affinity and anti-affinity", "[io][pod][affinity]")
{
  const auto spec = pod_spec(R"(  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: topology.kubernetes.io/zone
          labelSelector: {matchLabels: {app: cache}}
          namespaces: [cache]
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/hostname
          labelSelector: {matchExpressions: [{key: app, operator: In, values: [web]}]}
          namespaceSelector: {}
          matchLabelKeys: [version]
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            topologyKey: example.com/rack
            labelSelector: {}
            namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}
  containers: [{name: c}]
)",
                             "  name: p\n  labels: {app: web, version: v2}\n");
  REQUIRE(spec.pod_affinity_required.size() == 1);
  const auto& a = spec.pod_affinity_required[0];
  CHECK(a.topology_key == "topology.kubernetes.io/zone");
  CHECK(a.namespaces == std::vector<std::string>{"cache"});
  CHECK_FALSE(a.all_namespaces);
  REQUIRE(a.selector.has_value());
  CHECK(a.selector->match_labels == model::Labels{{"app", "cache"}});
  REQUIRE(spec.pod_anti_affinity_required.size() == 1);
  const auto& anti = spec.pod_anti_affinity_required[0];
  CHECK(anti.all_namespaces);
  CHECK(anti.match_label_keys == std::vector<std::string>{"version"});
  REQUIRE(anti.selector->match_expressions.size() == 2); // matchLabelKeys merged: version In [v2]
  CHECK(anti.selector->match_expressions[1].key == "version");
  CHECK(anti.selector->match_expressions[1].values == std::vector<std::string>{"v2"});
  CHECK(anti.selector->matches({{"app", "web"}, {"version", "v2"}}));
  CHECK_FALSE(anti.selector->matches({{"app", "web"}, {"version", "v1"}}));
  REQUIRE(spec.pod_anti_affinity_preferred.size() == 1);
  CHECK(spec.pod_anti_affinity_preferred[0].weight == 100);
  CHECK(spec.pod_anti_affinity_preferred[0].term.topology_key == "example.com/rack");
  CHECK(spec.pod_anti_affinity_preferred[0].term.namespaces == std::vector<std::string>{"other"});
  CHECK(spec.pod_anti_affinity_preferred[0].term.selector->match_labels.empty()); // {} matches every pod

  REQUIRE_ERROR(pod_doc(R"(  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: web}}
  containers: [{name: c}]
)"),
                "t.yaml:13:11: error: 'Pod/p.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution'"
                " entry needs a 'topologyKey'");
}

TEST_CASE("pods: tolerations and topology spread constraints", "[io][pod]")
{
  const auto spec = pod_spec(R"(  tolerations:
    - {key: team, operator: Equal, value: a, effect: NoSchedule}
    - {key: CriticalAddonsOnly, operator: Exists}
    - {operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  topologySpreadConstraints:
    - maxSkew: 2
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
      minDomains: 3
      labelSelector: {matchLabels: {app: web}}
      matchLabelKeys: [pod-template-hash]
      nodeAffinityPolicy: Ignore
      nodeTaintsPolicy: Honor
    - maxSkew: 1
      topologyKey: kubernetes.io/hostname
      whenUnsatisfiable: ScheduleAnyway
  containers: [{name: c}]
)",
                             "  name: p\n  labels: {app: web, pod-template-hash: abc}\n");
  REQUIRE(spec.tolerations.size() == 3);
  CHECK(spec.tolerations[0] == model::Toleration{"team", false, "a", model::TaintEffect::no_schedule});
  CHECK(spec.tolerations[1].op_exists);
  CHECK_FALSE(spec.tolerations[1].effect.has_value());
  CHECK(spec.tolerations[2].key.empty());
  CHECK(spec.tolerations[2].tolerates({"anything", "x", model::TaintEffect::no_execute}));
  REQUIRE(spec.topology_spread.size() == 2);
  const auto& z = spec.topology_spread[0];
  CHECK(z.max_skew == 2);
  CHECK(z.topology_key == "topology.kubernetes.io/zone");
  CHECK(z.when_unsatisfiable == model::UnsatisfiableAction::do_not_schedule);
  CHECK(z.min_domains == 3);
  CHECK(z.match_label_keys == std::vector<std::string>{"pod-template-hash"});
  CHECK_FALSE(z.node_affinity_policy_honor);
  CHECK(z.node_taints_policy_honor);
  CHECK(z.selector->match_expressions.size() == 1);
  const auto& h = spec.topology_spread[1];
  CHECK(h.when_unsatisfiable == model::UnsatisfiableAction::schedule_anyway);
  CHECK_FALSE(h.selector.has_value());
  CHECK(h.node_affinity_policy_honor);
  CHECK_FALSE(h.node_taints_policy_honor);

  REQUIRE_ERROR(pod_doc("  tolerations: [{key: a, operator: Exists, value: b}]\n  containers: [{name: c}]\n"),
                "t.yaml:10:17: error: 'Pod/p.spec.tolerations': a toleration with operator Exists must not have a value");
  REQUIRE_ERROR(pod_doc("  topologySpreadConstraints: [{maxSkew: 0, topologyKey: k, whenUnsatisfiable: DoNotSchedule}]\n"
                        "  containers: [{name: c}]\n"),
                "t.yaml:10:41: error: '0' is out of range for 'Pod/p.spec.topologySpreadConstraints.maxSkew' (expected "
                "1..1000000)");
  REQUIRE_ERROR(pod_doc("  topologySpreadConstraints: [{maxSkew: 1, topologyKey: k, whenUnsatisfiable: ScheduleAnyway, "
                        "minDomains: 2}]\n  containers: [{name: c}]\n"),
                "t.yaml:10:107: error: 'Pod/p.spec.topologySpreadConstraints.minDomains' is only allowed with "
                "whenUnsatisfiable: DoNotSchedule");
}

TEST_CASE("pods: priority, annotations, volumes, host ports and grace period", "[io][pod]")
{
  const auto spec = pod_spec(R"(  priority: 42
  priorityClassName: system-cluster-critical
  hostNetwork: true
  terminationGracePeriodSeconds: 120
  volumes:
    - {name: cache, emptyDir: {}}
  containers:
    - name: c
      ports: [{containerPort: 8080}, {containerPort: 9090, hostPort: 19090}]
)",
                             R"(  name: p
  annotations:
    karpenter.sh/do-not-disrupt: "true"
    cluster-autoscaler.kubernetes.io/safe-to-evict: "false"
    controller.kubernetes.io/pod-deletion-cost: "-100"
)");
  CHECK(spec.priority == 42); // an explicit spec.priority wins over the class
  CHECK(spec.do_not_disrupt == k_never);
  CHECK(spec.safe_to_evict_false);
  CHECK_FALSE(spec.safe_to_evict_true);
  CHECK(spec.deletion_cost == -100);
  CHECK(spec.has_local_storage);
  CHECK(spec.host_ports == std::vector<std::int32_t>{8080, 19090}); // hostNetwork: containerPort is the host port
  CHECK(spec.termination_grace_period == 120 * k_second);

  const auto other = pod_spec(R"(  priorityClassName: system-cluster-critical
  volumes:
    - {name: shm, emptyDir: {medium: Memory}}
    - {name: cfg, configMap: {name: x}}
  containers: [{name: c, ports: [{containerPort: 80}]}]
)",
                              "  name: p\n  annotations: {karpenter.sh/do-not-disrupt: 30m, "
                              "cluster-autoscaler.kubernetes.io/safe-to-evict: \"true\"}\n");
  CHECK(other.priority == 2000000000);
  CHECK(other.do_not_disrupt == 30 * k_minute);
  CHECK(other.safe_to_evict_true);
  CHECK_FALSE(other.has_local_storage);
  CHECK(other.host_ports.empty());
  CHECK(other.termination_grace_period == 30 * k_second);

  // Karpenter's IsDoNotDisruptActive: "true", or a positive Go duration; any other value is as
  // if the annotation were absent (pkg/utils/pod/scheduling.go; consolidation_test.go "can delete
  // nodes, considers invalid do-not-disrupt annotation format as not blocking").
  const auto do_not_disrupt = [](const std::string& value) {
    return pod_spec("  containers: [{name: c}]\n",
                    "  name: p\n  annotations: {karpenter.sh/do-not-disrupt: \"" + value + "\"}\n")
        .do_not_disrupt;
  };
  CHECK(do_not_disrupt("true") == k_never);
  CHECK(do_not_disrupt("+1h30m") == 90 * k_minute);
  CHECK(do_not_disrupt("1.5h") == 90 * k_minute);
  CHECK(do_not_disrupt("500ms") == 500);
  for (const char* ignored : {"maybe", "false", "True", "", "0", "0s", "-5m", "7d", "1d2h", "Never", "30"}) {
    INFO(ignored);
    CHECK(do_not_disrupt(ignored) == 0);
  }
  REQUIRE_ERROR(pod_doc("  priorityClassName: hihg\n  containers: [{name: c}]\n"),
                "t.yaml:10:22: error: Pod/p.spec: unknown priorityClassName 'hihg' (add a scheduling.k8s.io/v1 "
                "PriorityClass to the scenario)");
}

TEST_CASE("pods: a RuntimeClass sets overhead, node selector and tolerations as the API server's admission does",
          "[io][pod][runtime-class]")
{
  // RuntimeClasses may come after the pods that name them.
  const std::string classes = R"(---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead:
  podFixed: {cpu: 250m, memory: 160Mi}
scheduling:
  nodeSelector: {sandbox: kata}
  tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: runc}
handler: runc
)";
  const auto parse = [&](const std::string& spec) {
    const auto s = io::parse_scenario(pod_doc(spec) + classes, "t.yaml");
    REQUIRE(s.pods.size() == 1);
    return *s.pods[0].spec;
  };
  const auto kata = parse(R"(  runtimeClassName: kata
  nodeSelector: {disk: ssd}
  tolerations: [{key: other, operator: Exists}]
  containers:
    - {name: app, resources: {requests: {cpu: 500m, memory: 1Gi}}}
)");
  CHECK(kata.requests.cpu() == 750);
  CHECK(kata.requests.memory() == k_gib + 160 * k_mib);
  CHECK(kata.node_selector == model::Labels{{"disk", "ssd"}, {"sandbox", "kata"}});
  REQUIRE(kata.tolerations.size() == 2);
  CHECK(kata.tolerations[0].key == "other");
  CHECK(kata.tolerations[1].key == "sandbox");
  CHECK(kata.tolerations[1].effect == model::TaintEffect::no_schedule);

  // A pod admitted before (its overhead is the class's, the class's toleration already there)
  // reads the same; a class without overhead adds nothing.
  const auto pasted = parse(R"(  runtimeClassName: kata
  overhead: {cpu: 250m, memory: 160Mi}
  nodeSelector: {sandbox: kata}
  tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]
  containers:
    - {name: app, resources: {requests: {cpu: 500m, memory: 1Gi}}}
)");
  CHECK(pasted.requests == kata.requests);
  CHECK(pasted.tolerations.size() == 1);
  const auto runc = parse("  runtimeClassName: runc\n  containers:\n    - {name: app, resources: {requests: {cpu: 1}}}\n");
  CHECK(runc.requests.cpu() == 1000);
  CHECK(runc.node_selector.empty());

  // What the admission plugin refuses.
  REQUIRE_ERROR(pod_doc("  runtimeClassName: kaat\n  containers: [{name: c}]\n") + classes,
                "t.yaml:10:21: error: Pod/p.spec: unknown runtimeClassName 'kaat' (did you mean 'kata'?) (add a "
                "node.k8s.io/v1 RuntimeClass to the scenario)");
  REQUIRE_ERROR(pod_doc("  runtimeClassName: kata\n  overhead: {cpu: 1}\n  containers: [{name: c}]\n") + classes,
                "t.yaml:11:13: error: Pod/p.spec.overhead differs from RuntimeClass 'kata''s overhead.podFixed (the "
                "API server refuses the pod)");
  REQUIRE_ERROR(pod_doc("  runtimeClassName: runc\n  overhead: {cpu: 1}\n  containers: [{name: c}]\n") + classes,
                "t.yaml:11:13: error: Pod/p.spec.overhead is set but RuntimeClass 'runc' defines none (the API server "
                "refuses the pod)");
  REQUIRE_ERROR(pod_doc("  overhead: {cpu: 1}\n  containers: [{name: c}]\n") + classes,
                "t.yaml:10:13: error: Pod/p.spec.overhead is set without a runtimeClassName (the API server refuses "
                "the pod: only a RuntimeClass's overhead.podFixed may set it)");
  REQUIRE_ERROR(pod_doc("  runtimeClassName: \"\"\n  overhead: {cpu: 1}\n  containers: [{name: c}]\n") + classes,
                "t.yaml:11:13: error: Pod/p.spec.overhead is set without a runtimeClassName (the API server refuses "
                "the pod: only a RuntimeClass's overhead.podFixed may set it)");
  REQUIRE_ERROR(pod_doc("  runtimeClassName: kata\n  nodeSelector: {sandbox: gvisor}\n  containers: [{name: c}]\n")
                    + classes,
                "t.yaml:10:21: error: Pod/p.spec: RuntimeClass 'kata' selects nodes with sandbox=kata but the pod's "
                "nodeSelector has sandbox=gvisor (the API server refuses the pod)");

  // The RuntimeClass document itself.
  const std::string pod = pod_doc("  containers: [{name: c}]\n");
  REQUIRE_ERROR(pod + "---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: x}\n",
                "t.yaml:12:1: error: RuntimeClass/x needs a 'handler'");
  REQUIRE_ERROR(pod + "---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: x}\nhandler: x\n"
                      "scheduling: {nodeSelectr: {a: b}}\n",
                "t.yaml:16:14: error: unknown field 'nodeSelectr' in 'RuntimeClass/x.scheduling' (did you mean "
                "'nodeSelector'?)");
  REQUIRE_ERROR(pod + "---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: x}\nhandler: x\n"
                      "overhead: {podFixed: {cpu: -1}}\n",
                "t.yaml:16:28: error: 'RuntimeClass/x.overhead.podFixed.cpu': quantity '-1' must not be "
                "negative");
}

TEST_CASE("pods: a workload template takes its RuntimeClass's overhead", "[io][pod][runtime-class]")
{
  const auto s = io::parse_scenario(k_scenario + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      runtimeClassName: gvisor
      containers: [{name: app, resources: {requests: {cpu: 100m}}}]
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
overhead: {podFixed: {cpu: 50m}}
)",
                                    "t.yaml");
  REQUIRE(s.workloads.size() == 1);
  CHECK(s.workloads[0].spec->requests.cpu() == 150);
}
