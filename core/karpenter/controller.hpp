#pragma once

#include "core/catalog/catalog.hpp"
#include "core/karpenter/launch.hpp"
#include "core/karpenter/solve.hpp"
#include "core/model/scenario.hpp"
#include "core/sim/controller.hpp"
#include "core/sim/node_class_types.hpp"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

namespace capsim::karpenter {

// The nodes of a cluster created at one clock value (NodeState::created_at), ascending:
// provisioning nominates them after each solve, and a walk over the live nodes per solve cost ~1%
// of a 1,000,000-pod week. Kept from the nodes added since the last update; the nodes before are
// looked at again only when one of them was created at or after the new clock value.
struct NodesCreatedAt
{
  std::vector<cluster::NodeIndex> nodes; // created at `now`, live or not
  SimTime now = -1;
  std::uint64_t cluster = 0; // Cluster::instance_id
  std::size_t scanned = 0;   // the nodes looked at: [0, scanned)
  SimTime latest = std::numeric_limits<SimTime>::min(); // their latest created_at

  // Brings `nodes` up to date for the clock value `at`.
  void update(const cluster::Cluster& c, SimTime at);
};

// Karpenter as a simulated controller: the provisioner (pending-pod batching, Solve, launch),
// the forceful expiration controller and, through `Disruption`, the disruption controller.
// Interruption is the engine's: it drains spot nodes on the 2-minute notice.
class KarpenterController : public sim::Controller
{
public:
  KarpenterController(const model::Scenario& scenario, const catalog::Catalog& catalog, std::uint64_t seed);
  ~KarpenterController() override;

  [[nodiscard]] std::string_view name() const override { return "karpenter"; }

  std::optional<SimTime> reconcile(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator) override;

  void finish(report::EngineResult& result) override;
  // The interruption controller runs only with an interruption queue (settings.interruptionQueue)
  // and acts on the NodeClaims of NodePools.
  [[nodiscard]] Duration interruption_lead_time() const override;
  [[nodiscard]] bool handles_interruption(const cluster::NodeState& node) const override;
  [[nodiscard]] const catalog::InstanceType* instance_type_for(const cluster::NodeState& node) const override;
  [[nodiscard]] const std::vector<const catalog::InstanceType*>* pool_instance_types(
      const model::NodePool& pool) const override;

  // The NodePools as Solve sees them (instance types filtered to each pool's requirements).
  [[nodiscard]] const std::vector<NodePoolInput>& node_pools() const { return m_pools; }
  // The NodePools as they are now: the scenario's, each replaced by its later versions
  // (model::NodePoolUpdate) as the run reaches them; indexed like scenario().node_pools.
  [[nodiscard]] const std::vector<model::NodePool>& pool_specs() const { return m_pool_specs; }
  // The EC2NodeClass named `name` as it is now (later versions applied); nullptr when the
  // scenario has none of that name.
  [[nodiscard]] const model::NodeClass* node_class(std::string_view name) const;

  // Nodes nominated for pods (not disruption candidates) until the returned time.
  [[nodiscard]] SimTime nominated_until(cluster::NodeIndex node) const;
  // The same for every node, by node index (-1 or none past the end: not nominated).
  [[nodiscard]] std::span<const SimTime> nominations() const { return m_nominated_until; }
  // No node is nominated past this time (-1: none ever was).
  [[nodiscard]] SimTime nominations_end() const { return m_nominations_end; }
  // The node of every nomination made, in order (CandidateContext::nomination_logs).
  [[nodiscard]] std::span<const cluster::NodeIndex> nomination_log() const { return m_nomination_log; }

  // Disruption controller hook: called every poll (10 s) after provisioning. Installed by
  // the disruption module; returns true when it started a command.
  using DisruptionStep = std::function<bool(SimTime, const cluster::Cluster&, sim::Actuator&)>;
  void set_disruption(DisruptionStep step) { m_disruption = std::move(step); }

