// `capsim validate SCENARIO [--set PATH=VALUE]...`: read a scenario the way `run` does (every
// document, --set overrides, traces, generators, the catalog and the engines' set-up) and print a
// short summary, or every error.
#include "cli/commands/commands.hpp"
#include "core/base/quantity.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/trace_stats.hpp"
#include "core/io/workload.hpp"
#include "core/sim/run.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace capsim::cli {

namespace {

struct ValidateOptions
{
  std::string scenario;
  std::vector<std::string> sets;
};

// Durations for people: whole seconds ("1m30s" rather than "1m30300ms").
std::string when(SimTime ms)
{
  return format_duration((ms + 500) / 1000 * 1000);
}

std::string cores(std::int64_t millis)
{
  return millis % 1000 == 0 ? fmt::format("{}", millis / 1000) : fmt::format("{:.3f}", static_cast<double>(millis) / 1000.0);
}

int run_validate(const ValidateOptions& o)
{
  const model::Scenario s = io::load_scenario(o.scenario, o.sets);
  const auto pods = io::expand_workload(s);
  sim::check_scenario(s, pods); // what `run` would reject before simulating: the same message
  const auto stats = io::trace_stats(pods);
  const auto& st = s.settings;

  std::string kinds;
  for (const auto& [kind, count] : s.kind_counts) {
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kind, count);
  }
  std::size_t at_start = 0;
  std::size_t bound = 0;
  for (const auto& p : pods) {
    at_start += p.arrival == 0 ? 1 : 0;
    bound += p.node_name.empty() ? 0 : 1;
  }
  std::cout << fmt::format("{}: ok\n", o.scenario);
  std::cout << fmt::format("  scenario   {} (region {}, duration {}, seed {}, engines {})\n", st.name, st.region,
                           st.duration > 0 ? format_duration(st.duration) : "until the workload ends", st.seed,
                           st.engines.empty() ? "none configured" : fmt::format("{}", fmt::join(st.engines, ", ")));
  std::cout << fmt::format("  documents  {}\n", kinds);
  std::cout << fmt::format("  nodes      {} at t=0; node pools {}{}, node groups {}\n", s.nodes.size(),
                           s.node_pools.size(),
                           s.node_pool_updates.empty()
                               ? ""
                               : fmt::format(" (+{} version{} applied later)", s.node_pool_updates.size(),
                                             s.node_pool_updates.size() == 1 ? "" : "s"),
                           s.node_groups.size());
  for (const auto& p : s.node_pools) {
    if (p.created_at > 0 || p.deleted_at >= 0) {
      std::cout << fmt::format("  note       NodePool {} exists {} {}\n", p.name,
                               p.created_at > 0 ? "from " + format_duration(p.created_at) : std::string("from the start"),
                               p.deleted_at >= 0 ? "until " + format_duration(p.deleted_at) : std::string("on"));
    }
    if (p.replicas && !st.karpenter.static_capacity) {
      std::cout << fmt::format("  note       NodePool {} is static (spec.replicas: {}), but Karpenter's StaticCapacity "
                               "feature gate (spec.karpenter.staticCapacity) is off: it launches nothing\n",
                               p.name, *p.replicas);
    }
  }
  std::cout << fmt::format("  pods       {} ({} at t=0, {} bound to nodes); traces {}, generators {}\n", pods.size(),
                           at_start, bound, s.traces.size(), s.generators.size());
  if (!pods.empty()) {
    std::cout << fmt::format("  arrivals   {} .. {}{}\n", when(stats.first_arrival),
                             when(stats.last_arrival),
                             stats.last_end >= 0 ? fmt::format("; last pod ends at {}", when(stats.last_end))
                                                 : "");
    std::cout << fmt::format("  peak       {} pods, {} cpu, {} memory requested (if nothing waits)\n", stats.peak_pods,
                             cores(stats.peak_cpu), format_bytes(stats.peak_memory));
  }
  if (s.inline_catalog) {
    std::cout << fmt::format("  catalog    inline ({}, {} instance types, zones {})\n",
                             s.inline_catalog->replace ? "replaces the default" : "extends the default",
                             s.inline_catalog->instance_types.size(), fmt::join(s.inline_catalog->zones, ", "));
  } else {
    std::cout << fmt::format("  catalog    {}\n", st.catalog);
  }
  if (!s.events.empty()) {
    std::cout << fmt::format("  events     {}\n", s.events.size());
  }
  return 0;
}

} // namespace

void add_validate_command(CLI::App& app, CommandResult& result)
{
  auto opts = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand("validate", "Check a scenario file: every document, --set override, trace and "
                                             "generator; print a summary (exit 0) or every error (exit 2)");
  cmd->add_option("SCENARIO", opts->scenario, "Scenario YAML file (SPEC §2)")->required();
  cmd->add_option("--set", opts->sets,
                  "Override a field before validation: PATH=VALUE, repeatable "
                  "(Scenario.spec.duration=2h, NodePool/default.spec.disruption.consolidateAfter=5m)")
      ->allow_extra_args(false);
  cmd->footer("Examples:\n"
              "  capsim validate scenarios/quickstart.yaml\n"
              "  capsim validate scenarios/quickstart.yaml --set Deployment/web.spec.replicas=30\n"
              "  capsim validate my.yaml --set 'NodePool/default.spec.template.spec.expireAfter=Never'\n"
              "Errors are printed as FILE:LINE:COL: error: ... (several at once) and exit with status 2.");
  cmd->callback([opts, &result] { result.action = [opts] { return run_validate(*opts); }; });
}

} // namespace capsim::cli
