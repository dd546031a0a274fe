#include "core/io/scenario_yaml.hpp"
#include "core/catalog/aws_allocatable.hpp"
#include "core/catalog/catalog.hpp"
#include "tests/unit/io/io_test_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <limits>

using namespace capsim;
using capsim::iotest::errors_of;
using capsim::iotest::k_scenario;

namespace {

model::Scenario parse(const std::string& text)
{
  return io::parse_scenario(text, "t.yaml");
}

// `kubectl get nodepool default -o yaml` as a v1 cluster prints it (status, managedFields,
// annotations and the last-applied JSON included).
const std::string k_pasted_node_pool = R"(---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  annotations:
    karpenter.sh/nodepool-hash: "6821555240594823858"
    karpenter.sh/nodepool-hash-version: v3
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"annotations":{},"name":"default"},"spec":{"template":{"spec":{"requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}}}}
  creationTimestamp: "2024-08-20T12:00:00Z"
  generation: 1
  managedFields:
  - apiVersion: karpenter.sh/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          .: {}
          f:kubectl.kubernetes.io/last-applied-configuration: {}
      f:spec:
        .: {}
        f:disruption: {}
    manager: kubectl-client-side-apply
    operation: Update
    time: "2024-08-20T12:00:00Z"
  name: default
  resourceVersion: "123456"
  uid: 0a1b2c3d-0000-4000-8000-000000000001
spec:
  disruption:
    budgets:
    - nodes: 10%
    consolidateAfter: 0s
    consolidationPolicy: WhenEmptyOrUnderutilized
  limits:
    cpu: 1000
    memory: 1000Gi
  template:
    metadata:
      labels:
        team: web
    spec:
      expireAfter: 720h
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
      - key: kubernetes.io/arch
        operator: In
        values:
        - amd64
      - key: karpenter.sh/capacity-type
        operator: In
        values:
        - spot
        - on-demand
      - key: karpenter.k8s.aws/instance-category
        operator: In
        values:
        - c
        - m
        - r
        minValues: 2
      - key: karpenter.k8s.aws/instance-generation
        operator: Gt
        values:
        - "2"
status:
  conditions:
  - lastTransitionTime: "2024-08-20T12:00:05Z"
    message: ""
    observedGeneration: 1
    reason: Ready
    status: "True"
    type: Ready
  resources:
    cpu: "16"
    ephemeral-storage: 40828Mi
    memory: 32036188Ki
    nodes: "2"
    pods: "58"
)";

} // namespace

TEST_CASE("scenario: Scenario.spec maps every camelCase field", "[io][scenario]")
{
  const auto s = parse(R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: web-and-batch}
spec:
  region: eu-west-1
  zones: [eu-west-1a, eu-west-1b]
  duration: 1d2h
  seed: 42
  engines: [cluster-autoscaler]
  karpenter: {batchIdleDuration: 2s, batchMaxDuration: 20s, launchLatency: 50s, registrationLatency: 40s,
              spotToSpotConsolidation: true, version: "1.13", preferencePolicy: Ignore, minValuesPolicy: BestEffort,
              maxInstanceTypes: 100, interruptionQueue: false}
  clusterAutoscaler: {expander: "priority,least-waste", scanInterval: 20s, scaleDownUtilizationThreshold: 0.6,
                      scaleDownUnneededTime: 5m, scaleDownDelayAfterAdd: 15m, scaleDownDelayAfterDelete: 1m,
                      scaleDownDelayAfterFailure: 4m, launchLatency: 100s, maxNodeProvisionTime: 20m,
                      maxNodesTotal: 300, maxEmptyBulkDelete: 5, maxScaleDownParallelism: 7,
                      balanceSimilarNodeGroups: true, skipNodesWithLocalStorage: false,
                      skipNodesWithSystemPods: false, useRealAllocatable: true, rebalanceRecommendation: true,
                      newPodScaleUpDelay: 30s, maxDrainParallelism: 3, scaleDownGpuUtilizationThreshold: 0.4,
                      ignoreDaemonsetsUtilization: true, expendablePodsPriorityCutoff: -5,
                      unremovableNodeRecheckTimeout: 6m, initialNodeGroupBackoffDuration: 4m,
                      maxNodeGroupBackoffDuration: 20m, nodeGroupBackoffResetTimeout: 2h,
                      blockingSystemPodDisruptionTimeout: 30m, registrationLatency: 15s, rebalanceLeadTime: 8m,
                      maxBulkSoftTaintCount: 0}
  spot: {interruptionModel: none, hazardMultiplier: 2.5}
  pricing: {onDemandDiscount: 0.1, savingsPlanUsdPerHour: 12.5, savingsPlanDiscount: 0.3,
            nodeOverheadUsdPerHour: 0.01, minSpotDiscount: 0.2}
)");
  const auto& st = s.settings;
  CHECK(st.name == "web-and-batch");
  CHECK(st.region == "eu-west-1");
  CHECK(st.zones == std::vector<std::string>{"eu-west-1a", "eu-west-1b"});
  CHECK(st.duration == 26 * k_hour);
  CHECK(st.seed == 42);
  CHECK(st.catalog == "default");
  CHECK(st.engines == std::vector<std::string>{"cluster-autoscaler"});
  CHECK(st.location == SourceLocation{"t.yaml", 1, 1});
  const auto& k = st.karpenter;
  CHECK(k.batch_idle_duration == 2 * k_second);
  CHECK(k.batch_max_duration == 20 * k_second);
  CHECK(k.launch_latency == 50 * k_second);
  CHECK(k.registration_latency == 40 * k_second);
  CHECK(k.spot_to_spot_consolidation);
  CHECK(k.version == "1.13");
  CHECK(k.preference_policy_ignore);
  CHECK(k.min_values_best_effort);
  CHECK(k.max_instance_types == 100);
  CHECK_FALSE(k.interruption_queue);
  const auto& c = st.cluster_autoscaler;
  CHECK(c.expander == "priority,least-waste");
  CHECK(c.scan_interval == 20 * k_second);
  CHECK(c.scale_down_utilization_threshold == Approx(0.6));
  CHECK(c.scale_down_unneeded_time == 5 * k_minute);
  CHECK(c.scale_down_delay_after_add == 15 * k_minute);
  CHECK(c.scale_down_delay_after_delete == k_minute);
  CHECK(c.scale_down_delay_after_failure == 4 * k_minute);
  CHECK(c.launch_latency == 100 * k_second);
  CHECK(c.max_node_provision_time == 20 * k_minute);
  CHECK(c.max_nodes_total == 300);
  CHECK(c.max_empty_bulk_delete == 5);
  CHECK(c.max_scale_down_parallelism == 7);
  CHECK(c.balance_similar_node_groups);
  CHECK_FALSE(c.skip_nodes_with_local_storage);
  CHECK_FALSE(c.skip_nodes_with_system_pods);
  CHECK(c.use_real_allocatable);
  CHECK(c.rebalance_recommendation);
  CHECK(c.new_pod_scale_up_delay == 30 * k_second);
  CHECK(c.max_drain_parallelism == 3);
  CHECK(c.max_bulk_soft_taint_count == 0);
  CHECK(c.scale_down_gpu_utilization_threshold == Approx(0.4));
  CHECK(c.ignore_daemonsets_utilization);
  CHECK(c.expendable_pods_priority_cutoff == -5);
  CHECK(c.unremovable_node_recheck_timeout == 6 * k_minute);
  CHECK(c.initial_node_group_backoff_duration == 4 * k_minute);
  CHECK(c.max_node_group_backoff_duration == 20 * k_minute);
  CHECK(c.node_group_backoff_reset_timeout == 2 * k_hour);
  CHECK(c.blocking_system_pod_disruption_timeout == 30 * k_minute);
  CHECK(c.registration_latency == 15 * k_second);
  CHECK(c.rebalance_lead_time == 8 * k_minute);
  CHECK(st.spot.interruption_model == "none");
  CHECK(st.spot.hazard_multiplier == Approx(2.5));
  CHECK(st.pricing.on_demand_discount == Approx(0.1));
  CHECK(st.pricing.savings_plan_usd_per_hour == Approx(12.5));
  CHECK(st.pricing.savings_plan_discount == Approx(0.3));
  CHECK(st.pricing.node_overhead_usd_per_hour == Approx(0.01));
  CHECK(st.pricing.min_spot_discount == Approx(0.2));
}

TEST_CASE("scenario: defaults when Scenario.spec is minimal", "[io][scenario]")
{
  const auto s = parse("apiVersion: capsim/v1\nkind: Scenario\n");
  const model::ScenarioSettings defaults;
  CHECK(s.settings.name == "scenario");
  CHECK(s.settings.region == "us-east-1");
  CHECK(s.settings.duration == 0);
  CHECK(s.settings.seed == 1);
  CHECK(s.settings.engines.empty()); // nothing configured
  CHECK(s.settings.karpenter.batch_idle_duration == defaults.karpenter.batch_idle_duration);
  CHECK(s.settings.cluster_autoscaler.expander == "least-waste");
  CHECK(s.kind_counts == std::map<std::string, std::int32_t>{{"Scenario", 1}});
}

