#pragma once

#include "core/cluster/cluster.hpp"
#include "core/karpenter/solve.hpp"
#include "core/model/node_pool.hpp"

#include <cstdint>
#include <vector>

namespace capsim::karpenter {

// Static NodePools (spec.replicas; core:pkg/controllers/static/provisioning,
// static/deprovisioning and disruption/staticdrift.go): a fixed number of nodes, launched from
// the template alone whatever the pods need, never consolidated, replaced when drifted.

// NodePoolState.GetNodeCount: a NodePool's NodeClaims that are active, being deleted, or
// candidates of a disruption command not yet deleted (the karpenter.sh/disrupted taint).
struct StaticNodeCounts
{
  std::int64_t active = 0;
  std::int64_t deleting = 0;
  std::int64_t pending_disruption = 0;
};

[[nodiscard]] StaticNodeCounts static_node_counts(const cluster::Cluster& cluster, std::uint32_t pool);

// NodePoolState.ReserveNodeCount without concurrent reservations: how many of `wanted` new
// NodeClaims the NodePool's limits.nodes leaves room for (its NodeClaims in every state count).
[[nodiscard]] std::int64_t static_room(const StaticNodeCounts& counts, const model::NodePool& pool,
                                       std::int64_t wanted);

// NewNodeClaimTemplate(nodePool).ToNodeClaim() for a static NodeClaim: the template's labels
// (with karpenter.sh/nodepool, the EC2NodeClass label and resolved custom labels), requirements
// and taints, and no instance-type requirement: the cloud provider's Create chooses among all
// the NodePool's types that its requirements allow, with no pods to fit.
[[nodiscard]] NewNodeClaim static_node_claim(const NodePoolInput& pool);

// The static deprovisioning controller's choice of `count` NodeClaims to delete: empty nodes
// (no pods, or only DaemonSet pods none of which is do-not-disrupt) first, then the others,
// those without an active do-not-disrupt pod first, by rescheduling cost x lifetime remaining.
// Upstream lists nodes in map order; here by name. Nodes already being deleted or marked for a
// disruption command are not candidates.
[[nodiscard]] std::vector<cluster::NodeIndex> static_deprovisioning_candidates(const cluster::Cluster& cluster,
                                                                               std::uint32_t pool,
                                                                               std::int64_t count, SimTime now);

} // namespace capsim::karpenter
