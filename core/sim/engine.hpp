#pragma once

#include "core/catalog/catalog.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/scenario.hpp"
#include "core/report/result.hpp"
#include "core/sim/controller.hpp"
#include "core/sim/effective_cost.hpp"
#include "core/sim/event_queue.hpp"
#include "core/sim/placement.hpp"
#include "core/report/lower_bound.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace capsim::sim {

// Everything one engine run reads. The workload is sorted by arrival.
struct EngineInput
{
  const model::Scenario* scenario = nullptr;
  const catalog::Catalog* catalog = nullptr;
  const std::vector<model::Pod>* workload = nullptr;
  // Optional, the same vector as `workload`: the engine's cluster takes the vector whole and
  // leaves it empty instead of copying the pods (the last engine of a run; a million-pod trace's
  // pods are then held once).
  std::vector<model::Pod>* release_workload = nullptr;
  SimTime end = 0;
  std::uint64_t seed = 1;
  Duration timeline_step = 0;
  bool explain = false;
  std::function<void(double)> progress;
};

// Time after eviction before a drained instance is terminated (pods' shutdown).
inline constexpr Duration k_drain_time = 5 * k_second;
// Karpenter's terminator counts a node as drained only this long after its drain began
// (termination controller MinDrainTime), even when it had no pod to evict.
inline constexpr Duration k_min_drain_time = 5 * k_second;
// How often a drain blocked by a PodDisruptionBudget retries its evictions.
inline constexpr Duration k_drain_retry = 5 * k_second;
// How long an offering stays unavailable after an ICE or an interruption (Karpenter's cache).
inline constexpr Duration k_unavailable_offering_ttl = 3 * k_minute;

// The discrete-event simulator: owns the clock, the event queue and the cluster, runs one
// Controller (an autoscaler policy) against the workload and accounts cost and metrics.
class Engine final : public Actuator
{
public:
  explicit Engine(const EngineInput& input);

  // Runs the controller made by `make_controller` to the end and returns the metrics.
  report::EngineResult run(Controller& controller);

  [[nodiscard]] const cluster::Cluster& cluster() const { return m_cluster; }

  // Actuator
  cluster::NodeIndex launch(const LaunchRequest& request) override;
  void delete_node(cluster::NodeIndex node, DeleteReason reason) override;
  [[nodiscard]] bool offering_available(std::string_view instance_type, std::string_view zone,
                                        std::string_view capacity_type) const override;
  [[nodiscard]] std::uint64_t availability_version() const override;
  [[nodiscard]] std::int32_t reservation_used(std::string_view reservation_id) const override;
  [[nodiscard]] bool all_offerings_available() const override;
  void record(report::Decision decision) override;
  [[nodiscard]] bool records_decisions() const override { return m_input.explain; }
  void set_disrupted(cluster::NodeIndex node, bool disrupted) override;
  void set_deletion_candidate(cluster::NodeIndex node, bool candidate) override;

  // Mark an offering unavailable until now + ttl (ICE / interruption).
  void mark_unavailable(std::string_view instance_type, std::string_view zone, std::string_view capacity_type,
                        Duration ttl);

  [[nodiscard]] SimTime now() const { return m_now; }

private:
  void add_initial_state();
  void apply_daemon_overhead(cluster::NodeIndex node);
  void advance_to(SimTime t);
  void handle(const Event& e);
  void arrive(cluster::PodIndex pod);
  void start_pod(cluster::PodIndex pod);
  void finish_pod(cluster::PodIndex pod, bool deleted);
  void evict_pod(cluster::PodIndex pod);
  void node_ready(cluster::NodeIndex node);
  void terminate_node(cluster::NodeIndex node);
  // One pass of a Karpenter node's drain: evict what the PDBs allow (everything once the
  // NodePool's terminationGracePeriod has passed); terminate when nothing is left.
  void drain_step(cluster::NodeIndex node);
  void spot_notice(cluster::NodeIndex node);
  void schedule_spot_interruption(cluster::NodeIndex node);
  void apply_scenario_event(std::uint32_t index);
  void bind_pending();
  void sample_timeline();
  void bill(const cluster::NodeState& node, SimTime until);
  [[nodiscard]] bool ice_active(std::string_view instance_type, std::string_view zone,
                                std::string_view capacity_type) const;
  [[nodiscard]] std::string pool_name(const cluster::NodeState& node) const;
  [[nodiscard]] std::string pool_name_for(cluster::NodeOwner owner, std::uint32_t pool) const;
  void account_bound(cluster::NodeIndex node, cluster::PodIndex pod, int sign);
  report::EngineResult finish_result(Controller& controller);

