// Karpenter's Scheduler.Solve (core:pkg/controllers/provisioning/scheduling/scheduler.go,
// nodeclaim.go, existingnode.go, queue.go), with interned requirements and instance-type
// bitsets for speed. Deterministic replacements for upstream's unordered choices:
//  - pods with equal CPU, memory and creation time are ordered by name, then pod index
//    (upstream: UID);
//  - in-round NodeClaims are ordered by pod count with a stable sort (upstream sort.Slice
//    is only stable below 13 elements);
//  - NodePools of equal weight and name keep input order; instance types of equal price keep
//    catalog order; DaemonSet overhead groups are ordered by their first instance type;
//  - topology domains that tie are chosen lexicographically (see topology.hpp).
// Checks whose failure messages upstream discards (existing nodes, in-round NodeClaims) are
// reordered cheapest-first; the outcome is the same because every check must pass.

#include "core/karpenter/solve.hpp"

#include "core/base/diagnostics.hpp"
#include "core/karpenter/instance_types.hpp"
#include "core/karpenter/pod_data.hpp"
#include "core/karpenter/reqs.hpp"
#include "core/karpenter/topology.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace capsim::karpenter {

// ---------------------------------------------------------------------------------------------
// Cache kept between solves.

// A DaemonSet as solves read it: strict requirement alternatives (one per starting required
// term).
struct Daemon
{
  const model::PodSpec* spec = nullptr;
  model::Resources requests;
  std::vector<ReqSet> strict; // strict[i]: nodeSelector ∧ requiredTerms[i] (or just nodeSelector)
};

const std::vector<Daemon> k_no_daemons;

struct DsGroup
{
  model::Resources overhead;
  std::uint32_t present = 0; // resources the compatible DaemonSets request (MinResources keys)
  std::vector<std::int32_t> host_ports;
  bool empty = true; // no compatible DaemonSet
};

// A NodePool's NodeClaim template, built once per (pool shape, offering availability,
// DaemonSets) and used in place by every solve (TemplateLimits holds what a solve changes).
struct Template
{
  std::uint32_t input = 0;
  const model::NodePool* pool = nullptr;
  std::uint32_t pool_index = 0; // NodePoolInput::index
  PoolTypes* types = nullptr;
  ReqSet reqs;           // template requirements (no hostname)
  ReqSet base_with_host; // reqs + hostname In [placeholder], patched before each use
  TypeSet options;       // pre-filtered InstanceTypeOptions
  OfferingFilter filter;
  std::vector<DsGroup> groups;
  std::vector<std::int32_t> group_of; // per pool type index, -1 if not an option
  std::vector<TypeSet> group_mask;    // per group: its instance types
  model::Labels labels;
  // SolveOptions::stop_on_delete_veto: the template allows spot and has no minValues that
  // could drop a NodeClaim; per zone index, the options with an offering there (of the
  // template's capacity types) and those with a spot offering there.
  bool spot_possible = false;
  std::vector<TypeSet> offered_in_zone;
  std::vector<TypeSet> spot_in_zone;
  // Scheduler::spot_room_bound's first pick per zone and DaemonSet group (zone * groups + group),
  // made on first use: among the group's options with spot in the zone, the first with the most
  // CPU, and its room (allocatable less the group's overhead). A solve's pick is this one whenever
  // it has room for every pod of the solve.
  struct SpotPick
  {
    bool made = false;
    bool any = false; // the group has an option with spot in the zone
    model::Resources room;
  };
  mutable std::vector<SpotPick> spot_picks;
};

// A template's NodePool limits during one solve.
struct TemplateLimits
{
  Limits remaining;
  bool limited = false;
  TypeSet within_limits; // options whose capacity fits the remaining limits
  bool within_limits_dirty = true;
};

struct DomainEntry
{
  ValueId domain = 0;
  std::vector<std::uint32_t> pools; // pool inputs whose taints guard this domain; empty = untainted
  bool untainted = false;
};

struct ExistingNode
{
  cluster::NodeIndex index = 0;
  const cluster::NodeState* node = nullptr;
  // The node's labels and hostname (from the SolveCache), copied only once a pod narrows them:
  // consolidation solves prepare every node for every candidate.
  const ReqSet* base_reqs = nullptr;
  std::optional<ReqSet> own_reqs;
  [[nodiscard]] const ReqSet& reqs() const { return own_reqs ? *own_reqs : *base_reqs; }
  ReqSet& mutable_reqs()
  {
    if (!own_reqs) {
      own_reqs = *base_reqs;
    }
    return *own_reqs;
  }
  std::vector<model::Taint> taints; // effective taints (startup/ephemeral dropped while uninitialized)
  model::Resources daemons; // requests of the compatible DaemonSets
  Duration consolidate_after = 0; // its NodePool's, if the solve offers the pool; 0 otherwise
  model::Resources remaining;
  ValueId hostname = 0;
  bool initialized = false;
  // Its NodePool's index and instance type when a NodePool owns it (read by the snapshot's
  // per-pool sums without the node itself).
  bool pool_owned = false;
  std::uint32_t pool = 0;
  const catalog::InstanceType* instance_type = nullptr;
  // IsConsolidationSimulation: inside its pool's consolidateAfter window before this time
  // (the window is checked per solve, so the snapshot does not depend on the clock).
  SimTime quiet_until = std::numeric_limits<SimTime>::min();
  std::vector<std::int32_t> host_ports;
  // Per solve (the node list is shared between solves and restored after each one).
  bool excluded = false; // a SolveInput::excluded_nodes entry
  bool touched = false;  // remaining / reqs / host_ports changed by this solve
};

// The largest remaining CPU, memory and pod count over ranges of the existing-node list, so a
// pod skips the nodes that cannot hold it (first fit in list order, as upstream scans them).
// Two views share the tree: every node, and the "moving" view without the nodes inside their
// consolidateAfter window at quiet_now() (the destinations a consolidation simulation denies
// to the pods it moves); one walk keeps both up to date.
// Every change gives the content a new version; a solve that undoes its changes gives the old
// one back (restore_version), so first_fit_except's answers outlive the solves between them.
class FreeCapacityIndex
{
public:
  static constexpr std::size_t k_end = SIZE_MAX;

  void build(const std::vector<ExistingNode>& nodes)
  {
    changed();
    m_log_whole = false;
    m_quiet_now.reset();
    m_size = nodes.size();
    m_leaves = 1;
    while (m_leaves < m_size) {
      m_leaves *= 2;
    }
    m_max.assign(2 * m_leaves, Entry{k_empty, k_empty});
    m_quiet_until.assign(m_leaves, std::numeric_limits<SimTime>::min());
    for (std::size_t i = 0; i < m_size; ++i) {
      m_max[m_leaves + i] = leaf(nodes[i]);
      m_quiet_until[i] = nodes[i].quiet_until;
    }
    for (std::size_t i = m_leaves - 1; i >= 1; --i) {
      m_max[i] = combine(m_max[2 * i], m_max[2 * i + 1]);
    }
  }

  // The list changed from position `from` on (entries moved, joined or left): the leaves from
  // there and their ancestors are redone (O(nodes after `from`)); a list outgrowing the tree is
  // built anew.
  void rebuild_from(const std::vector<ExistingNode>& nodes, std::size_t from)
  {
    if (nodes.size() > m_leaves) {
      build(nodes);
      return;
    }
    changed();
    m_log_whole = false;
    const std::size_t end = std::max(m_size, nodes.size());
    m_size = nodes.size();
    if (from >= end) {
      return;
    }
    for (std::size_t i = from; i < end; ++i) {
      m_max[m_leaves + i] = i < m_size ? leaf(nodes[i]) : Entry{k_empty, k_empty};
      m_quiet_until[i] = i < m_size ? nodes[i].quiet_until : std::numeric_limits<SimTime>::min();
    }
    for (std::size_t lo = (m_leaves + from) / 2, hi = (m_leaves + end - 1) / 2; lo >= 1; lo /= 2, hi /= 2) {
      for (std::size_t i = lo; i <= hi; ++i) {
        m_max[i] = combine(m_max[2 * i], m_max[2 * i + 1]);
      }
    }
  }

#ifndef NDEBUG
  // Every leaf is its node's (empty past the list) and every range the maxima of its halves.
  [[nodiscard]] bool consistent_with(const std::vector<ExistingNode>& nodes) const
  {
    if (m_size != nodes.size() || m_max.size() != 2 * m_leaves) {
      return false;
    }
    for (std::size_t i = 0; i < m_leaves; ++i) {
      if (m_max[m_leaves + i] != (i < m_size ? leaf(nodes[i]) : Entry{k_empty, k_empty})) {
        return false;
      }
    }
    for (std::size_t i = 1; i < m_leaves; ++i) {
      if (m_max[i] != combine(m_max[2 * i], m_max[2 * i + 1])) {
        return false;
      }
    }
    return true;
  }
#endif

  // The moving view for the clock value `now`: the leaves whose node entered or left its window
  // since the last clock value, and their ancestors (a scan of the windows' ends, kept apart).
  void set_quiet_now(SimTime now)
  {
    changed();
    m_log_whole = false;
    const std::optional<SimTime> before = m_quiet_now;
    m_quiet_now = now;
    // Every leaf's view is its node's for the clock value before (update and build make it so):
    // only a window that one clock value is in and the other not changes it, one that ends in
    // (lo, hi] (without a value before, every window ending after `now`). One unsigned compare
    // per leaf: a pass sets the clock for hundreds of nodes, and few windows end in between.
    const auto lo = static_cast<std::uint64_t>(before ? std::min(*before, now) : now);
    const auto hi = static_cast<std::uint64_t>(before ? std::max(*before, now) : std::numeric_limits<SimTime>::max());
    for (std::size_t i = 0; i < m_size; ++i) {
      const SimTime until = m_quiet_until[i];
      if (static_cast<std::uint64_t>(until) - lo - 1 >= hi - lo) {
#ifndef NDEBUG
        const Entry& kept = m_max[m_leaves + i];
        CAPSIM_CHECK(kept.moving == (now < until ? k_empty : kept.all), "FreeCapacityIndex: a leaf's view is stale");
#endif
        continue;
      }
      Entry& e = m_max[m_leaves + i];
      const Dims moving = now < until ? k_empty : e.all;
      if (moving == e.moving) {
        continue;
      }
      e.moving = moving;
      for (std::size_t up = (m_leaves + i) / 2; up >= 1; up /= 2) {
        const Dims m = combine(m_max[2 * up].moving, m_max[2 * up + 1].moving);
        if (m == m_max[up].moving) {
          break; // the ancestors' maxima stand
        }
        m_max[up].moving = m;
      }
    }
  }

  [[nodiscard]] std::optional<SimTime> quiet_now() const { return m_quiet_now; }

  void update(std::size_t pos, const ExistingNode& node)
  {
    changed();
    std::size_t i = m_leaves + pos;
    if (m_logging) {
      m_log.push_back({i, m_max[i]});
      m_log_whole = m_log_whole && m_quiet_until[pos] == node.quiet_until;
    }
    m_max[i] = leaf(node);
    m_quiet_until[pos] = node.quiet_until;
    for (i /= 2; i >= 1; i /= 2) {
      const Entry m = combine(m_max[2 * i], m_max[2 * i + 1]);
      if (m == m_max[i]) {
        return; // the ancestors' maxima stand
      }
      if (m_logging) {
        m_log.push_back({i, m_max[i]});
      }
      m_max[i] = m;
    }
  }

  // The updates from here on are logged, so that undo_log() gives the content back as it was (a
  // solve's exclusions and placements, taken back when it ends, without walking up the tree
  // again for each node).
  void start_log()
  {
    if (m_log_depth++ > 0) {
      m_log_whole = false; // (a solve inside another: both update their nodes back)
      return;
    }
    m_log.clear();
    m_logging = true;
    m_log_whole = true;
  }

  // Every update since start_log() taken back, newest first; false, with nothing done, when
  // something else changed the content since (a new clock value, a rebuild, a node's window):
  // the caller then updates the nodes it changed back instead.
  bool undo_log()
  {
    if (--m_log_depth > 0) {
      return false;
    }
    m_logging = false;
    if (!m_log_whole) {
      m_log.clear();
      return false;
    }
    for (auto it = m_log.rbegin(); it != m_log.rend(); ++it) {
      m_max[it->at] = it->before;
    }
    m_log.clear();
    return true;
  }

  // What the index compares: CPU, memory and pod count.
  using Dims = std::array<std::int64_t, 3>;
  [[nodiscard]] static Dims dims(const model::Resources& r) { return {r.cpu(), r.memory(), r[model::k_pods]}; }

  // The first position at or after `from` whose node may fit `r`, or k_end.
  [[nodiscard]] std::size_t next(std::size_t from, const model::Resources& r, bool moving) const
  {
    return next(from, dims(r), moving);
  }
  [[nodiscard]] std::size_t next(std::size_t from, const Dims& want, bool moving) const
  {
    if (from < m_size) {
      // Searches often resume at a node already found to fit: no descent then.
      const Entry& e = m_max[m_leaves + from];
      const Dims& d = moving ? e.moving : e.all;
      if (d[0] >= want[0] && d[1] >= want[1] && d[2] >= want[2]) {
        return from;
      }
    }
    const std::size_t found = moving ? find<&Entry::moving>(from, want) : find<&Entry::all>(from, want);
#ifndef NDEBUG
    std::size_t first = from;
    while (first < m_size) {
      const Entry& e = m_max[m_leaves + first];
      const Dims& d = moving ? e.moving : e.all;
      if (d[0] >= want[0] && d[1] >= want[1] && d[2] >= want[2]) {
        break;
      }
      ++first;
    }
    CAPSIM_CHECK(found == (first < m_size ? first : k_end), "FreeCapacityIndex: the walk misses the first fit");
#endif
    return found;
  }

  // next(0, r, moving), or the next one after it when that is `skip`. Remembered per content
  // version: the checks of remembered consolidation stops ask this for the same few request
  // shapes once per candidate, between solves that leave the index as they found it.
  [[nodiscard]] std::size_t first_fit_except(const model::Resources& r, bool moving, std::size_t skip) const
  {
    return first_fit_except(dims(r), moving, skip);
  }
  [[nodiscard]] std::size_t first_fit_except(const Dims& want, bool moving, std::size_t skip) const
  {
    FitMemo* hit = &memo(want, moving);
    std::size_t fit = hit->first;
    if (fit != k_end && fit == skip) {
      if (hit->second == k_unknown) {
        hit->second = next(skip + 1, want, moving);
      }
      fit = hit->second;
    }
#ifndef NDEBUG
    std::size_t fresh = next(0, want, moving);
    if (fresh != k_end && fresh == skip) {
      fresh = next(skip + 1, want, moving);
    }
    CAPSIM_CHECK(fresh == fit, "FreeCapacityIndex: a remembered first fit differs from a fresh search");
#endif
    return fit;
  }

  // The first two positions (k_end when fewer) whose node may fit `want` and is Ready by
  // `ready(pos)`, a function of the content (readiness changes only with a new version: the
  // snapshot is rebuilt or its entries redone when a node changes); remembered alike.
  // (Inlined up to the memo's answer, the searches out of line: a pass asks this for every
  // candidate, and a call's frame cost as much as the answer.)
  template <typename Ready>
  [[gnu::always_inline]] [[nodiscard]] std::pair<std::size_t, std::size_t> first_two_ready(const Dims& want,
                                                                                          bool moving,
                                                                                          const Ready& ready) const
  {
    FitMemo& m = memo(want, moving);
    if (!m.ready_known) {
      find_ready(m, ready);
    }
#ifndef NDEBUG
    const auto walk = [&](std::size_t f) {
      while (f != k_end && !ready(f)) {
        f = next(f + 1, want, moving);
      }
      return f;
    };
    const std::size_t first = walk(next(0, want, moving));
    CAPSIM_CHECK(first == m.ready_first
                     && (first == k_end || walk(next(first + 1, want, moving)) == m.ready_second),
                 "FreeCapacityIndex: remembered Ready fits differ from a fresh search");
#endif
    return {m.ready_first, m.ready_second};
  }

  // The content's version, and the way back to it once every change since is undone.
  [[nodiscard]] std::uint64_t version() const { return m_version; }
  void restore_version(std::uint64_t v) { m_version = v; }

private:
  static constexpr Dims k_empty{INT64_MIN, INT64_MIN, INT64_MIN};
  struct Entry
  {
    Dims all;
    Dims moving;
    bool operator==(const Entry&) const = default;
  };

  [[nodiscard]] Entry leaf(const ExistingNode& n) const
  {
    if (n.excluded) {
      return {k_empty, k_empty};
    }
    const Dims d{n.remaining.cpu(), n.remaining.memory(), n.remaining[model::k_pods]};
    const bool quiet = m_quiet_now && *m_quiet_now < n.quiet_until;
    return {d, quiet ? k_empty : d};
  }

  static Dims combine(const Dims& a, const Dims& b)
  {
    return {std::max(a[0], b[0]), std::max(a[1], b[1]), std::max(a[2], b[2])};
  }

  static Entry combine(const Entry& a, const Entry& b) { return {combine(a.all, b.all), combine(a.moving, b.moving)}; }

  // The first position at or after `from` whose range maxima hold `want`, walking the tree
  // without recursion: up from the leaf until a subtree to the right may fit, down into its first
  // range that may (a range whose maxima fit may still hold no single node that does: the walk
  // then goes on to the right of it).
  template <Dims Entry::*View>
  [[nodiscard]] std::size_t find(std::size_t from, const Dims& want) const
  {
    if (from >= m_size) {
      return k_end;
    }
    std::size_t i = m_leaves + from;
    for (;;) {
      const Dims& m = m_max[i].*View;
      if (m[0] >= want[0] && m[1] >= want[1] && m[2] >= want[2]) {
        if (i >= m_leaves) {
          const std::size_t pos = i - m_leaves;
          return pos < m_size ? pos : k_end;
        }
        i *= 2;
        continue;
      }
      while ((i & 1U) != 0) { // a right child: its parent's range is done
        i /= 2;
      }
      if (i == 0) {
        return k_end;
      }
      ++i;
    }
  }

  void changed() { m_version = ++m_last_version; }

  static constexpr std::size_t k_unknown = k_end - 1;
  struct FitMemo
  {
    std::uint64_t version = 0; // 0: empty (versions start at 1)
    Dims want{};
    bool moving = false;
    std::size_t first = k_end;
    std::size_t second = k_unknown; // the first fit after `first`, once asked for
    bool ready_known = false;       // first_two_ready's, once asked for
    std::size_t ready_first = k_end;
    std::size_t ready_second = k_end;
  };

  // The entry for (want, moving) at the current version: found, or made with its first fit.
  // Direct-mapped by a hash of the key: a pass asks for each of a few request shapes thousands of
  // times, and one compare finds it (a scan of every entry cost more than the rest of the check).
  [[gnu::always_inline]] FitMemo& memo(const Dims& want, bool moving) const
  {
    const std::uint64_t h = (static_cast<std::uint64_t>(want[0]) * 0x9E3779B97F4A7C15ULL)
                            ^ (static_cast<std::uint64_t>(want[1]) * 0xC2B2AE3D27D4EB4FULL)
                            ^ (static_cast<std::uint64_t>(want[2]) * 0x165667B19E3779F9ULL) ^ (moving ? 1U : 0U);
    FitMemo& m = m_fit_memo[(h ^ (h >> 29U)) % m_fit_memo.size()];
    // (Element by element: the array's operator== is a call to memcmp, on every check.)
    if (m.version == m_version && m.moving == moving && m.want[0] == want[0] && m.want[1] == want[1]
        && m.want[2] == want[2]) {
      return m;
    }
    fill(m, want, moving);
    return m;
  }

  // memo()'s miss: the entry made with its first fit (out of line, so that a hit calls nothing).
  [[gnu::noinline]] void fill(FitMemo& m, const Dims& want, bool moving) const
  {
    m = FitMemo{m_version, want, moving, next(0, want, moving), k_unknown};
  }

  // first_two_ready's searches for a memo entry.
  template <typename Ready>
  [[gnu::noinline]] void find_ready(FitMemo& m, const Ready& ready) const
  {
    const auto walk = [&](std::size_t f) {
      while (f != k_end && !ready(f)) {
        f = next(f + 1, m.want, m.moving);
      }
      return f;
    };
    m.ready_first = walk(m.first);
    m.ready_second = m.ready_first == k_end ? k_end : walk(next(m.ready_first + 1, m.want, m.moving));
    m.ready_known = true;
  }

  std::size_t m_size = 0;
  std::size_t m_leaves = 1;
  std::vector<Entry> m_max;
  std::vector<SimTime> m_quiet_until; // by leaf: its node's ExistingNode::quiet_until
  std::optional<SimTime> m_quiet_now;
  std::uint64_t m_version = 0;
  std::uint64_t m_last_version = 0;
  mutable std::array<FitMemo, 64> m_fit_memo{};
  struct Logged
  {
    std::size_t at; // in m_max
    Entry before;
  };
  std::vector<Logged> m_log;
  std::uint32_t m_log_depth = 0; // start_log() calls not yet undone
  bool m_logging = false;
  bool m_log_whole = false; // every change since start_log() is in m_log
};

// A topology group as a spec's constraint or term makes it, before any domain is registered or
// counted, with its identity: made once per spec, since formatting the identity in every solve
// cost a tenth of a consolidation solve with a spread constraint.
struct GroupProto
{
  TopologyGroup group;
  std::string id; // group_identity
};

// The groups of one spec in prepare_topology's order (variant 0).
struct SpecGroups
{
  std::vector<std::optional<GroupProto>> spread; // per topology_spread index; nullopt: ignored
  std::vector<GroupProto> affinity_required;
  std::vector<GroupProto> anti_required; // as a regular group and as the inverse one
  std::vector<GroupProto> affinity_preferred; // removal order (heaviest first)
  std::vector<GroupProto> anti_preferred;
};

// Existing nodes prepared for one cluster state and the inputs that shape them: consolidation
// re-runs the scheduler once per candidate over the same cluster, and each run only excludes a
// few nodes and places a few pods, which it undoes when it ends.
struct ExistingSnapshot
{
  std::uint64_t cluster = 0;
  std::uint64_t epoch = 0;
  std::size_t bindings = 0;
  std::uint64_t pools_generation = 0;
  std::vector<const model::PodSpec*> daemons;
  bool host_ports = false;
  bool valid = false;
  const cluster::NodeState* node_table = nullptr; // the cluster's node list the entries point into

  std::vector<ExistingNode> nodes;     // sortExistingNodes order
  // Index in `nodes` by node index, k_unlisted for a node not listed: a lookup per binding and
  // per excluded node without a search (sized by the largest node index listed so far).
  std::vector<std::uint32_t> position;
  static constexpr std::uint32_t k_unlisted = UINT32_MAX;
  [[nodiscard]] std::uint32_t position_of(cluster::NodeIndex n) const
  {
    return n < position.size() ? position[n] : k_unlisted;
  }
  void set_position(cluster::NodeIndex n, std::uint32_t pos)
  {
    if (position.size() <= n) {
      position.resize(static_cast<std::size_t>(n) + 1, k_unlisted);
    }
    position[n] = pos;
  }
  FreeCapacityIndex index; // its moving view set on first use per clock value
  // Per NodePool input: capacity and count of its nodes in `nodes` (updateRemainingResources).
  std::vector<model::Resources> pool_capacity;
  std::vector<std::int64_t> pool_nodes;
  // Bound pods of alive nodes (by spec: a group asks each spec once whether it counts) and those
  // with required pod anti-affinity; each listed on first use.
  struct RunningPod
  {
    const model::PodSpec* spec = nullptr;
    cluster::PodIndex pod = cluster::k_none;
    cluster::NodeIndex node = cluster::k_none;
  };
  bool running_known = false;
  bool anti_affinity_known = false;
  std::vector<RunningPod> running;
  std::vector<std::uint32_t> spec_starts; // where each spec's pods start in `running`
  std::vector<std::pair<cluster::PodIndex, cluster::NodeIndex>> anti_affinity;
  // countDomains over all of `running` per topology group (by identity), kept across cluster
  // states and updated through the bindings and node changes since: consolidation solves once
  // per candidate and each only takes its batch out, so counting every running pod in every
  // solve made a large spread group quadratic, and recounting every group whenever a node
  // changed made a cluster of many groups so.
  struct GroupCounts
  {
    // An alive node's share: the domain the group counts its pods in (when `counted`), whether
    // it registers that domain as an existing node, and its pods the group counts.
    struct NodeShare
    {
      cluster::NodeIndex node = cluster::k_none;
      ValueId domain = 0;
      bool counted = false;
      bool registers = false;
      std::int32_t pods = 0;
    };
    TopologyGroup group; // what counts (selector, namespaces, key, node filter)
    std::vector<NodeShare> nodes;                               // by node index
    std::vector<std::pair<ValueId, std::int32_t>> node_domains; // registering nodes per domain
    std::vector<std::pair<ValueId, std::int32_t>> pods;         // counted pods per domain
    // Node changes since a solve last asked for it: kept up to k_max_idle of them, then dropped.
    std::uint32_t idle = 0;
    static constexpr std::uint32_t k_max_idle = 32;
  };
  std::unordered_map<std::string, GroupCounts> group_counts;
  // Per topology group (by identity): whether it counts a spec's pods (selector, namespaces),
  // asked once per spec while the snapshot's inputs stand; sorted by spec, as `running` is.
  using SpecCounts = std::vector<std::pair<const model::PodSpec*, bool>>;
  std::unordered_map<std::string, SpecCounts> counts_spec;
};

// Whether g counts the pods of `spec`, from `known` (asked and kept there on first use).
bool counts_pods_of(ExistingSnapshot::SpecCounts& known, const TopologyGroup& g, const model::PodSpec* spec)
{
  const auto it = std::lower_bound(known.begin(), known.end(), spec, [](const auto& k, const model::PodSpec* s) {
    return std::less<const model::PodSpec*>()(k.first, s);
  });
  if (it != known.end() && it->first == spec) {
    return it->second;
  }
  const bool counts = g.counts_existing(*spec);
  known.insert(it, {spec, counts});
  return counts;
}

// The first position other than `skip` (and other than node `skip_node`) whose node is Ready and
// may fit `want`, or k_end. A moved pod that fits no Ready node vetoes a delete wherever it goes:
// placements only shrink the free room, so it lands on a node that is not Ready, on a NodeClaim
// or nowhere (the nodes that are not Ready are the few launching ones, passed over one by one).
// (Inlined: a pass asks this for every candidate, and its frame cost more than its memo's answer.)
[[gnu::always_inline]] inline std::size_t first_ready_fit(const ExistingSnapshot& snap,
                                                          const FreeCapacityIndex::Dims& want, bool moving,
                                                          std::size_t skip,
                                                          cluster::NodeIndex skip_node = cluster::k_none)
{
  const auto [first, second] = snap.index.first_two_ready(
      want, moving, [&snap](std::size_t pos) { return snap.nodes[pos].node->lifecycle == cluster::NodeLifecycle::ready; });
  const bool skipped = first != FreeCapacityIndex::k_end && (first == skip || snap.nodes[first].index == skip_node);
  return skipped ? second : first;
}

// What the checks before placing pods read of some of a solve's pods (the valid ones, as
// prepare_pods keeps them).
struct PodsSummary
{
  model::Resources requests;  // sum of their scheduler requests
  std::uint32_t dims = 0;     // bit per resource some of them request
  bool zone_only = true;      // SpecData::zone_only_requirements for each
  bool topology = false;      // some has pod (anti-)affinity or a spread constraint
  bool topology_other = false; // some has a topology group over a key but the zone and hostname
  bool host_ports = false;

  void add(const PodsSummary& o)
  {
    requests += o.requests;
    dims |= o.dims;
    zone_only = zone_only && o.zone_only;
    topology = topology || o.topology;
    topology_other = topology_other || o.topology_other;
    host_ports = host_ports || o.host_ports;
  }

  // Nothing of the pods stands in the way of a remembered stop's checks: no host ports, and no
  // topology (a no_room stop's pre-check allows groups over zones and hostnames, which
  // narrowed_by_zone_only does; a not_ready stop's replay places pods without topology).
  [[nodiscard]] bool plain_for(bool no_room) const { return !host_ports && !(no_room ? topology_other : topology); }
};

// The DaemonSets a cached structure was made for are `ds` (SolveInput::daemon_sets).
bool same_daemons(const std::vector<const model::PodSpec*>& specs, const std::vector<model::PodSpecPtr>& ds)
{
  return specs.size() == ds.size()
         && std::equal(specs.begin(), specs.end(), ds.begin(),
                       [](const model::PodSpec* s, const model::PodSpecPtr& d) { return s == d.get(); });
}

// The input's NodePool `i` has limits in this solve.
bool pool_limited(const SolveInput& input, std::size_t i)
{
  const bool given = input.remaining_limits.size() == input.node_pools.size();
  return !(given ? input.remaining_limits[i] : limits_of(*input.node_pools[i].pool)).empty();
}

bool any_pool_limited(const SolveInput& input)
{
  for (std::size_t i = 0; i < input.node_pools.size(); ++i) {
    if (pool_limited(input, i)) {
      return true;
    }
  }
  return false;
}

// The template's pool has limits in this solve.
bool limited(const SolveInput& input, const Template& t)
{
  return pool_limited(input, t.input);
}

// NewQueue's order: CPU desc, memory desc, creation asc, then name and index.
bool queued_before(const model::Resources& ra, const model::Pod& a, cluster::PodIndex ia, const model::Resources& rb,
                   const model::Pod& b, cluster::PodIndex ib)
{
  if (ra.cpu() != rb.cpu()) {
    return ra.cpu() > rb.cpu();
  }
  if (ra.memory() != rb.memory()) {
    return ra.memory() > rb.memory();
  }
  if (a.arrival != b.arrival) {
    return a.arrival < b.arrival;
  }
  if (a.name != b.name) {
    return a.name < b.name;
  }
  return ia < ib;
}

bool has_pod_topology(const model::PodSpec& s)
{
  return !s.topology_spread.empty() || !s.pod_affinity_required.empty() || !s.pod_affinity_preferred.empty()
         || !s.pod_anti_affinity_required.empty() || !s.pod_anti_affinity_preferred.empty();
}

struct SolveCache::Impl
{
  Interner in;
  OfferingSpace space;
  // Which DaemonSets each instance type of a pool takes, as a signature id per type (types
  // with the same compatible set share an id); valid for one (NodePool, DaemonSets) pair.
  struct DaemonSignatures
  {
    const model::NodePool* pool = nullptr;
    std::vector<const model::PodSpec*> daemons;
    std::vector<std::int32_t> of_type;     // by type index
    std::vector<std::vector<bool>> keys;   // by signature id: compatible per DaemonSet
  };
  struct Pool
  {
    std::unique_ptr<PoolTypes> types;
    std::shared_ptr<const std::vector<const catalog::InstanceType*>> list; // input types() last seen
    DaemonSignatures daemon_signatures;
  };
  std::vector<Pool> pools; // by NodePoolInput position
  struct Spec
  {
    std::unique_ptr<SpecData> data;
    std::unique_ptr<SpecGroups> groups; // for `data`, made on first use
  };
  std::unordered_map<const model::PodSpec*, Spec> specs;
  struct Node
  {
    std::string name;
    ReqSet labels;
    std::optional<ReqSet> with_host; // labels with hostname In [hostname], when labels lack it
    ValueId hostname = 0;

    // The labels with hostname In [hostname]: the labels themselves when they name it already
    // (a launched node's do).
    [[nodiscard]] const ReqSet& labels_with_host() const { return with_host ? *with_host : labels; }
  };
  std::vector<std::unique_ptr<Node>> nodes; // by NodeIndex
  // What the caches below depend on in the NodePools, and a generation bumped when any of it
  // (or a pool's types) changes: a caller may edit a NodePool between solves.
  struct PoolShape
  {
    const model::NodePool* pool = nullptr;
    std::uint32_t index = 0;
    const PoolTypes* types = nullptr;
    std::uint64_t revision = 0;
    model::Requirements requirements;
    model::Labels template_labels;
    std::vector<model::Taint> taints;
    std::vector<model::Taint> startup_taints;
    Duration consolidate_after = 0;

    bool operator==(const PoolShape&) const = default;
  };
  std::vector<PoolShape> pool_shapes;
  std::uint64_t pools_generation = 0;

