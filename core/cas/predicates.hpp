#pragma once

#include "core/cas/snapshot.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace capsim::cas {

// The scheduler Filter plugin that rejected a pod on a node (none = the pod fits).
enum class Filter : std::uint8_t {
  none,
  unschedulable,     // node tainted ToBeDeleted / being removed
  node_name,         // NodeName: the pod names another node (spec.nodeName)
  resources,         // NodeResourcesFit (cpu, memory, pods, gpu, ephemeral-storage, ...)
  node_affinity,     // nodeSelector / required node affinity
  taints,            // TaintToleration (NoSchedule, NoExecute)
  host_ports,        // NodePorts
  volumes,           // VolumeBinding: an unsatisfiable claim, or the volumes' node affinity
  topology_spread,   // PodTopologySpread, whenUnsatisfiable: DoNotSchedule
  pod_affinity,      // InterPodAffinity, required affinity
  pod_anti_affinity, // InterPodAffinity, required anti-affinity (either direction)
};

[[nodiscard]] std::string_view to_string(Filter filter);

// The kube-scheduler filters (PreFilter + Filter, never Score) that Cluster Autoscaler runs
// in its simulations: can `pod` go on snapshot node `node`? This is the one seam through
// which CAS asks the scheduler model. The per-node filters (taints, node affinity, host
// ports, resources) are core/scheduling's; topology spread and inter-pod affinity are counted
// here over the snapshot, because CA's snapshot holds placements the cluster does not (pods
// simulated onto upcoming and estimated nodes, pods moved by the removal simulation), which
// the KubeScheduler's cluster-wide indexes cannot see.
[[nodiscard]] Filter check_predicates(const Snapshot& snapshot, std::size_t node, const model::Pod& pod);

// Cluster Autoscaler's default node ordering for "schedule on any node": start one past the
// node of the last match and wrap around (clustersnapshot.NewLastIndexOrderMapping(1)).
struct NodeOrdering
{
  std::size_t last_index = 0;
};

// SchedulePodOnAnyNodeMatching: the first acceptable node (in `ordering`) that passes the
// predicates; binds the pod there and returns the node, or nullopt. `acceptable` may be empty.
std::optional<std::size_t> schedule_on_any(Snapshot& snapshot, const model::Pod& pod,
                                           const std::function<bool(std::size_t)>& acceptable, NodeOrdering& ordering);

} // namespace capsim::cas
