#pragma once

#include "core/base/units.hpp"
#include "core/catalog/instance_type.hpp"
#include "core/cluster/cluster.hpp"
#include "core/karpenter/solve.hpp"
#include "core/model/kube.hpp"
#include "core/model/scenario.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace capsim::karpenter {

// Disruption candidates (core:pkg/controllers/disruption/types.go NewCandidate,
// core:pkg/controllers/state/statenode.go ValidateNodeDisruptable / ValidatePodsDisruptable)
// and the pod-level rules they need: eviction cost, karpenter.sh/do-not-disrupt, PDBs.

// Graceful methods (emptiness, consolidation) always respect pod blockers; eventual ones (drift)
// ignore them when the NodePool sets terminationGracePeriod.
enum class DisruptionClass : std::uint8_t { graceful, eventual };

// EvictionCost (core:pkg/utils/disruption): clamp(1 + deletionCost/2^27 + priority/2^25, -10, 10).
[[nodiscard]] double eviction_cost(const model::PodSpec& spec);

// LifetimeRemaining: the share of the node's lifetime (creation to expiry) still ahead at `now`;
// 1 without expiry.
[[nodiscard]] double lifetime_left(const cluster::NodeState& node, SimTime now);

// Whether a pod tolerates karpenter.sh/disrupted:NoSchedule (the drain then leaves it alone).
[[nodiscard]] bool tolerates_disrupted_taint(const model::PodSpec& spec);

// PodDisruptionBudgets with their status computed from the cluster, as the Kubernetes
// disruption controller would: expected = matching live pods (pending or bound, not being
// deleted), healthy = those running and not unready; desiredHealthy from minAvailable (count,
// or percent rounded up) or expected - maxUnavailable (count, or percent rounded up);
// allowed = max(0, healthy - desired).
class PdbLimits
{
public:
  PdbLimits(const std::vector<model::PodDisruptionBudget>& pdbs, const cluster::Cluster& cluster);
  // Limits that answer fully_blocked() only, from the PDBs alone (counting DisruptionsAllowed
  // walks every pod of the run): what provisioning asks of the pods on deleting nodes.
  explicit PdbLimits(const std::vector<model::PodDisruptionBudget>& pdbs);

  // Why evicting the pod (it has a spec) is blocked now (pdb.Limits.CanEvictPods,
  // zero-disruptions mode): it is covered by more than one PDB, or its PDB allows no disruption
  // (unless the pod is unready and the PDB's policy is AlwaysAllow). "" when it may be evicted.
  [[nodiscard]] std::string eviction_blocker(const model::Pod& pod) const;

  // A PDB covering the pod (it has a spec) is fully blocking (maxUnavailable 0 / "0%",
  // minAvailable "100%"; not for an unready pod under AlwaysAllow), or several cover it.
  [[nodiscard]] bool fully_blocked(const model::Pod& pod) const;

  [[nodiscard]] std::int64_t disruptions_allowed(std::size_t pdb) const;

  [[nodiscard]] bool empty() const { return m_pdbs == nullptr || m_pdbs->empty(); }

private:
  [[nodiscard]] const std::vector<std::uint32_t>& matching(const model::PodSpec& spec) const;
  // The PDB's unhealthyPodEvictionPolicy AlwaysAllow lets the unready pod go whatever it allows.
  [[nodiscard]] bool evicts_unready(std::size_t pdb, const model::Pod& pod) const;
  // DisruptionsAllowed per PDB from the cluster's pending and bound pods.
  void count(const cluster::Cluster& cluster);
  [[nodiscard]] const std::vector<std::int64_t>& allowed() const;

  const std::vector<model::PodDisruptionBudget>* m_pdbs = nullptr;
  const cluster::Cluster* m_cluster = nullptr; // null: limits from the PDBs alone
  std::vector<std::int64_t> m_allowed;
  std::vector<bool> m_fully_blocking;
  mutable std::unordered_map<const model::PodSpec*, std::vector<std::uint32_t>> m_matching;
};

// pdb.Limits.IsCurrentlyReschedulable: a bound pod that is not a DaemonSet's, has no active
// do-not-disrupt annotation and no fully blocking PDB (pdbs may be null when there is none):
// one that will leave a disrupted node, so capacity is made for it.
[[nodiscard]] bool currently_reschedulable(const cluster::PodState& p, const PdbLimits* pdbs, SimTime now);

