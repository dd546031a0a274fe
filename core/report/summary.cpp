#include "core/report/summary.hpp"

#include "core/report/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace capsim::report {

Comparison as_comparison(const RunResult& run)
{
  Comparison cmp;
  cmp.designs.push_back(Design{run.scenario, run});
  return cmp;
}

std::vector<Column> columns_of(const Comparison& cmp)
{
  bool one_engine_each = true;
  for (const auto& d : cmp.designs) {
    one_engine_each = one_engine_each && d.result.results.size() == 1;
  }
  std::vector<Column> out;
  if (cmp.designs.size() == 1) {
    const auto& d = cmp.designs.front();
    for (const auto& r : d.result.results) {
      out.push_back(Column{r.engine, d.name, &r, out.empty() ? std::nullopt : std::optional<std::size_t>(0)});
    }
    return out;
  }
  std::vector<std::string> engines;
  for (const auto& d : cmp.designs) {
    for (const auto& r : d.result.results) {
      if (std::find(engines.begin(), engines.end(), r.engine) == engines.end()) {
        engines.push_back(r.engine);
      }
    }
  }
  for (const auto& engine : engines) {
    std::optional<std::size_t> first_design_column;
    for (std::size_t di = 0; di < cmp.designs.size(); ++di) {
      const auto& d = cmp.designs[di];
      for (const auto& r : d.result.results) {
        if (r.engine != engine) {
          continue;
        }
        Column col{one_engine_each ? d.name : d.name + " · " + r.engine, d.name, &r, std::nullopt};
        if (di == 0) {
          first_design_column = out.size();
        } else {
          col.baseline = first_design_column;
        }
        out.push_back(std::move(col));
      }
    }
  }
  return out;
}

std::vector<MetricRow> summary_rows(const std::vector<Column>& columns)
{
  std::vector<MetricRow> rows;
  const auto add = [&](std::string section, std::string label, std::string key, MetricKind kind, Better better,
                       const std::function<double(const EngineResult&)>& get) {
    MetricRow row{std::move(section), std::move(label), std::move(key), kind, better, {}};
    for (const auto& c : columns) {
      row.values.push_back(get(*c.result));
    }
    rows.push_back(std::move(row));
  };
  const auto any = [&](const std::function<bool(const EngineResult&)>& pred) {
    for (const auto& c : columns) {
      if (pred(*c.result)) {
        return true;
      }
    }
    return false;
  };
  using K = MetricKind;
  using B = Better;
  add("Cost", "total", "total_usd", K::money, B::lower, [](const EngineResult& r) { return r.cost.total_usd; });
  if (any([](const EngineResult& r) { return std::abs(r.cost.effective_total_usd - r.cost.total_usd) > 5e-7; })) {
    add("Cost", "effective total", "effective_total_usd", K::money, B::lower,
        [](const EngineResult& r) { return r.cost.effective_total_usd; });
  }
  add("Cost", "on-demand", "on_demand_usd", K::money, B::lower, [](const EngineResult& r) { return r.cost.on_demand_usd; });
  add("Cost", "spot", "spot_usd", K::money, B::lower, [](const EngineResult& r) { return r.cost.spot_usd; });
  std::set<std::string> pools;
  for (const auto& c : columns) {
    for (const auto& [name, usd] : c.result->cost.by_pool) {
      pools.insert(name);
    }
  }
  for (const auto& pool : pools) {
    add("Cost", "pool " + pool, "cost_pool_" + pool + "_usd", K::money, B::lower, [pool](const EngineResult& r) {
      const auto it = r.cost.by_pool.find(pool);
      return it == r.cost.by_pool.end() ? 0.0 : it->second;
    });
  }
  const auto count = [](std::int64_t v) { return static_cast<double>(v); };
  add("Nodes", "peak", "nodes_peak", K::count, B::lower, [&](const EngineResult& r) { return count(r.nodes.peak); });
  add("Nodes", "average", "nodes_average", K::average, B::lower, [](const EngineResult& r) { return r.nodes.average; });
  add("Nodes", "final", "nodes_final", K::count, B::neutral, [&](const EngineResult& r) { return count(r.nodes.final_count); });
  add("Nodes", "launched", "nodes_launched", K::count, B::neutral, [&](const EngineResult& r) { return count(r.nodes.launched); });
  add("Nodes", "terminated", "nodes_terminated", K::count, B::neutral,
      [&](const EngineResult& r) { return count(r.nodes.terminated); });
  add("Nodes", "node-hours", "node_hours", K::hours, B::lower, [](const EngineResult& r) { return r.nodes.node_hours; });
  add("Utilization", "cpu", "utilization_cpu", K::ratio, B::higher, [](const EngineResult& r) { return r.utilization.cpu; });
  add("Utilization", "memory", "utilization_memory", K::ratio, B::higher,
      [](const EngineResult& r) { return r.utilization.memory; });
  add("Pods", "total", "pods_total", K::count, B::neutral, [&](const EngineResult& r) { return count(r.pods.total); });
  add("Pods", "scheduled", "pods_scheduled", K::count, B::neutral, [&](const EngineResult& r) { return count(r.pods.scheduled); });
  add("Pods", "pending p50", "pending_p50_s", K::seconds, B::lower, [](const EngineResult& r) { return r.pods.pending_p50_s; });
  add("Pods", "pending p95", "pending_p95_s", K::seconds, B::lower, [](const EngineResult& r) { return r.pods.pending_p95_s; });
  add("Pods", "pending max", "pending_max_s", K::seconds, B::lower, [](const EngineResult& r) { return r.pods.pending_max_s; });
  add("Pods", "unschedulable", "pods_unschedulable", K::count, B::lower,
      [&](const EngineResult& r) { return count(r.pods.unschedulable); });
  add("Pods", "evicted", "pods_evicted", K::count, B::lower, [&](const EngineResult& r) { return count(r.pods.evicted); });
  if (any([](const EngineResult& r) { return r.pods.lost != 0; })) {
    add("Pods", "lost", "pods_lost", K::count, B::lower, [&](const EngineResult& r) { return count(r.pods.lost); });
  }
  add("Disruptions", "emptiness", "disruptions_emptiness", K::count, B::neutral,
      [&](const EngineResult& r) { return count(r.disruptions.emptiness); });
  add("Disruptions", "consolidation delete", "disruptions_consolidation_delete", K::count, B::neutral,
      [&](const EngineResult& r) { return count(r.disruptions.consolidation_delete); });
  add("Disruptions", "consolidation replace", "disruptions_consolidation_replace", K::count, B::neutral,
      [&](const EngineResult& r) { return count(r.disruptions.consolidation_replace); });
  add("Disruptions", "expiration", "disruptions_expiration", K::count, B::neutral,
      [&](const EngineResult& r) { return count(r.disruptions.expiration); });
  add("Disruptions", "drift", "disruptions_drift", K::count, B::neutral,
      [&](const EngineResult& r) { return count(r.disruptions.drift); });
  add("Disruptions", "spot interruption", "disruptions_spot_interruption", K::count, B::lower,
      [&](const EngineResult& r) { return count(r.disruptions.spot_interruption); });
  add("Disruptions", "scale-down", "disruptions_scale_down", K::count, B::neutral,
      [&](const EngineResult& r) { return count(r.disruptions.scale_down); });
  add("Lower bound", "cost lower bound", "lower_bound_usd", K::money, B::neutral,
      [](const EngineResult& r) { return r.lower_bound.total_usd; });
  add("Lower bound", "efficiency", "efficiency", K::ratio, B::higher, [](const EngineResult& r) { return r.lower_bound.efficiency; });
  return rows;
}

