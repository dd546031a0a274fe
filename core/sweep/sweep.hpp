#pragma once

#include "core/report/result.hpp"
#include "core/sweep/grid.hpp"
#include "core/sweep/stats.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// `capsim sweep`: what a sweep is, the raw result of each variant×seed cell, and the report
// (per variant and engine: mean and 95% confidence interval over the seeds, Pareto front).
namespace capsim::sweep {

// A sweep as its command line defines it. Every shard of one sweep has the same spec, so
// `sweep merge` can check that its inputs belong together.
struct SweepSpec
{
  std::string scenario_file;          // the scenario's file name, without folders
  std::vector<std::string> sets;      // --set applied to every variant
  std::vector<Axis> axes;             // named (name_axes)
  std::size_t seeds = 1;              // runs per variant: seed, seed + 1, ...
  std::optional<std::uint64_t> seed;  // --seed: the first seed of every variant; else its spec.seed
  std::string engine;                 // -e as given: "" or "all" = the engines the scenario configures

  [[nodiscard]] std::size_t variant_count() const;
  [[nodiscard]] std::size_t cell_count() const { return variant_count() * seeds; }
};

// The numbers of one engine in one cell, rounded as the JSON writes them (money 6 decimals,
// seconds 3, node-hours and ratios 4), so a run and the merge of its shards agree to the bit.
struct EngineMetrics
{
  std::string engine;
  double total_usd = 0;
  double on_demand_usd = 0;
  double spot_usd = 0;
  double effective_total_usd = 0;
  double node_hours = 0;
  std::int64_t nodes_launched = 0;
  std::int64_t nodes_peak = 0;
  std::int64_t pods_total = 0;
  std::int64_t unschedulable = 0;
  std::int64_t evicted = 0;
  double pending_p50_s = 0;
  double pending_p95_s = 0;
  double pending_max_s = 0;
  std::int64_t spot_interruptions = 0;
  double cpu_utilization = 0;
  double memory_utilization = 0;
  double lower_bound_usd = 0;
};

// One variant×seed run. `cell` = variant * seeds + seed offset.
struct CellResult
{
  std::size_t cell = 0;
  std::size_t variant = 0;
  std::uint64_t seed = 0;
  std::string scenario; // metadata.name of the variant's scenario
  std::string region;
  double duration_s = 0;
  std::vector<EngineMetrics> engines; // in the order the run listed them
};

// The cell's record of a finished run (numbers rounded as above).
[[nodiscard]] CellResult make_cell(std::size_t cell, std::size_t variant, const report::RunResult& run);

// x rounded to `decimals` places exactly as report::fixed_number writes it, read back.
[[nodiscard]] double quantize(double x, int decimals);

// The first seed of a variant's runs: --seed, else the variant scenario's spec.seed.
[[nodiscard]] std::uint64_t first_seed(const SweepSpec& spec, std::uint64_t scenario_seed);

// One variant and engine over its seeds.
struct VariantSummary
{
  std::size_t variant = 0;
  std::string engine;
  Estimate total_usd;
  Estimate node_hours;
  Estimate pending_p95_s;
  Estimate unschedulable;
  Estimate spot_interruptions;
  bool pareto = false; // on the front of mean cost vs mean pending p95, over all rows
};

// Everything `sweep` reports; a local run and `sweep merge` of its shards build equal ones.
struct SweepReport
{
  std::string version;
  SweepSpec spec;
  std::vector<Variant> variants;      // grid order
  std::vector<CellResult> cells;      // by cell index, all of them
  std::vector<VariantSummary> summary; // variant order, then engine order of the variant's first cell
};

// Builds the report from every cell of the grid (any order). CAPSIM_CHECK that each cell is
// present once; readers of untrusted input check first (merge_shards).
[[nodiscard]] SweepReport build_report(std::string version, SweepSpec spec, std::vector<CellResult> cells);

} // namespace capsim::sweep
