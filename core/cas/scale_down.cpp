#include "core/cas/scale_down.hpp"

#include "core/model/pdb.hpp"

#include <algorithm>
#include <limits>

namespace capsim::cas {

namespace {

constexpr std::int64_t k_unlimited = model::k_unlimited_disruptions;

} // namespace

Utilization node_utilization(const std::array<std::int64_t, 3>& requested, const std::array<std::int64_t, 3>& allocatable)
{
  Utilization u;
  if (allocatable[2] > 0) {
    u.gpu_node = true;
    u.gpu = static_cast<double>(requested[2]) / static_cast<double>(allocatable[2]);
    u.value = u.gpu;
    return u;
  }
  if (allocatable[0] <= 0 || allocatable[1] <= 0) {
    u.valid = false;
    return u;
  }
  u.cpu = static_cast<double>(requested[0]) / static_cast<double>(allocatable[0]);
  u.memory = static_cast<double>(requested[1]) / static_cast<double>(allocatable[1]);
  u.value = std::max(u.cpu, u.memory);
  return u;
}

Utilization node_utilization(const model::Resources& requested, const model::Resources& allocatable)
{
  return node_utilization(std::array{requested.cpu(), requested.memory(), requested[model::k_nvidia_gpu]},
                          std::array{allocatable.cpu(), allocatable.memory(), allocatable[model::k_nvidia_gpu]});
}

std::string_view to_string(BlockReason reason)
{
  switch (reason) {
  case BlockReason::none: return "movable";
  case BlockReason::not_replicated: return "pod has no controller";
  case BlockReason::kube_system: return "non-DaemonSet kube-system pod without a PDB";
  case BlockReason::not_safe_to_evict: return "pod annotated safe-to-evict=false";
  case BlockReason::local_storage: return "pod with local storage";
  case BlockReason::pdb: return "PodDisruptionBudget allows no disruption";
  }
  return "?";
}


PdbTracker::PdbTracker(const std::vector<model::PodDisruptionBudget>& pdbs, const cluster::Cluster& cluster)
{
  for (const auto& pdb : pdbs) {
    m_pdbs.push_back(&pdb);
  }
  if (m_pdbs.empty()) {
    return; // nothing to count (the pod list holds every pod of the run: a million in a week)
  }
  std::vector<std::int64_t> expected(m_pdbs.size(), 0);
  std::vector<std::int64_t> healthy(m_pdbs.size(), 0);
  for (const auto& p : cluster.pods()) {
    if (p.phase != cluster::PodPhase::pending && p.phase != cluster::PodPhase::bound) {
      continue;
    }
    for (const auto i : matching(p.pod())) {
      ++expected[i];
      if (p.phase == cluster::PodPhase::bound && p.started_at >= 0 && !p.pod().unready) {
        ++healthy[i];
      }
    }
  }
  for (std::size_t i = 0; i < m_pdbs.size(); ++i) {
    m_allowed.push_back(model::pdb_disruptions_allowed(*m_pdbs[i], expected[i], healthy[i]));
  }
}

std::vector<std::size_t> PdbTracker::matching(const model::Pod& pod) const
{
  std::vector<std::size_t> out;
  if (!pod.spec) {
    return out;
  }
  for (std::size_t i = 0; i < m_pdbs.size(); ++i) {
    if (m_pdbs[i]->namespace_ == pod.spec->namespace_ && m_pdbs[i]->selector.matches(pod.spec->labels)) {
      out.push_back(i);
    }
  }
  return out;
}

bool PdbTracker::blocks(const model::Pod& pod) const
{
  const auto m = matching(pod);
  return std::any_of(m.begin(), m.end(), [&](std::size_t i) { return m_allowed[i] < 1; });
}

void PdbTracker::remove_pods(const std::vector<const model::Pod*>& pods)
{
  for (const auto* p : pods) {
    for (const auto i : matching(*p)) {
      if (m_allowed[i] != k_unlimited) {
        --m_allowed[i];
      }
    }
  }
}

BlockReason drainability(const model::Pod& pod, SimTime created, SimTime now, const DrainOptions& options,
                         const PdbTracker& pdbs)
{
  if (pod.is_daemon || !pod.spec) {
    return BlockReason::none;
  }
  const auto& spec = *pod.spec;
  if (spec.owner == model::OwnerKind::daemon_set) {
    return BlockReason::none;
  }
  if (spec.safe_to_evict_true) {
    return BlockReason::none;
  }
  if (spec.owner == model::OwnerKind::none) {
    return BlockReason::not_replicated;
  }
  if (options.skip_nodes_with_system_pods && spec.namespace_ == "kube-system" && pdbs.matching(pod).empty()) {
    // Past blocking-system-pod-disruption-timeout the system rule calls the pod drainable,
    // which ends the rules: safe-to-evict=false, local storage and PDBs are not looked at.
    return now > created + options.system_pod_disruption_timeout ? BlockReason::none : BlockReason::kube_system;
  }
  if (spec.safe_to_evict_false) {
    return BlockReason::not_safe_to_evict;
  }
  if (options.skip_nodes_with_local_storage && spec.has_local_storage) {
    return BlockReason::local_storage;
  }
  if (pdbs.blocks(pod)) {
    return BlockReason::pdb;
  }
  return BlockReason::none;
}

DeletionBudget crop_deletions(std::size_t empty_candidates, std::size_t drain_candidates, std::size_t empty_in_flight,
                              std::size_t drain_in_flight, std::int32_t max_parallelism,
                              std::int32_t max_drain_parallelism)
{
  auto parallelism = static_cast<std::int64_t>(max_parallelism) - static_cast<std::int64_t>(empty_in_flight)
                     - static_cast<std::int64_t>(drain_in_flight);
  auto drain_budget = static_cast<std::int64_t>(max_drain_parallelism) - static_cast<std::int64_t>(drain_in_flight);
  DeletionBudget b;
  b.empty = static_cast<std::size_t>(std::clamp<std::int64_t>(parallelism, 0, static_cast<std::int64_t>(empty_candidates)));
  parallelism -= static_cast<std::int64_t>(b.empty);
  drain_budget = std::min(parallelism, drain_budget);
  b.drain = static_cast<std::size_t>(std::clamp<std::int64_t>(drain_budget, 0, static_cast<std::int64_t>(drain_candidates)));
  return b;
}

} // namespace capsim::cas