Delta compute_delta(double base, double value, MetricKind kind, Better better)
{
  Delta d;
  d.absolute = value - base;
  const double tolerance = kind == MetricKind::money ? 5e-7 : (kind == MetricKind::ratio ? 5e-5 : 1e-9 * std::max(1.0, std::abs(base)));
  if (!std::isfinite(d.absolute) || std::abs(d.absolute) <= tolerance) {
    d.absolute = 0;
    if (kind != MetricKind::ratio && base != 0.0) {
      d.relative = 0.0;
    }
    return d;
  }
  d.sign = d.absolute > 0 ? 1 : -1;
  if (kind != MetricKind::ratio && base != 0.0) {
    d.relative = d.absolute / std::abs(base);
  }
  if (better == Better::lower) {
    d.worse = d.sign > 0;
    d.better = d.sign < 0;
  } else if (better == Better::higher) {
    d.worse = d.sign < 0;
    d.better = d.sign > 0;
  }
  return d;
}

std::string human_value(double value, MetricKind kind, int money_decimals)
{
  switch (kind) {
  case MetricKind::money: return human_money(value, money_decimals);
  case MetricKind::count: return human_count(value, 0);
  case MetricKind::average: return human_count(value, 2);
  case MetricKind::hours: return human_count(value, 2);
  case MetricKind::ratio: return human_percent(value);
  case MetricKind::seconds: return human_seconds(value);
  }
  return "";
}

std::string human_delta(const Delta& delta, MetricKind kind, int money_decimals)
{
  if (delta.sign == 0) {
    return "=";
  }
  const char* arrow = delta.sign > 0 ? "▲" : "▼";
  const char* sign = delta.sign > 0 ? "+" : "-";
  if (kind == MetricKind::ratio) {
    return fmt::format("{} {}{:.1f} pp", arrow, sign, std::abs(delta.absolute) * 100.0);
  }
  if (delta.relative) {
    return fmt::format("{} {}{:.1f}%", arrow, sign, std::abs(*delta.relative) * 100.0);
  }
  return fmt::format("{} {}{}", arrow, sign, human_value(std::abs(delta.absolute), kind, money_decimals));
}

} // namespace capsim::report