TEST_CASE("scenario: a pasted kubectl NodePool (status, managedFields, annotations) reads as v1", "[io][nodepool]")
{
  const auto s = parse(k_scenario + k_pasted_node_pool);
  REQUIRE(s.node_pools.size() == 1);
  const auto& np = s.node_pools[0];
  CHECK(np.name == "default");
  CHECK(np.template_labels == model::Labels{{"team", "web"}});
  CHECK(np.node_class_ref == "default");
  CHECK(np.expire_after == 720 * k_hour);
  CHECK_FALSE(np.termination_grace_period.has_value());
  CHECK(np.consolidation_policy == model::ConsolidationPolicy::when_empty_or_underutilized);
  CHECK(np.consolidate_after == 0);
  REQUIRE(np.budgets.size() == 1);
  CHECK(np.budgets[0].nodes == "10%");
  REQUIRE(np.limits.has_value());
  CHECK(np.limits->cpu() == 1'000'000);
  CHECK(np.limits->memory() == 1000 * k_gib);
  CHECK((*np.limits)[model::k_pods] == std::numeric_limits<std::int64_t>::max()); // not limited
  CHECK_FALSE(np.limit_nodes.has_value());
  CHECK(np.weight == 0);
  const auto* cat = np.requirements.find("karpenter.k8s.aws/instance-category");
  REQUIRE(cat != nullptr);
  CHECK(cat->values == std::vector<std::string>{"c", "m", "r"});
  CHECK(cat->min_values == 2);
  const auto* gen = np.requirements.find("karpenter.k8s.aws/instance-generation");
  REQUIRE(gen != nullptr);
  CHECK(gen->greater_than == 2);
  CHECK(gen->has("5"));
  CHECK_FALSE(gen->has("2"));
  CHECK(np.requirements.get("karpenter.sh/capacity-type").values == std::vector<std::string>{"on-demand", "spot"});
  CHECK(np.template_hash == io::node_pool_template_hash(np));
}

TEST_CASE("scenario: NodePool defaults and every v1 field", "[io][nodepool]")
{
  const auto minimal = parse(k_scenario + R"(---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: a}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
)");
  const auto& d = minimal.node_pools.at(0);
  CHECK(d.consolidation_policy == model::ConsolidationPolicy::when_empty_or_underutilized);
  CHECK(d.consolidate_after == 0);
  CHECK(d.expire_after == 720 * k_hour);
  REQUIRE(d.budgets.size() == 1);
  CHECK(d.budgets[0].nodes == "10%");
  CHECK(d.weight == 0);
  CHECK_FALSE(d.limits.has_value());
  CHECK(minimal.settings.engines == std::vector<std::string>{"karpenter"});

  const auto full = parse(k_scenario + R"(---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: b
  annotations: {capsim.io/limit-usd-per-hour: "12.5"}
spec:
  weight: 30
  template:
    metadata:
      labels: {team: b}
      annotations: {example.com/owner: b}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: other}
      taints: [{key: team, value: b, effect: NoSchedule}]
      startupTaints: [{key: init, effect: NoExecute}]
      expireAfter: Never
      terminationGracePeriod: 48h
      requirements:
        - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["33"]}
        - {key: karpenter.k8s.aws/instance-memory, operator: Gte, values: ["4096"]}
        - {key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [t3]}
        - {key: example.com/accel, operator: DoesNotExist}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
    budgets:
      - {nodes: "3"}
      - {nodes: "0", schedule: "@daily", duration: 10m, reasons: [Drifted, Empty]}
  limits: {cpu: "64", nodes: "12", nvidia.com/gpu: "4"}
)");
  const auto& p = full.node_pools.at(0);
  CHECK(p.weight == 30);
  CHECK(p.limit_usd_per_hour == Approx(12.5));
  CHECK(p.template_annotations.at("example.com/owner") == "b");
  REQUIRE(p.taints.size() == 1);
  CHECK(p.taints[0] == model::Taint{"team", "b", model::TaintEffect::no_schedule});
  REQUIRE(p.startup_taints.size() == 1);
  CHECK(p.startup_taints[0].effect == model::TaintEffect::no_execute);
  CHECK(p.expire_after == k_never);
  CHECK(p.termination_grace_period == 48 * k_hour);
  CHECK(p.node_class_ref == "other");
  CHECK(p.consolidation_policy == model::ConsolidationPolicy::when_empty);
  CHECK(p.consolidate_after == k_never);
  REQUIRE(p.budgets.size() == 2);
  CHECK(p.budgets[0].nodes == "3");
  CHECK(p.budgets[1].schedule == "@daily");
  CHECK(p.budgets[1].duration == 10 * k_minute);
  CHECK(p.budgets[1].reasons
        == std::vector<model::DisruptionReason>{model::DisruptionReason::drifted, model::DisruptionReason::empty});
  CHECK(p.limit_nodes == 12);
  CHECK(p.limits->cpu() == 64'000);
  CHECK((*p.limits)[model::k_nvidia_gpu] == 4);
  CHECK(p.limits->memory() == std::numeric_limits<std::int64_t>::max());
  CHECK(p.requirements.get("karpenter.k8s.aws/instance-cpu").less_than == 33);
  CHECK(p.requirements.get("karpenter.k8s.aws/instance-memory").greater_than == 4095);
  CHECK(p.requirements.get("karpenter.k8s.aws/instance-family").complement);
  CHECK(p.requirements.get("example.com/accel").empty());
}

TEST_CASE("scenario: the NodePool template hash covers drift fields only", "[io][nodepool]")
{
  model::NodePool a;
  a.name = "a";
  a.template_labels = {{"team", "a"}};
  a.node_class_ref = "default";
  model::NodePool b = a;
  b.requirements.add(model::Requirement::make("kubernetes.io/arch", model::Operator::in, {"arm64"}));
  b.weight = 50;
  b.consolidate_after = 5 * k_minute;
  model::DisruptionBudget zero;
  zero.nodes = "0";
  b.budgets = {zero};
  b.limit_nodes = 3;
  CHECK(io::node_pool_template_hash(a) == io::node_pool_template_hash(b));
  const auto base = io::node_pool_template_hash(a);
  auto c = a;
  c.template_labels["team"] = "b";
  CHECK(io::node_pool_template_hash(c) != base);
  c = a;
  c.template_annotations["x"] = "y";
  CHECK(io::node_pool_template_hash(c) != base);
  c = a;
  c.taints.push_back({"k", "v", model::TaintEffect::no_schedule});
  CHECK(io::node_pool_template_hash(c) != base);
  c = a;
  c.startup_taints.push_back({"k", "v", model::TaintEffect::no_schedule});
  CHECK(io::node_pool_template_hash(c) != base);
  c = a;
  c.expire_after = k_never;
  CHECK(io::node_pool_template_hash(c) != base);
  c = a;
  c.termination_grace_period = k_hour;
  CHECK(io::node_pool_template_hash(c) != base);
  c = a;
  c.node_class_ref = "other";
  CHECK(io::node_pool_template_hash(c) != base);
}

TEST_CASE("scenario: a kind: List contributes each item as a document", "[io][scenario]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: a, namespace: shop}
    spec:
      replicas: 2
      selector: {matchLabels: {app: a}}
      template:
        metadata: {labels: {app: a}}
        spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
  - apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata: {name: a, namespace: shop}
    spec: {maxUnavailable: 1, selector: {matchLabels: {app: a}}}
)");
  REQUIRE(s.workloads.size() == 1);
  CHECK(s.workloads[0].namespace_ == "shop");
  CHECK(s.workloads[0].spec->namespace_ == "shop");
  REQUIRE(s.pdbs.size() == 1);
  CHECK(s.pdbs[0].namespace_ == "shop");
  CHECK(s.pdbs[0].max_unavailable == "1");
  CHECK_FALSE(s.pdbs[0].min_available.has_value());
  CHECK(s.pdbs[0].selector.match_labels == model::Labels{{"app", "a"}});
}

TEST_CASE("scenario: EC2NodeClass keeps the capacity-relevant kubelet settings", "[io][nodeclass]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: bottlerocket@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  kubelet:
    maxPods: 110
    podsPerCore: 4
    kubeReserved: {cpu: 200m, memory: 1Gi}
    systemReserved: {memory: 500Mi}
    evictionHard: {memory.available: 5%, nodefs.available: 1Gi}
    clusterDNS: [10.0.0.10]
  blockDeviceMappings:
    - deviceName: /dev/xvdb
      ebs: {volumeSize: 100Gi, volumeType: gp3}
  instanceStorePolicy: RAID0
status:
  amis: []
)");
  REQUIRE(s.node_classes.size() == 1);
  const auto& nc = s.node_classes[0];
  CHECK(nc.name == "default");
  CHECK(nc.ami_family == "Bottlerocket");
  CHECK(nc.max_pods == 110);
  CHECK(nc.pods_per_core == 4);
  CHECK(nc.kube_reserved == std::map<std::string, std::string>{{"cpu", "200m"}, {"memory", "1Gi"}});
  CHECK(nc.system_reserved == std::map<std::string, std::string>{{"memory", "500Mi"}});
  CHECK(nc.eviction_hard.at("memory.available") == "5%");
  CHECK(nc.root_volume_bytes == 100 * k_gib);
  CHECK(nc.instance_store_raid0);
  CHECK(s.kind_counts.at("EC2NodeClass") == 1);
  REQUIRE_ERROR(k_scenario + "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: d}\nspec:\n"
                             "  instanceStorePolicy: RAID1\n",
                "t.yaml:9:24: error: 'RAID1' is not a valid value for 'EC2NodeClass/d.spec.instanceStorePolicy' "
                "(expected RAID0; did you mean 'RAID0'?)");
}

