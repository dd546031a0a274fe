#include "core/cas/pod_groups.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace capsim::cas {

std::optional<std::string> controller_key(const model::Pod& pod)
{
  if (!pod.spec || pod.is_daemon) {
    return std::nullopt;
  }
  const auto owner = pod.spec->owner;
  if (owner == model::OwnerKind::none || owner == model::OwnerKind::daemon_set) {
    return std::nullopt;
  }
  return pod.spec->namespace_ + "/" + pod.spec->template_name + "/" + std::to_string(static_cast<int>(owner));
}

std::uint32_t ControllerIds::of(const model::Pod& pod)
{
  if (!pod.spec || pod.is_daemon) {
    return k_none;
  }
  if (pod.spec.get() == m_last_spec) {
    return m_last_id; // a workload's pods come in runs
  }
  auto [it, inserted] = m_by_spec.try_emplace(pod.spec.get());
  if (inserted) {
    it->second.spec = pod.spec;
    if (const auto key = controller_key(pod)) {
      it->second.id = m_by_key.try_emplace(*key, static_cast<std::uint32_t>(m_by_key.size())).first->second;
    }
  }
  m_last_spec = pod.spec.get();
  m_last_id = it->second.id;
  return m_last_id;
}

bool same_scheduling_properties(const model::Pod& a, const model::Pod& b)
{
  // CPU and memory first: they tell most shapes apart without comparing every resource.
  return a.spec == b.spec && a.requests.cpu() == b.requests.cpu() && a.requests.memory() == b.requests.memory()
         && a.requests == b.requests;
}

std::vector<PodGroup> build_pod_groups(const std::vector<const model::Pod*>& pods, ControllerIds& controllers)
{
  std::vector<PodGroup> groups;
  // Per controller: (group index, representative) of its first groups.
  std::unordered_map<std::uint32_t, std::vector<std::pair<std::size_t, const model::Pod*>>> by_controller;
  for (const auto* pod : pods) {
    const std::uint32_t controller = controllers.of(*pod);
    if (controller == ControllerIds::k_none) {
      groups.push_back(PodGroup{{pod}});
      continue;
    }
    auto& egs = by_controller[controller];
    bool matched = false;
    for (const auto& [gid, rep] : egs) {
      if (same_scheduling_properties(*pod, *rep)) {
        groups[gid].pods.push_back(pod);
        matched = true;
        break;
      }
    }
    if (matched) {
      continue;
    }
    if (egs.size() < k_max_groups_per_controller) {
      egs.emplace_back(groups.size(), pod);
    }
    groups.push_back(PodGroup{{pod}});
  }
  return groups;
}

std::size_t HintTable::home(const model::Pod* pod) const
{
  // Fibonacci hashing of the address (pods are apart by far more than 16 bytes).
  const auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pod) >> 4U);
  return static_cast<std::size_t>((x * 0x9e3779b97f4a7c15ULL) >> 32U) & (m_slots.size() - 1);
}

const HintTable::Hint* HintTable::find_hint(const model::Pod* pod) const
{
  if (m_used == 0) {
    return nullptr;
  }
  for (std::size_t k = home(pod);; k = (k + 1) & (m_slots.size() - 1)) {
    const auto& slot = m_slots[k];
    if (slot.pod == pod) {
      return &slot.hint;
    }
    if (slot.pod == nullptr) {
      return nullptr;
    }
  }
}

void HintTable::set(const model::Pod* pod, std::string_view node, std::size_t hash)
{
  if (2 * (m_used + 1) > m_slots.size() && find(pod) == nullptr) {
    grow();
  }
  std::size_t k = home(pod);
  while (m_slots[k].pod != nullptr && m_slots[k].pod != pod) {
    k = (k + 1) & (m_slots.size() - 1);
  }
  auto& slot = m_slots[k];
  if (slot.pod == nullptr) {
    slot.pod = pod;
    ++m_used;
    m_taken.push_back(static_cast<std::uint32_t>(k));
  }
  if (slot.hint.node.data() != node.data()) { // not the slot's own name (a hint taken again)
    slot.hint.node.assign(node);
  }
  slot.hint.hash = hash;
}

