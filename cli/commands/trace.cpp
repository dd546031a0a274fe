// `capsim trace stats|convert|generate`: summarise, convert and synthesise pod traces (SPEC §3).
#include "cli/commands/commands.hpp"
#include "cli/output/emit.hpp"
#include "core/base/quantity.hpp"
#include "core/base/text.hpp"
#include "core/io/files.hpp"
#include "core/io/trace.hpp"
#include "core/io/trace_stats.hpp"
#include "core/io/workload.hpp"
#include "core/model/resources.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace capsim::cli {

namespace {

io::TraceFormat format_or(const std::string& name, const std::string& path, const std::string& flag)
{
  if (name.empty()) {
    return io::guess_trace_format(path);
  }
  if (auto f = io::parse_trace_format(name)) {
    return *f;
  }
  throw InputError(SourceLocation{flag, 0, 0},
                   fmt::format("unknown trace format '{}' (expected csv, jsonl, openb or kubectl)", name));
}

struct StatsOptions
{
  std::string file;
  std::string format;
  std::string output = "text";
};

int run_stats(const StatsOptions& o)
{
  const auto format = format_or(o.format, o.file, "--format");
  const auto pods = io::read_trace(o.file, format);
  const auto stats = io::trace_stats(pods);
  if (o.output == "json") {
    std::cout << io::trace_stats_json(stats, o.file) << '\n';
  } else {
    std::cout << fmt::format("{} ({})\n{}\n", o.file, io::to_string(format), io::format_trace_stats(stats));
  }
  return 0;
}

struct ConvertOptions
{
  std::string in;
  std::string out;
  std::string from;
  std::string to;
};

int run_convert(const ConvertOptions& o)
{
  const auto from = format_or(o.from, o.in, "--from");
  const auto to = format_or(o.to, o.out, "--to");
  if (to != io::TraceFormat::csv && to != io::TraceFormat::jsonl) {
    throw InputError(SourceLocation{"--to", 0, 0}, "traces are written as csv or jsonl");
  }
  refuse_input_as_output(o.out, {o.in});
  const auto pods = io::read_trace(o.in, from);
  io::AtomicFile file(o.out);
  io::write_trace(file.stream(), pods, to);
  file.commit();
  std::cerr << fmt::format("wrote {} pods to {} ({})\n", pods.size(), o.out, io::to_string(to));
  return 0;
}

struct GenerateOptions
{
  std::string pattern;
  std::string out;
  std::string format;
  std::uint64_t seed = 1;
  std::string duration = "24h";
  std::int32_t min = 0;
  std::int32_t max = 0;
  std::string period = "24h";
  double rate_per_hour = 0;
  double peak_rate_per_hour = 0;
  std::string shapes;
  std::string steps;
  std::string at = "0s";
  std::int32_t count = 0;
  std::int32_t replicas = 0;
  std::string runtime;
  std::string cpu = "500m";
  std::string memory = "512Mi";
  std::string template_name = "generated";
};

Duration duration_flag(const std::string& text, const std::string& flag)
{
  auto d = parse_duration(text);
  if (!d) {
    throw InputError(SourceLocation{flag, 0, 0}, d.error());
  }
  return *d;
}

// --shapes CPU/MEMORY,... e.g. 250m/512Mi,1/2Gi,8/32Gi; empty = none.
std::vector<model::Resources> parse_shapes(const std::string& text)
{
  std::vector<model::Resources> out;
  if (text.empty()) {
    return out;
  }
  for (const auto& part : split(text, ',')) {
    const std::string shape(trim(part));
    const auto slash = shape.find('/');
    if (slash == std::string::npos) {
      throw InputError(SourceLocation{"--shapes", 0, 0},
                       fmt::format("shape '{}' is not CPU/MEMORY (e.g. 250m/512Mi)", shape));
    }
    model::Resources r;
    if (const auto e = model::set_resource(r, "cpu", shape.substr(0, slash)); !e.empty()) {
      throw InputError(SourceLocation{"--shapes", 0, 0}, fmt::format("shape '{}': {}", shape, e));
    }
    if (const auto e = model::set_resource(r, "memory", shape.substr(slash + 1)); !e.empty()) {
      throw InputError(SourceLocation{"--shapes", 0, 0}, fmt::format("shape '{}': {}", shape, e));
    }
    out.push_back(r);
  }
  return out;
}

int run_generate(const GenerateOptions& o)
{
  model::Generator g;
  g.template_name = o.template_name;
  g.pattern = o.pattern;
  g.location = SourceLocation{"--pattern", 0, 0};
  const Duration horizon = duration_flag(o.duration, "--duration");
  if (horizon <= 0) {
    throw InputError(SourceLocation{"--duration", 0, 0}, "--duration must be positive");
  }
  if (o.pattern == "diurnal") {
    if (o.max < o.min || o.min < 0) {
      throw InputError(SourceLocation{"--max", 0, 0}, "diurnal needs 0 <= --min <= --max");
    }
    g.min = o.min;
    g.max = o.max;
    g.period = duration_flag(o.period, "--period");
    if (g.period < k_minute) {
      throw InputError(SourceLocation{"--period", 0, 0}, "--period must be at least 1m");
    }
  } else if (o.pattern == "poisson") {
    if (!(o.rate_per_hour > 0)) {
      throw InputError(SourceLocation{"--rate-per-hour", 0, 0}, "poisson needs --rate-per-hour > 0");
    }
    g.rate_per_hour = o.rate_per_hour;
    g.peak_rate_per_hour = o.peak_rate_per_hour;
    if (o.peak_rate_per_hour != 0 && o.peak_rate_per_hour < o.rate_per_hour) {
      throw InputError(SourceLocation{"--peak-rate-per-hour", 0, 0}, "--peak-rate-per-hour must be >= --rate-per-hour");
    }
    g.period = duration_flag(o.period, "--period");
    if (g.period < k_minute) {
      throw InputError(SourceLocation{"--period", 0, 0}, "--period must be at least 1m");
    }
  } else if (o.pattern == "steps") {
    auto steps = io::parse_steps_spec(o.steps);
    if (!steps) {
      throw InputError(SourceLocation{"--steps", 0, 0}, steps.error());
    }
    g.steps = *steps;
  } else if (o.pattern == "burst") {
    g.at = duration_flag(o.at, "--at");
    if (o.count < 0) {
      throw InputError(SourceLocation{"--count", 0, 0}, "burst needs --count >= 0");
    }
    g.count = o.count;
  } else if (o.pattern == "constant") {
    if (o.replicas < 0) {
      throw InputError(SourceLocation{"--replicas", 0, 0}, "constant needs --replicas >= 0");
    }
    g.steps.push_back({0, o.replicas});
  }
  if (!o.runtime.empty()) {
    auto r = io::parse_runtime_spec(o.runtime);
    if (!r) {
      throw InputError(SourceLocation{"--runtime", 0, 0}, r.error());
    }
    g.runtime = *r;
  }
  model::Resources requests;
  if (const auto e = model::set_resource(requests, "cpu", o.cpu); !e.empty()) {
    throw InputError(SourceLocation{"--cpu", 0, 0}, e);
  }
  if (const auto e = model::set_resource(requests, "memory", o.memory); !e.empty()) {
    throw InputError(SourceLocation{"--memory", 0, 0}, e);
  }
  const std::vector<model::Resources> shapes = parse_shapes(o.shapes);
  // The same streams a scenario generator with this template and pattern uses.
  const std::string stream = io::generator_stream(g, 0);
  Rng arrivals(o.seed, stream);
  Rng runtimes(o.seed, stream + "/runtime");
  Rng shape_draws(o.seed, stream + "/shapes");
  const auto generated = io::generate_arrivals(g, horizon, arrivals, runtimes);
  auto spec = std::make_shared<model::PodSpec>();
  spec->template_name = o.template_name;
  spec->requests = requests;
  std::vector<model::Pod> pods;
  pods.reserve(generated.size());
  std::size_t n = 0;
  for (const auto& a : generated) {
    model::Pod p;
    p.name = fmt::format("{}-{}", o.template_name, n++);
    p.spec = spec;
    p.requests = shapes.empty() ? requests : shapes[shape_draws.below(shapes.size())];
    p.arrival = a.arrival;
    p.runtime = a.runtime;
    p.departure = a.departure;
    pods.push_back(std::move(p));
  }
  io::sort_by_arrival(pods);
  const auto to = format_or(o.format, o.out, "--format");
  if (to != io::TraceFormat::csv && to != io::TraceFormat::jsonl) {
    throw InputError(SourceLocation{"--format", 0, 0}, "traces are written as csv or jsonl");
  }
  io::AtomicFile file(o.out);
  io::write_trace(file.stream(), pods, to);
  file.commit();
  std::cerr << fmt::format("wrote {} pods to {} ({}, seed {})\n", pods.size(), o.out, io::to_string(to), o.seed);
  return 0;
}

} // namespace

