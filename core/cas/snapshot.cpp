#include "core/cas/snapshot.hpp"

#include "core/base/diagnostics.hpp"
#include "core/scheduling/filters.hpp"

#include <algorithm>
#include <functional>
#include <limits>

namespace capsim::cas {

namespace {

bool has_anti_affinity(const model::Pod& pod)
{
  return pod.spec && !pod.spec->pod_anti_affinity_required.empty();
}

// The domain node `n` counts in for `s`, or nullptr when it does not count (no topology key, or
// filtered out by the constraint's node affinity or taint policy). Removal is the caller's.
const std::string* spread_domain(const Snapshot::SpreadCounts& s, const SnapNode& n)
{
  const std::string* value = scheduling::node_label(*n.state, s.constraint->topology_key);
  if (value == nullptr) {
    return nullptr;
  }
  if (s.constraint->node_affinity_policy_honor && !scheduling::node_affinity_matches(*s.spec, *n.state)) {
    return nullptr;
  }
  if (s.constraint->node_taints_policy_honor && scheduling::untolerated_taint(s.spec->tolerations, *n.state)) {
    return nullptr;
  }
  return value;
}

bool spread_matches(const Snapshot::SpreadCounts& s, const model::Pod& pod)
{
  static const std::string k_default = "default";
  static const model::Labels k_empty;
  const std::string& ns = pod.spec ? pod.spec->namespace_ : k_default;
  return s.selector && ns == s.spec->namespace_ && s.selector->matches(pod.spec ? pod.spec->labels : k_empty);
}

std::int64_t matching_pods(const Snapshot::SpreadCounts& s, const SnapNode& n)
{
  std::int64_t count = 0;
  for (const auto* p : n.pods) {
    count += spread_matches(s, *p) ? 1 : 0;
  }
  return count;
}

// The counts of `s` from scratch over the snapshot's nodes.
void count_spread(Snapshot::SpreadCounts& s, const std::vector<SnapNode>& nodes)
{
  s.counts.clear();
  s.nodes.clear();
  for (const auto& n : nodes) {
    if (n.removed) {
      continue;
    }
    if (const std::string* d = spread_domain(s, n)) {
      ++s.nodes[*d];
      s.counts[*d] += matching_pods(s, n);
    }
  }
}

} // namespace

model::Resources pod_footprint(const model::Pod& pod)
{
  model::Resources r = pod.requests;
  r[model::k_pods] += 1;
  return r;
}

void SnapPods::refer(const cluster::Cluster& cluster, const std::vector<cluster::PodIndex>& pods, List buffer)
{
  m_list = std::move(buffer);
  m_list.clear();
  m_cluster = &cluster;
  m_source = &pods;
}

SnapPods::List SnapPods::release()
{
  m_source = nullptr;
  m_cluster = nullptr;
  List out = std::move(m_list);
  m_list.clear();
  return out;
}

void SnapPods::convert() const
{
  m_list.clear();
  m_list.reserve(m_source->size());
  for (const cluster::PodIndex p : *m_source) {
    m_list.push_back(&m_cluster->pod(p).pod());
  }
  m_source = nullptr;
  m_cluster = nullptr;
}

const Snapshot::SpreadCounts& Snapshot::spread_counts(const model::PodSpec& spec, const model::TopologySpreadConstraint& c,
                                                      const std::optional<model::LabelSelector>& selector) const
{
  for (auto& s : m_spread) {
    if (s.spec == &spec && s.constraint == &c) {
#ifndef NDEBUG
      SpreadCounts fresh{s.spec, s.constraint, s.selector, {}, {}};
      count_spread(fresh, m_nodes);
      CAPSIM_CHECK(fresh.counts == s.counts && fresh.nodes == s.nodes, "snapshot: kept spread counts differ from a fresh count");
#endif
      return s;
    }
  }
  SpreadCounts s{&spec, &c, selector, {}, {}};
  count_spread(s, m_nodes);
  m_spread.push_back(std::move(s));
  return m_spread.back();
}

void Snapshot::spread_node(std::size_t i, int sign)
{
  for (auto& s : m_spread) {
    const std::string* d = spread_domain(s, m_nodes[i]);
    if (d == nullptr) {
      continue;
    }
    auto nodes = s.nodes.try_emplace(*d, 0).first;
    auto counts = s.counts.try_emplace(*d, 0).first;
    nodes->second += sign;
    counts->second += sign * matching_pods(s, m_nodes[i]);
    if (nodes->second == 0) {
      s.nodes.erase(nodes);
      s.counts.erase(counts);
    }
  }
}

void Snapshot::spread_pod(std::size_t i, const model::Pod& pod, int sign)
{
  if (m_nodes[i].removed) {
    return;
  }
  for (auto& s : m_spread) {
    if (!spread_matches(s, pod)) {
      continue;
    }
    if (const std::string* d = spread_domain(s, m_nodes[i])) {
      s.counts[*d] += sign;
    }
  }
}

void Snapshot::clear()
{
  m_spread.clear();
  for (auto& n : m_nodes) {
    m_spare_pod_lists.push_back(n.pods.release());
  }
  m_nodes.clear();
  m_owned_used = 0;
  m_by_name.clear();
  m_by_name_valid = false;
  m_log.clear();
  m_anti_affinity_pods = 0;
  m_ignore_node_name = false;
}

void Snapshot::use_cluster(std::uint64_t instance_id)
{
  if (instance_id != m_cluster) {
    m_cluster = instance_id;
    m_name_hashes.clear();
  }
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
  m_nodes.push_back(std::move(node));
  if (m_by_name_valid) {
    name_added(i);
  }
  if (!m_spread.empty() && !m_nodes[i].removed) {
    spread_node(i, +1);
  }
  m_log.push_back({OpKind::add_node, i, nullptr, 0, false, false});
  return i;
}

void Snapshot::refresh_node(std::size_t i, SnapNode node, bool may_have_anti_affinity)
{
  CAPSIM_CHECK(i < m_nodes.size() && node.state != nullptr && m_nodes[i].state->name == node.state->name,
               "snapshot: a refreshed node is not the same node");
  auto& old = m_nodes[i];
  if (may_have_anti_affinity) {
    for (const auto* p : old.pods) {
      m_anti_affinity_pods -= has_anti_affinity(*p) ? 1 : 0;
    }
    for (const auto* p : node.pods) {
      m_anti_affinity_pods += has_anti_affinity(*p) ? 1 : 0;
    }
  }
  m_spare_pod_lists.push_back(old.pods.release());
  old = std::move(node);
  m_spread.clear(); // made again on next use
}

void Snapshot::insert_node(std::size_t i, SnapNode node, bool may_have_anti_affinity)
{
  CAPSIM_CHECK(i <= m_nodes.size() && node.state != nullptr && m_owned_used == 0 && m_log.size() == m_nodes.size(),
               "snapshot: a node put in among others while changes are logged");
  if (may_have_anti_affinity) {
    for (const auto* p : node.pods) {
      m_anti_affinity_pods += has_anti_affinity(*p) ? 1 : 0;
    }
  }
  m_nodes.insert(m_nodes.begin() + static_cast<std::ptrdiff_t>(i), std::move(node));
  m_log.push_back({OpKind::add_node, m_nodes.size() - 1, nullptr, 0, false, false}); // (reverted from the back)
  m_spread.clear(); // made again on next use
  if (m_by_name_valid) {
    names_shifted(i, +1);
    name_added(i);
    if (!m_names_unique) {
      m_by_name_valid = false; // a shared name goes to the last node of that name: built again
    }
  }
}

void Snapshot::erase_node(std::size_t i, bool may_have_anti_affinity)
{
  CAPSIM_CHECK(i < m_nodes.size() && m_owned_used == 0 && m_log.size() == m_nodes.size(),
               "snapshot: a node taken out from among others while changes are logged");
  if (m_by_name_valid) {
    if (m_names_unique) {
      name_removed(i);
      names_shifted(i + 1, -1);
    } else {
      m_by_name_valid = false;
    }
  }
  auto& n = m_nodes[i];
  if (may_have_anti_affinity) {
    for (const auto* p : n.pods) {
      m_anti_affinity_pods -= has_anti_affinity(*p) ? 1 : 0;
    }
  }
  m_spare_pod_lists.push_back(n.pods.release());
  m_nodes.erase(m_nodes.begin() + static_cast<std::ptrdiff_t>(i));
  m_log.pop_back();
  m_spread.clear();
}

std::size_t Snapshot::add_copy(const cluster::NodeState& state, const std::string& name,
                               const model::Resources& requested, std::int32_t group, std::uint64_t source)
{
  if (m_owned_used == m_owned.size()) {
    m_owned.emplace_back();
    m_owned_source.push_back(0);
  }
  const std::size_t slot = m_owned_used++;
  cluster::NodeState& copy = m_owned[slot];
  if (source == 0 || m_owned_source[slot] != source) {
    copy = state; // assigned: the slot's strings, maps and lists are reused
    copy.pods.clear();
    m_owned_source[slot] = source;
  }
  copy.name = name;
  copy.labels[std::string(model::labels::k_hostname)] = name;
#ifndef NDEBUG
  {
    cluster::NodeState fresh = state;
    fresh.name = name;
    fresh.labels[std::string(model::labels::k_hostname)] = name;
    CAPSIM_CHECK(copy.labels == fresh.labels && copy.taints == fresh.taints && copy.allocatable == fresh.allocatable
                     && copy.requested == fresh.requested && copy.daemon_requested == fresh.daemon_requested
                     && copy.instance_type == fresh.instance_type
                     && copy.zone == fresh.zone && copy.capacity_type == fresh.capacity_type
                     && copy.lifecycle == fresh.lifecycle && copy.owner == fresh.owner && copy.pool == fresh.pool
                     && copy.disrupted_taint == fresh.disrupted_taint && copy.pods.empty(),
                 "cluster-autoscaler: a kept template copy differs from a fresh one");
  }
#endif
  SnapNode n;
  n.state = &copy;
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
  m_nodes[node].pods.edit().push_back(&pod);
  apply_pod(node, pod, +1);
  spread_pod(node, pod, +1);
  m_log.push_back({OpKind::add_pod, node, &pod, 0, false, false});
}

void Snapshot::remove_pod(std::size_t node, const model::Pod& pod)
{
  auto& pods = m_nodes[node].pods.edit();
  auto it = std::find(pods.rbegin(), pods.rend(), &pod);
  CAPSIM_CHECK(it != pods.rend(), "remove_pod: pod not on node");
  const auto position = static_cast<std::size_t>(std::distance(pods.begin(), it.base()) - 1);
  pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(position));
  apply_pod(node, pod, -1);
  spread_pod(node, pod, -1);
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
  set_removed_flag(node, removed);
}

