#pragma once

#include "core/model/scenario.hpp"
#include "core/report/result.hpp"
#include "core/sim/run.hpp"
#include "core/sweep/grid.hpp"
#include "core/sweep/sweep.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// The runner `sweep` and `compare` share: many (scenario, seed) runs across threads, each
// result stored at its own index, so the output is the same whatever the thread count.
namespace capsim::sweep {

// One run: a scenario (an index into the loaded scenarios) and the seed it runs with.
struct Cell
{
  std::size_t scenario = 0;
  std::uint64_t seed = 0;
};

// What runs one cell; sim::run_scenario unless a test supplies a fake. Called from worker
// threads: it must not touch shared state other than through its arguments.
using RunFunction = std::function<report::RunResult(const model::Scenario&, const sim::RunOptions&)>;

struct RunnerOptions
{
  std::vector<std::string> engines; // sim::RunOptions::engines
  Duration timeline_step = 0;       // sim::RunOptions::timeline_step
  bool explain = false;             // sim::RunOptions::explain
  unsigned jobs = 0;                // worker threads; 0 = the machine's hardware threads
  // Overall fraction done, 0..1; called from worker threads but never twice at once.
  std::function<void(double)> progress;
  RunFunction run;                  // empty = sim::run_scenario
};

// Loads every variant's scenario (io::load_scenario with the variant's --set list), in order,
// on the calling thread: loading registers resources and must not run concurrently. Throws
// the first InputError, so a typo fails before any simulation starts.
[[nodiscard]] std::vector<model::Scenario> load_variants(const std::vector<Variant>& variants);

// The cells a sweep runs: for each scenario i, `seeds` cells with seeds first[i], first[i]+1, ...
// (variant-major, so cell index = i * seeds + k).
[[nodiscard]] std::vector<Cell> seed_cells(const std::vector<std::uint64_t>& first, std::size_t seeds);

// Runs `cells` on min(jobs, cells) threads. `consume(i, result)` is called once per cell, on
// the worker thread that ran it, and must only write state owned by index i. Cells are taken
// in index order; when runs fail, the error of the lowest failing cell is rethrown after every
// started run has finished (the same error whatever `jobs` is), and no new cell starts.
void run_cells(const std::vector<model::Scenario>& scenarios, const std::vector<Cell>& cells,
               const RunnerOptions& options,
               const std::function<void(std::size_t, report::RunResult&&)>& consume);

// The same, keeping every result: out[i] is cells[i]'s run.
[[nodiscard]] std::vector<report::RunResult> run_cells(const std::vector<model::Scenario>& scenarios,
                                                       const std::vector<Cell>& cells, const RunnerOptions& options);

// Loads one variant's scenario; io::load_scenario(variant.path, variant.sets) unless a test
// supplies a fake.
using LoadFunction = std::function<model::Scenario(const Variant&)>;

// The cells of `shard` of a sweep (all of them with Shard{0, 1}), in cell order: loads the
// variants those cells need on this thread, runs each cell with seed first_seed(spec, the
// variant's spec.seed) + its seed offset through run_cells, and keeps each run's CellResult.
// `variants` is grid_variants(...) of the spec.
[[nodiscard]] std::vector<CellResult> run_shard(const SweepSpec& spec, const std::vector<Variant>& variants,
                                                const Shard& shard, const RunnerOptions& options,
                                                const LoadFunction& load = {});

// `jobs` as run_cells uses it: 0 becomes the hardware thread count (at least 1).
[[nodiscard]] unsigned resolve_jobs(unsigned jobs);

} // namespace capsim::sweep