void add_trace_command(CLI::App& app, CommandResult& result)
{
  auto* cmd = app.add_subcommand("trace", "Summarise, convert and generate pod traces (csv, jsonl, openb, kubectl)");
  cmd->require_subcommand(1);
  cmd->footer("Examples:\n"
              "  capsim trace stats scenarios/traces/day1.csv\n"
              "  capsim trace convert pods.json day.csv --from kubectl\n"
              "  capsim trace generate --pattern poisson --rate-per-hour 300 --runtime lognormal:median=20m,p95=2h \\\n"
              "      --duration 24h --seed 7 --out batch.csv");

  auto stats = std::make_shared<StatsOptions>();
  auto* s = cmd->add_subcommand("stats", "Pods, time span, request distributions (p50/p95/max) and peak concurrent "
                                         "pods, cpu and memory of a trace");
  s->add_option("FILE", stats->file, "Trace file")->required();
  s->add_option("--format", stats->format, "csv | jsonl | openb | kubectl (default: from the extension)");
  s->add_option("-o,--output", stats->output, "text | json")->check(CLI::IsMember({"text", "json"}));
  s->footer("Peaks assume every pod runs from its arrival (no pending time).\n"
            "Example: capsim trace stats openb_pod_list_default.csv --format openb -o json");
  s->callback([stats, &result] { result.action = [stats] { return run_stats(*stats); }; });

  auto conv = std::make_shared<ConvertOptions>();
  auto* c = cmd->add_subcommand("convert", "Convert a trace to csv or jsonl (timing and requests; templates by name)");
  c->add_option("IN", conv->in, "Input trace")->required();
  c->add_option("OUT", conv->out, "Output file (written to a temporary file, then renamed)")->required();
  c->add_option("--from", conv->from, "csv | jsonl | openb | kubectl (default: from the extension)");
  c->add_option("--to", conv->to, "csv | jsonl (default: from the extension)");
  c->footer("Examples:\n"
            "  capsim trace convert pods.json day.csv --from kubectl   # kubectl get pods -A -o json > pods.json\n"
            "  capsim trace convert openb_pod_list_default.csv openb.jsonl --from openb\n"
            "RFC 3339 times become seconds from the earliest arrival; kubectl pods' constraints are dropped.");
  c->callback([conv, &result] { result.action = [conv] { return run_convert(*conv); }; });

  auto gen = std::make_shared<GenerateOptions>();
  auto* g = cmd->add_subcommand("generate", "Write a synthetic, seeded trace (same flags and seed => same file)");
  g->add_option("--pattern", gen->pattern, "diurnal | poisson | steps | burst | constant")
      ->required()
      ->check(CLI::IsMember({"diurnal", "poisson", "steps", "burst", "constant"}));
  g->add_option("--out", gen->out, "Output file (.csv or .jsonl)")->required();
  g->add_option("--format", gen->format, "csv | jsonl (default: from --out's extension)");
  g->add_option("--seed", gen->seed, "Random seed (default 1)")->check(seed_check());
  g->add_option("--duration", gen->duration, "Length of the trace (default 24h)");
  g->add_option("--min", gen->min, "diurnal: replicas at the trough (t=0)");
  g->add_option("--max", gen->max, "diurnal: replicas at the peak (t=period/2)");
  g->add_option("--period", gen->period, "diurnal, poisson with --peak-rate-per-hour: period of the cycle (default 24h)");
  g->add_option("--rate-per-hour", gen->rate_per_hour, "poisson: mean arrivals per hour (at t=0 with --peak-rate-per-hour)");
  g->add_option("--peak-rate-per-hour", gen->peak_rate_per_hour,
                "poisson: the rate cycles from --rate-per-hour (t=0) to this (t=period/2) and back");
  g->add_option("--steps", gen->steps, "steps: TIME=REPLICAS,... e.g. 0s=10,2h=40,6h=5");
  g->add_option("--at", gen->at, "burst: arrival time of the burst (default 0s)");
  g->add_option("--count", gen->count, "burst: number of pods");
  g->add_option("--replicas", gen->replicas, "constant: number of pods at t=0");
  g->add_option("--runtime", gen->runtime,
                "poisson/burst: running time per pod: 20m | fixed:20m | exponential:mean=20m | "
                "lognormal:median=20m,p95=2h | uniform:min=1m,max=5m (default: until the end)");
  g->add_option("--cpu", gen->cpu, "cpu request of every pod (default 500m)");
  g->add_option("--memory", gen->memory, "memory request of every pod (default 512Mi)");
  g->add_option("--shapes", gen->shapes,
                "requests drawn uniformly per pod from CPU/MEMORY,... (e.g. 250m/512Mi,1/2Gi,8/32Gi); overrides --cpu/--memory");
  g->add_option("--template", gen->template_name, "template column: a workload name in your scenario (default generated)");
  g->footer("Patterns:\n"
            "  diurnal   replicas follow min + (max-min)(1-cos(2 pi t/period))/2, evaluated every minute;\n"
            "            pods are created as it rises and the newest deleted (departure) as it falls\n"
            "  poisson   exponential inter-arrival times; each pod runs for a --runtime draw\n"
            "  steps     replica count set at each step; burst: --count pods at --at; constant: --replicas\n"
            "Examples:\n"
            "  capsim trace generate --pattern diurnal --min 20 --max 120 --period 24h --duration 48h --out web.csv\n"
            "  capsim trace generate --pattern poisson --rate-per-hour 300 --runtime lognormal:median=20m,p95=2h \\\n"
            "      --cpu 1 --memory 2Gi --template batch --seed 42 --out batch.jsonl\n"
            "  capsim trace generate --pattern steps --steps 0s=10,2h=40,6h=5 --duration 8h --out api.csv\n"
            "  capsim trace generate --pattern burst --at 1h --count 500 --runtime uniform:min=5m,max=15m --out b.csv");
  g->callback([gen, &result] { result.action = [gen] { return run_generate(*gen); }; });
}

} // namespace capsim::cli
