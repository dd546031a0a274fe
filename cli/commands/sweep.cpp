// `capsim sweep SCENARIO --vary PATH=V1,V2,...`: a grid of variants, each run with several
// seeds across threads, reported as mean and 95% confidence interval per variant and engine
// with the Pareto front of cost vs pending p95. `--shard I/N` runs a share of the grid,
// `--emit-k8s-job` writes a Kubernetes Indexed Job that runs every share, and
// `capsim sweep merge` reassembles the shares into the report of a local run (docs/sweep.md).
#include "cli/commands/commands.hpp"
#include "cli/output/emit.hpp"
#include "cli/output/progress.hpp"
#include "core/base/diagnostics.hpp"
#include "core/io/files.hpp"
#include "core/sweep/k8s_job.hpp"
#include "core/sweep/render.hpp"
#include "core/sweep/runner.hpp"
#include "core/sweep/shard.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

namespace capsim::cli {

namespace {

struct SweepOptions
{
  std::string scenario;
  std::vector<std::string> vary;
  std::vector<std::string> sets;
  std::int64_t seeds = 1; // (signed: CLI11 would read -1 into an unsigned count as its largest value)
  std::optional<std::uint64_t> seed;
  unsigned jobs = 0;
  std::string engine;
  std::string output;
  std::string out;
  std::string shard;
  std::string progress = "auto";
  // --emit-k8s-job
  bool emit = false;
  std::string image = std::string("capsim:") + CAPSIM_VERSION;
  std::size_t shards = 0;
  std::size_t parallelism = 0;
  std::string k8s_name;
  unsigned k8s_cpu = 1;
  std::string k8s_memory = "1Gi";
  std::string k8s_pvc;
};

struct MergeOptions
{
  std::vector<std::string> files;
  std::string output;
  std::string out;
};

// The sweep the command line describes (axes parsed and named).
sweep::SweepSpec spec_of(const SweepOptions& o)
{
  sweep::SweepSpec spec;
  spec.scenario_file = std::filesystem::path(o.scenario).filename().string();
  spec.sets = o.sets;
  for (const auto& v : o.vary) {
    spec.axes.push_back(sweep::parse_axis(v));
  }
  sweep::name_axes(spec.axes);
  if (o.seeds < 1 || o.seeds > static_cast<std::int64_t>(sweep::k_max_seeds)) {
    throw InputError(SourceLocation{"--seeds " + std::to_string(o.seeds), 0, 0},
                     "expected between 1 and " + std::to_string(sweep::k_max_seeds) + " seeds per variant");
  }
  spec.seeds = static_cast<std::size_t>(o.seeds);
  spec.seed = o.seed;
  spec.engine = o.engine;
  (void)spec.cell_count(); // InputError when the grid is absurdly large
  return spec;
}

// The files a pod needs besides the scenario: every variant's traces and catalog folder,
// relative to the scenario's folder (where the ConfigMap is mounted).
std::vector<sweep::JobFile> job_files(const std::string& scenario_path, const std::vector<model::Scenario>& scenarios)
{
  namespace fs = std::filesystem;
  const fs::path scenario = fs::absolute(scenario_path).lexically_normal();
  const fs::path folder = scenario.parent_path();
  std::vector<sweep::JobFile> out;
  out.push_back(sweep::JobFile{scenario.filename().string(), io::read_text_file(scenario_path)});
  std::set<std::string> seen{out.front().path};
  const auto add = [&](const std::string& path, const SourceLocation& at) {
    const fs::path rel = fs::absolute(path).lexically_normal().lexically_relative(folder);
    if (rel.empty() || *rel.begin() == "..") {
      throw InputError(at, "--emit-k8s-job mounts the scenario's folder: '" + path
                               + "' must be in that folder or below it");
    }
    const std::string key = rel.generic_string();
    if (seen.insert(key).second) {
      out.push_back(sweep::JobFile{key, io::read_text_file(path, at)});
    }
  };
  for (const auto& s : scenarios) {
    for (const auto& t : s.traces) {
      add(t.path, t.location);
    }
    const auto& catalog = s.settings.catalog;
    if (!catalog.empty() && catalog != "default") {
      const std::string dir = io::resolve_relative(s.source_path, catalog);
      for (const char* name : {"instance_types.csv", "prices.csv", "spot.csv", "zones.csv", "spot_zone_factors.csv"}) {
        const fs::path file = fs::path(dir) / name;
        if (fs::exists(file)) {
          add(file.string(), s.settings.location);
        }
      }
    }
  }
  return out;
}

int emit_k8s_job(const SweepOptions& o, const sweep::SweepSpec& spec, const std::vector<sweep::Variant>& variants)
{
  if (!o.output.empty()) {
    throw InputError(SourceLocation{"-o " + o.output, 0, 0}, "--emit-k8s-job writes a YAML manifest; leave out -o");
  }
  if (!o.shard.empty()) {
    throw InputError(SourceLocation{"--shard " + o.shard, 0, 0},
                     "--emit-k8s-job gives each pod its own --shard; leave it out (use --shards N)");
  }
  // Load every variant here, so a typo fails now rather than in the cluster.
  const auto scenarios = sweep::load_variants(variants);
  sweep::K8sJobOptions job;
  job.name = o.k8s_name.empty() ? sweep::default_job_name(scenarios.front().settings.name) : o.k8s_name;
  job.image = o.image;
  job.shards = o.shards == 0 ? std::min<std::size_t>(spec.cell_count(), 20) : o.shards;
  job.parallelism = o.parallelism;
  job.cpu = o.k8s_cpu;
  job.memory = o.k8s_memory;
  job.pvc = o.k8s_pvc;
  job.spec = spec;
  job.files = job_files(o.scenario, scenarios);
  if (job.cpu < 1) {
    throw InputError(SourceLocation{"--k8s-cpu 0", 0, 0}, "each pod needs at least 1 CPU");
  }
  emit(sweep::render_k8s_job(job), o.out);
  return 0;
}

int sweep_command(const SweepOptions& o)
{
  if (o.scenario.empty()) {
    throw InputError(SourceLocation{"capsim sweep", 0, 0},
                     "expected a scenario file (capsim sweep SCENARIO --vary PATH=V1,V2,...) or `capsim sweep merge FILES...`");
  }
  const sweep::SweepSpec spec = spec_of(o);
  const auto variants = sweep::grid_variants(o.scenario, spec.axes, spec.sets);
  refuse_input_as_output(o.out, {o.scenario});
  if (o.emit) {
    return emit_k8s_job(o, spec, variants);
  }
  const bool sharded = !o.shard.empty();
  const sweep::Shard shard = sharded ? sweep::parse_shard(o.shard) : sweep::Shard{};
  report::Format format = report::Format::json;
  if (sharded) {
    if (!o.output.empty() && o.output != "json") {
      throw InputError(SourceLocation{"-o " + o.output, 0, 0},
                       "--shard writes the raw cells as JSON for `capsim sweep merge` (use -o json)");
    }
  } else {
    format = choose_format(o.output, o.out, stdout_is_terminal());
  }

  sweep::RunnerOptions runner;
  if (!o.engine.empty()) {
    runner.engines = {o.engine};
  }
  runner.jobs = o.jobs;
  ProgressBar bar(parse_progress_mode(o.progress).value_or(ProgressMode::automatic),
                  "capsim sweep");
  if (bar.enabled()) {
    runner.progress = [&bar](double fraction) { bar.update(fraction); };
  }
  std::vector<sweep::CellResult> results = sweep::run_shard(spec, variants, shard, runner);
  bar.finish();

  if (sharded) {
    emit(sweep::render_shard_json(sweep::ShardResult{CAPSIM_VERSION, spec, shard, std::move(results)}), o.out);
    return 0;
  }
  const auto report = sweep::build_report(CAPSIM_VERSION, spec, std::move(results));
  emit(sweep::render(report, format), o.out);
  return 0;
}

int merge_command(const MergeOptions& o)
{
  refuse_input_as_output(o.out, o.files);
  std::vector<sweep::ShardResult> shards;
  for (const auto& f : o.files) {
    shards.push_back(sweep::parse_shard_json(io::read_text_file(f), f));
  }
  const report::Format format = choose_format(o.output, o.out, stdout_is_terminal());
  emit(sweep::render(sweep::merge_shards(shards, o.files), format), o.out);
  return 0;
}

} // namespace

void add_sweep_command(CLI::App& app, CommandResult& result)
{
  auto o = std::make_shared<SweepOptions>();
  auto m = std::make_shared<MergeOptions>();
  auto* cmd = app.add_subcommand("sweep", "Run a grid of variants (--vary) with several seeds each and report the mean "
                                          "and 95% confidence interval per variant, with the cost/pending Pareto front");
  cmd->add_option("SCENARIO", o->scenario, "Scenario YAML file");
  cmd->add_option("--vary", o->vary,
                  "An axis of the grid: [NAME:]PATH=V1,V2,... (commas inside [], {} or quotes do not split)");
  cmd->add_option("--set", o->sets, "Override a field in every variant: PATH=VALUE");
  cmd->add_option("--seeds", o->seeds, "Runs per variant, with seeds spec.seed, spec.seed+1, ... (default 1)");
  cmd->add_option("--seed", o->seed, "First seed of every variant (default: each variant's spec.seed)")
      ->check(seed_check());
  cmd->add_option("-j,--jobs", o->jobs, "Simulations run at once (default: the machine's hardware threads)");
  cmd->add_option("-e,--engine", o->engine, "Engine to run (default: those the scenario configures)")
    ->check(CLI::IsMember({"karpenter", "cluster-autoscaler", "all"}));
  cmd->add_option("-o,--output", o->output, "Output format (default: table on a terminal, json otherwise)")
    ->check(CLI::IsMember({"table", "json", "csv", "markdown", "md", "html"}));
  cmd->add_option("--out", o->out, "Write to this file (atomically) instead of stdout");
  cmd->add_option("--shard", o->shard, "Run only cells i with i mod N == I and write them as JSON for `sweep merge`: I/N");
  cmd->add_option("--progress", o->progress, "Progress bar on stderr: auto, always, never")
    ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--emit-k8s-job", o->emit, "Write a Kubernetes Indexed Job (and ConfigMap) that runs the shards instead");
  cmd->add_option("--image", o->image, "--emit-k8s-job: container image with capsim on its PATH (default capsim:VERSION)");
  cmd->add_option("--shards", o->shards, "--emit-k8s-job: number of shards, the Job's completions (default: runs, at most 20)");
  cmd->add_option("--parallelism", o->parallelism, "--emit-k8s-job: pods at once (default: all shards)");
  cmd->add_option("--k8s-name", o->k8s_name, "--emit-k8s-job: Job name (default capsim-sweep-<scenario name>)");
  cmd->add_option("--k8s-cpu", o->k8s_cpu, "--emit-k8s-job: CPU request per pod, also its --jobs (default 1)");
  cmd->add_option("--k8s-memory", o->k8s_memory, "--emit-k8s-job: memory request and limit per pod (default 1Gi)");
  cmd->add_option("--k8s-pvc", o->k8s_pvc,
                  "--emit-k8s-job: PersistentVolumeClaim to write shard files to (default: stdout, read with kubectl logs)");
  cmd->footer("Examples:\n"
              "  capsim sweep s.yaml --vary NodePool/default.spec.disruption.consolidateAfter=0s,5m,30m --seeds 5\n"
              "  capsim sweep s.yaml --vary arch:NodePool/default.spec.template.spec.requirements[0].values=[amd64],[arm64] -o html --out sweep.html\n"
              "  capsim sweep s.yaml --vary ... --seeds 10 --shard 0/4 --out shard-0.json\n"
              "  capsim sweep s.yaml --vary ... --seeds 10 --emit-k8s-job --shards 4 --image registry/capsim:0.1.0 --out job.yaml\n"
              "  capsim sweep merge shard-*.json -o html --out sweep.html");

  auto* merge = cmd->add_subcommand("merge", "Merge `capsim sweep --shard` outputs into the report of the whole sweep");
  merge->add_option("FILES", m->files, "Shard JSON files (every shard of one sweep)")->required();
  merge->add_option("-o,--output", m->output, "Output format (default: table on a terminal, json otherwise)")
    ->check(CLI::IsMember({"table", "json", "csv", "markdown", "md", "html"}));
  merge->add_option("--out", m->out, "Write to this file (atomically) instead of stdout");
  merge->callback([&result, m] { result.action = [m] { return merge_command(*m); }; });

  cmd->callback([&result, o, merge] {
    if (merge->parsed()) {
      return; // `sweep merge` set the action
    }
    result.action = [o] { return sweep_command(*o); };
  });
}

} // namespace capsim::cli