// A node's reschedulable pods, sorted; one list shared by the node's CandidateMemo and every
// Candidate made from it while its pods stay the same (a disruption pass copies each candidate
// more than once; the list is never changed once made).
class PodList
{
public:
  PodList() = default;
  // A copy of `pods` in one allocation with its count of owners.
  explicit PodList(std::span<const cluster::PodIndex> pods)
      : m_pods(std::make_shared_for_overwrite<cluster::PodIndex[]>(pods.size())), m_data(m_pods.get()),
        m_size(pods.size())
  {
    std::copy(pods.begin(), pods.end(), m_pods.get());
  }
  // `pods` in ascending order, sorted in the list's own allocation (no copy made first).
  [[nodiscard]] static PodList sorted(std::span<const cluster::PodIndex> pods)
  {
    PodList out(pods);
    std::sort(out.m_pods.get(), out.m_pods.get() + out.m_size);
    return out;
  }
  // The same in an allocation with room for `room` pods (or pods.size(), if more), which
  // rewrite_sorted() may fill again.
  [[nodiscard]] static PodList sorted(std::span<const cluster::PodIndex> pods, std::size_t room)
  {
    PodList out;
    out.m_pods = std::make_shared_for_overwrite<cluster::PodIndex[]>(std::max(room, pods.size()));
    out.m_data = out.m_pods.get();
    out.rewrite_sorted(pods);
    return out;
  }
  // Whether no other list shares this one's allocation: it may then be written again.
  [[nodiscard]] bool sole_owner() const { return m_pods && m_pods.use_count() == 1; }
  // This list, sole owner of an allocation with room for them, becomes `pods` in ascending order.
  void rewrite_sorted(std::span<const cluster::PodIndex> pods)
  {
    std::copy(pods.begin(), pods.end(), m_pods.get());
    m_size = pods.size();
    std::sort(m_pods.get(), m_pods.get() + m_size);
  }

  // (From the pointer kept here: the shared vector's own header is far away, and most callers
  // pass the span on without reading it.)
  [[nodiscard]] std::span<const cluster::PodIndex> span() const { return {m_data, m_size}; }
  [[nodiscard]] auto begin() const { return span().begin(); }
  [[nodiscard]] auto end() const { return span().end(); }
  [[nodiscard]] std::size_t size() const { return m_size; } // without reading the list
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] bool operator==(const PodList& o) const { return std::ranges::equal(span(), o.span()); }
  // Loads the list ahead of a copy (its count of owners sits just before it, in the same block).
  void prefetch() const
  {
    if (m_pods) {
      __builtin_prefetch(m_pods.get());
    }
  }

private:
  std::shared_ptr<cluster::PodIndex[]> m_pods; // written once, when made
  const cluster::PodIndex* m_data = nullptr;   // m_pods.get()
  std::size_t m_size = 0;
};

// A node considered for disruption, with what the methods need to rank and simulate it.
struct Candidate
{
  cluster::NodeIndex node = cluster::k_none;
  std::uint32_t pool = 0; // NodePool index
  // The node's instance type as its NodePool offers it; nullptr when it cannot be resolved
  // (consolidation then skips the node, as upstream does).
  const catalog::InstanceType* instance_type = nullptr;
  double price = 0; // resolveNodePrice: the offering matching the node's zone and capacity type
  PodList reschedulable; // bound non-DaemonSet pods (pod.IsReschedulable)
  // Each of them has a spec and no karpenter.sh/do-not-disrupt annotation, so it is currently
  // reschedulable unless a PDB fully blocks it.
  bool plain_pods = false;
  bool spot = false;               // the node's capacity type is spot
  std::uint64_t pods_revision = 0; // the node's NodeState::pods_revision when the candidate was made
  double reschedule_cost = 1.0; // 1 + sum of positive eviction costs of reschedulable pods
  double disruption_cost = 0;   // v1.13: sum of eviction costs x lifetime remaining

  [[nodiscard]] double savings_ratio() const { return price / reschedule_cost; }
};

