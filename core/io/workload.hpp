#pragma once

#include "core/base/expected.hpp"
#include "core/base/rng.hpp"
#include "core/model/pod.hpp"
#include "core/model/scenario.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capsim::io {

struct ExpandOptions
{
  std::optional<Duration> horizon; // default: the scenario's spec.duration (0 = none)
  bool read_traces = true;         // false: leave trace files out (summaries without I/O)
};

// Every pod of a scenario's workload, sorted by arrival; ties keep the source order below,
// which is total and the same on every run:
//   1. bare Pods (document order), arrival 0, bound ones keep spec.nodeName;
//   2. Deployment/StatefulSet/ReplicaSet/Job replicas (document order): pods <name>-0, -1, ...
//      at t=0 with the workload's runtime; a Job with completions > parallelism runs in waves,
//      wave k arriving at k x runtime (the pods' own pending time is not waited for);
//   3. traces (listed order, then row order);
//   4. generators (listed order): pods <template>-g<i>-<n>, drawn from Rng streams named
//      "generator/<template>/<pattern>/<occurrence>" of the scenario seed, so adding a
//      generator never changes another's pods.
// Pods whose volume claims resolve on their own (Workload::ordinal_specs and per_pod_claims, also
// for trace rows and generator pods of such a template) get their own spec (io::PerPodSpecs).
// Pods arriving at or after the horizon are left out. Throws InputError for unreadable
// traces, absurd sizes (over k_max_workload_pods) and when the workload has no natural end
// but spec.duration is not set.
[[nodiscard]] std::vector<model::Pod> expand_workload(const model::Scenario& scenario,
                                                      const ExpandOptions& options = {});

// When one generated pod arrives and ends (runtime after start, or deletion time).
struct GeneratedArrival
{
  SimTime arrival = 0;
  Duration runtime = -1;
  SimTime departure = -1;

  bool operator==(const GeneratedArrival&) const = default;
};

// The arrivals of one generator over [0, horizon) (horizon 0: steps/burst/constant only):
//   diurnal  replicas(t) = round(min + (max-min) (1 - cos(2 pi t / period)) / 2), evaluated
//            every minute from t=0 (the trough); pods are created as it rises and the newest
//            deleted (departure) as it falls, as a ReplicaSet scales down;
//   poisson  exponential inter-arrival times at ratePerHour, each with a drawn runtime;
//   steps    replicas set at each step time (same create/delete rule);
//   burst    `count` pods at `at`, each with a drawn runtime;
//   constant `replicas` pods at t=0.
// `arrivals` and `runtimes` are separate streams so a new runtime distribution never moves
// the arrival times. Throws InputError (at the generator) beyond k_max_workload_pods.
[[nodiscard]] std::vector<GeneratedArrival> generate_arrivals(const model::Generator& generator, Duration horizon,
                                                              Rng& arrivals, Rng& runtimes);

// One draw of a runtime distribution, in whole milliseconds (>= 0).
[[nodiscard]] Duration draw_runtime(const model::RuntimeDistribution& dist, Rng& rng);

// "generator/<template>/<pattern>/<occurrence>": the Rng stream name of a generator.
[[nodiscard]] std::string generator_stream(const model::Generator& generator, std::size_t occurrence);

// Command-line forms (`capsim trace generate`): "20m" or "fixed:20m"; "exponential:mean=20m";
// "lognormal:median=20m,p95=2h"; "uniform:min=1m,max=5m".
[[nodiscard]] Expected<model::RuntimeDistribution> parse_runtime_spec(std::string_view text);

// "0s=10,2h=40": replicas from each time on; times must increase.
[[nodiscard]] Expected<std::vector<model::Step>> parse_steps_spec(std::string_view text);

inline constexpr std::size_t k_max_workload_pods = 50'000'000;

} // namespace capsim::io
