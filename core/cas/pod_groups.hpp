#pragma once

#include "core/cas/predicates.hpp"
#include "core/cas/snapshot.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace capsim::cas {

// The controller a pod belongs to (drain.ControllerRef): "namespace/template/kind" for pods
// of a ReplicaSet, StatefulSet or Job; nullopt for bare pods and DaemonSet pods.
[[nodiscard]] std::optional<std::string> controller_key(const model::Pod& pod);

// Controllers as small integers, remembered per pod spec (a controller's pods share their
// spec's namespace, template and owner kind): the loops looked a controller up by its formatted
// key for every pending pod, which dominated a loop with thousands of pods pending.
class ControllerIds
{
public:
  static constexpr std::uint32_t k_none = UINT32_MAX; // bare pods and DaemonSet pods

  [[nodiscard]] std::uint32_t of(const model::Pod& pod);

private:
  struct Known
  {
    model::PodSpecPtr spec; // kept alive: its address is the key
    std::uint32_t id = k_none;
  };
  std::unordered_map<const model::PodSpec*, Known> m_by_spec;
  std::unordered_map<std::string, std::uint32_t> m_by_key;
  const model::PodSpec* m_last_spec = nullptr; // in m_by_spec (kept alive there)
  std::uint32_t m_last_id = k_none;
};

// reflect.DeepEqual(labels) && PodSpecSemanticallyEqual(spec): pods built from the same
// template with the same requests.
[[nodiscard]] bool same_scheduling_properties(const model::Pod& a, const model::Pod& b);

// A pod equivalence group (equivalence.PodGroup): pods[0] is the exemplar.
struct PodGroup
{
  std::vector<const model::Pod*> pods;
};

// At most this many equivalence groups per controller; further distinct pods are singletons
// (maxEquivalenceGroupsByController).
inline constexpr std::size_t k_max_groups_per_controller = 10;

// equivalence.BuildPodGroups: groups in order of their first pod (CA iterates a Go map, so
// its order is random; ours is the pods' order).
[[nodiscard]] std::vector<PodGroup> build_pod_groups(const std::vector<const model::Pod*>& pods, ControllerIds& controllers);

// Pod -> name of the node it was placed on, open-addressed by the pod's address: slots keep
// their name's buffer when cleared, so a loop's hints allocate nothing once the table has grown
// (a map allocated a node and a name per placement, every loop). Only looked up, never listed.
class HintTable
{
public:
  // A hint: the node's name and its hash (std::hash<std::string_view>, as Snapshot::find takes
  // it: a loop looks up every hint it takes again).
  struct Hint
  {
    std::string node;
    std::size_t hash = 0;
  };

  [[nodiscard]] const Hint* find_hint(const model::Pod* pod) const;
  [[nodiscard]] const std::string* find(const model::Pod* pod) const
  {
    const Hint* h = find_hint(pod);
    return h != nullptr ? &h->node : nullptr;
  }
  void set(const model::Pod* pod, std::string_view node, std::size_t hash);
  void set(const model::Pod* pod, std::string_view node) { set(pod, node, std::hash<std::string_view>{}(node)); }
  void clear();
  void swap(HintTable& other) noexcept;

private:
  struct Slot
  {
    const model::Pod* pod = nullptr; // nullptr: free
    Hint hint;
  };
  [[nodiscard]] std::size_t home(const model::Pod* pod) const;
  void grow();

  std::vector<Slot> m_slots; // size 0 or a power of two, at least twice m_used
  std::size_t m_used = 0;
  // The slots holding a pod, which clear() frees (a loop's table holds a few of its slots: the
  // table keeps the size of the busiest loop's).
  std::vector<std::uint32_t> m_taken;
};

// The HintingSimulator of filter-out-schedulable and of the removal simulation: pods are
// tried by priority (highest first, stable), each first on the node a previous run placed it
// on (its hint), then on any node in NodeOrdering; a pod whose similar pod (same controller
// and scheduling properties) already failed in this run is not tried again.
class HintingSimulator
{
public:
  // Places as many pods as possible, binding them in the snapshot. Returns the node of each
  // pod (aligned with `pods`), nullopt for pods not placed. With break_on_failure it stops at
  // the first pod that does not fit.
  std::vector<std::optional<std::size_t>> try_schedule_pods(Snapshot& snapshot, const std::vector<const model::Pod*>& pods,
                                                            bool break_on_failure,
                                                            const std::function<bool(std::size_t)>& acceptable,
                                                            NodeOrdering& ordering);

  // Hints older than the previous call are forgotten (Hints.DropOld).
  void drop_old_hints();

private:
  [[nodiscard]] const HintTable::Hint* hint(const model::Pod* pod) const;

  HintTable m_current;
  HintTable m_old;
  ControllerIds m_controllers;
};

} // namespace capsim::cas
