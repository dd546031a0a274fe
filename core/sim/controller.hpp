#pragma once

#include "core/base/units.hpp"
#include "core/catalog/instance_type.hpp"
#include "core/cluster/cluster.hpp"
#include "core/report/result.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::sim {

// One CreateFleet override: an instance type and one of its offerings.
struct FleetOverride
{
  const catalog::InstanceType* instance_type = nullptr;
  const catalog::Offering* offering = nullptr;
};

// What an autoscaler asks the simulated cloud to launch.
struct LaunchRequest
{
  const catalog::InstanceType* instance_type = nullptr;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
  std::string reservation_id; // reserved: the capacity reservation launched into
  model::Labels labels; // node labels beyond the instance type's own (pool labels, ...)
  std::vector<model::Taint> taints;
  std::vector<model::Taint> startup_taints; // removed at initialization
  cluster::NodeOwner owner = cluster::NodeOwner::node_pool;
  std::uint32_t pool = cluster::k_none;
  Duration launch_latency = 0;       // request to Node registered
  Duration registration_latency = 0; // registered to initialized (Ready)
  SimTime expire_at = -1;
  std::uint64_t template_hash = 0;
  std::uint64_t node_class_hash = 0; // NodeState::node_class_hash
  std::uint64_t ami_hash = 0;
  std::optional<Duration> termination_grace_period; // the NodeClaim's (nullopt: wait forever)
  bool do_not_disrupt = false; // the node carries karpenter.sh/do-not-disrupt: "true"
  std::vector<cluster::PodIndex> nominated_pods; // pods planned onto this node
  // The fleet's further overrides of the same capacity type, in the order it tries them when
  // the first has no capacity (each such one is reported, and cached as unavailable).
  std::span<const FleetOverride> fallbacks;
};

enum class DeleteReason : std::uint8_t {
  emptiness,
  consolidation_delete,
  consolidation_replace,
  drift,
  expiration,
  spot_interruption,
  scale_down, // Cluster Autoscaler
  launch_failed,
  overprovisioned,  // a static NodePool's surplus (not a disruption)
  nodepool_deleted, // its NodePool was deleted (not a disruption)
};

// The seam between an autoscaler policy and the simulated cloud/cluster. The engine owns the
// clock, the event queue and the cluster; policies change the world only through this.
class Actuator
{
public:
  virtual ~Actuator() = default;

  // Launch a node. Returns k_none when the launch fails (an InsufficientCapacity event covers
  // the offering); the offering is then unavailable for the ICE TTL.
  virtual cluster::NodeIndex launch(const LaunchRequest& request) = 0;

  // Cordon and drain a node, then terminate it. Pods are evicted (ReplicaSet/Job pods come
  // back pending; bare pods are lost). `grace` bounds how long PDBs may hold the drain.
  virtual void delete_node(cluster::NodeIndex node, DeleteReason reason) = 0;

  // Whether (type, zone, capacity type) can be launched now (not ICE'd, not recently interrupted).
  [[nodiscard]] virtual bool offering_available(std::string_view instance_type, std::string_view zone,
                                                std::string_view capacity_type) const = 0;

  // Instances running (or launching) in a capacity reservation: a reserved offering has
  // `reservation_capacity` minus this available, as DescribeCapacityReservations' available
  // count goes down on each launch into the reservation and up when the instance terminates.
  [[nodiscard]] virtual std::int32_t reservation_used(std::string_view /*reservation_id*/) const { return 0; }

  // offering_available, and for a reserved offering an instance left in its reservation.
  [[nodiscard]] bool offering_launchable(const catalog::InstanceType& type, const catalog::Offering& o) const
  {
    return offering_available(type.name, o.zone, o.capacity_type)
           && (o.reservation_id.empty() || reservation_used(o.reservation_id) < o.reservation_capacity);
  }

  // Changes whenever the answers of offering_launchable may have changed (an offering marked
  // unavailable, a mark expired, a reservation filled up or had room again); 0 = unknown,
  // callers must re-ask. Lets Karpenter's solve skip re-checking every offering of every pool
  // on each simulation.
  [[nodiscard]] virtual std::uint64_t availability_version() const { return 0; }

  // True when offering_available answers true for every offering now (nothing is marked): a
  // launch may then skip asking for each of the thousands of offerings it looks at.
  [[nodiscard]] virtual bool all_offerings_available() const { return false; }

  // Record a decision for --explain and the HTML report.
  virtual void record(report::Decision decision) = 0;

  // Whether record() keeps decisions; when not, policies may skip working out their reasons.
  [[nodiscard]] virtual bool records_decisions() const { return true; }

  // Set or clear the karpenter.sh/disrupted:NoSchedule taint (NodeState::disrupted_taint): a
  // node in a disruption command takes no new pods. The default ignores it (test fakes).
  virtual void set_disrupted(cluster::NodeIndex /*node*/, bool /*disrupted*/) {}

  // Add or remove Cluster Autoscaler's soft taint DeletionCandidateOfClusterAutoscaler:
  // PreferNoSchedule (in NodeState::taints: kube-scheduler's TaintToleration score then sends
  // new pods elsewhere). The default ignores it (test fakes).
  virtual void set_deletion_candidate(cluster::NodeIndex /*node*/, bool /*candidate*/) {}
};

// An autoscaler policy under simulation (Karpenter or Cluster Autoscaler).
class Controller
{
public:
  virtual ~Controller() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;

  // Do whatever is due at `now`. Returns the next time the controller wants to run; the engine
  // also wakes it whenever pods become pending or nodes become ready.
  virtual std::optional<SimTime> reconcile(SimTime now, const cluster::Cluster& cluster, Actuator& actuator) = 0;

  // How long before a spot instance is reclaimed the controller starts draining it: Karpenter
  // acts on the 2-minute interruption notice; Cluster Autoscaler alone does nothing (0: pods die
  // with the instance) unless a rebalance-recommendation handler is configured.
  [[nodiscard]] virtual Duration interruption_lead_time() const { return 2 * k_minute; }

  // Whether the controller drains `node` on its spot interruption notice (Karpenter only acts
  // for the NodeClaims it manages).
  [[nodiscard]] virtual bool handles_interruption(const cluster::NodeState& /*node*/) const
  {
    return interruption_lead_time() > 0;
  }

  // The instance type a node of the controller's pool is, as its pool builds it (Karpenter: for
  // the NodePool's EC2NodeClass); nullptr to keep the catalog's.
  [[nodiscard]] virtual const catalog::InstanceType* instance_type_for(const cluster::NodeState& /*node*/) const
  {
    return nullptr;
  }

  // The instance types the controller may launch for a version of a NodePool (Karpenter: those
  // its EC2NodeClass builds); nullptr for the catalog's types.
  [[nodiscard]] virtual const std::vector<const catalog::InstanceType*>* pool_instance_types(
      const model::NodePool& /*pool*/) const
  {
    return nullptr;
  }

  // Called when the engine has finished, to let the controller add engine-specific warnings.
  virtual void finish(report::EngineResult& /*result*/) {}
};

} // namespace capsim::sim
