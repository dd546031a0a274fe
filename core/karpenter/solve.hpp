#pragma once

#include "core/base/units.hpp"
#include "core/catalog/instance_type.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/node_pool.hpp"
#include "core/model/pod.hpp"
#include "core/model/requirements.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::karpenter {

// Karpenter's provisioning scheduler (core:pkg/controllers/provisioning/scheduling,
// Scheduler.Solve) as a pure function: given the cluster, the pods to place and the
// NodePools, decide which pods go onto existing (and in-flight) nodes and which new
// NodeClaims to create. Used by provisioning (pending pods) and by consolidation (re-run
// with candidate nodes excluded and their pods added).
//
// Same input => same output, byte for byte: every place where upstream iterates a Go map
// or uses an unstable sort has a documented total-order tie-break here (see solve.cpp).

// Whether an offering of an instance type can be launched now: not in the unavailable-offerings
// (ICE) cache and, for a reserved offering, with an instance left in its capacity reservation.
// nullptr means every offering the catalog marks available is available.
using OfferingAvailable = std::function<bool(const catalog::InstanceType& type, const catalog::Offering& offering)>;

// One NodePool as the scheduler sees it: the spec plus cloudProvider.GetInstanceTypes(np).
struct NodePoolInput
{
  const model::NodePool* pool = nullptr;
  std::uint32_t index = 0; // the pool's index (cluster::NodeState::pool of its nodes)
  // Instance types offered to this pool, in catalog order (the order breaks price ties).
  // Shared and immutable: every solve gets the pool list, and the cache recognises a list it
  // has seen by its address.
  std::shared_ptr<const std::vector<const catalog::InstanceType*>> instance_types;
  // Non-zero: a promise that the NodePool is unchanged while its revision is (the simulation
  // hands out a new one for each NodePool version it applies). With 0 the cache compares the
  // pool's fields on every solve, so a caller may edit a NodePool in place between solves.
  std::uint64_t revision = 0;

  [[nodiscard]] const std::vector<const catalog::InstanceType*>& types() const;
};

[[nodiscard]] std::shared_ptr<const std::vector<const catalog::InstanceType*>>
make_type_list(std::vector<const catalog::InstanceType*> types);

// NodePool spec.limits: a cap per listed resource (capacity, not allocatable) and on nodes.
struct Limits
{
  model::Resources max;
  std::uint32_t listed = 0; // bit i set: resource id i is limited
  std::optional<std::int64_t> nodes;
  // capsim extension (NodePool annotation capsim.io/limit-usd-per-hour): the pool's nodes may
  // cost at most this per hour at the prices they launched at; checked like a resource limit.
  std::optional<double> usd_per_hour;

  [[nodiscard]] bool empty() const { return listed == 0 && !nodes && !usd_per_hour; }
};

// The limits declared by a NodePool: entries of model::NodePool::limits other than INT64_MAX
// (unlisted resources) and limit_nodes.
[[nodiscard]] Limits limits_of(const model::NodePool& pool);

struct SolveOptions
{
  bool ignore_preferences = false;   // PREFERENCE_POLICY=Ignore
  bool min_values_best_effort = false; // MIN_VALUES_POLICY=BestEffort
  // Results.TruncateInstanceTypes: options kept per NodeClaim, cheapest first (upstream 600;
  // Karpenter's scheduling tests use 60).
  int max_instance_types = 600;
  // IsConsolidationSimulation: nodes inside their pool's consolidateAfter window are not
  // destinations for non-pending pods that do not come from deleting nodes.
  bool consolidation_simulation = false;
  SimTime now = 0; // for consolidation_simulation
  // Leave out the instance-type In [options] requirement of new NodeClaims (unless it carries
  // minValues): for callers that rebuild it from the options they keep (consolidation) or read
  // the options only (the provisioner's launch).
  bool omit_instance_type_requirement = false;
  // New NodeClaims as sketches: options, pods, requests and the capacity-type requirement
  // only (no other requirements, no labels). For consolidation, which rejects most simulations
  // on those and solves again for the full claim when it needs one (Solve is a pure function).
  bool sketch_claims = false;
  // For consolidation of spot candidates without SpotToSpotConsolidation when nobody reads why a
  // simulation fails: such a command can only delete, so a result with a NodeClaim that may
  // launch spot, a bound pod that fits nowhere, or a moved pod on a node that is not Ready is
  // rejected whatever else it holds. The solve stops at the first of these it is sure of and
  // returns only SolveResult::stopped. A single candidate's stop on one of its pods (it fit no
  // other node, or it went to a node that is not Ready after the pods queued before it went to
  // existing nodes) is remembered in the SolveCache and answers later solves of that candidate
  // while the reason provably holds (docs/architecture.md).
  bool stop_on_delete_veto = false;
  // ReservedOfferingModeStrict (the provisioner's DisableReservedCapacityFallback): a pod whose
  // NodeClaim could use a reserved offering but finds none left to reserve fails with a
  // reserved-offering error, is not relaxed and may not go to a lower-weight NodePool; it waits
  // for the next round. Disruption simulations fall back (ReservedOfferingModeFallback).
  bool strict_reservations = false;
};