// What make_candidate derives from a node's pods and instance type, kept up to date as pods come
// and go: a disruption pass checks every node, and the pods are scattered over the run's whole
// pod table (reading them all again for each change was most of a check).
struct CandidateMemo
{
  bool valid = false;
  std::uint64_t cluster = 0;       // Cluster::instance_id when derived
  std::uint64_t pods_revision = 0; // NodeState::pods_revision it reflects
  std::size_t bindings = 0;        // the Cluster::binding_log entries it reflects (a prefix)
  std::uint32_t do_not_disrupt_pods = 0; // pods that ask for do-not-disrupt (expiry needs the clock)
  std::uint32_t unplain_pods = 0;        // pods without a spec or asking for do-not-disrupt
  bool list_current = false;             // reschedulable is the node's pod list
  std::uint32_t list_room = 0;           // pods reschedulable's allocation has room for
  PodList reschedulable;
  double all_cost = 0;
  double reschedule_cost = 1.0;
  // The node's type as its NodePool offers it now, and its price: of the NodePoolInput::revision
  // below (a later NodePool or EC2NodeClass version brings new types).
  const catalog::InstanceType* instance_type = nullptr;
  double price = 0;
  std::uint64_t pool_revision = 0;

  [[nodiscard]] bool any_do_not_disrupt() const { return do_not_disrupt_pods != 0; }
  [[nodiscard]] bool plain_pods() const { return unplain_pods == 0; } // Candidate::plain_pods
};

// The memos of one cluster's nodes, by node index. Each binding since a memo was derived adds or
// takes away one pod's facts, read from that pod alone. The sums stay exact, so they equal a
// fresh derivation's bit for bit in any order: an eviction cost is clamped to [-10, 10] and is a
// multiple of 2^-27 (1 + deletion cost / 2^27 + priority / 2^25), so a node's sums need far fewer
// than the 53 bits of a double.
class CandidateMemos
{
public:
  // Applies the bindings logged since the last call to the memos they touch (inline: a pass
  // calls it for every node, and all but the first find nothing new).
  void catch_up(const cluster::Cluster& cluster)
  {
    if (m_cluster != cluster.instance_id() || m_bindings != cluster.binding_log().size()) {
      apply_new_bindings(cluster);
    }
  }
  [[nodiscard]] CandidateMemo& slot(cluster::NodeIndex node)
  {
    if (m_memo.size() <= node) {
      m_memo.resize(static_cast<std::size_t>(node) + 1);
    }
    return m_memo[node];
  }
  [[nodiscard]] std::size_t size() const { return m_memo.size(); }
  // What make_candidate reads of a node's memo, loaded ahead (a pass reads every node's, and
  // they are far apart): the memo, then (once it is in) its pod list.
  void prefetch(cluster::NodeIndex node) const
  {
    if (node < m_memo.size()) {
      __builtin_prefetch(&m_memo[node]);
    }
  }
  void prefetch_list(cluster::NodeIndex node) const
  {
    if (node < m_memo.size()) {
      m_memo[node].reschedulable.prefetch();
    }
  }

private:
  void apply_new_bindings(const cluster::Cluster& cluster);

  std::vector<CandidateMemo> m_memo;
  std::uint64_t m_cluster = 0;
  std::size_t m_bindings = 0; // binding_log entries applied
};

// What candidate checks read.
struct CandidateContext
{
  const cluster::Cluster* cluster = nullptr;
  const std::vector<NodePoolInput>* pools = nullptr; // by NodePool index (NodeState::pool)
  const PdbLimits* pdbs = nullptr;
  SimTime now = 0;
  // Nodes nominated for pods (provisioning, a started command): each until the latest of its
  // entries in these lists, by node index (none past a list's end). Plain lists, not a callback:
  // every candidate check of every poll asks for every node.
  std::array<std::span<const SimTime>, 2> nominations{};
  // No node is nominated past this time (nominated_until need not be asked at or after it).
  SimTime nominations_end = std::numeric_limits<SimTime>::max();
  // Optional: the node of every change to `nominations`, each list in order and only ever
  // appended to, so that kept answers need not ask every node whether it is nominated now.
  std::optional<std::array<std::span<const cluster::NodeIndex>, 2>> nomination_logs;
  // Nodes already in a disruption command (the orchestration queue).
  std::function<bool(cluster::NodeIndex)> in_queue;
  // Optional; results are the same without it.
  CandidateMemos* memo = nullptr;
  // Whether candidates carry Candidate::disruption_cost (0 otherwise): only v1.13's order reads
  // it, and it moves with the clock (lifetime left), so it is worked out again on every check.
  bool disruption_costs = true;

