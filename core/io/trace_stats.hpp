#pragma once

#include "core/model/pod.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// Nearest-rank percentiles of one quantity over pods.
struct Distribution
{
  std::int64_t p50 = 0;
  std::int64_t p95 = 0;
  std::int64_t max = 0;
};

// A summary of a trace or an expanded workload (`capsim trace stats`, `capsim validate`).
// Concurrency assumes each pod runs from its arrival to its end (no pending time): end =
// arrival + runtime, or the departure if earlier; pods without either never end.
struct TraceStats
{
  std::size_t pods = 0;
  SimTime first_arrival = 0;
  SimTime last_arrival = 0;
  SimTime last_end = -1;       // latest finite end, -1 when none
  std::size_t open_ended = 0;  // pods that run until the end of the simulation
  Distribution cpu;            // millicores
  Distribution memory;         // bytes
  Distribution gpu;            // nvidia.com/gpu
  Distribution running;        // ms, over pods with a finite end
  std::size_t peak_pods = 0;
  SimTime peak_pods_at = 0;
  std::int64_t peak_cpu = 0; // millicores requested at once
  SimTime peak_cpu_at = 0;
  std::int64_t peak_memory = 0; // bytes requested at once
  SimTime peak_memory_at = 0;
};

[[nodiscard]] TraceStats trace_stats(const std::vector<model::Pod>& pods);

// Human-readable lines (no trailing newline) and a JSON object with the same numbers
// (times in seconds, cpu in millicores, memory in MiB).
[[nodiscard]] std::string format_trace_stats(const TraceStats& stats);
[[nodiscard]] std::string trace_stats_json(const TraceStats& stats, std::string_view source);

} // namespace capsim::io
