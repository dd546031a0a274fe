#pragma once

#include "core/base/units.hpp"
#include "core/model/kube.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace capsim::model {

// Who owns a pod, which decides what happens when it is evicted: ReplicaSet/StatefulSet/Job
// pods come back pending; bare pods are lost; DaemonSet pods follow their node.
enum class OwnerKind : std::uint8_t { none, replica_set, stateful_set, job, daemon_set };

// Everything that pods of one template share: scheduling constraints and metadata. Pods of a
// Deployment, a Job or a trace template point at one PodSpec, so a million pods need a
// million small Pod values, not a million copies of this.
struct PodSpec
{
  std::string template_name; // Deployment/Job/... name, or the Pod's own name
  std::string namespace_ = "default";
  Labels labels;
  std::map<std::string, std::string> annotations;
  Resources requests; // effective pod requests incl. init containers and overhead (no pods:1)
  Labels node_selector;
  std::vector<NodeSelectorTerm> required_node_affinity; // ORed terms; empty = none
  std::vector<PreferredNodeTerm> preferred_node_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread;
  std::vector<PodAffinityTerm> pod_affinity_required;
  std::vector<WeightedPodAffinityTerm> pod_affinity_preferred;
  std::vector<PodAffinityTerm> pod_anti_affinity_required;
  std::vector<WeightedPodAffinityTerm> pod_anti_affinity_preferred;
  std::vector<std::int32_t> host_ports;
  std::int32_t priority = 0;
  std::int64_t deletion_cost = 0; // controller.kubernetes.io/pod-deletion-cost
  OwnerKind owner = OwnerKind::none;
  // karpenter.sh/do-not-disrupt: "true" => k_never; a duration => that long from pod start.
  Duration do_not_disrupt = 0;
  bool safe_to_evict_false = false; // cluster-autoscaler.kubernetes.io/safe-to-evict: "false"
  bool safe_to_evict_true = false;  // cluster-autoscaler.kubernetes.io/safe-to-evict: "true" (overrides CAS blockers)
  bool has_local_storage = false;   // emptyDir/hostPath volumes (CAS skip-nodes-with-local-storage)
  // Persistent volumes (kube-scheduler's VolumeBinding filter, Karpenter's volumetopology.go):
  // the nodes the pod's bound or provisionable volumes allow, as ORed terms like required node
  // affinity (empty = anywhere). Kept apart from node affinity because topology spread counts
  // domains by the pod's node affinity alone.
  std::vector<NodeSelectorTerm> volume_affinity;
  // A zonal claim of the pod is provisioned where the pod first binds (WaitForFirstConsumer): the
  // binding pins the pod, and the pods that come back in its place, to that node's zone.
  bool volume_binds_on_schedule = false;
  // Non-empty: a claim no scheduler can satisfy (being deleted, Lost, unbound with Immediate
  // binding, no storage class): the pod stays pending, as kube-scheduler and Karpenter leave it.
  std::string volume_error;
  // Pods of this spec are pods of that spec's workload (kube-scheduler's default spreading counts
  // them together): set on a spec Cluster::bind pinned to a zone (the spec it was made from) and
  // on a pasted pod's spec that a workload of the stream adopted (the workload's template).
  std::shared_ptr<const PodSpec> counted_with;
  Duration termination_grace_period = 30 * k_second;

  bool operator==(const PodSpec&) const = default;
};

using PodSpecPtr = std::shared_ptr<const PodSpec>;

// One pod of the workload. Requests may differ per pod (trace rows carry their own). What the
// schedulers read of every pod comes first, so that it shares cache lines with the cluster's
// per-pod state (cluster::PodState): a replay's million pods are read scattered.
struct Pod
{
  PodSpecPtr spec;
  SimTime arrival = 0;
  bool is_daemon = false; // a DaemonSet pod (not counted in final_nodes pods)
  // Deleted, still on its node (a kubectl dump's pod with metadata.deletionTimestamp, as
  // Karpenter sees it): it holds its room until it is gone and is never evicted, so it blocks no
  // disruption and counts in no PDB; unless a StatefulSet owns it (its replacement waits for it)
  // it is not rescheduled either, and the cluster keeps it off its node's pod list
  // (IsReschedulable, listed_on_node).
  bool terminating = false;
  // Not healthy for its PDBs: its Ready condition is False (a kubectl dump's pod; simulated pods
  // are Ready once they run), or, in the preview's Cluster Autoscaler view, which moves pods
  // being deleted as any other, it is being deleted. Karpenter evicts it whatever the budget
  // under AlwaysAllow.
  bool unready = false;
  Resources requests;     // what the scheduler uses; normally spec->requests
  std::string name;
  Duration runtime = -1;  // running time once started; -1: runs until deleted or the end
  SimTime departure = -1; // absolute time the workload deletes it (pending or not); -1: never
  std::string node_name;  // bound at t=0 (spec.nodeName)
  // Bound at t=0: how long it had been running by then (status.startTime against the scenario's
  // start time). Its do-not-disrupt duration and runtime count from that start.
  Duration started_before = 0;
};

// Whether a bound pod is on its node's pod list (cluster::NodeState::pods): all but DaemonSet
// pods and terminating pods other than a StatefulSet's, which only hold their room.
[[nodiscard]] inline bool listed_on_node(const Pod& p)
{
  return !p.is_daemon && (!p.terminating || (p.spec && p.spec->owner == OwnerKind::stateful_set));
}

} // namespace capsim::model