class SolveCache;

struct SolveInput
{
  const cluster::Cluster* cluster = nullptr;
  // Pods to place: pending pods plus pods of deleting / candidate nodes (bound pods are
  // simulated as moved: they do not count in topology at their current node).
  std::vector<cluster::PodIndex> pods;
  // `pods` begins with cluster->pending() (simulate_scheduling lists them so): checks that read
  // the pending pods apart need not compare the lists.
  bool pods_start_with_pending = false;
  // How many pods of each excluded node `pods` lists, in a row after the pending ones and in the
  // order of excluded_nodes (simulate_scheduling lists them so), some of the node's bound pods
  // each; empty: not told.
  std::vector<std::uint32_t> candidate_pod_counts;
  // Nodes that are not destinations (consolidation candidates). Existing nodes are the alive,
  // schedulable (not deleting, not disrupted-tainted) nodes not listed here; launching and
  // registered nodes count as existing ("in-flight").
  std::vector<cluster::NodeIndex> excluded_nodes;
  std::vector<NodePoolInput> node_pools;
  // One PodSpec per DaemonSet (per-node overhead). On existing nodes the compatible DaemonSets'
  // requests minus NodeState::daemon_requested (floored at 0) are reserved, so DaemonSet pods
  // the engine already bound are not counted twice.
  std::vector<model::PodSpecPtr> daemon_sets;
  // Remaining limits per node_pools entry (same order); when empty, computed from each pool's
  // limits minus the capacity of its existing nodes.
  std::vector<Limits> remaining_limits;
  OfferingAvailable offering_available;
  // Instances in use per capacity reservation (nodes running or launching in it); nullptr when
  // the catalog has no reservations (set it whenever it has: SolveOptions::stop_on_delete_veto
  // is then refused). A reservation has its offering's reservation_capacity minus this left to reserve.
  std::function<std::int32_t(std::string_view reservation_id)> reservation_used;
  // Version of offering_available's answers (sim::Actuator::availability_version); when
  // non-zero and unchanged since the cache last looked, availability is not re-evaluated.
  std::uint64_t availability_version = 0;
  SolveOptions options;
  // Optional reuse of interned catalog / node / pod-spec data across calls (same results).
  SolveCache* cache = nullptr;
};

// A pod placed on an existing node.
struct Placement
{
  cluster::PodIndex pod = 0;
  cluster::NodeIndex node = 0;
};

// A NodeClaim to create (Karpenter's scheduling.NodeClaim after FinalizeScheduling and
// TruncateInstanceTypes).
struct NewNodeClaim
{
  std::uint32_t pool_input = 0; // index into SolveInput::node_pools
  std::uint32_t pool = 0;       // NodePoolInput::index
  // Narrowed requirements (hostname removed) plus, as NodeClaimTemplate.ToNodeClaim adds them,
  // node.kubernetes.io/instance-type In [options] and karpenter.sh/capacity-type In [capacity
  // types of the options' available compatible offerings].
  model::Requirements requirements;
  // Options ordered by price (cheapest available offering compatible with the requirements;
  // ties keep catalog order), truncated to SolveOptions::max_instance_types.
  std::vector<const catalog::InstanceType*> instance_types;
  model::Resources requests; // sum of pod requests (incl. pods: 1 each) + min DaemonSet overhead
  std::vector<cluster::PodIndex> pods;
  model::Labels labels; // template labels, karpenter.sh/nodepool, resolved custom labels
  std::vector<model::Taint> taints;
  std::vector<model::Taint> startup_taints;
  bool min_values_relaxed = false;
  // Every instance type fits `requests` and intersects `requirements`: Solve checked it on its
  // interned requirements, so the launch need not repeat it with strings. Cleared by whoever
  // changes the requirements afterwards.
  bool options_compatible = false;
  // SolveOptions::sketch_claims: `requirements` holds the capacity-type requirement only and
  // `labels` is empty; not for launching.
  bool sketch = false;
};

struct PodError
{
  cluster::PodIndex pod = 0;
  std::string reason;
};

struct SolveResult
{
  std::vector<Placement> existing;   // in placement order
  std::vector<NewNodeClaim> claims;  // in creation order
  std::vector<PodError> errors;      // sorted by pod index
  bool stopped = false;              // SolveOptions::stop_on_delete_veto fired; the rest is empty
  // When stopped: a moved pod the stop rests on alone, or k_none. The same solve with only some
  // of the excluded nodes (this pod's among them) stops too while the pod has no room (CPU,
  // memory, pods) on any of the nodes given back: the stop found it no room on the other nodes
  // (or sent it to one that is not Ready) before any pod was placed, and nothing else in the solve
  // (topology, limits, host ports, reservations) depends on the excluded nodes.
  cluster::PodIndex stop_pod = cluster::k_none;
};