TEST_CASE("scenario: NodeGroup fields", "[io][nodegroup]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: capsim/v1
kind: NodeGroup
metadata: {name: ng}
spec:
  instanceTypes: [m5.xlarge, m5a.xlarge]
  mixedInstancesPolicy: {onDemandBaseCapacity: 2, onDemandPercentageAboveBaseCapacity: 25, spotAllocationStrategy: lowest-price}
  zones: [us-east-1a]
  minSize: 1
  maxSize: 10
  desiredCapacity: 3
  labels: {pool: ng}
  taints: [{key: dedicated, value: ng, effect: NoSchedule}]
  priority: 20
)");
  REQUIRE(s.node_groups.size() == 1);
  const auto& ng = s.node_groups[0];
  CHECK(ng.instance_types == std::vector<std::string>{"m5.xlarge", "m5a.xlarge"});
  CHECK(ng.mixed);
  CHECK(ng.capacity_type == "mixed");
  CHECK(ng.on_demand_base_capacity == 2);
  CHECK(ng.on_demand_percentage_above_base == 25);
  CHECK(ng.spot_allocation_strategy == model::SpotAllocationStrategy::lowest_price);
  CHECK(ng.zones == std::vector<std::string>{"us-east-1a"});
  CHECK(ng.min_size == 1);
  CHECK(ng.max_size == 10);
  CHECK(ng.desired_capacity == 3);
  CHECK(ng.labels.at("pool") == "ng");
  CHECK(ng.taints.size() == 1);
  CHECK(ng.priority == 20);
  CHECK(s.settings.engines == std::vector<std::string>{"cluster-autoscaler"});

  const auto errors = errors_of(k_scenario + R"(---
apiVersion: capsim/v1
kind: NodeGroup
metadata: {name: ng}
spec: {instanceTypes: [m5.large], minSize: 5, maxSize: 2, capacityType: spott}
)");
  CAPTURE(errors);
  CHECK(iotest::has_line(errors, "t.yaml:8:7: error: NodeGroup/ng: minSize (5) is larger than maxSize (2)"));
  CHECK(iotest::has_line(errors, "t.yaml:8:73: error: 'spott' is not a valid value for 'NodeGroup/ng.spec.capacityType' "
                                 "(expected on-demand, spot; did you mean 'spot'?)"));
}

TEST_CASE("scenario: Nodes at t=0 and their owners", "[io][node]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, requirements: []}}}
---
apiVersion: capsim/v1
kind: NodeGroup
metadata: {name: ng}
spec: {instanceTypes: [m5.large], maxSize: 3}
---
apiVersion: v1
kind: Node
metadata:
  name: karpenter-node
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/nodepool: default, karpenter.sh/capacity-type: spot}
  annotations: {karpenter.sh/do-not-disrupt: "true"}
status:
  capacity: {cpu: "2", memory: 8023180Ki, pods: "29"}
  allocatable: {cpu: 1930m, memory: 7291020Ki, pods: "29"}
---
apiVersion: v1
kind: Node
metadata:
  name: eks-node
  labels: {beta.kubernetes.io/instance-type: m5.large, failure-domain.beta.kubernetes.io/zone: us-east-1b, eks.amazonaws.com/nodegroup: ng, eks.amazonaws.com/capacityType: ON_DEMAND}
spec:
  unschedulable: true
---
apiVersion: v1
kind: Node
metadata:
  name: static-node
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1c}
spec:
  taints: [{key: CriticalAddonsOnly, value: "true", effect: NoSchedule}]
)");
  REQUIRE(s.nodes.size() == 3);
  const auto& k = s.nodes[0];
  CHECK(k.owner == model::InitialNode::Owner::node_pool);
  CHECK(k.owner_pool == "default");
  CHECK(k.node_pool == "default");
  CHECK(k.node_group.empty());
  CHECK(k.do_not_disrupt);
  CHECK(k.labels.at("kubernetes.io/hostname") == "karpenter-node");
  REQUIRE(k.capacity.has_value());
  CHECK(k.capacity->cpu() == 2000);
  CHECK(k.allocatable->memory() == 7291020LL * 1024);
  CAPTURE(k.location.line, k.location.column);
  CHECK(k.location == SourceLocation{"t.yaml", 15, 1});
  const auto& e = s.nodes[1];
  CHECK(e.owner == model::InitialNode::Owner::node_group);
  CHECK(e.owner_pool == "ng");
  CHECK(e.labels.at("node.kubernetes.io/instance-type") == "m5.large");
  CHECK(e.labels.at("topology.kubernetes.io/zone") == "us-east-1b");
  CHECK(e.labels.at("karpenter.sh/capacity-type") == "on-demand");
  REQUIRE(e.taints.size() == 1);
  CHECK(e.taints[0].key == "node.kubernetes.io/unschedulable");
  const auto& st = s.nodes[2];
  CHECK(st.owner == model::InitialNode::Owner::static_node);
  CHECK(st.owner_pool.empty());
  CHECK(st.taints.size() == 1);

  REQUIRE_ERROR(k_scenario + R"(---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}}}
---
apiVersion: v1
kind: Node
metadata:
  name: n
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: a, karpenter.sh/nodepool: defualt}
)",
                "t.yaml:10:1: error: Node/n: label karpenter.sh/nodepool=defualt names no NodePool in the scenario (did "
                "you mean 'default'?)");
  REQUIRE_ERROR(k_scenario + "---\napiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: b}}\n",
                "t.yaml:7:11: error: Node/n needs the label node.kubernetes.io/instance-type (its instance type "
                "decides capacity and price)");
}

TEST_CASE("scenario: bare Pods, bound pods and owners", "[io][pod]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a}
---
apiVersion: v1
kind: Pod
metadata:
  name: bound
  namespace: kube-system
  annotations: {capsim.io/runtime: 30m}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, controller: true}]
spec:
  nodeName: n1
  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 64Mi}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: pending}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: finished}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
status: {phase: Succeeded}
---
apiVersion: v1
kind: Pod
metadata:
  name: ds-pod
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: u, controller: true}]
spec:
  nodeName: n1
  containers: [{name: c, resources: {requests: {cpu: 50m}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: bound-2
  namespace: kube-system
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, controller: true}]
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 64Mi}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: other-rs
  namespace: kube-system
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs-2, uid: u, controller: true}]
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 64Mi}}}]
)");
  REQUIRE(s.pods.size() == 5); // the Succeeded pod holds nothing
  const auto& b = s.pods[0];
  CHECK(b.name == "bound");
  CHECK(b.node_name == "n1");
  CHECK(b.runtime == 30 * k_minute);
  CHECK(b.arrival == 0);
  CHECK(b.requests.cpu() == 250);
  CHECK(b.requests.memory() == 64 * k_mib);
  CHECK(b.spec->namespace_ == "kube-system");
  CHECK(b.spec->owner == model::OwnerKind::replica_set);
  CHECK(b.spec->template_name == "bound");
  const auto& p = s.pods[1];
  CHECK(p.node_name.empty());
  CHECK(p.runtime == -1);
  CHECK(p.spec->owner == model::OwnerKind::none);
  const auto& ds = s.pods[2];
  CHECK(ds.is_daemon);
  CHECK(ds.spec->owner == model::OwnerKind::daemon_set);
  CHECK(s.find_template("pending") == p.spec);
  // The pods of a ReplicaSet the stream does not have count together (kube-scheduler's default
  // spreading): the later ones with the first.
  CHECK(b.spec->counted_with == nullptr);
  CHECK(s.pods[3].spec->counted_with == b.spec);
  CHECK(s.pods[4].spec->counted_with == nullptr);

  REQUIRE_ERROR(k_scenario + R"(---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeName: nowhere
  containers: [{name: c}]
)",
                "t.yaml:9:13: error: Pod/p: spec.nodeName 'nowhere' names no Node in the scenario");
}

TEST_CASE("scenario: Deployments, StatefulSets, ReplicaSets, Jobs and DaemonSets", "[io][workload]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  strategy: {type: RollingUpdate}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
  volumeClaimTemplates: [{metadata: {name: data}, spec: {resources: {requests: {storage: 10Gi}}}}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 0
  template: {spec: {containers: [{name: c}]}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: job
  annotations: {capsim.io/runtime: 15m}
spec:
  parallelism: 3
  completions: 7
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, resources: {requests: {cpu: 500m}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: queue}
spec:
  parallelism: 2
  template:
    metadata: {annotations: {capsim.io/runtime: 1h}}
    spec: {containers: [{name: c}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: c, resources: {requests: {cpu: 100m, memory: 200Mi}}}]
)");
  REQUIRE(s.workloads.size() == 5);
  const auto& web = s.workloads[0];
  CHECK(web.kind == "Deployment");
  CHECK(web.replicas == 3);
  CHECK(web.runtime == -1);
  CHECK(web.spec->owner == model::OwnerKind::replica_set);
  CHECK(web.spec->template_name == "web");
  CHECK(web.spec->requests.cpu() == 100);
  const auto& db = s.workloads[1];
  CHECK(db.replicas == 1); // Kubernetes' default
  CHECK(db.spec->owner == model::OwnerKind::stateful_set);
  CHECK(s.workloads[2].replicas == 0);
  const auto& job = s.workloads[3];
  CHECK(job.replicas == 3);
  CHECK(job.completions == 7);
  CHECK(job.runtime == 15 * k_minute);
  CHECK(job.spec->owner == model::OwnerKind::job);
  const auto& queue = s.workloads[4];
  CHECK(queue.replicas == 2);
  CHECK(queue.completions == 2);
  CHECK(queue.runtime == k_hour);
  REQUIRE(s.daemon_sets.size() == 1);
  CHECK(s.daemon_sets[0].name == "agent");
  CHECK(s.daemon_sets[0].spec->owner == model::OwnerKind::daemon_set);
  CHECK(s.daemon_sets[0].spec->namespace_ == "kube-system");
  CHECK(s.daemon_sets[0].spec->requests.memory() == 200 * k_mib);
  CHECK(s.find_template("job") == job.spec);

  REQUIRE_ERROR(k_scenario + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: other}}
    spec: {containers: [{name: c}]}
)",
                "t.yaml:9:13: error: Deployment/web: spec.selector does not match the template's labels");
}

