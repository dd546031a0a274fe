#include "core/cas/snapshot.hpp"

#include "core/base/diagnostics.hpp"

#include <algorithm>
#include <functional>
#include <limits>

namespace capsim::cas {

namespace {

bool has_anti_affinity(const model::Pod& pod)
{
  return pod.spec && !pod.spec->pod_anti_affinity_required.empty();
}

} // namespace

model::Resources pod_footprint(const model::Pod& pod)
{
  model::Resources r = pod.requests;
  r[model::k_pods] += 1;
  return r;
}

void Snapshot::clear()
{
  for (auto& n : m_nodes) {
    m_spare_pod_lists.push_back(std::move(n.pods));
  }
  m_nodes.clear();
  m_owned.clear();
  m_by_name.clear();
  m_by_name_valid = false;
  m_log.clear();
  m_anti_affinity_pods = 0;
  m_ignore_node_name = false;
}

std::vector<const model::Pod*> Snapshot::spare_pod_list()
{
  if (m_spare_pod_lists.empty()) {
    return {};
  }
  auto list = std::move(m_spare_pod_lists.back());
  m_spare_pod_lists.pop_back();
  list.clear();
  return list;
}

void Snapshot::reserve(std::size_t nodes)
{
  m_nodes.reserve(nodes);
  m_log.reserve(nodes);
}

std::size_t Snapshot::add_node(SnapNode node, bool may_have_anti_affinity)
{
  CAPSIM_CHECK(node.state != nullptr, "snapshot node without state");
  const std::size_t i = m_nodes.size();
  if (may_have_anti_affinity) {
    for (const auto* p : node.pods) {
      if (has_anti_affinity(*p)) {
        ++m_anti_affinity_pods;
      }
    }
  }
  if (m_by_name_valid) {
    const std::string_view name = node.state->name;
    const std::size_t hash = std::hash<std::string_view>{}(name);
    auto it = name_at(hash, name);
    if (it != m_by_name.end() && it->hash == hash && it->name == name) {
      it->node = i;
    } else {
      m_by_name.insert(it, {hash, name, i});
    }
  }
  m_nodes.push_back(std::move(node));
  m_log.push_back({OpKind::add_node, i, nullptr, 0, false, false});
  return i;
}

std::size_t Snapshot::add_copy(const cluster::NodeState& state, const std::string& name,
                               const model::Resources& requested, std::int32_t group)
{
  cluster::NodeState copy = state;
  copy.name = name;
  copy.labels[std::string(model::labels::k_hostname)] = name;
  copy.pods.clear();
  m_owned.push_back(std::move(copy));
  SnapNode n;
  n.state = &m_owned.back();
  n.requested = requested;
  n.group = group;
  const std::size_t i = add_node(std::move(n));
  m_log.back().owned = true;
  return i;
}

void Snapshot::apply_pod(std::size_t node, const model::Pod& pod, int sign)
{
  auto& n = m_nodes[node];
  if (sign > 0) {
    n.requested += pod_footprint(pod);
  } else {
    n.requested -= pod_footprint(pod);
  }
  if (has_anti_affinity(pod)) {
    m_anti_affinity_pods = sign > 0 ? m_anti_affinity_pods + 1 : m_anti_affinity_pods - 1;
  }
}

void Snapshot::add_pod(std::size_t node, const model::Pod& pod)
{
  m_nodes[node].pods.push_back(&pod);
  apply_pod(node, pod, +1);
  m_log.push_back({OpKind::add_pod, node, &pod, 0, false, false});
}

void Snapshot::remove_pod(std::size_t node, const model::Pod& pod)
{
  auto& pods = m_nodes[node].pods;
  auto it = std::find(pods.rbegin(), pods.rend(), &pod);
  CAPSIM_CHECK(it != pods.rend(), "remove_pod: pod not on node");
  const auto position = static_cast<std::size_t>(std::distance(pods.begin(), it.base()) - 1);
  pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(position));
  apply_pod(node, pod, -1);
  m_log.push_back({OpKind::remove_pod, node, &pod, position, false, false});
}

