#pragma once

#include "core/report/result.hpp"
#include "core/report/summary.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace capsim::report {

// The `-o` formats of `capsim run` and `capsim compare`.
enum class Format { table, json, csv, markdown, html };

// "table" | "json" | "csv" | "markdown" (or "md") | "html"; nullopt otherwise.
[[nodiscard]] std::optional<Format> parse_format(std::string_view name);
[[nodiscard]] std::string format_name(Format format);

struct RenderOptions
{
  bool deltas = false; // columns after the first show their change against it (compare)
  bool color = false;  // ANSI colors on worse/better deltas (table only; for terminals)
};

// Every renderer is a pure function of the result: same input, byte-identical text.

// Plain-text summary for a terminal: one column per engine/design, sections Cost, Nodes,
// Utilization, Pods, Disruptions, Lower bound; then warnings; then the timeline and the
// decision log of each column when they are present (--timeline, --explain).
[[nodiscard]] std::string render_table(const Comparison& cmp, const RenderOptions& options);
// The same summary as a GitHub-flavoured Markdown table (PR comments); worse deltas in bold,
// decisions and final nodes in <details> blocks.
[[nodiscard]] std::string render_markdown(const Comparison& cmp, const RenderOptions& options);
// A row per engine/design (header: design,engine,<metric keys>); when any column has timeline
// rows, the time series instead (design,engine,t_s,nodes,...). RFC 4180, "\n" line ends.
[[nodiscard]] std::string render_csv(const Comparison& cmp);
// One self-contained HTML page (no scripts, fonts, links or external references): the summary
// table and inline SVG charts with fixed ids: chart-nodes, chart-cost-rate,
// chart-cost-cumulative, chart-pending, chart-utilization, chart-instance-mix.
[[nodiscard]] std::string render_html(const Comparison& cmp, const RenderOptions& options);
// The decision log of one engine (for --explain), as a plain-text table.
[[nodiscard]] std::string render_decisions(const EngineResult& result);

// `capsim bound`: per engine the cost lower bound, the simulated cost and the efficiency.
// Formats: table, json ({"capsim", "scenario", "seed", "region", "duration_s", "bounds":
// [{"engine", "lower_bound_usd", "total_usd", "efficiency"}]}), csv, markdown; html gives the
// table text.
[[nodiscard]] std::string render_bound(const RunResult& run, Format format);

// Dispatch by format; JSON of a comparison is render_json(Comparison) (see json.hpp).
[[nodiscard]] std::string render(const Comparison& cmp, Format format, const RenderOptions& options);
[[nodiscard]] std::string render(const RunResult& run, Format format, const RenderOptions& options);

} // namespace capsim::report
