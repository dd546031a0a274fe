#include "core/catalog/load.hpp"
#include "tests/unit/disruption/disruption_harness.hpp"
#include <catch2/catch.hpp>
#include <fmt/format.h>
namespace capsim::karpenter::dtest {
TEST_CASE("TMP perf", "[tmpperf]")
{
  Sim sim(catalog::load_catalog("us-east-1"));
  auto& pool = sim.pool("default");
  pool.budgets = {model::DisruptionBudget{}};
  pool.consolidate_after = 30 * k_second;
  for (int i = 0; i < 60; ++i) {
    const auto name = fmt::format("node-{:03d}", i);
    sim.node(name, "default", "m5.2xlarge", std::nullopt, "us-east-1a", "on-demand");
    PodOpts o; o.cpu_milli = 700; o.memory = 2 * k_gib; o.labels = {{"app", fmt::format("a{}", i % 5)}};
    o.runtime = (i % 3) * 20 * k_minute + 10 * k_minute;
    sim.pods_on(name, 3, o);
  }
  for (int k = 0; k < 100; ++k) {
    PodOpts o; o.cpu_milli = 500; o.memory = k_gib; o.runtime = 15 * k_minute;
    sim.pending(k * 30 * k_second, 2, o);
  }
  const auto result = sim.run(3 * k_hour);
  WARN(fmt::format("final {} launched {} decisions {} del {} repl {} empty {}", result.nodes.final_count, result.nodes.launched,
       result.decisions.size(), result.disruptions.consolidation_delete, result.disruptions.consolidation_replace, result.disruptions.emptiness));
}
}