void Snapshot::set_removed_flag(std::size_t node, bool removed)
{
  if (m_nodes[node].removed == removed) {
    return;
  }
  if (removed) {
    spread_node(node, -1);
  }
  m_nodes[node].removed = removed;
  if (!removed) {
    spread_node(node, +1);
  }
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
        name_removed(m_nodes.size() - 1);
      }
      if (!m_spread.empty() && !n.removed) {
        spread_node(m_nodes.size() - 1, -1);
      }
      m_nodes.pop_back();
      if (op.owned) {
        --m_owned_used;
      }
      break;
    }
    case OpKind::add_pod: {
      auto& pods = m_nodes[op.node].pods.edit();
      auto it = std::find(pods.rbegin(), pods.rend(), op.pod);
      CAPSIM_CHECK(it != pods.rend(), "revert add_pod: pod not on node");
      pods.erase(std::next(it).base());
      apply_pod(op.node, *op.pod, -1);
      spread_pod(op.node, *op.pod, -1);
      break;
    }
    case OpKind::remove_pod: {
      auto& pods = m_nodes[op.node].pods.edit();
      pods.insert(pods.begin() + static_cast<std::ptrdiff_t>(op.position), op.pod);
      apply_pod(op.node, *op.pod, +1);
      spread_pod(op.node, *op.pod, +1);
      break;
    }
    case OpKind::set_blocked: m_nodes[op.node].blocked = op.flag; break;
    case OpKind::set_removed: set_removed_flag(op.node, op.flag); break;
    }
  }
}

