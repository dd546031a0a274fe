// The engine's event queue pops in (time, phase, order of scheduling), whatever the heap's shape.

#include "core/sim/event_queue.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

using namespace capsim;
using sim::Event;
using sim::EventKind;
using sim::EventQueue;
using sim::Phase;

TEST_CASE("Events pop by time then phase then the order they were pushed in", "[sim][events]")
{
  // Pushes and pops interleaved at random, as a run does (an event's handler pushes later ones,
  // some at the same time); every pop is checked against the earliest of the events left.
  std::mt19937_64 rng(20261206);
  const auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  EventQueue q;
  std::vector<Event> left; // with their sequence numbers, as pushed
  std::uint64_t seq = 0;
  SimTime now = 0;
  std::size_t popped = 0;
  std::size_t same_time_ties = 0;
  const auto key = [](const Event& e) { return std::tuple(e.time, e.phase, e.seq); };
  for (int step = 0; step < 20000; ++step) {
    if (left.empty() || uniform(0, 9) < 6) {
      const SimTime at = now + uniform(0, 3) * 10;
      const auto phase = static_cast<Phase>(uniform(0, 3));
      const auto kind = static_cast<EventKind>(uniform(0, 9));
      const auto subject = static_cast<std::uint32_t>(uniform(0, 1'000'000));
      const auto generation = static_cast<std::uint32_t>(uniform(0, 5));
      q.push(at, phase, kind, subject, generation);
      left.push_back({at, phase, seq++, kind, subject, generation});
      continue;
    }
    const auto first = std::min_element(left.begin(), left.end(),
                                        [&](const Event& a, const Event& b) { return key(a) < key(b); });
    REQUIRE_FALSE(q.empty());
    const Event top = q.top();
    const Event e = q.pop();
    CHECK(key(top) == key(e));
    CHECK(key(e) == key(*first));
    CHECK(e.kind == first->kind);
    CHECK(e.subject == first->subject);
    CHECK(e.generation == first->generation);
    same_time_ties += e.time == now && popped > 0 ? 1 : 0;
    now = e.time;
    left.erase(first);
    ++popped;
  }
  CHECK(q.empty() == left.empty());
  CHECK(popped > 5000);
  CHECK(same_time_ties > 1000); // equal times are decided by phase and order, not by chance
}
