#pragma once

#include "core/base/diagnostics.hpp"
#include "core/base/units.hpp"
#include "core/catalog/instance_type.hpp"
#include "core/model/kube.hpp"
#include "core/model/node_group.hpp"
#include "core/model/node_pool.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::model {

// A v1 Node present at t=0.
struct InitialNode
{
  std::string name;
  Labels labels; // instance type, zone, capacity type, nodepool / nodegroup come from here
  std::vector<Taint> taints;
  std::optional<Resources> capacity;    // status.capacity, when given
  std::optional<Resources> allocatable; // status.allocatable, when given
  std::string owner_pool;               // NodePool name, NodeGroup name, or "" (static)
  enum class Owner : std::uint8_t { static_node, node_pool, node_group } owner = Owner::static_node;
  // The karpenter.sh/nodepool and eks.amazonaws.com/nodegroup labels, each checked against the
  // stream. A node may carry both (a scenario seeding both engines with the same nodes): a
  // Karpenter run adopts it into node_pool, a Cluster Autoscaler run into node_group; `owner`
  // prefers the NodePool.
  std::string node_pool;
  std::string node_group;
  bool do_not_disrupt = false;
  // metadata.creationTimestamp (Unix ms), when given; and how long the node has existed at t=0
  // (the scenario's start, ScenarioSettings::start_ms, minus that; 0 without it).
  std::optional<std::int64_t> created_ms;
  Duration age = 0;
  SourceLocation location;
};

struct DaemonSet
{
  std::string name;
  PodSpecPtr spec;
};

// A volume claim made for each pod of a template (an ephemeral volume, a StatefulSet
// volumeClaimTemplate) whose StorageClass binds at once (Immediate): the provisioner creates
// each pod's claim in one of `zones` before the pod schedules, the one at the FNV-1a hash of the
// claim's name modulo their number (io::pick_zone). The template's spec leaves it out; each pod
// gets a spec with that zone (io::PerPodSpecs).
struct PerPodClaim
{
  std::string name;               // the volume (ephemeral) or the claim template (StatefulSet)
  bool ephemeral = false;         // claim name: "<pod>-<name>" (ephemeral) or "<name>-<pod>"
  std::vector<std::string> zones; // sorted, not empty
};

// A Deployment/StatefulSet/ReplicaSet/Job: a template with replicas present at t=0.
struct Workload
{
  std::string kind; // Deployment, StatefulSet, ReplicaSet, Job, Pod
  std::string name;
  PodSpecPtr spec;
  std::int32_t replicas = 1;
  Duration runtime = -1; // Jobs: capsim.io/runtime annotation; -1 = until the end
  std::int32_t completions = 0; // Jobs: pods to run in total, `replicas` at a time (0 = replicas)
  std::string namespace_ = "default";
  SourceLocation location;
  // Claims made per pod in a zone of their own (see PerPodClaim); empty for most workloads.
  std::vector<PerPodClaim> per_pod_claims;
  // StatefulSet pods whose claims are PersistentVolumeClaim documents of the stream (a
  // live-cluster dump): the spec of ordinal i, volumes resolved; pods resolving alike share one.
  std::map<std::int32_t, PodSpecPtr> ordinal_specs;
  // Pods of the stream (Scenario::pods, same namespace) this workload controls, in document
  // order: they count among its replicas (a pasted `kubectl get deploy,rs,pod`).
  std::vector<std::string> adopted_pods;
  std::int32_t adopted_completions = 0; // a Job's pasted Succeeded pods
};

// A karpenter.k8s.aws/v1 EC2NodeClass: only what changes node capacity (kubelet settings and
// the root volume). Unset values keep Karpenter's defaults.
// An EC2NodeClass capacityReservationSelectorTerms entry: `id` alone, or any of owner, tags
// (value "*" = the key exists) and instance match criteria, all of which must match.
struct CapacityReservationTerm
{
  std::string id;
  std::string owner_id;
  std::map<std::string, std::string> tags;
  std::string instance_match_criteria; // open | targeted