void Snapshot::build_names() const
{
  std::size_t size = 16;
  while (size < 2 * m_nodes.size() + 2) {
    size *= 2;
  }
  m_by_name.assign(size, NameSlot{});
  m_names_used = 0;
  m_by_name_valid = true;
  m_names_unique = true;
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    name_added(i);
  }
}

template <typename Same>
Snapshot::NameSlot& Snapshot::name_slot(std::size_t hash, const Same& same) const
{
  const std::size_t mask = m_by_name.size() - 1;
  for (std::size_t k = hash & mask;; k = (k + 1) & mask) {
    auto& slot = m_by_name[k];
    if (slot.node == 0 || (slot.node != k_erased && slot.hash == hash && same(m_nodes[slot.node - 1].state->name))) {
      return slot;
    }
  }
}

void Snapshot::name_added(std::size_t node) const
{
  if (2 * (m_names_used + 1) > m_by_name.size()) {
    build_names(); // grown, erased slots dropped; the node is in m_nodes already
    return;
  }
  const std::size_t hash = name_hash(node);
  const auto same = [&](const std::string& other) { return other == m_nodes[node].state->name; };
  auto& slot = name_slot(hash, same);
  if (slot.node == 0) {
    ++m_names_used;
  } else {
    m_names_unique = false; // the name is another node's too
  }
  slot = {hash, static_cast<std::uint32_t>(node + 1)};
}