  [[nodiscard]] SimTime nominated_until(cluster::NodeIndex n) const
  {
    SimTime until = -1;
    for (const auto& list : nominations) {
      if (n < list.size()) {
        until = std::max(until, list[n]);
      }
    }
    return until;
  }
};

// The outcome of NewCandidate for one node: a candidate, or why it is not one. `blocked` is
// empty (and `candidate` unset) for nodes that are silently skipped: not managed by a NodePool,
// not initialized, deleting or marked for deletion, already in a command.
struct CandidateCheck
{
  std::optional<Candidate> candidate;
  std::string blocked;
  // The answer stands while the node's record (its Cluster::node_stamp) and pods stay, the
  // command queue is the same and the node is not nominated: no PDB was consulted and neither a
  // nomination nor a do-not-disrupt pod blocked it, so the clock changes only the candidate's
  // disruption cost (the node's lifetime share of all_cost).
  bool lasting = false;
  double all_cost = 0; // the candidate's summed eviction costs (Candidate::disruption_cost's)
};

[[nodiscard]] CandidateCheck make_candidate(const CandidateContext& ctx, cluster::NodeIndex node,
                                            DisruptionClass disruption_class);
// The same into `out`, whatever it held (its buffers kept).
void make_candidate(const CandidateContext& ctx, cluster::NodeIndex node, DisruptionClass disruption_class,
                    CandidateCheck& out);

// make_candidate's graceful answers for every NodePool node of a cluster, in alive order, kept
// from one disruption step to the next: a node's answer is worked out again only when its record
// or pods changed or it is not CandidateCheck::lasting (a step checks every node, and few change
// between steps; the checks were mostly waiting on each node's memo and pod list).
class CandidateChecks
{
public:
  struct Entry
  {
    cluster::NodeIndex node = cluster::k_none;
    std::uint64_t stamp = 0;         // the node's Cluster::node_stamp when worked out
    std::uint64_t pods_revision = 0; // its NodeState::pods_revision then
    CandidateCheck check;
    // What a reader derived from `check` and the node's record, per method kind: from when the
    // candidate is one of its candidates (k_never: not while the answer stands), or k_unknown.
    // Reset whenever the answer is worked out again, and by a walk of every node (which keeps
    // answers over a binding of a pod the node does not list, and so its last pod event).
    static constexpr SimTime k_unknown = std::numeric_limits<SimTime>::min();
    mutable std::array<SimTime, 2> due{k_unknown, k_unknown};
    bool maybe_empty = false; // a candidate empty by either version's rule (maybe_empty())
  };

  // The answers make_candidate(ctx, node, graceful) gives now, for the nodes owned by a NodePool
  // in alive order. `queue_version` changes whenever the command queue (ctx.in_queue) does.
  const std::vector<Entry>& refresh(const CandidateContext& ctx, std::uint64_t queue_version);
  // Positions in refresh()'s list of the candidates that may be empty (is_empty by either
  // version's rule): the others are never Emptiness candidates.
  [[nodiscard]] const std::vector<std::uint32_t>& maybe_empty() const { return m_maybe_empty; }
  // How many refreshes walked every node (the others read the logs only).
  [[nodiscard]] std::size_t walks() const { return m_walks; }
  // refresh()'s list, as it last left it.
  [[nodiscard]] const std::vector<Entry>& entries() const { return m_entries; }
  // The entry of node `n` in that list, or nullptr.
  [[nodiscard]] const Entry* entry_of(cluster::NodeIndex n) const;
  // The nodes whose entry was worked out again, added or dropped since the last call, into `out`
  // (unsorted, maybe repeated); false when any entry may have changed (a walk of every node, a
  // new basis): the reader then starts over. Either way the record starts anew.
  bool take_changes(std::vector<cluster::NodeIndex>& out);

private:
  // What every kept answer was worked out under; any change starts over.
  struct Basis
  {
    std::uint64_t cluster = 0;
    std::uint64_t queue_version = 0;
    const std::vector<NodePoolInput>* pools = nullptr;
    std::size_t pool_count = 0;
    std::uint64_t pool_revisions = 0; // the sum of the pools' revisions
    bool disruption_costs = true;
    bool operator==(const Basis&) const = default;
  };

