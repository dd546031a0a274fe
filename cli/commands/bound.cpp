// `capsim bound SCENARIO`: the cost lower bound of the workload (SPEC §7) for each engine's
// configuration, next to the simulated cost and the resulting efficiency.
#include "cli/commands/commands.hpp"
#include "cli/output/emit.hpp"
#include "cli/output/session.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/report/render.hpp"

#include <memory>

namespace capsim::cli {

namespace {

struct BoundOptions
{
  std::string scenario;
  std::string engine;
  std::string output;
  std::string out;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  std::string progress = "auto";
};

int bound_command(const BoundOptions& o)
{
  const model::Scenario scenario = io::load_scenario(o.scenario, o.sets);
  refuse_input_as_output(o.out, scenario_files(scenario));
  const report::Format format = choose_format(o.output, o.out, stdout_is_terminal());
  RunSettings settings;
  settings.engines = engines_for(o.engine);
  settings.seed = o.seed;
  settings.progress = parse_progress_mode(o.progress).value_or(ProgressMode::automatic);
  // The bound integrates the demand of the pods each engine actually ran, so it needs the run.
  const report::RunResult result = run_with_progress(scenario, settings, "capsim bound " + scenario.settings.name);
  emit(report::render_bound(result, format), o.out);
  return 0;
}

} // namespace

void add_bound_command(CLI::App& app, CommandResult& result)
{
  auto o = std::make_shared<BoundOptions>();
  auto* cmd = app.add_subcommand("bound", "Cost lower bound of a scenario's workload: the cheapest fractional cover of "
                                          "the running pods' requests by the instance types they may use, over time");
  cmd->add_option("SCENARIO", o->scenario, "Scenario YAML file")->required();
  cmd->add_option("-e,--engine", o->engine, "Engine whose pools bound the instance types (default: the scenario's)")
    ->check(CLI::IsMember({"karpenter", "cluster-autoscaler", "all"}));
  cmd->add_option("-o,--output", o->output, "Output format: table, json, csv, markdown")
    ->check(CLI::IsMember({"table", "json", "csv", "markdown", "md"}));
  cmd->add_option("--out", o->out, "Write to this file (atomically) instead of stdout");
  cmd->add_option("--seed", o->seed, "Seed (overrides spec.seed)")->check(seed_check());
  cmd->add_option("--set", o->sets, "Override a scenario field: PATH=VALUE");
  cmd->add_option("--progress", o->progress, "Progress bar on stderr: auto, always, never")
    ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([&result, o] { result.action = [o] { return bound_command(*o); }; });
}

} // namespace capsim::cli
