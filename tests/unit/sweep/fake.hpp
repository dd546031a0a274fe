#pragma once

// Hand-made runs for the sweep tests: a fake loader and a fake simulation whose numbers depend
// only on the variant's --set list and the seed (with more decimals than the JSON keeps).
#include "core/base/diagnostics.hpp"
#include "core/sweep/runner.hpp"

#include <string>

namespace capsim::sweep::testing {

inline std::uint64_t fnv(const std::string& text)
{
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : text) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return h;
}

// A scenario that remembers its variant's --set list (in settings.catalog) and starts at seed 40.
inline model::Scenario fake_load(const Variant& v)
{
  model::Scenario s;
  s.source_path = v.path;
  s.settings.name = "fake-scenario";
  s.settings.seed = 40;
  for (const auto& set : v.sets) {
    s.settings.catalog += set + ";";
  }
  return s;
}

// Both engines (or the one asked for), with numbers from the variant and the seed.
inline report::RunResult fake_run(const model::Scenario& s, const sim::RunOptions& o)
{
  const std::uint64_t seed = o.seed.value_or(s.settings.seed);
  const std::uint64_t h = fnv(s.settings.catalog);
  // Some busy work of varying length, so threads finish out of order.
  volatile std::uint64_t spin = 0;
  for (std::uint64_t i = 0; i < (h + seed) % 20000; ++i) {
    spin = spin + i;
  }
  report::RunResult r;
  r.version = "test";
  r.scenario = s.settings.name;
  r.seed = seed;
  r.region = "us-east-1";
  r.duration = 2 * k_hour + 1;
  for (const std::string engine : {"karpenter", "cluster-autoscaler"}) {
    if (!o.engines.empty() && o.engines.front() != "all" && o.engines.front() != engine) {
      continue;
    }
    const double e = engine == "karpenter" ? 0.0 : 1.0;
    report::EngineResult x;
    x.engine = engine;
    x.cost.total_usd = 100.0 + static_cast<double>(h % 1000) / 7.0 + static_cast<double>(seed % 7) * 0.123456789 + e * 20.0 / 3.0;
    x.cost.on_demand_usd = x.cost.total_usd * 0.6;
    x.cost.spot_usd = x.cost.total_usd * 0.4;
    x.cost.effective_total_usd = x.cost.total_usd;
    x.nodes.node_hours = 50.0 + static_cast<double>(h % 97) / 3.0 + static_cast<double>(seed % 5) / 9.0;
    x.nodes.launched = static_cast<std::int64_t>(h % 11 + seed % 3);
    x.nodes.peak = static_cast<std::int64_t>(h % 5 + 1);
    x.pods.total = 100;
    x.pods.unschedulable = static_cast<std::int64_t>((seed + h) % 3);
    x.pods.pending_p50_s = 1.0 / 3.0;
    x.pods.pending_p95_s = 30.0 + static_cast<double>(h % 13) * 1.1111111 + static_cast<double>(seed % 5) * 0.33333333
                           - e * 5.5;
    x.pods.pending_max_s = 99.99999;
    x.disruptions.spot_interruption = static_cast<std::int64_t>((seed + h + 1) % 4);
    x.utilization.cpu = 2.0 / 3.0;
    x.utilization.memory = 0.123456;
    x.lower_bound.total_usd = x.cost.total_usd * 0.777777777;
    r.results.push_back(x);
  }
  return r;
}

inline RunnerOptions fake_options(unsigned jobs)
{
  RunnerOptions o;
  o.jobs = jobs;
  o.run = fake_run;
  return o;
}

} // namespace capsim::sweep::testing
