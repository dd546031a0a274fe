#pragma once

#include "core/base/units.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace capsim::sim {

// Events at the same time run in phase order, then in the order they were scheduled, so a
// run never depends on heap internals (SimGrid's pointer tie-break is what we avoid).
enum class Phase : std::uint8_t {
  cloud = 0,     // instance registered / ready / terminated, interruption notices
  workload = 1,  // pods finish or are deleted, scenario events
  control = 2,   // controller wake-ups
  sample = 3,    // timeline samples
};

enum class EventKind : std::uint8_t {
  node_registered,
  node_ready,
  node_terminate,
  drain_step,
  spot_notice,
  pod_finish,
  pod_departure,
  scenario_event,
  controller_wakeup,
  timeline_sample,
};

struct Event
{
  SimTime time = 0;
  Phase phase = Phase::cloud;
  std::uint64_t seq = 0;
  EventKind kind = EventKind::controller_wakeup;
  std::uint32_t subject = 0; // node, pod or scenario-event index
  std::uint32_t generation = 0; // stale-event guard (e.g. pod restarted since scheduling)
};

// A 4-ary min-heap of 24-byte entries: a week pops millions of events from a heap of tens of
// thousands, and each pop's walk down reads a node's four children from one or two cache lines
// (std::priority_queue's binary heap of 40-byte events went twice as deep). The order is total
// (time, phase, scheduling order), so the pops do not depend on the heap's shape.
class EventQueue
{
public:
  void push(SimTime time, Phase phase, EventKind kind, std::uint32_t subject, std::uint32_t generation = 0)
  {
    const std::uint64_t seq = m_seq++;
    m_heap.push_back({time, (static_cast<std::uint64_t>(phase) << k_phase_shift) | (seq << k_kind_bits)
                                  | static_cast<std::uint64_t>(kind),
                      subject, generation});
    sift_up(m_heap.size() - 1);
  }

  [[nodiscard]] bool empty() const { return m_heap.empty(); }

  [[nodiscard]] Event top() const { return event(m_heap.front()); }

  Event pop()
  {
    const Event e = event(m_heap.front());
    const Entry last = m_heap.back();
    m_heap.pop_back();
    if (!m_heap.empty()) {
      sift_down(last);
    }
    return e;
  }

private:
  // `order`: the phase (2 bits), then the push's sequence number, then the kind (4 bits, never
  // compared: sequence numbers are unique).
  static constexpr unsigned k_kind_bits = 4;
  static constexpr unsigned k_phase_shift = 62;
  static_assert(static_cast<unsigned>(EventKind::timeline_sample) < (1U << k_kind_bits));
  static_assert(static_cast<unsigned>(Phase::sample) < 4);

  struct Entry
  {
    SimTime time;
    std::uint64_t order;
    std::uint32_t subject;
    std::uint32_t generation;
  };

  [[nodiscard]] static bool before(const Entry& a, const Entry& b)
  {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  }

  [[nodiscard]] static Event event(const Entry& e)
  {
    constexpr std::uint64_t k_seq_mask = (std::uint64_t{1} << (k_phase_shift - k_kind_bits)) - 1;
    return {e.time, static_cast<Phase>(e.order >> k_phase_shift), (e.order >> k_kind_bits) & k_seq_mask,
            static_cast<EventKind>(e.order & ((1U << k_kind_bits) - 1)), e.subject, e.generation};
  }

  void sift_up(std::size_t i)
  {
    const Entry e = m_heap[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(e, m_heap[parent])) {
        break;
      }
      m_heap[i] = m_heap[parent];
      i = parent;
    }
    m_heap[i] = e;
  }

  // `e` placed from the root down (the root's entry is gone).
  void sift_down(const Entry& e)
  {
    const std::size_t n = m_heap.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) {
        break;
      }
      std::size_t best = first;
      const std::size_t last = std::min(first + 4, n);
      for (std::size_t c = first + 1; c < last; ++c) {
        if (before(m_heap[c], m_heap[best])) {
          best = c;
        }
      }
      if (!before(m_heap[best], e)) {
        break;
      }
      m_heap[i] = m_heap[best];
      i = best;
    }
    m_heap[i] = e;
  }

  std::vector<Entry> m_heap;
  std::uint64_t m_seq = 0;
};

} // namespace capsim::sim
