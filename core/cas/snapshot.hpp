#pragma once

#include "core/cluster/cluster.hpp"
#include "core/model/pod.hpp"
#include "core/model/resources.hpp"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::cas {

// A snapshot node's non-DaemonSet pods, in the order they were added. A registered node's list
// refers to the cluster's own (NodeState::pods) and is converted on first use: a loop reads or
// changes the pods of few nodes, and converting every node's list each loop was a tenth of a run.
class SnapPods
{
public:
  using List = std::vector<const model::Pod*>;

  // Refers to `pods` of `cluster`, unchanged while this list is in use; `buffer` holds the
  // conversion (its room is reused).
  void refer(const cluster::Cluster& cluster, const std::vector<cluster::PodIndex>& pods, List buffer);
  // The list, converted if it was a reference.
  [[nodiscard]] const List& list() const
  {
    materialize();
    return m_list;
  }
  // The list to change.
  [[nodiscard]] List& edit()
  {
    materialize();
    return m_list;
  }
  // The buffer, for another list (this one is left empty).
  [[nodiscard]] List release();

  [[nodiscard]] List::const_iterator begin() const { return list().begin(); }
  [[nodiscard]] List::const_iterator end() const { return list().end(); }
  [[nodiscard]] std::size_t size() const { return m_source != nullptr ? m_source->size() : m_list.size(); }
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] const model::Pod* operator[](std::size_t i) const { return list()[i]; }
  void push_back(const model::Pod* pod) { edit().push_back(pod); }

private:
  void materialize() const
  {
    if (m_source != nullptr) {
      convert();
    }
  }
  void convert() const;

  mutable List m_list;
  mutable const cluster::Cluster* m_cluster = nullptr;
  mutable const std::vector<cluster::PodIndex>* m_source = nullptr; // set until converted
};

// One node of Cluster Autoscaler's simulated cluster (its ClusterSnapshot): a real node of
// the cluster, an upcoming node (a copy of its group's template) or a node the estimator
// added. `state` gives labels, taints and allocatable; `requested` and `pods` are the
// simulation's own view (DaemonSet pods are only counted in `requested`).
// What scale-down reads of a registered node's record every loop (its lifecycle, and cpu, memory
// and GPUs allocatable and taken by DaemonSets), taken with the node: the record is far from
// the snapshot, in three cache lines.
struct NodeBasis
{
  bool ready = false;
  std::array<std::int64_t, 3> allocatable{}; // cpu, memory, nvidia.com/gpu
  std::array<std::int64_t, 3> daemons{};

  bool operator==(const NodeBasis&) const = default;
};

struct SnapNode
{
  const cluster::NodeState* state = nullptr;
  NodeBasis basis;                     // of `state` (registered nodes; scale-down's)
  model::Resources requested;          // incl. DaemonSet pods and one `pods` per pod
  SnapPods pods;                       // non-DaemonSet pods, in the order they were added
  std::int32_t group = -1;             // node group index, -1 for nodes of no group
  cluster::NodeIndex cluster_node = cluster::k_none; // index in the cluster, k_none for copies
  bool real = false;                   // a registered node of the cluster (not a template copy)
  bool blocked = false;                // tainted ToBeDeleted / being removed: no new pods
  bool removed = false;                // gone from the snapshot (removal simulated and kept)
};