  // Called from the disruption step: run it again no later than `at` (a validation falling due,
  // a replacement expected to initialize). The earliest request wins; cleared after each step.
  void request_disruption_wake(SimTime at)
  {
    if (m_disruption_wake < 0 || at < m_disruption_wake) {
      m_disruption_wake = at;
    }
  }

  // Live nodes with the disrupted taint or being deleted, ascending, as the cluster is now (a
  // consolidation simulation moves their pods; walking every node's record for them in each pass
  // was a cache miss per node on large clusters). Kept apart from provisioning's list, whose
  // updates tell it which nodes joined since it last looked.
  [[nodiscard]] const std::vector<cluster::NodeIndex>& disrupted_nodes(const cluster::Cluster& cluster)
  {
    (void)m_disrupted_for_consolidation.update(cluster);
    return m_disrupted_for_consolidation.nodes;
  }

  // Build the SolveInput shared by provisioning and consolidation simulations.
  [[nodiscard]] SolveInput solve_input(const cluster::Cluster& cluster, const sim::Actuator& actuator) const;
  // solve_input() into `in`, whatever it held, keeping its buffers.
  void fill_solve_input(SolveInput& in, const cluster::Cluster& cluster, const sim::Actuator& actuator) const;

  // Launch the NodeClaims of a Solve: pick the offering and ask the cloud. Returns launched
  // node indices (k_none for claims that failed with insufficient capacity).
  std::vector<cluster::NodeIndex> launch_claims(SimTime now, const SolveResult& result, sim::Actuator& actuator,
                                                const cluster::Cluster& cluster);

  [[nodiscard]] const model::Scenario& scenario() const { return m_scenario; }

  [[nodiscard]] const catalog::Catalog& catalog() const { return m_catalog; }

  [[nodiscard]] SolveCache& cache() { return *m_cache; }

private:
  void provision(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);
  // Applies the NodePool and EC2NodeClass versions, NodePool creations and deletions due by
  // `now` (kubectl apply, kubectl delete), in time order (at one time: EC2NodeClasses, then
  // NodePool creations and versions, then deletions): Solve and disruption see them from then
  // on, under a new NodePoolInput::revision.
  void apply_updates(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);
  void apply_pool_update(const model::NodePoolUpdate& update, SimTime now, sim::Actuator& actuator);
  void apply_class_update(std::size_t update, SimTime now, sim::Actuator& actuator);
  // A NodePool created or deleted (m_lifecycle[index]); a deleted NodePool's NodeClaims are
  // deleted with it (their owner references), each drained as any deleted NodeClaim.
  void apply_lifecycle(std::size_t index, SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);
  // Installs `pool` as NodePool `index`'s spec, with the instance types of its EC2NodeClass.
  void set_pool(std::uint32_t index, const model::NodePool& pool);
  void expire(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);
  // The earliest expire_at of a live node not being deleted (-1: none).
  SimTime earliest_expiry(const cluster::Cluster& cluster);
  // Those nodes' expire_at, kept from the cluster's node log: reconcile runs on every pod event,
  // and a walk over the nodes on each node change cost ~1% of a 1,000,000-pod week.
  struct Expiries
  {
    std::set<std::pair<SimTime, cluster::NodeIndex>> order;
    std::vector<SimTime> at; // per node: its key in `order`, or -1
    std::uint64_t cluster = 0;
    std::size_t log_seen = 0;

    void update(const cluster::Cluster& c);
  };
  // Live nodes with the disrupted taint or being deleted, ascending, kept from the node log.
  struct DisruptedNodes
  {
    std::vector<cluster::NodeIndex> nodes;
    std::uint64_t cluster = 0;
    std::size_t log_seen = 0;

