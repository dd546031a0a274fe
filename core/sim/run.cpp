#include "core/sim/run.hpp"

#include "core/base/quantity.hpp"
#include "core/cas/cluster_autoscaler.hpp"
#include "core/catalog/load.hpp"
#include "core/io/workload.hpp"
#include "core/karpenter/controller.hpp"
#include "core/karpenter/disruption.hpp"
#include "core/sim/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <span>

namespace capsim::sim {

namespace {

// The catalog a scenario runs against: the embedded one or spec.catalog's folder (relative to
// the scenario), for spec.region, restricted to spec.zones, then replaced or extended by an
// inline capsim/v1 Catalog.
catalog::Catalog resolve_catalog(const model::Scenario& scenario)
{
  const auto& s = scenario.settings;
  catalog::Catalog cat;
  const bool replace = scenario.inline_catalog && scenario.inline_catalog->replace;
  if (!replace) {
    std::string folder;
    if (!s.catalog.empty() && s.catalog != "default") {
      std::filesystem::path p(s.catalog);
      if (p.is_relative() && !scenario.source_path.empty()) {
        p = std::filesystem::path(scenario.source_path).parent_path() / p;
      }
      folder = p.string();
    }
    cat = catalog::load_catalog(s.region, folder,
                                scenario.location_of(s.region_location.file.empty() ? s.location : s.region_location));
  }
  if (scenario.inline_catalog) {
    const auto& ic = *scenario.inline_catalog;
    if (ic.replace) {
      cat = catalog::Catalog(s.region, ic.zones, ic.instance_types);
    } else {
      cat.merge(ic.instance_types);
    }
  }
  if (!s.zones.empty()) {
    cat.restrict_zones(s.zones);
  }
  return cat;
}

SimTime natural_end(const model::Scenario& scenario, std::span<const model::Pod> workload)
{
  if (scenario.settings.duration > 0) {
    return scenario.settings.duration;
  }
  SimTime end = 0;
  for (const auto& p : workload) {
    SimTime e = -1;
    if (p.departure >= 0) {
      e = p.departure;
    } else if (p.runtime >= 0) {
      e = p.arrival + p.runtime;
    }
    if (e < 0) {
      throw InputError(scenario.location_of(scenario.settings.location),
                       "spec.duration is required: pod '" + p.name
                           + "' has no natural end (no runtime or departure)");
    }
    end = std::max(end, e);
  }
  // Leave room for nodes to launch and for the last pods to run and the cluster to settle.
  return end + k_hour;
}

// The engines a run simulates: those asked for, else spec.engines, else every engine the stream
// configures.
std::vector<std::string> engines_to_run(const model::Scenario& scenario, std::vector<std::string> engines)
{
  if (engines.empty() || (engines.size() == 1 && engines[0] == "all")) {
    engines = scenario.settings.engines;
  }
  if (engines.empty() || (engines.size() == 1 && engines[0] == "all")) {
    engines.clear();
    if (!scenario.node_pools.empty()) {
      engines.emplace_back("karpenter");
    }
    if (!scenario.node_groups.empty()) {
      engines.emplace_back("cluster-autoscaler");
    }
  }
  if (engines.empty()) {
    throw InputError(scenario.location_of(scenario.settings.location),
                     "the scenario configures no engine: add a karpenter.sh/v1 NodePool or a capsim/v1 NodeGroup");
  }
  return engines;
}

// Every engine's controller, set up before any engine runs: a scenario one of them rejects fails
// at once, not after the others have run.
std::vector<std::unique_ptr<Controller>> make_controllers(const model::Scenario& scenario, const catalog::Catalog& cat,
                                                          std::span<const std::string> engines, std::uint64_t seed)
{
  std::vector<std::unique_ptr<Controller>> out;
  for (const auto& name : engines) {
    if (name == "karpenter") {
      auto controller = karpenter::make_karpenter(scenario, cat, seed);
      karpenter::install_disruption(*controller);
      out.push_back(std::move(controller));
    } else if (name == "cluster-autoscaler") {
      out.push_back(cas::make_cluster_autoscaler(scenario, cat, seed));
    } else {
      throw InputError({.file = "--engine"}, "unknown engine '" + name + "' (expected karpenter, cluster-autoscaler or all)");
    }
  }
  return out;
}

} // namespace

void check_scenario(const model::Scenario& scenario, std::span<const model::Pod> workload)
{
  const catalog::Catalog cat = resolve_catalog(scenario);
  (void)natural_end(scenario, workload);
  (void)make_controllers(scenario, cat, engines_to_run(scenario, {}), scenario.settings.seed);
}

report::RunResult run_scenario(const model::Scenario& input_scenario, const RunOptions& options)
{
  // --seed replaces spec.seed everywhere (generators included), as if it were in the file.
  model::Scenario scenario = input_scenario;
  if (options.seed) {
    scenario.settings.seed = *options.seed;
  }
  report::RunResult out;
  out.version = CAPSIM_VERSION;
  out.scenario = scenario.settings.name;
  out.seed = options.seed.value_or(scenario.settings.seed);
  out.region = scenario.settings.region;

  const catalog::Catalog cat = resolve_catalog(scenario);
  std::vector<model::Pod> workload = io::expand_workload(scenario);
  const SimTime end = natural_end(scenario, workload);
  out.duration = end;
  if (options.timeline_step > 0 && end / options.timeline_step >= k_max_timeline_rows) {
    // (A row a millisecond over a week would be 600 million rows: refused before the run.)
    const Duration least = end / k_max_timeline_rows + 1;
    throw InputError({.file = "--timeline " + format_duration(options.timeline_step)},
                     fmt::format("{} rows over {} (at most {}; expected a step of at least {})",
                                 end / options.timeline_step + 1, format_duration(end), k_max_timeline_rows,
                                 format_duration((least + k_second - 1) / k_second * k_second)));
  }

  const std::vector<std::string> engines = engines_to_run(scenario, options.engines);
  auto controllers = make_controllers(scenario, cat, engines, out.seed);
  for (std::size_t e = 0; e < engines.size(); ++e) {
    EngineInput in;
    in.scenario = &scenario;
    in.catalog = &cat;
    in.workload = &workload;
    if (e + 1 == engines.size()) {
      in.release_workload = &workload; // nothing reads it after the last engine
    }
    in.end = end;
    in.seed = out.seed;
    in.timeline_step = options.timeline_step;
    in.explain = options.explain;
    in.progress = options.progress;
    auto engine = std::make_unique<Engine>(in);
    out.results.push_back(engine->run(*controllers[e]));
    controllers[e].reset(); // its caches go before the next engine runs
    if (options.process_ends_after && e + 1 == engines.size()) {
      static auto* const left = new std::vector<std::unique_ptr<Engine>>(); // never freed, by design
      left->push_back(std::move(engine));
    }
  }
  return out;
}

} // namespace capsim::sim