  void observe_pools(const std::vector<NodePoolInput>& inputs, const std::vector<PoolTypes*>& types)
  {
    bool same = pool_shapes.size() == inputs.size();
    for (std::size_t i = 0; same && i < inputs.size(); ++i) {
      const auto& a = pool_shapes[i];
      const auto& p = *inputs[i].pool;
      same = a.pool == &p && a.index == inputs[i].index && a.types == types[i] && a.revision == inputs[i].revision;
      if (same && inputs[i].revision == 0) {
        same = a.requirements == p.requirements && a.template_labels == p.template_labels && a.taints == p.taints
               && a.startup_taints == p.startup_taints && a.consolidate_after == p.consolidate_after;
      }
    }
    if (same) {
      return;
    }
    pool_shapes.clear();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto& p = *inputs[i].pool;
      pool_shapes.push_back({&p, inputs[i].index, types[i], inputs[i].revision, p.requirements, p.template_labels, p.taints,
                             p.startup_taints, p.consolidate_after});
    }
    ++pools_generation;
  }

  // buildDomainGroups per topology key, for one pools_generation.
  struct DomainGroups
  {
    std::uint64_t generation = 0;
    std::unordered_map<KeyId, std::vector<DomainEntry>> by_key;
  };
  DomainGroups domain_groups;
  ExistingSnapshot existing;
  std::uint64_t snapshot_builds = 0; // rebuilds and refreshes of `existing`
  std::uint64_t schedulers_made = 0;  // Scheduler objects (QuickPass::Standing)
  // build_snapshot's buffers, kept between rebuilds (a rebuild per node change allocated lists
  // of every node anew: large blocks that glibc keeps, so a big cluster's RSS grew with them).
  std::vector<ExistingNode> spare_nodes;
  std::vector<ExistingNode> fresh_nodes;
  std::vector<std::uint32_t> fresh_order; // build_snapshot's: fresh_nodes by sorted_before
  // refresh_snapshot's: by node index, the call that last redid its entry (a node bound to and
  // unbound from several times since is redone once).
  std::vector<std::uint64_t> refreshed_by;
  std::uint64_t refreshes = 0;
  // update_snapshot_incrementally's lists: entries redone in place, positions leaving, entries
  // joining (or moving)
  std::vector<std::pair<std::uint32_t, ExistingNode>> changed_entries;
  std::vector<std::uint32_t> gone_positions;
  // The NodePool templates (prepare_templates) for one pools_generation, availability of each
  // pool's types, DaemonSet list and minValues policy; solves use them in place.
  struct Templates
  {
    bool valid = false;
    std::uint64_t generation = 0; // bumped on every rebuild
    std::uint64_t pools_generation = 0;
    std::vector<std::uint64_t> availability;
    std::vector<const model::PodSpec*> daemons;
    bool min_values_best_effort = false;
    std::vector<Template> list;
  };
  Templates templates;
  // SolveOptions::stop_on_delete_veto, per single candidate node: the last solve that stopped on
  // one of the candidate's pods, and what that answer depended on besides the free room
  // (Scheduler::veto_still_holds).
  struct Veto
  {
    enum class Kind
    {
      no_room,   // the pod fit no other Ready node before anything was placed
      not_ready, // the pod, first in the queue, went to a node that is not Ready
    };
    bool valid = false;
    Kind kind = Kind::no_room;
    std::vector<cluster::PodIndex> pods; // the candidate's pods in SolveInput::pods, sorted
    PodsSummary summary;                 // of those pods (of any subset, at most this)
    cluster::PodIndex pod = 0;           // the candidate's pod the stop rested on
    std::uint64_t pods_revision = 0;     // the candidate's NodeState::pods_revision then (all of `pods` bound)
    model::Resources requests;           // its scheduler requests
    // no_room: the distinct requests of `pods` (at most k_max_shapes) and each pod's entry in
    // them (k_no_shape for pods left out): any of the pods still bound there with no room for
    // its requests is as good a witness.
    static constexpr std::uint8_t k_max_shapes = 64;
    static constexpr std::uint8_t k_no_shape = 0xff;
    std::vector<model::Resources> shapes;
    std::vector<std::uint8_t> shape_of; // by position in `pods`
    bool ignore_preferences = false;
    bool moving_view = false;
    bool tolerate_pns = false;
    // no_room: the templates, and every_claim_keeps_spot holds for pods requesting at most this
    // much in total with these resources in use (bit per resource): spot_room_bound.
    std::uint64_t templates = 0; // Templates::generation
    model::Resources keeps_spot_for;
    std::uint32_t keeps_spot_dims = 0;
    // not_ready: the candidate's pods placed before `pod`, in queue order (positions in `pods`),
    // each as written on the first existing node with room, none failing before; then the node
    // `pod` went to and its Cluster::node_stamp then (its labels, taints and lifecycle), and the
    // NodePools' generation (the node's effective taints drop its pool's startup taints).
    std::vector<std::uint32_t> prefix;
    cluster::NodeIndex node = 0;
    std::uint64_t node_stamp = 0;
    std::uint64_t pools = 0;
  };
  std::vector<Veto> vetoes; // by NodeIndex of the candidate
  // SolveOptions::stop_on_delete_veto, for solves of several candidates (Scheduler::first_pod_stop):
  // per node, the first of its pods in queue order, for one pod list (NodeState::pods_revision)
  // and the options that pick their SpecData. A multi-node pass probes prefix after prefix of
  // its candidates, poll after poll, over mostly the same nodes and pods.
  struct FirstOfNode
  {
    std::uint64_t cluster = 0; // Cluster::instance_id; 0: not worked out
    std::uint64_t pods_revision = 0;
    cluster::PodIndex pod = cluster::k_none; // k_none: no pod the solve keeps
    bool ignore_preferences = false;
    bool tolerate_pns = false;
    bool plain = false; // none of the pods has pod topology or host ports
  };
  std::vector<FirstOfNode> first_of_node; // by NodeIndex
  std::vector<cluster::NodeIndex> sorted_candidates; // first_pod_stop's
  // rebase_no_room's new lists, swapped with an entry's: the entry's old buffers serve the next.
  std::vector<cluster::PodIndex> rebase_pods;
  std::vector<std::uint8_t> rebase_shapes;
  // remembered_stop_holds' pods that joined a candidate and that a solve keeps (summarised once:
  // rebase_no_room reads them), sorted.
  std::vector<cluster::PodIndex> joined_valid;
  std::size_t veto_hits = 0;
  std::size_t first_pod_stop_hits = 0;
  std::size_t held_again = 0; // of veto_hits: answered by remembered_stop_holds_again
  // The remembered stops as remembered_stop_holds reads them before a solve is set up: a pass
  // checks thousands of candidates, and a Veto spans ~9 cache lines over three allocations.
  // Kept equal to the node's Veto entry by sync_quick_stop after every change: what every check
  // reads in one cache line, the rest apart.
  struct alignas(64) QuickStop
  {
    enum class Kind : std::uint8_t
    {
      none,      // no entry, or one these checks do not answer (a not_ready prefix)
      no_room,
      not_ready, // with no prefix
    };
    Kind kind = Kind::none;
    bool ignore_preferences = false;
    bool moving_view = false;
    bool tolerate_pns = false;
    bool summary_plain = false;  // PodsSummary::plain_for the kind
    bool zone_only = false;      // the summary's
    bool basic_requests = false; // the stop pod requests CPU, memory and pods only
    std::uint32_t pod_count = 0; // of Veto::pods
    cluster::NodeIndex node = 0; // not_ready: the node the stop pod went to
    std::uint64_t pods_revision = 0;
    // The stop pod's CPU and memory requests (its pods request is 1, as every pod's) and its
    // place in the queue.
    std::int64_t cpu = 0;
    std::int64_t memory = 0;
    SimTime arrival = 0;
    std::uint64_t node_stamp = 0; // not_ready
    std::uint64_t pools = 0;      // not_ready

    [[nodiscard]] FreeCapacityIndex::Dims want() const { return {cpu, memory, 1}; }
    bool operator==(const QuickStop&) const = default;
  };
  static_assert(sizeof(QuickStop) == 64);
  struct alignas(64) QuickStopRest // (its first line holds all but the slack)
  {
    const model::PodSpec* spec = nullptr; // the stop pod's
    cluster::PodIndex pod = 0;            // the stop pod
    std::uint32_t summary_dims = 0;
    std::uint32_t keeps_spot_dims = 0; // no_room
    std::uint64_t templates = 0;       // no_room
    // Where the record's lists lie (SolveCache::prefetch_changed_stop loads them ahead).
    const cluster::PodIndex* listed_pods = nullptr;
    const std::uint8_t* shape_of = nullptr;
    const model::Resources* shapes = nullptr;
    std::uint32_t shape_count = 0;
    // no_room: keeps_spot_for minus the summary's requests, the room left for the other pods.
    model::Resources slack;

    bool operator==(const QuickStopRest&) const = default;
  };
  static_assert(sizeof(QuickStopRest) == 192 && offsetof(QuickStopRest, slack) == 64);
  std::vector<QuickStop> quick_stops; // by NodeIndex, as vetoes
  std::vector<QuickStopRest> quick_stops_rest;
  // every_claim_keeps_spot worked out from the templates alone, for no_room_holds when the pods
  // ask more than a remembered bound (QuickStopRest::slack): per template and zone that
  // keeps_spot looks at, the room (allocatable less the DaemonSet group's overhead) of each spot
  // option there, leaving out a room no larger in every resource in use than another's. A bound
  // is one option's room (spot_room_bound's: the first with the most CPU): when the pending pods
  // swell past its memory, an option with as much CPU and more memory still keeps spot. Made for
  // one Templates::generation and set of resources.
  struct SpotRooms
  {
    std::uint64_t templates = 0;
    std::uint32_t dims = 0; // 0: not made
    bool possible = false;  // every template may keep spot, and has a spot option in every such zone
    std::vector<model::Resources> rooms; // of each (template, zone) in turn
    std::vector<std::uint32_t> ends;     // where each one's rooms end in `rooms`
  };
  SpotRooms spot_rooms;

  void sync_quick_stop(const cluster::Cluster& cluster, cluster::NodeIndex node)
  {
    if (node >= vetoes.size()) {
      return;
    }
    if (quick_stops.size() < vetoes.size()) {
      quick_stops.resize(vetoes.size());
      quick_stops_rest.resize(vetoes.size());
    }
    quick_stop(cluster, vetoes[node], quick_stops[node], quick_stops_rest[node]);
  }

  static void quick_stop(const cluster::Cluster& cluster, const Veto& v, QuickStop& q, QuickStopRest& rest)
  {
    q = {};
    rest = {};
    if (!v.valid || (v.kind == Veto::Kind::not_ready && !v.prefix.empty()) || v.requests[model::k_pods] != 1) {
      return;
    }
    q.kind = v.kind == Veto::Kind::no_room ? QuickStop::Kind::no_room : QuickStop::Kind::not_ready;
    q.ignore_preferences = v.ignore_preferences;
    q.moving_view = v.moving_view;
    q.tolerate_pns = v.tolerate_pns;
    q.summary_plain = v.summary.plain_for(v.kind == Veto::Kind::no_room);
    q.zone_only = v.summary.zone_only;
    q.basic_requests = true;
    for (std::size_t d = 0; d < model::k_max_resources; ++d) {
      if (d != model::k_cpu && d != model::k_memory && d != model::k_pods && v.requests.v[d] != 0) {
        q.basic_requests = false;
      }
    }
    q.pod_count = static_cast<std::uint32_t>(v.pods.size());
    q.node = v.node;
    q.pods_revision = v.pods_revision;
    q.cpu = v.requests.cpu();
    q.memory = v.requests.memory();
    q.arrival = cluster.pod(v.pod).pod().arrival;
    q.node_stamp = v.node_stamp;
    q.pools = v.pools;
    rest.spec = cluster.pod(v.pod).pod().spec.get();
    rest.pod = v.pod;
    rest.summary_dims = v.summary.dims;
    rest.keeps_spot_dims = v.keeps_spot_dims;
    rest.templates = v.templates;
    rest.listed_pods = v.pods.data();
    rest.shape_of = v.shape_of.data();
    rest.shapes = v.shapes.data();
    rest.shape_count = static_cast<std::uint32_t>(v.shapes.size());
    rest.slack = v.keeps_spot_for - v.summary.requests;
  }

  // What remembered_stop_holds reads of the pods every solve of a pass lists besides the
  // candidate's: the pending pods, then those of deleting nodes. Worked out once per cluster
  // state, clock value and options.
  struct QuickPass
  {
    bool valid = false;
    std::uint64_t cluster = 0;
    std::uint64_t epoch = 0;
    std::size_t bindings = 0;
    std::uint64_t pending_revision = 0;
    SimTime now = 0;
    bool ignore_preferences = false;
    bool tolerate_pns = false;
    // Which list of pods follows the candidate's (its address and length, compared only: a
    // caller lists them anew for each cluster state).
    const cluster::PodIndex* after_data = nullptr;
    std::size_t after_size = 0;
    PodsSummary others;
    std::uint32_t dims = 0; // resources prepare_pods would use besides the candidate's pods'
    // Them in queue order (valid pods only): a not_ready check places the ones queued before
    // the stop pod first (replay_not_ready); here they are replayed once for every candidate.
    struct Queued
    {
      cluster::PodIndex pod = 0;
      std::int64_t cpu = 0;
      std::int64_t memory = 0;
      SimTime arrival = 0;
      bool moved = false; // bound to a node that is not going away
    };
    std::vector<Queued> queue;
    // The replay of `queue` over the snapshot with no node excluded, made on first need: each
    // placed pod's position and that node's room after it, until a pod is not placed as written
    // on the first node with room, or is a moved one (then it ends short of the queue).
    bool replayed = false;
    std::uint64_t snapshot = 0; // SolveCache::Impl::snapshot_builds the replay and `written` are for
    struct Step
    {
      std::uint32_t pos = 0;
      model::Resources remaining;
    };
    std::vector<Step> steps;
    struct Touched // each position the replay placed pods on, and the first step that did
    {
      std::uint32_t pos = 0;
      cluster::NodeIndex node = 0;
      std::uint32_t first = 0;
    };
    std::vector<Touched> touched;
    std::vector<PoolTypes*> pool_types; // prepare_pools' answer for the current call
    PodsSummary joined; // remembered_stop_holds' summary of the pods that joined a candidate
    // prepare_pools' last run for the pass: the pools it was given, the pools generation after
    // it and its answer (pools_prepared).
    const NodePoolInput* prepared_pools = nullptr;
    std::uint64_t prepared_generation = 0;
    bool prepared_tolerate_pns = false;
    // Scheduler::written_for by (pod spec, snapshot position), as asked in this pass: a stop pod
    // whose first node that is not Ready changed is checked on the new one as written. (A kubectl
    // dump has a spec per pod: as many entries as candidates. Looked up only, never iterated.)
    struct Written
    {
      const model::PodSpec* spec = nullptr;
      std::uint32_t pos = 0;
      bool operator==(const Written&) const = default;
    };
    struct WrittenHash
    {
      std::size_t operator()(const Written& w) const
      {
        return std::hash<const model::PodSpec*>{}(w.spec) ^ (std::size_t{w.pos} * 0x9e3779b97f4a7c15ULL);
      }
    };
    std::unordered_map<Written, bool, WrittenHash> written;
    // What the checks read that no candidate changes, as remembered_stop_holds last worked it out:
    // the pools prepared, then whether the snapshot is current and whether the templates are (and
    // none is limited). A pass asks for thousands of candidates with the same answers; they stand
    // for the same input while this pass stands and no Scheduler was made since (solves and
    // replays are what rebuild pools, snapshot and templates).
    struct Standing
    {
      bool valid = false;
      std::uint64_t hold = 0; // remembered_stop_holds' `hold` when worked out (0: none)
      const SolveInput* input = nullptr;
      const NodePoolInput* pools = nullptr;
      const Limits* limits = nullptr; // SolveInput::remaining_limits
      std::size_t limits_size = 0;
      std::uint64_t availability_version = 0;
      bool min_values_best_effort = false;
      std::uint64_t schedulers = 0;
      std::uint64_t pools_generation = 0;
      std::uint64_t snapshot_builds = 0;
      std::uint64_t templates_generation = 0;
      bool tolerate_pns = false;
      bool snapshot_current = false;
      bool templates_current = false; // and no template limited
    };
    Standing standing;
    // The hold whose last full check got past everything no candidate changes (its Standing, the
    // others' summary, the snapshot's quiet time) for a no_room stop: the hold's later candidates
    // are checked from there while that stands (holds_again). 0: none.
    std::uint64_t primed = 0;

    [[nodiscard]] bool matches(const cluster::Cluster& c, const SolveInput& input, bool tolerate,
                               std::span<const cluster::PodIndex> following) const
    {
      return valid && cluster == c.instance_id() && epoch == c.node_epoch() && bindings == c.binding_log().size()
             && pending_revision == c.pending_revision() && now == input.options.now
             && ignore_preferences == input.options.ignore_preferences && tolerate_pns == tolerate && after_data == following.data()
             && after_size == following.size();
    }
  };
  QuickPass quick_pass;
  // The cluster's pending pods as veto_still_holds reads them (every candidate's solve of a
  // poll lists them first): their summary and the scheduled ones in queue order, for one
  // pending list of one cluster and the options that pick their SpecData.
  struct PendingQueue
  {
    bool valid = false;
    std::uint64_t cluster = 0;
    bool ignore_preferences = false;
    bool tolerate_pns = false;
    std::uint64_t pending_revision = 0; // Cluster::pending_revision() when made
    PodsSummary summary;
    std::vector<cluster::PodIndex> queue; // scheduled pending pods in NewQueue order
  };
  PendingQueue pending_queue;

  PoolTypes& pool_types(std::size_t i, const NodePoolInput& input)
  {
    if (pools.size() <= i) {
      pools.resize(i + 1);
    }
    auto& p = pools[i];
    if (p.types && p.list == input.instance_types) {
      return *p.types; // the list it was built from (held, so the address is not reused)
    }
    const auto& types = input.types();
    if (!p.types || p.types->source != types) {
      p.types = std::make_unique<PoolTypes>(types, in, space);
      p.daemon_signatures = {};
      pool_shapes.clear(); // a new PoolTypes may reuse the old one's address
    }
    p.list = input.instance_types;
    return *p.types;
  }

  SpecData& spec_data(const model::PodSpecPtr& spec, bool ignore_preferences, bool tolerate_pns)
  {
    auto& s = specs[spec.get()];
    if (!s.data || s.data->ignore_preferences != ignore_preferences || s.data->tolerate_pns_enabled != tolerate_pns) {
      s.data = std::make_unique<SpecData>(make_spec_data(spec, ignore_preferences, tolerate_pns, in));
      s.groups.reset();
    }
    return *s.data;
  }

  const Node& node(cluster::NodeIndex i, const cluster::NodeState& n)
  {
    if (nodes.size() <= i) {
      nodes.resize(i + 1);
    }
    auto& e = nodes[i];
    if (!e || e->name != n.name) {
      e = std::make_unique<Node>();
      e->name = n.name;
      e->labels = labels_to_req_set(n.labels, in);
      auto it = n.labels.find(std::string(model::labels::k_hostname));
      e->hostname = in.value(it != n.labels.end() ? it->second : n.name);
      const Req host = make_in(in.k_hostname, e->hostname);
      if (const Req* named = e->labels.find(in.k_hostname); named == nullptr || *named != host) {
        e->with_host = e->labels;
        e->with_host->set(host);
      }
    }
    return *e;
  }

  // Drops the entries of terminated nodes (a week launches tens of thousands of nodes; only the
  // live ones are ever asked for again). Amortised: looks once per 256 new node indices.
  void forget_terminated(const cluster::Cluster& cluster)
  {
    if (nodes.size() < nodes_pruned_at + 256) {
      return;
    }
    nodes_pruned_at = nodes.size();
    for (std::size_t i = 0; i < nodes.size() && i < cluster.nodes().size(); ++i) {
      if (nodes[i] && cluster.node(static_cast<cluster::NodeIndex>(i)).lifecycle == cluster::NodeLifecycle::terminated) {
        nodes[i].reset();
      }
    }
    for (std::size_t i = 0; i < vetoes.size() && i < cluster.nodes().size(); ++i) {
      if (vetoes[i].valid && cluster.node(static_cast<cluster::NodeIndex>(i)).lifecycle == cluster::NodeLifecycle::terminated) {
        vetoes[i] = {};
        sync_quick_stop(cluster, static_cast<cluster::NodeIndex>(i));
      }
    }
  }
  std::size_t nodes_pruned_at = 0;

  // The DaemonSets as solves read them, made for the last list asked for (a solve asks on every
  // run; building the requirements again interned every label each time). The specs are held.
  [[nodiscard]] std::shared_ptr<const std::vector<Daemon>> prepared_daemons(const std::vector<model::PodSpecPtr>& daemon_sets);
  std::vector<model::PodSpecPtr> prepared_daemon_specs;
  std::shared_ptr<const std::vector<Daemon>> prepared_daemon_list;

  // Scheduler::prepare_pools for `input`: each pool's types with their current availability
  // (into `out`), the pools observed; whether a pool has a PreferNoSchedule taint.
  bool prepare_pools(const SolveInput& input, std::vector<PoolTypes*>& out);
  // prepare_pools(input, quick_pass.pool_types) would change nothing and answer as it did last
  // time: the same pools, each a promise of no change, built from the same type lists, with
  // availability for the same version (a pass checks thousands of candidates against them).
  [[nodiscard]] bool pools_prepared(const SolveInput& input) const;
  // `existing` holds this cluster state for these DaemonSets (and host-port tracking).
  [[nodiscard]] bool snapshot_current(const cluster::Cluster& cluster, const std::vector<model::PodSpecPtr>& daemons,
                                      bool host_ports) const;
  // `templates` hold these pools' types (as prepare_pools left them), DaemonSets and policy.
  [[nodiscard]] bool templates_current(bool min_values_best_effort, const std::vector<model::PodSpecPtr>& daemons,
                                       const std::vector<PoolTypes*>& types) const;
};

bool SolveCache::Impl::prepare_pools(const SolveInput& input, std::vector<PoolTypes*>& out)
{
  bool tolerate_pns = false;
  const auto& inputs = input.node_pools;
  out.resize(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto& pt = pool_types(i, inputs[i]);
    const auto& pred = input.offering_available;
    if (pred) {
      pt.refresh_availability(input.availability_version, pred);
    } else {
      pt.refresh_availability(1, [](const catalog::InstanceType&, const catalog::Offering&) { return true; });
    }
    out[i] = &pt;
    for (const auto& t : inputs[i].pool->taints) {
      if (t.effect == model::TaintEffect::prefer_no_schedule) {
        tolerate_pns = true;
      }
    }
  }
  observe_pools(inputs, out);
  return tolerate_pns;
}

bool SolveCache::Impl::pools_prepared(const SolveInput& input) const
{
  const auto& pass = quick_pass;
  const auto& inputs = input.node_pools;
  if (pass.prepared_pools != inputs.data() || pass.prepared_generation != pools_generation
      || pass.pool_types.size() != inputs.size() || pools.size() < inputs.size()) {
    return false;
  }
  const std::uint64_t version = input.offering_available ? input.availability_version : 1;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& p = pools[i];
    if (inputs[i].revision == 0 || p.types.get() != pass.pool_types[i] || p.list != inputs[i].instance_types
        || !p.types->availability_current(version)) {
      return false;
    }
  }
  return true;
}

bool SolveCache::Impl::snapshot_current(const cluster::Cluster& cluster, const std::vector<model::PodSpecPtr>& daemons,
                                        bool host_ports) const
{
  const auto& snap = existing;
  return snap.valid && snap.cluster == cluster.instance_id() && snap.epoch == cluster.node_epoch()
         && snap.bindings == cluster.binding_log().size() && snap.host_ports == host_ports
         && snap.pools_generation == pools_generation && same_daemons(snap.daemons, daemons);
}

bool SolveCache::Impl::templates_current(bool min_values_best_effort, const std::vector<model::PodSpecPtr>& daemons,
                                         const std::vector<PoolTypes*>& types) const
{
  const auto& cached = templates;
  if (!cached.valid || cached.pools_generation != pools_generation
      || cached.min_values_best_effort != min_values_best_effort || !same_daemons(cached.daemons, daemons)
      || cached.availability.size() != types.size()) {
    return false;
  }
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (cached.availability[i] != types[i]->availability_generation()) {
      return false;
    }
  }
  return true;
}

SolveCache::SolveCache() : m_impl(std::make_unique<Impl>()) {}

SolveCache::~SolveCache() = default;

void SolveCache::clear()
{
  m_impl = std::make_unique<Impl>();
}

std::size_t SolveCache::veto_memo_hits() const
{
  return m_impl->veto_hits;
}

std::size_t SolveCache::stops_held_again() const
{
  return m_impl->held_again;
}

std::size_t SolveCache::first_pod_stop_hits() const
{
  return m_impl->first_pod_stop_hits;
}

void SolveCache::prefetch_remembered_stop(cluster::NodeIndex node) const
{
  if (node < m_impl->quick_stops.size()) {
    __builtin_prefetch(&m_impl->quick_stops[node]);
    // no_room_holds reads the rest on most hits: its start and the slack, lines apart.
    const auto& rest = m_impl->quick_stops_rest[node];
    __builtin_prefetch(&rest);
    __builtin_prefetch(&rest.slack.v[model::k_pods]);
  }
}

bool SolveCache::prefetch_changed_stop(cluster::NodeIndex node, std::uint64_t pods_revision) const
{
  const auto& stops = m_impl->quick_stops;
  if (node >= stops.size() || stops[node].kind != Impl::QuickStop::Kind::no_room
      || stops[node].pods_revision == pods_revision) {
    return false;
  }
  // (The pods' first lines, and the first shapes: each takes a line of its own.)
  const auto& rest = m_impl->quick_stops_rest[node];
  const char* pods = reinterpret_cast<const char*>(rest.listed_pods);
  __builtin_prefetch(pods);
  __builtin_prefetch(pods + 64);
  __builtin_prefetch(rest.shape_of);
  const std::size_t shapes = std::min<std::size_t>(rest.shape_count, 4);
  for (std::size_t k = 0; k < shapes; ++k) {
    __builtin_prefetch(rest.shapes + k);
  }
  return true;
}

const std::vector<const catalog::InstanceType*>& NodePoolInput::types() const
{
  static const std::vector<const catalog::InstanceType*> k_none;
  return instance_types ? *instance_types : k_none;
}

std::shared_ptr<const std::vector<const catalog::InstanceType*>>
make_type_list(std::vector<const catalog::InstanceType*> types)
{
  return std::make_shared<const std::vector<const catalog::InstanceType*>>(std::move(types));
}

model::Resources pod_requests(const model::Pod& pod)
{
  model::Resources r = pod.requests;
  r[model::k_pods] = 1;
  return r;
}

Limits limits_of(const model::NodePool& pool)
{
  Limits l;
  if (pool.limits) {
    for (std::size_t i = 0; i < model::k_max_resources; ++i) {
      if (pool.limits->v[i] != std::numeric_limits<std::int64_t>::max()) {
        l.listed |= std::uint32_t{1} << i;
        l.max.v[i] = pool.limits->v[i];
      }
    }
  }
  l.nodes = pool.limit_nodes;
  l.usd_per_hour = pool.limit_usd_per_hour;
  return l;
}

namespace {

constexpr std::string_view k_registered = "karpenter.sh/registered";
constexpr std::string_view k_initialized = "karpenter.sh/initialized";

model::Resources spec_requests(const model::PodSpec& spec)
{
  model::Resources r = spec.requests;
  r[model::k_pods] = 1;
  return r;
}

} // namespace

std::shared_ptr<const std::vector<Daemon>> SolveCache::Impl::prepared_daemons(const std::vector<model::PodSpecPtr>& daemon_sets)
{
  if (prepared_daemon_list && prepared_daemon_specs == daemon_sets) { // (shared_ptr ==: the same specs)
    return prepared_daemon_list;
  }
  auto list = std::make_shared<std::vector<Daemon>>();
  for (const auto& ds : daemon_sets) {
    Daemon d;
    d.spec = ds.get();
    d.requests = spec_requests(*ds);
    ReqSet ns;
    for (const auto& [k, v] : ds->node_selector) {
      ns.add(make_in(in.key(normalized_label(k)), in.value(v)), in);
    }
    if (ds->required_node_affinity.empty()) {
      d.strict.push_back(ns);
    } else {
      for (const auto& term : ds->required_node_affinity) {
        ReqSet s = ns;
        for (const auto& r : term.requirements) {
          s.add(to_req(r, in), in);
        }
        d.strict.push_back(std::move(s));
      }
    }
    list->push_back(std::move(d));
  }
  prepared_daemon_specs = daemon_sets;
  prepared_daemon_list = std::move(list);
  return prepared_daemon_list;
}

namespace {

std::string taint_string(const model::Taint& t)
{
  return t.value.empty() ? fmt::format("{}:{}", t.key, model::to_string(t.effect))
                         : fmt::format("{}={}:{}", t.key, t.value, model::to_string(t.effect));
}

std::string toleration_error(const model::PodSpec& spec, bool tolerate_pns, const std::vector<model::Taint>& taints)
{
  for (const auto& t : taints) {
    if (!model::tolerates_all(spec.tolerations, {t}, tolerate_pns)) {
      return fmt::format("did not tolerate taint ({})", taint_string(t));
    }
  }
  return {};
}

bool is_ephemeral_taint(const model::Taint& t)
{
  return (t.key == "node.kubernetes.io/not-ready" && t.effect == model::TaintEffect::no_schedule)
         || (t.key == "node.kubernetes.io/not-ready" && t.effect == model::TaintEffect::no_execute)
         || (t.key == "node.kubernetes.io/unreachable" && t.effect == model::TaintEffect::no_schedule)
         || (t.key == "node.cloudprovider.kubernetes.io/uninitialized" && t.effect == model::TaintEffect::no_schedule)
         || (t.key == "karpenter.sh/unregistered" && t.effect == model::TaintEffect::no_execute);
}

// resources.String: "{"cpu":"1","memory":"1Gi","pods":"1"}"-like, sorted by name.
std::string resources_string(const model::Resources& r)
{
  return model::to_string(r);
}

// Everything one attempt to add a pod to a node or NodeClaim computes; applied on success.
struct AddPlan
{
  std::vector<Req> delta; // new requirement per changed key, sorted by key
  TypeSet options;
  OfferingFilter filter;
  bool min_values_relaxed = false;
};

const Req* lookup(const ReqSet& base, const std::vector<Req>& delta, KeyId key)
{
  auto it = std::lower_bound(delta.begin(), delta.end(), key, [](const Req& r, KeyId k) { return r.key < k; });
  if (it != delta.end() && it->key == key) {
    return &*it;
  }
  return base.find(key);
}

void put(std::vector<Req>& delta, Req r)
{
  auto it = std::lower_bound(delta.begin(), delta.end(), r.key, [](const Req& a, KeyId k) { return a.key < k; });
  if (it != delta.end() && it->key == r.key) {
    *it = std::move(r);
  } else {
    delta.insert(it, std::move(r));
  }
}

void apply_delta(ReqSet& base, const std::vector<Req>& delta)
{
  for (const auto& r : delta) {
    base.set(r);
  }
}

// ---------------------------------------------------------------------------------------------

struct Claim
{
  std::uint32_t tmpl = 0;
  std::uint32_t id = 0;
  ReqSet reqs;
  TypeSet options;
  OfferingFilter filter;
  model::Resources requests;
  model::Resources max_alloc;
  std::vector<cluster::PodIndex> pods;
  std::vector<std::vector<std::int32_t>> group_ports; // per DS group
  bool min_values_relaxed = false;
  std::vector<std::int32_t> reserved; // capacity reservations held (OfferingSpace index, sorted)
};

// Per-solve topology facts about a pod spec.
struct SpecTopo
{
  std::vector<std::int32_t> spread_group; // per spec->topology_spread index, -1 when ignored
  std::vector<std::uint32_t> affinity_required;
  std::vector<std::uint32_t> affinity_preferred; // removal order (heaviest first)
  std::vector<std::uint32_t> anti_required;
  std::vector<std::uint32_t> anti_preferred;
  std::vector<std::uint32_t> inverse_owned;
  std::vector<std::uint32_t> selecting;         // regular groups selecting the spec (sorted)
  std::vector<std::uint32_t> inverse_selecting; // inverse groups selecting the spec
  bool any = false;
};

struct QueuedPod
{
  cluster::PodIndex index = 0;
  const cluster::PodState* state = nullptr;
  SpecData* data = nullptr;
  SpecTopo* topo = nullptr;
  model::Resources requests;
  bool pending = true;
  bool from_deleting = false;
  // No existing node before this position has room for the pod (placements only take room
  // away during a solve, so the first fit found so far bounds every later search).
  std::size_t fit_from = 0;
};

// A pod placed again by replay_not_ready: its requests and whether it is moved (bound, not on a
// deleting node: the candidate's).
struct ReplayPod
{
  cluster::PodIndex pod = 0;
  model::Resources requests;
  bool moved = false;
};

struct Undo
{
  std::uint32_t pos = 0;
  model::Resources remaining;
  std::size_t host_ports = 0;
};

// Per request shape and view, a position before which no existing node has the room (kept
// direct-mapped by a hash of the shape; a slot holds the last shape that went to it). Placements
// only take room away during a solve, so the first fit found for one pod bounds the search for
// the next pod of the same shape: the pods come largest first, a shape's pods together.
struct FitFloor
{
  FreeCapacityIndex::Dims want{};
  bool moving = false;
  std::uint64_t solve = 0; // SolveScratch::fit_floor_solve when set
  std::size_t pos = 0;
};
constexpr std::size_t k_fit_floors = 16;

// A solve's working containers, kept between the solves of a thread so that their memory is
// reused (consolidation runs millions of small solves). Everything is reset before use.
struct SolveScratch
{
  bool in_use = false;
  std::vector<QueuedPod> pods;
  std::vector<cluster::PodIndex> batch;
  std::vector<TemplateLimits> limits;
  std::vector<std::uint32_t> excluded;
  std::vector<Undo> undo;
  std::vector<Claim> claims; // the first `claim_count` are this solve's; the rest keep buffers
  std::vector<std::uint32_t> claim_order;
  std::vector<std::uint32_t> queue;
  std::vector<std::size_t> last_len;
  std::vector<std::string> errors;
  std::vector<char> failed;
  std::vector<std::uint32_t> remembered; // veto_still_holds: positions in Veto::pods still in the solve
  std::vector<char> present;             // veto_still_holds: by position in Veto::pods, in the solve
  std::vector<Undo> replay;              // veto_still_holds: the prefix's placements, undone after
  std::vector<cluster::PodIndex> before; // veto_still_holds: other pods queued before the stop pod
  std::vector<cluster::PodIndex> rebased; // rebase_veto: the candidate's pods of the solve
  std::vector<ReplayPod> replay_queue;   // replay_not_ready
  std::vector<PoolTypes*> pool_types;
  std::vector<model::ResourceId> dims;
  std::vector<TypeSet> spot_room;
  std::vector<Placement> placements;
  std::vector<ValueId> batch_domains; // count_domains: the batch's running pods' domains
  ExistingSnapshot::SpecCounts asked_specs; // group_counts: the specs new to a group
  std::vector<cluster::NodeIndex> changed_nodes; // update_group_counts
  std::array<FitFloor, k_fit_floors> fit_floors{};
  std::uint64_t fit_floor_solve = 1; // bumped whenever the existing nodes' room is set anew
};

// The thread's scratch, or a new `fallback` when a solve on this thread is already using it
// (made only then: a solve that is answered at once would otherwise pay for its buffers).
SolveScratch& acquire_scratch(std::unique_ptr<SolveScratch>& fallback)
{
  thread_local SolveScratch scratch;
  if (scratch.in_use) {
    fallback = std::make_unique<SolveScratch>();
  }
  SolveScratch& s = scratch.in_use ? *fallback : scratch;
  s.in_use = true;
  s.pods.clear();
  s.batch.clear();
  s.excluded.clear();
  s.undo.clear();
  s.claim_order.clear();
  s.pool_types.clear();
  s.dims.clear();
  s.placements.clear();
  return s;
}

class Scheduler
{
public:
  Scheduler(const SolveInput& input, SolveCache::Impl& cache)
    : m_input(input), m_cluster(*input.cluster), m_cache(cache), m_in(cache.in), m_scratch(acquire_scratch(m_own_scratch)),
      m_pool_types(m_scratch.pool_types), m_dims(m_scratch.dims), m_pods(m_scratch.pods), m_batch(m_scratch.batch),
      m_templates(cache.templates.list), m_limits(m_scratch.limits), m_excluded(m_scratch.excluded),
      m_undo(m_scratch.undo), m_claims(m_scratch.claims), m_claim_order(m_scratch.claim_order),
      m_placements(m_scratch.placements), m_spot_room(m_scratch.spot_room)
  {
    ++cache.schedulers_made;
  }