  bool operator==(const CapacityReservationTerm&) const = default;
};

// One capacity reservation of `aws ec2 describe-capacity-reservations` output.
struct CapacityReservation
{
  std::string id;
  std::string instance_type;
  std::string zone;
  std::string owner_id;
  std::string state;                   // active, expired, cancelled, ...
  std::string instance_match_criteria; // open | targeted
  std::string reservation_type = "default"; // default | capacity-block
  std::int32_t available = 0;               // AvailableInstanceCount
  std::map<std::string, std::string> tags;
  SourceLocation location;
};

struct NodeClass
{
  std::string name;
  std::string ami_family; // AL2, AL2023, Bottlerocket, Windows2019/2022/2025, Custom; "" = AL2023
  std::optional<std::int64_t> max_pods;       // spec.kubelet.maxPods
  std::optional<std::int64_t> pods_per_core;  // spec.kubelet.podsPerCore
  std::map<std::string, std::string> kube_reserved;   // spec.kubelet.kubeReserved (resource -> quantity)
  std::map<std::string, std::string> system_reserved; // spec.kubelet.systemReserved
  std::map<std::string, std::string> eviction_hard;   // signal (memory.available, ...) -> quantity or %
  std::optional<std::int64_t> root_volume_bytes;      // blockDeviceMappings root volume size
  bool instance_store_raid0 = false;                  // spec.instanceStorePolicy: RAID0
  std::vector<CapacityReservationTerm> capacity_reservation_terms; // ORed
  // EC2NodeClass.Hash: of the spec without its selector terms (subnets, security groups,
  // capacity reservations, AMIs), ipPrefixCount and amiFamily, with the resolved AMI family;
  // a node whose karpenter.k8s.aws/ec2nodeclass-hash differs has drifted.
  std::uint64_t hash = 0;
  // The amiSelectorTerms (canonical text, hashed): offline, a change of them stands for a change
  // of the AMIs they resolve to, which drifts the nodes (AMIDrift).
  std::uint64_t ami_hash = 0;
  SourceLocation location;
};

struct TraceSource
{
  std::string path; // resolved against the scenario's folder
  std::string format = "csv"; // csv | jsonl | openb | kubectl
  std::string template_name;  // default template for rows without one
  SourceLocation location;
};

struct RuntimeDistribution
{
  std::string dist = "fixed"; // fixed | exponential | lognormal | uniform
  Duration value = 0; // fixed
  Duration mean = 0;  // exponential
  Duration median = 0;
  Duration p95 = 0;
  Duration min = 0;
  Duration max = 0;
};

struct Step
{
  SimTime at = 0;
  std::int32_t replicas = 0;
};

struct Generator
{
  std::string template_name;
  std::string pattern; // diurnal | poisson | steps | burst | constant
  std::int32_t min = 0;
  std::int32_t max = 0;
  Duration period = 24 * k_hour;
  double rate_per_hour = 0;
  // poisson: when above rate_per_hour, the rate follows a daily-style cycle from rate_per_hour
  // (t=0) to this peak (t=period/2), like diurnal's replicas.
  double peak_rate_per_hour = 0;
  std::vector<Step> steps;
  SimTime at = 0;     // burst start
  std::int32_t count = 0; // burst size
  std::optional<RuntimeDistribution> runtime;
  SourceLocation location;
};

struct EventSelector
{
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  std::string node_pool;
  std::string node_name;
};

struct ScenarioEvent
{
  SimTime at = 0;
  std::string kind; // SpotInterruption | Drift | InsufficientCapacity | ScaleWorkload
  EventSelector selector;
  std::int32_t count = 1;
  std::string node_pool;
  Duration duration = 0; // "for"
  std::string workload;  // ScaleWorkload target
  std::string workload_namespace; // ScaleWorkload: empty scales the workloads of that name in every namespace
  std::int32_t replicas = 0;
  SourceLocation location;
};

