#pragma once

#include "core/base/append_log.hpp"
#include "core/base/units.hpp"
#include "core/catalog/instance_type.hpp"
#include "core/model/kube.hpp"
#include "core/model/pod.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace capsim::cluster {

using PodIndex = std::uint32_t;
using NodeIndex = std::uint32_t;
inline constexpr std::uint32_t k_none = UINT32_MAX;

enum class PodPhase : std::uint8_t {
  future,   // not arrived yet
  pending,  // waiting for a node
  bound,    // bound to a node (running once the node is ready)
  finished, // ran to completion or was deleted by the workload
  lost,     // evicted bare pod: nothing recreates it
};

class PodTable;

// A pod's state in the simulation, one cache line, and the pod as the workload gave it, which the
// cluster's PodTable keeps apart: a million-pod trace's pods are then held once, not copied into a
// second table three times their states' size.
struct alignas(64) PodState
{
  static constexpr std::uint32_t k_no_bound_slot = UINT32_MAX; // not in the lower bound

  PodPhase phase = PodPhase::future;
  NodeIndex node = k_none;
  NodeIndex nominated = k_none; // node Karpenter planned for it (kube-scheduler decides)
  std::uint32_t evictions = 0;
  // The engine's per-pod bookkeeping, kept in this line: a replay reads it on every pod event,
  // and tables of their own missed the cache each time.
  std::uint32_t generation = 0;              // bumped when the pod's scheduled events go stale
  std::uint32_t bound_slot = k_no_bound_slot; // its template's slot in the lower bound
  SimTime pending_since = 0; // when it last became pending
  SimTime started_at = -1;   // when it last started running (bound on a ready node)
  SimTime finish_at = -1;    // absolute completion time while running; -1 = none
  SimTime departure = -1;    // absolute deletion time from the workload; -1 = none

  [[nodiscard]] const model::Pod& pod() const { return *m_pod; }

  [[nodiscard]] model::Pod& pod() { return *m_pod; }

private:
  friend class PodTable;
  model::Pod* m_pod = nullptr; // in its PodTable's blocks, which never move
};
static_assert(sizeof(PodState) == 64, "a pod's state is one cache line");

// The cluster's pods in index order: their states, and the pods themselves in blocks that never
// move once made (a workload's vector is taken whole as one), so that a state can point at its pod.
// A copy copies the pods and points the copied states at them.
class PodTable
{
public:
  PodTable() = default;
  PodTable(const PodTable& other) : m_states(other.m_states), m_blocks(other.m_blocks) { relink(); }

  PodTable& operator=(const PodTable& other)
  {
    if (this != &other) {
      m_states = other.m_states;
      m_blocks = other.m_blocks;
      relink();
    }
    return *this;
  }

  PodTable(PodTable&&) noexcept = default;
  PodTable& operator=(PodTable&&) noexcept = default;
  ~PodTable() = default;

  [[nodiscard]] const std::vector<PodState>& states() const { return m_states; }

  [[nodiscard]] const PodState& operator[](PodIndex i) const { return m_states[i]; }

  [[nodiscard]] PodState& operator[](PodIndex i) { return m_states[i]; }

  PodIndex add(model::Pod pod);
  // Takes the vector whole as the next block: its pods are not moved.
  void adopt(std::vector<model::Pod> pods);
  // Room for n states: the table does not move while it fills.
  void reserve(std::size_t n);

private:
  void relink();

  std::vector<PodState> m_states;
  std::vector<std::vector<model::Pod>> m_blocks;
};

// Whether a pod's karpenter.sh/do-not-disrupt annotation is in force at `now`: "true" always; a
// duration while the pod has run for less than it (or has not started); never for a
// terminating pod. Karpenter neither disrupts a node for such a pod nor evicts it while draining
// one.
[[nodiscard]] bool do_not_disrupt_active(const PodState& pod, SimTime now);

enum class NodeOwner : std::uint8_t { static_node, node_pool, node_group };

enum class NodeLifecycle : std::uint8_t {
  launching,  // NodeClaim created / ASG instance requested; no Node yet
  registered, // Node exists, not yet initialized (startup taints, not Ready)
  ready,      // initialized: pods can run
  deleting,   // cordoned and draining; pods are being evicted
  terminated,
};

