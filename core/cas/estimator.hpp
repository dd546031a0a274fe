#pragma once

#include "core/cas/pod_groups.hpp"
#include "core/cas/predicates.hpp"
#include "core/cas/snapshot.hpp"

#include <cstdint>
#include <vector>

namespace capsim::cas {

// --max-nodes-per-scaleup: the static node cap of one estimation.
inline constexpr std::int32_t k_max_nodes_per_scale_up = 1000;

// The estimator's node limits (thresholdBasedEstimationLimiter): each limit is -1 (no node
// may be added), 0 (no limit) or a positive cap; the combination is -1 if any is negative,
// else the smallest positive one, else 0.
[[nodiscard]] std::int32_t min_node_limit(std::int32_t a, std::int32_t b);

// What a node group's new nodes look like to CA: the node (labels, taints, allocatable),
// its capacity (least-waste and price use capacity, not allocatable) and the requests of the
// DaemonSet pods CA puts on it.
struct NodeTemplate
{
  cluster::NodeState node;
  model::Resources capacity;
  model::Resources daemon_requested; // incl. one `pods` per DaemonSet pod
  bool from_real_node = false;
  // Names this content for Snapshot::add_copy (its `source`): a new value whenever a template is
  // made; 0 for none.
  std::uint64_t id = 0;
};

struct Estimate
{
  std::int32_t node_count = 0;            // new nodes with at least one pod
  std::vector<const model::Pod*> pods;    // pods placed, in placement order
};

// DecreasingPodOrderer: groups sorted by cpu/alloc_cpu + mem/alloc_mem of their exemplar on
// the template, descending; ties keep the input order.
[[nodiscard]] std::vector<PodGroup> order_pod_groups(std::vector<PodGroup> groups, const NodeTemplate& tmpl);

// BinpackingNodeEstimator.Estimate: First-Fit-Decreasing by group onto copies of the
// template added to `snapshot` (reverted before returning). For each group: first-fit on the
// nodes added so far, then next-fit on the last added node, adding a fresh copy when the pod
// does not fit (never after a copy that stayed empty; with a hostname topology spread, any
// other node of the snapshot is tried first). `max_nodes` is a min_node_limit() result.
[[nodiscard]] Estimate estimate(Snapshot& snapshot, const std::vector<PodGroup>& groups, const NodeTemplate& tmpl,
                                std::int32_t group_index, std::int32_t max_nodes, NodeOrdering& ordering);

} // namespace capsim::cas