TEST_CASE("scenario: PodDisruptionBudgets and PriorityClasses", "[io][pdb]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 80%
  selector: {matchExpressions: [{key: app, operator: In, values: [web, api]}]}
  unhealthyPodEvictionPolicy: AlwaysAllow
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: normal}
value: 10
globalDefault: true
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {priorityClassName: high, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec: {priorityClassName: system-node-critical, containers: [{name: c}]}
)");
  REQUIRE(s.pdbs.size() == 1);
  CHECK(s.pdbs[0].min_available == "80%");
  CHECK(s.pdbs[0].always_allow_unhealthy);
  REQUIRE(s.pdbs[0].selector.match_expressions.size() == 1);
  CHECK(s.pdbs[0].selector.matches({{"app", "api"}}));
  CHECK(s.pods.at(0).spec->priority == 1000);
  CHECK(s.pods.at(1).spec->priority == 10);
  CHECK(s.pods.at(2).spec->priority == 2000001000);
  REQUIRE_ERROR(k_scenario + R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 1, maxUnavailable: 1, selector: {}}
)",
                "t.yaml:8:7: error: PodDisruptionBudget/web: minAvailable and maxUnavailable exclude each other");
  REQUIRE_ERROR(k_scenario + R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {}, unhealthyPodEvictionPolicy: Always}
)",
                "t.yaml:8:69: error: 'PodDisruptionBudget/web.spec.unhealthyPodEvictionPolicy' must be IfHealthyBudget "
                "or AlwaysAllow (got 'Always')");
  const auto if_healthy = parse(k_scenario + R"(---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {}, unhealthyPodEvictionPolicy: IfHealthyBudget}
)");
  REQUIRE(if_healthy.pdbs.size() == 1);
  CHECK_FALSE(if_healthy.pdbs[0].always_allow_unhealthy);
}

TEST_CASE("scenario: an inline Catalog with and without overhead", "[io][catalog]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: capsim/v1
kind: Catalog
spec:
  mode: replace
  zones: [test-zone-1, test-zone-2]
  instanceTypes:
    - name: default-instance-type
      capacity: {cpu: "4", memory: 4Gi, pods: "5"}
      overhead: {cpu: 100m, memory: 10Mi}
      labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux, size: small}
      offerings:
        - {zone: test-zone-2, capacityType: spot, price: 0.8295, interruptionBand: 0}
        - {zone: test-zone-1, capacityType: on-demand, price: 0.9}
    - name: aws-like
      capacity: {cpu: "4", memory: 16Gi, pods: "58"}
      offerings:
        - {zone: test-zone-1, capacityType: on-demand, price: 0.192, available: false}
)");
  REQUIRE(s.inline_catalog.has_value());
  const auto& cat = *s.inline_catalog;
  CHECK(cat.replace);
  CHECK(cat.zones == std::vector<std::string>{"test-zone-1", "test-zone-2"});
  REQUIRE(cat.instance_types.size() == 2);
  const auto& t = cat.instance_types[0];
  CHECK(t.name == "default-instance-type");
  CHECK(t.capacity.cpu() == 4000);
  CHECK(t.capacity.pods() == 5);
  CHECK(t.overhead.cpu() == 100);
  CHECK(t.overhead.memory() == 10 * k_mib);
  CHECK(t.allocatable().cpu() == 3900);
  CHECK(t.labels.at("node.kubernetes.io/instance-type") == "default-instance-type");
  CHECK(t.labels.at("size") == "small");
  CHECK(t.vcpu == 4);
  CHECK(t.memory_mib == 4096);
  REQUIRE(t.offerings.size() == 2);
  CHECK(t.offerings[0].zone == "test-zone-2"); // listed order kept
  CHECK(t.offerings[0].capacity_type == "spot");
  CHECK(t.offerings[0].price_per_hour == Approx(0.8295));
  CHECK(t.offerings[0].interruption_band == 0);
  CHECK(t.offerings[1].capacity_type == "on-demand");
  CHECK(t.requirements.get("topology.kubernetes.io/zone").values
        == std::vector<std::string>{"test-zone-1", "test-zone-2"});
  CHECK(t.requirements.get("karpenter.sh/capacity-type").values == std::vector<std::string>{"on-demand", "spot"});
  const auto& aws = cat.instance_types[1];
  // The AWS formulas; no ephemeral-storage overhead for a type without ephemeral storage.
  const auto expected = catalog::aws_overhead(4000, 16 * k_gib, 58);
  CHECK(aws.overhead.cpu() == expected.cpu());
  CHECK(aws.overhead.memory() == expected.memory());
  CHECK(aws.overhead[model::k_ephemeral_storage] == 0);
  CHECK(aws.overhead.cpu() == 80);
  CHECK(aws.overhead.memory() == 993 * k_mib);
  CHECK_FALSE(aws.offerings[0].available);

  REQUIRE_ERROR(k_scenario + R"(---
apiVersion: capsim/v1
kind: Catalog
spec:
  zones: [z1]
  instanceTypes:
    - name: t
      capacity: {cpu: "1", memory: 1Gi}
      offerings: [{zone: z2, capacityType: on-demand, price: 1}]
)",
                "t.yaml:12:26: error: 'Catalog.spec.instanceTypes[t].offerings': zone 'z2' is not in Catalog.spec.zones "
                "(did you mean 'z1'?)");

  // Karpenter's offering filters keep a bit per zone: a 65th zone is an input error at its entry.
  std::string zones;
  std::string offerings;
  for (std::size_t i = 0; i <= catalog::k_max_zones; ++i) {
    zones += fmt::format("{}z{}", i == 0 ? "" : ", ", i);
    offerings += fmt::format("      - {{zone: z{}, capacityType: on-demand, price: 1}}\n", i);
  }
  const std::string many = k_scenario + "---\napiVersion: capsim/v1\nkind: Catalog\nspec:\n  instanceTypes:\n"
                           + "    - name: t\n      capacity: {cpu: \"1\", memory: 1Gi}\n      offerings:\n" + offerings;
  REQUIRE_ERROR(many, "t.yaml:76:16: error: 'Catalog.spec.instanceTypes[t].offerings': zone 'z64' is beyond the 64 "
                      "zones capsim supports per region");
  CHECK(iotest::errors_of(many).size() == 1);
  REQUIRE_ERROR(k_scenario + "---\napiVersion: capsim/v1\nkind: Catalog\nspec:\n  zones: [" + zones
                    + "]\n  instanceTypes:\n    - name: t\n      capacity: {cpu: \"1\", memory: 1Gi}\n"
                    + "      offerings: [{zone: z1, capacityType: on-demand, price: 1}]\n",
                "t.yaml:8:10: error: 'Catalog.spec.zones' lists 65 zones (capsim supports up to 64 per region)");
}

