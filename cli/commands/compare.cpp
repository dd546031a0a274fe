// `capsim compare A.yaml [B.yaml ...] [--variant name:PATH=VALUE ...]`: the same workload and
// seed through each design (and each engine), side by side, with deltas against the first.
#include "cli/commands/commands.hpp"
#include "cli/output/emit.hpp"
#include "cli/output/session.hpp"
#include "core/base/diagnostics.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/report/summary.hpp"
#include "core/sweep/runner.hpp"

#include <filesystem>
#include <memory>

namespace capsim::cli {

namespace {

struct CompareOptions
{
  std::vector<std::string> scenarios;
  std::vector<std::string> variants;
  std::vector<std::string> sets;
  std::string engine;
  std::string output;
  std::string out;
  std::optional<std::uint64_t> seed;
  std::string timeline;
  std::string progress = "auto";
};

// One design to run: a scenario file plus its --set overrides.
struct DesignSpec
{
  std::string name;
  std::string path;
  std::vector<std::string> sets;
};

// The file name without folder and extension: designs/a.yaml -> "a".
std::string stem(const std::string& path)
{
  return std::filesystem::path(path).stem().string();
}

// Scenario files first (named by file stem, made unique), then the variants of the first
// scenario in the order their names first appear; repeated --variant NAME:... accumulate.
std::vector<DesignSpec> design_specs(const CompareOptions& o)
{
  std::vector<DesignSpec> out;
  const auto unique_name = [&](std::string name) {
    std::string candidate = name;
    for (int i = 2;; ++i) {
      bool taken = false;
      for (const auto& d : out) {
        taken = taken || d.name == candidate;
      }
      if (!taken) {
        return candidate;
      }
      candidate = name + "#" + std::to_string(i);
    }
  };
  for (const auto& path : o.scenarios) {
    out.push_back(DesignSpec{unique_name(stem(path)), path, o.sets});
  }
  const std::size_t files = out.size();
  for (const auto& v : o.variants) {
    const auto colon = v.find(':');
    if (colon == std::string::npos || colon == 0 || v.find('=', colon) == std::string::npos) {
      throw InputError(SourceLocation{"--variant " + v, 0, 0},
                       "expected NAME:PATH=VALUE (e.g. arm:NodePool/default.spec.template.spec.requirements[0].values=[arm64])");
    }
    const std::string name = v.substr(0, colon);
    const std::string set = v.substr(colon + 1);
    DesignSpec* found = nullptr;
    for (std::size_t i = files; i < out.size(); ++i) {
      if (out[i].name == name) {
        found = &out[i];
      }
    }
    if (found == nullptr) {
      for (std::size_t i = 0; i < files; ++i) {
        if (out[i].name == name) {
          throw InputError(SourceLocation{"--variant " + v, 0, 0},
                           "the variant name '" + name + "' is already the name of a scenario file");
        }
      }
      out.push_back(DesignSpec{name, o.scenarios.front(), o.sets});
      found = &out.back();
    }
    found->sets.push_back(set);
  }
  if (out.size() < 2) {
    throw InputError(SourceLocation{"capsim compare", 0, 0},
                     "nothing to compare: give two scenarios or a --variant NAME:PATH=VALUE");
  }
  return out;
}

int compare_command(const CompareOptions& o)
{
  const auto specs = design_specs(o);
  const report::Format format = choose_format(o.output, o.out, stdout_is_terminal());
  // Load everything first, so a typo in the last design fails before minutes of simulation.
  std::vector<model::Scenario> scenarios;
  for (const auto& d : specs) {
    scenarios.push_back(io::load_scenario(d.path, d.sets));
    refuse_input_as_output(o.out, scenario_files(scenarios.back()));
  }
  RunSettings settings;
  settings.engines = engines_for(o.engine);
  // The same seed for every design: --seed, else the first design's spec.seed.
  settings.seed = o.seed.value_or(scenarios.front().settings.seed);
  settings.progress = parse_progress_mode(o.progress).value_or(ProgressMode::automatic);
  if (!o.timeline.empty()) {
    settings.timeline_step = parse_timeline_step(o.timeline);
  } else if (format == report::Format::html) {
    settings.timeline_step = automatic_timeline_step(scenarios.front().settings.duration);
  }
  // The runner `sweep` shares (core/sweep/runner.hpp): designs run in parallel, each result
  // kept at its design's index, so the output does not depend on the thread count.
  sweep::RunnerOptions runner;
  runner.engines = settings.engines;
  runner.timeline_step = settings.timeline_step;
  ProgressBar bar(settings.progress, "capsim compare");
  if (bar.enabled()) {
    runner.progress = [&bar](double fraction) { bar.update(fraction); };
  }
  auto runs = sweep::run_cells(scenarios, sweep::seed_cells(std::vector<std::uint64_t>(specs.size(), *settings.seed), 1), runner);
  bar.finish();
  report::Comparison cmp;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    cmp.designs.push_back(report::Design{specs[i].name, std::move(runs[i])});
  }
  report::RenderOptions render;
  render.deltas = true;
  render.color = format == report::Format::table && o.out.empty() && color_wanted();
  emit(report::render(cmp, format, render), o.out);
  return 0;
}

} // namespace

void add_compare_command(CLI::App& app, CommandResult& result)
{
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand("compare", "Compare designs (scenario files or --variant overrides) on the same "
                                            "workload and seed, side by side with deltas against the first");
  cmd->add_option("SCENARIO", o->scenarios, "Scenario YAML files (the first is the baseline of the deltas)")
    ->required();
  cmd->add_option("--variant", o->variants,
                  "A design made of the first scenario plus overrides: NAME:PATH=VALUE (repeat a NAME to add more)");
  cmd->add_option("--set", o->sets, "Override a field in every design: PATH=VALUE");
  cmd->add_option("-e,--engine", o->engine, "Engine to run (default: those each scenario configures)")
    ->check(CLI::IsMember({"karpenter", "cluster-autoscaler", "all"}));
  cmd->add_option("-o,--output", o->output, "Output format (default: table on a terminal, json otherwise)")
    ->check(CLI::IsMember({"table", "json", "csv", "markdown", "md", "html"}));
  cmd->add_option("--out", o->out, "Write the comparison to this file (atomically) instead of stdout");
  cmd->add_option("--seed", o->seed, "Seed for every design (default: the first scenario's spec.seed)")
      ->check(seed_check());
  cmd->add_option("--timeline", o->timeline, "Add timeline rows every STEP (e.g. 5m)");
  cmd->add_option("--progress", o->progress, "Progress bar on stderr: auto, always, never")
    ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->footer("Examples:\n"
              "  capsim compare designs/current.yaml designs/arm.yaml\n"
              "  capsim compare s.yaml --variant fast:NodePool/default.spec.disruption.consolidateAfter=1m -o markdown");
  cmd->callback([&result, o] { result.action = [o] { return compare_command(*o); }; });
}

} // namespace capsim::cli
