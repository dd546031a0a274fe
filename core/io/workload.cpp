#include "core/io/workload.hpp"

#include "core/base/quantity.hpp"
#include "core/base/text.hpp"
#include "core/io/trace.hpp"
#include "core/io/volumes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace capsim::io {

namespace {

constexpr double k_pi = 3.14159265358979323846;

void check_size(std::size_t n, const SourceLocation& where)
{
  if (n > k_max_workload_pods) {
    throw InputError(where, fmt::format("the workload has more than {} pods: refused as absurd", k_max_workload_pods));
  }
}

// Replica-count patterns: create pods when the target rises, delete the newest when it falls.
class ReplicaTracker
{
public:
  ReplicaTracker(std::vector<GeneratedArrival>& out, const SourceLocation& where) : m_out(out), m_where(where) {}

  void set(SimTime t, std::int64_t target)
  {
    while (static_cast<std::int64_t>(m_live.size()) < target) {
      m_live.push_back(m_out.size());
      m_out.push_back(GeneratedArrival{t, -1, -1});
      check_size(m_out.size(), m_where);
    }
    while (static_cast<std::int64_t>(m_live.size()) > target) {
      m_out[m_live.back()].departure = t;
      m_live.pop_back();
    }
  }

private:
  std::vector<GeneratedArrival>& m_out;
  const SourceLocation& m_where;
  std::vector<std::size_t> m_live; // indices into m_out, oldest first
};

// The ScaleWorkload events of workload `w` before the horizon, in time order (file order at
// equal times). An event without a namespace scales the workloads of its name in every namespace.
std::vector<const model::ScenarioEvent*> scale_events_of(const model::Scenario& s, const model::Workload& w,
                                                         Duration horizon)
{
  std::vector<const model::ScenarioEvent*> out;
  for (const auto& e : s.events) {
    if (e.kind == "ScaleWorkload" && e.workload == w.name
        && (e.workload_namespace.empty() || e.workload_namespace == w.namespace_) && (horizon == 0 || e.at < horizon)) {
      out.push_back(&e);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->at < b->at; });
  return out;
}

// A Deployment's, ReplicaSet's or StatefulSet's pods: `replicas` at t=0 (counting the pods of
// the stream it controls, `adopted`), then each ScaleWorkload event sets the count. Scaling up
// creates pods pending at the event; scaling down deletes the newest, as a ReplicaSet does among
// pods that rank alike, and a StatefulSet's highest ordinals. A StatefulSet fills its missing
// ordinals, reusing a deleted ordinal's name (and with it the ordinal's claims); other pods get
// new names.
void add_replicas(const model::Workload& w, const std::vector<std::size_t>& adopted,
                  const std::vector<const model::ScenarioEvent*>& scales, std::vector<model::Pod>& pods,
                  PerPodSpecs& per_pod)
{
  const bool ordinals = w.kind == "StatefulSet";
  std::vector<std::size_t> live;               // indices into pods, oldest first
  std::map<std::int64_t, std::size_t> by_ordinal; // StatefulSets: ordinal -> index into pods
  for (const auto i : adopted) {
    std::int64_t ordinal = -1;
    const std::string& name = pods[i].name;
    const auto* digits = name.data() + std::min(name.size(), w.name.size() + 1);
    if (ordinals && name.size() > w.name.size() + 1 && name.starts_with(w.name + "-")
        && std::from_chars(digits, name.data() + name.size(), ordinal).ptr == name.data() + name.size()
        && ordinal >= 0 && by_ordinal.count(ordinal) == 0) {
      by_ordinal[ordinal] = i;
    } else {
      live.push_back(i); // not an ordinal of this StatefulSet (or not a StatefulSet): the oldest
    }
  }
  std::int64_t created = 0;
  std::int64_t lowest_free = 0; // StatefulSets: no free ordinal below it
  const auto count = [&] { return static_cast<std::int64_t>(live.size() + by_ordinal.size()); };
  const auto set = [&](SimTime t, std::int64_t target) {
    while (count() < target) {
      std::int64_t i = created;
      if (ordinals) {
        while (by_ordinal.count(lowest_free) > 0) {
          ++lowest_free;
        }
        i = lowest_free;
      }
      model::Pod pod;
      pod.name = fmt::format("{}-{}", w.name, i);
      pod.spec = w.spec;
      if (const auto it = w.ordinal_specs.find(static_cast<std::int32_t>(i)); it != w.ordinal_specs.end()) {
        pod.spec = it->second;
      } else if (!w.per_pod_claims.empty()) {
        pod.spec = per_pod.get(w.spec, w.per_pod_claims, pod.name);
      }
      pod.requests = w.spec->requests;
      pod.arrival = t;
      pod.runtime = w.runtime;
      if (ordinals) {
        by_ordinal[i] = pods.size();
      } else {
        live.push_back(pods.size());
      }
      pods.push_back(std::move(pod));
      ++created;
      check_size(pods.size(), w.location);
    }
    while (count() > target) {
      if (ordinals && !by_ordinal.empty()) {
        const auto highest = std::prev(by_ordinal.end());
        pods[highest->second].departure = t;
        lowest_free = std::min(lowest_free, highest->first);
        by_ordinal.erase(highest);
      } else {
        pods[live.back()].departure = t;
        live.pop_back();
      }
    }
  };
  set(0, w.replicas);
  for (const auto* e : scales) {
    set(e->at, e->replicas);
  }
}

} // namespace

