// `capsim check SCENARIO --baseline RESULT.json`: rerun the scenario and fail (exit 1) when
// cost, node-hours, pending time, unschedulable pods or efficiency regress past a threshold.
#include "cli/commands/commands.hpp"
#include "cli/output/emit.hpp"
#include "cli/output/session.hpp"
#include "core/base/diagnostics.hpp"
#include "core/io/files.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/report/check.hpp"
#include "core/report/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

namespace capsim::cli {

namespace {

struct CheckOptions
{
  std::string scenario;
  std::string baseline;
  std::string max_cost_increase = "1%";
  std::string max_node_hours_increase = "1%";
  std::string max_pending_p95_increase = "10%";
  std::string min_efficiency;
  std::optional<std::int64_t> max_unschedulable;
  std::vector<std::string> sets;
  std::string engine;
  std::optional<std::uint64_t> seed;
  std::string out;
  std::string progress = "auto";
};

double percent_option(const std::string& option, const std::string& text)
{
  const auto v = report::parse_percent(text);
  if (!v) {
    throw InputError(SourceLocation{option + " " + text, 0, 0}, "expected a percentage such as 1% or 0.5%");
  }
  return *v;
}

int check_command(const CheckOptions& o)
{
  report::CheckThresholds t;
  t.max_cost_increase = percent_option("--max-cost-increase", o.max_cost_increase);
  t.max_node_hours_increase = percent_option("--max-node-hours-increase", o.max_node_hours_increase);
  t.max_pending_p95_increase = percent_option("--max-pending-p95-increase", o.max_pending_p95_increase);
  if (!o.min_efficiency.empty()) {
    t.min_efficiency = report::parse_ratio(o.min_efficiency);
    if (!t.min_efficiency) {
      throw InputError(SourceLocation{"--min-efficiency " + o.min_efficiency, 0, 0},
                       "expected a ratio between 0 and 1 (0.8) or a percentage (80%)");
    }
  }
  if (o.max_unschedulable && *o.max_unschedulable < 0) {
    throw InputError(SourceLocation{"--max-unschedulable", 0, 0}, "expected a count >= 0");
  }
  t.max_unschedulable = o.max_unschedulable;

  const report::RunResult baseline = report::parse_result_json(io::read_text_file(o.baseline), o.baseline);
  const model::Scenario scenario = io::load_scenario(o.scenario, o.sets);
  refuse_input_as_output(o.out, scenario_files(scenario)); // (the baseline may be replaced: the next one)
  RunSettings settings;
  // The baseline's engines and seed unless told otherwise, so like is compared with like.
  settings.engines = engines_for(o.engine);
  if (o.engine.empty()) {
    for (const auto& r : baseline.results) {
      settings.engines.push_back(r.engine);
    }
  } else if (o.engine != "all") {
    // A gate that compares nothing would always pass. (An unknown name is the run's to refuse.)
    const bool known = o.engine == "karpenter" || o.engine == "cluster-autoscaler";
    const bool any = std::any_of(baseline.results.begin(), baseline.results.end(),
                                 [&](const report::EngineResult& r) { return r.engine == o.engine; });
    if (known && !any) {
      std::vector<std::string> in_baseline;
      for (const auto& r : baseline.results) {
        in_baseline.push_back(r.engine);
      }
      throw InputError(SourceLocation{"--engine " + o.engine, 0, 0},
                       fmt::format("the baseline has no result for this engine (it has {}): nothing to compare",
                                   fmt::join(in_baseline, ", ")));
    }
  }
  settings.seed = o.seed.value_or(baseline.seed);
  settings.progress = parse_progress_mode(o.progress).value_or(ProgressMode::automatic);
  const report::RunResult current = run_with_progress(scenario, settings, "capsim check " + scenario.settings.name);
  if (!o.out.empty()) {
    emit(report::render_json(current), o.out);
  }
  if (baseline.scenario != current.scenario) {
    std::cerr << "capsim: warning: the baseline is for scenario '" << baseline.scenario << "', this run is '"
              << current.scenario << "'\n";
  }
  const auto report = report::check_against_baseline(baseline, current, t);
  std::cout << report::render_check(report);
  return report.ok() ? 0 : 1;
}

} // namespace

void add_check_command(CLI::App& app, CommandResult& result)
{
  auto o = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand("check", "Rerun a scenario and compare with a saved result: exit 1 when cost or "
                                          "packing regresses past a threshold (for CI)");
  cmd->add_option("SCENARIO", o->scenario, "Scenario YAML file")->required();
  cmd->add_option("--baseline", o->baseline, "A result saved with capsim run -o json")->required();
  cmd->add_option("--max-cost-increase", o->max_cost_increase, "Allowed total cost increase per engine")
    ->capture_default_str();
  cmd->add_option("--max-node-hours-increase", o->max_node_hours_increase, "Allowed node-hours increase per engine")
    ->capture_default_str();
  cmd->add_option("--max-pending-p95-increase", o->max_pending_p95_increase,
                  "Allowed pending p95 increase per engine (increases under 1 s always pass)")
    ->capture_default_str();
  cmd->add_option("--min-efficiency", o->min_efficiency, "Minimum lower bound / cost (0.8 or 80%; default: not checked)");
  cmd->add_option("--max-unschedulable", o->max_unschedulable,
                  "Maximum pods still pending at the end (default: the baseline's count)");
  cmd->add_option("--set", o->sets, "Override a scenario field: PATH=VALUE");
  cmd->add_option("-e,--engine", o->engine, "Engine to run (default: the baseline's engines)")
    ->check(CLI::IsMember({"karpenter", "cluster-autoscaler", "all"}));
  cmd->add_option("--seed", o->seed, "Seed (default: the baseline's seed)")->check(seed_check());
  cmd->add_option("--out", o->out, "Also write this run's JSON result here (e.g. the next baseline)");
  cmd->add_option("--progress", o->progress, "Progress bar on stderr: auto, always, never")
    ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->footer("Exit codes: 0 within thresholds, 1 regression, 2 bad input.\n"
              "Example:\n"
              "  capsim run scenarios/quickstart.yaml -o json --out baseline.json\n"
              "  capsim check scenarios/quickstart.yaml --baseline baseline.json --max-cost-increase 2%");
  cmd->callback([&result, o] { result.action = [o] { return check_command(*o); }; });
}

} // namespace capsim::cli