void Snapshot::names_shifted(std::size_t from, int by) const
{
  for (auto& slot : m_by_name) {
    if (slot.node != 0 && slot.node != k_erased && slot.node - 1 >= from) {
      slot.node = static_cast<std::uint32_t>(static_cast<std::int64_t>(slot.node) + by);
    }
  }
}

void Snapshot::name_removed(std::size_t node) const
{
  const auto same = [&](const std::string& other) { return other == m_nodes[node].state->name; };
  auto& slot = name_slot(name_hash(node), same);
  if (slot.node != 0) {
    slot.node = k_erased; // still counted in m_names_used: probes pass over it
  }
}

std::size_t Snapshot::name_hash(std::size_t node) const
{
  const SnapNode& n = m_nodes[node];
  if (m_cluster == 0 || !n.real || n.cluster_node == cluster::k_none) {
    return std::hash<std::string_view>{}(n.state->name);
  }
  if (m_name_hashes.size() <= n.cluster_node) {
    m_name_hashes.resize(static_cast<std::size_t>(n.cluster_node) + 1);
  }
  KnownHash& h = m_name_hashes[n.cluster_node];
  if (!h.known) {
    h = {std::hash<std::string_view>{}(n.state->name), true};
  }
#ifndef NDEBUG
  CAPSIM_CHECK(h.hash == std::hash<std::string_view>{}(n.state->name), "snapshot: a kept name hash differs");
#endif
  return h.hash;
}

bool Snapshot::names_consistent() const
{
  if (!m_by_name_valid || !m_names_unique) {
    return true;
  }
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    const std::string& name = m_nodes[i].state->name;
    const auto same = [&](const std::string& other) { return other == name; };
    if (name_slot(std::hash<std::string_view>{}(name), same).node != i + 1) {
      return false;
    }
  }
  const auto live = std::count_if(m_by_name.begin(), m_by_name.end(),
                                  [](const NameSlot& s) { return s.node != 0 && s.node != k_erased; });
  return static_cast<std::size_t>(live) == m_nodes.size();
}

std::size_t Snapshot::find(const std::string& name, std::size_t hash) const
{
#ifndef NDEBUG
  CAPSIM_CHECK(hash == std::hash<std::string_view>{}(name), "snapshot: a name looked up with another's hash");
#endif
  if (!m_by_name_valid) {
    build_names();
  }
  const auto& slot = name_slot(hash, [&](const std::string& other) { return other == name; });
  return slot.node == 0 ? std::numeric_limits<std::size_t>::max() : slot.node - 1;
}

} // namespace capsim::cas