TEST_CASE("scenario: an inline Catalog's reserved offerings are capacity reservations", "[io][catalog][reserved]")
{
  const std::string head = k_scenario + "---\napiVersion: capsim/v1\nkind: Catalog\nspec:\n  instanceTypes:\n"
                                        "    - name: t\n      capacity: {cpu: \"1\", memory: 1Gi}\n      offerings:\n";
  const auto s = parse(head + R"(        - {zone: z1, capacityType: on-demand, price: 1}
        - {zone: z1, capacityType: reserved, price: 0.0000001, reservationId: cr-1, reservationCapacity: 3}
        - {zone: z1, capacityType: reserved, price: 0.0000001, reservationId: cr-2, reservationCapacity: 0}
)");
  REQUIRE(s.inline_catalog.has_value());
  const auto& offerings = s.inline_catalog->instance_types.at(0).offerings;
  REQUIRE(offerings.size() == 3);
  CHECK(offerings[0].reservation_id.empty());
  CHECK(offerings[1].reservation_id == "cr-1");
  CHECK(offerings[1].reservation_capacity == 3);
  CHECK(offerings[2].reservation_id == "cr-2");
  CHECK(offerings[2].reservation_capacity == 0);
  CHECK(s.inline_catalog->instance_types.at(0).requirements.get("karpenter.sh/capacity-type").values
        == std::vector<std::string>{"on-demand", "reserved"});

  REQUIRE_ERROR(head + "        - {zone: z1, capacityType: reserved, price: 1}\n",
                "t.yaml:12:11: error: 'Catalog.spec.instanceTypes[t].offerings': a reserved offering needs "
                "'reservationId' and 'reservationCapacity' (the instances the capacity reservation holds)");
  REQUIRE_ERROR(head + "        - {zone: z1, capacityType: on-demand, price: 1, reservationId: cr-1}\n",
                "t.yaml:12:72: error: 'Catalog.spec.instanceTypes[t].offerings': reservationId and reservationCapacity "
                "only apply to reserved offerings");
  REQUIRE_ERROR(head + "        - {zone: z1, capacityType: reserved, price: 1, reservationId: cr-1, "
                       "reservationCapacity: -1}\n",
                "t.yaml:12:98: error: '-1' is out of range for 'Catalog.spec.instanceTypes[t].offerings."
                "reservationCapacity' (expected 0..1000000)");
  REQUIRE_ERROR(head + R"(        - {zone: z1, capacityType: reserved, price: 1, reservationId: cr-1, reservationCapacity: 1}
        - {zone: z2, capacityType: reserved, price: 1, reservationId: cr-1, reservationCapacity: 1}
)",
                "t.yaml:13:71: error: 'Catalog.spec.instanceTypes[t].offerings': capacity reservation 'cr-1' is for t in "
                "z1 already (a reservation holds one instance type in one zone)");
  REQUIRE_ERROR(head + R"(        - {zone: z1, capacityType: reserved, price: 1, reservationId: cr-1, reservationCapacity: 1}
        - {zone: z1, capacityType: reserved, price: 1, reservationId: cr-1, reservationCapacity: 1}
)",
                "t.yaml:13:11: error: 'Catalog.spec.instanceTypes[t].offerings': reserved in z1 for cr-1 is listed twice");
}

TEST_CASE("scenario: workload section: traces, generators and events", "[io][scenario]")
{
  const auto dir = std::string(CAPSIM_SOURCE_DIR) + "/scenarios";
  const std::string text = R"(apiVersion: capsim/v1
kind: Scenario
spec:
  duration: 6h
  workload:
    traces:
      - {path: traces/day1.csv, template: web}
      - {path: traces/day1.csv, format: csv}
    generators:
      - {template: web, pattern: diurnal, min: 2, max: 10, period: 2h}
      - {template: web, pattern: poisson, ratePerHour: 30, runtime: {dist: lognormal, median: 20m, p95: 2h}}
      - {template: web, pattern: steps, steps: [{at: 0s, replicas: 3}, {at: 1h, replicas: 1}]}
      - {template: web, pattern: burst, at: 2h, count: 5, runtime: 10m}
      - {template: web, pattern: constant, replicas: 2}
  events:
    - {at: 6h, kind: SpotInterruption, selector: {instanceType: m5.large, zone: us-east-1a}, count: 3}
    - {at: 1h, kind: Drift, nodePool: default}
    - {at: 2h, kind: InsufficientCapacity, selector: {instanceType: c6i.large, capacityType: spot}, for: 30m}
    - {at: 3h, kind: ScaleWorkload, workload: web, replicas: 7}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 0
  template: {spec: {containers: [{name: c}]}}
)";
  const auto s = io::parse_scenario(text, dir + "/inline.yaml");
  REQUIRE(s.traces.size() == 2);
  CHECK(s.traces[0].path == dir + "/traces/day1.csv");
  CHECK(s.traces[0].format == "csv");
  CHECK(s.traces[0].template_name == "web");
  CHECK(s.traces[0].location == SourceLocation{dir + "/inline.yaml", 7, 16});
  REQUIRE(s.generators.size() == 5);
  CHECK(s.generators[0].pattern == "diurnal");
  CHECK(s.generators[0].min == 2);
  CHECK(s.generators[0].max == 10);
  CHECK(s.generators[0].period == 2 * k_hour);
  CHECK(s.generators[1].rate_per_hour == Approx(30));
  REQUIRE(s.generators[1].runtime.has_value());
  CHECK(s.generators[1].runtime->dist == "lognormal");
  CHECK(s.generators[1].runtime->median == 20 * k_minute);
  CHECK(s.generators[1].runtime->p95 == 2 * k_hour);
  CHECK(s.generators[2].steps.size() == 2);
  CHECK(s.generators[2].steps[1].at == k_hour);
  CHECK(s.generators[3].at == 2 * k_hour);
  CHECK(s.generators[3].count == 5);
  CHECK(s.generators[3].runtime->dist == "fixed");
  CHECK(s.generators[3].runtime->value == 10 * k_minute);
  CHECK(s.generators[4].steps.at(0).replicas == 2);
  REQUIRE(s.events.size() == 4);
  CHECK(s.events[0].kind == "SpotInterruption");
  CHECK(s.events[0].selector.instance_type == "m5.large");
  CHECK(s.events[0].selector.zone == "us-east-1a");
  CHECK(s.events[0].count == 3);
  CHECK(s.events[1].node_pool == "default");
  CHECK(s.events[2].duration == 30 * k_minute);
  CHECK(s.events[2].selector.capacity_type == "spot");
  CHECK(s.events[3].workload == "web");
  CHECK(s.events[3].replicas == 7);
}

TEST_CASE("scenario: errors name FILE:LINE:COL", "[io][errors]")
{
  // Unknown field in a capsim kind, with a suggestion.
  REQUIRE_ERROR("apiVersion: capsim/v1\nkind: Scenario\nspec:\n  duraton: 2h\n",
                "t.yaml:4:3: error: unknown field 'duraton' in 'Scenario.spec' (did you mean 'duration'?)");
  // Bad duration.
  REQUIRE_ERROR("apiVersion: capsim/v1\nkind: Scenario\nspec:\n  duration: 2 hours\n",
                "t.yaml:4:13: error: 'spec.duration': '2 hours' is not a duration (expected e.g. 90s, 10m, 1h30m, 7d)");
  // Unknown kind and wrong apiVersion.
  REQUIRE_ERROR(k_scenario + "---\napiVersion: karpenter.sh/v1\nkind: NodePol\nmetadata: {name: x}\n",
                "t.yaml:6:7: error: unknown kind 'NodePol' (did you mean 'NodePool'?) (capsim reads Scenario, NodeGroup, "
                "Catalog, NodePool, EC2NodeClass, Node, Pod, Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, "
                "PodDisruptionBudget, PriorityClass, RuntimeClass, Namespace, PersistentVolumeClaim, PersistentVolume, "
                "StorageClass)");
  REQUIRE_ERROR(k_scenario + "---\napiVersion: apps/v1\nkind: Job\nmetadata: {name: x}\n",
                "t.yaml:5:13: error: Job needs apiVersion 'batch/v1' (got 'apps/v1')");
  REQUIRE_ERROR(k_scenario + "---\napiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: x}\n",
                "t.yaml:5:13: error: karpenter.sh/v1beta1 NodePools are not supported: migrate to karpenter.sh/v1 (see "
                "Karpenter's v1 migration guide)");
  // Missing name, duplicate name.
  REQUIRE_ERROR(k_scenario + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {}\n",
                "t.yaml:7:11: error: Deployment needs metadata.name");
  const std::string pool = R"(---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: a
spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}}}
)";
  REQUIRE_ERROR(k_scenario + pool + pool, "t.yaml:14:9: error: duplicate NodePool 'a' (first defined on line 8)");
  // Unknown field in a capacity-relevant part of a Kubernetes kind; ignored fields pass.
  const std::string deployment = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
        - name: c
          image: nginx
          env: [{name: A, value: b}]
          livenessProbe: {httpGet: {path: /, port: 80}}
          resources: {requests: {cpu: 1}, limts: {cpu: 2}}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpression: []}]
)";
  const auto errors = errors_of(k_scenario + deployment);
  CAPTURE(errors);
  CHECK(errors.size() == 2);
  CHECK(iotest::has_line(errors, "t.yaml:16:43: error: unknown field 'limts' in "
                                 "'Deployment/web.spec.template.spec.containers[0].resources' (did you mean 'limits'?)"));
  CHECK(iotest::has_line(errors, "t.yaml:20:34: error: unknown field 'matchExpression' in "
                                 "'Deployment/web.spec.template.spec.affinity.nodeAffinity."
                                 "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms' (did you mean "
                                 "'matchExpressions'?)"));
  // YAML syntax error.
  REQUIRE_ERROR("apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h\n",
                "t.yaml:4:1: error: invalid YAML: end of map flow not found");
  // Absurd numbers.
  REQUIRE_ERROR(k_scenario + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  replicas: "
                             "10000001\n  template: {spec: {containers: [{name: c}]}}\n",
                "t.yaml:9:13: error: '10000001' is out of range for 'Deployment/w.spec.replicas' (expected 0..10000000)");
  REQUIRE_ERROR(k_scenario
                    + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: "
                      "{requests: {memory: -1Gi}}}]\n",
                "t.yaml:9:57: error: 'Pod/p.spec.containers[0].resources.requests.memory': quantity '-1Gi' must not be "
                "negative");
  REQUIRE_ERROR(k_scenario
                    + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: "
                      "{requests: {cpu: 99999999999999999999}}}]\n",
                "t.yaml:9:54: error: 'Pod/p.spec.containers[0].resources.requests.cpu': quantity '99999999999999999999' "
                "is too large");
}

