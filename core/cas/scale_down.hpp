#pragma once

#include "core/base/units.hpp"
#include "core/cas/snapshot.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/kube.hpp"
#include "core/model/pdb.hpp"
#include "core/model/pod.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace capsim::cas {

// Node utilization as CA computes it (utilization.Calculate): requests over allocatable
// with DaemonSet pods counted; on GPU nodes the GPU utilization alone decides.
struct Utilization
{
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
  bool gpu_node = false;
  double value = 0; // max(cpu, memory), or gpu on GPU nodes
  bool valid = true; // false when allocatable cpu or memory is 0
};

[[nodiscard]] Utilization node_utilization(const model::Resources& requested, const model::Resources& allocatable);
// The same from the cpu, memory and nvidia.com/gpu entries, the only ones it reads.
[[nodiscard]] Utilization node_utilization(const std::array<std::int64_t, 3>& requested,
                                           const std::array<std::int64_t, 3>& allocatable);

// Why a pod blocks its node's removal (drainability rules, first verdict wins).
enum class BlockReason : std::uint8_t {
  none,              // movable (or a DaemonSet pod: not moved)
  not_replicated,    // no controller (bare pod)
  kube_system,       // kube-system pod without a PDB, younger than the disruption timeout
  not_safe_to_evict, // cluster-autoscaler.kubernetes.io/safe-to-evict: "false"
  local_storage,     // emptyDir / hostPath volumes (skip-nodes-with-local-storage)
  pdb,               // a matching PDB allows no disruption
};

[[nodiscard]] std::string_view to_string(BlockReason reason);

// The PodDisruptionBudgets' remaining disruptions (RemainingPdbTracker): DisruptionsAllowed
// computed from the cluster (healthy = running matching pods, expected = matching pods not
// finished), then decremented as the removal simulation moves pods.
class PdbTracker
{
public:
  PdbTracker() = default;
  PdbTracker(const std::vector<model::PodDisruptionBudget>& pdbs, const cluster::Cluster& cluster);

  // Indices of the PDBs selecting `pod`.
  [[nodiscard]] std::vector<std::size_t> matching(const model::Pod& pod) const;
  // Any matching PDB has fewer than one disruption left.
  [[nodiscard]] bool blocks(const model::Pod& pod) const;
  // RemovePods: one disruption used per matching pod.
  void remove_pods(const std::vector<const model::Pod*>& pods);

  [[nodiscard]] std::int64_t allowed(std::size_t pdb) const { return m_allowed[pdb]; }

  [[nodiscard]] std::size_t size() const { return m_pdbs.size(); }

private:
  std::vector<const model::PodDisruptionBudget*> m_pdbs;
  std::vector<std::int64_t> m_allowed; // INT64_MAX for a PDB with neither field
};

// DisruptionsAllowed: model::pdb_disruptions_allowed (core/model/pdb.hpp).

struct DrainOptions
{
  bool skip_nodes_with_local_storage = true;
  bool skip_nodes_with_system_pods = true;
  Duration system_pod_disruption_timeout = k_hour; // --blocking-system-pod-distruption-timeout
};

// The drainability rules for one pod on a node being removed (rules.Default order):
// safe-to-evict=true -> movable; no controller -> blocks; kube-system without PDB (younger
// than the timeout, `created` = when the pod was created) -> blocks; safe-to-evict=false ->
// blocks; local storage (if skipped) -> blocks; PDB with no disruption left -> blocks.
[[nodiscard]] BlockReason drainability(const model::Pod& pod, SimTime created, SimTime now, const DrainOptions& options,
                                       const PdbTracker& pdbs);

// Scale-down deletion budget (budgets.CropNodes): how many empty and drain candidates may be
// deleted now, given the deletions in flight.
struct DeletionBudget
{
  std::size_t empty = 0;
  std::size_t drain = 0;
};

[[nodiscard]] DeletionBudget crop_deletions(std::size_t empty_candidates, std::size_t drain_candidates,
                                            std::size_t empty_in_flight, std::size_t drain_in_flight,
                                            std::int32_t max_parallelism, std::int32_t max_drain_parallelism);

} // namespace capsim::cas