  ~Scheduler()
  {
    restore_existing();
    m_scratch.in_use = false;
  }

  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  SolveResult run();

  // remembered_stop_holds' record of the pods every solve of a pass lists besides the
  // candidate's: the input's pods (the pending ones), then `after`. `pass.tolerate_pns` is set.
  void describe_others(std::span<const cluster::PodIndex> after, SolveCache::Impl::QuickPass& pass);
  // placed_as_written without the room: the checks that read the pod's spec and the node only.
  [[nodiscard]] bool written_for(cluster::PodIndex pod, const ExistingNode& e);
  void set_tolerate_pns(bool t) { m_tolerate_pns = t; }
  // The pass's replay (QuickPass::steps), over the snapshot as it is now.
  void replay_others(SolveCache::Impl::QuickPass& pass);

private:
  void prepare_pools();
  void prepare_pods();
  void prepare_templates();
  void build_templates(); // prepare_templates without the cache
  void set_spot_possible(Template& t) const;
  void prepare_existing();
  [[nodiscard]] bool same_daemons(const std::vector<const model::PodSpec*>& specs) const; // as SolveInput's
  [[nodiscard]] bool templates_current() const;
  [[nodiscard]] bool snapshot_current() const;
  [[nodiscard]] bool snapshot_inputs_same() const; // same cluster, pools and DaemonSets; no host ports
  [[nodiscard]] bool snapshot_refreshable() const;
  // `reuse`: take the entries of nodes unchanged since the last snapshot from it.
  void build_snapshot(bool reuse = true);
  [[nodiscard]] bool update_snapshot_incrementally();
  void add_pool_share(const ExistingNode& e, std::int64_t sign);
  [[nodiscard]] ExistingNode make_existing(cluster::NodeIndex i) const;
  // make_existing into a default-made entry (a list's new last one: no move of the whole entry).
  void fill_existing(ExistingNode& e, cluster::NodeIndex i) const;
  // Applies the bindings made since the snapshot; the kept topology counts are of the node
  // epoch `counts_epoch` (nodes changed since when it is not the cluster's).
  void refresh_snapshot(std::uint64_t counts_epoch);
  // The kept topology counts, made at binding_log()[bindings] and node epoch `epoch`, brought up
  // to now (or dropped when that would cost more than counting afresh).
  void update_group_counts(std::size_t bindings, std::uint64_t epoch);
  static void set_remaining(ExistingNode& e);
#ifndef NDEBUG
  void check_snapshot_against_fresh(const char* what);
#endif
  void restore_existing(); // undo this solve's changes to the shared existing-node list
  void prepare_limits();
  // Which topology groups the solve will have, without counting them: whether there are any
  // and whether all are over zones or hostnames (the early stop needs no more).
  void prepare_topology_shape();
  void list_running();       // ExistingSnapshot::running, once per cluster state
  void list_anti_affinity(); // ExistingSnapshot::anti_affinity, once per cluster state
  void prepare_topology();
  // SolveOptions::stop_on_delete_veto
  [[nodiscard]] bool narrowed_by_zone_only() const;
  void prepare_spot_room(const model::Resources& all); // `all`: the requests of every pod
  [[nodiscard]] bool keeps_spot(std::size_t tmpl, const TypeSet& options, const OfferingFilter& filter);
  [[nodiscard]] bool every_claim_keeps_spot();
  [[nodiscard]] model::Resources spot_room_bound(const model::Resources& all);
  [[nodiscard]] const QueuedPod* bound_pod_fitting_nowhere();
  // SolveResult::stop_pod for a stop on `p` before any pod was placed.
  [[nodiscard]] cluster::PodIndex stop_resting_on(const QueuedPod& p) const;
  [[nodiscard]] bool limited(const Template& t) const; // its pool has limits
  const Template::SpotPick& spot_pick(const Template& t, std::size_t zone, std::size_t group);
  // The first type of m_tmp (not empty) with the most allocatable CPU; m_tmp is changed.
  std::size_t first_with_most_cpu(PoolTypes& types);
  bool summarize(cluster::PodIndex pod, PodsSummary& out); // adds the pod if it is scheduled
  // The entry for p's stop (of the kind no_room or not_ready), common fields set.
  SolveCache::Impl::Veto* remember(const QueuedPod& p, bool no_room);
  void set_veto_pods(SolveCache::Impl::Veto& v);
  void rebase_veto(); // after the candidate's entry held
  void remember_no_room(const QueuedPod& p);
  void remember_not_ready(const QueuedPod& p, const PodVariant& v, const ExistingNode& e);
  [[nodiscard]] bool veto_still_holds();
  // A solve of several candidates stops on the first pod of its queue, one of theirs, going to a
  // node that is not Ready: that pod, or k_none when this check does not tell.
  [[nodiscard]] cluster::PodIndex first_pod_stop();
  [[nodiscard]] const SolveCache::Impl::FirstOfNode& first_of_node(cluster::NodeIndex n);
  // The input lists the cluster's pending pods first (as simulate_scheduling does).
  [[nodiscard]] bool pending_listed_first() const;
  void sync_quick_stop() // after a change of the candidate's Veto entry
  {
    if (m_input.excluded_nodes.size() == 1) {
      m_cache.sync_quick_stop(m_cluster, m_input.excluded_nodes.front());
    }
  }
  // SolveCache::Impl::PendingQueue for the cluster's pending pods now.
  const SolveCache::Impl::PendingQueue& pending_queue();
  // not_ready: the remembered prefix placed again (over the shared snapshot, undone by the
  // caller), then the stop's pod: whether some pod of it, or the stop's pod, goes to a node that
  // is not Ready as before. `fit`: the stop pod's node position when it holds.
  [[nodiscard]] bool replay_not_ready(SolveCache::Impl::Veto& v, std::size_t own, bool pods_unchanged,
                                      std::size_t& fit, bool& moved);
  // The bound pod `pod` as written goes to the existing node `e` if it has room there.
  [[nodiscard]] bool placed_as_written(cluster::PodIndex pod, const model::Resources& requests,
                                       const ExistingNode& e);
  // A remembered pod of the candidate, still in the solve and bound there, that fits no other node
  // (the index query of the pre-check), or nullopt.
  [[nodiscard]] std::optional<cluster::PodIndex> witness_fitting_nowhere(const SolveCache::Impl::Veto& v,
                                                                        std::size_t own);

  // DaemonSets
  [[nodiscard]] bool daemon_compatible_with_template(std::size_t ds, const Template& t, const TypeInfo& type) const;
  const SolveCache::Impl::DaemonSignatures& daemon_signatures(std::size_t pool_input, const Template& t);

  // Topology
  const std::vector<DomainEntry>& domain_group(KeyId key);
  std::uint32_t add_group(const GroupProto& proto, const model::PodSpec& owner, bool inverse);
  [[nodiscard]] SpecGroups make_spec_groups(const SpecData& data);
  const SpecGroups& spec_groups(const SpecData& data);
  TopologyGroup make_affinity_group(TopologyType type, const model::PodAffinityTerm& term, const model::PodSpec& owner);
  void count_domains(TopologyGroup& g, const std::string& id);
  const ExistingSnapshot::GroupCounts& group_counts(const TopologyGroup& g, const std::string& id);
  void count_running(const TopologyGroup& g, const std::string& id, ExistingSnapshot::GroupCounts& out);
  // Node i's share of g's counts (alive), without its pods.
  [[nodiscard]] ExistingSnapshot::GroupCounts::NodeShare node_share(const TopologyGroup& g, cluster::NodeIndex i);
  // The domain g counts a matching running pod of node `ni` in, or nullopt when none.
  [[nodiscard]] std::optional<ValueId> counted_domain(const TopologyGroup& g, cluster::NodeIndex ni);
  // The last answers of running_domain: a workload's pods share a spec, and the running pods
  // are listed node by node.
  struct DomainMemo
  {
    ExistingSnapshot::SpecCounts* known = nullptr; // ExistingSnapshot::counts_spec's
    const model::PodSpec* spec = nullptr;
    bool spec_counts = false;
    cluster::NodeIndex node = cluster::k_none;
    std::optional<ValueId> node_domain;
  };
  // The domain g counts running pod `pi` of node `ni` in, or nullopt when g does not count it.
  [[nodiscard]] std::optional<ValueId> running_domain(const TopologyGroup& g, cluster::PodIndex pi, cluster::NodeIndex ni,
                                                      DomainMemo& memo);
  [[nodiscard]] bool topology_requirements(const QueuedPod& p, const PodVariant& v, const std::vector<model::Taint>& taints,
                                           const ReqSet& base, bool allow_wk, AddPlan& plan, std::string* err) const;
  void record(const QueuedPod& p, const PodVariant& v, const std::vector<model::Taint>& taints, const ReqSet& reqs);

  // Placement
  bool try_schedule(QueuedPod& p, std::string& err);
  bool add(QueuedPod& p, const PodVariant& v, std::string* err);
  bool add_to_existing(QueuedPod& p, const PodVariant& v);
  bool add_to_inflight(QueuedPod& p, const PodVariant& v);
  bool add_to_new(QueuedPod& p, const PodVariant& v, std::string* err);
  [[nodiscard]] bool requirements_plan(const ReqSet& base, bool allow_wk, const QueuedPod& p, const PodVariant& v,
                                       const std::vector<model::Taint>& taints, AddPlan& plan, std::string* err) const;
  [[nodiscard]] bool filter_types(const Template& t, const TypeSet& options, const ReqSet& base,
                                  const OfferingFilter& base_filter, const model::Resources& requests,
                                  const std::vector<std::vector<std::int32_t>>* ports, const QueuedPod& p,
                                  bool relax_min_values, AddPlan& plan, std::string* err);
  std::string explain_filter(const Template& t, const TypeSet& options, const ReqSet& merged,
                             const model::Resources& requests, const model::Resources& pod_requests,
                             const std::vector<std::vector<std::int32_t>>* ports, const QueuedPod& p,
                             const std::string& min_values_error) const;
  // minValues: "" when satisfied; else the error, with the achieved count per failing key.
  std::string min_values_check(const Template& t, const TypeSet& options, const ReqSet& reqs,
                               std::vector<std::pair<KeyId, int>>* achieved) const;
  void commit_claim(Claim& c, QueuedPod& p, const PodVariant& v, AddPlan& plan);
  // Capacity reservations (ReservationManager): what each reservation has left this solve.
  void prepare_reservations();
  // offeringsToReserve for a NodeClaim holding `held` and narrowed by `plan`: the reservations
  // of its options' available compatible reserved offerings that it holds or that have an
  // instance left, into m_to_reserve. False on a reserved-offering error (strict mode only).
  [[nodiscard]] bool reservations_for(const Template& t, const std::vector<std::int32_t>& held, const AddPlan& plan);
  void update_within_limits(const Template& t, TemplateLimits& l);
  void sort_claim_after_add(std::size_t pos);
  model::Resources max_alloc(const Template& t, const TypeSet& options) const;

  // Output
  void finalize(SolveResult& out);

  const SolveInput& m_input;
  const cluster::Cluster& m_cluster;
  SolveCache::Impl& m_cache;
  Interner& m_in;

  bool m_tolerate_pns = false;
  bool m_veto_changed = false; // the candidate's entry changed (veto_still_holds, rebase_veto)
  bool m_any_host_ports = false;

  std::unique_ptr<SolveScratch> m_own_scratch; // made only when the thread's scratch is taken
  SolveScratch& m_scratch;
  std::vector<PoolTypes*>& m_pool_types; // by input pool
  std::vector<model::ResourceId>& m_dims;
  std::vector<QueuedPod>& m_pods;
  std::vector<cluster::PodIndex>& m_batch; // sorted pod indices of the batch
  std::vector<PodError> m_invalid;

  // The input's DaemonSets, as the cache prepared them (none until prepare_pods). The list is
  // held: a solve of other DaemonSets on the same cache may replace the cache's meanwhile.
  std::shared_ptr<const std::vector<Daemon>> m_daemon_list;
  const std::vector<Daemon>* m_daemons = &k_no_daemons;

  std::vector<Template>& m_templates; // weight order; the cache's, used in place
  std::vector<TemplateLimits>& m_limits; // per template
  // The cache's existing nodes (ExistingSnapshot), changed in place and restored at the end.
  std::vector<ExistingNode>* m_existing = nullptr;
  FreeCapacityIndex* m_index = nullptr;
  std::uint64_t m_index_version = 0; // its version before this solve's changes
  bool m_moving_view = false; // consolidation simulations: moved pods use the moving view
  void index_update(std::size_t pos, const ExistingNode& e) { m_index->update(pos, e); }
  // The first position at or after `from` whose node may fit `r`, where no node before `from`
  // has the room for it; the search starts no earlier than the shape's floor, and raises it.
  std::size_t first_fit_from(std::size_t from, const model::Resources& r, bool moving)
  {
    const FreeCapacityIndex::Dims want = FreeCapacityIndex::dims(r);
    const auto slot = static_cast<std::size_t>(
        (static_cast<std::uint64_t>(want[0]) * 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(want[1]) * 31
         ^ static_cast<std::uint64_t>(want[2]) ^ (moving ? 0x55U : 0U))
        % k_fit_floors);
    FitFloor& f = m_scratch.fit_floors[slot];
    const bool known = f.solve == m_scratch.fit_floor_solve && f.want == want && f.moving == moving;
    const std::size_t fit = m_index->next(known ? std::max(from, f.pos) : from, want, moving);
#ifndef NDEBUG
    CAPSIM_CHECK(fit == m_index->next(0, want, moving), "solve: a first fit before a shape's floor");
#endif
    f = {want, moving, m_scratch.fit_floor_solve, fit};
    return fit;
  }
  bool m_snapshot_in_use = false;
  std::vector<std::uint32_t>& m_excluded; // positions excluded by this solve
  std::vector<Undo>& m_undo;
  std::vector<Claim>& m_claims; // slots: the first m_claim_count are this solve's NodeClaims
  std::size_t m_claim_count = 0;
  std::vector<std::uint32_t>& m_claim_order; // claim ids by pod count ascending (stable)

  std::vector<TopologyGroup> m_groups;
  std::vector<TopologyGroup> m_inverse;
  std::unordered_map<std::string, std::uint32_t> m_group_ids;
  std::unordered_map<std::string, std::uint32_t> m_inverse_ids;
  std::unordered_map<const model::PodSpec*, SpecTopo> m_spec_topo;

  std::vector<Placement>& m_placements; // (most consolidation solves stop: no result is made)
  std::uint64_t m_version = 0; // bumps on every placement (failure memo validity)
  bool m_zone_only = false; // stop_on_delete_veto and narrowed_by_zone_only()
  // prepare_topology_shape
  bool m_topology_needed = false;      // a pod of the batch has topology
  bool m_any_groups = false;           // the solve has topology groups (regular or inverse)
  bool m_groups_zone_or_host = true;   // all of them over zones or hostnames
  // Per template: the options with room for every pod of this solve, in DaemonSet groups
  // without host ports (set with m_zone_only).
  std::vector<TypeSet>& m_spot_room;
  bool m_stopped = false;
  // Every pod placed so far went as written (first variant, no requirement narrowed) to an
  // existing node, and none has failed (remember_not_ready).
  bool m_plain_prefix = true;

  // Per attempt: hostname topology limits checked before the full requirement/topology path
  // (a node or NodeClaim whose hostname count exceeds the limit can never pass it).
  struct HostCheck
  {
    const TopologyGroup* group = nullptr;
    std::int32_t limit = 0;
  };
  std::vector<HostCheck> m_host_checks;
  [[nodiscard]] bool prepare_checks(const QueuedPod& p, const PodVariant& v);
  [[nodiscard]] bool host_blocked(ValueId host) const
  {
    for (const auto& h : m_host_checks) {
      if (h.group->count(host) > h.limit) {
        return true;
      }
    }
    return false;
  }

  // Capacity reservations: whether any reserved offering has one, what each has left (less
  // this solve's NodeClaims' holdings), the holdings of the attempt being planned, and whether
  // the current pod failed on a reserved-offering error.
  bool m_reservations = false;
  std::vector<std::int32_t> m_reservation_left;
  std::vector<std::int32_t> m_to_reserve;
  bool m_reserved_error = false;

  // Scratch
  mutable AddPlan m_plan;
  TypeSet m_fit;
  TypeSet m_tmp;
  mutable std::vector<std::uint32_t> m_mark;
  mutable std::uint32_t m_mark_gen = 0;
};

// ---------------------------------------------------------------------------------------------
// Preparation

void Scheduler::prepare_pools()
{
  m_tolerate_pns = m_cache.prepare_pools(m_input, m_pool_types);
}

void Scheduler::prepare_pods()
{
  const bool ignore = m_input.options.ignore_preferences;
  // The requests OR-ed together: a resource is used when its entry is not zero (a loop without
  // branches, over every pod of every solve).
  std::array<std::int64_t, model::k_max_resources> any{};
  any[model::k_cpu] = any[model::k_memory] = any[model::k_pods] = 1;
  m_pods.reserve(m_input.pods.size());
  m_batch.reserve(m_input.pods.size());
  const model::PodSpec* last_spec = nullptr;
  SpecData* last_data = nullptr;
  const auto& pods = m_input.pods;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    // A solve's pods are scattered over the run's pod table: the state (phase, node and where its
    // pod is) is asked for a dozen pods ahead, the pod's lines read below (spec, requests) six.
    constexpr std::size_t k_ahead = 6;
    if (i + 2 * k_ahead < pods.size()) {
      __builtin_prefetch(&m_cluster.pod(pods[i + 2 * k_ahead]));
    }
    if (i + k_ahead < pods.size()) {
      const auto* ahead = reinterpret_cast<const char*>(&m_cluster.pod(pods[i + k_ahead]).pod());
      for (std::size_t line = 0; line < 3; ++line) {
        __builtin_prefetch(ahead + line * 64);
      }
    }
    const auto idx = pods[i];
    const auto& ps = m_cluster.pod(idx);
    CAPSIM_CHECK(ps.pod().spec != nullptr, "solve: pod " + ps.pod().name + " has no spec");
    if (ps.pod().spec.get() != last_spec) { // pods of one workload share a spec
      last_spec = ps.pod().spec.get();
      last_data = &m_cache.spec_data(ps.pod().spec, ignore, m_tolerate_pns);
    }
    auto& data = *last_data;
    m_batch.push_back(idx);
    if (!data.validation_error.empty()) {
      m_invalid.push_back({idx, data.validation_error});
      continue;
    }
    QueuedPod& q = m_pods.emplace_back(); // in place: the requests alone are 128 bytes
    q.index = idx;
    q.state = &ps;
    q.data = &data;
    q.requests = pod_requests(ps.pod());
    q.pending = ps.node == cluster::k_none;
    if (!q.pending) {
      const auto& n = m_cluster.node(ps.node);
      q.from_deleting = n.lifecycle == cluster::NodeLifecycle::deleting || n.disrupted_taint;
    }
    for (std::size_t d = 0; d < model::k_max_resources; ++d) {
      any[d] |= q.requests.v[d];
    }
    if (!ps.pod().spec->host_ports.empty()) {
      m_any_host_ports = true;
    }
  }
  std::sort(m_batch.begin(), m_batch.end());
  m_daemon_list = m_cache.prepared_daemons(m_input.daemon_sets);
  m_daemons = m_daemon_list.get();
  for (const auto& d : *m_daemons) {
    for (std::size_t i = 0; i < model::k_max_resources; ++i) {
      any[i] |= d.requests.v[i];
    }
  }
  for (std::size_t d = 0; d < model::k_max_resources; ++d) {
    if (any[d] != 0) {
      m_dims.push_back(static_cast<model::ResourceId>(d));
    }
  }
}

bool Scheduler::daemon_compatible_with_template(std::size_t ds, const Template& t, const TypeInfo& type) const
{
  const auto& d = (*m_daemons)[ds];
  // A DaemonSet pod is not held back by PreferNoSchedule taints.
  if (!model::tolerates_all(d.spec->tolerations, t.pool->taints, true)) {
    return false;
  }
  // Try each required node-affinity term in turn (removeRequiredNodeAffinityTerm keeps the last).
  for (const auto& strict : d.strict) {
    if (t.reqs.compatible(strict, true, m_in) && type.requirements.intersects(strict, m_in)) {
      return true;
    }
  }
  return false;
}

const SolveCache::Impl::DaemonSignatures& Scheduler::daemon_signatures(std::size_t pool_input, const Template& t)
{
  auto& sigs = m_cache.pools[pool_input].daemon_signatures;
  std::vector<const model::PodSpec*> daemons;
  daemons.reserve(m_daemons->size());
  for (const auto& d : *m_daemons) {
    daemons.push_back(d.spec);
  }
  if (sigs.pool == t.pool && sigs.daemons == daemons && sigs.of_type.size() == t.types->size()) {
    return sigs;
  }
  sigs = {};
  sigs.pool = t.pool;
  sigs.daemons = std::move(daemons);
  std::map<std::vector<bool>, std::int32_t> ids;
  for (std::size_t ti = 0; ti < t.types->size(); ++ti) {
    std::vector<bool> key(m_daemons->size());
    for (std::size_t d = 0; d < m_daemons->size(); ++d) {
      key[d] = daemon_compatible_with_template(d, t, t.types->types()[ti]);
    }
    const auto [it, inserted] = ids.try_emplace(key, static_cast<std::int32_t>(sigs.keys.size()));
    if (inserted) {
      sigs.keys.push_back(std::move(key));
    }
    sigs.of_type.push_back(it->second);
  }
  return sigs;
}

std::string Scheduler::min_values_check(const Template& t, const TypeSet& options, const ReqSet& reqs,
                                        std::vector<std::pair<KeyId, int>>* achieved) const
{
  std::vector<std::string> failing;
  for (const auto& r : reqs.items()) {
    if (!r.min_values) {
      continue;
    }
    ++m_mark_gen;
    int distinct = 0;
    options.for_each([&](std::size_t i) {
      const Req* own = t.types->types()[i].requirements.find(r.key);
      if (own == nullptr) {
        return;
      }
      for (const ValueId v : own->values) {
        if (v >= m_mark.size()) {
          m_mark.resize(static_cast<std::size_t>(v) + 1024, 0);
        }
        if (m_mark[v] != m_mark_gen) {
          m_mark[v] = m_mark_gen;
          ++distinct;
        }
      }
    });
    if (distinct < *r.min_values) {
      failing.push_back(m_in.key_name(r.key));
      if (achieved != nullptr) {
        achieved->emplace_back(r.key, distinct);
      }
    }
  }
  if (failing.empty()) {
    return {};
  }
  return min_values_not_met(std::move(failing));
}


bool Scheduler::templates_current() const
{
  return m_cache.templates_current(m_input.options.min_values_best_effort, m_input.daemon_sets, m_pool_types);
}

void Scheduler::prepare_templates()
{
  if (templates_current()) {
    return;
  }
  auto& cached = m_cache.templates;
  cached.valid = false;
  m_templates.clear();
  build_templates();
  ++cached.generation;
  cached.pools_generation = m_cache.pools_generation;
  cached.availability.clear();
  for (const auto* pt : m_pool_types) {
    cached.availability.push_back(pt->availability_generation());
  }
  cached.daemons.clear();
  for (const auto& d : m_input.daemon_sets) {
    cached.daemons.push_back(d.get());
  }
  cached.min_values_best_effort = m_input.options.min_values_best_effort;
  cached.valid = true;
}

void Scheduler::build_templates()
{
  const auto& inputs = m_input.node_pools;
  std::vector<std::uint32_t> order(inputs.size());
  std::iota(order.begin(), order.end(), 0U);
  // OrderByWeight: higher weight first; ties by name, reverse lexicographic.
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto& pa = *inputs[a].pool;
    const auto& pb = *inputs[b].pool;
    if (pa.weight != pb.weight) {
      return pa.weight > pb.weight;
    }
    return pa.name > pb.name;
  });
  const KeyId k_reg = m_in.key(k_registered);
  const KeyId k_init = m_in.key(k_initialized);
  const ValueId v_true = m_in.value("true");
  for (const auto i : order) {
    const auto& np = inputs[i];
    Template t;
    t.input = i;
    t.pool = np.pool;
    t.pool_index = np.index;
    t.types = m_pool_types[i];
    t.reqs = to_req_set(np.pool->requirements, m_in);
    t.labels = np.pool->template_labels;
    t.labels[std::string(model::labels::k_nodepool)] = np.pool->name;
    if (!np.pool->node_class_ref.empty()) {
      t.labels["karpenter.k8s.aws/ec2nodeclass"] = np.pool->node_class_ref;
    }
    t.reqs.add(labels_to_req_set(t.labels, m_in), m_in);
    t.reqs.add(make_in(k_reg, v_true), m_in);
    t.reqs.add(make_in(k_init, v_true), m_in);
    t.filter = offering_filter(t.reqs, m_cache.space, m_in);
    // filterInstanceTypesByRequirements with no pod: compatible and an available compatible offering.
    t.options = TypeSet(t.types->size(), true);
    for (const auto& r : t.reqs.items()) {
      if (t.types->defines(r.key)) {
        t.options.and_with(t.types->compatible_with(r, m_in));
      }
    }
    t.options.for_each([&](std::size_t ti) {
      if (!t.types->types()[ti].has_offering(t.filter)) {
        t.options.reset(ti);
      }
    });
    if (t.options.any() && t.reqs.has_min_values() && !m_input.options.min_values_best_effort
        && !min_values_check(t, t.options, t.reqs, nullptr).empty()) {
      t.options = TypeSet(t.types->size(), false);
    }
    if (!t.options.any()) {
      continue; // NoCompatibleInstanceTypes: the NodePool is skipped
    }
    // DaemonSet overhead groups: instance types grouped by their exact set of compatible
    // DaemonSets, numbered in type order of the options; the per-type sets are cached.
    const auto& signatures = daemon_signatures(i, t);
    t.group_of.assign(t.types->size(), -1);
    std::vector<std::int32_t> group_of_signature(signatures.keys.size(), -1);
    t.options.for_each([&](std::size_t ti) {
      const auto sig = static_cast<std::size_t>(signatures.of_type[ti]);
      if (group_of_signature[sig] < 0) {
        group_of_signature[sig] = static_cast<std::int32_t>(t.groups.size());
        const auto& key = signatures.keys[sig];
        DsGroup g;
        for (std::size_t d = 0; d < m_daemons->size(); ++d) {
          if (!key[d]) {
            continue;
          }
          g.empty = false;
          g.overhead += (*m_daemons)[d].requests;
          for (std::size_t r = 0; r < model::k_max_resources; ++r) {
            if ((*m_daemons)[d].requests.v[r] != 0) {
              g.present |= std::uint32_t{1} << r;
            }
          }
          const auto& ports = (*m_daemons)[d].spec->host_ports;
          g.host_ports.insert(g.host_ports.end(), ports.begin(), ports.end());
        }
        t.groups.push_back(std::move(g));
      }
      t.group_of[ti] = group_of_signature[sig];
    });
    t.group_mask.assign(t.groups.size(), TypeSet(t.types->size(), false));
    t.options.for_each([&](std::size_t ti) { t.group_mask[static_cast<std::size_t>(t.group_of[ti])].set(ti); });
    t.base_with_host = t.reqs;
    t.base_with_host.set(make_in(m_in.k_hostname, k_claim_host_base));
    set_spot_possible(t);
    m_templates.push_back(std::move(t));
  }
}

void Scheduler::set_spot_possible(Template& t) const
{
  const auto spot_value = m_in.find_value(model::k_capacity_spot);
  const int spot = spot_value ? m_cache.space.capacity_type_index(*spot_value) : -1;
  t.spot_possible = spot >= 0 && ((t.filter.capacity_types >> spot) & 1U) != 0
                    && !(t.reqs.has_min_values() && !m_input.options.min_values_best_effort);
  t.offered_in_zone.clear();
  t.spot_in_zone.clear();
  if (!t.spot_possible) {
    return;
  }
  for (std::size_t z = 0; z < m_cache.space.zones.size() && z < 64; ++z) {
    const std::uint64_t zone = std::uint64_t{1} << z;
    t.offered_in_zone.push_back(t.types->with_offering({zone & t.filter.zones, t.filter.capacity_types}));
    t.offered_in_zone.back().and_with(t.options);
    t.spot_in_zone.push_back(t.types->with_offering({zone & t.filter.zones, std::uint32_t{1} << spot}));
    t.spot_in_zone.back().and_with(t.options);
  }
}

bool Scheduler::same_daemons(const std::vector<const model::PodSpec*>& specs) const
{
  return karpenter::same_daemons(specs, m_input.daemon_sets);
}

bool Scheduler::snapshot_current() const
{
  return m_cache.snapshot_current(m_cluster, m_input.daemon_sets, m_any_host_ports);
}

bool Scheduler::snapshot_inputs_same() const
{
  const auto& snap = m_cache.existing;
  return snap.valid && snap.cluster == m_cluster.instance_id() && !snap.host_ports && !m_any_host_ports
         && snap.pools_generation == m_cache.pools_generation && same_daemons(snap.daemons);
}

bool Scheduler::snapshot_refreshable() const
{
  // Only pods were bound or unbound since: the nodes, their order and the inputs stand.
  const auto& snap = m_cache.existing;
  return snapshot_inputs_same() && snap.epoch == m_cluster.node_epoch() && snap.bindings < m_cluster.binding_log().size();
}

void Scheduler::set_remaining(ExistingNode& e)
{
  // Remaining = allocatable - bound requests - (compatible DaemonSets - DaemonSets bound).
  const auto& n = *e.node;
  model::Resources used = n.requested;
  used[model::k_pods] = std::max<std::int64_t>(used[model::k_pods], static_cast<std::int64_t>(n.pods.size()));
  e.remaining = n.allocatable - used - (e.daemons - n.daemon_requested).floored();
  e.quiet_until = std::numeric_limits<SimTime>::min();
  if (e.initialized) {
    const Duration after = e.consolidate_after;
    if (after > 0 && after != k_never) {
      const SimTime since = n.last_pod_event > 0 ? n.last_pod_event : n.ready_at;
      e.quiet_until = since + after; // now - since < after  <=>  now < since + after
    }
  }
}

