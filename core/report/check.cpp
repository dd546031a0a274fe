#include "core/report/check.hpp"

#include "core/report/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace capsim::report {

namespace {

std::string percent_text(double fraction)
{
  return fixed_number(fraction * 100.0, 2) + "%";
}

std::string signed_percent(double fraction)
{
  return (fraction >= 0 ? "+" : "") + fmt::format("{:.1f}%", fraction * 100.0);
}

std::optional<double> parse_number(std::string_view text)
{
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') {
    text.remove_suffix(1);
  }
  if (text.empty()) {
    return std::nullopt;
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// A relative-increase check: fails when current - base exceeds max(limit x base, grace).
CheckLine increase_line(const std::string& engine, const std::string& metric, const std::string& option, double base,
                        double current, double limit, double grace, std::string (*show)(double))
{
  CheckLine line;
  line.engine = engine;
  line.metric = metric;
  line.baseline = show(base);
  line.current = show(current);
  line.limit = "+" + percent_text(limit);
  const double increase = current - base;
  if (std::abs(increase) <= grace * 1e-3) {
    line.change = "=";
  } else if (base > 0) {
    line.change = signed_percent(increase / base);
  } else {
    line.change = increase > grace ? "+" + show(increase) : "=";
  }
  const double allowed = std::max(limit * std::max(base, 0.0), grace);
  line.ok = !(increase > allowed);
  if (!line.ok) {
    line.reason = base > 0 ? fmt::format("{}: {} rose {:.1f}% ({} -> {}), above the {} limit ({})", engine, metric,
                                         increase / base * 100.0, line.baseline, line.current, line.limit, option)
                           : fmt::format("{}: {} rose from {} to {} (the baseline had none; {})", engine, metric,
                                         line.baseline, line.current, option);
  }
  return line;
}

std::string show_money(double v)
{
  return human_money(v);
}

std::string show_hours(double v)
{
  return human_count(v, 2);
}

std::string show_seconds(double v)
{
  return human_seconds(v);
}

} // namespace

bool CheckReport::ok() const
{
  return violations() == 0;
}

std::size_t CheckReport::violations() const
{
  std::size_t n = 0;
  for (const auto& l : lines) {
    n += l.ok ? 0 : 1;
  }
  return n;
}

CheckReport check_against_baseline(const RunResult& baseline, const RunResult& current, const CheckThresholds& t)
{
  CheckReport report;
  for (const auto& base : baseline.results) {
    const EngineResult* cur = nullptr;
    for (const auto& r : current.results) {
      if (r.engine == base.engine) {
        cur = &r;
        break;
      }
    }
    if (cur == nullptr) {
      CheckLine line;
      line.engine = base.engine;
      line.metric = "engine";
      line.baseline = "present";
      line.current = "missing";
      line.ok = false;
      line.reason = base.engine + ": the baseline has results for this engine but this run has none (check the "
                                  "scenario's engines or -e)";
      report.lines.push_back(std::move(line));
      continue;
    }
    const auto& e = base.engine;
    report.lines.push_back(increase_line(e, "total cost", "--max-cost-increase", base.cost.total_usd, cur->cost.total_usd,
                                         t.max_cost_increase, t.cost_grace_usd, show_money));
    report.lines.push_back(increase_line(e, "node-hours", "--max-node-hours-increase", base.nodes.node_hours,
                                         cur->nodes.node_hours, t.max_node_hours_increase, t.node_hours_grace, show_hours));
    report.lines.push_back(increase_line(e, "pending p95", "--max-pending-p95-increase", base.pods.pending_p95_s,
                                         cur->pods.pending_p95_s, t.max_pending_p95_increase, t.pending_grace_s,
                                         show_seconds));
    {
      CheckLine line;
      line.engine = e;
      line.metric = "unschedulable";
      line.baseline = std::to_string(base.pods.unschedulable);
      line.current = std::to_string(cur->pods.unschedulable);
      const std::int64_t limit = t.max_unschedulable.value_or(base.pods.unschedulable);
      line.limit = "<= " + std::to_string(limit);
      const auto diff = cur->pods.unschedulable - base.pods.unschedulable;
      line.change = diff == 0 ? "=" : (diff > 0 ? "+" : "") + std::to_string(diff);
      line.ok = cur->pods.unschedulable <= limit;
      if (!line.ok) {
        line.reason = t.max_unschedulable
                        ? fmt::format("{}: {} pods unschedulable at the end, above the limit of {} (--max-unschedulable)",
                                      e, cur->pods.unschedulable, limit)
                        : fmt::format("{}: {} pods unschedulable at the end, the baseline had {} (raise it with "
                                      "--max-unschedulable)",
                                      e, cur->pods.unschedulable, base.pods.unschedulable);
      }
      report.lines.push_back(std::move(line));
    }
    if (t.min_efficiency) {
      CheckLine line;
      line.engine = e;
      line.metric = "efficiency";
      line.baseline = human_percent(base.lower_bound.efficiency);
      line.current = human_percent(cur->lower_bound.efficiency);
      line.limit = ">= " + human_percent(*t.min_efficiency);
      const double diff = cur->lower_bound.efficiency - base.lower_bound.efficiency;
      line.change = std::abs(diff) < 5e-5 ? "=" : fmt::format("{}{:.1f} pp", diff > 0 ? "+" : "-", std::abs(diff) * 100.0);
      line.ok = cur->lower_bound.efficiency + 1e-9 >= *t.min_efficiency;
      if (!line.ok) {
        line.reason = fmt::format("{}: efficiency {} is below the minimum {} (--min-efficiency)", e, line.current,
                                  human_percent(*t.min_efficiency));
      }
      report.lines.push_back(std::move(line));
    }
  }
  for (const auto& r : current.results) {
    bool in_baseline = false;
    for (const auto& b : baseline.results) {
      in_baseline = in_baseline || b.engine == r.engine;
    }
    if (!in_baseline) {
      report.notes.push_back(r.engine + ": not in the baseline, not checked");
    }
  }
  return report;
}

std::string render_check(const CheckReport& report)
{
  std::vector<std::array<std::string, 7>> rows;
  rows.push_back({"", "engine", "metric", "baseline", "current", "change", "limit"});
  for (const auto& l : report.lines) {
    rows.push_back({l.ok ? "ok" : "FAIL", l.engine, l.metric, l.baseline, l.current, l.change, l.limit});
  }
  std::array<std::size_t, 7> width{};
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      width[i] = std::max(width[i], display_width(r[i]));
    }
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - display_width(r[i]), ' ');
      const bool right = i >= 3 && i <= 5;
      line += (i > 0 ? "  " : "") + (right ? pad + r[i] : r[i] + pad);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  for (const auto& n : report.notes) {
    out += "note: " + n + "\n";
  }
  const auto v = report.violations();
  if (v == 0) {
    out += "capsim check: ok, every metric is within its threshold\n";
  } else {
    out += fmt::format("capsim check: {} regression{}\n", v, v == 1 ? "" : "s");
    for (const auto& l : report.lines) {
      if (!l.ok) {
        out += "  " + l.reason + "\n";
      }
    }
  }
  return out;
}

std::optional<double> parse_percent(std::string_view text)
{
  if (!text.empty() && text.back() == '%') {
    text.remove_suffix(1);
  }
  const auto v = parse_number(text);
  if (!v || *v < 0) {
    return std::nullopt;
  }
  return *v / 100.0;
}

std::optional<double> parse_ratio(std::string_view text)
{
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) {
    text.remove_suffix(1);
  }
  auto v = parse_number(text);
  if (!v) {
    return std::nullopt;
  }
  if (percent) {
    *v /= 100.0;
  }
  if (*v < 0 || *v > 1) {
    return std::nullopt;
  }
  return v;
}

} // namespace capsim::report