TEST_CASE("scenario: NodePool keys of Karpenter's domains are refused unless Karpenter knows them", "[io][nodepool]")
{
  // The NodePool CRD's CEL rules (nodepool_validation_cel_test.go "should fail for restricted
  // domains" / "restricted label domains", "should allow well known label exceptions"): in the
  // karpenter.sh and karpenter.k8s.aws domains a NodePool may name only the labels Karpenter
  // sets or knows; kubernetes.io and k8s.io keys and their subdomains are allowed.
  const auto pool = [](const std::string& labels, const std::string& key) {
    return k_scenario + "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  template:\n"
           + "    metadata: {labels: {" + labels + "}}\n    spec:\n      requirements: [{key: " + key
           + ", operator: Exists}]\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n";
  };
  const std::string domains = " is restricted (the karpenter.sh and karpenter.k8s.aws domains allow only the labels "
                              "Karpenter knows)";
  REQUIRE_ERROR(pool("", "karpenter.sh/test"),
                "t.yaml:12:28: error: NodePool/a: requirement key 'karpenter.sh/test'" + domains);
  REQUIRE_ERROR(pool("", "karpenter.k8s.aws/test"),
                "t.yaml:12:28: error: NodePool/a: requirement key 'karpenter.k8s.aws/test'" + domains);
  REQUIRE_ERROR(pool("", "karpenter.sh/nodepool"),
                "t.yaml:12:28: error: NodePool/a: requirement key 'karpenter.sh/nodepool' is restricted (Karpenter "
                "sets it)");
  REQUIRE_ERROR(pool("karpenter.k8s.aws/unknown: x", "kubernetes.io/arch"),
                "t.yaml:10:24: error: NodePool/a: label 'karpenter.k8s.aws/unknown'" + domains);
  REQUIRE_ERROR(pool("sub.karpenter.sh/x: y", "kubernetes.io/arch"),
                "t.yaml:10:24: error: NodePool/a: label 'sub.karpenter.sh/x'" + domains);
  for (const std::string key : {"karpenter.sh/capacity-type", "karpenter.k8s.aws/instance-tenancy",
                                "karpenter.k8s.aws/ec2nodeclass", "karpenter.k8s.aws/placement-group-id",
                                "karpenter.k8s.aws/instance-family", "kubernetes.io/test", "subdomain.k8s.io/test",
                                "topology.k8s.aws/zone-id"}) {
    CAPTURE(key);
    CHECK(errors_of(pool("kops.k8s.io/instancegroup: nodes", key)).empty());
  }
}

TEST_CASE("scenario: Namespaces give namespaceSelectors their labels", "[io][pod][affinity]")
{
  // A term applies to the union of `namespaces` and the namespaces its namespaceSelector picks
  // (every namespace carries kubernetes.io/metadata.name); a selector picking none with no list
  // applies to no namespace at all, which capsim keeps as the one name "".
  const std::string stream = k_scenario + R"(---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a}}
spec: {finalizers: [kubernetes]}
status: {phase: Active}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b, labels: {team: b}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: web}
spec:
  containers: [{name: c}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/hostname
          labelSelector: {matchLabels: {app: cache}}
          namespaceSelector: {matchLabels: {team: a}}
        - topologyKey: kubernetes.io/hostname
          labelSelector: {matchLabels: {app: cache}}
          namespaceSelector: {matchExpressions: [{key: team, operator: DoesNotExist}]}
          namespaces: [extra]
        - topologyKey: kubernetes.io/hostname
          labelSelector: {matchLabels: {app: cache}}
          namespaceSelector: {matchLabels: {team: c}}
)";
  const auto s = parse(stream);
  REQUIRE(s.pods.size() == 1);
  const auto& terms = s.pods[0].spec->pod_affinity_required;
  REQUIRE(terms.size() == 3);
  CHECK(terms[0].namespaces == std::vector<std::string>{"team-a"});
  // Namespaces without a Namespace document (the pod's own) carry only the name label.
  CHECK(terms[1].namespaces == std::vector<std::string>{"extra", "web"});
  CHECK(terms[2].namespaces == std::vector<std::string>{""});
  CHECK(s.kind_counts.at("Namespace") == 2);
}

TEST_CASE("scenario: a missing referenced file names the scenario line and the path", "[io][errors]")
{
  const std::string text = "apiVersion: capsim/v1\nkind: Scenario\nspec:\n  duration: 1h\n  workload:\n    traces:\n"
                           "      - {path: traces/nope.csv}\n  catalog: no-such-folder\n";
  const auto errors = errors_of(text);
  CAPTURE(errors);
  CHECK(iotest::has_line(errors, "t.yaml:7:16: error: trace file 'traces/nope.csv' not found (looked for "
                                 "'traces/nope.csv'; paths are relative to the scenario's folder)"));
  CHECK(iotest::has_line(errors, "t.yaml:8:12: error: catalog folder 'no-such-folder' not found (looked for "
                                 "'no-such-folder'; paths are relative to the scenario's folder; use 'default' for the "
                                 "embedded catalog)"));
  CHECK_THROWS_WITH(io::load_scenario("/nonexistent/scenario.yaml"),
                    "/nonexistent/scenario.yaml: error: cannot read '/nonexistent/scenario.yaml': no such file");
}

TEST_CASE("scenario: zero, two and empty Scenario documents are refused", "[io][errors]")
{
  REQUIRE_ERROR("", "t.yaml:1:1: error: the file is empty (a scenario needs at least a capsim/v1 Scenario document)");
  REQUIRE_ERROR("# just a comment\n---\n---\n",
                "t.yaml:1:1: error: the file is empty (a scenario needs at least a capsim/v1 Scenario document)");
  REQUIRE_ERROR("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec: {template: {spec: {containers: "
                "[{name: c}]}}}\n",
                "t.yaml:1:1: error: no capsim/v1 Scenario document (a stream needs exactly one, with the simulation "
                "settings)");
  REQUIRE_ERROR(k_scenario + "---\n" + k_scenario,
                "t.yaml:5:1: error: a second capsim/v1 Scenario document (the first is on line 1); a stream has "
                "exactly one");
}

TEST_CASE("scenario: hostile input is refused cleanly", "[io][hostile]")
{
  // Deep flow nesting, refused before yaml-cpp recurses.
  const std::string deep_flow = k_scenario + "---\nx: " + std::string(100000, '[') + "\n";
  REQUIRE_ERROR(deep_flow, "t.yaml:5:67: error: nesting is deeper than 64 levels (refused before parsing)");
  // Deep block indentation.
  std::string deep_block = k_scenario + "---\n";
  for (int i = 0; i < 80; ++i) {
    deep_block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  }
  REQUIRE_ERROR(deep_block, "t.yaml:69:65: error: nesting is deeper than 64 levels (refused before parsing)");
  // Compact nested sequences on one line.
  REQUIRE_ERROR(k_scenario + "---\n" + [] {
    std::string s;
    for (int i = 0; i < 100; ++i) {
      s += "- ";
    }
    return s + "x\n";
  }(),
                "t.yaml:5:127: error: nesting is deeper than 64 levels (refused before parsing)");
  // Binary garbage.
  REQUIRE_ERROR(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10),
                "t.yaml:1:8: error: file contains a NUL byte: it looks binary (expected YAML or JSON text)");
  REQUIRE_ERROR(std::string("kind: \xff\xfe Scenario\n"), "t.yaml:1:7: error: file is not valid UTF-8 text (expected YAML or JSON)");
  // An alias bomb ("billion laughs") and a self-referencing alias.
  std::string bomb = k_scenario + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += fmt::format("a{1}: &a{1} [*a{0}, *a{0}, *a{0}, *a{0}, *a{0}, *a{0}, *a{0}, *a{0}, *a{0}, *a{0}]\n", i - 1, i);
  }
  REQUIRE_ERROR(bomb, "t.yaml:5:1: error: the document is too large or too deep once YAML aliases are expanded (more "
                      "than 2000000 nodes or 128 levels)");
  REQUIRE_ERROR(k_scenario + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: &s {containers: [*s]}\n",
                "t.yaml:5:1: error: the document is too large or too deep once YAML aliases are expanded (more than "
                "2000000 nodes or 128 levels)");
  // Shapes yaml-cpp accepts but the schema does not.
  REQUIRE_ERROR("- a\n- b\n", "t.yaml:1:1: error: a document must be a mapping with apiVersion and kind");
  REQUIRE_ERROR("apiVersion: capsim/v1\nkind: [Scenario]\n", "t.yaml:1:1: error: the document has no 'kind'");
  REQUIRE_ERROR("apiVersion: capsim/v1\nkind: Scenario\nspec:\n  ? [a, b]\n  : c\n",
                "t.yaml:4:5: error: keys of 'Scenario.spec' must be plain names (got a sequence)");
}

