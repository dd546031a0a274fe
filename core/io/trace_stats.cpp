#include "core/io/trace_stats.hpp"

#include "core/base/quantity.hpp"
#include "core/io/trace.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace capsim::io {

namespace {

Distribution distribution(std::vector<std::int64_t>& values)
{
  Distribution d;
  if (values.empty()) {
    return d;
  }
  std::sort(values.begin(), values.end());
  const auto rank = [&](std::size_t percent) {
    const std::size_t n = values.size();
    const std::size_t r = (percent * n + 99) / 100; // ceil(p/100 * n), nearest rank
    return values[std::max<std::size_t>(r, 1) - 1];
  };
  d.p50 = rank(50);
  d.p95 = rank(95);
  d.max = values.back();
  return d;
}

SimTime end_of(const model::Pod& p)
{
  SimTime end = -1;
  if (p.runtime >= 0) {
    end = p.arrival + p.runtime;
  }
  if (p.departure >= 0 && (end < 0 || p.departure < end)) {
    end = p.departure;
  }
  return end;
}

// Durations for people: whole seconds ("1m30s" rather than "1m30300ms").
std::string when(SimTime ms)
{
  return format_duration((ms + 500) / 1000 * 1000);
}

std::string cores(std::int64_t millis)
{
  return millis % 1000 == 0 ? fmt::format("{}", millis / 1000) : fmt::format("{}m", millis);
}

} // namespace

TraceStats trace_stats(const std::vector<model::Pod>& pods)
{
  TraceStats s;
  s.pods = pods.size();
  if (pods.empty()) {
    return s;
  }
  std::vector<std::int64_t> values;
  values.reserve(pods.size());
  const auto collect = [&](auto get) {
    values.clear();
    for (const auto& p : pods) {
      values.push_back(get(p));
    }
    return distribution(values);
  };
  s.cpu = collect([](const model::Pod& p) { return p.requests.cpu(); });
  s.memory = collect([](const model::Pod& p) { return p.requests.memory(); });
  s.gpu = collect([](const model::Pod& p) { return p.requests[model::k_nvidia_gpu]; });
  values.clear();
  s.first_arrival = pods.front().arrival;
  s.last_arrival = pods.front().arrival;
  struct Event
  {
    SimTime t;
    std::int32_t sign; // -1 end, +1 start: ends first at equal times
    std::uint32_t index;
  };
  std::vector<Event> events;
  events.reserve(pods.size() * 2);
  for (std::uint32_t i = 0; i < pods.size(); ++i) {
    const auto& p = pods[i];
    s.first_arrival = std::min(s.first_arrival, p.arrival);
    s.last_arrival = std::max(s.last_arrival, p.arrival);
    events.push_back({p.arrival, +1, i});
    const SimTime end = end_of(p);
    if (end >= 0) {
      s.last_end = std::max(s.last_end, end);
      values.push_back(end - p.arrival);
      events.push_back({end, -1, i});
    } else {
      ++s.open_ended;
    }
  }
  s.running = distribution(values);
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.t != b.t) {
      return a.t < b.t;
    }
    if (a.sign != b.sign) {
      return a.sign < b.sign;
    }
    return a.index < b.index;
  });
  std::int64_t count = 0;
  std::int64_t cpu = 0;
  std::int64_t memory = 0;
  for (const auto& e : events) {
    const auto& p = pods[e.index];
    count += e.sign;
    cpu += e.sign * p.requests.cpu();
    memory += e.sign * p.requests.memory();
    if (count > static_cast<std::int64_t>(s.peak_pods)) {
      s.peak_pods = static_cast<std::size_t>(count);
      s.peak_pods_at = e.t;
    }
    if (cpu > s.peak_cpu) {
      s.peak_cpu = cpu;
      s.peak_cpu_at = e.t;
    }
    if (memory > s.peak_memory) {
      s.peak_memory = memory;
      s.peak_memory_at = e.t;
    }
  }
  return s;
}

std::string format_trace_stats(const TraceStats& s)
{
  std::string out = fmt::format("pods:        {}", s.pods);
  if (s.pods == 0) {
    return out;
  }
  out += fmt::format("\narrivals:    {} .. {}", when(s.first_arrival), when(s.last_arrival));
  out += fmt::format("\nends:        {}{}", s.last_end >= 0 ? "last at " + when(s.last_end) : "none",
                     s.open_ended > 0 ? fmt::format(" ({} pods run until the end)", s.open_ended) : "");
  out += fmt::format("\ncpu:         p50 {}  p95 {}  max {}", cores(s.cpu.p50), cores(s.cpu.p95), cores(s.cpu.max));
  out += fmt::format("\nmemory:      p50 {}  p95 {}  max {}", format_bytes(s.memory.p50), format_bytes(s.memory.p95),
                     format_bytes(s.memory.max));
  if (s.gpu.max > 0) {
    out += fmt::format("\ngpu:         p50 {}  p95 {}  max {}", s.gpu.p50, s.gpu.p95, s.gpu.max);
  }
  if (s.pods > s.open_ended) {
    out += fmt::format("\nrunning:     p50 {}  p95 {}  max {}", when(s.running.p50),
                       when(s.running.p95), when(s.running.max));
  }
  out += fmt::format("\npeak pods:   {} at {}", s.peak_pods, when(s.peak_pods_at));
  out += fmt::format("\npeak cpu:    {} at {}", cores(s.peak_cpu), when(s.peak_cpu_at));
  out += fmt::format("\npeak memory: {} at {}", format_bytes(s.peak_memory), when(s.peak_memory_at));
  return out;
}

std::string trace_stats_json(const TraceStats& s, std::string_view source)
{
  const auto mib = [](std::int64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(k_mib); };
  const auto seconds = [](SimTime ms) { return static_cast<double>(ms) / 1000.0; };
  nlohmann::ordered_json j;
  j["source"] = source;
  j["pods"] = s.pods;
  j["first_arrival_s"] = seconds(s.first_arrival);
  j["last_arrival_s"] = seconds(s.last_arrival);
  j["last_end_s"] = s.last_end >= 0 ? nlohmann::ordered_json(seconds(s.last_end)) : nlohmann::ordered_json(nullptr);
  j["open_ended"] = s.open_ended;
  j["cpu_millis"] = {{"p50", s.cpu.p50}, {"p95", s.cpu.p95}, {"max", s.cpu.max}};
  j["memory_mib"] = {{"p50", mib(s.memory.p50)}, {"p95", mib(s.memory.p95)}, {"max", mib(s.memory.max)}};
  j["gpu"] = {{"p50", s.gpu.p50}, {"p95", s.gpu.p95}, {"max", s.gpu.max}};
  j["running_s"] = {{"p50", seconds(s.running.p50)}, {"p95", seconds(s.running.p95)}, {"max", seconds(s.running.max)}};
  j["peak_pods"] = {{"value", s.peak_pods}, {"at_s", seconds(s.peak_pods_at)}};
  j["peak_cpu_millis"] = {{"value", s.peak_cpu}, {"at_s", seconds(s.peak_cpu_at)}};
  j["peak_memory_mib"] = {{"value", mib(s.peak_memory)}, {"at_s", seconds(s.peak_memory_at)}};
  return j.dump(2);
}

} // namespace capsim::io
