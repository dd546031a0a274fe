#include "core/sweep/sweep.hpp"

#include "core/base/diagnostics.hpp"
#include "core/report/format.hpp"

#include <algorithm>
#include <charconv>

namespace capsim::sweep {

std::size_t SweepSpec::variant_count() const
{
  return sweep::variant_count(axes, seeds);
}

double quantize(double x, int decimals)
{
  const std::string text = report::fixed_number(x, decimals);
  double out = 0;
  std::from_chars(text.data(), text.data() + text.size(), out);
  return out;
}

std::uint64_t first_seed(const SweepSpec& spec, std::uint64_t scenario_seed)
{
  return spec.seed.value_or(scenario_seed);
}

CellResult make_cell(std::size_t cell, std::size_t variant, const report::RunResult& run)
{
  using report::k_count_decimals;
  using report::k_money_decimals;
  using report::k_ratio_decimals;
  using report::k_seconds_decimals;
  CellResult out;
  out.cell = cell;
  out.variant = variant;
  out.seed = run.seed;
  out.scenario = run.scenario;
  out.region = run.region;
  out.duration_s = quantize(static_cast<double>(run.duration) / 1000.0, k_seconds_decimals);
  for (const auto& r : run.results) {
    EngineMetrics m;
    m.engine = r.engine;
    m.total_usd = quantize(r.cost.total_usd, k_money_decimals);
    m.on_demand_usd = quantize(r.cost.on_demand_usd, k_money_decimals);
    m.spot_usd = quantize(r.cost.spot_usd, k_money_decimals);
    m.effective_total_usd = quantize(r.cost.effective_total_usd, k_money_decimals);
    m.node_hours = quantize(r.nodes.node_hours, k_count_decimals);
    m.nodes_launched = r.nodes.launched;
    m.nodes_peak = r.nodes.peak;
    m.pods_total = r.pods.total;
    m.unschedulable = r.pods.unschedulable;
    m.evicted = r.pods.evicted;
    m.pending_p50_s = quantize(r.pods.pending_p50_s, k_seconds_decimals);
    m.pending_p95_s = quantize(r.pods.pending_p95_s, k_seconds_decimals);
    m.pending_max_s = quantize(r.pods.pending_max_s, k_seconds_decimals);
    m.spot_interruptions = r.disruptions.spot_interruption;
    m.cpu_utilization = quantize(r.utilization.cpu, k_ratio_decimals);
    m.memory_utilization = quantize(r.utilization.memory, k_ratio_decimals);
    m.lower_bound_usd = quantize(r.lower_bound.total_usd, k_money_decimals);
    out.engines.push_back(std::move(m));
  }
  return out;
}

SweepReport build_report(std::string version, SweepSpec spec, std::vector<CellResult> cells)
{
  SweepReport out;
  out.version = std::move(version);
  out.variants = grid_variants(spec.scenario_file, spec.axes, spec.sets);
  const std::size_t total = out.variants.size() * spec.seeds;
  CAPSIM_CHECK(cells.size() == total, "build_report: expected every cell of the grid");
  std::sort(cells.begin(), cells.end(), [](const CellResult& a, const CellResult& b) { return a.cell < b.cell; });
  for (std::size_t i = 0; i < cells.size(); ++i) {
    CAPSIM_CHECK(cells[i].cell == i && cells[i].variant == i / spec.seeds, "build_report: cell indexes out of order");
  }
  out.spec = std::move(spec);
  out.cells = std::move(cells);

  const std::size_t seeds = out.spec.seeds;
  for (std::size_t v = 0; v < out.variants.size(); ++v) {
    // Engines in the order the variant's runs list them.
    std::vector<std::string> engines;
    for (std::size_t k = 0; k < seeds; ++k) {
      for (const auto& m : out.cells[v * seeds + k].engines) {
        if (std::find(engines.begin(), engines.end(), m.engine) == engines.end()) {
          engines.push_back(m.engine);
        }
      }
    }
    for (const auto& engine : engines) {
      std::vector<double> cost;
      std::vector<double> hours;
      std::vector<double> p95;
      std::vector<double> unschedulable;
      std::vector<double> interruptions;
      for (std::size_t k = 0; k < seeds; ++k) {
        for (const auto& m : out.cells[v * seeds + k].engines) {
          if (m.engine != engine) {
            continue;
          }
          cost.push_back(m.total_usd);
          hours.push_back(m.node_hours);
          p95.push_back(m.pending_p95_s);
          unschedulable.push_back(static_cast<double>(m.unschedulable));
          interruptions.push_back(static_cast<double>(m.spot_interruptions));
        }
      }
      VariantSummary s;
      s.variant = v;
      s.engine = engine;
      s.total_usd = estimate(cost);
      s.node_hours = estimate(hours);
      s.pending_p95_s = estimate(p95);
      s.unschedulable = estimate(unschedulable);
      s.spot_interruptions = estimate(interruptions);
      out.summary.push_back(std::move(s));
    }
  }
  std::vector<std::pair<double, double>> points;
  points.reserve(out.summary.size());
  for (const auto& s : out.summary) {
    points.emplace_back(s.total_usd.mean, s.pending_p95_s.mean);
  }
  const auto front = pareto_front(points);
  for (std::size_t i = 0; i < out.summary.size(); ++i) {
    out.summary[i].pareto = front[i];
  }
  return out;
}

} // namespace capsim::sweep
