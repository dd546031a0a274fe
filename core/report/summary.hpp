#pragma once

#include "core/report/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace capsim::report {

// One design in `capsim compare`: a scenario file or a --variant, and its run.
struct Design
{
  std::string name;
  RunResult result;
};

// Several designs run on the same workload and seed; the first is the baseline of deltas.
struct Comparison
{
  std::vector<Design> designs;
};

// A run seen as a one-design comparison (so every renderer has one code path).
[[nodiscard]] Comparison as_comparison(const RunResult& run);

// One column of a summary: one engine's result in one design. `label` is the engine when there
// is one design, the design when every design has one engine, else "design · engine".
struct Column
{
  std::string label;
  std::string design;
  const EngineResult* result = nullptr;
  // The column this one's deltas are against: the same engine in the first design (none for
  // the first design's own columns, or when the first design lacks that engine). With a single
  // design, every column after the first is against the first.
  std::optional<std::size_t> baseline;
};

// With one design: its engines in run order. With several: grouped by engine (in order of
// first appearance), designs in order within each engine, so a design sits next to the one it
// is compared with. Pointers into `cmp`.
[[nodiscard]] std::vector<Column> columns_of(const Comparison& cmp);

enum class MetricKind { money, count, average, hours, ratio, seconds };
enum class Better { lower, higher, neutral };

// One summary line: a metric's value in every column.
struct MetricRow
{
  std::string section; // "Cost", "Nodes", ...
  std::string label;   // for people: "total", "pool default", ...
  std::string key;     // for machines (CSV header): "total_usd", "cost_pool_default_usd", ...
  MetricKind kind = MetricKind::count;
  Better better = Better::neutral;
  std::vector<double> values; // one per column
};

// Every metric of the summary table, in display order: cost (total, on-demand, spot, each pool
// in name order), nodes, utilization, pods and pending, disruptions by reason, lower bound.
[[nodiscard]] std::vector<MetricRow> summary_rows(const std::vector<Column>& columns);

// A column's value against the first column's.
struct Delta
{
  double absolute = 0;             // value - base
  std::optional<double> relative;  // (value - base) / |base|; none when base is 0 or for ratios
  int sign = 0;                    // -1, 0 (equal within rounding) or +1
  bool worse = false;              // the change goes against `Better`
  bool better = false;
};

[[nodiscard]] Delta compute_delta(double base, double value, MetricKind kind, Better better);

// "$12.35", "62.3%", "3m20s", "1,234", "12.50" by kind; money with `money_decimals` places
// (report::money_decimals of the row keeps a row aligned).
[[nodiscard]] std::string human_value(double value, MetricKind kind, int money_decimals = 2);

// "▲ +21.5%", "▼ -3.0 pp" (ratios, in percentage points), "▲ +3" (base 0), "=" when equal.
[[nodiscard]] std::string human_delta(const Delta& delta, MetricKind kind, int money_decimals = 2);

} // namespace capsim::report