// Cluster Autoscaler's ClusterSnapshot with Fork/Revert: every change is logged, so
// `revert(mark())` undoes everything done since the mark (marks nest). Node order is the
// order nodes were added; indices stay valid until a revert removes the node.
class Snapshot
{
public:
  // Adds a node that lives outside the snapshot (a cluster node). Returns its index.
  // `may_have_anti_affinity` false: the caller knows none of its pods has required pod
  // anti-affinity (they are not looked at).
  std::size_t add_node(SnapNode node, bool may_have_anti_affinity = true);
  // Room for `nodes` nodes (and as many changes) without reallocating.
  void reserve(std::size_t nodes);
  // Empty again, keeping the buffers (a snapshot is made every loop).
  void clear();
  // The snapshot's real nodes are those of the cluster with this Cluster::instance_id: the hashes
  // of their names are kept by node index from snapshot to snapshot (names never change).
  void use_cluster(std::uint64_t instance_id);
  // An empty pod list for the next SnapNode, with the room of one that clear() let go.
  [[nodiscard]] std::vector<const model::Pod*> spare_pod_list();
  // Puts `node` in the place of node `i` (the same cluster node, changed since it was added);
  // not logged: for the nodes under every mark.
  void refresh_node(std::size_t i, SnapNode node, bool may_have_anti_affinity);
  // Puts a cluster node in at position `i` (the later ones move up one), or takes node `i` out
  // (the later ones move down one): as a snapshot built anew with the node listed there, or not.
  // Only while nothing is logged but the nodes' own additions, and no copy is in (the kept base of
  // a loop, where the cluster's nodes join and leave).
  void insert_node(std::size_t i, SnapNode node, bool may_have_anti_affinity);
  void erase_node(std::size_t i, bool may_have_anti_affinity);
  // Adds a copy of `state` named `name` (hostname label set to it), owned by the snapshot.
  // `source`, when not 0, names `state` as it is now (NodeTemplate::id): a slot whose last copy
  // was of the same source keeps it and takes only the new name (the copy is never changed while
  // in use; every loop copies each upcoming node's template again).
  std::size_t add_copy(const cluster::NodeState& state, const std::string& name, const model::Resources& requested,
                       std::int32_t group, std::uint64_t source = 0);

  // Binds `pod` to `node` in the simulation (adds its requests and one pod).
  void add_pod(std::size_t node, const model::Pod& pod);
  // Unbinds `pod` from `node` (the last binding of that pod).
  void remove_pod(std::size_t node, const model::Pod& pod);
  void set_blocked(std::size_t node, bool blocked);
  void set_removed(std::size_t node, bool removed);

  [[nodiscard]] std::size_t mark() const { return m_log.size(); }

  // Undoes every change made after `mark`.
  void revert(std::size_t mark);

  [[nodiscard]] const std::vector<SnapNode>& nodes() const { return m_nodes; }

  [[nodiscard]] const SnapNode& node(std::size_t i) const { return m_nodes[i]; }

  [[nodiscard]] std::size_t size() const { return m_nodes.size(); }

  // Index of the node named `name`, or SIZE_MAX; `hash`: std::hash<std::string_view> of it.
  [[nodiscard]] std::size_t find(const std::string& name) const
  {
    return find(name, std::hash<std::string_view>{}(name));
  }
  [[nodiscard]] std::size_t find(const std::string& name, std::size_t hash) const;
  // The hash of node `i`'s name, as find() takes it (a registered node's is kept).
  [[nodiscard]] std::size_t name_hash(std::size_t i) const;
  // Whether find()'s table, while kept and while no name is shared, maps each name to its node
  // and holds no other (for checks).
  [[nodiscard]] bool names_consistent() const;

  // While set, the NodeName filter is skipped: the removal simulation reschedules pods with
  // spec.nodeName cleared, as CA's findPlaceFor does.
  void set_ignore_node_name(bool ignore) { m_ignore_node_name = ignore; }

  [[nodiscard]] bool ignore_node_name() const { return m_ignore_node_name; }

  // Number of pods in the snapshot with required pod anti-affinity terms (lets the
  // predicate skip the symmetric anti-affinity scan when there are none).
  [[nodiscard]] std::size_t anti_affinity_pods() const { return m_anti_affinity_pods; }

