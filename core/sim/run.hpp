#pragma once

#include "core/model/scenario.hpp"
#include "core/report/result.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace capsim::sim {

// Timeline rows a run may ask for (RunOptions::timeline_step over the run's duration).
inline constexpr std::int64_t k_max_timeline_rows = 1'000'000;

struct RunOptions
{
  std::vector<std::string> engines; // "karpenter", "cluster-autoscaler"; empty = scenario's choice
  std::optional<std::uint64_t> seed; // overrides spec.seed
  Duration timeline_step = 0;        // 0 = no timeline rows
  bool explain = false;              // keep the decision log
  // Progress callback: fraction of simulated time done, 0..1 (called at most ~100 times).
  std::function<void(double)> progress;
  // The process ends right after the run: the last engine's state is left to the OS rather than
  // freed block by block (a million-pod week's pods, nodes and caches: millions of blocks, 2% of
  // its time). clang's -disable-free does the same. The state stays reachable (no leak report).
  bool process_ends_after = false;
};

// Run one scenario through the requested engines: resolves the catalog and the workload,
// simulates each engine from the same inputs and seed, and returns SPEC §7's result.
// Throws InputError on bad input.
// What run_scenario checks before it simulates anything, for `capsim validate`: the catalog
// (spec.region, the NodeGroups' instance types), that the run has an end, and that every engine
// the scenario configures can be set up. Throws InputError.
void check_scenario(const model::Scenario& scenario, std::span<const model::Pod> workload);

[[nodiscard]] report::RunResult run_scenario(const model::Scenario& scenario, const RunOptions& options);

} // namespace capsim::sim