std::string generator_stream(const model::Generator& generator, std::size_t occurrence)
{
  return fmt::format("generator/{}/{}/{}", generator.template_name, generator.pattern, occurrence);
}

Duration draw_runtime(const model::RuntimeDistribution& dist, Rng& rng)
{
  double ms = 0;
  if (dist.dist == "fixed") {
    ms = static_cast<double>(dist.value);
  } else if (dist.dist == "exponential") {
    ms = dist.mean > 0 ? rng.exponential(1.0 / static_cast<double>(dist.mean)) : 0.0;
  } else if (dist.dist == "lognormal") {
    ms = dist.median > 0 ? rng.lognormal_median_p95(static_cast<double>(dist.median), static_cast<double>(dist.p95))
                         : 0.0;
  } else if (dist.dist == "uniform") {
    ms = static_cast<double>(dist.min) + rng.uniform() * static_cast<double>(dist.max - dist.min);
  }
  if (!(ms > 0)) {
    return 0;
  }
  constexpr double k_cap = static_cast<double>(3660 * k_day);
  return static_cast<Duration>(std::llround(std::min(ms, k_cap)));
}

std::vector<GeneratedArrival> generate_arrivals(const model::Generator& g, Duration horizon, Rng& arrivals,
                                                Rng& runtimes)
{
  std::vector<GeneratedArrival> out;
  const auto runtime = [&]() -> Duration { return g.runtime ? draw_runtime(*g.runtime, runtimes) : -1; };
  if (g.pattern == "diurnal") {
    CAPSIM_CHECK(horizon > 0, "a diurnal generator needs a horizon");
    ReplicaTracker tracker(out, g.location);
    const double span = static_cast<double>(g.max - g.min);
    for (SimTime t = 0; t < horizon; t += k_minute) {
      const double phase = 2.0 * k_pi * static_cast<double>(t % g.period) / static_cast<double>(g.period);
      const auto target = static_cast<std::int64_t>(std::llround(g.min + span * (1.0 - std::cos(phase)) / 2.0));
      tracker.set(t, target);
    }
  } else if (g.pattern == "poisson") {
    CAPSIM_CHECK(horizon > 0, "a poisson generator needs a horizon");
    if (g.rate_per_hour <= 0) {
      return out;
    }
    const double peak = std::max(g.rate_per_hour, g.peak_rate_per_hour);
    const double expected = peak * static_cast<double>(horizon) / static_cast<double>(k_hour);
    if (expected > static_cast<double>(k_max_workload_pods)) {
      throw InputError(g.location, fmt::format("{} {} over {} makes about {:.3g} pods (at most {}): refused as absurd",
                                               peak > g.rate_per_hour ? "peakRatePerHour" : "ratePerHour", peak,
                                               format_duration(horizon), expected, k_max_workload_pods));
    }
    // A cycling rate is drawn by thinning: arrivals at the peak rate, each kept with
    // probability rate(t) / peak (Lewis and Shedler), from the same stream.
    const bool cycles = peak > g.rate_per_hour;
    const double rate_per_ms = peak / static_cast<double>(k_hour);
    const double two_pi = 2.0 * std::acos(-1.0);
    double t = 0;
    while (true) {
      t += arrivals.exponential(rate_per_ms);
      if (t >= static_cast<double>(horizon)) {
        break;
      }
      if (cycles) {
        const double phase = two_pi * t / static_cast<double>(g.period);
        const double rate = g.rate_per_hour + (peak - g.rate_per_hour) * (1.0 - std::cos(phase)) / 2.0;
        if (arrivals.uniform() * peak >= rate) {
          continue;
        }
      }
      out.push_back(GeneratedArrival{static_cast<SimTime>(t), runtime(), -1});
      check_size(out.size(), g.location);
    }
  } else if (g.pattern == "steps" || g.pattern == "constant") {
    ReplicaTracker tracker(out, g.location);
    for (const auto& step : g.steps) {
      if (horizon > 0 && step.at >= horizon) {
        break;
      }
      tracker.set(step.at, step.replicas);
    }
  } else if (g.pattern == "burst") {
    if (horizon == 0 || g.at < horizon) {
      check_size(static_cast<std::size_t>(g.count), g.location);
      out.reserve(static_cast<std::size_t>(g.count));
      for (std::int32_t i = 0; i < g.count; ++i) {
        out.push_back(GeneratedArrival{g.at, runtime(), -1});
      }
    }
  } else {
    throw InputError(g.location, fmt::format("unknown generator pattern '{}'", g.pattern));
  }
  return out;
}

