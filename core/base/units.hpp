#pragma once

#include <cstdint>
#include <limits>

namespace capsim {

// Simulated time and durations are integer milliseconds, so event order never depends on
// floating-point rounding. SimTime counts from the start of the simulation.
using SimTime = std::int64_t;
using Duration = std::int64_t;

inline constexpr Duration k_millisecond = 1;
inline constexpr Duration k_second = 1000;
inline constexpr Duration k_minute = 60 * k_second;
inline constexpr Duration k_hour = 60 * k_minute;
inline constexpr Duration k_day = 24 * k_hour;

// "Never" for fields such as expireAfter and consolidateAfter.
inline constexpr Duration k_never = std::numeric_limits<Duration>::max();

inline constexpr std::int64_t k_kib = 1024;
inline constexpr std::int64_t k_mib = 1024 * k_kib;
inline constexpr std::int64_t k_gib = 1024 * k_mib;

} // namespace capsim
