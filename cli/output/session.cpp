#include "cli/output/session.hpp"

namespace capsim::cli {

std::vector<std::string> engines_for(const std::string& engine)
{
  if (engine.empty()) {
    return {};
  }
  return {engine}; // "all": sim::run_scenario runs every engine the scenario configures
}

report::RunResult run_with_progress(const model::Scenario& scenario, const RunSettings& settings, const std::string& label)
{
  sim::RunOptions options;
  options.engines = settings.engines;
  options.seed = settings.seed;
  options.timeline_step = settings.timeline_step;
  options.explain = settings.explain;
  options.process_ends_after = true; // each command runs one scenario, then exits
  ProgressBar bar(settings.progress, label);
  if (bar.enabled()) {
    options.progress = [&bar](double fraction) { bar.update(fraction); };
  }
  report::RunResult result = sim::run_scenario(scenario, options);
  bar.finish();
  return result;
}

} // namespace capsim::cli