void HintTable::grow()
{
  std::vector<Slot> old(std::max<std::size_t>(16, 2 * m_slots.size()));
  old.swap(m_slots);
  m_taken.clear();
  for (auto& s : old) {
    if (s.pod == nullptr) {
      continue;
    }
    std::size_t k = home(s.pod);
    while (m_slots[k].pod != nullptr) {
      k = (k + 1) & (m_slots.size() - 1);
    }
    m_slots[k].pod = s.pod;
    m_slots[k].hint = std::move(s.hint);
    m_taken.push_back(static_cast<std::uint32_t>(k));
  }
}

void HintTable::clear()
{
  for (const auto k : m_taken) {
    m_slots[k].pod = nullptr; // the name keeps its buffer
  }
  m_taken.clear();
  m_used = 0;
}

void HintTable::swap(HintTable& other) noexcept
{
  m_slots.swap(other.m_slots);
  std::swap(m_used, other.m_used);
  m_taken.swap(other.m_taken);
}

const HintTable::Hint* HintingSimulator::hint(const model::Pod* pod) const
{
  if (const HintTable::Hint* h = m_current.find_hint(pod)) {
    return h;
  }
  return m_old.find_hint(pod);
}

void HintingSimulator::drop_old_hints()
{
  m_old.swap(m_current);
  m_current.clear();
}

std::vector<std::optional<std::size_t>> HintingSimulator::try_schedule_pods(
    Snapshot& snapshot, const std::vector<const model::Pod*>& pods, bool break_on_failure,
    const std::function<bool(std::size_t)>& acceptable, NodeOrdering& ordering)
{
  std::vector<std::optional<std::size_t>> result(pods.size());
  // groupByPriority: priorities descending; pods keep their order within a priority.
  std::vector<std::size_t> order(pods.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto priority = [&](std::size_t i) { return pods[i]->spec ? pods[i]->spec->priority : 0; };
  const auto higher = [&](std::size_t a, std::size_t b) { return priority(a) > priority(b); };
  if (!std::is_sorted(order.begin(), order.end(), higher)) {
    std::stable_sort(order.begin(), order.end(), higher);
  }

  // Similar pods found unschedulable in this run, per controller (at most 10 per controller).
  std::unordered_map<std::uint32_t, std::vector<const model::Pod*>> unschedulable;
  std::size_t start = 0;
  while (start < order.size()) {
    std::size_t end = start;
    while (end < order.size() && priority(order[end]) == priority(order[start])) {
      ++end;
    }
    // With hints first.
    std::vector<std::size_t> without_hints;
    for (std::size_t k = start; k < end; ++k) {
      const std::size_t i = order[k];
      const HintTable::Hint* h = hint(pods[i]);
      if (h != nullptr) {
        const std::size_t node = snapshot.find(h->node, h->hash);
        if (node < snapshot.size() && (!acceptable || acceptable(node))
            && check_predicates(snapshot, node, *pods[i]) == Filter::none) {
          snapshot.add_pod(node, *pods[i]);
          m_current.set(pods[i], h->node, h->hash);
          result[i] = node;
          continue;
        }
      }
      without_hints.push_back(i);
    }
    for (const std::size_t i : without_hints) {
      const std::uint32_t controller = m_controllers.of(*pods[i]);
      const bool key = controller != ControllerIds::k_none;
      bool similar_failed = false;
      if (key) {
        auto it = unschedulable.find(controller);
        if (it != unschedulable.end()) {
          similar_failed = std::any_of(it->second.begin(), it->second.end(), [&](const model::Pod* p) {
            return same_scheduling_properties(*p, *pods[i]);
          });
        }
      }
      std::optional<std::size_t> node;
      if (!similar_failed) {
        node = schedule_on_any(snapshot, *pods[i], acceptable, ordering);
      }
      if (node) {
        m_current.set(pods[i], snapshot.node(*node).state->name, snapshot.name_hash(*node));
        result[i] = node;
        continue;
      }
      if (!similar_failed && key) {
        auto& list = unschedulable[controller];
        if (list.size() < k_max_groups_per_controller) {
          list.push_back(pods[i]);
        }
      }
      if (break_on_failure) {
        return result;
      }
    }
    start = end;
  }
  return result;
}

} // namespace capsim::cas
