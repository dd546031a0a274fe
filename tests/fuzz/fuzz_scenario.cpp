// libFuzzer target: the scenario reader (YAML stream -> model::Scenario), with --set overrides.
// Any input must either parse or throw capsim::InputError; a crash, a sanitizer report, a
// timeout or another exception is a finding. Lines starting with "#set " are also applied as
// --set overrides, so the override path is fuzzed too.
#include "core/base/diagnostics.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/workload.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> sets;
  for (std::size_t pos = 0; pos < text.size() && sets.size() < 4;) {
    const std::size_t end = text.find('\n', pos);
    const std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (line.substr(0, 5) == "#set ") {
      sets.emplace_back(line.substr(5));
    }
    if (end == std::string_view::npos) {
      break;
    }
    pos = end + 1;
  }
  try {
    const auto scenario = capsim::io::parse_scenario(text, "fuzz.yaml", sets);
    // Expand small workloads too (bounded: no traces, a short horizon, few replicas).
    std::size_t replicas = 0;
    for (const auto& w : scenario.workloads) {
      replicas += static_cast<std::size_t>(std::max(w.replicas, w.completions));
    }
    bool small = replicas < 10'000;
    for (const auto& g : scenario.generators) {
      small = small && g.max < 1000 && g.count < 1000 && g.rate_per_hour < 10'000;
      for (const auto& s : g.steps) {
        small = small && s.replicas < 1000;
      }
    }
    if (small) {
      capsim::io::ExpandOptions options;
      options.horizon = capsim::k_hour;
      options.read_traces = false;
      (void)capsim::io::expand_workload(scenario, options);
    }
  } catch (const capsim::InputError&) {
    // Refused cleanly.
  }
  return 0;
}