struct KarpenterSettings
{
  Duration batch_idle_duration = 1 * k_second;
  Duration batch_max_duration = 10 * k_second;
  Duration launch_latency = 45 * k_second;       // CreateFleet to node registered
  Duration registration_latency = 30 * k_second; // registered to initialized (Ready)
  bool spot_to_spot_consolidation = false;
  std::string version = "1.14";  // disruption candidate order: "1.13" or "1.14"
  bool preference_policy_ignore = false;
  bool min_values_best_effort = false;
  std::int32_t max_instance_types = 60;
  // settings.interruptionQueue is set: Karpenter drains a spot node on its 2-minute notice.
  // Without a queue it never hears of the notice and the pods die with the instance.
  bool interruption_queue = true;
  // Feature gate StaticCapacity (default off, as upstream): the static provisioning and
  // deprovisioning controllers keep each static NodePool (spec.replicas) at its size. Off, a
  // static NodePool launches nothing, though its drifted nodes are still replaced.
  bool static_capacity = false;
};

struct ClusterAutoscalerSettings
{
  std::string expander = "least-waste"; // may be a comma-separated chain
  SourceLocation expander_location;     // spec.clusterAutoscaler.expander, for the chain's messages
  Duration scan_interval = 10 * k_second;
  double scale_down_utilization_threshold = 0.5;
  Duration scale_down_unneeded_time = 10 * k_minute;
  Duration scale_down_delay_after_add = 10 * k_minute;
  Duration scale_down_delay_after_delete = 0;
  Duration scale_down_delay_after_failure = 3 * k_minute;
  Duration launch_latency = 90 * k_second;
  Duration max_node_provision_time = 15 * k_minute;
  std::int32_t max_nodes_total = 0; // 0 = unlimited
  std::int32_t max_empty_bulk_delete = 10;
  std::int32_t max_scale_down_parallelism = 10;
  bool balance_similar_node_groups = false;
  bool skip_nodes_with_local_storage = true;
  bool skip_nodes_with_system_pods = true;
  bool use_real_allocatable = false; // templates from zero: capacity (CA's AWS default) or real allocatable
  bool rebalance_recommendation = false; // earlier notice than 2 minutes for spot
  Duration new_pod_scale_up_delay = 0;
  // Further Cluster Autoscaler flags, with CA's defaults (core/cas).
  std::int32_t max_drain_parallelism = 1;                  // --max-drain-parallelism
  std::int32_t max_bulk_soft_taint_count = 10;             // --max-bulk-soft-taint-count (0: no soft taints)
  double scale_down_gpu_utilization_threshold = 0.5;       // --scale-down-gpu-utilization-threshold
  bool ignore_daemonsets_utilization = false;              // --ignore-daemonsets-utilization
  std::int32_t expendable_pods_priority_cutoff = -10;      // --expendable-pods-priority-cutoff
  Duration unremovable_node_recheck_timeout = 5 * k_minute; // --unremovable-node-recheck-timeout
  Duration initial_node_group_backoff_duration = 5 * k_minute;
  Duration max_node_group_backoff_duration = 30 * k_minute;
  Duration node_group_backoff_reset_timeout = 3 * k_hour;
  Duration blocking_system_pod_disruption_timeout = k_hour; // --blocking-system-pod-distruption-timeout
  Duration registration_latency = 0; // ASG launch: Node registered to Ready (launch_latency covers request to Ready)
  Duration rebalance_lead_time = 10 * k_minute; // rebalance recommendation: drain this long before reclaim
};

struct SpotSettings
{
  std::string interruption_model = "advisor"; // advisor | none
  double hazard_multiplier = 1.0;
};

struct PricingSettings
{
  double on_demand_discount = 0;      // fraction 0..1 (EDP / Savings Plans)
  double savings_plan_usd_per_hour = 0;
  double savings_plan_discount = 0;
  double node_overhead_usd_per_hour = 0;
  double min_spot_discount = 0;
};

