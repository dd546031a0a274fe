#pragma once

#include "core/report/result.hpp"
#include "core/report/summary.hpp"

// Small hand-made results shared by the renderer tests.
namespace capsim::report::testing {

inline EngineResult karpenter_result()
{
  EngineResult r;
  r.engine = "karpenter";
  r.cost.total_usd = 1.234567891;
  r.cost.on_demand_usd = 0.8;
  r.cost.spot_usd = 0.434567891;
  r.cost.by_pool = {{"default", 1.1}, {"static", 0.134567891}};
  r.cost.effective_total_usd = r.cost.total_usd;
  r.nodes = {5, 2, 4, 2.5, 3, 5.25};
  r.pods.total = 20;
  r.pods.scheduled = 19;
  r.pods.unschedulable = 1;
  r.pods.evicted = 2;
  r.pods.pending_p50_s = 3.5;
  r.pods.pending_p95_s = 42.25;
  r.pods.pending_max_s = 75;
  r.utilization = {0.6234, 0.41};
  r.disruptions.emptiness = 1;
  r.disruptions.consolidation_delete = 1;
  r.lower_bound = {0.9, 0.729};
  r.final_nodes.push_back({"node-1", "m5.large", "us-east-1a", "on-demand", "default", 0.096, 4});
  r.final_nodes.push_back({"node-2", "m5.large", "us-east-1b", "spot", "default", 0.0373, 3});
  r.final_nodes.push_back({"static-0", "t3.medium", "us-east-1a", "on-demand", "static", 0.0416, 0});
  return r;
}

inline EngineResult cas_result()
{
  EngineResult r;
  r.engine = "cluster-autoscaler";
  r.cost.total_usd = 1.5;
  r.cost.on_demand_usd = 1.5;
  r.cost.by_pool = {{"workers", 1.3653}, {"static", 0.1347}};
  r.cost.effective_total_usd = 1.5;
  r.nodes = {6, 2, 5, 3.25, 4, 6.5};
  r.pods.total = 20;
  r.pods.scheduled = 20;
  r.pods.pending_p50_s = 95;
  r.pods.pending_p95_s = 130;
  r.pods.pending_max_s = 4000;
  r.utilization = {0.5, 0.45};
  r.disruptions.scale_down = 2;
  r.lower_bound = {0.9, 0.6};
  r.final_nodes.push_back({"cas-0", "m5.xlarge", "us-east-1a", "on-demand", "workers", 0.192, 20});
  r.warnings.push_back("node group \"workers\" reached maxSize");
  return r;
}

inline RunResult sample_run()
{
  RunResult run;
  run.version = "0.1.0";
  run.scenario = "demo";
  run.seed = 42;
  run.region = "us-east-1";
  run.duration = 2 * k_hour;
  run.results = {karpenter_result(), cas_result()};
  return run;
}

// Timeline rows every 30 minutes for both engines, plus decisions for karpenter.
inline RunResult sample_run_with_timeline()
{
  RunResult run = sample_run();
  for (auto& r : run.results) {
    const bool k = r.engine == "karpenter";
    for (int i = 0; i <= 4; ++i) {
      TimelineRow row;
      row.t = i * 30 * k_minute;
      row.nodes = k ? 2 + i % 3 : 3 + i % 2;
      row.cost_rate_per_hour = k ? 0.1 * static_cast<double>(row.nodes) : 0.192 * static_cast<double>(row.nodes);
      row.cost_cumulative = 0.25 * i;
      row.pending = i == 1 ? 3 : 0;
      row.cpu_requested_m = 1500 + 250 * i;
      row.cpu_allocatable_m = 1930 * row.nodes;
      row.memory_requested = (2 + i) * k_gib;
      row.memory_allocatable = row.nodes * 7 * k_gib;
      row.nodes_by_type = k ? std::map<std::string, std::int64_t>{{"m5.large", row.nodes - 1}, {"t3.medium", 1}}
                            : std::map<std::string, std::int64_t>{{"m5.xlarge", row.nodes - 1}, {"t3.medium", 1}};
      r.timeline.push_back(row);
    }
    if (k) {
      r.decisions.push_back({15 * k_minute, "emptiness", "node-3", "delete", "empty for 30s", 0.096});
      r.decisions.push_back({75 * k_minute, "single-node", "node-4", "replace", "m5.large -> t3.medium <x>", 0.05});
    }
  }
  return run;
}

// Two designs, karpenter only: b costs more, peaks lower and packs cpu better than a.
inline Comparison sample_comparison()
{
  RunResult a = sample_run();
  a.results.resize(1);
  RunResult b = a;
  b.results[0].cost.total_usd = 1.3;
  b.results[0].nodes.peak = 3;
  b.results[0].utilization.cpu = 0.7;
  Comparison cmp;
  cmp.designs = {{"a", a}, {"b", b}};
  return cmp;
}

} // namespace capsim::report::testing