Expected<model::RuntimeDistribution> parse_runtime_spec(std::string_view text)
{
  using E = Expected<model::RuntimeDistribution>;
  model::RuntimeDistribution r;
  const auto colon = text.find(':');
  const std::string_view dist = colon == std::string_view::npos ? "fixed" : text.substr(0, colon);
  const std::string_view params = colon == std::string_view::npos ? text : text.substr(colon + 1);
  if (dist != "fixed" && dist != "exponential" && dist != "lognormal" && dist != "uniform") {
    return E::failure(fmt::format("unknown runtime distribution '{}' (expected fixed, exponential, lognormal or "
                                  "uniform, e.g. lognormal:median=20m,p95=2h)",
                                  dist));
  }
  r.dist = std::string(dist);
  std::map<std::string, Duration> values;
  for (const auto& part : split(params, ',')) {
    const auto eq = part.find('=');
    std::string key;
    std::string value = part;
    if (eq != std::string::npos) {
      key = part.substr(0, eq);
      value = part.substr(eq + 1);
    } else {
      key = dist == "fixed" ? "value" : dist == "exponential" ? "mean" : "";
    }
    auto d = parse_duration(value);
    if (key.empty() || !d) {
      return E::failure(fmt::format("'{}': expected key=duration pairs such as median=20m,p95=2h", text));
    }
    values[key] = *d;
  }
  const auto need = [&](std::initializer_list<std::string_view> keys) -> std::string {
    if (values.size() != keys.size()) {
      return fmt::format("{} takes {}", dist, fmt::join(keys, " and "));
    }
    for (const auto k : keys) {
      if (values.count(std::string(k)) == 0) {
        return fmt::format("{} takes {}", dist, fmt::join(keys, " and "));
      }
    }
    return {};
  };
  std::string error;
  if (dist == "fixed") {
    error = need({"value"});
  } else if (dist == "exponential") {
    error = need({"mean"});
  } else if (dist == "lognormal") {
    error = need({"median", "p95"});
  } else {
    error = need({"min", "max"});
  }
  if (!error.empty()) {
    return E::failure(fmt::format("'{}': {}", text, error));
  }
  r.value = values["value"];
  r.mean = values["mean"];
  r.median = values["median"];
  r.p95 = values["p95"];
  r.min = values["min"];
  r.max = values["max"];
  if (dist == "exponential" && r.mean <= 0) {
    return E::failure("exponential needs mean > 0");
  }
  if (dist == "lognormal" && (r.median <= 0 || r.p95 < r.median)) {
    return E::failure("lognormal needs 0 < median <= p95");
  }
  if (dist == "uniform" && r.max < r.min) {
    return E::failure("uniform needs min <= max");
  }
  return r;
}