  EngineInput m_input;
  cluster::Cluster m_cluster;
  EventQueue m_queue;
  SimTime m_now = 0;
  std::size_t m_next_arrival = 0;
  std::vector<cluster::PodIndex> m_workload_pod; // workload index -> pod index
  std::vector<cluster::PodIndex> m_to_try; // pods kube-scheduler should (re)try
  std::vector<cluster::PodIndex> m_spare_candidates; // bind_pending's list, kept for its room
  // Node indices by name (for pods bound through spec.nodeName), for the first *_count nodes.
  std::unordered_map<std::string, std::vector<cluster::NodeIndex>> m_nodes_by_name;
  std::size_t m_nodes_by_name_count = 0;
  bool m_capacity_changed = false;
  bool m_controller_triggered = false;
  SimTime m_controller_next = -1;
  Controller* m_controller = nullptr;
  std::uint64_t m_node_counter = 0;
  std::int64_t m_peak_nodes = 0;
  std::vector<SimTime> m_reclaim_at; // per node: when its spot instance is reclaimed, or -1
  std::vector<std::vector<model::Taint>> m_startup_taints; // per node, removed when ready
  PlacerState m_placer_state;
  // The unavailable-offerings cache: a handful of live entries, dropped when they expire.
  struct Unavailable
  {
    std::string instance_type;
    std::string zone;
    std::string capacity_type;
    SimTime until = 0;
  };
  std::vector<Unavailable> m_unavailable;
  std::uint64_t m_unavailable_changes = 0; // bumped on every mark and expiry
  // Instances per capacity reservation (alive nodes labelled with it); whether any type of the
  // catalog or of the controller's pools has a reserved offering in a reservation.
  std::map<std::string, std::int32_t, std::less<>> m_reservation_used;
  bool m_has_reservations = false;
  // InsufficientCapacity windows from scenario events.
  struct IceWindow
  {
    model::EventSelector selector;
    SimTime from = 0;
    SimTime to = 0;
  };
  std::vector<IceWindow> m_ice;

  // Running sums for time integrals.
  struct Sums
  {
    std::int64_t nodes = 0;
    std::int64_t cpu_alloc = 0;
    std::int64_t cpu_req = 0;
    std::int64_t mem_alloc = 0;
    std::int64_t mem_req = 0;
    double price_rate = 0;
  } m_sums;
  void account_node(const cluster::NodeState& node, int sign);
  void count_reservation(const cluster::NodeState& node, int sign);
  void find_reservations(); // m_has_reservations, from the catalog and the controller's pools

  // Integrals (value x milliseconds).
  long double m_node_ms = 0;
  long double m_cpu_alloc_ms = 0;
  long double m_cpu_req_ms = 0;
  long double m_mem_alloc_ms = 0;
  long double m_mem_req_ms = 0;

  // Lower bound (SPEC §7): demand of running pods per pod template (slot), minimum within each
  // step, summed into the template's class for the LP.
  void bound_advance(SimTime t);
  std::unique_ptr<report::LowerBoundSolver> m_bound_solver;
  std::vector<std::uint32_t> m_slot_class; // per slot: its class in the LP
  std::vector<model::Resources> m_bound_demand; // per slot: now
  std::vector<model::Resources> m_bound_min;    // per slot touched in this step: its minimum
  std::vector<std::uint32_t> m_bound_touched;   // slots whose demand changed in this step
  std::vector<char> m_slot_touched;             // per slot: listed in m_bound_touched
  std::vector<model::Resources> m_class_demand; // per class: the sum of its slots' demand now
  std::vector<model::Resources> m_class_min;    // per class: the sum of its slots' minimums
  SimTime m_bound_step_start = 0;
  double m_bound_usd = 0;
  bool m_bound_covered = true;

  report::EngineResult m_result;
  std::vector<Duration> m_pending_durations;
  std::vector<BilledInterval> m_billed; // for spec.pricing's effective cost
  double m_cost_od = 0;
  double m_cost_spot = 0;
  double m_cost_billed = 0; // of terminated nodes, for the timeline
  std::map<std::string, double> m_cost_by_pool;
};

} // namespace capsim::sim