void Scheduler::refresh_snapshot(std::uint64_t counts_epoch)
{
  ++m_cache.snapshot_builds;
  auto& snap = m_cache.existing;
  const auto& log = m_cluster.binding_log();
  update_group_counts(snap.bindings, counts_epoch);
  const std::uint64_t call = ++m_cache.refreshes;
  auto& done = m_cache.refreshed_by;
  for (std::size_t i = snap.bindings; i < log.size(); ++i) {
    const cluster::NodeIndex n = log[i].node;
    const auto pos = snap.position_of(n);
    if (pos == ExistingSnapshot::k_unlisted) {
      continue; // not a destination
    }
    if (done.size() <= n) {
      done.resize(std::max<std::size_t>(static_cast<std::size_t>(n) + 1, 2 * done.size()), 0);
    }
    if (done[n] == call) {
      continue; // redone already: its entry reads the node as it is now
    }
    done[n] = call;
    auto& e = snap.nodes[pos];
    set_remaining(e);
    snap.index.update(pos, e);
  }
  snap.bindings = log.size();
  snap.running_known = false;
  snap.running.clear();
  snap.spec_starts.clear();
  snap.anti_affinity_known = false;
  snap.anti_affinity.clear();
#ifndef NDEBUG
  check_snapshot_against_fresh("refreshed");
#endif
}

namespace {

// Adds `delta` to the count of `d` in a list sorted by domain, which keeps no zero counts.
void add_count(std::vector<std::pair<ValueId, std::int32_t>>& list, ValueId d, std::int32_t delta)
{
  auto it = std::lower_bound(list.begin(), list.end(), std::pair<ValueId, std::int32_t>{d, 0},
                             [](const auto& a, const auto& b) { return a.first < b.first; });
  if (it == list.end() || it->first != d) {
    CAPSIM_CHECK(delta > 0, "solve: a topology count would go below zero");
    it = list.insert(it, {d, 0});
  }
  it->second += delta;
  CAPSIM_CHECK(it->second >= 0, "solve: a topology count went below zero");
  if (it->second == 0) {
    list.erase(it);
  }
}

// Adds (sign 1) or takes out (sign -1) a node's share of a group's counts.
void add_share(ExistingSnapshot::GroupCounts& counts, const ExistingSnapshot::GroupCounts::NodeShare& share,
               std::int32_t sign)
{
  if (share.counted && share.pods > 0) {
    add_count(counts.pods, share.domain, sign * share.pods);
  }
  if (share.registers) {
    add_count(counts.node_domains, share.domain, sign);
  }
}

std::vector<ExistingSnapshot::GroupCounts::NodeShare>::iterator share_of(ExistingSnapshot::GroupCounts& counts,
                                                                         cluster::NodeIndex node)
{
  return std::lower_bound(counts.nodes.begin(), counts.nodes.end(), node,
                          [](const auto& s, cluster::NodeIndex n) { return s.node < n; });
}

} // namespace

void Scheduler::update_group_counts(std::size_t bindings, std::uint64_t epoch)
{
  auto& snap = m_cache.existing;
  const auto& log = m_cluster.binding_log();
  const auto& node_log = m_cluster.node_log();
  // Many bindings cost more than counting each group's pods afresh on its next use.
  constexpr std::size_t k_max_counted_bindings = 512;
  if (log.size() - bindings > k_max_counted_bindings || node_log.size() != m_cluster.node_epoch()
      || epoch > node_log.size()) {
    snap.group_counts.clear();
    return;
  }
  const bool nodes_changed = epoch != m_cluster.node_epoch();
  if (nodes_changed) {
    // Groups no solve asked for over many node changes are dropped rather than kept up.
    std::erase_if(snap.group_counts, [](const auto& entry) {
      return entry.second.idle >= ExistingSnapshot::GroupCounts::k_max_idle;
    });
  }
  // The nodes changed since, each once.
  auto& changed = m_scratch.changed_nodes;
  changed.clear();
  for (std::size_t k = epoch; k < node_log.size(); ++k) {
    if (m_cluster.node_stamp(node_log[k]) == k + 1) {
      changed.push_back(node_log[k]);
    }
  }
  for (auto& [id, counts] : snap.group_counts) {
    // Bindings first, in the node's share as it was (a dead node's share goes below). DaemonSet
    // pods are not among a node's pods (ExistingSnapshot::running).
    auto& known = snap.counts_spec[id];
    const model::PodSpec* last_spec = nullptr;
    bool last_counts = false;
    for (std::size_t i = bindings; i < log.size(); ++i) {
      const auto& change = log[i];
      const auto& pod = m_cluster.pod(change.pod).pod();
      const model::PodSpec* spec = pod.spec.get();
      if (spec == nullptr || pod.is_daemon || !m_cluster.node(change.node).alive()) {
        continue;
      }
      if (spec != last_spec) {
        last_spec = spec;
        last_counts = counts_pods_of(known, counts.group, spec);
      }
      if (!last_counts) {
        continue;
      }
      auto it = share_of(counts, change.node);
      if (it == counts.nodes.end() || it->node != change.node) {
        it = counts.nodes.insert(it, {.node = change.node});
      }
      const std::int32_t delta = change.bound ? 1 : -1;
      it->pods += delta;
      CAPSIM_CHECK(it->pods >= 0, "solve: an unbound pod was not counted on its node");
      if (it->counted) {
        add_count(counts.pods, it->domain, delta);
      }
    }
    // Then the changed nodes: each share out as it was, and in again as it is now.
    for (const cluster::NodeIndex i : changed) {
      auto it = share_of(counts, i);
      const bool listed = it != counts.nodes.end() && it->node == i;
      if (listed) {
        add_share(counts, *it, -1);
      }
      if (!m_cluster.node(i).alive()) {
        if (listed) {
          counts.nodes.erase(it);
        }
        continue;
      }
      auto share = node_share(counts.group, i);
      share.pods = listed ? it->pods : 0;
      add_share(counts, share, 1);
      if (listed) {
        *it = share;
      } else {
        counts.nodes.insert(it, share);
      }
    }
    if (nodes_changed) {
      ++counts.idle;
    }
  }
}

#ifndef NDEBUG
// Debug builds check an incrementally made snapshot against one built from scratch (which then
// replaces it).
void Scheduler::check_snapshot_against_fresh(const char* what)
{
  const auto signature = [](const ExistingSnapshot& s) {
    std::vector<std::tuple<cluster::NodeIndex, const cluster::NodeState*, const ReqSet*, ValueId, bool,
                           std::vector<model::Taint>, model::Resources, Duration, model::Resources, SimTime>>
        out;
    for (const auto& e : s.nodes) {
      out.emplace_back(e.index, e.node, e.base_reqs, e.hostname, e.initialized, e.taints, e.daemons, e.consolidate_after,
                       e.remaining, e.quiet_until);
    }
    return out;
  };
  const auto incremental = signature(m_cache.existing);
  const auto position = m_cache.existing.position;
  const auto pool_capacity = m_cache.existing.pool_capacity;
  const auto pool_nodes = m_cache.existing.pool_nodes;
  const bool index_consistent = m_cache.existing.index.consistent_with(m_cache.existing.nodes);
  build_snapshot(false);
  const auto& fresh = m_cache.existing;
  CAPSIM_CHECK(incremental == signature(fresh) && position == fresh.position && pool_capacity == fresh.pool_capacity
                   && pool_nodes == fresh.pool_nodes && index_consistent,
               std::string("solve: the ") + what + " existing-node snapshot differs from a fresh one");
}
#endif

ExistingNode Scheduler::make_existing(cluster::NodeIndex i) const
{
  ExistingNode e;
  fill_existing(e, i);
  return e;
}

void Scheduler::fill_existing(ExistingNode& e, cluster::NodeIndex i) const
{
  const auto& n = m_cluster.node(i);
  const auto& cached = m_cache.node(i, n);
  e.index = i;
  e.node = &n;
  e.base_reqs = &cached.labels_with_host();
  e.hostname = cached.hostname;
  e.initialized = n.lifecycle == cluster::NodeLifecycle::ready;
  e.pool_owned = n.owner == cluster::NodeOwner::node_pool;
  e.pool = n.pool;
  e.instance_type = n.instance_type;
  const NodePoolInput* np = nullptr;
  if (n.owner == cluster::NodeOwner::node_pool) {
    for (const auto& p : m_input.node_pools) {
      if (p.index == n.pool) {
        np = &p;
      }
    }
  }
  // StateNode.Taints: a managed node that is not initialized is assumed to lose its startup
  // and known ephemeral taints.
  e.taints = n.taints;
  if (n.owner == cluster::NodeOwner::node_pool && !e.initialized) {
    std::erase_if(e.taints, [&](const model::Taint& t) {
      if (is_ephemeral_taint(t)) {
        return true;
      }
      if (np != nullptr) {
        for (const auto& s : np->pool->startup_taints) {
          if (s.key == t.key && s.effect == t.effect) {
            return true;
          }
        }
      }
      return false;
    });
  }
  model::Resources daemons;
  for (const auto& d : *m_daemons) {
    if (!model::tolerates_all(d.spec->tolerations, e.taints, false)) {
      continue;
    }
    if (!cached.labels.compatible(d.strict.front(), false, m_in)) {
      continue;
    }
    daemons += d.requests;
    if (m_any_host_ports) {
      e.host_ports.insert(e.host_ports.end(), d.spec->host_ports.begin(), d.spec->host_ports.end());
    }
  }
  e.daemons = daemons;
  e.consolidate_after = np != nullptr ? np->pool->consolidate_after : 0;
  set_remaining(e);
  if (m_any_host_ports) {
    for (const auto pi : n.pods) {
      const auto& spec = m_cluster.pod(pi).pod().spec;
      if (spec) {
        e.host_ports.insert(e.host_ports.end(), spec->host_ports.begin(), spec->host_ports.end());
      }
    }
  }
}

// sortExistingNodes: initialized first, then by name (ties: node index, the build order).
bool sorted_before(const ExistingNode& x, const ExistingNode& y)
{
  if (x.initialized != y.initialized) {
    return x.initialized;
  }
  const int c = x.node->name.compare(y.node->name);
  return c != 0 ? c < 0 : x.index < y.index;
}

void Scheduler::add_pool_share(const ExistingNode& e, std::int64_t sign)
{
  // The entry's part of ExistingSnapshot::pool_capacity and pool_nodes (sign: +1 joins, -1 leaves).
  if (!e.pool_owned) {
    return;
  }
  auto& snap = m_cache.existing;
  for (std::size_t i = 0; i < m_input.node_pools.size(); ++i) {
    if (m_input.node_pools[i].index != e.pool) {
      continue;
    }
    const auto& capacity = e.instance_type != nullptr ? e.instance_type->capacity : e.node->allocatable;
    for (std::size_t d = 0; d < model::k_max_resources; ++d) {
      snap.pool_capacity[i].v[d] += sign * capacity.v[d];
    }
    snap.pool_nodes[i] += sign;
  }
}

bool Scheduler::update_snapshot_incrementally()
{
  // A few nodes changed since the snapshot (Cluster::node_log names them): an entry that keeps
  // its place in the order (a launching node registered, DaemonSet overhead) is redone where it
  // stands; a node that joins, leaves or moves (became Ready: initialized first) is taken out and
  // merged in again, and only the entries after the first such place move, with the index leaves
  // and positions there. Many changes, or a node list that moved (the entries point into it),
  // take the rebuild.
  auto& snap = m_cache.existing;
  const auto& log = m_cluster.node_log();
  const auto& nodes = m_cluster.nodes();
  if (!snapshot_inputs_same() || snap.node_table != nodes.data() || log.size() != m_cluster.node_epoch()
      || snap.epoch > log.size() || log.size() - snap.epoch > snap.nodes.size() / 8 + 1) {
    return false;
  }
  auto& changed = m_cache.changed_entries;
  auto& gone = m_cache.gone_positions;
  auto& fresh = m_cache.fresh_nodes;
  changed.clear();
  gone.clear();
  fresh.clear();
  for (std::size_t k = snap.epoch; k < log.size(); ++k) {
    const cluster::NodeIndex i = log[k];
    if (m_cluster.node_stamp(i) != k + 1) {
      continue; // stamped again later: looked at there
    }
    const std::uint32_t at = snap.position_of(i);
    const bool schedulable = nodes[i].alive() && nodes[i].schedulable();
    if (at == ExistingSnapshot::k_unlisted) {
      if (schedulable) {
        fill_existing(fresh.emplace_back(), i);
      }
      continue;
    }
    if (snap.nodes[at].pool_owned && snap.nodes[at].instance_type == nullptr) {
      return false; // its share of the pool sums is its node's allocatable, which may have changed
    }
    if (!schedulable) {
      gone.push_back(at);
      continue;
    }
    ExistingNode e = make_existing(i);
    if (e.initialized == snap.nodes[at].initialized) {
      changed.emplace_back(at, std::move(e));
    } else {
      gone.push_back(at);
      fresh.push_back(std::move(e));
    }
  }
  for (auto& [pos, e] : changed) {
    add_pool_share(snap.nodes[pos], -1);
    add_pool_share(e, 1);
    snap.nodes[pos] = std::move(e);
    snap.index.update(pos, snap.nodes[pos]);
  }
  if (!gone.empty() || !fresh.empty()) {
    const auto before = sorted_before;
    std::sort(gone.begin(), gone.end());
    std::sort(fresh.begin(), fresh.end(), before);
    auto& list = snap.nodes;
    std::size_t from = gone.empty() ? list.size() : gone.front();
    if (!fresh.empty()) {
      const auto at = std::partition_point(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(from),
                                           [&](const ExistingNode& x) { return before(x, fresh.front()); });
      from = static_cast<std::size_t>(at - list.begin());
    }
    for (const auto pos : gone) {
      add_pool_share(list[pos], -1);
      snap.position[list[pos].index] = ExistingSnapshot::k_unlisted;
    }
    for (const auto& e : fresh) {
      add_pool_share(e, 1);
    }
    // The tail from `from`, without the leaving entries, merged with the joining ones in place: the
    // leaving ones closed up, then the joining ones merged in from the back (each entry moves at
    // most twice, and only those after a change; equal ones keep the listed entry first).
    std::size_t kept = from;
    for (std::size_t pos = from, g = 0; pos < list.size(); ++pos) {
      while (g < gone.size() && gone[g] < pos) {
        ++g;
      }
      if (g < gone.size() && gone[g] == pos) {
        continue;
      }
      if (kept != pos) {
        list[kept] = std::move(list[pos]);
      }
      ++kept;
    }
    list.resize(kept);
    list.resize(kept + fresh.size());
    for (std::size_t i = kept, f = fresh.size(), to = list.size(); f > 0;) {
      if (i > from && before(fresh[f - 1], list[i - 1])) {
        list[--to] = std::move(list[--i]);
      } else {
        list[--to] = std::move(fresh[--f]);
      }
    }
    fresh.clear();
    // Positions: the leaving nodes are out (above), those from `from` on renumbered.
    for (std::size_t pos = from; pos < list.size(); ++pos) {
      snap.set_position(list[pos].index, static_cast<std::uint32_t>(pos));
    }
    snap.index.rebuild_from(list, from);
  }
  const std::uint64_t counts_epoch = snap.epoch;
  snap.epoch = m_cluster.node_epoch();
  refresh_snapshot(counts_epoch); // the bindings since (debug builds compare the result with a fresh build)
  return true;
}

void Scheduler::build_snapshot(bool reuse)
{
  if (reuse && update_snapshot_incrementally()) {
    return;
  }
  ++m_cache.snapshot_builds;
  auto& snap = m_cache.existing;
  // Nodes not stamped since the last snapshot keep their entries (labels, effective taints,
  // DaemonSet reservation and position in the order); only the free capacity of those that
  // bindings touched since is redone.
  ExistingSnapshot old;
  reuse = reuse && snapshot_inputs_same();
  FreeCapacityIndex index = std::move(snap.index); // one index throughout: its versions only grow
  // One position map throughout too: the old entries' positions are read (reuse) and unlisted.
  std::vector<std::uint32_t> position = std::move(snap.position);
  const auto unlist = [&position](const std::vector<ExistingNode>& list) {
    for (const auto& e : list) {
      if (e.index < position.size()) { // (always, unless a build before threw half-way)
        position[e.index] = ExistingSnapshot::k_unlisted;
      }
    }
  };
  std::vector<ExistingNode> nodes_buffer;
  if (reuse) {
    old = std::move(snap);
    nodes_buffer = std::move(m_cache.spare_nodes);
  } else {
    unlist(snap.nodes);
    nodes_buffer = std::move(snap.nodes);
  }
  nodes_buffer.clear();
  snap = ExistingSnapshot{};
  snap.nodes = std::move(nodes_buffer);
  snap.index = std::move(index);
  snap.cluster = m_cluster.instance_id();
  snap.epoch = m_cluster.node_epoch();
  snap.bindings = m_cluster.binding_log().size();
  snap.pools_generation = m_cache.pools_generation;
  for (const auto& d : *m_daemons) {
    snap.daemons.push_back(d.spec);
  }
  snap.host_ports = m_any_host_ports;
  const auto& nodes = m_cluster.nodes();
  snap.node_table = nodes.data();
  std::vector<char> kept(old.nodes.size(), 0);
  std::vector<ExistingNode>& fresh = m_cache.fresh_nodes;
  fresh.clear();
  // A kept entry's free capacity stands (as of old.bindings) unless a binding since touched its
  // node.
  std::vector<cluster::NodeIndex> rebound;
  if (reuse) {
    const auto& log = m_cluster.binding_log();
    for (std::size_t i = old.bindings; i < log.size(); ++i) {
      rebound.push_back(log[i].node);
    }
    std::sort(rebound.begin(), rebound.end());
    rebound.erase(std::unique(rebound.begin(), rebound.end()), rebound.end());
  }
  for (const cluster::NodeIndex i : m_cluster.alive_node_indices()) {
    if (reuse && m_cluster.node_stamp(i) <= old.epoch) {
      // Unchanged since: in the old snapshot exactly when it is schedulable.
      if (i < position.size() && position[i] != ExistingSnapshot::k_unlisted) {
        kept[position[i]] = 1;
      }
      continue;
    }
    if (nodes[i].schedulable()) {
      fill_existing(fresh.emplace_back(), i);
    }
  }
  // sortExistingNodes (sorted_before): the kept entries are in that order already; the fresh ones
  // are sorted and merged in.
  const auto before = sorted_before;
  // (Their order, not the entries themselves: an entry is hundreds of bytes, moved once below.)
  auto& order = m_cache.fresh_order;
  order.resize(fresh.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return before(fresh[a], fresh[b]); });
  // In place over the old list (or the empty buffer when nothing is kept): the entries no longer
  // kept are dropped, then the fresh ones merged in from the back, so only the entries after the
  // first change move. New nodes' names sort last, so most changes are near the end.
  std::vector<ExistingNode>& list = reuse ? old.nodes : snap.nodes;
  if (reuse) {
    unlist(old.nodes);
  }
  snap.position = std::move(position);
  std::size_t count = 0;
  for (std::size_t pos = 0; pos < list.size(); ++pos) {
    if (kept[pos] == 0) {
      continue;
    }
    ExistingNode& e = list[pos];
    e.node = &nodes[e.index]; // the node list may have moved
    if (std::binary_search(rebound.begin(), rebound.end(), e.index)) {
      set_remaining(e);
    }
    if (count != pos) {
      list[count] = std::move(e);
    }
    ++count;
  }
  list.resize(count);
  // With room to grow: the buffers are reused by the next rebuilds of a growing cluster.
  if (list.capacity() < count + fresh.size()) {
    list.reserve(count + fresh.size() + (count + fresh.size()) / 2);
  }
  list.resize(count + fresh.size());
  for (std::size_t i = count, f = fresh.size(), to = list.size(); f > 0;) {
    ExistingNode& last = fresh[order[f - 1]];
    if (i > 0 && before(last, list[i - 1])) {
      list[--to] = std::move(list[--i]);
    } else {
      list[--to] = std::move(last);
      --f;
    }
  }
  if (reuse) {
    snap.nodes.swap(old.nodes); // the old list is the result; the spare buffer goes back below
  }
  snap.pool_capacity.assign(m_input.node_pools.size(), model::Resources{});
  snap.pool_nodes.assign(m_input.node_pools.size(), 0);
  for (std::uint32_t pos = 0; pos < snap.nodes.size(); ++pos) {
    const auto& e = snap.nodes[pos];
    snap.set_position(e.index, pos);
    if (!e.pool_owned) {
      continue;
    }
    for (std::size_t i = 0; i < m_input.node_pools.size(); ++i) {
      if (m_input.node_pools[i].index == e.pool) {
        snap.pool_capacity[i] += e.instance_type != nullptr ? e.instance_type->capacity : e.node->allocatable;
        ++snap.pool_nodes[i];
      }
    }
  }
  snap.index.build(snap.nodes);
  snap.valid = true;
  fresh.clear();
  if (reuse) { // the old lists' room, for the next rebuild
    old.nodes.clear();
    m_cache.spare_nodes = std::move(old.nodes);
    snap.group_counts = std::move(old.group_counts);
    snap.counts_spec = std::move(old.counts_spec);
    update_group_counts(old.bindings, old.epoch);
  }
#ifndef NDEBUG
  if (reuse) {
    check_snapshot_against_fresh("reused");
  }
#endif
}

void Scheduler::prepare_existing()
{
  m_cache.forget_terminated(m_cluster);
  if (snapshot_refreshable()) {
    refresh_snapshot(m_cache.existing.epoch);
  } else if (!snapshot_current()) {
    build_snapshot();
  }
  auto& snap = m_cache.existing;
  m_existing = &snap.nodes;
  m_index = &snap.index;
  ++m_scratch.fit_floor_solve;
  m_moving_view = m_input.options.consolidation_simulation;
  if (m_moving_view && snap.index.quiet_now() != m_input.options.now) {
    snap.index.set_quiet_now(m_input.options.now);
  }
  m_snapshot_in_use = true;
  m_index_version = snap.index.version(); // given back by restore_existing
  snap.index.start_log();
  m_placements.reserve(m_pods.size()); // at most one placement (and undo entry) per pod
  m_undo.reserve(m_pods.size());
  for (const auto n : m_input.excluded_nodes) {
    const std::uint32_t pos = snap.position_of(n);
    if (pos == ExistingSnapshot::k_unlisted) {
      continue;
    }
    auto& e = snap.nodes[pos];
    if (!e.excluded) {
      e.excluded = true;
      m_excluded.push_back(pos);
      index_update(pos, e);
    }
  }
}

bool Scheduler::narrowed_by_zone_only() const
{
  // NodeClaims of this solve are narrowed by their pods' requests and zones only: no pod
  // requirement or topology names another key their instance types define.
  return std::all_of(m_pods.begin(), m_pods.end(), [](const QueuedPod& p) { return p.data->zone_only_requirements; })
         && m_groups_zone_or_host;
}

void Scheduler::prepare_spot_room(const model::Resources& all)
{
  m_spot_room.resize(m_templates.size());
  for (std::size_t ti = 0; ti < m_templates.size(); ++ti) {
    const Template& t = m_templates[ti];
    TypeSet& room = m_spot_room[ti];
    room.clear(t.types->size());
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
      if (!t.groups[g].host_ports.empty()) {
        continue;
      }
      m_tmp = t.group_mask[g];
      for (const auto d : m_dims) {
        m_tmp.and_with(t.types->at_least(d, all[d] + t.groups[g].overhead[d]));
      }
      room.or_with(m_tmp);
    }
  }
}

// A NodeClaim with these options and offering filter, narrowed from now on by its pods' requests
// and zones only, ends with spot among its capacity types: in every zone it may end in, one of
// its options offers spot and has room for every pod of the solve, so it stays an option
// (a claim narrowed to zones none of its options offers has no capacity-type requirement).
bool Scheduler::keeps_spot(std::size_t tmpl, const TypeSet& options, const OfferingFilter& filter)
{
  const Template& t = m_templates[tmpl];
  if (!t.spot_possible || filter.capacity_types != t.filter.capacity_types) {
    return false;
  }
  for (std::size_t z = 0; z < t.offered_in_zone.size(); ++z) {
    if (((filter.zones >> z) & 1U) == 0 || !t.offered_in_zone[z].intersects(options)) {
      continue;
    }
    m_tmp = t.spot_in_zone[z];
    m_tmp.and_with(m_spot_room[tmpl]);
    if (!m_tmp.intersects(options)) {
      return false;
    }
  }
  return true;
}

bool Scheduler::every_claim_keeps_spot()
{
  // Any NodeClaim of this solve starts from its template's options and offering filter, narrowed
  // by its first pod's zones and requests only (and no limit takes options away).
  for (std::size_t ti = 0; ti < m_templates.size(); ++ti) {
    if (limited(m_templates[ti]) || !keeps_spot(ti, m_templates[ti].options, m_templates[ti].filter)) {
      return false;
    }
  }
  return true;
}

model::Resources Scheduler::spot_room_bound(const model::Resources& all)
{
  // After every_claim_keeps_spot held for `all` (prepare_spot_room's requests): requests up to
  // the bound returned keep it holding. Per template and zone keeps_spot found spot options with
  // room for `all`; one with the most CPU is taken (found by a search over the CPU thresholds,
  // not a walk over the options), and the bound is the least room over them in the resources in
  // use (the others stay at `all`).
  model::Resources bound = all;
  bool first = true;
  for (std::size_t ti = 0; ti < m_templates.size(); ++ti) {
    const Template& t = m_templates[ti];
    for (std::size_t z = 0; z < t.offered_in_zone.size(); ++z) {
      if (((t.filter.zones >> z) & 1U) == 0 || !t.offered_in_zone[z].intersects(t.options)) {
        continue;
      }
      std::optional<model::Resources> best;
      for (std::size_t g = 0; g < t.groups.size(); ++g) {
        if (!t.groups[g].host_ports.empty()) {
          continue;
        }
        // The first of the group's spot options in the zone with the most CPU: when it has room
        // for `all`, it is the first with the most CPU of those that have (a search over fewer).
        const Template::SpotPick& first_pick = spot_pick(t, z, g);
        if (!first_pick.any) {
          continue;
        }
        const bool room_for_all = std::all_of(m_dims.begin(), m_dims.end(),
                                              [&](model::ResourceId d) { return first_pick.room[d] >= all[d]; });
        // Else the group's spot options in the zone with room for `all` (the groups partition the
        // types, so these are in m_spot_room by this group's overhead).
        const auto searched = [&]() -> std::optional<model::Resources> {
          m_tmp = t.group_mask[g];
          m_tmp.and_with(t.spot_in_zone[z]);
          m_tmp.and_with(m_spot_room[ti]);
          m_tmp.and_with(t.options);
          if (!m_tmp.any()) {
            return std::nullopt;
          }
          return t.types->types()[first_with_most_cpu(*t.types)].allocatable - t.groups[g].overhead;
        };
#ifndef NDEBUG
        CAPSIM_CHECK(!room_for_all || searched() == first_pick.room,
                     "solve: the first spot pick differs from the search");
#endif
        const std::optional<model::Resources> found = room_for_all ? first_pick.room : searched();
        if (!found) {
          continue;
        }
        const model::Resources& room = *found;
#ifndef NDEBUG
        for (const auto d : m_dims) {
          CAPSIM_CHECK(room[d] >= all[d], "solve: a spot option without room for every pod");
        }
#endif
        if (!best || room.cpu() > best->cpu()) {
          best = room;
        }
      }
      CAPSIM_CHECK(best.has_value(), "solve: no spot option with room where every NodeClaim keeps spot");
      for (const auto d : m_dims) {
        bound[d] = first ? (*best)[d] : std::min(bound[d], (*best)[d]);
      }
      first = false;
    }
  }
  return bound;
}

const Template::SpotPick& Scheduler::spot_pick(const Template& t, std::size_t zone, std::size_t group)
{
  const std::size_t at = zone * t.groups.size() + group;
  if (t.spot_picks.size() <= at) {
    t.spot_picks.resize(t.offered_in_zone.size() * t.groups.size());
  }
  Template::SpotPick& pick = t.spot_picks[at];
  if (pick.made) {
    return pick;
  }
  pick.made = true;
  m_tmp = t.group_mask[group];
  m_tmp.and_with(t.spot_in_zone[zone]);
  if (!m_tmp.any()) {
    return pick;
  }
  pick.any = true;
  pick.room = t.types->types()[first_with_most_cpu(*t.types)].allocatable - t.groups[group].overhead;
  return pick;
}

std::size_t Scheduler::first_with_most_cpu(PoolTypes& types)
{
  // (Found by a search over the CPU thresholds, not a walk over the types.)
  m_tmp.and_with(types.at_least(model::k_cpu, types.max_allocatable(model::k_cpu, m_tmp)));
  std::optional<std::size_t> first;
  m_tmp.for_each([&first](std::size_t i) {
    if (!first) {
      first = i;
    }
  });
  CAPSIM_CHECK(first.has_value(), "solve: no spot option with the most CPU");
  return *first;
}

const QueuedPod* Scheduler::bound_pod_fitting_nowhere()
{
  // Placements only shrink the free capacity, so such a pod ends on a NodeClaim or fails; a moved
  // one (not from a deleting node) that fits only nodes that are not Ready would stop the solve on
  // one of them otherwise (first_ready_fit).
  const auto it = std::find_if(m_pods.begin(), m_pods.end(), [this](QueuedPod& p) {
    if (p.state->phase == cluster::PodPhase::pending) {
      return false;
    }
    const bool moving = m_moving_view && !p.pending && !p.from_deleting;
    p.fit_from = first_fit_from(p.fit_from, p.requests, moving);
    std::size_t fit = p.fit_from;
    if (!p.from_deleting) {
      const FreeCapacityIndex::Dims want = FreeCapacityIndex::dims(p.requests);
      while (fit != FreeCapacityIndex::k_end && (*m_existing)[fit].node->lifecycle != cluster::NodeLifecycle::ready) {
        fit = m_index->next(fit + 1, want, moving);
      }
    }
    return fit == FreeCapacityIndex::k_end;
  });
  return it != m_pods.end() ? &*it : nullptr;
}

cluster::PodIndex Scheduler::stop_resting_on(const QueuedPod& p) const
{
  // With fewer excluded nodes the pod set shrinks (only the sum of requests every_claim_keeps_spot
  // reads and the pods zone_only reads, both in the stop's favour), the pod is still first in the
  // queue, and the nodes given back can take it only with room for it. Topology, limits and host
  // ports would read the excluded nodes' pods or capacity otherwise.
  const auto& excluded = m_input.excluded_nodes;
  if (p.pending || p.from_deleting || m_any_groups || m_cluster.bound_with_anti_affinity() != 0
      || m_any_host_ports || m_reservations || std::find(excluded.begin(), excluded.end(), p.state->node) == excluded.end()
      || std::any_of(m_templates.begin(), m_templates.end(), [this](const Template& t) { return limited(t); })) {
    return cluster::k_none;
  }
  return p.index;
}

bool Scheduler::limited(const Template& t) const
{
  return karpenter::limited(m_input, t);
}

// Adds what the checks before placing pods read of pod `idx` to `out`, as a solve with these
// options sees it; false when the solve leaves the pod out (prepare_pods: it is not valid).
bool summarize_pod(SolveCache::Impl& cache, const cluster::Cluster& cluster, cluster::PodIndex idx,
                   bool ignore_preferences, bool tolerate_pns, PodsSummary& out)
{
  const auto& spec = cluster.pod(idx).pod().spec;
  CAPSIM_CHECK(spec != nullptr, "solve: pod " + cluster.pod(idx).pod().name + " has no spec");
  const auto& data = cache.spec_data(spec, ignore_preferences, tolerate_pns);
  if (!data.validation_error.empty()) {
    return false;
  }
  const auto r = pod_requests(cluster.pod(idx).pod());
  out.requests += r;
  for (std::size_t d = 0; d < model::k_max_resources; ++d) {
    if (r.v[d] != 0) {
      out.dims |= std::uint32_t{1} << d;
    }
  }
  out.zone_only = out.zone_only && data.zone_only_requirements;
  out.topology = out.topology || has_pod_topology(*spec);
  out.topology_other = out.topology_other || !data.zone_only_topology;
  out.host_ports = out.host_ports || !spec->host_ports.empty();
  return true;
}

bool Scheduler::summarize(cluster::PodIndex idx, PodsSummary& out)
{
  return summarize_pod(m_cache, m_cluster, idx, m_input.options.ignore_preferences, m_tolerate_pns, out);
}