void Snapshot::set_blocked(std::size_t node, bool blocked)
{
  m_log.push_back({OpKind::set_blocked, node, nullptr, 0, m_nodes[node].blocked, false});
  m_nodes[node].blocked = blocked;
}

void Snapshot::set_removed(std::size_t node, bool removed)
{
  m_log.push_back({OpKind::set_removed, node, nullptr, 0, m_nodes[node].removed, false});
  m_nodes[node].removed = removed;
}

void Snapshot::revert(std::size_t mark)
{
  while (m_log.size() > mark) {
    const Op op = m_log.back();
    m_log.pop_back();
    switch (op.kind) {
    case OpKind::add_node: {
      const auto& n = m_nodes.back();
      for (const auto* p : n.pods) {
        if (has_anti_affinity(*p)) {
          --m_anti_affinity_pods;
        }
      }
      if (m_by_name_valid) {
        const std::string_view name = n.state->name;
        const std::size_t hash = std::hash<std::string_view>{}(name);
        auto it = name_at(hash, name);
        if (it != m_by_name.end() && it->hash == hash && it->name == name) {
          m_by_name.erase(it);
        }
      }
      m_nodes.pop_back();
      if (op.owned) {
        m_owned.pop_back();
      }
      break;
    }
    case OpKind::add_pod: {
      auto& pods = m_nodes[op.node].pods;
      auto it = std::find(pods.rbegin(), pods.rend(), op.pod);
      CAPSIM_CHECK(it != pods.rend(), "revert add_pod: pod not on node");
      pods.erase(std::next(it).base());
      apply_pod(op.node, *op.pod, -1);
      break;
    }
    case OpKind::remove_pod: {
      auto& pods = m_nodes[op.node].pods;
      pods.insert(pods.begin() + static_cast<std::ptrdiff_t>(op.position), op.pod);
      apply_pod(op.node, *op.pod, +1);
      break;
    }
    case OpKind::set_blocked: m_nodes[op.node].blocked = op.flag; break;
    case OpKind::set_removed: m_nodes[op.node].removed = op.flag; break;
    }
  }
}

std::vector<Snapshot::NameEntry>::iterator Snapshot::name_at(std::size_t hash, std::string_view name) const
{
  return std::lower_bound(m_by_name.begin(), m_by_name.end(), std::pair{hash, name},
                          [](const NameEntry& e, const std::pair<std::size_t, std::string_view>& key) {
                            return e.hash != key.first ? e.hash < key.first : e.name < key.second;
                          });
}

std::size_t Snapshot::find(const std::string& name) const
{
  if (!m_by_name_valid) {
    m_by_name.clear();
    m_by_name.reserve(m_nodes.size());
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
      const std::string_view n = m_nodes[i].state->name;
      m_by_name.push_back({std::hash<std::string_view>{}(n), n, i});
    }
    const auto same = [](const NameEntry& a, const NameEntry& b) { return a.hash == b.hash && a.name == b.name; };
    std::stable_sort(m_by_name.begin(), m_by_name.end(), [](const NameEntry& a, const NameEntry& b) {
      return a.hash != b.hash ? a.hash < b.hash : a.name < b.name;
    });
    // One entry per name: the last node added with it.
    auto out = m_by_name.begin();
    for (auto it = m_by_name.begin(); it != m_by_name.end(); ++it) {
      if (std::next(it) == m_by_name.end() || !same(*it, *std::next(it))) {
        *out++ = *it;
      }
    }
    m_by_name.erase(out, m_by_name.end());
    m_by_name_valid = true;
  }
  const std::string_view key = name;
  const std::size_t hash = std::hash<std::string_view>{}(key);
  const auto it = name_at(hash, key);
  return it == m_by_name.end() || it->hash != hash || it->name != key ? std::numeric_limits<std::size_t>::max()
                                                                       : it->node;
}

} // namespace capsim::cas