struct ScenarioSettings
{
  std::string name = "scenario";
  std::string region = "us-east-1";
  SourceLocation region_location; // spec.region when given, for the catalog's message
  std::vector<std::string> zones; // empty: the region's zones in the catalog
  Duration duration = 0;          // 0: until the workload ends
  // spec.startTime (Unix ms): the wall-clock time of t=0, which Node creationTimestamps are aged
  // against; unset: the newest creationTimestamp of the stream's Nodes and Pods.
  std::optional<std::int64_t> start_ms;
  std::uint64_t seed = 1;
  std::string catalog = "default";
  std::vector<std::string> engines; // empty: those the stream configures
  KarpenterSettings karpenter;
  ClusterAutoscalerSettings cluster_autoscaler;
  SpotSettings spot;
  PricingSettings pricing;
  SourceLocation location; // the Scenario document, for messages
};

// A capsim/v1 Catalog document: replaces or extends the default catalog.
struct InlineCatalog
{
  bool replace = true;
  std::vector<std::string> zones;
  std::vector<catalog::InstanceType> instance_types;
  SourceLocation location;
};

// The annotation that makes a NodePool or EC2NodeClass document a later version of it
// (NodePoolUpdate, NodeClassUpdate).
inline constexpr std::string_view k_apply_at_annotation = "capsim.io/apply-at";
// The annotation that deletes a NodePool during the run (NodePool::deleted_at).
inline constexpr std::string_view k_delete_at_annotation = "capsim.io/delete-at";

// **(capsim)** A NodePool applied again during the run, as `kubectl apply` of its new version
// (a later document of the same NodePool with annotation capsim.io/apply-at). From `at` on,
// Karpenter provisions with `pool` and its nodes drift by the new template hash and requirements.
struct NodePoolUpdate
{
  SimTime at = 0;
  NodePool pool;
  SourceLocation location;           // the annotation
  SourceLocation node_class_location; // spec.template.spec.nodeClassRef.name
};

// **(capsim)** An EC2NodeClass applied again during the run (a later document of it annotated
// capsim.io/apply-at): from `at` on, its NodePools launch with its settings (instance types
// rebuilt from its kubelet and volumes), and their nodes drift by its hash and AMI selector.
struct NodeClassUpdate
{
  SimTime at = 0;
  NodeClass node_class;
  SourceLocation location; // the annotation
};

// Everything read from a scenario stream, before the catalog and traces are resolved.
struct Scenario
{
  std::string source_path;
  ScenarioSettings settings;
  std::vector<NodePool> node_pools;
  std::vector<NodePoolUpdate> node_pool_updates; // by `at`, then stream order (creations excluded)
  std::vector<NodeClassUpdate> node_class_updates; // by `at`, then stream order
  std::vector<NodeGroup> node_groups;
  std::vector<InitialNode> nodes;
  std::vector<Pod> pods; // bare pods at t=0
  std::vector<Workload> workloads;
  std::vector<DaemonSet> daemon_sets;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<TraceSource> traces;
  std::vector<Generator> generators;
  std::vector<ScenarioEvent> events;
  std::optional<InlineCatalog> inline_catalog;
  std::vector<NodeClass> node_classes;
  // spec.capacityReservations: the reservations EC2NodeClasses may select.
  std::vector<CapacityReservation> capacity_reservations;
  // Documents read per kind ("NodePool" -> 2), for summaries such as `capsim validate`.
  std::map<std::string, std::int32_t> kind_counts;
  // Templates by name (Deployments, Jobs, ... and bare Pods) for traces and generators.
  [[nodiscard]] PodSpecPtr find_template(std::string_view name) const;
  // Where a message about something read at `at` points: there, or at the scenario's file when
  // `at` was never set (a default, or a scenario built in code).
  [[nodiscard]] SourceLocation location_of(const SourceLocation& at) const
  {
    return at.file.empty() ? SourceLocation{source_path, 0, 0} : at;
  }
};

} // namespace capsim::model
