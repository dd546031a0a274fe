#include "core/cluster/cluster.hpp"

#include "core/base/diagnostics.hpp"

#include <algorithm>
#include <atomic>

namespace capsim::cluster {

bool do_not_disrupt_active(const PodState& state, SimTime now)
{
  const auto& pod = state.pod();
  if (!pod.spec || pod.terminating) {
    return false; // (a terminating pod is not evicted: IsDisruptable asks active pods only)
  }
  const Duration d = pod.spec->do_not_disrupt;
  if (d <= 0) {
    return false;
  }
  if (d == k_never || state.started_at < 0) {
    return true; // "true", or a duration for a pod whose start time is unknown (fail safe)
  }
  return now - state.started_at + pod.started_before < d;
}

std::uint64_t Cluster::InstanceId::next()
{
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

PodIndex PodTable::add(model::Pod pod)
{
  if (m_blocks.empty() || m_blocks.back().size() == m_blocks.back().capacity()) {
    // A quarter of the table at a time: few blocks for a large one, 16 KB for a test's first.
    m_blocks.emplace_back().reserve(std::max<std::size_t>(64, m_states.size() / 4));
  }
  auto& block = m_blocks.back();
  block.push_back(std::move(pod)); // within the block's capacity: its pods stay where they are
  m_states.emplace_back().m_pod = &block.back();
  return static_cast<PodIndex>(m_states.size() - 1);
}

void PodTable::adopt(std::vector<model::Pod> pods)
{
  m_states.reserve(m_states.size() + pods.size());
  for (auto& p : pods) {
    m_states.emplace_back().m_pod = &p;
  }
  m_blocks.push_back(std::move(pods)); // a moved vector keeps its buffer
}

void PodTable::reserve(std::size_t n)
{
  m_states.reserve(n); // (the blocks grow with the table: see add)
}

void PodTable::relink()
{
  std::size_t i = 0;
  for (auto& block : m_blocks) {
    for (auto& p : block) {
      m_states[i++].m_pod = &p;
    }
  }
}

PodIndex Cluster::add_pod(model::Pod pod)
{
  m_pending_pos.push_back(k_none);
  return m_pods.add(std::move(pod));
}

void Cluster::adopt_pods(std::vector<model::Pod> pods)
{
  m_pending_pos.resize(m_pending_pos.size() + pods.size(), k_none);
  m_pods.adopt(std::move(pods));
}

NodeIndex Cluster::add_node(NodeState node)
{
  node.pods_revision = ++m_pods_revisions;
  if (node.alive()) {
    ++m_alive_nodes;
    m_alive.push_back(static_cast<NodeIndex>(m_nodes.size()));
  }
  m_nodes.push_back(std::move(node));
  m_node_stamps.push_back(0);
  const auto index = static_cast<NodeIndex>(m_nodes.size() - 1);
  stamp(index);
  return index;
}

void Cluster::bind(PodIndex pod, NodeIndex node, SimTime now)
{
  auto& p = m_pods[pod];
  auto& given = p.pod(); // the pod as the workload gave it
  CAPSIM_CHECK(p.node == k_none, "bind: pod " + given.name + " is already bound");
  clear_pending(pod);
  auto& n = m_nodes[node];
  if (given.spec && given.spec->volume_binds_on_schedule) {
    given.spec = pinned_to_zone(given.spec, n.zone);
  }
  p.node = node;
  p.phase = PodPhase::bound;
  model::Resources r = given.requests;
  r[model::k_pods] += 1;
  n.requested += r;
  if (given.is_daemon) {
    n.daemon_requested += r;
  } else if (model::listed_on_node(given)) {
    n.pods.push_back(pod);
    n.pods_revision = ++m_pods_revisions;
    if (given.spec && !given.spec->pod_anti_affinity_required.empty()) {
      ++m_bound_anti_affinity;
    }
  }
  n.last_pod_event = now;
  m_binding_log.push_back({pod, node, true});
}

model::PodSpecPtr Cluster::pinned_to_zone(const model::PodSpecPtr& spec, const std::string& zone)
{
  auto& slot = (*m_zone_pins)[{spec.get(), zone}];
  if (!slot.second) {
    // The provisioner creates the volume in the node's zone (EBS CSI: the PV's node affinity).
    auto pinned = std::make_shared<model::PodSpec>(*spec);
    pinned->volume_binds_on_schedule = false;
    pinned->counted_with = spec;
    if (!zone.empty()) {
      const auto in_zone = model::Requirement::make(std::string(model::labels::k_zone), model::Operator::in, {zone});
      if (pinned->volume_affinity.empty()) {
        pinned->volume_affinity.push_back({{in_zone}});
      } else {
        for (auto& term : pinned->volume_affinity) {
          term.requirements.push_back(in_zone);
        }
      }
    }
    slot = {spec, std::move(pinned)};
  }
  return slot.second;
}

void Cluster::unbind(PodIndex pod, SimTime now)
{
  auto& p = m_pods[pod];
  const auto& given = p.pod();
  CAPSIM_CHECK(p.node != k_none, "unbind: pod " + given.name + " is not bound");
  auto& n = m_nodes[p.node];
  model::Resources r = given.requests;
  r[model::k_pods] += 1;
  n.requested -= r;
  if (given.is_daemon) {
    n.daemon_requested -= r;
  } else if (model::listed_on_node(given)) {
    auto it = std::find(n.pods.begin(), n.pods.end(), pod);
    if (it != n.pods.end()) {
      *it = n.pods.back();
      n.pods.pop_back();
      n.pods_revision = ++m_pods_revisions;
      if (given.spec && !given.spec->pod_anti_affinity_required.empty()) {
        --m_bound_anti_affinity;
      }
    }
  }
  n.last_pod_event = now;
  m_binding_log.push_back({pod, p.node, false});
  p.node = k_none;
  p.started_at = -1;
  p.finish_at = -1;
}

void Cluster::set_pending(PodIndex pod, SimTime now)
{
  auto& p = m_pods[pod];
  p.phase = PodPhase::pending;
  p.pending_since = now;
  if (m_pending_pos[pod] == k_none) {
    m_pending_pos[pod] = static_cast<std::uint32_t>(m_pending.size());
    m_pending.push_back(pod);
    ++m_pending_revision;
  }
}

void Cluster::clear_pending(PodIndex pod)
{
  const std::uint32_t pos = m_pending_pos[pod];
  if (pos == k_none) {
    return;
  }
  // Keep arrival order: erase in place (pending lists are short compared to pods).
  m_pending.erase(m_pending.begin() + pos);
  ++m_pending_revision;
  m_pending_pos[pod] = k_none;
  for (std::size_t i = pos; i < m_pending.size(); ++i) {
    m_pending_pos[m_pending[i]] = static_cast<std::uint32_t>(i);
  }
}

void Cluster::mark_terminated(NodeIndex node, SimTime now)
{
  auto& n = m_nodes[node];
  if (n.alive()) {
    --m_alive_nodes;
    m_alive.erase(std::lower_bound(m_alive.begin(), m_alive.end(), node));
  }
  n.lifecycle = NodeLifecycle::terminated;
  n.terminated_at = now;
  // Its labels are not asked for again (every reader walks live nodes; hostname and zone still
  // answer from the name and zone), and its emptied pod list's room goes back to the heap for the
  // nodes after it: a week launches tens of thousands of nodes, and the 1,000,000-pod week kept
  // 70 MB of dead nodes' labels.
  model::Labels().swap(n.labels);
  if (n.pods.empty()) {
    std::vector<PodIndex>().swap(n.pods);
  }
  stamp(node);
}

} // namespace capsim::cluster
