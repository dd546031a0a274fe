#pragma once

#include "cli/output/progress.hpp"
#include "core/model/scenario.hpp"
#include "core/report/result.hpp"
#include "core/sim/run.hpp"

#include <optional>
#include <string>
#include <vector>

namespace capsim::cli {

// What `run`, `compare`, `check` and `bound` share: which engines, which seed, and how to
// report progress.
struct RunSettings
{
  std::vector<std::string> engines;   // RunOptions::engines: empty = the scenario's choice
  std::optional<std::uint64_t> seed;  // overrides the scenario's spec.seed
  Duration timeline_step = 0;
  bool explain = false;
  ProgressMode progress = ProgressMode::automatic;
};

// -e/--engine as RunOptions::engines: "" or "all" = every engine the scenario configures.
[[nodiscard]] std::vector<std::string> engines_for(const std::string& engine);

// Runs one loaded scenario through sim::run_scenario with a progress bar on stderr labelled
// `label` (shown per SPEC §6 only on a terminal, after about a second, unless --progress
// says otherwise). For commands that exit after it: the last engine's state is not freed
// (RunOptions::process_ends_after).
[[nodiscard]] report::RunResult run_with_progress(const model::Scenario& scenario, const RunSettings& settings,
                                                  const std::string& label);

} // namespace capsim::cli
