#pragma once

#include "core/base/units.hpp"

#include <cstdint>
#include <queue>
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

class EventQueue
{
public:
  void push(SimTime time, Phase phase, EventKind kind, std::uint32_t subject, std::uint32_t generation = 0)
  {
    m_heap.push(Event{time, phase, m_seq++, kind, subject, generation});
  }

  [[nodiscard]] bool empty() const { return m_heap.empty(); }

  [[nodiscard]] const Event& top() const { return m_heap.top(); }

  Event pop()
  {
    Event e = m_heap.top();
    m_heap.pop();
    return e;
  }

private:
  struct Later
  {
    bool operator()(const Event& a, const Event& b) const
    {
      if (a.time != b.time) {
        return a.time > b.time;
      }
      if (a.phase != b.phase) {
        return a.phase > b.phase;
      }
      return a.seq > b.seq;
    }
  };

  std::priority_queue<Event, std::vector<Event>, Later> m_heap;
  std::uint64_t m_seq = 0;
};

} // namespace capsim::sim