TEST_CASE("scenario: Nodes are aged by their creationTimestamp", "[io][node]")
{
  const auto node = [](const std::string& name, const std::string& created) {
    return fmt::format("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n  creationTimestamp: {}\n  labels: "
                       "{{node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a}}\n",
                       name, created);
  };
  const std::string nodes = node("old", "\"2026-11-01T00:00:00Z\"") + node("new", "\"2026-11-29T00:00:00Z\"")
                            + "---\napiVersion: v1\nkind: Node\nmetadata: {name: ageless, creationTimestamp: null, labels: "
                              "{node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a}}\n";
  SECTION("against the newest creation in the stream")
  {
    const auto s = parse(k_scenario + nodes);
    REQUIRE(s.nodes.size() == 3);
    CHECK(s.nodes[0].age == 28 * 24 * k_hour);
    CHECK(s.nodes[1].age == 0);
    CHECK_FALSE(s.nodes[2].created_ms);
    CHECK(s.nodes[2].age == 0);
  }
  SECTION("against spec.startTime, and a creation after it counts as new")
  {
    const auto s = parse("apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h, startTime: "
                         "\"2026-11-29T12:00:00Z\"}\n"
                         + nodes + node("future", "\"2026-12-01T00:00:00Z\""));
    REQUIRE(s.settings.start_ms);
    CHECK(s.nodes[0].age == 28 * 24 * k_hour + 12 * k_hour);
    CHECK(s.nodes[1].age == 12 * k_hour);
    CHECK(s.nodes[3].age == 0);
  }
  SECTION("a pod's creation sets the reference too")
  {
    const auto s = parse(k_scenario + nodes
                         + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: "
                           "\"2026-11-30T00:00:00Z\"}\nspec: {containers: [{name: c}]}\n");
    CHECK(s.nodes[1].age == 24 * k_hour);
  }
  SECTION("a time that is not RFC 3339 is an error where it is")
  {
    const auto errors = errors_of(k_scenario + node("bad", "yesterday"));
    CAPTURE(errors);
    CHECK(iotest::has_line(errors, "t.yaml:9:22: error: 'Node/bad.metadata.creationTimestamp': 'yesterday' is not an "
                                   "RFC 3339 time (e.g. 2026-11-29T12:00:00Z)"));
    const auto start = errors_of("apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h, startTime: 12h}\n");
    CAPTURE(start);
    CHECK(iotest::has_line(start, "t.yaml:3:33: error: 'spec.startTime': '12h' is not an RFC 3339 time (e.g. "
                                  "2026-11-29T12:00:00Z)"));
  }
  SECTION("a bound pod's status.startTime: how long it had run at t=0")
  {
    const auto pod = [](const std::string& name, const std::string& bound_to, const std::string& started) {
      return fmt::format("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {}}}\nspec: {{{}containers: [{{name: c}}]}}\n"
                         "status: {{startTime: {}}}\n",
                         name, bound_to.empty() ? "" : "nodeName: " + bound_to + ", ", started);
    };
    const auto s = parse(k_scenario + nodes + pod("running", "new", "\"2026-11-28T22:30:00Z\"")
                         + pod("later", "new", "\"2026-11-29T06:00:00Z\"") + pod("pending", "", "\"2026-11-28T00:00:00Z\""));
    REQUIRE(s.pods.size() == 3);
    CHECK(s.pods[0].started_before == 90 * k_minute); // against the newest creation, 2026-11-29T00:00
    CHECK(s.pods[1].started_before == 0);             // a start after it counts as just started
    CHECK(s.pods[2].started_before == 0);             // a pending pod has not started
    const auto errors = errors_of(k_scenario + nodes + pod("bad", "new", "soon"));
    CAPTURE(errors);
    CHECK(iotest::has_line(errors, "t.yaml:27:21: error: 'Pod/bad.status.startTime': 'soon' is not an RFC 3339 time "
                                   "(e.g. 2026-11-29T12:00:00Z)"));
  }
}

TEST_CASE("scenario: a NodePool annotated capsim.io/apply-at is a later version of it", "[io][nodepool]")
{
  const auto pool = [](const std::string& annotation, const std::string& capacity, const std::string& extra = {}) {
    return fmt::format("---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\n{}spec:\n"
                       "  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, "
                       "name: default}}\n      requirements:\n      - {{key: karpenter.sh/capacity-type, operator: In, "
                       "values: [{}]}}\n{}",
                       annotation, capacity, extra);
  };
  const std::string apply_2h = "  annotations: {capsim.io/apply-at: 2h}\n";
  const std::string apply_1h = "  annotations: {capsim.io/apply-at: 1h}\n";
  // Versions are sorted by time; the document without the annotation is the version at t=0.
  const auto s = io::parse_scenario(k_scenario + pool(apply_2h, "on-demand") + pool("", "spot, on-demand") +
                                        pool(apply_1h, "spot", "  disruption: {consolidateAfter: 5m}\n"),
                                    "t.yaml", {});
  REQUIRE(s.node_pools.size() == 1);
  CHECK(s.node_pools[0].requirements.get(std::string(model::labels::k_capacity_type)).values ==
        std::vector<std::string>{"on-demand", "spot"});
  REQUIRE(s.node_pool_updates.size() == 2);
  CHECK(s.node_pool_updates[0].at == k_hour);
  CHECK(s.node_pool_updates[0].pool.name == "general");
  CHECK(s.node_pool_updates[0].pool.consolidate_after == 5 * k_minute);
  CHECK(s.node_pool_updates[0].location.line == 32);
  CHECK(s.node_pool_updates[1].at == 2 * k_hour);
  CHECK(s.node_pool_updates[1].pool.requirements.get(std::string(model::labels::k_capacity_type)).values ==
        std::vector<std::string>{"on-demand"});
  // Requirements are not in the template hash; the versions' hashes match the base's.
  CHECK(s.node_pool_updates[1].pool.template_hash == s.node_pools[0].template_hash);

  // Two versions at once, a time not after the start or beyond any simulation, and an unknown
  // EC2NodeClass. (A version without a document at t=0 creates the NodePool: below.)
  REQUIRE_ERROR(k_scenario + pool("", "spot") + pool(apply_1h, "spot") + pool(apply_1h, "on-demand"),
                "t.yaml:32:37: error: NodePool/general: two versions are applied at 1h (the other on line 20)");
  REQUIRE_ERROR(k_scenario + pool("", "spot") + pool("  annotations: {capsim.io/apply-at: 0s}\n", "spot"),
                "t.yaml:20:37: error: NodePool/general: annotation capsim.io/apply-at must be after the start (got "
                "0s); the NodePool's version at t=0 is the document without it");
  REQUIRE_ERROR(k_scenario + pool("", "spot") + pool("  annotations: {capsim.io/apply-at: 100000d}\n", "spot"),
                "t.yaml:20:37: error: NodePool/general: capsim.io/apply-at 100000d is beyond any simulation");
  const std::string other_class = "  annotations: {capsim.io/apply-at: 1h}\n";
  std::string renamed = pool(other_class, "spot");
  renamed.replace(renamed.find("name: default"), 13, "name: defualt");
  REQUIRE_ERROR(k_scenario + pool("", "spot") + "---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\n"
                                                "metadata: {name: default}\nspec: {}\n" + renamed,
                "t.yaml:29:74: error: NodePool/general: nodeClassRef names EC2NodeClass 'defualt', which is not in the "
                "scenario (did you mean 'default'?)");
  // A duplicate name without the annotation is still a duplicate.
  CHECK(!iotest::errors_of(k_scenario + pool("", "spot") + pool("", "spot")).empty());
  // A live cluster has no future: a cluster dump refuses the annotation.
  io::ParseOptions dump;
  dump.cluster_dump = true;
  std::vector<std::string> dump_errors;
  try {
    (void)io::parse_scenario(k_scenario + pool("", "spot") + pool(apply_1h, "spot"), "t.yaml", {}, dump);
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) {
      dump_errors.push_back(format_diagnostic(d));
    }
  }
  CAPTURE(dump_errors);
  CHECK(iotest::has_line(dump_errors, "t.yaml:20:37: error: NodePool/general: annotation capsim.io/apply-at is for "
                                      "scenarios (a NodePool applied during the run), not for cluster dumps"));
}

