// CSV renderer and format dispatch (render.hpp).
#include "core/report/format.hpp"
#include "core/report/json.hpp"
#include "core/report/render.hpp"

#include <algorithm>

namespace capsim::report {

namespace {

int decimals_for(MetricKind kind)
{
  switch (kind) {
  case MetricKind::money: return k_money_decimals;
  case MetricKind::ratio: return k_ratio_decimals;
  case MetricKind::seconds: return k_seconds_decimals;
  case MetricKind::count:
  case MetricKind::average:
  case MetricKind::hours: return k_count_decimals;
  }
  return k_count_decimals;
}

} // namespace

std::string render_csv(const Comparison& cmp)
{
  const auto columns = columns_of(cmp);
  const bool series = std::any_of(columns.begin(), columns.end(), [](const Column& c) { return !c.result->timeline.empty(); });
  std::string out;
  if (series) {
    out += "design,engine,t_s,nodes,cost_per_hour,cost_cumulative_usd,pending,cpu_requested_millis,"
           "cpu_allocatable_millis,memory_requested_bytes,memory_allocatable_bytes\n";
    for (const auto& c : columns) {
      for (const auto& t : c.result->timeline) {
        out += csv_field(c.design) + "," + csv_field(c.result->engine) + "," + seconds_text(t.t) + "," +
               std::to_string(t.nodes) + "," + fixed_number(t.cost_rate_per_hour, k_money_decimals) + "," +
               fixed_number(t.cost_cumulative, k_money_decimals) + "," + std::to_string(t.pending) + "," +
               std::to_string(t.cpu_requested_m) + "," + std::to_string(t.cpu_allocatable_m) + "," +
               std::to_string(t.memory_requested) + "," + std::to_string(t.memory_allocatable) + "\n";
      }
    }
    return out;
  }
  const auto rows = summary_rows(columns);
  out += "design,engine";
  for (const auto& row : rows) {
    out += "," + csv_field(row.key);
  }
  out += "\n";
  for (std::size_t c = 0; c < columns.size(); ++c) {
    out += csv_field(columns[c].design) + "," + csv_field(columns[c].result->engine);
    for (const auto& row : rows) {
      out += "," + fixed_number(row.values[c], decimals_for(row.kind));
    }
    out += "\n";
  }
  return out;
}

std::optional<Format> parse_format(std::string_view name)
{
  if (name == "table") {
    return Format::table;
  }
  if (name == "json") {
    return Format::json;
  }
  if (name == "csv") {
    return Format::csv;
  }
  if (name == "markdown" || name == "md") {
    return Format::markdown;
  }
  if (name == "html") {
    return Format::html;
  }
  return std::nullopt;
}

std::string format_name(Format format)
{
  switch (format) {
  case Format::table: return "table";
  case Format::json: return "json";
  case Format::csv: return "csv";
  case Format::markdown: return "markdown";
  case Format::html: return "html";
  }
  return "table";
}

std::string render(const Comparison& cmp, Format format, const RenderOptions& options)
{
  switch (format) {
  case Format::table: return render_table(cmp, options);
  case Format::json: return render_json(cmp);
  case Format::csv: return render_csv(cmp);
  case Format::markdown: return render_markdown(cmp, options);
  case Format::html: return render_html(cmp, options);
  }
  return render_table(cmp, options);
}

std::string render(const RunResult& run, Format format, const RenderOptions& options)
{
  if (format == Format::json) {
    return render_json(run);
  }
  return render(as_comparison(run), format, options);
}

} // namespace capsim::report
