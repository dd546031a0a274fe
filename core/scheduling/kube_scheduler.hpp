#pragma once

#include "core/base/units.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/pod.hpp"
#include "core/scheduling/filters.hpp"
#include "core/scheduling/scores.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

// The kube-scheduler model (SPEC 5.1): where pending pods actually land. Karpenter and Cluster
// Autoscaler only create and delete nodes; this decides the bindings, with the default profile's
// filters and scores. Cluster Autoscaler also asks it "would this pod fit on that node?".
//
// Deviations from kube-scheduler, all deliberate:
// - ties between the best-scored nodes go to the lowest node index (creation order) instead of
//   kube-scheduler's random reservoir choice, so runs are reproducible;
// - filtering runs sequentially from the rotating start index (nextStartNodeIndex), so the
//   sample of percentageOfNodesToScore nodes is deterministic;
// - a pod that found no node is retried as soon as the cluster changed in a way that can help it
//   (a pod left a node, a node changed; for pods with hard topology spread or required pod
//   affinity also any binding), without kube-scheduler's 1-10 s backoff;
// - pods bind only to Ready nodes (NodeLifecycle::ready); preemption, volumes, ImageLocality and
//   scheduling gates are not modelled.
namespace capsim::scheduling {

struct SchedulerConfig
{
  ScoringStrategy strategy = ScoringStrategy::least_allocated;
  ScoreWeights weights;
  // percentageOfNodesToScore: 0 = kube-scheduler's adaptive default (50% - nodes/125, at least
  // 5%); otherwise 1..100. At least 100 nodes (or all, when fewer) are always considered.
  std::int32_t percentage_of_nodes_to_score = 0;
  // PodTopologySpread system defaults (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) for
  // ReplicaSet/StatefulSet pods without constraints of their own, counting pods of the same
  // PodSpec (the same controller).
  bool system_default_spreading = true;
  // Try PodState::nominated first and take it when it passes every filter (kube-scheduler's
  // NominatedNodeName fast path). Off by default: Karpenter reports its plan only in events.
  bool prefer_nominated = false;
};

// One decision of a binding pass.
struct Binding
{
  cluster::PodIndex pod = cluster::k_none;
  cluster::NodeIndex node = cluster::k_none;

  bool operator==(const Binding&) const = default;
};

// Normalized per-plugin scores of one feasible node (0..100 each) and their weighted total.
struct NodeScore
{
  cluster::NodeIndex node = cluster::k_none;
  std::int64_t total = 0;
  std::int64_t node_resources_fit = 0;
  std::int64_t balanced_allocation = 0;
  std::int64_t taint_toleration = 0;
  std::int64_t node_affinity = 0;
  std::int64_t pod_topology_spread = 0;
  std::int64_t inter_pod_affinity = 0;
};

// Called once per binding, after the pod was bound in the cluster.
using BindFn = std::function<void(cluster::PodIndex, cluster::NodeIndex)>;

// kube-scheduler over one Cluster. It keeps incremental indexes (per-node state, per-domain
// topology and affinity counts, cached node-affinity checks) that it brings up to date from the
// Cluster's change log at the start of every call, so it must always be given the same Cluster
// (given another one, it rebuilds from scratch). Not thread-safe.
class KubeScheduler
{
public:
  explicit KubeScheduler(SchedulerConfig config = {});
  ~KubeScheduler();
  KubeScheduler(KubeScheduler&&) noexcept;
  KubeScheduler& operator=(KubeScheduler&&) noexcept;
  KubeScheduler(const KubeScheduler&) = delete;
  KubeScheduler& operator=(const KubeScheduler&) = delete;

  [[nodiscard]] const SchedulerConfig& config() const;

  // One scheduling pass: the cluster's pending pods in queue order (priority descending, then
  // pending_since, then pod index), each bound (Cluster::bind at `now`) to its best feasible
  // Ready node before the next is considered, so later pods see earlier bindings. `on_bound`
  // runs right after each bind (engine bookkeeping). Pods with no feasible node stay pending.
  // Returns the bindings in the order made.
  std::vector<Binding> bind_pending(cluster::Cluster& cluster, SimTime now, const BindFn& on_bound = {});

  // The same pass over `candidates` only (non-pending ones are skipped), for an engine that
  // binds itself: `bind` must call Cluster::bind on this same cluster.
  void place(const cluster::Cluster& cluster, std::span<const cluster::PodIndex> candidates, const BindFn& bind);

  // Whether `pod` passes every filter on cluster node `node` (Ready and all). The pod need not be
  // in the cluster; if it is bound, it still counts where it is bound.
  [[nodiscard]] bool feasible(const cluster::Cluster& cluster, const model::Pod& pod, cluster::NodeIndex node);

  // The same on a hypothetical node that is not in the cluster (a Cluster Autoscaler template):
  // its lifecycle is not checked; node.requested must include what is already on it (one `pods`
  // per pod and DaemonSet overhead); node.pods lists cluster pods assumed to run on it. For
  // topology spread and pod affinity it joins the cluster's nodes as one more node.
  [[nodiscard]] bool feasible(const cluster::Cluster& cluster, const model::Pod& pod, const cluster::NodeState& node);

  // Like feasible(), with the first failing filter and its reason (for --explain).
  [[nodiscard]] FilterResult check(const cluster::Cluster& cluster, const model::Pod& pod, cluster::NodeIndex node);
  [[nodiscard]] FilterResult check(const cluster::Cluster& cluster, const model::Pod& pod,
                                   const cluster::NodeState& node);

  // The node a scheduling cycle would choose for `pod` now, or k_none; binds nothing and does not
  // advance the sampling rotation.
  [[nodiscard]] cluster::NodeIndex select_node(const cluster::Cluster& cluster, const model::Pod& pod);

  // Scores of every feasible node (no sampling), by node index.
  [[nodiscard]] std::vector<NodeScore> score_nodes(const cluster::Cluster& cluster, const model::Pod& pod);

  // kube-scheduler's unschedulable message: "0/3 nodes are available: 1 Insufficient cpu, 2
  // node(s) didn't match Pod's node affinity/selector." (reasons sorted as upstream sorts them).
  [[nodiscard]] std::string explain(const cluster::Cluster& cluster, const model::Pod& pod);

private:
  struct State;
  std::unique_ptr<State> m_state;
};

// percentageOfNodesToScore as kube-scheduler applies it: how many feasible nodes to find among
// `all_nodes` before scoring (all when fewer than 100; else max(100, all * percent / 100), with
// the adaptive percent 50 - all/125, at least 5, when `percentage` is 0).
[[nodiscard]] std::size_t num_feasible_nodes_to_find(std::int32_t percentage, std::size_t all_nodes);

} // namespace capsim::scheduling