// InstanceTypes.SatisfiesMinValues' error as Karpenter prints it (serrors.Wrap with the keys):
// "minValues requirement is not met for label(s) (label(s)=[a b])", keys sorted.
[[nodiscard]] std::string min_values_not_met(std::vector<std::string> keys);

[[nodiscard]] SolveResult solve(const SolveInput& input);

// SolveOptions::stop_on_delete_veto for one candidate node, answered from the stop remembered
// for it before the solve is set up: true when the stop holds just as it was remembered, so the
// solve would return SolveResult::stopped (counted as a memo hit); false when that takes the
// solve. `input`: the solve's input with its cache, excluded_nodes {candidate} and, as pods, the
// cluster's pending pods only; the solve would list after them all of the candidate's
// reschedulable pods (`candidate_pods`, its pod list at `pods_revision`, every one bound there),
// then `after`. The candidate is Ready and not marked for deletion. `hold`: from
// SolveCache::new_hold(), for a caller that asks again with the same input object, cluster and
// `after`, all unchanged but for the excluded node (the checks of the rest are then skipped
// while no solve runs in between); 0: none.
[[nodiscard]] bool remembered_stop_holds(const SolveInput& input, std::uint64_t pods_revision,
                                         std::span<const cluster::PodIndex> candidate_pods,
                                         std::span<const cluster::PodIndex> after, std::uint64_t hold = 0);

// remembered_stop_holds(input, pods_revision, pods, after, hold) for the candidate `node`, set as
// the node `input` leaves out, when it is answered true without the checks that no candidate
// changes: the hold's last full check that got past them stands (no solve ran since), and the
// candidate's stop is one on its remembered pod list with no Ready node but its own having room
// for the stop pod (counted as remembered_stop_holds counts it). False: left to
// remembered_stop_holds. (A pass asks hundreds of candidates in a row.)
[[nodiscard]] bool remembered_stop_holds_again(SolveInput& input, cluster::NodeIndex node, std::uint64_t pods_revision,
                                               std::span<const cluster::PodIndex> pods,
                                               std::span<const cluster::PodIndex> after, std::uint64_t hold);

// Requests Karpenter's scheduler uses for a pod: the pod's requests with pods = 1.
[[nodiscard]] model::Resources pod_requests(const model::Pod& pod);

// Interned catalog, node and pod-spec data kept between solve() calls. Optional: results are
// identical without it. Call clear() when NodePools, their instance types or the DaemonSets
// change. Not thread-safe; one per caller.
class SolveCache
{
public:
  SolveCache();
  ~SolveCache();
  SolveCache(const SolveCache&) = delete;
  SolveCache& operator=(const SolveCache&) = delete;

  void clear();

  // Solves answered by SolveOptions::stop_on_delete_veto's memo (a single candidate stopped
  // before, nothing it depends on changed): the early stop without any preparation.
  [[nodiscard]] std::size_t veto_memo_hits() const;
  // Of those, the ones remembered_stop_holds_again answered.
  [[nodiscard]] std::size_t stops_held_again() const;
  // Solves of several candidates answered by a stop on the first pod of their queue (one of the
  // candidates' pods, going to a node that is not Ready) found without any preparation.
  [[nodiscard]] std::size_t first_pod_stop_hits() const;

  // Simulations answered by a stop on a longer prefix of their candidates (SolveResult::stop_pod,
  // counted by simulate_scheduling) without a solve.
  [[nodiscard]] std::size_t prefix_stop_hits() const { return m_prefix_stop_hits; }
  void count_prefix_stop_hit() { ++m_prefix_stop_hits; }

  // Consolidation simulations whose sketched NodeClaim (SolveOptions::sketch_claims) had no option
  // launching below the candidates' price, rejected without solving for the full claim (counted by
  // compute_consolidation).
  [[nodiscard]] std::size_t sketch_price_rejections() const { return m_sketch_price_rejections; }
  void count_sketch_price_rejection() { ++m_sketch_price_rejections; }

  // Starts loading what remembered_stop_holds reads first for the node (a pass asks about its
  // candidates in an order unrelated to where that lies in memory).
  void prefetch_remembered_stop(cluster::NodeIndex node) const;
  // The next stage, once that is loaded, for a candidate whose pod list is not the remembered one
  // (`pods_revision` differs): the remembered lists, which remembered_stop_holds then walks along
  // the candidate's own. Whether it is such a candidate.
  bool prefetch_changed_stop(cluster::NodeIndex node, std::uint64_t pods_revision) const;

  // A new id for remembered_stop_holds' `hold` (never 0).
  [[nodiscard]] std::uint64_t new_hold() { return ++m_holds; }

  struct Impl;

  [[nodiscard]] Impl& impl() { return *m_impl; }

private:
  std::unique_ptr<Impl> m_impl;
  std::size_t m_prefix_stop_hits = 0;
  std::size_t m_sketch_price_rejections = 0;
  std::uint64_t m_holds = 0;
};

} // namespace capsim::karpenter