struct NodeState
{
  std::string name;
  const catalog::InstanceType* instance_type = nullptr; // nullptr only for unknown static types
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
  model::Labels labels;
  std::vector<model::Taint> taints; // current taints (startup taints until initialized)
  model::Resources allocatable;
  // Every bound pod's requests PLUS one `pods` each (Pod::requests carries no pods entry),
  // plus the DaemonSet overhead the engine applies when the node is created.
  model::Resources requested;
  model::Resources daemon_requested; // DaemonSet part of requested
  NodeOwner owner = NodeOwner::static_node;
  std::uint32_t pool = k_none; // NodePool or NodeGroup index
  NodeLifecycle lifecycle = NodeLifecycle::launching;
  SimTime created_at = 0;
  Duration age_at_creation = 0; // how old the node already was then (a node seeded at t=0)
  SimTime registered_at = -1;
  SimTime ready_at = -1;
  SimTime deleting_since = -1;
  SimTime terminated_at = -1;
  SimTime last_pod_event = 0; // Karpenter's lastPodEventTime (Consolidatable condition)
  SimTime nominated_until = -1;
  SimTime expire_at = -1;       // -1 = never
  SimTime drifted_at = -1;      // -1 = not drifted
  bool do_not_disrupt = false;  // node annotation karpenter.sh/do-not-disrupt
  bool disrupted_taint = false; // karpenter.sh/disrupted:NoSchedule (candidate in a command)
  std::uint64_t template_hash = 0;
  // Its EC2NodeClass's hash and AMI selector when launched (model::NodeClass; 0: unknown, as
  // for nodes whose class is not in the scenario): a later version that changes them drifts it.
  std::uint64_t node_class_hash = 0;
  std::uint64_t ami_hash = 0;
  // The NodeClaim's terminationGracePeriod, copied from its NodePool at launch (nullopt: wait
  // forever); a later NodePool version does not change it.
  std::optional<Duration> termination_grace_period;
  std::vector<PodIndex> pods; // bound pods that model::listed_on_node lists
  // A new value (unique within the Cluster) whenever `pods` changes, so readers that derive
  // facts from the pod list can tell it is unchanged without comparing it.
  std::uint64_t pods_revision = 0;

  [[nodiscard]] bool alive() const { return lifecycle != NodeLifecycle::terminated; }

  [[nodiscard]] bool schedulable() const
  {
    return lifecycle != NodeLifecycle::deleting && lifecycle != NodeLifecycle::terminated && !disrupted_taint;
  }

  [[nodiscard]] model::Resources available() const { return allocatable - requested; }
};

// The simulated cluster: pods, nodes and the bindings between them. Both engines read it;
// only the simulation engine (sim/) changes it, through these methods, which keep the
// bindings and per-node sums consistent.
class Cluster
{
public:
  [[nodiscard]] const std::vector<PodState>& pods() const { return m_pods.states(); }

  [[nodiscard]] const std::vector<NodeState>& nodes() const { return m_nodes; }

  [[nodiscard]] const PodState& pod(PodIndex i) const { return m_pods[i]; }

  [[nodiscard]] const NodeState& node(NodeIndex i) const { return m_nodes[i]; }

  // Mutable access for the engine's bookkeeping fields (timestamps, lifecycle, taints).
  // Bindings and requested sums must go through bind()/unbind().
  [[nodiscard]] PodState& pod_mut(PodIndex i) { return m_pods[i]; }

  [[nodiscard]] NodeState& node_mut(NodeIndex i)
  {
    stamp(i);
    return m_nodes[i];
  }

  PodIndex add_pod(model::Pod pod);
  // Adds a workload's pods in their order, taking the vector whole (a trace's million pods are
  // then neither moved nor copied).
  void adopt_pods(std::vector<model::Pod> pods);
  NodeIndex add_node(NodeState node);

  // Room for n pods.
  void reserve_pods(std::size_t n)
  {
    m_pods.reserve(n);
    m_pending_pos.reserve(n);
  }

  // Bind a pending pod to a node (adds its requests to the node). A pod whose zonal claim is
  // provisioned on first binding (PodSpec::volume_binds_on_schedule) gets its volume there: its
  // spec becomes one pinned to the node's zone, which it keeps when it comes back pending.
  void bind(PodIndex pod, NodeIndex node, SimTime now);
  // Remove a bound pod from its node; the caller sets the new phase.
  void unbind(PodIndex pod, SimTime now);