TEST_CASE("scenario: NodePools created (a first version annotated apply-at) and deleted (delete-at) during the run",
          "[io][nodepool]")
{
  const auto pool = [](const std::string& name, const std::string& annotations, const std::string& capacity) {
    return fmt::format("---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {}\n{}spec:\n"
                       "  template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, "
                       "name: default}}\n      requirements:\n      - {{key: karpenter.sh/capacity-type, operator: In, "
                       "values: [{}]}}\n",
                       name, annotations, capacity);
  };
  const auto at = [](const std::string& apply, const std::string& del) {
    std::string out = "  annotations: {";
    out += apply.empty() ? "" : "capsim.io/apply-at: " + apply;
    out += !apply.empty() && !del.empty() ? ", " : "";
    out += del.empty() ? "" : "capsim.io/delete-at: " + del;
    return out + "}\n";
  };
  // blue exists from the start until 3h; green is created at 2h (its earliest version) and
  // gets a second version at 4h.
  const auto s = io::parse_scenario(k_scenario + pool("green", at("4h", ""), "on-demand") +
                                        pool("blue", at("", "3h"), "on-demand") + pool("green", at("2h", ""), "spot"),
                                    "t.yaml", {});
  REQUIRE(s.node_pools.size() == 2);
  CHECK(s.node_pools[0].name == "blue");
  CHECK(s.node_pools[0].created_at == 0);
  CHECK(s.node_pools[0].deleted_at == 3 * k_hour);
  CHECK(s.node_pools[1].name == "green");
  CHECK(s.node_pools[1].created_at == 2 * k_hour);
  CHECK(s.node_pools[1].deleted_at == -1);
  CHECK(s.node_pools[1].requirements.get(std::string(model::labels::k_capacity_type)).values ==
        std::vector<std::string>{"spot"});
  REQUIRE(s.node_pool_updates.size() == 1);
  CHECK(s.node_pool_updates[0].at == 4 * k_hour);
  CHECK(s.node_pool_updates[0].pool.name == "green");
  // delete-at may sit on any one version, here the creating one.
  const auto t = io::parse_scenario(k_scenario + pool("green", at("1h", "90m"), "spot"), "t.yaml", {});
  REQUIRE(t.node_pools.size() == 1);
  CHECK(t.node_pools[0].created_at == k_hour);
  CHECK(t.node_pools[0].deleted_at == 90 * k_minute);

  REQUIRE_ERROR(k_scenario + pool("green", at("2h", "1h"), "spot"),
                "t.yaml:9:62: error: NodePool/green: annotation capsim.io/delete-at 1h is not after the NodePool is "
                "created (2h)");
  REQUIRE_ERROR(k_scenario + pool("blue", at("", "1h"), "spot") + pool("blue", at("30m", "2h"), "spot"),
                "t.yaml:21:63: error: NodePool/blue: annotation capsim.io/delete-at is given twice (a NodePool is "
                "deleted once)");
  REQUIRE_ERROR(k_scenario + pool("blue", at("", "1h"), "spot") + pool("blue", at("1h", ""), "spot"),
                "t.yaml:21:37: error: NodePool/blue: a version applied at 1h comes after the NodePool is deleted "
                "(capsim.io/delete-at 1h)");
  REQUIRE_ERROR(k_scenario + pool("green", at("1h", ""), "spot") + pool("green", at("1h", ""), "on-demand"),
                "t.yaml:21:37: error: NodePool/green: two versions are applied at 1h (the other, which creates it, on "
                "line 9)");
  REQUIRE_ERROR(k_scenario + pool("blue", at("", "0s"), "spot"),
                "t.yaml:9:38: error: NodePool/blue: annotation capsim.io/delete-at must be after the start (got 0s)");
  // A node at t=0 cannot belong to a NodePool that does not exist yet.
  REQUIRE_ERROR(k_scenario + pool("green", at("1h", ""), "spot") +
                    "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {karpenter.sh/nodepool: green, "
                    "node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a}\n",
                "t.yaml:17:1: error: Node/n1: label karpenter.sh/nodepool=green names a NodePool that is created only "
                "during the run (its first version, line 9, is annotated capsim.io/apply-at)");
  // A live cluster has no future: a cluster dump refuses delete-at too.
  io::ParseOptions dump;
  dump.cluster_dump = true;
  std::vector<std::string> dump_errors;
  try {
    (void)io::parse_scenario(k_scenario + pool("blue", at("", "1h"), "spot"), "t.yaml", {}, dump);
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) {
      dump_errors.push_back(format_diagnostic(d));
    }
  }
  CAPTURE(dump_errors);
  CHECK(iotest::has_line(dump_errors, "t.yaml:9:38: error: NodePool/blue: annotation capsim.io/delete-at is for "
                                      "scenarios (a NodePool deleted during the run), not for cluster dumps"));
}

TEST_CASE("scenario: a static NodePool (spec.replicas) and the NodePool CRD's rules for it", "[io][nodepool]")
{
  const auto pool = [](const std::string& name, const std::string& spec, const std::string& annotations = {}) {
    return fmt::format("---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {}\n{}spec:\n{}"
                       "  template: {{spec: {{nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, "
                       "name: default}}}}}}\n",
                       name, annotations, spec);
  };
  const auto s = io::parse_scenario(
      "apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h, karpenter: {staticCapacity: true}}\n" +
          pool("fixed", "  replicas: 4\n  limits: {nodes: 6}\n") + pool("dynamic", "  weight: 10\n"),
      "t.yaml", {});
  CHECK(s.settings.karpenter.static_capacity);
  REQUIRE(s.node_pools.size() == 2);
  CHECK(s.node_pools[0].replicas == 4);
  CHECK(s.node_pools[0].limit_nodes == 6);
  CHECK(!s.node_pools[1].replicas);
  CHECK(!model::KarpenterSettings{}.static_capacity); // the gate is off by default, as upstream

  REQUIRE_ERROR(k_scenario + pool("fixed", "  replicas: 2\n  weight: 5\n"),
                "t.yaml:11:11: error: NodePool/fixed: 'weight' is not supported on static NodePools (spec.replicas is "
                "set)");
  REQUIRE_ERROR(k_scenario + pool("fixed", "  replicas: 2\n  limits: {cpu: 8, nodes: 3}\n"),
                "t.yaml:11:12: error: NodePool/fixed: only 'limits.nodes' is supported on static NodePools (got "
                "'limits.cpu')");
  REQUIRE_ERROR(k_scenario + pool("fixed", "  replicas: -1\n"),
                "t.yaml:10:13: error: '-1' is out of range for 'NodePool/fixed.spec.replicas' (expected "
                "0..10000000)");
  // A later version may not switch between static and dynamic.
  REQUIRE_ERROR(k_scenario + pool("fixed", "  replicas: 2\n") +
                    pool("fixed", "", "  annotations: {capsim.io/apply-at: 1h}\n"),
                "t.yaml:17:37: error: NodePool/fixed: Cannot transition NodePool between static (replicas set) and "
                "dynamic (replicas unset) provisioning modes");
}

TEST_CASE("scenario: an EC2NodeClass annotated capsim.io/apply-at is a later version of it, its hashes",
          "[io][nodeclass]")
{
  const auto node_class = [](const std::string& annotations, const std::string& spec) {
    return fmt::format("---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\n{}"
                       "spec:\n{}",
                       annotations, spec);
  };
  const std::string base = "  amiSelectorTerms: [{alias: al2023@latest}]\n  role: r\n"
                           "  subnetSelectorTerms: [{tags: {a: b}}]\n  tags: {team: x}\n";
  const auto hashes = [&](const std::string& spec) {
    const auto s = io::parse_scenario(k_scenario + node_class("", spec), "t.yaml", {});
    REQUIRE(s.node_classes.size() == 1);
    return std::pair{s.node_classes[0].hash, s.node_classes[0].ami_hash};
  };
  const auto [hash, ami] = hashes(base);
  // Order of keys and of list items does not matter (hashstructure: SlicesAsSets).
  CHECK(hashes("  tags: {team: x}\n  subnetSelectorTerms: [{tags: {a: b}}]\n  role: r\n"
               "  amiSelectorTerms: [{alias: al2023@latest}]\n") == std::pair{hash, ami});
  // Selector terms are not in the hash (their own drift checks compare what they resolve to).
  CHECK(hashes("  amiSelectorTerms: [{alias: al2023@latest}]\n  role: r\n  subnetSelectorTerms: [{tags: {a: c}}]\n"
               "  tags: {team: x}\n") == std::pair{hash, ami});
  // Tags, the role and the kubelet are.
  CHECK(hashes(base + "  kubelet: {maxPods: 50}\n").first != hash);
  CHECK(hashes("  amiSelectorTerms: [{alias: al2023@latest}]\n  role: r\n  subnetSelectorTerms: [{tags: {a: b}}]\n"
               "  tags: {team: y}\n")
            .first != hash);
  // Another AMI selector changes the AMI hash; another AMI family the hash too.
  const auto bottlerocket = hashes("  amiSelectorTerms: [{alias: bottlerocket@latest}]\n  role: r\n"
                                   "  subnetSelectorTerms: [{tags: {a: b}}]\n  tags: {team: x}\n");
  CHECK(bottlerocket.second != ami);
  CHECK(bottlerocket.first != hash);
  // A pinned AMI version of the same family: the AMIs differ, the hash does not.
  const auto pinned = hashes("  amiSelectorTerms: [{alias: al2023@v20250101}]\n  role: r\n"
                             "  subnetSelectorTerms: [{tags: {a: b}}]\n  tags: {team: x}\n");
  CHECK(pinned.first == hash);
  CHECK(pinned.second != ami);

  const std::string later = "  annotations: {capsim.io/apply-at: 2h}\n";
  const auto s = io::parse_scenario(k_scenario + node_class("", base) +
                                        node_class(later, base + "  kubelet: {maxPods: 50}\n"),
                                    "t.yaml", {});
  REQUIRE(s.node_classes.size() == 1);
  REQUIRE(s.node_class_updates.size() == 1);
  CHECK(s.node_class_updates[0].at == 2 * k_hour);
  CHECK(s.node_class_updates[0].node_class.max_pods == 50);
  CHECK(s.node_class_updates[0].node_class.hash != s.node_classes[0].hash);

  REQUIRE_ERROR(k_scenario + node_class(later, base),
                "t.yaml:9:37: error: EC2NodeClass/default: annotation capsim.io/apply-at applies a new version of an "
                "EC2NodeClass, but no EC2NodeClass document named 'default' without it gives its version at t=0");
  REQUIRE_ERROR(k_scenario + node_class("", base) +
                    node_class(later, base + "  capacityReservationSelectorTerms: [{id: cr-1}]\n"),
                "t.yaml:19:37: error: EC2NodeClass/default: a later version may not change "
                "capacityReservationSelectorTerms (capsim resolves reservations once, at the start)");
  REQUIRE_ERROR(k_scenario + node_class("", base) + node_class(later, base) + node_class(later, base),
                "t.yaml:30:37: error: EC2NodeClass/default: two versions are applied at 2h (the other on line 19)");
}