  // Brings the kept answers up to date in place, walking every node; false when a node must be
  // listed between kept ones (the list is then made anew).
  [[nodiscard]] bool update(const CandidateContext& ctx);
  // The same from the cluster's logs since the last refresh: only the nodes stamped or bound to
  // since, those whose answer is not lasting and those nominated are asked again (a poll changes
  // a few dozen nodes of thousands). False, having changed nothing, when it cannot tell so (a node
  // to list between kept ones): update() then walks every node.
  [[nodiscard]] bool update_changed(const CandidateContext& ctx);
  // Works an entry's answer out again.
  void recheck(const CandidateContext& ctx, Entry& e);
  // What update_changed starts from, after a walk of every node: positions by node, the nodes
  // whose answer is not lasting and the list of candidates that may be empty.
  void settle(const CandidateContext& ctx);
  void list_maybe_empty();

  std::vector<Entry> m_entries;
  std::vector<std::uint32_t> m_maybe_empty;
  std::optional<Basis> m_basis;
  // update_changed's state, valid after a walk (settle) for the Basis of then.
  bool m_settled = false;
  std::size_t m_node_log_seen = 0;           // Cluster::node_log entries the answers reflect
  std::size_t m_bindings_seen = 0;           // Cluster::binding_log entries alike
  bool m_nominations_logged = false;               // the context had CandidateContext::nomination_logs
  std::array<std::size_t, 2> m_nominations_seen{}; // their entries the answers reflect
  std::vector<std::uint32_t> m_position;     // by node: 1 + its entry's position, 0 for none
  std::vector<cluster::NodeIndex> m_unsettled; // nodes whose answer is not lasting
  std::vector<cluster::NodeIndex> m_dirty;     // update_changed's scratch
  std::size_t m_walks = 0;
  // take_changes' record: the nodes asked again by update_changed, unless every entry may have
  // changed since the last take.
  std::vector<cluster::NodeIndex> m_changed;
  bool m_all_changed = true;
};

// Multi-node and single-node consolidation's candidates in consolidation order (v1.14+: savings
// ratio descending, then name and index, as sort_candidates orders them), kept from poll to poll.
// A poll changes the answers of a few dozen nodes of a thousand, and listing every admitted
// candidate and sorting them again cost more than the rest of the pass's bookkeeping: the changed
// nodes' keys are dropped and those admitted now merged back in, with the candidates whose
// consolidateAfter ended since, one pass over the order each.
class AdmittedOrder
{
public:
  // When an entry's candidate becomes one of the methods' candidates, from the entry and its
  // node alone (k_never: not while the entry stands).
  using DueFn = std::function<SimTime(const CandidateChecks::Entry&)>;

  // The candidates admitted at `now` (due <= now) of `checks`' entries, refreshed for this
  // cluster state, in order into `out`. False, with `out` empty, when a key is NaN: the caller
  // lists and sorts them its own way. (`now` never goes back for one cluster.)
  bool list(CandidateChecks& checks, const cluster::Cluster& cluster, SimTime now, const DueFn& due,
            std::vector<const Candidate*>& out);

  // The order's key of a candidate (sort_candidates' for v1.14+).
  struct Key
  {
    double first = 0; // -savings ratio
    std::array<std::uint64_t, 2> head{}; // the name's first 16 bytes, big-endian
    std::uint32_t name_size = 0;
    cluster::NodeIndex node = cluster::k_none;
  };

private:
  struct Slot
  {
    Key key;
    std::uint32_t generation = 0; // bumped when the node's entry changes: older waits are void
    bool listed = false;          // in the order
    bool named = false;           // key.head, name_size and node set (a node keeps its name)
    std::uint64_t dropped = 0;    // the call that took its key out of the order last
  };
  struct Waiting
  {
    SimTime due = 0;
    cluster::NodeIndex node = cluster::k_none;
    std::uint32_t generation = 0;
  };

  void rebuild(const CandidateChecks& checks, const cluster::Cluster& cluster, SimTime now, const DueFn& due);
  // The entry's candidate, with its key as of now, to m_fresh when admitted, else to the waits.
  void put_in(const CandidateChecks::Entry& e, const cluster::Cluster& cluster, SimTime now, const DueFn& due);
  Slot& slot(cluster::NodeIndex n);