// Remembered stops (SolveCache::Impl::Veto). A single candidate's solve that stopped on one of its
// pods stops again, without preparing anything, while the reason still holds. The candidate's
// pods of that solve are summarised once: whichever of them are in a later solve ask for at most
// as much, with no requirement or topology the summary lacks; the solve's other pods (pending pods
// come and go, pods join the candidate) are summarised anew.
// - no_room: the pre-check's answer depends on the free room only through the pod it finds (any
//   bound pod of the candidate with no room elsewhere will do), and every_claim_keeps_spot and
//   narrowed_by_zone_only hold for fewer or smaller pods too (they read the pods' requests,
//   requirements and topology, the templates, the options and the running pods with required
//   anti-affinity, none here).
// - not_ready: the pods queued before the stop pod went, as written, to the first existing node
//   with room each; replay_not_ready places the ones queued before it now the same way, then the
//   stop pod (nothing of topology, host ports or preferences in the way).
SolveCache::Impl::Veto* Scheduler::remember(const QueuedPod& p, bool no_room)
{
  // (A no_room stop is taken only when narrowed_by_zone_only holds, so with groups over zones
  // and hostnames only; a not_ready stop's replay knows nothing of topology.)
  if (m_input.excluded_nodes.size() != 1 || m_cluster.bound_with_anti_affinity() != 0
      || (m_any_groups && !(no_room && m_groups_zone_or_host))) {
    return nullptr;
  }
  const auto node = m_input.excluded_nodes.front();
  if (p.pending || p.from_deleting || p.state->node != node) {
    return nullptr;
  }
  // The candidate's pods in the solve (simulate_scheduling lists them together).
  const auto& pods = m_input.pods;
  const auto on_node = [&](cluster::PodIndex i) { return m_cluster.pod(i).node == node; };
  const auto first = std::find_if(pods.begin(), pods.end(), on_node);
  const auto last = std::find_if_not(first, pods.end(), on_node);
  if (std::find_if(last, pods.end(), on_node) != pods.end()) {
    return nullptr;
  }
  auto& vetoes = m_cache.vetoes;
  if (vetoes.size() <= node) {
    vetoes.resize(node + 1);
  }
  auto& v = vetoes[node];
  v.valid = true;
  v.pods.assign(first, last);
  set_veto_pods(v);
  v.pod = p.index;
  v.requests = p.requests;
  v.ignore_preferences = m_input.options.ignore_preferences;
  v.moving_view = m_moving_view;
  v.tolerate_pns = m_tolerate_pns;
  return &v;
}

void Scheduler::set_veto_pods(SolveCache::Impl::Veto& v)
{
  // `v.pods` are the candidate's: sorted, summarised, their shapes; no prefix.
  std::sort(v.pods.begin(), v.pods.end());
  v.summary = {};
  v.prefix.clear();
  v.shapes.clear();
  v.shape_of.clear();
  for (const auto i : v.pods) {
    auto shape = SolveCache::Impl::Veto::k_no_shape;
    if (summarize(i, v.summary)) {
      const auto r = pod_requests(m_cluster.pod(i).pod());
      const auto it = std::find(v.shapes.begin(), v.shapes.end(), r);
      if (it != v.shapes.end()) {
        shape = static_cast<std::uint8_t>(it - v.shapes.begin());
      } else if (v.shapes.size() < SolveCache::Impl::Veto::k_max_shapes) {
        shape = static_cast<std::uint8_t>(v.shapes.size());
        v.shapes.push_back(r);
      }
    }
    v.shape_of.push_back(shape);
  }
  v.pods_revision = m_cluster.node(m_input.excluded_nodes.front()).pods_revision;
}

void Scheduler::rebase_veto()
{
  // A stop that held on a changed pod list of its candidate: its pods become the candidate's pods
  // of this solve (each bound there), as a stop remembered now would list them, so later checks
  // (and remembered_stop_holds) need not sort joined and departed pods out again. The entry stays
  // as valid: its summary only shrinks to these pods, and the rest does not depend on them. Not
  // when one of them queues before a not_ready stop pod (it would be a prefix).
  const auto node = m_input.excluded_nodes.front();
  auto& v = m_cache.vetoes[node];
  if (m_cluster.node(node).pods_revision == v.pods_revision) {
    return;
  }
  auto& pods = m_scratch.rebased;
  pods.clear();
  const bool not_ready = v.kind == SolveCache::Impl::Veto::Kind::not_ready;
  const auto& stop = m_cluster.pod(v.pod).pod();
  for (const auto i : m_input.pods) {
    const auto& ps = m_cluster.pod(i);
    if (ps.phase == cluster::PodPhase::pending || ps.node != node) {
      continue;
    }
    if (not_ready && i != v.pod && queued_before(pod_requests(ps.pod()), ps.pod(), i, v.requests, stop, v.pod)) {
      return;
    }
    pods.push_back(i);
  }
  v.pods.assign(pods.begin(), pods.end());
  set_veto_pods(v);
  m_veto_changed = true;
}

void Scheduler::remember_no_room(const QueuedPod& p)
{
  auto* v = remember(p, true);
  if (v == nullptr) {
    return;
  }
  v->kind = SolveCache::Impl::Veto::Kind::no_room;
  v->templates = m_cache.templates.generation;
  model::Resources all;
  for (const auto& q : m_pods) {
    all += q.requests;
  }
  v->keeps_spot_for = spot_room_bound(all); // prepare_spot_room's
  v->keeps_spot_dims = 0;
  for (const auto d : m_dims) {
    v->keeps_spot_dims |= std::uint32_t{1} << d;
  }
}

void Scheduler::remember_not_ready(const QueuedPod& p, const PodVariant& v, const ExistingNode& e)
{
  // Placed as written, after pods that all went as written to existing nodes (m_plain_prefix).
  // The candidate's pods among them are remembered in queue order; the others are asked for
  // anew when the stop is (replay_not_ready).
  if (!m_plain_prefix || m_claim_count != 0 || &v != variant(*p.data, 0, m_in)
      || (p.topo != nullptr && p.topo->any) || !p.data->spec->host_ports.empty()) {
    return;
  }
  auto* veto = remember(p, false);
  if (veto == nullptr) {
    return;
  }
  veto->prefix.clear();
  for (const auto& placed : m_placements) {
    const auto at = std::lower_bound(veto->pods.begin(), veto->pods.end(), placed.pod);
    const auto k = static_cast<std::size_t>(at - veto->pods.begin());
    if (at == veto->pods.end() || *at != placed.pod) {
      continue; // pending or from a deleting node: asked for anew by the next check
    }
    if (veto->shape_of[k] == SolveCache::Impl::Veto::k_no_shape) {
      veto->valid = false;
      return;
    }
    veto->prefix.push_back(static_cast<std::uint32_t>(k));
  }
  veto->kind = SolveCache::Impl::Veto::Kind::not_ready;
  veto->node = e.index;
  veto->node_stamp = m_cluster.node_stamp(e.index);
  veto->pools = m_cache.pools_generation;
}

bool Scheduler::placed_as_written(cluster::PodIndex pod, const model::Resources& requests, const ExistingNode& e)
{
  // add_to_existing's checks for the pod's first variant with nothing placed yet (no topology,
  // host ports or hostname limits: the callers' summaries have none).
  return requests.fits_in(e.remaining) && written_for(pod, e);
}

bool Scheduler::written_for(cluster::PodIndex pod, const ExistingNode& e)
{
  const auto& ps = m_cluster.pod(pod);
  auto& data = m_cache.spec_data(ps.pod().spec, m_input.options.ignore_preferences, m_tolerate_pns);
  if (!data.validation_error.empty()) {
    return false;
  }
  const PodVariant* v = variant(data, 0, m_in);
  if (v == nullptr || !tolerates(*ps.pod().spec, *v, e.taints)) {
    return false;
  }
  QueuedPod q;
  q.index = pod;
  q.state = &ps;
  q.data = &data;
  q.requests = pod_requests(ps.pod());
  q.pending = false;
  return requirements_plan(e.reqs(), false, q, *v, e.taints, m_plan, nullptr);
}

std::optional<cluster::PodIndex> Scheduler::witness_fitting_nowhere(const SolveCache::Impl::Veto& v, std::size_t own)
{
  const auto node = m_input.excluded_nodes.front();
  const auto& remembered = m_scratch.remembered;
  std::uint64_t tried = 0;
  for (const auto k : remembered) {
    const auto s = v.shape_of[k];
    if (s == SolveCache::Impl::Veto::k_no_shape || ((tried >> s) & 1U) != 0) {
      continue;
    }
    tried |= std::uint64_t{1} << s;
    if (first_ready_fit(m_cache.existing, FreeCapacityIndex::dims(v.shapes[s]), v.moving_view, own)
        != FreeCapacityIndex::k_end) {
      continue;
    }
    const bool unchanged = m_cluster.node(node).pods_revision == v.pods_revision;
    for (const auto j : remembered) {
      if (v.shape_of[j] != s) {
        continue;
      }
      if (unchanged) {
        return v.pods[j];
      }
      const auto& ps = m_cluster.pod(v.pods[j]);
      if (ps.phase != cluster::PodPhase::pending && ps.node == node) {
        return v.pods[j];
      }
    }
  }
  return std::nullopt;
}

bool Scheduler::replay_not_ready(SolveCache::Impl::Veto& v, std::size_t own, bool pods_unchanged, std::size_t& fit,
                                 bool& moved)
{
  moved = false;
  auto& snap = m_cache.existing;
  const auto node = m_input.excluded_nodes.front();
  auto& undo = m_scratch.replay;
  undo.clear();
  // The replay's placements lower the remaining room of a few nodes and leave the index as it
  // was: the index offers a node that fitted before them, and one they filled is passed over.
  const auto fits_now = [&](std::size_t pos, const model::Resources& r) {
    const auto& rem = snap.nodes[pos].remaining;
    return r.cpu() <= rem.cpu() && r.memory() <= rem.memory() && r[model::k_pods] <= rem[model::k_pods];
  };
  const auto placed_on = [&](std::size_t pos) {
    return std::any_of(undo.begin(), undo.end(), [pos](const Undo& u) { return u.pos == pos; });
  };
  const auto first_fit = [&](const model::Resources& r, bool moving) {
    std::size_t f = snap.index.first_fit_except(r, moving, own);
    while (f != FreeCapacityIndex::k_end && placed_on(f) && !fits_now(f, r)) {
      f = snap.index.next(f + 1, r, moving);
      if (f != FreeCapacityIndex::k_end && f == own) {
        f = snap.index.next(own + 1, r, moving);
      }
    }
    return f;
  };
  // The pods queued before the stop pod: the remembered prefix still there, in its order, and
  // the others (m_scratch.before), merged into queue order.
  auto& queue = m_scratch.replay_queue;
  queue.clear();
  for (const auto k : v.prefix) {
    if (m_scratch.present[k] == 0) {
      continue; // left the candidate: the pods after it queue as before
    }
    const auto pod = v.pods[k];
    if (!pods_unchanged) {
      const auto& ps = m_cluster.pod(pod);
      if (ps.phase == cluster::PodPhase::pending || ps.node != node) {
        return false; // pending again: queued by other rules
      }
    }
    queue.push_back({pod, v.shapes[v.shape_of[k]], true});
  }
  if (!m_scratch.before.empty()) {
    for (const auto pod : m_scratch.before) {
      const auto& ps = m_cluster.pod(pod);
      bool bound_moved = false;
      if (ps.node != cluster::k_none) {
        const auto& n = m_cluster.node(ps.node);
        bound_moved = n.lifecycle != cluster::NodeLifecycle::deleting && !n.disrupted_taint;
      }
      queue.push_back({pod, pod_requests(ps.pod()), bound_moved});
    }
    std::sort(queue.begin(), queue.end(), [this](const ReplayPod& a, const ReplayPod& b) {
      return queued_before(a.requests, m_cluster.pod(a.pod).pod(), a.pod, b.requests, m_cluster.pod(b.pod).pod(),
                           b.pod);
    });
  }
  // Each goes, as written, to the first existing node with room (else the replay gives up); a
  // moved pod on a node that is not Ready stops the solve there.
  std::optional<bool> holds;
  for (const auto& q : queue) {
    const std::size_t f = first_fit(q.requests, v.moving_view && q.moved);
    if (f == FreeCapacityIndex::k_end) {
      holds = false;
      break;
    }
    auto& e = snap.nodes[f];
    if (!placed_as_written(q.pod, q.requests, e) || !m_plan.delta.empty()) {
      holds = false;
      break;
    }
    if (q.moved && e.node->lifecycle != cluster::NodeLifecycle::ready) {
      holds = true; // this pod now stops the solve (the entry stays as it is)
      break;
    }
    if (!placed_on(f)) {
      undo.push_back({static_cast<std::uint32_t>(f), e.remaining, 0});
    }
    e.remaining -= q.requests;
  }
  if (!holds.has_value()) {
    // The stop pod, as without a prefix (its node unchanged since, it still takes the pod).
    const std::size_t f = first_fit(v.requests, v.moving_view);
    holds = false;
    if (f != FreeCapacityIndex::k_end) {
      const auto& e = snap.nodes[f];
      if (e.node->lifecycle != cluster::NodeLifecycle::ready && v.requests.fits_in(e.remaining)) {
        const bool same = e.index == v.node && m_cluster.node_stamp(e.index) == v.node_stamp
                          && v.pools == m_cache.pools_generation;
        if (same || placed_as_written(v.pod, v.requests, e)) {
          holds = true;
          fit = f;
          moved = !same;
        }
      }
    }
  }
  for (const auto& u : undo) {
    snap.nodes[u.pos].remaining = u.remaining;
  }
  return *holds;
}

const SolveCache::Impl::PendingQueue& Scheduler::pending_queue()
{
  auto& q = m_cache.pending_queue;
  const auto& pending = m_cluster.pending();
  if (q.valid && q.cluster == m_cluster.instance_id() && q.ignore_preferences == m_input.options.ignore_preferences
      && q.tolerate_pns == m_tolerate_pns && q.pending_revision == m_cluster.pending_revision()) {
    return q;
  }
  q.valid = true;
  q.cluster = m_cluster.instance_id();
  q.ignore_preferences = m_input.options.ignore_preferences;
  q.tolerate_pns = m_tolerate_pns;
  q.pending_revision = m_cluster.pending_revision();
  q.summary = {};
  q.queue.clear();
  for (const auto i : pending) {
    if (summarize(i, q.summary)) {
      q.queue.push_back(i);
    }
  }
  std::sort(q.queue.begin(), q.queue.end(), [this](cluster::PodIndex a, cluster::PodIndex b) {
    const auto& pa = m_cluster.pod(a).pod();
    const auto& pb = m_cluster.pod(b).pod();
    return queued_before(pod_requests(pa), pa, a, pod_requests(pb), pb, b);
  });
  return q;
}

bool Scheduler::veto_still_holds()
{
  if (m_input.excluded_nodes.size() != 1 || m_cluster.bound_with_anti_affinity() != 0) {
    return false;
  }
  const auto node = m_input.excluded_nodes.front();
  if (node >= m_cache.vetoes.size()) {
    return false;
  }
  auto& v = m_cache.vetoes[node];
  if (!v.valid || v.ignore_preferences != m_input.options.ignore_preferences
      || v.moving_view != m_input.options.consolidation_simulation || v.tolerate_pns != m_tolerate_pns) {
    return false;
  }
  const auto& candidate = m_cluster.node(node);
  if (candidate.lifecycle == cluster::NodeLifecycle::deleting || candidate.disrupted_taint) {
    return false;
  }
  bool not_ready = v.kind == SolveCache::Impl::Veto::Kind::not_ready;
  // The pod the stop rested on, still bound to the candidate and in the solve (no_room: else
  // another of the remembered pods may do, below).
  // (While the candidate's pod list is the remembered one, by its revision, every remembered pod
  // is still bound there; a pod's state is read only if not: the pods of a node are scattered
  // over the run's pod table.)
  const auto& pods = m_input.pods;
  const auto bound_there = [&](cluster::PodIndex i) {
    const auto& ps = m_cluster.pod(i);
    return ps.phase != cluster::PodPhase::pending && ps.node == node;
  };
  const bool pod_there = (candidate.pods_revision == v.pods_revision || bound_there(v.pod))
                         && std::find(pods.begin(), pods.end(), v.pod) != pods.end();
  if (not_ready && !pod_there) {
    return false;
  }
  // The current cluster state's free room (the snapshot is not refreshed here: the full solve
  // does that). Most answers that changed fail on it, so it comes first.
  // (m_any_host_ports is still false: solves with host ports, for which the snapshot keeps more,
  // are not answered here.)
  auto& snap = m_cache.existing;
  if (!snapshot_current()) {
    return false;
  }
  if (v.moving_view && snap.index.quiet_now() != m_input.options.now) {
    snap.index.set_quiet_now(m_input.options.now);
  }
  const std::uint32_t at = snap.position_of(node);
  const std::size_t own = at != ExistingSnapshot::k_unlisted ? at : FreeCapacityIndex::k_end;
  // With a prefix, the stop pod's node is found after the prefix is placed again (below).
  const bool replay = not_ready && !v.prefix.empty();
  std::size_t fit = FreeCapacityIndex::k_end;
  if (pod_there && !replay) {
    fit = not_ready ? snap.index.first_fit_except(v.requests, v.moving_view, own)
                    : first_ready_fit(snap, FreeCapacityIndex::dims(v.requests), v.moving_view, own);
  }
  // not_ready: the first node the index offers the pod takes it as written, and is not Ready
  // (unchanged since, by its stamp and the NodePools' generation, it still does; else the
  // checks of add_to_existing are made again).
  bool moved = false; // the node or the witness changed: the entry is updated if the answer holds
  // A pod that went to a node that is not Ready and now fits no node is a no_room witness (the
  // pre-check's conditions are then all checked anew).
  const bool became_no_room = not_ready && !replay && fit == FreeCapacityIndex::k_end;
  if (became_no_room) {
    not_ready = false;
  } else if (replay) {
    // placed below
  } else if (not_ready) {
    const auto& e = snap.nodes[fit];
    if (e.node->lifecycle == cluster::NodeLifecycle::ready || !v.requests.fits_in(e.remaining)) {
      return false;
    }
    if (e.index != v.node || m_cluster.node_stamp(e.index) != v.node_stamp || v.pools != m_cache.pools_generation) {
      if (!placed_as_written(v.pod, v.requests, e)) {
        return false;
      }
      moved = true;
    }
  } else if (fit != FreeCapacityIndex::k_end || !pod_there) {
    moved = true; // another remembered pod may still fit nowhere (looked for below)
  }
  // The remembered pods still in the solve are summarised by the remembered summary (any of
  // them ask for no more, and for no topology or requirements the summary does not have); the
  // others (pending pods come and go, pods join the candidate) are summarised now.
  PodsSummary all = v.summary;
  auto& remembered = m_scratch.remembered;
  remembered.clear();
  auto& present = m_scratch.present;
  present.assign(v.pods.size(), 0);
  auto& before = m_scratch.before;
  before.clear();
  // The solve's pending pods, listed first as simulate_scheduling does, from the shared queue: the
  // ones queued before the stop pod are a prefix of it.
  const auto& pending = m_cluster.pending();
  std::size_t from = 0;
#ifndef NDEBUG
  CAPSIM_CHECK(!m_input.pods_start_with_pending
                   || (pods.size() >= pending.size() && std::equal(pending.begin(), pending.end(), pods.begin())),
               "solve: the input's pods do not begin with the pending pods");
#endif
  if (pending_listed_first()) {
    const auto& q = pending_queue();
    all.add(q.summary);
    from = pending.size();
    if (not_ready) {
      const auto& stop = m_cluster.pod(v.pod).pod();
      const auto end = std::partition_point(q.queue.begin(), q.queue.end(), [&](cluster::PodIndex i) {
        const auto& other = m_cluster.pod(i).pod();
        return queued_before(pod_requests(other), other, i, v.requests, stop, v.pod);
      });
      before.assign(q.queue.begin(), end);
    }
  }
  std::size_t hint = 0; // the candidate's pods are listed in order, as `v.pods` are
  for (const auto i : std::span(pods).subspan(from)) {
    std::size_t k = hint;
    if (k >= v.pods.size() || v.pods[k] != i) {
      k = static_cast<std::size_t>(std::lower_bound(v.pods.begin(), v.pods.end(), i) - v.pods.begin());
    }
    if (k < v.pods.size() && v.pods[k] == i) {
      remembered.push_back(static_cast<std::uint32_t>(k));
      present[k] = 1;
      hint = k + 1;
      continue;
    }
    // not_ready: pods queued before the stop pod are placed again first (replay_not_ready).
    const auto& other = m_cluster.pod(i).pod();
    if (summarize(i, all) && not_ready
        && queued_before(pod_requests(other), other, i, v.requests, m_cluster.pod(v.pod).pod(), v.pod)) {
      before.push_back(i);
    }
  }
  if (!all.plain_for(!not_ready)) {
    return false;
  }
  if ((replay || !before.empty())
      && !replay_not_ready(v, own, candidate.pods_revision == v.pods_revision, fit, moved)) {
    return false;
  }
  if (not_ready) {
    if (moved) {
      const auto& e = snap.nodes[fit];
      v.node = e.index;
      v.node_stamp = m_cluster.node_stamp(e.index);
      v.pools = m_cache.pools_generation;
      m_veto_changed = true;
    }
    return true;
  }
  if (moved) { // no_room
    // Another of the remembered pods, bound there, may fit nowhere instead (the pre-check takes
    // any bound pod that does).
    const auto witness = witness_fitting_nowhere(v, own);
    if (!witness) {
      return false;
    }
    v.pod = *witness;
    v.requests = pod_requests(m_cluster.pod(*witness).pod());
    m_veto_changed = true;
  }
  if (!all.zone_only || !templates_current() || (v.templates != m_cache.templates.generation && !became_no_room)
      || std::any_of(m_templates.begin(), m_templates.end(), [this](const Template& t) { return limited(t); })) {
    return false;
  }
  // every_claim_keeps_spot over the resources prepare_pods would use.
  std::uint32_t used = all.dims | (std::uint32_t{1} << model::k_cpu) | (std::uint32_t{1} << model::k_memory)
                       | (std::uint32_t{1} << model::k_pods);
  for (const auto& ds : m_input.daemon_sets) {
    const auto r = spec_requests(*ds);
    for (std::size_t d = 0; d < model::k_max_resources; ++d) {
      if (r.v[d] != 0) {
        used |= std::uint32_t{1} << d;
      }
    }
  }
  const auto within = [&](const model::Resources& limit) {
    for (std::size_t d = 0; d < model::k_max_resources; ++d) {
      if (((used >> d) & 1U) != 0 && all.requests.v[d] > limit.v[d]) {
        return false;
      }
    }
    return true;
  };
  if (became_no_room || used != v.keeps_spot_dims || !within(v.keeps_spot_for)) {
    for (std::size_t d = 0; d < model::k_max_resources; ++d) {
      if (((used >> d) & 1U) != 0) {
        m_dims.push_back(static_cast<model::ResourceId>(d));
      }
    }
    prepare_spot_room(all.requests);
    const bool keeps = every_claim_keeps_spot();
    // (m_dims is cleared below: prepare_pods fills it when the full solve follows)
    if (!keeps) {
      m_dims.clear();
      return false;
    }
    v.keeps_spot_for = spot_room_bound(all.requests);
    m_dims.clear();
    v.keeps_spot_dims = used;
    m_veto_changed = true;
  }
  if (became_no_room) {
    v.kind = SolveCache::Impl::Veto::Kind::no_room;
    v.templates = m_cache.templates.generation;
    m_veto_changed = true;
  }
  return true;
}

// A solve of several candidates stops on the first pod of its queue when that pod is one of the
// candidates' (a moved pod) and the first node besides them that takes it as written (room,
// taints, requirements, in the order add_to_existing tries them, nothing placed yet) is not
// Ready. The candidates' pods are listed in a row after the pending ones
// (SolveInput::candidate_pod_counts); each candidate's first pod is kept per node
// (first_of_node): when it is listed, it is the first of those listed. As stop_resting_on,
// nothing of topology or host ports is in the way.
cluster::PodIndex Scheduler::first_pod_stop()
{
  const auto& excluded = m_input.excluded_nodes;
  const auto& counts = m_input.candidate_pod_counts;
  if (excluded.size() < 2 || counts.size() != excluded.size() || m_cluster.bound_with_anti_affinity() != 0
      || !pending_listed_first() || any_pool_limited(m_input)) {
    return cluster::k_none; // (limits: no stop pod is named, as stop_resting_on)
  }
  const auto& pods = m_input.pods;
  std::size_t at = m_cluster.pending().size();
  cluster::PodIndex first = cluster::k_none;
  model::Resources first_requests;
  for (std::size_t i = 0; i < excluded.size(); ++i) {
    const auto listed = static_cast<std::size_t>(counts[i]);
    if (pods.size() - at < listed) {
      return cluster::k_none;
    }
    const auto from = pods.begin() + static_cast<std::ptrdiff_t>(at);
    const auto to = from + static_cast<std::ptrdiff_t>(listed);
    at += listed;
    if (listed == 0) {
      continue;
    }
    const auto& node = m_cluster.node(excluded[i]);
#ifndef NDEBUG
    for (auto it = from; it != to; ++it) {
      CAPSIM_CHECK(m_cluster.pod(*it).node == excluded[i] && m_cluster.pod(*it).phase != cluster::PodPhase::pending,
                   "solve: a pod listed as a candidate's is not bound there");
    }
#endif
    if (node.lifecycle == cluster::NodeLifecycle::deleting || node.disrupted_taint) {
      return cluster::k_none;
    }
    const auto& f = first_of_node(excluded[i]);
    if (!f.plain) {
      return cluster::k_none;
    }
    if (f.pod == cluster::k_none) {
      continue; // (none of its pods is kept)
    }
    if (std::find(from, to, f.pod) == to) {
      return cluster::k_none; // the first of those listed is not known
    }
    const auto& pod = m_cluster.pod(f.pod).pod();
    const model::Resources requests = pod_requests(pod);
    if (first == cluster::k_none
        || queued_before(requests, pod, f.pod, first_requests, m_cluster.pod(first).pod(), first)) {
      first = f.pod;
      first_requests = requests;
    }
  }
  if (first == cluster::k_none) {
    return cluster::k_none;
  }
  // Before the pending pods and those of deleting nodes.
  const auto& stop = m_cluster.pod(first).pod();
  const auto after_stop = [&](cluster::PodIndex i) {
    const auto& other = m_cluster.pod(i).pod();
    return queued_before(first_requests, stop, first, pod_requests(other), other, i);
  };
  const auto& q = pending_queue();
  if (!q.queue.empty() && !after_stop(q.queue.front())) {
    return cluster::k_none;
  }
  PodsSummary others = q.summary;
  for (const auto i : std::span(pods).subspan(at)) {
    if (summarize(i, others) && !after_stop(i)) {
      return cluster::k_none;
    }
  }
  if (!others.plain_for(false)) {
    return cluster::k_none;
  }
  // The free room now, the snapshot brought up to date as prepare_existing does (the solve that
  // follows a failed check finds it so).
  m_cache.forget_terminated(m_cluster);
  if (snapshot_refreshable()) {
    refresh_snapshot(m_cache.existing.epoch);
  } else if (!snapshot_current()) {
    m_daemon_list = m_cache.prepared_daemons(m_input.daemon_sets);
    m_daemons = m_daemon_list.get();
    build_snapshot();
  }
  auto& snap = m_cache.existing;
  const bool moving = m_input.options.consolidation_simulation;
  if (moving && snap.index.quiet_now() != m_input.options.now) {
    snap.index.set_quiet_now(m_input.options.now);
  }
  auto& sorted = m_cache.sorted_candidates;
  sorted.assign(excluded.begin(), excluded.end());
  std::sort(sorted.begin(), sorted.end());
  const FreeCapacityIndex::Dims want = FreeCapacityIndex::dims(first_requests);
  for (std::size_t pos = snap.index.next(0, want, moving); pos != FreeCapacityIndex::k_end;
       pos = snap.index.next(pos + 1, want, moving)) {
    const ExistingNode& node = snap.nodes[pos];
    if (std::binary_search(sorted.begin(), sorted.end(), node.index)) {
      continue;
    }
    if (placed_as_written(first, first_requests, node)) {
      return node.node->lifecycle != cluster::NodeLifecycle::ready ? first : cluster::k_none;
    }
  }
  return cluster::k_none;
}

const SolveCache::Impl::FirstOfNode& Scheduler::first_of_node(cluster::NodeIndex n)
{
  auto& all = m_cache.first_of_node;
  if (all.size() <= n) {
    all.resize(std::max<std::size_t>(static_cast<std::size_t>(n) + 1, 2 * all.size()));
  }
  auto& f = all[n];
  const auto& node = m_cluster.node(n);
  const bool ignore = m_input.options.ignore_preferences;
  if (f.cluster == m_cluster.instance_id() && f.pods_revision == node.pods_revision && f.ignore_preferences == ignore
      && f.tolerate_pns == m_tolerate_pns) {
    return f;
  }
  f = {m_cluster.instance_id(), node.pods_revision, cluster::k_none, ignore, m_tolerate_pns, true};
  model::Resources first_requests;
  for (const auto i : node.pods) {
    const auto& pod = m_cluster.pod(i).pod();
    if (pod.spec == nullptr) {
      f.plain = false; // (not told)
      continue;
    }
    const auto& data = m_cache.spec_data(pod.spec, ignore, m_tolerate_pns);
    if (!data.validation_error.empty()) {
      continue; // (the solve leaves it out)
    }
    f.plain = f.plain && !has_pod_topology(*pod.spec) && pod.spec->host_ports.empty();
    const model::Resources requests = pod_requests(pod);
    if (f.pod == cluster::k_none
        || queued_before(requests, pod, i, first_requests, m_cluster.pod(f.pod).pod(), f.pod)) {
      f.pod = i;
      first_requests = requests;
    }
  }
  return f;
}

bool Scheduler::pending_listed_first() const
{
  const auto& pods = m_input.pods;
  const auto& pending = m_cluster.pending();
  return m_input.pods_start_with_pending
         || (pods.size() >= pending.size() && std::equal(pending.begin(), pending.end(), pods.begin()));
}

void Scheduler::restore_existing()
{
  if (!m_snapshot_in_use) {
    return;
  }
  auto& snap = m_cache.existing;
  const bool index_undone = m_index->undo_log();
  for (auto it = m_undo.rbegin(); it != m_undo.rend(); ++it) {
    auto& e = snap.nodes[it->pos];
    e.remaining = it->remaining;
    e.host_ports.resize(it->host_ports);
    e.own_reqs.reset();
    e.touched = false;
    if (!index_undone) {
      index_update(it->pos, e);
    }
  }
  for (const auto pos : m_excluded) {
    snap.nodes[pos].excluded = false;
    if (!index_undone) {
      index_update(pos, snap.nodes[pos]);
    }
  }
#ifndef NDEBUG
  CAPSIM_CHECK(m_index->consistent_with(snap.nodes),
               "solve: the free-capacity index differs from its nodes once undone");
#endif
  m_index->restore_version(m_index_version);
  ++m_scratch.fit_floor_solve;
  m_undo.clear();
  m_excluded.clear();
  m_snapshot_in_use = false;
}

