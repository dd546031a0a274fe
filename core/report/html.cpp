// Self-contained HTML report with inline SVG charts (render.hpp).
#include "core/report/format.hpp"
#include "core/report/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace capsim::report {

namespace {

constexpr std::array<const char*, 10> k_palette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                                   "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
constexpr const char* k_other_color = "#c7c7c7";

constexpr double k_width = 760;
constexpr double k_height = 260;
constexpr double k_left = 70;
constexpr double k_right = 34;
constexpr double k_top = 30;
constexpr double k_bottom = 40;

// Coordinates in the SVG: one decimal, locale-independent.
std::string px(double v)
{
  return fixed_number(v, 1);
}

// 1, 2 or 5 times a power of ten, >= raw.
double nice_step(double raw)
{
  if (!(raw > 0)) {
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

enum class Axis { count, money, ratio };

std::string axis_label(double v, Axis axis)
{
  switch (axis) {
  case Axis::count: return fixed_number(v, 2);
  case Axis::money: return "$" + fixed_number(v, 4);
  case Axis::ratio: return fixed_number(v * 100, 1) + "%";
  }
  return fixed_number(v, 2);
}

struct Series
{
  std::string label;
  std::string color;
  bool dashed = false;
  bool steps = false; // hold each sample until the next (counts, rates); else straight lines
  std::vector<std::pair<double, double>> points; // (seconds, value)
};

// A line chart with axes, grid, legend and an accessible <title>.
std::string line_chart(const std::string& id, const std::string& title, const std::vector<Series>& series,
                       double x_max_s, Axis axis)
{
  std::string out = fmt::format(R"(<svg id="{}" class="chart" role="img" viewBox="0 0 {} {}" width="{}" height="{}">)",
                                id, px(k_width), px(k_height), px(k_width), px(k_height));
  out += "<title>" + html_escape(title) + "</title>";
  bool any = false;
  double y_max = 0;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) {
      any = true;
      y_max = std::max(y_max, std::isfinite(y) ? y : 0.0);
    }
  }
  if (!any || !(x_max_s > 0)) {
    out += fmt::format(R"(<text x="{}" y="{}" class="empty">no timeline data (run with --timeline STEP)</text></svg>)",
                       px(k_width / 2), px(k_height / 2));
    return out;
  }
  if (axis == Axis::ratio) {
    y_max = std::max(y_max, 1.0);
  }
  const double y_step = nice_step((y_max > 0 ? y_max : 1.0) / 5.0);
  const double y_top = std::max(y_step, std::ceil(y_max / y_step - 1e-9) * y_step);
  const double plot_w = k_width - k_left - k_right;
  const double plot_h = k_height - k_top - k_bottom;
  const auto sx = [&](double x) { return k_left + x / x_max_s * plot_w; };
  const auto sy = [&](double y) { return k_top + plot_h - (std::isfinite(y) ? y : 0.0) / y_top * plot_h; };
  // Y grid and labels.
  out += R"(<g class="grid">)";
  for (double y = 0; y <= y_top + y_step * 1e-9; y += y_step) {
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(k_left), px(sy(y)), px(k_width - k_right), px(sy(y)));
    out += fmt::format(R"(<text x="{}" y="{}" class="ylabel">{}</text>)", px(k_left - 6), px(sy(y) + 4),
                       html_escape(axis_label(y, axis)));
  }
  // X ticks in a readable unit.
  double unit = 60;
  std::string unit_name = "min";
  if (x_max_s > 3 * 86400.0) {
    unit = 86400;
    unit_name = "d";
  } else if (x_max_s > 2 * 3600.0) {
    unit = 3600;
    unit_name = "h";
  }
  const double x_step = nice_step(x_max_s / unit / 8.0) * unit;
  for (double x = 0; x <= x_max_s + x_step * 1e-9; x += x_step) {
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(sx(x)), px(k_top + plot_h), px(sx(x)),
                       px(k_top + plot_h + 4));
    out += fmt::format(R"(<text x="{}" y="{}" class="xlabel">{}{}</text>)", px(sx(x)), px(k_top + plot_h + 18),
                       fixed_number(x / unit, 2), unit_name);
  }
  out += "</g>";
  out += fmt::format(R"(<line class="axis" x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(k_left), px(k_top + plot_h),
                     px(k_width - k_right), px(k_top + plot_h));
  // Series.
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    std::string points;
    for (std::size_t p = 0; p < s.points.size(); ++p) {
      const auto [x, y] = s.points[p];
      if (s.steps && p > 0) {
        points += " " + px(sx(x)) + "," + px(sy(s.points[p - 1].second));
      }
      points += (points.empty() ? "" : " ") + px(sx(x)) + "," + px(sy(y));
    }
    out += fmt::format(R"(<polyline class="series" data-series="{}" fill="none" stroke="{}" stroke-width="1.8"{} points="{}"><title>{}</title></polyline>)",
                       i, s.color, s.dashed ? R"( stroke-dasharray="6 4")" : "", points, html_escape(s.label));
  }
  // Legend along the top.
  double lx = k_left;
  for (const auto& s : series) {
    out += fmt::format(R"(<line x1="{}" y1="12" x2="{}" y2="12" stroke="{}" stroke-width="3"{}/>)", px(lx), px(lx + 18),
                       s.color, s.dashed ? R"( stroke-dasharray="6 4")" : "");
    out += fmt::format(R"(<text x="{}" y="16" class="legend">{}</text>)", px(lx + 22), html_escape(s.label));
    lx += 34 + 7.0 * static_cast<double>(display_width(s.label));
  }
  out += "</svg>";
  return out;
}