  std::uint64_t m_cluster = 0; // Cluster::instance_id of the order
  bool m_valid = false;
  std::uint64_t m_call = 0;
  std::vector<Slot> m_slots;               // by node
  std::vector<Key> m_order;                // the admitted candidates' keys, in order
  std::vector<Waiting> m_waiting;          // a min-heap by due
  std::vector<Key> m_fresh;                // the keys that join the order in this call
  std::vector<Key> m_merged;               // scratch
  std::vector<cluster::NodeIndex> m_changes; // scratch
};

// The instance type named `name` among a NodePool's types, or nullptr.
[[nodiscard]] const catalog::InstanceType* pool_instance_type(const NodePoolInput& pool, std::string_view name);
// The same for a catalog type, matched by address first.
[[nodiscard]] const catalog::InstanceType* pool_instance_type(const NodePoolInput& pool,
                                                              const catalog::InstanceType& type);

// Price of the offering in (zone, capacity type), available or not; 0 when there is none.
[[nodiscard]] double offering_price(const catalog::InstanceType& type, std::string_view zone,
                                    std::string_view capacity_type);

// Candidate.IsEmpty: v1.13 "no reschedulable pod"; v1.14+ "no reschedulable pod with a positive
// eviction cost" (RescheduleDisruptionCost <= 1).
[[nodiscard]] bool is_empty(const Candidate& c, std::string_view version);
[[nodiscard]] bool is_empty(const Candidate& c, bool v113);

// The Consolidatable condition: now - max(lastPodEventTime, initialization) >= consolidateAfter
// (never with consolidateAfter Never). Returns the time it becomes consolidatable.
[[nodiscard]] SimTime consolidatable_at(const cluster::NodeState& node, const model::NodePool& pool);

// The last order sort_candidates worked out: a disruption pass sorts the same candidates for
// each method, and polls often find the same ones (the same keys in the same list order).
struct CandidateOrder
{
  // A node's name as the order compares it: its first 16 bytes packed big-endian, and its length.
  struct Name
  {
    std::array<std::uint64_t, 2> head{};
    std::uint32_t size = 0;
    bool known = false;
  };
  std::uint64_t cluster = 0;                               // Cluster::instance_id of the rest
  std::vector<std::pair<double, cluster::NodeIndex>> keys; // the sorted list's input, in its order
  std::vector<std::uint32_t> order;                        // input position of each output position
  std::vector<std::pair<double, cluster::NodeIndex>> sorted; // its output's keys, in order
  std::vector<Name> names;                                   // by node
  std::vector<std::uint32_t> at; // scratch by node: 1 + input position
  // Scratch by node for the pointers' way: the call that listed it, the call that kept its
  // remembered place, and the candidate listing it.
  struct Listed
  {
    std::uint64_t call = 0;
    std::uint64_t kept = 0;
    const Candidate* candidate = nullptr;
  };
  std::vector<Listed> listed;
  std::uint64_t calls = 0;
};

// Consolidation order (consolidation.go sortCandidates): v1.14+ savings ratio descending, v1.13
// disruption cost ascending; ties by node name, then index. `memo` (optional): the same input is
// put in the remembered order without sorting; otherwise the candidates whose key stands keep
// their remembered relative order and only the others are sorted and merged in.
void sort_candidates(std::vector<Candidate>& candidates, std::string_view version, const cluster::Cluster& cluster,
                     CandidateOrder* memo = nullptr);
// The same over pointers to candidates (a disruption pass lists its candidates so, without copies).
void sort_candidates(std::vector<const Candidate*>& candidates, std::string_view version,
                     const cluster::Cluster& cluster, CandidateOrder* memo = nullptr);

// Single-node consolidation's shuffleCandidates: round-robin over NodePools (in pool index
// order; upstream iterates a Go map) keeping each pool's sorted order. Points into `sorted`.
[[nodiscard]] std::vector<const Candidate*> interleave_pools(const std::vector<Candidate>& sorted);
// The same into `out` (its room reused).
void interleave_pools(const std::vector<Candidate>& sorted, std::vector<const Candidate*>& out);
void interleave_pools(const std::vector<const Candidate*>& sorted, std::vector<const Candidate*>& out);

// The candidate an element of a candidate list stands for (lists hold candidates or pointers to
// them).
inline const Candidate& candidate_of(const Candidate& c)
{
  return c;
}
inline const Candidate& candidate_of(const Candidate* c)
{
  return *c;
}

// Whether the v1.13 ordering and emptiness rules apply.
[[nodiscard]] bool is_v113(std::string_view version);

} // namespace capsim::karpenter
