#include "core/sweep/render.hpp"

#include "core/report/format.hpp"
#include "core/sweep/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

namespace capsim::sweep {

namespace {

using report::fixed_number;

enum class Kind { money, hours, seconds, count };

// The five metrics every summary row reports, in column order.
struct Metric
{
  const char* key;   // JSON/CSV
  const char* label; // people
  Kind kind;
  Estimate VariantSummary::*field;
};

constexpr std::array<Metric, 5> k_metrics = {{
  {"total_usd", "cost", Kind::money, &VariantSummary::total_usd},
  {"node_hours", "node-hours", Kind::hours, &VariantSummary::node_hours},
  {"pending_p95_s", "pending p95", Kind::seconds, &VariantSummary::pending_p95_s},
  {"unschedulable", "unschedulable", Kind::count, &VariantSummary::unschedulable},
  {"spot_interruptions", "spot interruptions", Kind::count, &VariantSummary::spot_interruptions},
}};

int machine_decimals(Kind kind)
{
  switch (kind) {
  case Kind::money: return report::k_money_decimals;
  case Kind::hours: return report::k_count_decimals;
  case Kind::seconds: return report::k_seconds_decimals;
  case Kind::count: return report::k_count_decimals;
  }
  return report::k_count_decimals;
}

std::string machine(double v, Kind kind)
{
  return fixed_number(v, machine_decimals(kind));
}

std::string human(double v, Kind kind, int money_places)
{
  switch (kind) {
  case Kind::money: return report::human_money(v, money_places);
  case Kind::hours: return report::human_count(v, 1);
  case Kind::seconds: return report::human_seconds(v);
  case Kind::count: return report::human_count(v, 1);
  }
  return report::human_count(v, 1);
}

// "mean ± half-width" for people; just the mean with one seed.
std::string human_estimate(const Estimate& e, Kind kind, int money_places)
{
  std::string out = human(e.mean, kind, money_places);
  if (e.half_width) {
    out += " ± " + human(*e.half_width, kind, money_places);
  }
  return out;
}

// Money places that keep the cost column aligned.
int cost_places(const SweepReport& r)
{
  std::vector<double> values;
  for (const auto& s : r.summary) {
    values.push_back(s.total_usd.mean);
  }
  return report::money_decimals(values);
}

std::string quote(std::string_view text)
{
  return "\"" + report::json_escape(text) + "\"";
}

// The scenario's name (metadata.name of the first run), else the file.
std::string scenario_name(const SweepReport& r)
{
  return r.cells.empty() || r.cells.front().scenario.empty() ? r.spec.scenario_file : r.cells.front().scenario;
}

// "4 variants × 3 seeds = 12 runs; seeds 42..44".
std::string grid_line(const SweepReport& r)
{
  const std::size_t v = r.variants.size();
  const std::size_t s = r.spec.seeds;
  std::string out = fmt::format("{} variant{} × {} seed{} = {} run{}", v, v == 1 ? "" : "s", s, s == 1 ? "" : "s",
                                v * s, v * s == 1 ? "" : "s");
  if (r.cells.size() != v * s || r.cells.empty()) {
    return out;
  }
  bool same = true;
  for (std::size_t i = 0; i < v; ++i) {
    same = same && r.cells[i * s].seed == r.cells.front().seed;
  }
  const std::uint64_t first = r.cells.front().seed;
  if (!same) {
    out += fmt::format("; seeds: each variant's spec.seed + 0..{}", s - 1);
  } else if (s == 1) {
    out += fmt::format("; seed {}", first);
  } else {
    out += fmt::format("; seeds {}..{}", first, first + (s - 1));
  }
  return out;
}

std::string interval_line(const SweepReport& r)
{
  if (r.spec.seeds < 2) {
    return "one seed per variant: single runs, no confidence intervals (add --seeds N)";
  }
  return fmt::format("mean ± half-width of the 95% confidence interval over the seeds (Student t, {} degrees of freedom)",
                     r.spec.seeds - 1);
}

constexpr const char* k_pareto_legend =
  "* = Pareto front: no other row has a mean cost and a mean pending p95 both at most as high, one of them lower";

// The text cells of the summary table: header, then one row per summary line.
std::vector<std::vector<std::string>> table_cells(const SweepReport& r)
{
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"#"};
  for (const auto& a : r.spec.axes) {
    header.push_back(a.name);
  }
  header.emplace_back("engine");
  for (const auto& m : k_metrics) {
    header.emplace_back(m.label);
  }
  header.emplace_back("pareto");
  rows.push_back(header);
  const int places = cost_places(r);
  for (const auto& s : r.summary) {
    const auto& v = r.variants[s.variant];
    std::vector<std::string> row{std::to_string(s.variant)};
    for (std::size_t a = 0; a < r.spec.axes.size(); ++a) {
      row.push_back(value_label(r.spec.axes[a].values[v.choice[a]]));
    }
    row.push_back(s.engine);
    for (const auto& m : k_metrics) {
      row.push_back(human_estimate(s.*m.field, m.kind, places));
    }
    row.emplace_back(s.pareto ? "*" : "");
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---- HTML scatter chart ----

constexpr std::array<const char*, 6> k_palette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
constexpr double k_width = 760;
constexpr double k_height = 420;
constexpr double k_left = 84;
constexpr double k_right = 30;
constexpr double k_top = 34;
constexpr double k_bottom = 52;

std::string px(double v)
{
  return fixed_number(v, 1);
}

// 1, 2 or 5 times a power of ten, >= raw.
double nice_step(double raw)
{
  if (!(raw > 0) || !std::isfinite(raw)) {
    return 1;
  }
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw * (1 - 1e-12)) {
      return m * p;
    }
  }
  return 10 * p;
}

// An axis range [lo, hi] on whole steps that covers [min, max] (a flat range is widened).
struct Range
{
  double lo = 0;
  double hi = 1;
  double step = 1;
};

Range nice_range(double min, double max, bool from_zero)
{
  if (from_zero) {
    min = std::min(min, 0.0);
  }
  if (!(max > min)) {
    const double pad = std::abs(max) > 0 ? std::abs(max) * 0.1 : 1.0;
    min -= from_zero ? 0 : pad;
    max += pad;
    min = from_zero ? std::max(min, 0.0) : min;
  }
  Range r;
  r.step = nice_step((max - min) / 6.0);
  r.lo = std::floor(min / r.step + 1e-9) * r.step;
  r.hi = std::ceil(max / r.step - 1e-9) * r.step;
  if (r.hi <= r.lo) {
    r.hi = r.lo + r.step;
  }
  return r;
}

std::string money_tick(double v, double step)
{
  const int places = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return "$" + report::human_count(v, std::min(places, 6));
}

std::string seconds_tick(double v)
{
  return report::human_seconds(v);
}

// Marker of an engine: circle, square, diamond, ... by the engine's position in the report.
std::string marker(std::size_t shape, double x, double y, double r, const std::string& attrs)
{
  switch (shape % 3) {
  case 0: return fmt::format(R"(<circle cx="{}" cy="{}" r="{}" {}/>)", px(x), px(y), px(r), attrs);
  case 1:
    return fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" {}/>)", px(x - r), px(y - r), px(2 * r),
                       px(2 * r), attrs);
  default:
    return fmt::format(R"(<polygon points="{},{} {},{} {},{} {},{}" {}/>)", px(x), px(y - r * 1.3), px(x + r * 1.3),
                       px(y), px(x), px(y + r * 1.3), px(x - r * 1.3), px(y), attrs);
  }
}