double seconds(SimTime t)
{
  return static_cast<double>(t) / 1000.0;
}

// Node-hours (or, without a timeline, final node counts) per instance type of one column.
std::map<std::string, double> type_weights(const EngineResult& r)
{
  std::map<std::string, double> w;
  if (!r.timeline.empty()) {
    for (std::size_t i = 0; i < r.timeline.size(); ++i) {
      const Duration step = i + 1 < r.timeline.size() ? r.timeline[i + 1].t - r.timeline[i].t
                            : i > 0                   ? r.timeline[i].t - r.timeline[i - 1].t
                                                      : k_hour;
      for (const auto& [type, count] : r.timeline[i].nodes_by_type) {
        w[type] += static_cast<double>(count) * static_cast<double>(step) / static_cast<double>(k_hour);
      }
    }
  } else {
    for (const auto& n : r.final_nodes) {
      w[n.instance_type] += 1;
    }
  }
  return w;
}

std::string mix_chart(const std::vector<Column>& columns)
{
  // Types by total weight (descending, then name); the first 9 get colors, the rest "other".
  std::map<std::string, double> total;
  std::vector<std::map<std::string, double>> weights;
  for (const auto& c : columns) {
    weights.push_back(type_weights(*c.result));
    for (const auto& [type, v] : weights.back()) {
      total[type] += v;
    }
  }
  std::vector<std::pair<std::string, double>> order(total.begin(), total.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::map<std::string, std::string> color;
  for (std::size_t i = 0; i < order.size(); ++i) {
    color[order[i].first] = i < 9 ? k_palette[i] : k_other_color;
  }
  const double bar_h = 22;
  const double label_w = 170;
  const double legend_rows = std::ceil(static_cast<double>(std::min<std::size_t>(order.size(), 10)) / 4.0);
  const double height = 20 + static_cast<double>(columns.size()) * (bar_h + 10) + 10 + legend_rows * 18 + 10;
  std::string out = fmt::format(R"(<svg id="chart-instance-mix" class="chart" role="img" viewBox="0 0 {} {}" width="{}" height="{}">)",
                                px(k_width), px(height), px(k_width), px(height));
  out += "<title>Instance-type mix (node-hours by instance type)</title>";
  if (order.empty()) {
    out += fmt::format(R"(<text x="{}" y="{}" class="empty">no nodes</text></svg>)", px(k_width / 2), px(height / 2));
    return out;
  }
  double y = 20;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    out += fmt::format(R"(<text x="{}" y="{}" class="barlabel">{}</text>)", px(label_w - 8), px(y + 15),
                       html_escape(columns[c].label));
    double sum = 0;
    for (const auto& [type, v] : weights[c]) {
      sum += v;
    }
    double x = label_w;
    const double span = k_width - label_w - k_right;
    for (const auto& [type, unused] : order) {
      const auto it = weights[c].find(type);
      if (it == weights[c].end() || sum <= 0) {
        continue;
      }
      const double w = it->second / sum * span;
      out += fmt::format(R"(<rect class="mix" x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {} ({})</title></rect>)",
                         px(x), px(y), px(w), px(bar_h), color[type], html_escape(type), fixed_number(it->second, 2),
                         human_percent(it->second / sum));
      x += w;
    }
    y += bar_h + 10;
  }
  y += 10;
  for (std::size_t i = 0; i < order.size() && i < 10; ++i) {
    const bool other = i == 9;
    const double lx = label_w + static_cast<double>(i % 4) * 145;
    const double ly = y + static_cast<double>(i / 4) * 18;
    out += fmt::format(R"(<rect x="{}" y="{}" width="12" height="12" fill="{}"/>)", px(lx), px(ly), other ? k_other_color : k_palette[i]);
    out += fmt::format(R"(<text x="{}" y="{}" class="legend">{}</text>)", px(lx + 16), px(ly + 10),
                       other ? std::string("other") : html_escape(order[i].first));
  }
  out += "</svg>";
  return out;
}