  // Indices of pods currently pending, in the order they became pending.
  [[nodiscard]] const std::vector<PodIndex>& pending() const { return m_pending; }
  // Changes whenever pending() does (readers that summarise the list keep it with the summary).
  [[nodiscard]] std::uint64_t pending_revision() const { return m_pending_revision; }

  void set_pending(PodIndex pod, SimTime now);
  // Leaves the pending list (bound, finished or lost); call before changing phase.
  void clear_pending(PodIndex pod);

  // Number of nodes not terminated.
  [[nodiscard]] std::size_t alive_nodes() const { return m_alive_nodes; }

  // Indices of the nodes not terminated, ascending: loops over the live cluster should not
  // walk every node a long simulation ever launched.
  [[nodiscard]] const std::vector<NodeIndex>& alive_node_indices() const { return m_alive; }

  void mark_terminated(NodeIndex node, SimTime now);

  // Change tracking for incremental indexes (scheduling::KubeScheduler). Every bind()/unbind()
  // appends one entry to binding_log(); add_node(), node_mut() and mark_terminated() stamp the
  // node with ++node_epoch() and append it to node_log(). A reader remembers the log lengths
  // and epoch it has seen and revisits only what changed since.
  struct BindingChange
  {
    PodIndex pod = k_none;
    NodeIndex node = k_none;
    bool bound = false; // true: bind(), false: unbind()
  };

  [[nodiscard]] const AppendLog<BindingChange>& binding_log() const { return m_binding_log; }

  // Bound non-DaemonSet pods with a required pod anti-affinity term (a topology-free batch
  // can skip listing the running pods when there are none).
  [[nodiscard]] std::size_t bound_with_anti_affinity() const { return m_bound_anti_affinity; }
  [[nodiscard]] std::uint64_t node_epoch() const { return m_node_epoch; }

  [[nodiscard]] std::uint64_t node_stamp(NodeIndex i) const { return m_node_stamps[i]; }
  // The node of each stamp, in stamp order (a week stamps a few hundred thousand times; a reader
  // that walked every node a simulation ever had on each change would walk tens of thousands).
  [[nodiscard]] const std::vector<NodeIndex>& node_log() const { return m_node_log; }

  // Unique per Cluster object: a copy or a move gets a new one, so an index built for one cluster
  // is never mistaken for another that happens to reuse its address.
  [[nodiscard]] std::uint64_t instance_id() const { return m_instance.value; }

private:
  [[nodiscard]] model::PodSpecPtr pinned_to_zone(const model::PodSpecPtr& spec, const std::string& zone);

  void stamp(NodeIndex i)
  {
    m_node_stamps[i] = ++m_node_epoch;
    m_node_log.push_back(i);
  }

  struct InstanceId
  {
    std::uint64_t value = next();

    InstanceId() = default;

    InstanceId(const InstanceId& /*other*/) : value(next()) {}

    InstanceId& operator=(const InstanceId& /*other*/)
    {
      value = next();
      return *this;
    }

    ~InstanceId() = default;

    static std::uint64_t next();
  };

  PodTable m_pods;
  std::vector<NodeState> m_nodes;
  std::vector<PodIndex> m_pending;
  std::uint64_t m_pending_revision = 0;
  std::vector<std::uint32_t> m_pending_pos; // position in m_pending per pod, or k_none
  std::size_t m_alive_nodes = 0;
  std::vector<NodeIndex> m_alive; // sorted
  AppendLog<BindingChange> m_binding_log;
  std::vector<std::uint64_t> m_node_stamps; // per node: node_epoch of its last change
  std::vector<NodeIndex> m_node_log;
  std::uint64_t m_pods_revisions = 0;
  std::uint64_t m_node_epoch = 0;
  std::size_t m_bound_anti_affinity = 0;
  // Zone-pinned variants of specs by (spec, zone); the value keeps the spec of the key alive.
  using ZonePins = std::map<std::pair<const model::PodSpec*, std::string>, std::pair<model::PodSpecPtr, model::PodSpecPtr>>;
  std::shared_ptr<ZonePins> m_zone_pins = std::make_shared<ZonePins>();
  InstanceId m_instance;
};

} // namespace capsim::cluster