Expected<std::vector<model::Step>> parse_steps_spec(std::string_view text)
{
  using E = Expected<std::vector<model::Step>>;
  std::vector<model::Step> steps;
  for (const auto& part : split(text, ',')) {
    const auto eq = part.find('=');
    if (eq == std::string::npos) {
      return E::failure(fmt::format("'{}': expected TIME=REPLICAS pairs such as 0s=10,2h=40", text));
    }
    auto at = parse_duration(trim(std::string_view(part).substr(0, eq)));
    const std::string count(trim(std::string_view(part).substr(eq + 1)));
    std::int64_t replicas = -1;
    const auto* end = count.data() + count.size();
    if (!at || count.empty() || std::from_chars(count.data(), end, replicas).ptr != end || replicas < 0
        || replicas > 10'000'000) {
      return E::failure(fmt::format("'{}': expected TIME=REPLICAS pairs such as 0s=10,2h=40", part));
    }
    if (!steps.empty() && *at <= steps.back().at) {
      return E::failure(fmt::format("'{}': step times must increase", text));
    }
    steps.push_back({*at, static_cast<std::int32_t>(replicas)});
  }
  return steps;
}

std::vector<model::Pod> expand_workload(const model::Scenario& s, const ExpandOptions& options)
{
  const Duration horizon = options.horizon.value_or(s.settings.duration);
  const SourceLocation scenario_at = s.location_of(s.settings.location);
  std::vector<model::Pod> pods;
  std::size_t expected = s.pods.size();
  for (const auto& w : s.workloads) {
    expected += static_cast<std::size_t>(std::max(w.replicas, w.completions));
  }
  check_size(expected, scenario_at);
  pods.reserve(expected);

  // Pods of templates with claims made per pod in a zone of their own get a spec with their
  // zones (volumes.hpp); templates by name, as Scenario::find_template looks them up.
  PerPodSpecs per_pod;
  std::map<std::string_view, const model::Workload*> with_per_pod_claims;
  for (const auto& w : s.workloads) {
    with_per_pod_claims.emplace(w.name, &w); // the first of a name, as find_template
  }
  std::erase_if(with_per_pod_claims, [](const auto& entry) { return entry.second->per_pod_claims.empty(); });
  const auto give_own_volumes = [&](model::Pod& pod) {
    if (with_per_pod_claims.empty() || !pod.spec) {
      return;
    }
    if (const auto it = with_per_pod_claims.find(pod.spec->template_name); it != with_per_pod_claims.end()) {
      pod.spec = per_pod.get(pod.spec, it->second->per_pod_claims, pod.name);
    }
  };

  // 1. Bare pods.
  std::map<std::string, std::size_t> bare_pods; // "namespace/name" -> index, for adoption
  const bool adoptions =
      std::any_of(s.workloads.begin(), s.workloads.end(), [](const auto& w) { return !w.adopted_pods.empty(); });
  for (const auto& p : s.pods) {
    if (adoptions) {
      bare_pods.emplace((p.spec ? p.spec->namespace_ : "default") + "/" + p.name, pods.size());
    }
    pods.push_back(p);
  }
  // 2. Workload replicas.
  for (const auto& w : s.workloads) {
    std::vector<std::size_t> adopted;
    for (const auto& name : w.adopted_pods) {
      if (const auto it = bare_pods.find(w.namespace_ + "/" + name); it != bare_pods.end()) {
        adopted.push_back(it->second);
      }
    }
    if (w.spec && w.kind != "Job") {
      add_replicas(w, adopted, scale_events_of(s, w, horizon), pods, per_pod);
      continue;
    }
    if (!w.spec || w.replicas <= 0) {
      continue;
    }
    // A pasted Job: its Succeeded pods are done, its running ones are the first of the first wave.
    const std::int32_t total =
        std::max(0, (w.kind == "Job" ? std::max(w.completions, w.replicas) : w.replicas) - w.adopted_completions);
    for (auto i = static_cast<std::int32_t>(std::min<std::size_t>(adopted.size(), static_cast<std::size_t>(total)));
         i < total; ++i) {
      const std::int32_t wave = i / w.replicas;
      if (wave > 0 && w.runtime < 0) {
        break; // pods that never finish leave no room for the next wave
      }
      model::Pod pod;
      pod.name = fmt::format("{}-{}", w.name, i);
      pod.spec = w.spec;
      if (const auto it = w.ordinal_specs.find(i); it != w.ordinal_specs.end()) {
        pod.spec = it->second;
      } else if (!w.per_pod_claims.empty()) {
        pod.spec = per_pod.get(w.spec, w.per_pod_claims, pod.name);
      }
      pod.requests = w.spec->requests;
      pod.arrival = static_cast<SimTime>(wave) * std::max<Duration>(w.runtime, 0);
      pod.runtime = w.runtime;
      if (horizon > 0 && pod.arrival >= horizon) {
        break;
      }
      pods.push_back(std::move(pod));
    }
  }
  // 3. Traces.
  if (options.read_traces) {
    for (std::size_t i = 0; i < s.traces.size(); ++i) {
      const auto& t = s.traces[i];
      const auto format = parse_trace_format(t.format);
      if (!format) {
        throw InputError(t.location, fmt::format("unknown trace format '{}'", t.format));
      }
      TraceOptions topts;
      topts.scenario = &s;
      topts.default_template = t.template_name;
      topts.name_prefix = fmt::format("{}-t{}", t.template_name.empty() ? "trace" : t.template_name, i);
      topts.referenced_from = t.location;
      auto rows = read_trace(t.path, *format, topts);
      if (*format != TraceFormat::kubectl) { // kubectl rows carry their own specs
        for (auto& p : rows) {
          give_own_volumes(p);
        }
      }
      check_size(pods.size() + rows.size(), t.location);
      const auto beyond = [horizon](const model::Pod& p) { return horizon > 0 && p.arrival >= horizon; };
      if (pods.empty()) { // the common case, a workload that is one trace: taken as read, not moved row by row
        pods = std::move(rows);
        pods.erase(std::remove_if(pods.begin(), pods.end(), beyond), pods.end());
        continue;
      }
      pods.reserve(pods.size() + rows.size());
      for (auto& p : rows) {
        if (!beyond(p)) {
          pods.push_back(std::move(p));
        }
      }
    }
  }
  // 4. Generators.
  std::map<std::pair<std::string, std::string>, std::size_t> occurrences;
  for (std::size_t i = 0; i < s.generators.size(); ++i) {
    const auto& g = s.generators[i];
    const auto spec = s.find_template(g.template_name);
    if (!spec) {
      throw InputError(g.location, fmt::format("generator template '{}' is not in the scenario", g.template_name));
    }
    if (horizon == 0 && (g.pattern == "diurnal" || g.pattern == "poisson")) {
      throw InputError(g.location, fmt::format("a {} generator has no natural end: set Scenario spec.duration", g.pattern));
    }
    const std::size_t occurrence = occurrences[{g.template_name, g.pattern}]++;
    const std::string stream = generator_stream(g, occurrence);
    Rng arrivals(s.settings.seed, stream);
    Rng runtimes(s.settings.seed, stream + "/runtime");
    const auto generated = generate_arrivals(g, horizon, arrivals, runtimes);
    check_size(pods.size() + generated.size(), g.location);
    pods.reserve(pods.size() + generated.size());
    std::size_t n = 0;
    for (const auto& a : generated) {
      model::Pod pod;
      pod.name = fmt::format("{}-g{}-{}", g.template_name, i, n++);
      pod.spec = spec;
      pod.requests = spec->requests;
      pod.arrival = a.arrival;
      pod.runtime = a.runtime;
      pod.departure = a.departure;
      give_own_volumes(pod);
      pods.push_back(std::move(pod));
    }
  }

  if (horizon == 0) {
    for (const auto& p : pods) {
      if (p.runtime < 0 && p.departure < 0) {
        throw InputError(scenario_at, fmt::format("the workload has no natural end (pod '{}' runs until it is "
                                                  "deleted): set Scenario spec.duration",
                                                  p.name));
      }
    }
  }
  sort_by_arrival(pods);
  return pods;
}

} // namespace capsim::io