constexpr const char* k_style = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:1.4em;margin-bottom:4px}h2{font-size:1.15em;margin-top:28px;border-bottom:1px solid #ddd}
.meta{color:#666}
table{border-collapse:collapse;font-size:0.92em}td,th{padding:3px 10px;border-bottom:1px solid #eee}
th{text-align:right;background:#f6f6f6}th:first-child,td:first-child{text-align:left}
td{text-align:right;font-variant-numeric:tabular-nums}
tr.section td{font-weight:bold;background:#fafafa;text-align:left}
.delta{font-size:0.85em;margin-left:6px;color:#666}.worse{color:#c62828;font-weight:bold}.better{color:#2e7d32}
svg.chart{display:block;margin:8px 0;background:#fff;border:1px solid #eee}
.grid line{stroke:#e6e6e6}.axis{stroke:#888}
.ylabel{font-size:11px;text-anchor:end;fill:#555}.xlabel{font-size:11px;text-anchor:middle;fill:#555}
.legend{font-size:12px;fill:#333}.barlabel{font-size:12px;text-anchor:end;fill:#333}
.empty{font-size:13px;text-anchor:middle;fill:#999}
.warning{color:#a15c00}
details{margin:8px 0}
)";

std::string summary_table(const std::vector<Column>& columns, const RenderOptions& options)
{
  const auto rows = summary_rows(columns);
  const bool deltas = options.deltas && columns.size() > 1;
  std::string out = R"(<table id="summary"><thead><tr><th>metric</th>)";
  for (const auto& c : columns) {
    out += "<th>" + html_escape(c.label) + "</th>";
  }
  out += "</tr></thead><tbody>";
  std::string section;
  for (const auto& row : rows) {
    if (row.section != section) {
      section = row.section;
      out += fmt::format(R"(<tr class="section"><td colspan="{}">{}</td></tr>)", columns.size() + 1, html_escape(section));
    }
    out += "<tr><td>" + html_escape(row.label) + "</td>";
    const int places = money_decimals(row.values);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out += "<td>" + html_escape(human_value(row.values[c], row.kind, places));
      if (deltas && columns[c].baseline) {
        const auto d = compute_delta(row.values[*columns[c].baseline], row.values[c], row.kind, row.better);
        if (d.sign != 0) {
          out += fmt::format(R"(<span class="delta{}">{}</span>)", d.worse ? " worse" : d.better ? " better" : "",
                             html_escape(human_delta(d, row.kind, places)));
        }
      }
      out += "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table>";
  if (deltas) {
    out += "<p class=\"meta\">Deltas are against " + html_escape(columns[0].design) + ".</p>";
  }
  return out;
}

constexpr std::size_t k_max_listed = 1000; // rows per details table

} // namespace

std::string render_html(const Comparison& cmp, const RenderOptions& options)
{
  const auto columns = columns_of(cmp);
  std::string title = "capsim report";
  std::string meta;
  if (!cmp.designs.empty()) {
    const auto& first = cmp.designs.front().result;
    if (cmp.designs.size() == 1) {
      title += ": " + first.scenario;
    } else {
      title += ": compare";
      for (std::size_t i = 0; i < cmp.designs.size(); ++i) {
        title += (i == 0 ? " " : ", ") + cmp.designs[i].name;
      }
    }
    meta = fmt::format("seed {} · {} · {} · capsim {}", first.seed, first.region, human_duration(first.duration),
                       first.version.empty() ? std::string(CAPSIM_VERSION) : first.version);
  }
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
                    "content=\"width=device-width, initial-scale=1\">\n<title>" +
                    html_escape(title) + "</title>\n<style>" + k_style + "</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(title) + "</h1>\n<p class=\"meta\">" + html_escape(meta) + "</p>\n";
  out += "<h2>Summary</h2>\n" + summary_table(columns, options) + "\n";
  for (const auto& c : columns) {
    for (const auto& w : c.result->warnings) {
      out += "<p class=\"warning\">warning: " + html_escape(c.label) + ": " + html_escape(w) + "</p>\n";
    }
  }
  // Series per column (colors by column, memory dashed).
  double x_max = 0;
  std::vector<Series> nodes;
  std::vector<Series> rate;
  std::vector<Series> cumulative;
  std::vector<Series> pending;
  std::vector<Series> util;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto& r = *columns[c].result;
    const std::string color = k_palette[c % k_palette.size()];
    Series n{columns[c].label, color, false, true, {}};
    Series cr{columns[c].label, color, false, true, {}};
    Series cc{columns[c].label, color, false, false, {}};
    Series p{columns[c].label, color, false, true, {}};
    Series cpu{columns[c].label + " cpu", color, false, true, {}};
    Series mem{columns[c].label + " memory", color, true, true, {}};
    for (const auto& t : r.timeline) {
      const double x = seconds(t.t);
      x_max = std::max(x_max, x);
      n.points.emplace_back(x, static_cast<double>(t.nodes));
      cr.points.emplace_back(x, t.cost_rate_per_hour);
      cc.points.emplace_back(x, t.cost_cumulative);
      p.points.emplace_back(x, static_cast<double>(t.pending));
      cpu.points.emplace_back(x, t.cpu_allocatable_m > 0 ? static_cast<double>(t.cpu_requested_m) /
                                                               static_cast<double>(t.cpu_allocatable_m)
                                                         : 0.0);
      mem.points.emplace_back(x, t.memory_allocatable > 0 ? static_cast<double>(t.memory_requested) /
                                                                static_cast<double>(t.memory_allocatable)
                                                          : 0.0);
    }
    nodes.push_back(std::move(n));
    rate.push_back(std::move(cr));
    cumulative.push_back(std::move(cc));
    pending.push_back(std::move(p));
    util.push_back(std::move(cpu));
    util.push_back(std::move(mem));
  }
  out += "<h2>Nodes over time</h2>\n" + line_chart("chart-nodes", "Nodes over time", nodes, x_max, Axis::count) + "\n";
  out += "<h2>Cost</h2>\n<h3>Cost rate (USD/hour)</h3>\n" +
         line_chart("chart-cost-rate", "Cost rate in USD per hour", rate, x_max, Axis::money) + "\n";
  out += "<h3>Cumulative cost (USD)</h3>\n" +
         line_chart("chart-cost-cumulative", "Cumulative cost in USD", cumulative, x_max, Axis::money) + "\n";
  out += "<h2>Pending pods</h2>\n" + line_chart("chart-pending", "Pending pods", pending, x_max, Axis::count) + "\n";
  out += "<h2>Utilization (requested / allocatable)</h2>\n" +
         line_chart("chart-utilization", "CPU (solid) and memory (dashed) utilization", util, x_max, Axis::ratio) + "\n";
  out += "<h2>Instance-type mix</h2>\n" + mix_chart(columns) + "\n";
  for (const auto& c : columns) {
    const auto& nodes_list = c.result->final_nodes;
    out += "<details><summary>Final nodes: " + html_escape(c.label) + " (" + std::to_string(nodes_list.size()) +
           ")</summary>\n<table><thead><tr><th>name</th><th>instance type</th><th>zone</th><th>capacity "
           "type</th><th>pool</th><th>$/h</th><th>pods</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < nodes_list.size() && i < k_max_listed; ++i) {
      const auto& n = nodes_list[i];
      out += "<tr><td>" + html_escape(n.name) + "</td><td>" + html_escape(n.instance_type) + "</td><td>" +
             html_escape(n.zone) + "</td><td>" + html_escape(n.capacity_type) + "</td><td>" + html_escape(n.pool) +
             "</td><td>" + html_escape(human_money(n.price_per_hour)) + "</td><td>" + std::to_string(n.pods) + "</td></tr>";
    }
    out += "</tbody></table>";
    if (nodes_list.size() > k_max_listed) {
      out += "<p class=\"meta\">" + std::to_string(nodes_list.size() - k_max_listed) + " more not shown.</p>";
    }
    out += "</details>\n";
  }
  for (const auto& c : columns) {
    const auto& decisions = c.result->decisions;
    if (decisions.empty()) {
      continue;
    }
    out += "<details><summary>Decisions: " + html_escape(c.label) + " (" + std::to_string(decisions.size()) +
           ")</summary>\n<table><thead><tr><th>t</th><th>method</th><th>action</th><th>candidate</th><th>detail</th><th>"
           "saving/h</th></tr></thead><tbody>";
    for (std::size_t i = 0; i < decisions.size() && i < k_max_listed; ++i) {
      const auto& d = decisions[i];
      out += "<tr><td>" + html_escape(human_duration(d.t)) + "</td><td>" + html_escape(d.method) + "</td><td>" +
             html_escape(d.action) + "</td><td>" + html_escape(d.candidate) + "</td><td>" + html_escape(d.detail) +
             "</td><td>" + (d.saving_per_hour != 0.0 ? html_escape(human_money(d.saving_per_hour)) : "") + "</td></tr>";
    }
    out += "</tbody></table>";
    if (decisions.size() > k_max_listed) {
      out += "<p class=\"meta\">" + std::to_string(decisions.size() - k_max_listed) + " more not shown.</p>";
    }
    out += "</details>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

} // namespace capsim::report
