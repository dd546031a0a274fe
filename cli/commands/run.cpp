// `capsim run SCENARIO`: one scenario through the engines, reported as a table (terminal),
// JSON (pipes, files), CSV, Markdown or HTML (SPEC §6, §7).
#include "cli/commands/commands.hpp"
#include "cli/output/emit.hpp"
#include "cli/output/session.hpp"
#include "core/io/scenario_yaml.hpp"

#include <memory>

namespace capsim::cli {

namespace {

struct RunCommandOptions
{
  std::string scenario;
  std::string engine;
  std::string output;
  std::string out;
  std::optional<std::uint64_t> seed;
  std::vector<std::string> sets;
  std::string timeline;
  bool explain = false;
  std::string progress = "auto";
};

int run_command(const RunCommandOptions& o)
{
  const model::Scenario scenario = io::load_scenario(o.scenario, o.sets);
  refuse_input_as_output(o.out, scenario_files(scenario));
  const report::Format format = choose_format(o.output, o.out, stdout_is_terminal());
  RunSettings settings;
  settings.engines = engines_for(o.engine);
  settings.seed = o.seed;
  settings.explain = o.explain;
  settings.progress = parse_progress_mode(o.progress).value_or(ProgressMode::automatic);
  if (!o.timeline.empty()) {
    settings.timeline_step = parse_timeline_step(o.timeline);
  } else if (format == report::Format::html) {
    // The HTML charts are drawn from timeline rows.
    settings.timeline_step = automatic_timeline_step(scenario.settings.duration);
  }
  const report::RunResult result = run_with_progress(scenario, settings, "capsim run " + scenario.settings.name);
  report::RenderOptions render;
  render.color = format == report::Format::table && o.out.empty() && color_wanted();
  emit(report::render(result, format, render), o.out);
  return 0;
}

} // namespace

void add_run_command(CLI::App& app, CommandResult& result)
{
  auto o = std::make_shared<RunCommandOptions>();
  auto* cmd = app.add_subcommand("run", "Run a scenario through Karpenter and/or Cluster Autoscaler and report cost, "
                                        "nodes, utilization, pending time and disruptions");
  cmd->add_option("SCENARIO", o->scenario, "Scenario YAML file")->required();
  cmd->add_option("-e,--engine", o->engine, "Engine to run (default: those the scenario configures)")
    ->check(CLI::IsMember({"karpenter", "cluster-autoscaler", "all"}));
  cmd->add_option("-o,--output", o->output,
                  "Output format (default: table on a terminal, json otherwise or from the --out extension)")
    ->check(CLI::IsMember({"table", "json", "csv", "markdown", "md", "html"}));
  cmd->add_option("--out", o->out, "Write the result to this file (atomically) instead of stdout");
  cmd->add_option("--seed", o->seed, "Seed for every random choice (overrides spec.seed)")->check(seed_check());
  cmd->add_option("--set", o->sets, "Override a scenario field: PATH=VALUE (e.g. Scenario.spec.duration=2h)");
  cmd->add_option("--timeline", o->timeline, "Add timeline rows every STEP (e.g. 5m)");
  cmd->add_flag("--explain", o->explain, "Print the decision log (consolidation, scale-up/down) after the summary");
  cmd->add_option("--progress", o->progress, "Progress bar on stderr: auto (terminal, runs over ~1 s), always, never")
    ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->footer("Examples:\n"
              "  capsim run scenarios/quickstart.yaml\n"
              "  capsim run scenarios/quickstart.yaml -e karpenter -o json --out result.json\n"
              "  capsim run scenarios/quickstart.yaml --set NodePool/default.spec.disruption.consolidateAfter=5m\n"
              "  capsim run scenarios/quickstart.yaml --timeline 5m --out report.html");
  cmd->callback([&result, o] { result.action = [o] { return run_command(*o); }; });
}

} // namespace capsim::cli
