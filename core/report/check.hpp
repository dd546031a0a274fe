#pragma once

#include "core/report/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::report {

// `capsim check` limits. Increases are fractions of the baseline value (0.01 = 1%).
struct CheckThresholds
{
  double max_cost_increase = 0.01;       // total_usd
  double max_node_hours_increase = 0.01; // nodes.node_hours
  double max_pending_p95_increase = 0.10;
  std::optional<double> min_efficiency;           // lower_bound.efficiency; none = not checked
  std::optional<std::int64_t> max_unschedulable;  // none = no more than the baseline had
  // Absolute slack so rounding or tiny baselines never fail a build: cost increases up to
  // $0.000001, node-hours up to 0.0001 and pending p95 increases up to 1 s always pass.
  double cost_grace_usd = 1e-6;
  double node_hours_grace = 1e-4;
  double pending_grace_s = 1.0;
};

// One checked metric of one engine.
struct CheckLine
{
  std::string engine;
  std::string metric;  // "total cost", "node-hours", ...
  std::string baseline; // value text for people
  std::string current;
  std::string change;  // "+0.5%", "-2", ""
  std::string limit;   // "+1%", ">= 80.0%", "<= 0"
  bool ok = true;
  std::string reason;  // why it failed, one readable sentence naming the option; "" when ok
};

struct CheckReport
{
  std::vector<CheckLine> lines;
  std::vector<std::string> notes; // engines only on one side, ...

  [[nodiscard]] bool ok() const;
  [[nodiscard]] std::size_t violations() const;
};

// Compares every engine of the baseline with the same engine in `current`. An engine of the
// baseline missing from `current` is a violation; an engine only in `current` is a note.
[[nodiscard]] CheckReport check_against_baseline(const RunResult& baseline, const RunResult& current,
                                                 const CheckThresholds& thresholds);

// A readable report: a line per metric (ok/FAIL), then one sentence per violation.
[[nodiscard]] std::string render_check(const CheckReport& report);

// "1%" -> 0.01, "0.5%" -> 0.005, "1" -> 0.01 (a bare number is a percentage too); nullopt
// when not a non-negative number.
[[nodiscard]] std::optional<double> parse_percent(std::string_view text);

// A ratio: "0.8" -> 0.8, "80%" -> 0.8; nullopt when not a number in [0, 1].
[[nodiscard]] std::optional<double> parse_ratio(std::string_view text);

} // namespace capsim::report