void Scheduler::prepare_limits()
{
  const auto& snap = m_cache.existing;
  m_limits.assign(m_templates.size(), TemplateLimits{});
  for (std::size_t ti = 0; ti < m_templates.size(); ++ti) {
    const Template& t = m_templates[ti];
    TemplateLimits& l = m_limits[ti];
    if (m_input.remaining_limits.size() == m_input.node_pools.size()) {
      l.remaining = m_input.remaining_limits[t.input];
      l.limited = !l.remaining.empty();
      continue;
    }
    l.remaining = limits_of(*t.pool);
    l.limited = !l.remaining.empty();
    if (!l.limited) {
      continue;
    }
    // updateRemainingResources: subtract the capacity of the pool's existing nodes (the
    // snapshot's totals minus the excluded nodes; integer sums, so the order does not matter).
    const auto pool_index = t.pool_index;
    const auto is_pool_node = [&](const ExistingNode& e) {
      return e.node->owner == cluster::NodeOwner::node_pool && e.node->pool == pool_index;
    };
    const auto capacity = [](const cluster::NodeState& n) {
      return n.instance_type != nullptr ? n.instance_type->capacity : n.allocatable;
    };
    model::Resources used = snap.pool_capacity[t.input];
    std::int64_t count = snap.pool_nodes[t.input];
    for (const auto pos : m_excluded) {
      const auto& e = snap.nodes[pos];
      if (is_pool_node(e)) {
        used -= capacity(*e.node);
        --count;
      }
    }
    l.remaining.max -= used;
    if (l.remaining.nodes) {
      *l.remaining.nodes -= count;
    }
    if (l.remaining.usd_per_hour) {
      // A floating-point sum: subtracted node by node in list order, as before.
      for (const auto& e : snap.nodes) {
        if (!e.excluded && is_pool_node(e)) {
          *l.remaining.usd_per_hour -= e.node->price_per_hour;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Topology

const std::vector<DomainEntry>& Scheduler::domain_group(KeyId key)
{
  auto& cached = m_cache.domain_groups;
  if (cached.generation != m_cache.pools_generation) {
    cached.generation = m_cache.pools_generation;
    cached.by_key.clear();
  }
  if (auto it = cached.by_key.find(key); it != cached.by_key.end()) {
    return it->second;
  }
  // buildDomainGroups: per NodePool, values of (pool requirements ∧ labels ∧ type requirements)
  // for every instance type, plus the pool's own In values. Values() of a complement
  // requirement are its excluded values; upstream inserts them too.
  std::vector<DomainEntry> out;
  const auto insert = [&](ValueId d, std::uint32_t pool) {
    auto it = std::find_if(out.begin(), out.end(), [&](const DomainEntry& e) { return e.domain == d; });
    if (it == out.end()) {
      out.push_back({d, {}, false});
      it = out.end() - 1;
    }
    const bool untainted = m_input.node_pools[pool].pool->taints.empty();
    if (untainted) {
      it->untainted = true;
      it->pools.clear();
    } else if (!it->untainted) {
      it->pools.push_back(pool);
    }
  };
  for (std::uint32_t i = 0; i < m_input.node_pools.size(); ++i) {
    const auto& np = m_input.node_pools[i];
    ReqSet pool_reqs = to_req_set(np.pool->requirements, m_in);
    pool_reqs.add(labels_to_req_set(np.pool->template_labels, m_in), m_in);
    const Req* own = pool_reqs.find(key);
    for (const auto& type : m_pool_types[i]->types()) {
      const Req* tr = type.requirements.find(key);
      if (own == nullptr && tr == nullptr) {
        continue;
      }
      const Req r = own == nullptr ? *tr : (tr == nullptr ? *own : req_intersection(*tr, *own, m_in));
      for (const ValueId v : r.values) {
        insert(v, i);
      }
    }
    if (own != nullptr && own->op() == ReqOp::in) {
      for (const ValueId v : own->values) {
        insert(v, i);
      }
    }
  }
  return cached.by_key.emplace(key, std::move(out)).first->second;
}

std::uint32_t Scheduler::add_group(const GroupProto& proto, const model::PodSpec& owner, bool inverse)
{
  const std::string& id = proto.id;
  auto& ids = inverse ? m_inverse_ids : m_group_ids;
  auto& list = inverse ? m_inverse : m_groups;
  if (auto it = ids.find(id); it != ids.end()) {
    return it->second;
  }
  TopologyGroup g = proto.group;
  // Initial domains: ForEachDomain with the owner's tolerations unless the taint policy is
  // Ignore (only spread constraints can have Ignore; affinity groups always check taints).
  const bool check_taints = g.type != TopologyType::spread || g.filter.honor_taints;
  for (const auto& e : domain_group(g.key)) {
    bool ok = !check_taints || e.untainted;
    if (!ok) {
      for (const auto pool : e.pools) {
        if (model::tolerates_all(owner.tolerations, m_input.node_pools[pool].pool->taints, false)) {
          ok = true;
          break;
        }
      }
    }
    if (ok) {
      g.register_domain(e.domain);
    }
  }
  if (!inverse) {
    count_domains(g, id);
  }
  const auto n = static_cast<std::uint32_t>(list.size());
  list.push_back(std::move(g));
  ids.emplace(id, n);
  return n;
}

std::optional<ValueId> Scheduler::counted_domain(const TopologyGroup& g, cluster::NodeIndex ni)
{
  const auto& n = m_cluster.node(ni);
  const auto& cached = m_cache.node(ni, n);
  ValueId domain = 0;
  if (const Req* r = cached.labels.find(g.key)) {
    domain = r->values.front();
  } else if (g.hostname) {
    domain = m_in.value(n.name);
  } else {
    return std::nullopt;
  }
  if (!g.filter.matches(n.taints, cached.labels, m_in)) {
    return std::nullopt;
  }
  return domain;
}

std::optional<ValueId> Scheduler::running_domain(const TopologyGroup& g, cluster::PodIndex pi, cluster::NodeIndex ni,
                                                 DomainMemo& memo)
{
  const model::PodSpec* spec = m_cluster.pod(pi).pod().spec.get();
  if (spec == nullptr) {
    return std::nullopt;
  }
  if (spec != memo.spec) {
    memo.spec = spec;
    memo.spec_counts = memo.known == nullptr ? g.counts_existing(*spec) : counts_pods_of(*memo.known, g, spec);
  }
  if (!memo.spec_counts) {
    return std::nullopt;
  }
  if (ni != memo.node) {
    memo.node = ni;
    memo.node_domain = counted_domain(g, ni);
  }
  return memo.node_domain;
}

ExistingSnapshot::GroupCounts::NodeShare Scheduler::node_share(const TopologyGroup& g, cluster::NodeIndex i)
{
  ExistingSnapshot::GroupCounts::NodeShare out;
  out.node = i;
  const auto& n = m_cluster.node(i);
  const auto& cached = m_cache.node(i, n);
  if (!g.filter.matches(n.taints, cached.labels, m_in)) {
    return out;
  }
  if (const Req* r = cached.labels.find(g.key)) {
    out.domain = r->values.front();
    out.counted = true;
    // Existing nodes register their domains; in-flight NodeClaims without a Node do not.
    out.registers = !g.hostname && n.lifecycle != cluster::NodeLifecycle::launching;
  } else if (g.hostname) {
    out.domain = m_in.value(n.name);
    out.counted = true;
  }
  return out;
}

void Scheduler::count_running(const TopologyGroup& g, const std::string& id, ExistingSnapshot::GroupCounts& out)
{
  list_running();
  auto& snap = m_cache.existing;
  out.group = g;
  out.nodes.clear();
  out.node_domains.clear();
  out.pods.clear();
  for (const cluster::NodeIndex i : m_cluster.alive_node_indices()) {
    out.nodes.push_back(node_share(g, i));
  }
  // Scheduled pods matching the selector, per node.
  // (Both lists are sorted by spec: a walk along them, asking only the specs new to the group.)
  auto& known = snap.counts_spec[id];
  auto& asked = m_scratch.asked_specs;
  asked.clear();
  std::size_t k = 0;
  for (std::size_t run = 0; run < snap.spec_starts.size(); ++run) {
    const std::size_t begin = snap.spec_starts[run];
    const std::size_t end = run + 1 < snap.spec_starts.size() ? snap.spec_starts[run + 1] : snap.running.size();
    const model::PodSpec* spec = snap.running[begin].spec;
    if (spec == nullptr) {
      continue;
    }
    while (k < known.size() && std::less<const model::PodSpec*>()(known[k].first, spec)) {
      ++k;
    }
    bool counts = false;
    if (k < known.size() && known[k].first == spec) {
      counts = known[k].second;
    } else {
      counts = g.counts_existing(*spec);
      asked.emplace_back(spec, counts);
    }
    if (!counts) {
      continue;
    }
    // A spec's pods are listed by node: each share is found after the last one.
    auto at = out.nodes.begin();
    for (std::size_t i = begin; i < end; ++i) {
      at = std::lower_bound(at, out.nodes.end(), snap.running[i].node,
                            [](const auto& share, cluster::NodeIndex n) { return share.node < n; });
      CAPSIM_CHECK(at != out.nodes.end() && at->node == snap.running[i].node,
                   "solve: a running pod's node is not alive");
      ++at->pods;
    }
  }
  if (!asked.empty()) {
    const auto before = [](const auto& a, const auto& b) { return std::less<const model::PodSpec*>()(a.first, b.first); };
    const auto middle = static_cast<std::ptrdiff_t>(known.size());
    known.insert(known.end(), asked.begin(), asked.end());
    std::inplace_merge(known.begin(), known.begin() + middle, known.end(), before);
  }
  for (const auto& share : out.nodes) {
    add_share(out, share, 1);
  }
}

const ExistingSnapshot::GroupCounts& Scheduler::group_counts(const TopologyGroup& g, const std::string& id)
{
  auto [it, inserted] = m_cache.existing.group_counts.try_emplace(id);
  ExistingSnapshot::GroupCounts& out = it->second;
  out.idle = 0;
  if (inserted) {
    count_running(g, id, out);
  }
#ifndef NDEBUG
  else {
    // Debug builds count afresh and compare with the kept counts.
    ExistingSnapshot::GroupCounts fresh;
    count_running(g, id, fresh);
    const auto same_share = [](const auto& a, const auto& b) {
      return a.node == b.node && a.counted == b.counted && a.registers == b.registers && a.pods == b.pods
             && (!a.counted || a.domain == b.domain);
    };
    CAPSIM_CHECK(std::equal(fresh.nodes.begin(), fresh.nodes.end(), out.nodes.begin(), out.nodes.end(), same_share)
                     && fresh.node_domains == out.node_domains && fresh.pods == out.pods,
                 "solve: kept topology counts differ from a fresh count");
  }
#endif
  return out;
}

void Scheduler::count_domains(TopologyGroup& g, const std::string& id)
{
  // The running pods' counts less the batch's (countDomains lists pods; the batch is excluded).
  const auto& base = group_counts(g, id);
  for (const auto& [d, nodes] : base.node_domains) {
    g.register_domain(d);
  }
  auto& minus = m_scratch.batch_domains;
  minus.clear();
  DomainMemo memo;
  memo.known = &m_cache.existing.counts_spec[id];
  for (const cluster::PodIndex pi : m_batch) {
    // In ExistingSnapshot::running: bound (not as a DaemonSet pod) to an alive node.
    const auto& p = m_cluster.pod(pi);
    if (p.node == cluster::k_none || p.pod().is_daemon || !m_cluster.node(p.node).alive()) {
      continue;
    }
    if (const auto d = running_domain(g, pi, p.node, memo)) {
      minus.push_back(*d);
    }
  }
  std::sort(minus.begin(), minus.end());
  if (g.hostname) {
    g.host_counts.reserve(base.pods.size());
  }
  auto m = minus.begin();
  for (const auto& [d, c] : base.pods) {
    std::int32_t n = c;
    for (; m != minus.end() && *m == d; ++m) {
      --n;
    }
    if (n > 0) {
      g.record(d, n);
    }
  }
  CAPSIM_CHECK(m == minus.end(), "solve: a batch pod counts in a topology domain no running pod counts in");
#ifndef NDEBUG
  // Debug builds count the running pods outside the batch from scratch, as upstream does.
  list_running();
  TopologyGroup fresh = g;
  fresh.domains.clear();
  fresh.host_counts.clear();
  fresh.nonzero = 0;
  for (const auto& [d, c] : g.domains) {
    if (c == 0) {
      fresh.register_domain(d);
    }
  }
  for (const auto& [listed_spec, pi, ni] : m_cache.existing.running) {
    CAPSIM_CHECK(m_cluster.pod(pi).node == ni && m_cluster.pod(pi).pod().spec.get() == listed_spec,
                 "solve: a running pod's node or spec differs from its listing");
    if (std::binary_search(m_batch.begin(), m_batch.end(), pi)) {
      continue;
    }
    const auto& spec = m_cluster.pod(pi).pod().spec;
    if (!spec || !g.counts_existing(*spec)) {
      continue;
    }
    if (const auto domain = counted_domain(g, ni)) {
      fresh.record(*domain);
    }
  }
  CAPSIM_CHECK(fresh.domains == g.domains && fresh.host_counts == g.host_counts && fresh.nonzero == g.nonzero,
               "solve: kept topology counts differ from a fresh count");
#endif
}

TopologyGroup Scheduler::make_affinity_group(TopologyType type, const model::PodAffinityTerm& term,
                                             const model::PodSpec& owner)
{
  TopologyGroup g;
  g.type = type;
  g.key = m_in.key(term.topology_key);
  g.hostname = g.key == m_in.k_hostname;
  if (term.all_namespaces) {
    g.all_namespaces = true;
  } else if (term.namespaces.empty()) {
    g.namespaces = {owner.namespace_};
  } else {
    g.namespaces = term.namespaces;
    std::sort(g.namespaces.begin(), g.namespaces.end());
    g.namespaces.erase(std::unique(g.namespaces.begin(), g.namespaces.end()), g.namespaces.end());
  }
  g.selector_nil = !term.selector.has_value();
  if (term.selector) {
    g.selector = *term.selector;
  }
  for (const auto& k : term.match_label_keys) {
    auto it = owner.labels.find(k);
    if (it != owner.labels.end() && term.selector) {
      g.selector.match_expressions.push_back({k, model::Operator::in, {it->second}});
    }
  }
  g.max_skew = std::numeric_limits<std::int32_t>::max();
  return g;
}

SpecGroups Scheduler::make_spec_groups(const SpecData& data)
{
  const model::PodSpec& spec = *data.spec;
  const bool ignore = data.ignore_preferences;
  const auto proto = [&](TopologyGroup g) {
    GroupProto p;
    p.id = group_identity(g, m_in);
    p.group = std::move(g);
    return p;
  };
  SpecGroups out;
  out.spread.resize(spec.topology_spread.size());
  for (std::size_t i = 0; i < spec.topology_spread.size(); ++i) {
    const auto& tsc = spec.topology_spread[i];
    if (ignore && tsc.when_unsatisfiable != model::UnsatisfiableAction::do_not_schedule) {
      continue;
    }
    TopologyGroup g;
    g.type = TopologyType::spread;
    g.key = m_in.key(tsc.topology_key);
    g.hostname = g.key == m_in.k_hostname;
    g.namespaces = {spec.namespace_};
    g.selector_nil = !tsc.selector.has_value();
    if (tsc.selector) {
      g.selector = *tsc.selector;
      for (const auto& k : tsc.match_label_keys) {
        auto l = spec.labels.find(k);
        if (l != spec.labels.end()) {
          g.selector.match_expressions.push_back({k, model::Operator::in, {l->second}});
        }
      }
    }
    g.max_skew = tsc.max_skew;
    g.min_domains = tsc.min_domains;
    g.filter.active = true;
    g.filter.honor_taints = tsc.node_taints_policy_honor;
    g.filter.honor_affinity = tsc.node_affinity_policy_honor;
    g.filter.tolerations = spec.tolerations;
    if (spec.required_node_affinity.empty()) {
      g.filter.terms.push_back(data.node_selector);
    } else {
      for (const auto& term : data.required_terms) {
        ReqSet s = data.node_selector;
        s.add(term, m_in);
        g.filter.terms.push_back(std::move(s));
      }
    }
    out.spread[i] = proto(std::move(g));
  }
  for (const auto& term : spec.pod_affinity_required) {
    out.affinity_required.push_back(proto(make_affinity_group(TopologyType::affinity, term, spec)));
  }
  for (const auto& term : spec.pod_anti_affinity_required) {
    out.anti_required.push_back(proto(make_affinity_group(TopologyType::anti_affinity, term, spec)));
  }
  if (!ignore) {
    for (const auto i : data.preferred_affinity_order) {
      out.affinity_preferred.push_back(
          proto(make_affinity_group(TopologyType::affinity, spec.pod_affinity_preferred[i].term, spec)));
    }
    for (const auto i : data.preferred_anti_affinity_order) {
      out.anti_preferred.push_back(
          proto(make_affinity_group(TopologyType::anti_affinity, spec.pod_anti_affinity_preferred[i].term, spec)));
    }
  }
  return out;
}

const SpecGroups& Scheduler::spec_groups(const SpecData& data)
{
  auto it = m_cache.specs.find(data.spec.get());
  CAPSIM_CHECK(it != m_cache.specs.end() && it->second.data.get() == &data, "solve: a pod's spec data is not the cache's");
  auto& groups = it->second.groups;
  if (!groups) {
    groups = std::make_unique<SpecGroups>(make_spec_groups(data));
  }
  return *groups;
}

void Scheduler::list_running()
{
  auto& snap = m_cache.existing;
  if (snap.running_known) {
    return;
  }
  // Bound pods of alive nodes (any lifecycle), for this cluster state.
  const auto& nodes = m_cluster.nodes();
  for (const cluster::NodeIndex i : m_cluster.alive_node_indices()) {
    for (const auto pi : nodes[i].pods) {
      snap.running.push_back({m_cluster.pod(pi).pod().spec.get(), pi, i});
    }
  }
  // (Counts do not depend on the order: any order of the specs does.)
  std::sort(snap.running.begin(), snap.running.end(),
            [](const ExistingSnapshot::RunningPod& a, const ExistingSnapshot::RunningPod& b) {
              return std::less<const model::PodSpec*>()(a.spec, b.spec)
                     || (a.spec == b.spec && std::pair(a.node, a.pod) < std::pair(b.node, b.pod));
            });
  for (std::size_t i = 0; i < snap.running.size(); ++i) {
    if (i == 0 || snap.running[i].spec != snap.running[i - 1].spec) {
      snap.spec_starts.push_back(static_cast<std::uint32_t>(i));
    }
  }
  snap.running_known = true;
}

void Scheduler::list_anti_affinity()
{
  auto& snap = m_cache.existing;
  if (snap.anti_affinity_known) {
    return;
  }
  // Node by node, as updateInverseAffinities meets them.
  const auto& nodes = m_cluster.nodes();
  for (const cluster::NodeIndex i : m_cluster.alive_node_indices()) {
    for (const auto pi : nodes[i].pods) {
      const auto& spec = m_cluster.pod(pi).pod().spec;
      if (spec && !spec->pod_anti_affinity_required.empty()) {
        snap.anti_affinity.emplace_back(pi, i);
      }
    }
  }
  snap.anti_affinity_known = true;
}

void Scheduler::prepare_topology_shape()
{
  m_topology_needed =
      std::any_of(m_pods.begin(), m_pods.end(), [](const QueuedPod& q) { return has_pod_topology(*q.data->spec); });
  m_any_groups = false;
  m_groups_zone_or_host = true;
  if (!m_topology_needed && m_cluster.bound_with_anti_affinity() == 0) {
    return; // no groups
  }
  list_anti_affinity();
  // As prepare_topology makes them: the inverse groups of the running pods' anti-affinity...
  for (const auto& [pi, ni] : m_cache.existing.anti_affinity) {
    if (std::binary_search(m_batch.begin(), m_batch.end(), pi)) {
      continue;
    }
    for (const auto& term : m_cluster.pod(pi).pod().spec->pod_anti_affinity_required) {
      const KeyId key = m_in.key(term.topology_key);
      m_any_groups = true;
      m_groups_zone_or_host = m_groups_zone_or_host && (key == m_in.k_zone || key == m_in.k_hostname);
    }
  }
  // ...and the groups of the batch's pods (the run's debug check compares with the groups made).
  for (const auto& q : m_pods) {
    m_any_groups = m_any_groups || q.data->makes_topology_groups;
    m_groups_zone_or_host = m_groups_zone_or_host && q.data->zone_only_topology;
  }
}

void Scheduler::prepare_topology()
{
  // Bound pods outside the batch (countDomains lists pods; the batch is excluded).
  if (!m_topology_needed && m_cluster.bound_with_anti_affinity() == 0) {
    return; // nothing below would be used
  }
  const auto& nodes = m_cluster.nodes();
  auto& snap = m_cache.existing;
  const auto outside_batch = [&](const std::pair<cluster::PodIndex, cluster::NodeIndex>& r) {
    return !std::binary_search(m_batch.begin(), m_batch.end(), r.first);
  };
  // Without topology in the batch, the running pods matter only through their required
  // anti-affinity.
  if (!m_topology_needed && std::none_of(snap.anti_affinity.begin(), snap.anti_affinity.end(), outside_batch)) {
    return;
  }
  // Inverse anti-affinity of existing pods outside the batch (updateInverseAffinities).
  for (const auto& entry : snap.anti_affinity) {
    if (!outside_batch(entry)) {
      continue;
    }
    const auto& [pi, ni] = entry;
    const auto& spec = m_cluster.pod(pi).pod().spec;
    const auto& cached = m_cache.node(ni, nodes[ni]);
    for (const auto& term : spec->pod_anti_affinity_required) {
      GroupProto proto;
      proto.group = make_affinity_group(TopologyType::anti_affinity, term, *spec);
      proto.id = group_identity(proto.group, m_in);
      const auto gi = add_group(proto, *spec, true);
      if (const Req* r = cached.labels.find(m_inverse[gi].key)) {
        m_inverse[gi].record(r->values.front());
      }
    }
  }
  // Groups of the pods being scheduled (Topology.Update for each pod, variant 0).
  for (auto& q : m_pods) {
    const model::PodSpec& spec = *q.data->spec;
    auto [it, inserted] = m_spec_topo.try_emplace(&spec);
    q.topo = &it->second;
    if (!inserted) {
      continue;
    }
    SpecTopo& st = it->second;
    const SpecGroups& groups = spec_groups(*q.data);
    st.spread_group.assign(groups.spread.size(), -1);
    for (std::size_t i = 0; i < groups.spread.size(); ++i) {
      if (groups.spread[i]) {
        st.spread_group[i] = static_cast<std::int32_t>(add_group(*groups.spread[i], spec, false));
      }
    }
    for (const auto& g : groups.affinity_required) {
      st.affinity_required.push_back(add_group(g, spec, false));
    }
    for (const auto& g : groups.anti_required) {
      st.anti_required.push_back(add_group(g, spec, false));
      st.inverse_owned.push_back(add_group(g, spec, true));
    }
    for (const auto& g : groups.affinity_preferred) {
      st.affinity_preferred.push_back(add_group(g, spec, false));
    }
    for (const auto& g : groups.anti_preferred) {
      st.anti_preferred.push_back(add_group(g, spec, false));
    }
  }
  // Which groups select each spec (Record, inverse matching).
  for (auto& [spec, st] : m_spec_topo) {
    for (std::uint32_t g = 0; g < m_groups.size(); ++g) {
      if (m_groups[g].selects(*spec)) {
        st.selecting.push_back(g);
      }
    }
    for (std::uint32_t g = 0; g < m_inverse.size(); ++g) {
      if (m_inverse[g].selects(*spec)) {
        st.inverse_selecting.push_back(g);
      }
    }
    st.any = !st.selecting.empty() || !st.inverse_selecting.empty() || !st.inverse_owned.empty()
             || std::any_of(st.spread_group.begin(), st.spread_group.end(), [](std::int32_t x) { return x >= 0; })
             || !st.affinity_required.empty() || !st.affinity_preferred.empty() || !st.anti_required.empty()
             || !st.anti_preferred.empty();
  }
}

bool Scheduler::topology_requirements(const QueuedPod& p, const PodVariant& v, const std::vector<model::Taint>&,
                                      const ReqSet& base, bool allow_wk, AddPlan& plan, std::string* err) const
{
  const SpecTopo& st = *p.topo;
  // Accumulated topology requirements per key, starting from the node's requirements.
  std::vector<Req> topo;
  const auto visit = [&](const TopologyGroup& g, bool self) -> bool {
    const Req exists = make_exists(g.key);
    const Req* pd = v.strict.find(g.key);
    const Req* nd = lookup(base, plan.delta, g.key);
    const Req domains = next_domain(g, self, pd != nullptr ? *pd : exists, nd != nullptr ? *nd : exists, m_in);
    if (domains.op() == ReqOp::does_not_exist) {
      if (err != nullptr) {
        *err = fmt::format("unsatisfiable topology constraint for {}, key={} (podDomains = {}, nodeDomains = {})",
                           g.type == TopologyType::spread     ? "topology spread"
                           : g.type == TopologyType::affinity ? "pod affinity"
                                                              : "pod anti-affinity",
                           m_in.key_name(g.key), req_to_string(pd != nullptr ? *pd : exists, m_in),
                           req_to_string(nd != nullptr ? *nd : exists, m_in));
      }
      return false;
    }
    auto it = std::find_if(topo.begin(), topo.end(), [&](const Req& r) { return r.key == g.key; });
    if (it == topo.end()) {
      topo.push_back(nd != nullptr ? req_intersection(domains, *nd, m_in) : domains);
    } else {
      *it = req_intersection(domains, *it, m_in);
    }
    return true;
  };
  const auto owned = [&](std::uint32_t gi) {
    return visit(m_groups[gi], std::binary_search(st.selecting.begin(), st.selecting.end(), gi));
  };
  for (const auto i : v.spread) {
    if (st.spread_group[i] >= 0 && !owned(static_cast<std::uint32_t>(st.spread_group[i]))) {
      return false;
    }
  }
  for (const auto gi : st.affinity_required) {
    if (!owned(gi)) {
      return false;
    }
  }
  for (std::size_t i = v.preferred_affinity_removed; i < st.affinity_preferred.size(); ++i) {
    if (!owned(st.affinity_preferred[i])) {
      return false;
    }
  }
  for (const auto gi : st.anti_required) {
    if (!owned(gi)) {
      return false;
    }
  }
  for (std::size_t i = v.preferred_anti_affinity_removed; i < st.anti_preferred.size(); ++i) {
    if (!owned(st.anti_preferred[i])) {
      return false;
    }
  }
  for (const auto gi : st.inverse_selecting) {
    if (!visit(m_inverse[gi], false)) {
      return false;
    }
  }
  // nodeRequirements.Compatible(topologyRequirements).
  for (auto& r : topo) {
    const Req* nd = lookup(base, plan.delta, r.key);
    if (nd == nullptr) {
      if (!(allow_wk && m_in.well_known(r.key)) && !r.negative()) {
        if (err != nullptr) {
          *err = fmt::format("label \"{}\" does not have known values", m_in.key_name(r.key));
        }
        return false;
      }
    } else if (!req_has_intersection(*nd, r, m_in) && !(nd->negative() && r.negative())) {
      if (err != nullptr) {
        *err = fmt::format("key {}, {} not in {}", m_in.key_name(r.key), req_to_string(r, m_in),
                           req_to_string(*nd, m_in));
      }
      return false;
    }
  }
  for (auto& r : topo) {
    put(plan.delta, std::move(r));
  }
  return true;
}

void Scheduler::record(const QueuedPod& p, const PodVariant&, const std::vector<model::Taint>& taints,
                       const ReqSet& reqs)
{
  const SpecTopo& st = *p.topo;
  for (const auto gi : st.selecting) {
    auto& g = m_groups[gi];
    if (!g.filter.matches(taints, reqs, m_in)) {
      continue;
    }
    const Req* r = reqs.find(g.key);
    if (r == nullptr) {
      continue;
    }
    if (g.type == TopologyType::anti_affinity) {
      for (const ValueId d : r->values) {
        g.record(d);
      }
    } else if (r->single()) {
      g.record(r->values.front());
    }
  }
  for (const auto gi : st.inverse_owned) {
    auto& g = m_inverse[gi];
    if (const Req* r = reqs.find(g.key)) {
      for (const ValueId d : r->values) {
        g.record(d);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Placement

bool Scheduler::requirements_plan(const ReqSet& base, bool allow_wk, const QueuedPod& p, const PodVariant& v,
                                  const std::vector<model::Taint>& taints, AddPlan& plan, std::string* err) const
{
  plan.delta.clear();
  plan.min_values_relaxed = false;
  if (!v.requirements.empty()) {
    if (!base.compatible(v.requirements, allow_wk, m_in)) {
      if (err != nullptr) {
        *err = "incompatible requirements, " + base.compatible_error(v.requirements, allow_wk, m_in);
      }
      return false;
    }
    for (const auto& r : v.requirements.items()) {
      const Req* b = base.find(r.key);
      plan.delta.push_back(b != nullptr ? req_intersection(r, *b, m_in) : r);
    }
  }
  if (p.topo != nullptr && p.topo->any) {
    return topology_requirements(p, v, taints, base, allow_wk, plan, err);
  }
  return true;
}

model::Resources Scheduler::max_alloc(const Template& t, const TypeSet& options) const
{
  model::Resources m;
  for (const auto d : m_dims) {
    m.v[d] = t.types->max_allocatable(d, options);
  }
  return m;
}

bool Scheduler::filter_types(const Template& t, const TypeSet& options, const ReqSet& base,
                             const OfferingFilter& base_filter, const model::Resources& requests,
                             const std::vector<std::vector<std::int32_t>>* ports, const QueuedPod& p,
                             bool relax_min_values, AddPlan& plan, std::string* err)
{
  plan.options = options;
  bool offerings_changed = false;
  for (const auto& r : plan.delta) {
    if (t.types->defines(r.key)) {
      plan.options.and_with(t.types->compatible_with(r, m_in));
    }
    offerings_changed = offerings_changed || r.key == m_in.k_zone || r.key == m_in.k_capacity_type;
  }
  plan.filter = base_filter;
  if (offerings_changed) {
    ReqSet zc;
    if (const Req* z = lookup(base, plan.delta, m_in.k_zone)) {
      zc.set(*z);
    }
    if (const Req* c = lookup(base, plan.delta, m_in.k_capacity_type)) {
      zc.set(*c);
    }
    plan.filter = offering_filter(zc, m_cache.space, m_in);
  }
  if (offerings_changed) {
    plan.options.and_with(t.types->with_offering(plan.filter));
  }
  // fits: per DaemonSet group, requests + the group's overhead within allocatable (all bitset
  // operations over the pool's per-resource threshold sets); groups whose DaemonSets use one of
  // the pod's host ports are out.
  const auto& pod_ports = p.data->spec->host_ports;
  m_fit.clear(plan.options.size());
  for (std::size_t gi = 0; gi < t.groups.size(); ++gi) {
    if (!pod_ports.empty() && ports != nullptr) {
      const auto& used = (*ports)[gi];
      if (std::any_of(pod_ports.begin(), pod_ports.end(), [&](std::int32_t port) {
            return std::find(used.begin(), used.end(), port) != used.end();
          })) {
        continue;
      }
    }
    m_tmp = t.group_mask[gi];
    for (const auto d : m_dims) {
      m_tmp.and_with(t.types->at_least(d, requests[d] + t.groups[gi].overhead[d]));
    }
    m_fit.or_with(m_tmp);
  }
  plan.options.and_with(m_fit);
  std::string mv_error;
  if (plan.options.any()) {
    // minValues on the narrowed requirements.
    bool has_mv = false;
    for (const auto& r : base.items()) {
      has_mv = has_mv || r.min_values.has_value();
    }
    for (const auto& r : plan.delta) {
      has_mv = has_mv || r.min_values.has_value();
    }
    if (has_mv) {
      ReqSet merged = base;
      apply_delta(merged, plan.delta);
      std::vector<std::pair<KeyId, int>> achieved;
      mv_error = min_values_check(t, plan.options, merged, &achieved);
      if (!mv_error.empty()) {
        if (!relax_min_values) {
          plan.options = TypeSet(plan.options.size(), false);
        } else {
          mv_error.clear();
          for (const auto& [key, count] : achieved) {
            Req r = *merged.find(key);
            if (r.min_values && count < *r.min_values) {
              plan.min_values_relaxed = true;
            }
            r.min_values = count;
            put(plan.delta, std::move(r));
          }
        }
      }
    }
  }
  if (plan.options.any()) {
    return true;
  }
  if (err != nullptr) {
    ReqSet merged = base;
    apply_delta(merged, plan.delta);
    merged.erase(m_in.k_hostname);
    *err = explain_filter(t, options, merged, requests, p.requests, ports, p, mv_error);
  }
  return false;
}

std::string Scheduler::explain_filter(const Template& t, const TypeSet& options, const ReqSet& merged,
                                      const model::Resources& requests, const model::Resources& pod_req,
                                      const std::vector<std::vector<std::int32_t>>* ports, const QueuedPod& p,
                                      const std::string& min_values_error) const
{
  // InstanceTypeFilterError: which criteria no single instance type met.
  bool requirements_met = false;
  bool fits = false;
  bool has_offering = false;
  bool requirements_and_fits = false;
  bool requirements_and_offering = false;
  bool fits_and_offering = false;
  const OfferingFilter f = offering_filter(merged, m_cache.space, m_in);
  const auto& pod_ports = p.data->spec->host_ports;
  model::Resources min_ds;
  model::Resources max_ds;
  bool any_ds = false;
  options.for_each([&](std::size_t i) {
    const auto gi = static_cast<std::size_t>(t.group_of[i]);
    if (!pod_ports.empty() && ports != nullptr) {
      const auto& used = (*ports)[gi];
      if (std::any_of(pod_ports.begin(), pod_ports.end(),
                      [&](std::int32_t port) { return std::find(used.begin(), used.end(), port) != used.end(); })) {
        return;
      }
    }
    const auto& g = t.groups[gi];
    if (!g.empty) {
      if (!any_ds) {
        min_ds = g.overhead;
        max_ds = g.overhead;
      } else {
        for (std::size_t r = 0; r < model::k_max_resources; ++r) {
          min_ds.v[r] = std::min(min_ds.v[r], g.overhead.v[r]);
        }
        max_ds = model::Resources::max_of(max_ds, g.overhead);
      }
      any_ds = true;
    }
    const auto& type = t.types->types()[i];
    const bool compat = type.requirements.intersects(merged, m_in);
    const bool offer = type.has_offering(f);
    const bool fit = offer && fits_dims(requests + g.overhead, type.allocatable, m_dims);
    requirements_met = requirements_met || compat;
    fits = fits || fit;
    has_offering = has_offering || offer;
    requirements_and_fits = requirements_and_fits || (compat && fit && !offer);
    requirements_and_offering = requirements_and_offering || (compat && offer && !fit);
    fits_and_offering = fits_and_offering || (fit && offer && !compat);
  });
  std::string res = resources_string(pod_req);
  if (any_ds) {
    const std::string lo = resources_string(pod_req + min_ds);
    const std::string hi = resources_string(pod_req + max_ds);
    res = lo == hi ? lo : fmt::format("min={}, max={}", lo, hi);
  }
  const std::string tail = fmt::format("requirements={}, resources={}", merged.to_string(m_in), res);
  if (!min_values_error.empty()) {
    return fmt::format("{}, {}", min_values_error, tail);
  }
  if (!requirements_met && !fits && !has_offering) {
    return "no instance type met the scheduling requirements or had enough resources or had a required offering, " + tail;
  }
  if (!requirements_met && !fits) {
    return "no instance type met the scheduling requirements or had enough resources, " + tail;
  }
  if (!requirements_met && !has_offering) {
    return "no instance type met the scheduling requirements or had a required offering, " + tail;
  }
  if (!fits && !has_offering) {
    return "no instance type had enough resources or had a required offering, " + tail;
  }
  if (!requirements_met) {
    return "no instance type met all requirements, " + tail;
  }
  if (!fits) {
    return "no instance type has enough resources, " + tail;
  }
  if (!has_offering) {
    return "no instance type has the required offering, " + tail;
  }
  if (requirements_and_fits) {
    return "no instance type which met the scheduling requirements and had enough resources, had a required offering, "
           + tail;
  }
  if (fits_and_offering) {
    return "no instance type which had enough resources and the required offering met the scheduling requirements, "
           + tail;
  }
  if (requirements_and_offering) {
    return "no instance type which met the scheduling requirements and the required offering had the required "
           "resources, "
           + tail;
  }
  return "no instance type met the requirements/resources/offering tuple, " + tail;
}

bool Scheduler::add_to_existing(QueuedPod& p, const PodVariant& v)
{
  const auto& spec = *p.data->spec;
  AddPlan& plan = m_plan;
  auto& nodes = *m_existing;
  // IsConsolidationSimulation: the pods it moves skip nodes inside their consolidateAfter
  // window (the index's moving view leaves those out).
  const bool moving = m_moving_view && !p.pending && !p.from_deleting;
  const FreeCapacityIndex& index = *m_index;
  p.fit_from = first_fit_from(p.fit_from, p.requests, moving);
  for (std::size_t pos = p.fit_from; pos != FreeCapacityIndex::k_end; pos = index.next(pos + 1, p.requests, moving)) {
    auto& e = nodes[pos];
    if (!p.requests.fits_in(e.remaining) || host_blocked(e.hostname)) {
      continue;
    }
    if (!tolerates(spec, v, e.taints)) {
      continue;
    }
    if (!spec.host_ports.empty()) {
      const bool conflict = std::any_of(spec.host_ports.begin(), spec.host_ports.end(), [&](std::int32_t port) {
        return std::find(e.host_ports.begin(), e.host_ports.end(), port) != e.host_ports.end();
      });
      if (conflict) {
        continue;
      }
    }
    if (!requirements_plan(e.reqs(), false, p, v, e.taints, plan, nullptr)) {
      continue;
    }
    if (!e.touched) {
      e.touched = true;
      m_undo.push_back({static_cast<std::uint32_t>(pos), e.remaining, e.host_ports.size()});
    }
    if (!plan.delta.empty()) {
      apply_delta(e.mutable_reqs(), plan.delta);
    }
    e.remaining -= p.requests;
    e.host_ports.insert(e.host_ports.end(), spec.host_ports.begin(), spec.host_ports.end());
    index_update(pos, e);
    // A moved pod on a node that is not Ready vetoes the command (simulate_scheduling).
    if (m_input.options.stop_on_delete_veto && !m_stopped && p.state->phase != cluster::PodPhase::pending
        && !p.from_deleting && e.node->lifecycle != cluster::NodeLifecycle::ready) {
      m_stopped = true;
      remember_not_ready(p, v, e);
      sync_quick_stop();
    }
    if (!plan.delta.empty()) {
      m_plain_prefix = false;
    }
    if (p.topo != nullptr && p.topo->any) {
      record(p, v, e.taints, e.reqs());
    }
    m_placements.push_back({p.index, e.index});
    return true;
  }
  return false;
}

void Scheduler::sort_claim_after_add(std::size_t pos)
{
  // The claim at pos gained one pod: move it after the claims that now have fewer pods,
  // keeping the relative order of equal counts (what a stable re-sort would do).
  const auto count = [&](std::uint32_t id) { return m_claims[id].pods.size(); };
  const std::size_t c = count(m_claim_order[pos]);
  std::size_t end = pos + 1;
  while (end < m_claim_order.size() && count(m_claim_order[end]) < c) {
    ++end;
  }
  std::rotate(m_claim_order.begin() + static_cast<std::ptrdiff_t>(pos),
              m_claim_order.begin() + static_cast<std::ptrdiff_t>(pos) + 1,
              m_claim_order.begin() + static_cast<std::ptrdiff_t>(end));
}

void Scheduler::commit_claim(Claim& c, QueuedPod& p, const PodVariant& v, AddPlan& plan)
{
  const Template& t = m_templates[c.tmpl];
  // (The plan's options are the claim's narrowed: they changed when they differ, word by word.)
  const bool options_changed = plan.options != c.options;
  c.pods.push_back(p.index);
  c.options = plan.options;
  c.filter = plan.filter;
  c.requests += p.requests;
  apply_delta(c.reqs, plan.delta);
  c.min_values_relaxed = c.min_values_relaxed || plan.min_values_relaxed;
  if (m_reservations) {
    // Reserve the new holdings, then release those no longer compatible.
    for (const auto r : m_to_reserve) {
      if (!std::binary_search(c.reserved.begin(), c.reserved.end(), r)) {
        --m_reservation_left[static_cast<std::size_t>(r)];
      }
    }
    for (const auto r : c.reserved) {
      if (!std::binary_search(m_to_reserve.begin(), m_to_reserve.end(), r)) {
        ++m_reservation_left[static_cast<std::size_t>(r)];
      }
    }
    c.reserved = m_to_reserve;
  }
  if (options_changed || c.pods.size() == 1) {
    c.max_alloc = max_alloc(t, c.options);
  }
  const auto& ports = p.data->spec->host_ports;
  if (!ports.empty()) {
    for (auto& g : c.group_ports) {
      g.insert(g.end(), ports.begin(), ports.end());
    }
  }
  if (p.topo != nullptr && p.topo->any) {
    record(p, v, t.pool->taints, c.reqs);
  }
}

void Scheduler::prepare_reservations()
{
  const auto& space = m_cache.space;
  m_reservations = !space.reservations.empty();
  m_reservation_left.assign(space.reservations.size(), 0);
  for (std::size_t r = 0; r < space.reservations.size(); ++r) {
    const std::int32_t used = m_input.reservation_used ? m_input.reservation_used(space.reservations[r]) : 0;
    m_reservation_left[r] = std::max(0, space.reservation_capacity[r] - used);
  }
}

bool Scheduler::reservations_for(const Template& t, const std::vector<std::int32_t>& held, const AddPlan& plan)
{
  m_to_reserve.clear();
  bool compatible = false;
  const auto& types = t.types->types();
  plan.options.for_each([&](std::size_t i) {
    for (const auto& o : types[i].offerings) {
      if (o.reservation < 0 || !o.available || ((plan.filter.capacity_types >> o.capacity_type) & 1U) == 0
          || ((plan.filter.zones >> o.zone) & 1U) == 0) {
        continue;
      }
      compatible = true;
      if (std::binary_search(held.begin(), held.end(), o.reservation)
          || m_reservation_left[static_cast<std::size_t>(o.reservation)] > 0) {
        m_to_reserve.push_back(o.reservation);
      }
    }
  });
  std::sort(m_to_reserve.begin(), m_to_reserve.end());
  m_to_reserve.erase(std::unique(m_to_reserve.begin(), m_to_reserve.end()), m_to_reserve.end());
  if (!m_input.options.strict_reservations || !m_to_reserve.empty()) {
    return true;
  }
  // Strict: compatible reserved offerings that could not be reserved, or a NodeClaim whose
  // reservations this pod's constraints would all remove.
  return !compatible && held.empty();
}

bool Scheduler::add_to_inflight(QueuedPod& p, const PodVariant& v)
{
  const auto& spec = *p.data->spec;
  AddPlan& plan = m_plan;
  for (std::size_t pos = 0; pos < m_claim_order.size(); ++pos) {
    Claim& c = m_claims[m_claim_order[pos]];
    const Template& t = m_templates[c.tmpl];
    // Cheapest necessary condition first: the summed requests must fit the largest option.
    const model::Resources total = c.requests + p.requests;
    if (!fits_dims(total, c.max_alloc, m_dims) || host_blocked(k_claim_host_base + c.id)) {
      continue;
    }
    if (!tolerates(spec, v, t.pool->taints)) {
      continue;
    }
    if (!requirements_plan(c.reqs, true, p, v, t.pool->taints, plan, nullptr)) {
      continue;
    }
    if (!filter_types(t, c.options, c.reqs, c.filter, total, &c.group_ports, p, false, plan, nullptr)) {
      continue;
    }
    if (m_reservations && !reservations_for(t, c.reserved, plan)) {
      continue;
    }
    commit_claim(c, p, v, plan);
    sort_claim_after_add(pos);
    return true;
  }
  return false;
}

void Scheduler::update_within_limits(const Template& t, TemplateLimits& l)
{
  l.within_limits = t.options;
  if (!l.limited || (l.remaining.listed == 0 && !l.remaining.usd_per_hour)) {
    l.within_limits_dirty = false;
    return;
  }
  const auto& types = t.types->types();
  l.within_limits.for_each([&](std::size_t i) {
    if (l.remaining.usd_per_hour && types[i].cheapest_price(t.filter) > *l.remaining.usd_per_hour) {
      l.within_limits.reset(i);
      return;
    }
    for (std::size_t r = 0; r < model::k_max_resources; ++r) {
      if (((l.remaining.listed >> r) & 1U) != 0 && types[i].capacity.v[r] > l.remaining.max.v[r]) {
        l.within_limits.reset(i);
        return;
      }
    }
  });
  l.within_limits_dirty = false;
}

bool Scheduler::add_to_new(QueuedPod& p, const PodVariant& v, std::string* err)
{
  const auto& spec = *p.data->spec;
  AddPlan& plan = m_plan;
  std::vector<std::string> errors;
  const auto claim_id = static_cast<std::uint32_t>(m_claim_count);
  for (std::uint32_t ti = 0; ti < m_templates.size(); ++ti) {
    Template& t = m_templates[ti];
    TemplateLimits& l = m_limits[ti];
    const auto fail = [&](std::string e) {
      if (err != nullptr) {
        errors.push_back(fmt::format("incompatible with nodepool \"{}\", {}", t.pool->name, e));
      }
    };
    if (l.limited) {
      if (l.remaining.nodes && *l.remaining.nodes == 0) {
        fail("node limits have been exhausted for nodepool");
        continue;
      }
      if (l.within_limits_dirty) {
        update_within_limits(t, l);
      }
      bool any = l.within_limits.any();
      if (any && l.remaining.nodes && *l.remaining.nodes < 0) {
        any = false; // capacity has no "nodes": 0 > negative remaining excludes every type
      }
      if (!any) {
        fail("all available instance types exceed limits for nodepool");
        continue;
      }
    }
    const TypeSet& options = l.limited ? l.within_limits : t.options;
    if (!tolerates(spec, v, t.pool->taints)) {
      fail(toleration_error(spec, v.tolerate_prefer_no_schedule, t.pool->taints));
      continue;
    }
    t.base_with_host.find(m_in.k_hostname)->values.front() = k_claim_host_base + claim_id;
    std::string e;
    if (!requirements_plan(t.base_with_host, true, p, v, t.pool->taints, plan, err != nullptr ? &e : nullptr)) {
      fail(e);
      continue;
    }
    std::vector<std::vector<std::int32_t>> ports;
    const std::vector<std::vector<std::int32_t>>* ports_ptr = nullptr;
    if (!spec.host_ports.empty()) {
      for (const auto& g : t.groups) {
        ports.push_back(g.host_ports);
      }
      ports_ptr = &ports;
    }
    if (!filter_types(t, options, t.base_with_host, t.filter, p.requests, ports_ptr, p,
                      m_input.options.min_values_best_effort, plan, err != nullptr ? &e : nullptr)) {
      fail(e);
      continue;
    }
    if (m_reservations && !reservations_for(t, {}, plan)) {
      // A reserved offering could take the pod but none is left to reserve: no lower-weight
      // NodePool may take it instead (addToNewNodeClaim), and it waits for the next round.
      fail("one or more instance types with compatible reserved offerings are available, but could not be "
           "reserved");
      m_reserved_error = true;
      break;
    }
    // Success: create the NodeClaim (in a slot whose buffers an earlier solve left).
    if (m_claim_count == m_claims.size()) {
      m_claims.emplace_back();
    }
    Claim& created = m_claims[m_claim_count++];
    created.tmpl = ti;
    created.id = claim_id;
    created.reqs = t.base_with_host;
    created.options = options;
    created.filter = t.filter;
    created.requests = model::Resources{};
    created.max_alloc = model::Resources{};
    created.pods.clear();
    created.group_ports.resize(t.groups.size());
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
      created.group_ports[g] = t.groups[g].host_ports;
    }
    created.min_values_relaxed = false;
    created.reserved.clear();
    commit_claim(created, p, v, plan);
    m_stopped = m_stopped || (m_zone_only && keeps_spot(ti, created.options, created.filter));
    // Insert into the pod-count order after every claim with at most one pod.
    std::size_t pos = 0;
    while (pos < m_claim_order.size() && m_claims[m_claim_order[pos]].pods.size() <= 1) {
      ++pos;
    }
    m_claim_order.insert(m_claim_order.begin() + static_cast<std::ptrdiff_t>(pos), claim_id);
    // subtractMax: pessimistically the largest capacity among the options.
    if (l.limited && l.remaining.listed != 0) {
      model::Resources most;
      created.options.for_each(
          [&](std::size_t i) { most = model::Resources::max_of(most, t.types->types()[i].capacity); });
      for (std::size_t r = 0; r < model::k_max_resources; ++r) {
        if (((l.remaining.listed >> r) & 1U) != 0) {
          l.remaining.max.v[r] -= most.v[r];
        }
      }
      l.within_limits_dirty = true;
    }
    if (l.limited && l.remaining.usd_per_hour) {
      // Pessimistically, like subtractMax: the dearest option's cheapest offering.
      double dearest = 0;
      created.options.for_each([&](std::size_t i) {
        const double price = t.types->types()[i].cheapest_price(created.filter);
        if (price != std::numeric_limits<double>::infinity()) {
          dearest = std::max(dearest, price);
        }
      });
      *l.remaining.usd_per_hour -= dearest;
      l.within_limits_dirty = true;
    }
    return true;
  }
  if (err != nullptr) {
    std::string joined;
    for (std::size_t i = 0; i < errors.size(); ++i) {
      joined += (i != 0 ? "; " : "") + errors[i];
    }
    *err = std::move(joined);
  }
  return false;
}

bool Scheduler::prepare_checks(const QueuedPod& p, const PodVariant& v)
{
  m_host_checks.clear();
  if (p.topo == nullptr || !p.topo->any) {
    return true;
  }
  const SpecTopo& st = *p.topo;
  bool possible = true;
  const auto anti = [&](const TopologyGroup& g) {
    if (g.hostname) {
      m_host_checks.push_back({&g, 0});
    } else if (!g.has_empty_domain()) {
      possible = false; // no empty domain anywhere: nextDomainAntiAffinity is always empty
    }
  };
  for (const auto i : v.spread) {
    if (st.spread_group[i] >= 0) {
      const auto gi = static_cast<std::uint32_t>(st.spread_group[i]);
      const auto& g = m_groups[gi];
      if (g.hostname) {
        const bool self = std::binary_search(st.selecting.begin(), st.selecting.end(), gi);
        m_host_checks.push_back({&g, g.max_skew - (self ? 1 : 0)});
      }
    }
  }
  for (const auto gi : st.anti_required) {
    anti(m_groups[gi]);
  }
  for (std::size_t i = v.preferred_anti_affinity_removed; i < st.anti_preferred.size(); ++i) {
    anti(m_groups[st.anti_preferred[i]]);
  }
  for (const auto gi : st.inverse_selecting) {
    anti(m_inverse[gi]);
  }
  return possible;
}

bool Scheduler::add(QueuedPod& p, const PodVariant& v, std::string* err)
{
  if (!prepare_checks(p, v) && err == nullptr) {
    return false;
  }
  if (add_to_existing(p, v)) {
    return true;
  }
  if (add_to_inflight(p, v)) {
    return true;
  }
  if (m_templates.empty()) {
    if (err != nullptr) {
      *err = "nodepool requirements filtered out all available instance types";
    }
    return false;
  }
  return add_to_new(p, v, err);
}

bool Scheduler::try_schedule(QueuedPod& p, std::string& err)
{
  // "Relax all the way the first time": try the pod as written, then each relaxed variant.
  for (std::size_t k = 0;; ++k) {
    // Computing variant k+1 may grow the variant list, so fetch variant k afterwards.
    const bool last = variant(*p.data, k + 1, m_in) == nullptr;
    const PodVariant* v = variant(*p.data, k, m_in);
    CAPSIM_CHECK(v != nullptr, "solve: missing pod variant");
    m_reserved_error = false;
    // (With reservations every attempt says why it failed: a reserved-offering error ends the
    // pod's attempts early.)
    if (add(p, *v, last || m_reservations ? &err : nullptr)) {
      m_plain_prefix = m_plain_prefix && k == 0;
      ++m_version;
      return true;
    }
    if (m_reserved_error) {
      return false; // trySchedule does not relax a pod that failed on a reserved-offering error
    }
    if (last) {
      return false;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Output

void Scheduler::finalize(SolveResult& out)
{
  const KeyId k_reg = m_in.key(k_registered);
  const KeyId k_init = m_in.key(k_initialized);
  for (std::size_t ci = 0; ci < m_claim_count; ++ci) {
    Claim& c = m_claims[ci];
    const Template& t = m_templates[c.tmpl];
    // FinalizeScheduling: drop the placeholder hostname, add the minimum DaemonSet overhead over
    // the groups that still have an option (per resource, over groups requesting it).
    c.reqs.erase(m_in.k_hostname);
    model::Resources min_overhead;
    std::uint32_t present = 0;
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
      if (t.groups[g].empty || !c.options.intersects(t.group_mask[g])) {
        continue; // no option left in the group
      }
      const auto& grp = t.groups[g];
      for (std::size_t r = 0; r < model::k_max_resources; ++r) {
        const bool has = ((grp.present >> r) & 1U) != 0 || r == model::k_pods;
        if (!has) {
          continue;
        }
        if (((present >> r) & 1U) == 0) {
          min_overhead.v[r] = grp.overhead.v[r];
          present |= std::uint32_t{1} << r;
        } else {
          min_overhead.v[r] = std::min(min_overhead.v[r], grp.overhead.v[r]);
        }
      }
    }
    c.requests += min_overhead;

    // TruncateInstanceTypes: order by the cheapest available compatible offering (ties keep
    // catalog order), keep the first max_instance_types, re-check minValues.
    const auto max_types = static_cast<std::size_t>(std::max(0, m_input.options.max_instance_types));
    // (A NodeClaim holding reservations is ordered by its reserved offerings: Truncate runs on the
    // requirements FinalizeScheduling pinned to them.)
    OfferingFilter order = c.filter;
    if (!c.reserved.empty()) {
      const int reserved = m_cache.space.capacity_type_index(m_in.value(model::k_capacity_reserved));
      order.capacity_types = reserved >= 0 ? std::uint32_t{1} << static_cast<unsigned>(reserved) : 0;
    }
    const auto& cheapest = t.types->cheapest_members(order, c.options, max_types);
    const std::vector<std::uint32_t>& priced = cheapest.order;
    // The truncated set is read by the minValues check and the instance-type requirement only.
    const TypeSet& truncated = cheapest.set;
    if (c.reqs.has_min_values() && !m_input.options.min_values_best_effort) {
      const std::string mv = min_values_check(t, truncated, c.reqs, nullptr);
      if (!mv.empty()) {
        for (const auto pod : c.pods) {
          out.errors.push_back({pod, fmt::format("pod didn’t schedule because NodePool couldn’t meet minValues "
                                                 "requirements, validating minValues, {} (NodePool={})",
                                                 mv, t.pool->name)});
        }
        continue;
      }
    }
    NewNodeClaim nc;
    nc.pool_input = t.input;
    nc.pool = t.pool_index;
    nc.instance_types = cheapest.types;
    // ToNodeClaim: instance-type In [options] (every option already satisfies the claim's own
    // instance-type requirement, so this is the intersection), capacity-type In [their
    // offerings' capacity types].
    model::Requirement it_req;
    it_req.key = std::string(model::labels::k_instance_type);
    if (const Req* existing = c.reqs.find(m_in.k_instance_type)) {
      it_req.min_values = existing->min_values;
    }
    c.reqs.erase(m_in.k_instance_type);
    const bool omit_it_req = m_input.options.omit_instance_type_requirement && !it_req.min_values;
    if (!omit_it_req) {
      it_req.values.reserve(priced.size());
      for (const auto i : t.types->by_name) {
        if (truncated.test(i)) {
          it_req.values.push_back(t.types->types()[i].it->name);
        }
      }
    }
    // Per type, available_zones[capacity type] holds the zones of its available offerings.
    std::uint32_t cts = 0;
    for (const auto i : priced) {
      const auto& zones = t.types->types()[i].available_zones;
      for (std::size_t ct = 0; ct < zones.size(); ++ct) {
        if (((c.filter.capacity_types >> ct) & 1U) != 0 && (zones[ct] & c.filter.zones) != 0) {
          cts |= std::uint32_t{1} << ct;
        }
      }
      if (cts == c.filter.capacity_types) {
        break; // every capacity type the claim allows is already there
      }
    }
    if (!c.reserved.empty()) {
      // FinalizeScheduling: a NodeClaim holding reservations launches into one of them
      // (capacity-type In [reserved], reservation-id In [held]).
      Req ct_req;
      ct_req.key = m_in.k_capacity_type;
      ct_req.values.push_back(m_in.value(model::k_capacity_reserved));
      c.reqs.set(ct_req);
      Req id_req;
      id_req.key = m_in.key(model::labels::k_capacity_reservation_id);
      for (const auto r : c.reserved) {
        id_req.values.push_back(m_in.value(m_cache.space.reservations[static_cast<std::size_t>(r)]));
      }
      std::sort(id_req.values.begin(), id_req.values.end());
      c.reqs.set(id_req);
    } else if (cts != 0) {
      Req ct_req;
      ct_req.key = m_in.k_capacity_type;
      for (std::size_t i = 0; i < m_cache.space.capacity_types.size(); ++i) {
        if (((cts >> i) & 1U) != 0) {
          ct_req.values.push_back(m_cache.space.capacity_types[i]);
        }
      }
      std::sort(ct_req.values.begin(), ct_req.values.end());
      c.reqs.add(ct_req, m_in);
    }
    nc.requests = c.requests;
    nc.pods = c.pods;
    nc.min_values_relaxed = c.min_values_relaxed;
    if (m_input.options.sketch_claims) {
      nc.sketch = true;
      if (const Req* ct = c.reqs.find(m_in.k_capacity_type)) {
        nc.requirements.items().push_back(to_model(*ct, m_in));
      }
      out.claims.push_back(std::move(nc));
      continue;
    }
    // Labels: template labels plus concrete values of custom (not well-known) requirements.
    nc.labels = t.labels;
    for (const auto& r : c.reqs.items()) {
      if (m_in.well_known(r.key) || r.key == m_in.k_hostname || r.key == k_reg || r.key == k_init) {
        continue;
      }
      if (r.op() == ReqOp::in) {
        std::string best = m_in.value_name(r.values.front());
        for (const auto v : r.values) {
          best = std::min(best, m_in.value_name(v));
        }
        nc.labels[m_in.key_name(r.key)] = best;
      } else if (r.op() == ReqOp::not_in || r.op() == ReqOp::exists) {
        // Upstream picks a random integer within the bounds; take the smallest one not excluded.
        std::int64_t x = r.gte.value_or(0);
        for (;;) {
          const auto id = m_in.find_value(std::to_string(x));
          if (!id || req_has(r, *id, m_in) || (r.lte && x >= *r.lte)) {
            break;
          }
          ++x;
        }
        nc.labels[m_in.key_name(r.key)] = std::to_string(x);
      }
    }
    c.reqs.erase(k_reg);
    c.reqs.erase(k_init);
    nc.requirements = to_model(c.reqs, m_in);
    if (!omit_it_req) {
      nc.requirements.add(std::move(it_req));
    }
    nc.taints = t.pool->taints;
    nc.startup_taints = t.pool->startup_taints;
    // (Pinned to its reservations, a NodeClaim keeps options without a reserved offering, as
    // upstream's InstanceTypeOptions do: the launch drops them.)
    nc.options_compatible = c.reserved.empty();
    out.claims.push_back(std::move(nc));
  }
}

SolveResult Scheduler::run()
{
  CAPSIM_CHECK(m_input.cluster != nullptr, "solve: no cluster");
  prepare_pools();
  prepare_reservations();
  // (Its early stops assume a NodeClaim that may launch spot does: one holding a reservation
  // launches reserved.)
  CAPSIM_CHECK(!m_reservations || !m_input.options.stop_on_delete_veto,
               "solve: stop_on_delete_veto with capacity reservations");
  if (m_input.options.stop_on_delete_veto) {
    const bool holds = veto_still_holds();
    if (holds) {
      rebase_veto();
    }
    if (m_veto_changed) {
      sync_quick_stop();
    }
    if (holds) {
      ++m_cache.veto_hits;
      SolveResult out;
      out.stopped = true;
      return out;
    }
    if (const cluster::PodIndex stop = first_pod_stop(); stop != cluster::k_none) {
#ifndef NDEBUG
      SolveInput uncached = m_input;
      uncached.cache = nullptr;
      uncached.candidate_pod_counts.clear(); // (the solve itself, not this check again)
      CAPSIM_CHECK(solve(uncached).stopped, "solve: a stop on the first pod found before the solve does not hold");
#endif
      ++m_cache.first_pod_stop_hits;
      SolveResult out;
      out.stopped = true;
      out.stop_pod = stop;
      return out;
    }
  }
  prepare_pods();
  prepare_templates();
  prepare_existing();
  prepare_limits();
  prepare_topology_shape();
  if (m_input.options.stop_on_delete_veto) {
    m_zone_only = narrowed_by_zone_only();
    if (m_zone_only) {
      model::Resources all;
      for (const auto& p : m_pods) {
        all += p.requests;
      }
      prepare_spot_room(all);
      if (every_claim_keeps_spot()) {
        if (const QueuedPod* witness = bound_pod_fitting_nowhere()) {
          remember_no_room(*witness);
          sync_quick_stop();
          SolveResult out;
          out.stopped = true;
          out.stop_pod = stop_resting_on(*witness);
          return out;
        }
      }
    }
  }
  prepare_topology();
#ifndef NDEBUG
  const auto zone_or_host = [this](const TopologyGroup& g) { return g.key == m_in.k_zone || g.hostname; };
  CAPSIM_CHECK(m_any_groups == (!m_groups.empty() || !m_inverse.empty())
                   && m_groups_zone_or_host == (std::all_of(m_groups.begin(), m_groups.end(), zone_or_host)
                                                && std::all_of(m_inverse.begin(), m_inverse.end(), zone_or_host)),
               "solve: the topology groups differ from their shape");
#endif

  std::vector<std::uint32_t>& order = m_scratch.queue;
  order.resize(m_pods.size());
  std::iota(order.begin(), order.end(), 0U);
  const auto queue_less = [&](std::uint32_t a, std::uint32_t b) {
    const auto& pa = m_pods[a];
    const auto& pb = m_pods[b];
    return queued_before(pa.requests, pa.state->pod(), pa.index, pb.requests, pb.state->pod(), pb.index);
  };
  // The first pod in queue order goes first, the others are sorted only when it is placed or
  // fails: a consolidation solve that gets this far mostly stops on the first pod (its NodeClaim
  // keeps spot). The order is total (the index decides last), so it is the full sort's.
  if (!order.empty()) {
    std::iter_swap(order.begin(), std::min_element(order.begin(), order.end(), queue_less));
  }
  const std::size_t listed = order.size();
  bool rest_sorted = listed <= 1;

  // The queue as a vector and a read position (a deque allocates per solve): pods that failed
  // go to the back; the consumed front is dropped once it is most of the vector.
  std::vector<std::uint32_t>& queue = order;
  std::size_t head = 0;
  const auto queued = [&] { return queue.size() - head; };
  std::vector<std::size_t>& last_len = m_scratch.last_len;
  last_len.assign(m_pods.size(), std::numeric_limits<std::size_t>::max());
  std::vector<std::string>& errors = m_scratch.errors;
  errors.resize(m_pods.size());
  for (auto& e : errors) {
    e.clear();
  }
  std::vector<char>& failed = m_scratch.failed;
  failed.assign(m_pods.size(), 0);
  // Failure memo: an identical pod (same spec, requests and origin) fails the same way while
  // nothing has been placed since.
  struct Memo
  {
    std::uint64_t version = 0;
    const SpecData* data = nullptr;
    model::Resources requests;
    bool pending = false;
    bool from_deleting = false;
    std::string error;
    bool valid = false;
  } memo;
  while (queued() != 0 && !m_stopped) {
    if (!rest_sorted && head == 1) { // (no front is dropped before this)
      std::sort(queue.begin() + 1, queue.begin() + static_cast<std::ptrdiff_t>(listed), queue_less);
      rest_sorted = true;
    }
    const std::uint32_t id = queue[head];
    if (last_len[id] == queued()) {
      break; // a full cycle without progress
    }
    ++head;
    if (head >= 1024 && head * 2 >= queue.size()) {
      queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
    QueuedPod& p = m_pods[id];
    bool ok = false;
    std::string err;
    if (memo.valid && memo.version == m_version && memo.data == p.data && memo.requests == p.requests
        && memo.pending == p.pending && memo.from_deleting == p.from_deleting) {
      err = memo.error;
    } else {
      ok = try_schedule(p, err);
      if (!ok) {
        memo = {m_version, p.data, p.requests, p.pending, p.from_deleting, err, true};
      }
    }
    if (ok) {
      failed[id] = 0;
      errors[id].clear();
    } else {
      m_plain_prefix = false;
      failed[id] = 1;
      errors[id] = std::move(err);
      queue.push_back(id);
      last_len[id] = queued();
    }
  }

  SolveResult out;
  if (m_stopped) {
    out.stopped = true;
    if (head == 1) { // on the first pod of the queue
      out.stop_pod = stop_resting_on(m_pods[queue.front()]);
    }
    return out;
  }
  out.existing.assign(m_placements.begin(), m_placements.end());
  finalize(out);
  for (std::size_t i = 0; i < m_pods.size(); ++i) {
    if (failed[i]) {
      out.errors.push_back({m_pods[i].index, errors[i]});
    }
  }
  for (auto& e : m_invalid) {
    out.errors.push_back(std::move(e));
  }
  std::sort(out.errors.begin(), out.errors.end(), [](const PodError& a, const PodError& b) { return a.pod < b.pod; });
  return out;
}

void Scheduler::describe_others(std::span<const cluster::PodIndex> after, SolveCache::Impl::QuickPass& pass)
{
  m_tolerate_pns = pass.tolerate_pns;
  const auto& q = pending_queue();
  pass.others = q.summary;
  pass.replayed = false;
  pass.queue.clear();
  pass.written.clear();
  const auto queued = [this](cluster::PodIndex i) {
    const auto& ps = m_cluster.pod(i);
    const auto r = pod_requests(ps.pod());
    bool moved = false; // as replay_not_ready tells
    if (ps.node != cluster::k_none) {
      const auto& n = m_cluster.node(ps.node);
      moved = n.lifecycle != cluster::NodeLifecycle::deleting && !n.disrupted_taint;
    }
    return SolveCache::Impl::QuickPass::Queued{i, r.cpu(), r.memory(), ps.pod().arrival, moved};
  };
  for (const auto i : q.queue) {
    pass.queue.push_back(queued(i));
  }
  for (const auto i : after) {
    if (summarize(i, pass.others)) {
      pass.queue.push_back(queued(i));
    }
  }
  std::sort(pass.queue.begin(), pass.queue.end(), [this](const auto& a, const auto& b) {
    const auto& pa = m_cluster.pod(a.pod).pod();
    const auto& pb = m_cluster.pod(b.pod).pod();
    return queued_before(pod_requests(pa), pa, a.pod, pod_requests(pb), pb, b.pod);
  });
  // veto_still_holds' resources for every_claim_keeps_spot, less the candidate's pods'.
  pass.dims = pass.others.dims | (std::uint32_t{1} << model::k_cpu) | (std::uint32_t{1} << model::k_memory)
              | (std::uint32_t{1} << model::k_pods);
  for (const auto& ds : m_input.daemon_sets) {
    const auto r = spec_requests(*ds);
    for (std::size_t d = 0; d < model::k_max_resources; ++d) {
      if (r.v[d] != 0) {
        pass.dims |= std::uint32_t{1} << d;
      }
    }
  }
}

void Scheduler::replay_others(SolveCache::Impl::QuickPass& pass)
{
  // replay_not_ready's placements of the pods queued before a stop pod, for the whole queue.
  m_tolerate_pns = pass.tolerate_pns;
  pass.replayed = true;
  pass.steps.clear();
  pass.touched.clear();
  auto& snap = m_cache.existing;
  auto& undo = m_scratch.replay;
  undo.clear();
  const auto placed_on = [&](std::size_t pos) {
    return std::any_of(undo.begin(), undo.end(), [pos](const Undo& u) { return u.pos == pos; });
  };
  for (const auto& q : pass.queue) {
    if (q.moved) {
      break; // it may stop the solve: left to the full check
    }
    const auto r = pod_requests(m_cluster.pod(q.pod).pod());
    std::size_t f = snap.index.first_fit_except(r, false, FreeCapacityIndex::k_end);
    while (f != FreeCapacityIndex::k_end && placed_on(f)) {
      const auto& rem = snap.nodes[f].remaining;
      if (r.cpu() <= rem.cpu() && r.memory() <= rem.memory() && r[model::k_pods] <= rem[model::k_pods]) {
        break;
      }
      f = snap.index.next(f + 1, r, false);
    }
    if (f == FreeCapacityIndex::k_end) {
      break;
    }
    auto& e = snap.nodes[f];
    if (!placed_as_written(q.pod, r, e) || !m_plan.delta.empty()) {
      break;
    }
    const auto pos = static_cast<std::uint32_t>(f);
    if (!placed_on(f)) {
      undo.push_back({pos, e.remaining, 0});
      pass.touched.push_back({pos, e.index, static_cast<std::uint32_t>(pass.steps.size())});
    }
    e.remaining -= r;
    pass.steps.push_back({pos, e.remaining});
  }
  for (const auto& u : undo) {
    snap.nodes[u.pos].remaining = u.remaining;
  }
}

// SpotRooms for `templates` over the resources `dims`.
void make_spot_rooms(const std::vector<Template>& templates, std::uint32_t dims, SolveCache::Impl::SpotRooms& out)
{
  out.dims = dims;
  out.possible = true;
  out.rooms.clear();
  out.ends.clear();
  const auto at_most = [dims](const model::Resources& a, const model::Resources& b) {
    for (std::uint32_t rest = dims; rest != 0; rest &= rest - 1) {
      const auto d = static_cast<std::size_t>(std::countr_zero(rest));
      if (a.v[d] > b.v[d]) {
        return false;
      }
    }
    return true;
  };
  for (const Template& t : templates) {
    if (!t.spot_possible) {
      out.possible = false; // keeps_spot's first test
      return;
    }
    for (std::size_t z = 0; z < t.offered_in_zone.size(); ++z) {
      if (((t.filter.zones >> z) & 1U) == 0 || !t.offered_in_zone[z].intersects(t.options)) {
        continue;
      }
      const std::size_t from = out.rooms.size();
      for (std::size_t g = 0; g < t.groups.size(); ++g) {
        if (!t.groups[g].host_ports.empty()) {
          continue; // (prepare_spot_room leaves such a group out)
        }
        TypeSet options = t.group_mask[g];
        options.and_with(t.spot_in_zone[z]);
        options.and_with(t.options);
        options.for_each([&](std::size_t i) {
          const model::Resources room = t.types->types()[i].allocatable - t.groups[g].overhead;
          const auto zone_rooms = std::span(out.rooms).subspan(from);
          if (std::any_of(zone_rooms.begin(), zone_rooms.end(),
                          [&](const model::Resources& o) { return at_most(room, o); })) {
            return;
          }
          const auto kept = std::remove_if(out.rooms.begin() + static_cast<std::ptrdiff_t>(from), out.rooms.end(),
                                           [&](const model::Resources& o) { return at_most(o, room); });
          out.rooms.erase(kept, out.rooms.end());
          out.rooms.push_back(room);
        });
      }
      if (out.rooms.size() == from) {
        out.possible = false; // no spot option in the zone
        return;
      }
      out.ends.push_back(static_cast<std::uint32_t>(out.rooms.size()));
    }
  }
}

// every_claim_keeps_spot for a solve with the cache's templates (current, none limited) whose
// pods ask `total` in the resources `dims`: in every zone of every template, a spot option with
// room for all of it (keeps_spot's test, over SpotRooms). When it holds, `bound` takes (in `dims`)
// the least room over the zones of the room each zone has with the most CPU, then memory: it holds
// for pods asking up to that too. Otherwise `bound` is left as it was.
bool keeps_spot_exactly(SolveCache::Impl& c, std::uint32_t dims, const model::Resources& total, model::Resources& bound)
{
  auto& s = c.spot_rooms;
  if (s.dims != dims || s.templates != c.templates.generation) {
    make_spot_rooms(c.templates.list, dims, s);
    s.templates = c.templates.generation;
  }
  if (!s.possible) {
    return false;
  }
  const auto fits = [&](const model::Resources& r) {
    for (std::uint32_t rest = dims; rest != 0; rest &= rest - 1) {
      const auto d = static_cast<std::size_t>(std::countr_zero(rest));
      if (total.v[d] > r.v[d]) {
        return false;
      }
    }
    return true;
  };
  std::size_t from = 0;
  model::Resources least = bound;
  bool first = true;
  for (const auto end : s.ends) {
    const model::Resources* pick = nullptr;
    for (std::size_t k = from; k < end; ++k) {
      const model::Resources& r = s.rooms[k];
      const bool better = pick == nullptr || r.cpu() > pick->cpu()
                          || (r.cpu() == pick->cpu() && r.memory() > pick->memory());
      if (better && fits(r)) {
        pick = &r;
      }
    }
    if (pick == nullptr) {
      return false;
    }
    for (std::uint32_t rest = dims; rest != 0; rest &= rest - 1) {
      const auto d = static_cast<std::size_t>(std::countr_zero(rest));
      least.v[d] = first ? pick->v[d] : std::min(least.v[d], pick->v[d]);
    }
    first = false;
    from = end;
  }
  bound = least;
  return true;
}

// no_room_holds past the remembered bound: every_claim_keeps_spot worked out for the pods now
// (the summary of the candidate's remembered pods, the others and those that joined). When it
// holds, the candidate's entry takes the bound it found, so that the checks after this one read
// the slack alone while the pods stay within it (as veto_still_holds does).
[[gnu::noinline]] bool keeps_spot_for_all(SolveCache::Impl& c, const cluster::Cluster& cluster, cluster::NodeIndex node,
                                          std::uint32_t used, const PodsSummary* joined)
{
  auto& v = c.vetoes[node];
  model::Resources total = v.summary.requests;
  total += c.quick_pass.others.requests;
  if (joined != nullptr) {
    total += joined->requests;
  }
  if (!keeps_spot_exactly(c, used, total, v.keeps_spot_for)) {
    return false;
  }
  c.sync_quick_stop(cluster, node);
  return true;
}

// veto_still_holds' no_room answer for a record (of candidate `node`, c.quick_stops[node] and
// c.quick_stops_rest[node]) whose stop pod still fits nowhere, over the pass c.quick_pass.
// `joined`: the pods that joined the candidate since (nullptr: none).
bool no_room_holds(SolveCache::Impl& c, const cluster::Cluster& cluster, cluster::NodeIndex node,
                   const PodsSummary* joined)
{
  const auto& q = c.quick_stops[node];
  const auto& r = c.quick_stops_rest[node];
  const auto& pass = c.quick_pass;
  if (!q.zone_only || !pass.others.zone_only || (joined != nullptr && !joined->zone_only)
      || !pass.standing.templates_current || r.templates != c.templates.generation) {
    return false;
  }
  // every_claim_keeps_spot held for this much in these resources.
  const std::uint32_t used = pass.dims | r.summary_dims | (joined != nullptr ? joined->dims : 0U);
  if (used != r.keeps_spot_dims) {
    return false;
  }
  // (Over the resources used only: mostly cpu, memory and pods of the sixteen; a pass asks this
  // for every candidate, most with no pods joined.)
  const auto& others = pass.others.requests.v;
  if (joined == nullptr) {
    constexpr std::uint32_t k_basic = (1U << model::k_cpu) | (1U << model::k_memory) | (1U << model::k_pods);
    if (used == k_basic) { // (the usual three, without the loop)
      if (others[model::k_cpu] <= r.slack.v[model::k_cpu] && others[model::k_memory] <= r.slack.v[model::k_memory]
          && others[model::k_pods] <= r.slack.v[model::k_pods]) {
        return true;
      }
      return keeps_spot_for_all(c, cluster, node, used, joined);
    }
    for (std::uint32_t rest = used; rest != 0; rest &= rest - 1) {
      const auto d = static_cast<std::size_t>(std::countr_zero(rest));
      if (others[d] > r.slack.v[d]) {
        return keeps_spot_for_all(c, cluster, node, used, joined);
      }
    }
    return true;
  }
  for (std::uint32_t rest = used; rest != 0; rest &= rest - 1) {
    const auto d = static_cast<std::size_t>(std::countr_zero(rest));
    if (others[d] + joined->requests.v[d] > r.slack.v[d]) {
      return keeps_spot_for_all(c, cluster, node, used, joined);
    }
  }
  return true;
}

// A no_room stop that held on a changed pod list of its candidate (`pods`, all bound there, the
// stop's pod among them; `joined` summarises those not remembered, of which the solve keeps
// c.joined_valid): its pods become these, as Scheduler::rebase_veto makes them, without
// summarising any again. The summary's requests lose those of the pods that left with a shape;
// the rest of it keeps counting them (of any subset, at most this), and their shapes stay unused.
void rebase_no_room(SolveCache::Impl& c, const cluster::Cluster& cluster, cluster::NodeIndex node,
                    std::span<const cluster::PodIndex> pods, const PodsSummary& joined)
{
  using Veto = SolveCache::Impl::Veto;
  auto& v = c.vetoes[node];
  auto& sorted = c.rebase_pods;
  sorted.assign(pods.begin(), pods.end());
  if (!std::is_sorted(sorted.begin(), sorted.end())) { // a candidate's list is sorted already
    std::sort(sorted.begin(), sorted.end());
  }
  auto& shape_of = c.rebase_shapes;
  shape_of.clear();
  // A pod that left with a shape was summarised (as one that joined is, below, when it gets one):
  // its requests leave the summary, which pending pods that swell share the room with.
  const auto left = [&v](std::size_t k) {
    if (v.shape_of[k] != Veto::k_no_shape) {
      v.summary.requests -= v.shapes[v.shape_of[k]];
    }
  };
  std::size_t at = 0; // v.pods is sorted too: one walk over both
  for (const auto i : sorted) {
    while (at < v.pods.size() && v.pods[at] < i) {
      left(at++);
    }
    if (at < v.pods.size() && v.pods[at] == i) {
      shape_of.push_back(v.shape_of[at++]);
      continue;
    }
    auto shape = Veto::k_no_shape;
    if (std::binary_search(c.joined_valid.begin(), c.joined_valid.end(), i)) {
      const auto r = pod_requests(cluster.pod(i).pod());
      const auto known = std::find(v.shapes.begin(), v.shapes.end(), r);
      if (known != v.shapes.end()) {
        shape = static_cast<std::uint8_t>(known - v.shapes.begin());
      } else if (v.shapes.size() < Veto::k_max_shapes) {
        shape = static_cast<std::uint8_t>(v.shapes.size());
        v.shapes.push_back(r);
      }
    }
    shape_of.push_back(shape);
  }
  while (at < v.pods.size()) {
    left(at++);
  }
  std::swap(v.pods, sorted);
  std::swap(v.shape_of, shape_of);
  v.summary.add(joined);
  v.pods_revision = cluster.node(node).pods_revision;
  c.sync_quick_stop(cluster, node);
}

// witness_fitting_nowhere for a candidate: the first of its remembered pods, by the remembered
// shapes, that fits on no node but `node` itself and is still bound there. `now`: the candidate's
// pods (sorted) when its list changed since, of which the witness must be one; nullptr when the
// list is the remembered one (all of it in the solve).
std::optional<cluster::PodIndex> quick_witness(const SolveCache::Impl::Veto& v, const ExistingSnapshot& snap,
                                               cluster::NodeIndex node,
                                               const std::span<const cluster::PodIndex>* now = nullptr)
{
  std::uint64_t tried = 0;   // shapes with room on some Ready node
  std::uint64_t no_room = 0; // shapes without
  for (std::size_t k = 0; k < v.pods.size(); ++k) {
    const auto s = v.shape_of[k];
    if (s == SolveCache::Impl::Veto::k_no_shape || ((tried >> s) & 1U) != 0) {
      continue;
    }
    const std::uint64_t bit = std::uint64_t{1} << s;
    if ((no_room & bit) == 0) {
      const std::size_t fit =
          first_ready_fit(snap, FreeCapacityIndex::dims(v.shapes[s]), v.moving_view, FreeCapacityIndex::k_end, node);
      if (fit != FreeCapacityIndex::k_end) {
        tried |= bit;
        continue;
      }
      no_room |= bit;
    }
    if (now == nullptr || std::binary_search(now->begin(), now->end(), v.pods[k])) {
      return v.pods[k];
    }
  }
  return std::nullopt;
}

// Where the stop pod goes now: to `e` with room `rem`, a node that is not Ready, as it did (the
// same node unchanged) or as written (another, or this one changed).
enum class StopNode : std::uint8_t { no, same, other };

// The answers of a not_ready check that need the solve's machinery (made on first need).
struct StopChecks
{
  SolveCache::Impl& cache;
  const SolveInput& input;
  SolveCache::Impl::QuickPass& pass;
  std::optional<Scheduler> scheduler;

  bool written(const SolveCache::Impl::QuickStopRest& rest, std::size_t pos)
  {
    const SolveCache::Impl::QuickPass::Written key{rest.spec, static_cast<std::uint32_t>(pos)};
    if (const auto it = pass.written.find(key); it != pass.written.end()) {
      return it->second;
    }
    if (!scheduler) {
      scheduler.emplace(input, cache);
      scheduler->set_tolerate_pns(pass.tolerate_pns);
    }
    const bool ok = scheduler->written_for(rest.pod, cache.existing.nodes[pos]);
    pass.written.emplace(key, ok);
    return ok;
  }
};

StopNode stop_node(const cluster::Cluster& cluster, const SolveCache::Impl::QuickStop& r,
                   const SolveCache::Impl::QuickStopRest& rest, StopChecks& checks, std::size_t pos,
                   const model::Resources& rem)
{
  const auto& c = checks.cache;
  const auto& e = c.existing.nodes[pos];
  if (e.node->lifecycle == cluster::NodeLifecycle::ready || !r.basic_requests || r.cpu > rem.cpu()
      || r.memory > rem.memory() || 1 > rem[model::k_pods]) {
    return StopNode::no;
  }
  for (std::size_t d = 0; d < model::k_max_resources; ++d) {
    if (d != model::k_cpu && d != model::k_memory && d != model::k_pods && rem.v[d] < 0) {
      return StopNode::no; // the stop pod's zero does not fit
    }
  }
  if (e.index == r.node && cluster.node_stamp(e.index) == r.node_stamp && r.pools == c.pools_generation) {
    return StopNode::same;
  }
  return checks.written(rest, pos) ? StopNode::other : StopNode::no;
}

// veto_still_holds' not_ready answer (no prefix) for a record whose stop pod's first fit other
// than the candidate (`node`) is at `fit`: the position the stop pod goes to, or k_end.
std::size_t not_ready_holds(const cluster::Cluster& cluster, const SolveCache::Impl::QuickStop& r,
                            const SolveCache::Impl::QuickStopRest& rest, StopChecks& checks, cluster::NodeIndex node,
                            std::size_t fit)
{
  constexpr auto k_no = FreeCapacityIndex::k_end;
  const auto& snap = checks.cache.existing;
  const auto& pass = checks.pass;
  if (stop_node(cluster, r, rest, checks, fit, snap.nodes[fit].remaining) == StopNode::no) {
    return k_no;
  }
  // The others queued before the stop pod (NewQueue order; equal keys up to the name are left to
  // the full check) are placed first.
  using Queued = SolveCache::Impl::QuickPass::Queued;
  const auto& queue = pass.queue;
  const auto before = std::partition_point(queue.begin(), queue.end(), [&r](const Queued& o) {
    if (o.cpu != r.cpu) {
      return o.cpu > r.cpu;
    }
    if (o.memory != r.memory) {
      return o.memory > r.memory;
    }
    return o.arrival < r.arrival;
  });
  if (before != queue.end() && before->cpu == r.cpu && before->memory == r.memory && before->arrival == r.arrival) {
    return k_no;
  }
  const auto m = static_cast<std::size_t>(before - queue.begin());
  if (m == 0) {
    return fit;
  }
  // Replayed as they would be with the candidate excluded: none of them went to it.
  if (!pass.replayed || m > pass.steps.size()
      || std::any_of(pass.touched.begin(), pass.touched.end(),
                     [&](const auto& t) { return t.first < m && t.node == node; })) {
    return k_no;
  }
  const auto placed_on = [&](std::size_t pos) {
    return std::any_of(pass.touched.begin(), pass.touched.end(),
                       [&](const auto& t) { return t.first < m && t.pos == pos; });
  };
  const auto room = [&](std::size_t pos) -> const model::Resources& {
    for (std::size_t i = m; i-- > 0;) {
      if (pass.steps[i].pos == pos) {
        return pass.steps[i].remaining;
      }
    }
    return snap.nodes[pos].remaining;
  };
  const auto want = r.want();
  const auto skip_candidate = [&](std::size_t f) {
    return f != k_no && snap.nodes[f].index == node ? snap.index.next(f + 1, want, r.moving_view) : f;
  };
  std::size_t f = fit;
  while (f != k_no && placed_on(f)) {
    const auto& rem = room(f);
    if (want[0] <= rem.cpu() && want[1] <= rem.memory() && want[2] <= rem[model::k_pods]) {
      break;
    }
    f = skip_candidate(snap.index.next(f + 1, want, r.moving_view));
  }
  return f != k_no && stop_node(cluster, r, rest, checks, f, room(f)) != StopNode::no ? f : k_no;
}

// Whether remembered_stop_holds may answer the candidates of `hold` from its primed full check
// (QuickPass::primed): nothing a solve changes has changed since. (A pass asks hundreds of
// candidates in a row; the full check's tests of the pass cost more than a candidate's own.)
bool hold_primed(const SolveInput& input, std::uint64_t hold)
{
  const auto& c = input.cache->impl();
  const auto& st = c.quick_pass.standing;
  return c.quick_pass.primed == hold && st.valid && st.hold == hold && st.schedulers == c.schedulers_made
         && st.pools_generation == c.pools_generation && st.snapshot_builds == c.snapshot_builds
         && st.templates_generation == c.templates.generation && input.cluster->bound_with_anti_affinity() == 0;
}

// remembered_stop_holds for a candidate of a primed hold (hold_primed): true when its no_room stop
// holds on its remembered pod list with no Ready node but its own having room for the stop pod,
// as the full check finds it then. False when that takes the full check.
bool holds_again(SolveCache::Impl& c, const SolveInput& input, cluster::NodeIndex node,
                 std::uint64_t pods_revision, std::size_t pod_count)
{
  if (node >= c.quick_stops.size()) {
    return false;
  }
  const auto& r = c.quick_stops[node];
  if (r.kind != SolveCache::Impl::QuickStop::Kind::no_room || r.pods_revision != pods_revision
      || r.pod_count != pod_count || r.ignore_preferences != input.options.ignore_preferences
      || r.moving_view != input.options.consolidation_simulation || !r.summary_plain
      || r.tolerate_pns != c.quick_pass.standing.tolerate_pns) {
    return false;
  }
  const auto& snap = c.existing;
  if (r.moving_view && snap.index.quiet_now() != input.options.now) {
    return false;
  }
  return first_ready_fit(snap, r.want(), r.moving_view, FreeCapacityIndex::k_end, node) == FreeCapacityIndex::k_end
         && no_room_holds(c, *input.cluster, node, nullptr);
}

} // namespace

bool remembered_stop_holds_again(SolveInput& input, cluster::NodeIndex node, std::uint64_t pods_revision,
                                 std::span<const cluster::PodIndex> pods,
                                 [[maybe_unused]] std::span<const cluster::PodIndex> after, std::uint64_t hold)
{
  if (hold == 0 || input.cache == nullptr || input.cluster == nullptr || input.excluded_nodes.size() != 1
      || !input.options.stop_on_delete_veto || !hold_primed(input, hold)) {
    return false;
  }
  input.excluded_nodes.front() = node;
  auto& c = input.cache->impl();
  if (!holds_again(c, input, node, pods_revision, pods.size())) {
    return false;
  }
#ifndef NDEBUG
  const auto hits = c.veto_hits;
  CAPSIM_CHECK(remembered_stop_holds(input, pods_revision, pods, after, hold),
               "remembered_stop_holds_again: a stop held again that the full check does not hold");
  c.veto_hits = hits;
#endif
  ++c.veto_hits;
  ++c.held_again;
  return true;
}

bool remembered_stop_holds(const SolveInput& input, std::uint64_t pods_revision,
                           std::span<const cluster::PodIndex> candidate_pods, std::span<const cluster::PodIndex> after,
                           std::uint64_t hold)
{
  if (input.cache == nullptr || input.cluster == nullptr || input.excluded_nodes.size() != 1
      || !input.options.stop_on_delete_veto) {
    return false;
  }
  auto& c = input.cache->impl();
  const auto& cluster = *input.cluster;
  const auto node = input.excluded_nodes.front();
  if (node >= c.quick_stops.size()) {
    return false;
  }
#ifndef NDEBUG
  {
    SolveCache::Impl::QuickStop q;
    SolveCache::Impl::QuickStopRest rest;
    SolveCache::Impl::quick_stop(cluster, c.vetoes[node], q, rest);
    CAPSIM_CHECK(q == c.quick_stops[node] && rest == c.quick_stops_rest[node],
                 "remembered_stop_holds: a record differs from its remembered stop");
  }
#endif
  const auto& r = c.quick_stops[node];
  // A no_room stop holds on a changed pod list while its pod, or another remembered pod with no
  // room elsewhere, stays: the pods that joined are summarised now.
  const bool changed = r.pods_revision != pods_revision;
  if (r.kind == SolveCache::Impl::QuickStop::Kind::none
      || (changed ? r.kind != SolveCache::Impl::QuickStop::Kind::no_room : r.pod_count != candidate_pods.size())
      || r.ignore_preferences != input.options.ignore_preferences
      || r.moving_view != input.options.consolidation_simulation || !r.summary_plain
      || cluster.bound_with_anti_affinity() != 0) {
    return false;
  }
  // As the solve would start: its pools prepared (nothing to do while they stand).
  auto& pass = c.quick_pass;
  auto& st = pass.standing;
  // Within the caller's hold only what a solve changes is compared.
  const bool cache_same = st.valid && st.schedulers == c.schedulers_made && st.pools_generation == c.pools_generation
                          && st.snapshot_builds == c.snapshot_builds
                          && st.templates_generation == c.templates.generation;
  const auto inputs_same = [&] {
    return st.input == &input && st.pools == input.node_pools.data() && st.limits == input.remaining_limits.data()
           && st.limits_size == input.remaining_limits.size() && st.availability_version == input.availability_version
           && st.min_values_best_effort == input.options.min_values_best_effort
           && pass.matches(cluster, input, st.tolerate_pns, after);
  };
  const bool held = hold != 0 && st.hold == hold;
  const bool standing = cache_same && (held || inputs_same());
#ifndef NDEBUG
  CAPSIM_CHECK(!(cache_same && held) || inputs_same(), "remembered_stop_holds: the input changed within a hold");
#endif
  bool tolerate_pns = standing ? st.tolerate_pns : pass.prepared_tolerate_pns;
  if (!standing && !c.pools_prepared(input)) {
    tolerate_pns = c.prepare_pools(input, pass.pool_types);
    pass.prepared_pools = input.node_pools.data();
    pass.prepared_generation = c.pools_generation;
    pass.prepared_tolerate_pns = tolerate_pns;
  }
#ifndef NDEBUG
  {
    const auto generation = c.pools_generation;
    std::vector<PoolTypes*> types;
    CAPSIM_CHECK(c.prepare_pools(input, types) == tolerate_pns && types == pass.pool_types
                     && c.pools_generation == generation,
                 "remembered_stop_holds: preparing the pools again changes them");
  }
#endif
  if (r.tolerate_pns != tolerate_pns) {
    return false;
  }
  if (!standing && !pass.matches(cluster, input, tolerate_pns, after)) {
    pass.valid = true;
    pass.cluster = cluster.instance_id();
    pass.epoch = cluster.node_epoch();
    pass.bindings = cluster.binding_log().size();
    pass.pending_revision = cluster.pending_revision();
    pass.now = input.options.now;
    pass.ignore_preferences = input.options.ignore_preferences;
    pass.tolerate_pns = tolerate_pns;
    pass.after_data = after.data();
    pass.after_size = after.size();
    Scheduler s(input, c);
    s.describe_others(after, pass);
  }
  const auto templates_current = [&] {
    return c.templates_current(input.options.min_values_best_effort, input.daemon_sets, pass.pool_types)
           && std::none_of(c.templates.list.begin(), c.templates.list.end(),
                           [&](const Template& t) { return limited(input, t); });
  };
  if (!standing) {
    // (Not for a pool without a revision: it may change in place, so it is prepared every time.)
    st = {std::all_of(input.node_pools.begin(), input.node_pools.end(),
                      [](const NodePoolInput& p) { return p.revision != 0; }),
          hold,
          &input,
          input.node_pools.data(),
          input.remaining_limits.data(),
          input.remaining_limits.size(),
          input.availability_version,
          input.options.min_values_best_effort,
          c.schedulers_made,
          c.pools_generation,
          c.snapshot_builds,
          c.templates.generation,
          tolerate_pns,
          c.snapshot_current(cluster, input.daemon_sets, false),
          templates_current()};
  }
#ifndef NDEBUG
  CAPSIM_CHECK((!standing || c.pools_prepared(input)) && st.snapshot_current == c.snapshot_current(cluster, input.daemon_sets, false)
                   && st.templates_current == templates_current(),
               "remembered_stop_holds: a standing answer differs from the checks");
#endif
  const bool no_room = r.kind == SolveCache::Impl::QuickStop::Kind::no_room;
  if (!pass.others.plain_for(no_room) || !st.snapshot_current) {
    return false;
  }
  auto& snap = c.existing;
  if (pass.snapshot != c.snapshot_builds) { // positions and room as the snapshot has them
    pass.snapshot = c.snapshot_builds;
    pass.replayed = false;
    pass.written.clear();
  }
  if (r.moving_view && snap.index.quiet_now() != input.options.now) {
    snap.index.set_quiet_now(input.options.now);
  }
  if (no_room && hold != 0 && st.hold == hold) {
    pass.primed = hold; // everything above that no candidate changes holds for the hold
  }
  // no_room: the stop pod with room on a Ready node now, or gone from a changed list: another of
  // the candidate's pods may fit nowhere instead (the solve's pre-check takes any bound pod that
  // does): a remembered one still there, looked for first (most such checks fail), else one that
  // joined. (Nodes that are not Ready do not count: the stop pod would go to one of them.)
  auto& v = c.vetoes[node];
  const bool stop_left =
      changed && std::find(candidate_pods.begin(), candidate_pods.end(), v.pod) == candidate_pods.end();
  std::optional<cluster::PodIndex> witness;
  bool joined_witness = false; // wanted among the pods that joined
  if (no_room
      && (stop_left || first_ready_fit(snap, r.want(), r.moving_view, FreeCapacityIndex::k_end, node)
                           != FreeCapacityIndex::k_end)) {
    if (changed && !std::is_sorted(candidate_pods.begin(), candidate_pods.end())) {
      return false; // (the witness is looked up in it; a candidate's list is sorted)
    }
    witness = quick_witness(v, snap, node, changed ? &candidate_pods : nullptr);
    if (!witness && !changed) {
      return false;
    }
    joined_witness = !witness;
  }
  // (Kept in the pass's record, not in an optional here: a week checks millions of candidates,
  // and the optional was zeroed for each.)
  PodsSummary* joined = nullptr;
  if (changed) {
    pass.joined = PodsSummary{};
    joined = &pass.joined;
    auto& valid = c.joined_valid;
    valid.clear();
    // (v.pods is sorted, and so is a candidate's list: one walk over both while it is.)
    std::size_t at = 0;
    bool in_order = true;
    for (std::size_t j = 0; j < candidate_pods.size(); ++j) {
      const auto p = candidate_pods[j];
      in_order = in_order && (j == 0 || candidate_pods[j - 1] < p);
      bool remembered = false;
      if (in_order) {
        while (at < v.pods.size() && v.pods[at] < p) {
          ++at;
        }
        remembered = at < v.pods.size() && v.pods[at] == p;
      } else {
        remembered = std::binary_search(v.pods.begin(), v.pods.end(), p);
      }
      if (remembered || !summarize_pod(c, cluster, p, input.options.ignore_preferences, tolerate_pns, *joined)) {
        continue; // remembered, or left out of the solve
      }
      valid.push_back(p);
      if (joined_witness
          && first_ready_fit(snap, FreeCapacityIndex::dims(pod_requests(cluster.pod(p).pod())), r.moving_view,
                             FreeCapacityIndex::k_end, node)
                 == FreeCapacityIndex::k_end) {
        witness = p;
        joined_witness = false;
      }
    }
    if (joined_witness || !joined->plain_for(true)) {
      return false;
    }
  }
  // A not_ready stop's first fit other than the candidate (its position is looked up only when
  // that is it); a no_room stop looks at Ready nodes only, below.
  std::size_t fit = FreeCapacityIndex::k_end;
  if (!no_room) {
    fit = snap.index.first_fit_except(r.want(), r.moving_view, FreeCapacityIndex::k_end);
    if (fit != FreeCapacityIndex::k_end && snap.nodes[fit].index == node) {
      fit = snap.index.first_fit_except(r.want(), r.moving_view, fit);
    }
  }
  const auto& rest = c.quick_stops_rest[node];
  if (r.kind == SolveCache::Impl::QuickStop::Kind::not_ready && !pass.replayed && !pass.queue.empty()) {
    Scheduler s(input, c);
    s.replay_others(pass);
  }
  bool holds = false;
  if (no_room) {
    // (The stop pod, or the witness found above, has no room on any Ready node but the candidate.
    // Rebased first: a witness that joined gets its shape there.)
    holds = no_room_holds(c, cluster, node, joined);
    if (holds && changed) {
      if (!std::is_sorted(c.joined_valid.begin(), c.joined_valid.end())) {
        std::sort(c.joined_valid.begin(), c.joined_valid.end());
      }
      rebase_no_room(c, cluster, node, candidate_pods, *joined);
    }
    if (holds && witness) {
      v.pod = *witness;
      v.requests = pod_requests(cluster.pod(*witness).pod());
      c.sync_quick_stop(cluster, node);
    }
  } else if (fit != FreeCapacityIndex::k_end) {
    StopChecks checks{c, input, pass, std::nullopt};
    const std::size_t to = not_ready_holds(cluster, r, rest, checks, node, fit);
    holds = to != FreeCapacityIndex::k_end;
    const auto moved = [&](const ExistingNode& e) {
      return e.index != r.node || cluster.node_stamp(e.index) != r.node_stamp || r.pools != c.pools_generation;
    };
    if (holds && moved(snap.nodes[to])) {
      // The stop moved, as veto_still_holds records it.
      const auto& e = snap.nodes[to];
      v.node = e.index;
      v.node_stamp = cluster.node_stamp(e.index);
      v.pools = c.pools_generation;
      auto& q = c.quick_stops[node];
      q.node = v.node;
      q.node_stamp = v.node_stamp;
      q.pools = v.pools;
    }
  }
  if (holds) {
    ++c.veto_hits;
  }
#ifndef NDEBUG
  if (holds) {
    // The solve agrees (and its memo hit is not counted twice). It is not one a release build
    // makes: it leaves the standing answers standing, so that holds_again is checked too.
    SolveInput full = input;
    full.pods.insert(full.pods.end(), candidate_pods.begin(), candidate_pods.end());
    full.pods.insert(full.pods.end(), after.begin(), after.end());
    const auto hits = c.veto_hits;
    const auto made = c.schedulers_made;
    {
      Scheduler s(full, c);
      CAPSIM_CHECK(s.run().stopped, "remembered_stop_holds: the solve does not stop");
    }
    c.veto_hits = hits;
    c.schedulers_made = made;
  }
#endif
  return holds;
}

SolveResult solve(const SolveInput& input)
{
  if (input.cache != nullptr) {
    Scheduler s(input, input.cache->impl());
    return s.run();
  }
  SolveCache local;
  Scheduler s(input, local.impl());
  return s.run();
}

std::string min_values_not_met(std::vector<std::string> keys)
{
  std::sort(keys.begin(), keys.end());
  return fmt::format("minValues requirement is not met for label(s) (label(s)=[{}])", fmt::join(keys, " "));
}

} // namespace capsim::karpenter