    // Brings `nodes` up to date from the cluster's node log; true when a node joined.
    bool update(const cluster::Cluster& c);
  };
  // The static provisioning and deprovisioning controllers (feature gate StaticCapacity): each
  // static NodePool launches NodeClaims up to spec.replicas (within limits.nodes) and deletes
  // the surplus. They react to NodeClaim and NodePool changes, so run when the nodes or the
  // NodePools changed, or a minute after a launch failed (their RequeueAfter).
  void static_capacity(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);

  const model::Scenario& m_scenario;
  const catalog::Catalog& m_catalog;
  sim::NodeClassTypes m_node_class_types; // the NodePools' instance types, per EC2NodeClass
  std::uint64_t m_seed;
  std::vector<model::NodePool> m_pool_specs; // never resized: m_pools point into it
  std::vector<NodePoolInput> m_pools;
  std::size_t m_next_update = 0;   // into scenario().node_pool_updates
  std::size_t m_next_class_update = 0; // into scenario().node_class_updates
  // NodePools that exist now (NodePool::created_at, deleted_at); Solve sees only these.
  std::vector<bool> m_present;
  bool m_all_present = true;
  struct LifecycleChange
  {
    SimTime at = 0;
    std::uint32_t pool = 0;
    bool create = false;
  };
  std::vector<LifecycleChange> m_lifecycle; // by time, creations first
  std::size_t m_next_lifecycle = 0;
  // Per EC2NodeClass name: its current version and the NodeClassTypes key of its types.
  std::map<std::string, std::pair<model::NodeClass, std::string>, std::less<>> m_classes;
  std::uint64_t m_pool_revisions = 0; // the last NodePoolInput::revision handed out
  std::vector<model::PodSpecPtr> m_daemon_sets;
  std::unique_ptr<SolveCache> m_cache;
  SolveInput m_provision_input; // provision()'s, filled again on each run (its buffers kept)
  LaunchMemo m_launch_memo;
  bool m_reservations = false; // some offering is in a capacity reservation
  bool m_static_pools = false;  // some NodePool (version) sets spec.replicas
  std::uint64_t m_static_epoch = 0;     // cluster node epoch the static controllers last saw
  std::uint64_t m_static_revisions = 0; // m_pool_revisions then
  SimTime m_static_retry = -1;          // a launch failed: look again then
  DisruptionStep m_disruption;

  // Batcher (core:pkg/controllers/provisioning/batcher.go): a window opens at the first new
  // pending pod and closes after batch_idle_duration without new pods or batch_max_duration.
  SimTime m_batch_start = -1;
  SimTime m_batch_last = -1;
  SimTime m_last_scan = -1;  // pods pending since after this are new triggers
  Expiries m_expiries;
  SimTime m_last_solve = -1; // pending pods are re-triggered every 10 s
  // Provisioning's NodeController triggers a run for each node joining these, and again every
  // 10 s while it stays.
  DisruptedNodes m_disrupted;
  DisruptedNodes m_disrupted_for_consolidation;
  NodesCreatedAt m_created;
  SimTime m_next_disruption = 0;
  SimTime m_disruption_wake = -1; // request_disruption_wake
  std::vector<SimTime> m_nominated_until; // per node
  SimTime m_nominations_end = -1;         // the latest of them
  std::vector<cluster::NodeIndex> m_nomination_log;
  std::int64_t m_solves = 0;
  std::int64_t m_launch_failures = 0;
};

// Re-trigger period of still-pending pods (PodController requeue) and of disrupted nodes
// (NodeController requeue).
inline constexpr Duration k_pending_requeue = 10 * k_second;
// Disruption controller poll period.
inline constexpr Duration k_disruption_poll = 10 * k_second;
// Nomination window: max(2 x batchMaxDuration, 10 s).
[[nodiscard]] Duration nomination_window(const model::KarpenterSettings& settings);

[[nodiscard]] std::unique_ptr<KarpenterController> make_karpenter(const model::Scenario& scenario,
                                                                  const catalog::Catalog& catalog, std::uint64_t seed);

} // namespace capsim::karpenter