  // Topology spread counts of one pod spec's constraint (PodTopologySpread's pre-filter state):
  // matching pods per domain of the nodes that count. Made on first use and kept up to date
  // through every change and revert until clear(): the removal simulation moves pods one by one
  // and tries each on node after node, and walking every pod of the snapshot per check was most
  // of a scale-down with a spread workload.
  struct SpreadCounts
  {
    const model::PodSpec* spec = nullptr; // its namespace, node affinity and tolerations
    const model::TopologySpreadConstraint* constraint = nullptr;
    std::optional<model::LabelSelector> selector; // matchLabelKeys merged in; nullopt counts no pod
    std::map<std::string, std::int64_t, std::less<>> counts; // domain -> matching pods
    std::map<std::string, std::int64_t, std::less<>> nodes;  // domain -> nodes that count
  };
  [[nodiscard]] const SpreadCounts& spread_counts(const model::PodSpec& spec, const model::TopologySpreadConstraint& c,
                                                  const std::optional<model::LabelSelector>& selector) const;

private:
  enum class OpKind : std::uint8_t { add_node, add_pod, remove_pod, set_blocked, set_removed };

  struct Op
  {
    OpKind kind = OpKind::add_node;
    std::size_t node = 0;
    const model::Pod* pod = nullptr;
    std::size_t position = 0;
    bool flag = false;
    bool owned = false;
  };

  // Node names by hash in an open-addressed table (built on demand by find(), then kept up to
  // date by additions and reverts): each name maps to the last node added under it. A slot
  // holds the node index + 1; 0 is free, k_erased a removed entry that probes pass over.
  struct NameSlot
  {
    std::size_t hash = 0;
    std::uint32_t node = 0;
  };
  static constexpr std::uint32_t k_erased = 0xffffffffU;

  void apply_pod(std::size_t node, const model::Pod& pod, int sign);
  void build_names() const;
  // The slot holding the name `same` accepts, or the free slot where it would go; `same` is asked
  // only of a slot whose hash matches (a node's name is read only then).
  template <typename Same>
  [[nodiscard]] NameSlot& name_slot(std::size_t hash, const Same& same) const;
  void name_added(std::size_t node) const;
  void name_removed(std::size_t node) const;
  // The table's node indices from `from` on moved by `by` (a node put in or taken out before them).
  void names_shifted(std::size_t from, int by) const;

  std::vector<SnapNode> m_nodes;
  // Template copies (stable addresses). The first m_owned_used are in use; the others keep their
  // buffers for the next copies (every loop copies each upcoming node's template again).
  std::deque<cluster::NodeState> m_owned;
  std::vector<std::uint64_t> m_owned_source; // by slot: add_copy's `source` of its copy (0: none)
  std::size_t m_owned_used = 0;
  mutable std::vector<NameSlot> m_by_name; // size a power of two, at least twice the entries
  mutable std::size_t m_names_used = 0;    // slots not free (entries and erased ones)
  mutable bool m_by_name_valid = false;
  // No name was added while the table held it already: each name is one node's, so a node put
  // in or taken out changes its own entry only.
  mutable bool m_names_unique = true;
  std::uint64_t m_cluster = 0; // use_cluster's; 0: no hashes kept
  struct KnownHash
  {
    std::size_t hash = 0;
    bool known = false;
  };
  mutable std::vector<KnownHash> m_name_hashes; // by cluster node index
  std::vector<Op> m_log;
  // The kept spread counts follow node `i` joining (+1) or leaving (-1) the counted nodes, and a
  // pod joining or leaving a node that is not removed.
  void spread_node(std::size_t i, int sign);
  void spread_pod(std::size_t i, const model::Pod& pod, int sign);
  void set_removed_flag(std::size_t node, bool removed);
  mutable std::vector<SpreadCounts> m_spread;
  std::size_t m_anti_affinity_pods = 0;
  bool m_ignore_node_name = false;
  std::vector<std::vector<const model::Pod*>> m_spare_pod_lists; // pod lists clear() let go
};

// Requests of a pod as the scheduler counts them: its requests plus one `pods`.
[[nodiscard]] model::Resources pod_footprint(const model::Pod& pod);

} // namespace capsim::cas