std::string scatter_chart(const SweepReport& r, const std::vector<std::string>& engines)
{
  std::string out = fmt::format(
    R"(<svg id="chart-pareto" class="chart" role="img" viewBox="0 0 {} {}" width="{}" height="{}">)", px(k_width),
    px(k_height), px(k_width), px(k_height));
  out += "<title>Mean cost vs mean pending p95 per variant and engine; Pareto front highlighted</title>";
  if (r.summary.empty()) {
    return out + fmt::format(R"(<text x="{}" y="{}" class="empty">no results</text></svg>)", px(k_width / 2),
                             px(k_height / 2));
  }
  double x_min = std::numeric_limits<double>::infinity();
  double x_max = -std::numeric_limits<double>::infinity();
  double y_max = 0;
  for (const auto& s : r.summary) {
    x_min = std::min(x_min, s.total_usd.low());
    x_max = std::max(x_max, s.total_usd.high());
    y_max = std::max(y_max, s.pending_p95_s.high());
  }
  const Range xr = nice_range(x_min, x_max, false);
  const Range yr = nice_range(0, y_max * 1.05, true); // headroom so top points are not on the edge
  const double plot_w = k_width - k_left - k_right;
  const double plot_h = k_height - k_top - k_bottom;
  const auto sx = [&](double x) { return k_left + (x - xr.lo) / (xr.hi - xr.lo) * plot_w; };
  const auto sy = [&](double y) { return k_top + plot_h - (y - yr.lo) / (yr.hi - yr.lo) * plot_h; };

  out += R"(<g class="grid">)";
  for (double y = yr.lo; y <= yr.hi + yr.step * 1e-9; y += yr.step) {
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(k_left), px(sy(y)), px(k_width - k_right),
                       px(sy(y)));
    out += fmt::format(R"(<text x="{}" y="{}" class="ylabel">{}</text>)", px(k_left - 6), px(sy(y) + 4),
                       report::html_escape(seconds_tick(y)));
  }
  for (double x = xr.lo; x <= xr.hi + xr.step * 1e-9; x += xr.step) {
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(sx(x)), px(k_top), px(sx(x)),
                       px(k_top + plot_h + 4));
    out += fmt::format(R"(<text x="{}" y="{}" class="xlabel">{}</text>)", px(sx(x)), px(k_top + plot_h + 18),
                       report::html_escape(money_tick(x, xr.step)));
  }
  out += "</g>";
  out += fmt::format(R"(<text x="{}" y="{}" class="xtitle">mean total cost (USD)</text>)", px(k_left + plot_w / 2),
                     px(k_height - 8));
  out += fmt::format(R"svg(<text x="14" y="{}" class="ytitle" transform="rotate(-90 14 {})">mean pending p95</text>)svg",
                     px(k_top + plot_h / 2), px(k_top + plot_h / 2));

  // The Pareto front as a staircase through its points, cheapest first.
  std::vector<const VariantSummary*> front;
  for (const auto& s : r.summary) {
    if (s.pareto) {
      front.push_back(&s);
    }
  }
  std::sort(front.begin(), front.end(), [](const VariantSummary* a, const VariantSummary* b) {
    if (a->total_usd.mean != b->total_usd.mean) {
      return a->total_usd.mean < b->total_usd.mean;
    }
    if (a->pending_p95_s.mean != b->pending_p95_s.mean) {
      return a->pending_p95_s.mean < b->pending_p95_s.mean;
    }
    return a->variant != b->variant ? a->variant < b->variant : a->engine < b->engine;
  });
  std::string stairs;
  for (std::size_t i = 0; i < front.size(); ++i) {
    const double x = sx(front[i]->total_usd.mean);
    const double y = sy(front[i]->pending_p95_s.mean);
    if (i > 0) {
      stairs += " " + px(x) + "," + px(sy(front[i - 1]->pending_p95_s.mean));
    }
    stairs += (stairs.empty() ? "" : " ") + px(x) + "," + px(y);
  }
  out += fmt::format(R"(<polyline class="front" fill="none" points="{}"/>)", stairs);

  const int places = cost_places(r);
  // Points that land on the same spot share one label: "1, 3".
  std::map<std::pair<std::string, std::string>, std::string> labels;
  for (const auto& s : r.summary) {
    auto& label = labels[{px(sx(s.total_usd.mean)), px(sy(s.pending_p95_s.mean))}];
    label += (label.empty() ? "" : ", ") + std::to_string(s.variant);
  }
  // Non-Pareto points first, so the highlighted ones are drawn on top.
  for (const bool on_front : {false, true}) {
    for (const auto& s : r.summary) {
      if (s.pareto != on_front) {
        continue;
      }
      const std::size_t e = static_cast<std::size_t>(
        std::find(engines.begin(), engines.end(), s.engine) - engines.begin());
      const std::string color = k_palette[e % k_palette.size()];
      const double x = sx(s.total_usd.mean);
      const double y = sy(s.pending_p95_s.mean);
      out += fmt::format(R"(<g class="point{}" data-variant="{}" data-engine="{}">)", on_front ? " pareto" : "",
                         s.variant, report::html_escape(s.engine));
      out += "<title>" + report::html_escape(fmt::format("#{} {} · {}: cost {}, pending p95 {}{}", s.variant,
                                                         r.variants[s.variant].name, s.engine,
                                                         human_estimate(s.total_usd, Kind::money, places),
                                                         human_estimate(s.pending_p95_s, Kind::seconds, places),
                                                         on_front ? " (Pareto front)" : ""))
             + "</title>";
      if (s.total_usd.half_width) {
        out += fmt::format(R"(<line class="whisker" stroke="{}" x1="{}" y1="{}" x2="{}" y2="{}"/>)", color,
                           px(sx(s.total_usd.low())), px(y), px(sx(s.total_usd.high())), px(y));
      }
      if (s.pending_p95_s.half_width) {
        out += fmt::format(R"(<line class="whisker" stroke="{}" x1="{}" y1="{}" x2="{}" y2="{}"/>)", color, px(x),
                           px(sy(s.pending_p95_s.low())), px(x), px(sy(s.pending_p95_s.high())));
      }
      out += marker(e, x, y, on_front ? 6.5 : 4.5,
                    on_front ? fmt::format(R"(fill="{}" stroke="#111" stroke-width="2")", color)
                             : fmt::format(R"(fill="#fff" stroke="{}" stroke-width="1.5")", color));
      const auto label = labels.find({px(x), px(y)});
      if (label != labels.end()) {
        out += fmt::format(R"(<text x="{}" y="{}" class="plabel">{}</text>)", px(x + 8), px(y - 7), label->second);
        labels.erase(label); // once per spot
      }
      out += "</g>";
    }
  }
  // Legend: engines, then the front.
  double lx = k_left;
  for (std::size_t e = 0; e < engines.size(); ++e) {
    out += marker(e, lx + 5, k_top - 16, 4.5,
                  fmt::format(R"(fill="{}" stroke="{}")", k_palette[e % k_palette.size()], k_palette[e % k_palette.size()]));
    out += fmt::format(R"(<text x="{}" y="{}" class="legend">{}</text>)", px(lx + 14), px(k_top - 12),
                       report::html_escape(engines[e]));
    lx += 26 + 7.0 * static_cast<double>(engines[e].size());
  }
  out += fmt::format(R"(<line class="front" x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(lx), px(k_top - 16), px(lx + 22),
                     px(k_top - 16));
  out += fmt::format(R"(<text x="{}" y="{}" class="legend">Pareto front (filled points)</text>)", px(lx + 28),
                     px(k_top - 12));
  return out + "</svg>";
}

constexpr const char* k_style = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:1.4em;margin-bottom:4px}h2{font-size:1.15em;margin-top:28px;border-bottom:1px solid #ddd}
.meta{color:#666;margin:2px 0}
table{border-collapse:collapse;font-size:0.92em}td,th{padding:3px 10px;border-bottom:1px solid #eee}
th{text-align:right;background:#f6f6f6}td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.text,th.text{text-align:left}tr.pareto td{font-weight:bold;background:#f3f8ff}
svg.chart{display:block;margin:8px 0;background:#fff;border:1px solid #eee}
.grid line{stroke:#e6e6e6}.front{stroke:#111;stroke-width:1.2;stroke-dasharray:5 4;fill:none}
.whisker{stroke-width:1.2;opacity:0.55}
.ylabel{font-size:11px;text-anchor:end;fill:#555}.xlabel{font-size:11px;text-anchor:middle;fill:#555}
.xtitle,.ytitle{font-size:12px;text-anchor:middle;fill:#333}.plabel{font-size:10px;fill:#555}
.legend{font-size:12px;fill:#333}.empty{font-size:13px;text-anchor:middle;fill:#999}
details{margin:8px 0}
)";

// Engines in order of first appearance in the summary.
std::vector<std::string> engines_of(const SweepReport& r)
{
  std::vector<std::string> out;
  for (const auto& s : r.summary) {
    if (std::find(out.begin(), out.end(), s.engine) == out.end()) {
      out.push_back(s.engine);
    }
  }
  return out;
}

} // namespace

std::string render_table(const SweepReport& r)
{
  const auto rows = table_cells(r);
  const std::size_t axes = r.spec.axes.size();
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], report::display_width(row[c]));
    }
  }
  // Text columns (axes, engine) align left; numbers right.
  const auto left = [&](std::size_t c) { return c >= 1 && c <= axes + 1; };
  std::string out = "capsim sweep: " + scenario_name(r) + " (" + r.spec.scenario_file + ")\n";
  out += grid_line(r) + "\n" + interval_line(r) + "\n\n";
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - report::display_width(row[c]), ' ');
      line += (c > 0 ? "  " : "") + (left(c) ? row[c] + pad : pad + row[c]);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  out += "\n" + std::string(k_pareto_legend) + "\n";
  return out;
}

std::string render_markdown(const SweepReport& r)
{
  const auto rows = table_cells(r);
  const std::size_t axes = r.spec.axes.size();
  std::string out = "### capsim sweep: " + report::markdown_escape(scenario_name(r)) + "\n\n";
  out += report::markdown_escape(grid_line(r)) + ".  \n" + report::markdown_escape(interval_line(r)) + ".\n\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string line = "|";
    for (const auto& cell : rows[i]) {
      line += " " + report::markdown_escape(cell) + " |";
    }
    out += line + "\n";
    if (i == 0) {
      line = "|";
      for (std::size_t c = 0; c < rows[i].size(); ++c) {
        line += (c >= 1 && c <= axes + 1) ? " --- |" : " ---: |";
      }
      out += line + "\n";
    }
  }
  out += "\n" + report::markdown_escape(k_pareto_legend) + "\n";
  return out;
}

std::string render_json(const SweepReport& r)
{
  std::string out = "{\n";
  out += "  \"capsim\": {\"version\": " + quote(r.version) + "},\n";
  out += "  \"kind\": \"capsim-sweep\",\n";
  out += "  \"sweep\": " + render_spec_json(r.spec, 2) + ",\n";
  out += "  \"variants\": [\n";
  for (std::size_t i = 0; i < r.variants.size(); ++i) {
    const auto& v = r.variants[i];
    std::string values;
    for (std::size_t a = 0; a < r.spec.axes.size(); ++a) {
      values += (a > 0 ? ", " : "") + quote(r.spec.axes[a].name) + ": " + quote(r.spec.axes[a].values[v.choice[a]]);
    }
    std::string sets;
    for (std::size_t k = 0; k < v.sets.size(); ++k) {
      sets += (k > 0 ? ", " : "") + quote(v.sets[k]);
    }
    out += "    {\"variant\": " + std::to_string(i) + ", \"name\": " + quote(v.name) + ", \"values\": {" + values
           + "}, \"sets\": [" + sets + "]}" + (i + 1 < r.variants.size() ? ",\n" : "\n");
  }
  out += "  ],\n";
  out += r.summary.empty() ? "  \"summary\": [],\n" : "  \"summary\": [\n";
  for (std::size_t i = 0; i < r.summary.size(); ++i) {
    const auto& s = r.summary[i];
    std::string line = "{\"variant\": " + std::to_string(s.variant) + ", \"name\": " + quote(r.variants[s.variant].name)
                       + ", \"engine\": " + quote(s.engine) + ", \"runs\": " + std::to_string(s.total_usd.n)
                       + ", \"pareto\": " + (s.pareto ? "true" : "false");
    for (const auto& m : k_metrics) {
      const Estimate& e = s.*m.field;
      line += std::string(", \"") + m.key + "\": {\"mean\": " + machine(e.mean, m.kind)
              + ", \"stddev\": " + machine(e.stddev, m.kind)
              + ", \"ci95_low\": " + (e.half_width ? machine(e.low(), m.kind) : "null")
              + ", \"ci95_high\": " + (e.half_width ? machine(e.high(), m.kind) : "null") + "}";
    }
    out += "    " + line + "}" + (i + 1 < r.summary.size() ? ",\n" : "\n");
  }
  if (!r.summary.empty()) {
    out += "  ],\n";
  }
  out += r.cells.empty() ? "  \"cells\": []\n" : "  \"cells\": [\n";
  for (std::size_t i = 0; i < r.cells.size(); ++i) {
    out += "    " + render_cell_json(r.cells[i]) + (i + 1 < r.cells.size() ? ",\n" : "\n");
  }
  if (!r.cells.empty()) {
    out += "  ]\n";
  }
  return out + "}\n";
}

std::string render_csv(const SweepReport& r)
{
  std::string out = "variant,name";
  for (const auto& a : r.spec.axes) {
    out += "," + report::csv_field("vary:" + a.name);
  }
  out += ",engine,runs";
  for (const auto& m : k_metrics) {
    for (const char* suffix : {"_mean", "_stddev", "_ci95_low", "_ci95_high"}) {
      out += std::string(",") + m.key + suffix;
    }
  }
  out += ",pareto\n";
  for (const auto& s : r.summary) {
    const auto& v = r.variants[s.variant];
    out += std::to_string(s.variant) + "," + report::csv_field(v.name);
    for (std::size_t a = 0; a < r.spec.axes.size(); ++a) {
      out += "," + report::csv_field(r.spec.axes[a].values[v.choice[a]]);
    }
    out += "," + report::csv_field(s.engine) + "," + std::to_string(s.total_usd.n);
    for (const auto& m : k_metrics) {
      const Estimate& e = s.*m.field;
      out += "," + machine(e.mean, m.kind) + "," + machine(e.stddev, m.kind) + ","
             + (e.half_width ? machine(e.low(), m.kind) : "") + "," + (e.half_width ? machine(e.high(), m.kind) : "");
    }
    out += std::string(",") + (s.pareto ? "true" : "false") + "\n";
  }
  return out;
}

std::string render_html(const SweepReport& r)
{
  const std::string title = "capsim sweep: " + scenario_name(r);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
                    + report::html_escape(title) + "</title>\n<style>" + k_style + "</style>\n</head>\n<body>\n";
  out += "<h1>" + report::html_escape(title) + "</h1>\n";
  out += "<p class=\"meta\">" + report::html_escape(r.spec.scenario_file + " · " + grid_line(r) + " · capsim " + r.version)
         + "</p>\n";
  out += "<p class=\"meta\">" + report::html_escape(interval_line(r)) + "</p>\n";
  out += "<h2>Cost vs pending p95</h2>\n" + scatter_chart(r, engines_of(r)) + "\n";
  out += "<p class=\"meta\">Each point is a variant (its # label) on one engine; whiskers span the 95% confidence "
         "intervals; filled points are on the Pareto front.</p>\n";

  const auto rows = table_cells(r);
  const std::size_t axes = r.spec.axes.size();
  out += "<h2>Summary</h2>\n<table id=\"summary\"><thead><tr>";
  for (std::size_t c = 0; c < rows.front().size(); ++c) {
    out += (c >= 1 && c <= axes + 1 ? "<th class=\"text\">" : "<th>") + report::html_escape(rows.front()[c]) + "</th>";
  }
  out += "</tr></thead><tbody>\n";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    out += r.summary[i - 1].pareto ? "<tr class=\"pareto\">" : "<tr>";
    for (std::size_t c = 0; c < rows[i].size(); ++c) {
      out += (c >= 1 && c <= axes + 1 ? "<td class=\"text\">" : "<td>") + report::html_escape(rows[i][c]) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n<p class=\"meta\">" + report::html_escape(k_pareto_legend) + "</p>\n";

  // Raw cells.
  out += "<details><summary>Every run (" + std::to_string(r.cells.size()) + ")</summary>\n";
  out += "<table id=\"cells\"><thead><tr><th>cell</th><th>#</th><th>seed</th><th class=\"text\">engine</th><th>cost</th>"
         "<th>node-hours</th><th>pending p95</th><th>unschedulable</th><th>spot interruptions</th></tr></thead><tbody>\n";
  const int places = cost_places(r);
  for (const auto& c : r.cells) {
    for (const auto& m : c.engines) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td>"
                         "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
                         c.cell, c.variant, c.seed, report::html_escape(m.engine),
                         report::html_escape(report::human_money(m.total_usd, places)),
                         report::human_count(m.node_hours, 1), report::html_escape(report::human_seconds(m.pending_p95_s)),
                         m.unschedulable, m.spot_interruptions);
    }
  }
  out += "</tbody></table>\n</details>\n</body>\n</html>\n";
  return out;
}

std::string render(const SweepReport& r, report::Format format)
{
  switch (format) {
  case report::Format::table: return render_table(r);
  case report::Format::markdown: return render_markdown(r);
  case report::Format::json: return render_json(r);
  case report::Format::csv: return render_csv(r);
  case report::Format::html: return render_html(r);
  }
  return render_json(r);
}

} // namespace capsim::sweep
