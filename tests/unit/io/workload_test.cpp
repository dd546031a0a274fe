#include "core/base/diagnostics.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/workload.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace capsim;

namespace {

const std::string k_templates = R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job, annotations: {capsim.io/runtime: 10m}}
spec:
  parallelism: 2
  completions: 5
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec: {containers: [{name: c}]}
)";

model::Scenario scenario(const std::string& spec)
{
  return io::parse_scenario("apiVersion: capsim/v1\nkind: Scenario\nspec:\n" + spec + k_templates, "w.yaml");
}

std::vector<model::Pod> pods_named(const std::vector<model::Pod>& pods, const std::string& prefix)
{
  std::vector<model::Pod> out;
  std::copy_if(pods.begin(), pods.end(), std::back_inserter(out),
               [&](const model::Pod& p) { return p.name.rfind(prefix, 0) == 0; });
  return out;
}

std::int64_t live_at(const std::vector<model::Pod>& pods, SimTime t)
{
  return std::count_if(pods.begin(), pods.end(),
                       [&](const model::Pod& p) { return p.arrival <= t && (p.departure < 0 || p.departure > t); });
}

} // namespace

TEST_CASE("workload: bare pods, replicas and job waves in a total order", "[io][workload]")
{
  const auto s = scenario("  duration: 2h\n");
  const auto pods = io::expand_workload(s);
  std::vector<std::string> names;
  std::vector<SimTime> arrivals;
  for (const auto& p : pods) {
    names.push_back(p.name);
    arrivals.push_back(p.arrival);
  }
  CHECK(names
        == std::vector<std::string>{"solo", "web-0", "web-1", "web-2", "job-0", "job-1", "job-2", "job-3", "job-4"});
  CHECK(arrivals == std::vector<SimTime>{0, 0, 0, 0, 0, 0, 10 * k_minute, 10 * k_minute, 20 * k_minute});
  CHECK(pods[1].spec == s.find_template("web"));
  CHECK(pods[1].runtime == -1);
  CHECK(pods[4].runtime == 10 * k_minute);
  CHECK(pods[4].requests.cpu() == 1000);
  // A shorter horizon leaves out later waves.
  CHECK(io::expand_workload(s, {.horizon = 15 * k_minute, .read_traces = true}).size() == 8);
  // Without a duration the Deployment never ends.
  CHECK_THROWS_WITH(io::expand_workload(scenario("  seed: 1\n")),
                    "w.yaml:1:1: error: the workload has no natural end (pod 'solo' runs until it is deleted): set "
                    "Scenario spec.duration");
}

TEST_CASE("workload: traces are read relative to the scenario", "[io][workload][trace]")
{
  const auto path = std::string(CAPSIM_SOURCE_DIR) + "/scenarios/trace-replay.yaml";
  const auto s = io::load_scenario(path);
  const auto pods = io::expand_workload(s);
  CHECK(pods.size() == 157);
  CHECK(std::is_sorted(pods.begin(), pods.end(),
                       [](const model::Pod& a, const model::Pod& b) { return a.arrival < b.arrival; }));
  const auto first = pods.front();
  CHECK(first.name == "batch-1");
  CHECK(first.arrival == 90'300);
  CHECK(first.runtime == 3260 * k_second);
  CHECK(first.requests.cpu() == 1000);
  CHECK(first.requests.memory() == 2048 * k_mib);
  CHECK(first.spec == s.find_template("batch"));
  CHECK(io::expand_workload(s, {.horizon = std::nullopt, .read_traces = false}).empty());
}

TEST_CASE("workload: a trace's rows from the horizon on are left out, alone or after other pods",
          "[io][workload][trace]")
{
  auto s = io::load_scenario(std::string(CAPSIM_SOURCE_DIR) + "/scenarios/trace-replay.yaml");
  const auto all = io::expand_workload(s, {.horizon = 1000 * k_hour, .read_traces = true});
  REQUIRE(all.size() == 157);
  const SimTime horizon = all[100].arrival;
  std::vector<std::string> expected;
  for (const auto& p : all) {
    if (p.arrival < horizon) {
      expected.push_back(p.name);
    }
  }
  REQUIRE(expected.size() >= 100);
  REQUIRE(expected.size() < all.size());
  const auto names = [](const std::vector<model::Pod>& pods) {
    std::vector<std::string> out;
    for (const auto& p : pods) {
      out.push_back(p.name);
    }
    return out;
  };
  CHECK(names(io::expand_workload(s, {.horizon = horizon, .read_traces = true})) == expected);

  // With a bare pod before it, the trace's rows follow it, cut the same way.
  model::Pod bare;
  bare.name = "bare";
  bare.spec = s.find_template("batch");
  s.pods.push_back(bare);
  expected.insert(expected.begin(), "bare");
  CHECK(names(io::expand_workload(s, {.horizon = horizon, .read_traces = true})) == expected);
}

TEST_CASE("workload: diurnal replicas follow the sinusoid every minute", "[io][workload][generator]")
{
  const auto s = scenario("  duration: 24h\n  workload:\n    generators:\n"
                          "      - {template: web, pattern: diurnal, min: 20, max: 120, period: 24h}\n");
  const auto pods = pods_named(io::expand_workload(s), "web-g0-");
  CHECK(live_at(pods, 0) == 20);
  CHECK(live_at(pods, 6 * k_hour) == 70);
  CHECK(live_at(pods, 12 * k_hour) == 120);
  CHECK(live_at(pods, 18 * k_hour) == 70);
  CHECK(live_at(pods, 24 * k_hour - k_minute) == 20);
  CHECK(pods.size() == 120); // the newest pods are deleted as it falls, none re-created
  for (const auto& p : pods) {
    CHECK(p.arrival % k_minute == 0);
    CHECK(p.runtime == -1);
  }
}

TEST_CASE("workload: steps, burst and constant", "[io][workload][generator]")
{
  const auto s = scenario(R"(  duration: 5h
  workload:
    generators:
      - {template: web, pattern: steps, steps: [{at: 0s, replicas: 10}, {at: 2h, replicas: 40}, {at: 4h, replicas: 5}]}
      - {template: job, pattern: burst, at: 1h, count: 25, runtime: {dist: uniform, min: 5m, max: 15m}}
      - {template: solo, pattern: constant, replicas: 4}
)");
  const auto all = io::expand_workload(s);
  const auto steps = pods_named(all, "web-g0-");
  CHECK(live_at(steps, k_hour) == 10);
  CHECK(live_at(steps, 3 * k_hour) == 40);
  CHECK(live_at(steps, 4 * k_hour) == 5);
  CHECK(steps.size() == 40);
  const auto burst = pods_named(all, "job-g1-");
  REQUIRE(burst.size() == 25);
  for (const auto& p : burst) {
    CHECK(p.arrival == k_hour);
    CHECK(p.runtime >= 5 * k_minute);
    CHECK(p.runtime <= 15 * k_minute);
  }
  CHECK(pods_named(all, "solo-g2-").size() == 4);
}

TEST_CASE("workload: poisson arrivals and runtime distributions", "[io][workload][generator]")
{
  const auto s = scenario(R"(  duration: 24h
  seed: 9
  workload:
    generators:
      - {template: job, pattern: poisson, ratePerHour: 300, runtime: {dist: lognormal, median: 20m, p95: 2h}}
)");
  const auto pods = io::expand_workload(s);
  const auto gen = pods_named(pods, "job-g0-");
  // 7200 expected; 5 standard deviations is about 424.
  CHECK(gen.size() > 7200 - 424);
  CHECK(gen.size() < 7200 + 424);
  std::vector<Duration> runtimes;
  for (const auto& p : gen) {
    runtimes.push_back(p.runtime);
  }
  std::sort(runtimes.begin(), runtimes.end());
  const auto median = static_cast<double>(runtimes[runtimes.size() / 2]);
  const auto p95 = static_cast<double>(runtimes[runtimes.size() * 95 / 100]);
  CHECK(median == Approx(20.0 * k_minute).epsilon(0.08));
  CHECK(p95 == Approx(2.0 * k_hour).epsilon(0.15));

  Rng rng(5, "test");
  model::RuntimeDistribution exp;
  exp.dist = "exponential";
  exp.mean = 10 * k_minute;
  double sum = 0;
  for (int i = 0; i < 20000; ++i) {
    sum += static_cast<double>(io::draw_runtime(exp, rng));
  }
  CHECK(sum / 20000 == Approx(10.0 * k_minute).epsilon(0.05));
  model::RuntimeDistribution fixed;
  fixed.value = 42 * k_second;
  CHECK(io::draw_runtime(fixed, rng) == 42 * k_second);
}

TEST_CASE("workload: poisson with peakRatePerHour cycles between the two rates", "[io][workload][generator]")
{
  const auto s = scenario(R"(  duration: 48h
  seed: 4
  workload:
    generators:
      - {template: job, pattern: poisson, ratePerHour: 100, peakRatePerHour: 500, period: 24h, runtime: 1m}
)");
  const auto pods = io::expand_workload(s);
  const auto gen = pods_named(pods, "job-g0-");
  // Mean rate (100 + 500) / 2 = 300/h over 48 h: 14,400 expected, sd 120.
  CHECK(gen.size() > 14400 - 600);
  CHECK(gen.size() < 14400 + 600);
  // Around the trough (t in [0, 2h) and [22h, 26h)) the rate is near 100/h; around the peak
  // (t in [10h, 14h)) near 500/h: 4h windows expect about 420 and 1,960 arrivals.
  const auto in_window = [&](SimTime from, SimTime to) {
    return std::count_if(gen.begin(), gen.end(), [&](const model::Pod& p) { return p.arrival >= from && p.arrival < to; });
  };
  const auto trough = in_window(22 * k_hour, 26 * k_hour);
  const auto peak = in_window(10 * k_hour, 14 * k_hour);
  CHECK(trough > 300);
  CHECK(trough < 560);
  CHECK(peak > 1750);
  CHECK(peak < 2170);
}

TEST_CASE("workload: generators are deterministic per seed and per stream", "[io][workload][generator]")
{
  const std::string one = R"(  duration: 6h
  seed: SEED
  workload:
    generators:
      - {template: job, pattern: poisson, ratePerHour: 60, runtime: {dist: exponential, mean: 30m}}
)";
  const auto with_seed = [&](const std::string& seed, const std::string& extra = "") {
    std::string text = one;
    text.replace(text.find("SEED"), 4, seed);
    return io::expand_workload(scenario(text + extra));
  };
  const auto key = [](const std::vector<model::Pod>& pods, const std::string& prefix) {
    std::vector<std::tuple<std::string, SimTime, Duration>> out;
    for (const auto& p : pods) {
      if (p.name.rfind(prefix, 0) == 0) {
        out.emplace_back(p.name, p.arrival, p.runtime);
      }
    }
    return out;
  };
  const auto a = with_seed("42");
  const auto b = with_seed("42");
  const auto c = with_seed("43");
  CHECK(key(a, "job-g0-") == key(b, "job-g0-"));
  CHECK(key(a, "job-g0-") != key(c, "job-g0-"));
  // Adding another generator (its own stream) does not move this one's pods.
  const auto d = with_seed("42", "      - {template: web, pattern: poisson, ratePerHour: 100}\n");
  CHECK(key(a, "job-g0-") == key(d, "job-g0-"));
  CHECK_FALSE(key(d, "web-g1-").empty());
  model::Generator g;
  g.template_name = "job";
  g.pattern = "poisson";
  CHECK(io::generator_stream(g, 2) == "generator/job/poisson/2");
}

TEST_CASE("workload: generator errors and command-line specs", "[io][workload][generator]")
{
  const auto errors = [](const std::string& text) {
    try {
      (void)io::parse_scenario("apiVersion: capsim/v1\nkind: Scenario\nspec:\n" + text + k_templates, "w.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(errors("  workload:\n    generators:\n      - {template: web, pattern: poisson, ratePerHour: 5}\n")
        == "w.yaml:6:9: error: a poisson generator has no natural end: set Scenario spec.duration");
  CHECK(errors("  duration: 1h\n  workload:\n    generators:\n      - {template: wbe, pattern: burst, at: 0s, count: 1}\n")
        == "w.yaml:7:20: error: generator template 'wbe' is not a Deployment, StatefulSet, ReplicaSet, Job or Pod in "
           "the scenario (did you mean 'web'?)");
  CHECK(errors("  duration: 1h\n  workload:\n    generators:\n      - {template: web, pattern: diurnal, min: 5, max: 1, "
               "ratePerHour: 3}\n")
        == "w.yaml:7:9: error: 'spec.workload.generators[0]': max (1) must be >= min (5)\n"
           "w.yaml:7:59: error: 'ratePerHour' does not apply to pattern diurnal (it takes min, max, period)");
  CHECK(errors("  duration: 1h\n  workload:\n    generators:\n      - {template: web, pattern: poisson, ratePerHour: 5, "
               "runtime: {dist: lognormal, median: 2h, p95: 1h}}\n")
        == "w.yaml:7:68: error: 'spec.workload.generators[0].runtime': lognormal needs 0 < median <= p95");
  CHECK(errors("  duration: 1h\n  workload:\n    generators:\n      - {template: web, pattern: poisson, ratePerHour: 5, "
               "peakRatePerHour: 2}\n")
        == "w.yaml:7:76: error: 'spec.workload.generators[0].peakRatePerHour' (2) must be >= ratePerHour (5)");

  const auto r = io::parse_runtime_spec("lognormal:median=20m,p95=2h");
  REQUIRE(r.ok());
  CHECK(r.value().dist == "lognormal");
  CHECK(r.value().median == 20 * k_minute);
  CHECK(r.value().p95 == 2 * k_hour);
  CHECK(io::parse_runtime_spec("90s").value().value == 90 * k_second);
  CHECK(io::parse_runtime_spec("exponential:30m").value().mean == 30 * k_minute);
  CHECK(io::parse_runtime_spec("uniform:min=1m,max=5m").value().max == 5 * k_minute);
  CHECK_FALSE(io::parse_runtime_spec("gamma:1m").ok());
  CHECK_FALSE(io::parse_runtime_spec("uniform:min=5m").ok());
  const auto steps = io::parse_steps_spec("0s=10,2h=40");
  REQUIRE(steps.ok());
  CHECK(steps.value().size() == 2);
  CHECK(steps.value()[1].at == 2 * k_hour);
  CHECK(steps.value()[1].replicas == 40);
  CHECK_FALSE(io::parse_steps_spec("2h=1,1h=2").ok());
  CHECK_FALSE(io::parse_steps_spec("1h").ok());
}

TEST_CASE("workload: ScaleWorkload events set a workload's replica count", "[io][workload][events]")
{
  const auto s = scenario(R"(  duration: 4h
  events:
    - {at: 2h, kind: ScaleWorkload, workload: web, replicas: 1}
    - {at: 1h, kind: ScaleWorkload, workload: web, replicas: 5}
    - {at: 3h, kind: ScaleWorkload, workload: web, replicas: 3}
    - {at: 5h, kind: ScaleWorkload, workload: web, replicas: 9}
)");
  const auto web = pods_named(io::expand_workload(s), "web-");
  // 3 at t=0, 2 more at 1h, down to 1 at 2h (the newest go), 2 new at 3h; 5h is past the end.
  REQUIRE(web.size() == 7);
  const auto at = [&](const std::string& name) {
    const auto it = std::find_if(web.begin(), web.end(), [&](const model::Pod& p) { return p.name == name; });
    REQUIRE(it != web.end());
    return std::pair{it->arrival, it->departure};
  };
  CHECK(at("web-0") == std::pair<SimTime, SimTime>{0, -1});
  CHECK(at("web-1") == std::pair<SimTime, SimTime>{0, 2 * k_hour});
  CHECK(at("web-2") == std::pair<SimTime, SimTime>{0, 2 * k_hour});
  CHECK(at("web-3") == std::pair<SimTime, SimTime>{k_hour, 2 * k_hour});
  CHECK(at("web-4") == std::pair<SimTime, SimTime>{k_hour, 2 * k_hour});
  CHECK(at("web-5") == std::pair<SimTime, SimTime>{3 * k_hour, -1});
  CHECK(at("web-6") == std::pair<SimTime, SimTime>{3 * k_hour, -1});
  CHECK(live_at(web, 30 * k_minute) == 3);
  CHECK(live_at(web, 90 * k_minute) == 5);
  CHECK(live_at(web, 150 * k_minute) == 1);
  CHECK(live_at(web, 210 * k_minute) == 3);
}

TEST_CASE("workload: a StatefulSet scales by its highest ordinals and reuses them", "[io][workload][events]")
{
  const auto s = io::parse_scenario(R"(apiVersion: capsim/v1
kind: Scenario
spec:
  duration: 3h
  events:
    - {at: 1h, kind: ScaleWorkload, workload: db, replicas: 1}
    - {at: 2h, kind: ScaleWorkload, workload: db, replicas: 2}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
)",
                                    "w.yaml");
  const auto pods = io::expand_workload(s);
  std::vector<std::string> names;
  for (const auto& p : pods) {
    names.push_back(fmt::format("{}@{}-{}", p.name, p.arrival / k_hour, p.departure < 0 ? -1 : p.departure / k_hour));
  }
  CHECK(names == std::vector<std::string>{"db-0@0--1", "db-1@0-1", "db-2@0-1", "db-1@2--1"});
}

TEST_CASE("workload: a ScaleWorkload event with a namespace scales only that namespace's workload",
          "[io][workload][events]")
{
  const std::string deployment = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
)";
  const auto with_events = [&](const std::string& events) {
    std::string text = "apiVersion: capsim/v1\nkind: Scenario\nspec:\n  duration: 2h\n  events:\n" + events;
    for (const std::string ns : {"blue", "green"}) {
      std::string doc = deployment;
      doc.replace(doc.find("NS"), 2, ns);
      text += doc;
    }
    return io::parse_scenario(text, "w.yaml");
  };
  const auto live_by_namespace = [](const std::vector<model::Pod>& pods, SimTime t) {
    std::map<std::string, int> out;
    for (const auto& p : pods) {
      if (p.arrival <= t && (p.departure < 0 || p.departure > t)) {
        ++out[p.spec->namespace_];
      }
    }
    return out;
  };
  const auto scoped = io::expand_workload(
      with_events("    - {at: 1h, kind: ScaleWorkload, workload: api, namespace: green, replicas: 5}\n"));
  CHECK(live_by_namespace(scoped, 90 * k_minute) == std::map<std::string, int>{{"blue", 2}, {"green", 5}});
  const auto unscoped =
      io::expand_workload(with_events("    - {at: 1h, kind: ScaleWorkload, workload: api, replicas: 5}\n"));
  CHECK(live_by_namespace(unscoped, 90 * k_minute) == std::map<std::string, int>{{"blue", 5}, {"green", 5}});

  try {
    (void)with_events("    - {at: 1h, kind: ScaleWorkload, workload: api, namespace: red, replicas: 5}\n");
    FAIL("a namespace without that workload was accepted");
  } catch (const InputError& e) {
    CHECK(format_diagnostic(e.diagnostics().at(0))
          == "w.yaml:6:7: error: ScaleWorkload event: workload 'api' of namespace 'red' is not a Deployment, "
             "StatefulSet or ReplicaSet in the scenario");
  }
}

TEST_CASE("workload: a ScaleWorkload event must name a Deployment, StatefulSet or ReplicaSet", "[io][workload][events]")
{
  const auto errors = [](const std::string& event) {
    try {
      (void)scenario("  duration: 1h\n  events:\n    - " + event + "\n");
    } catch (const InputError& e) {
      return format_diagnostic(e.diagnostics().at(0));
    }
    return std::string();
  };
  CHECK(errors("{at: 1m, kind: ScaleWorkload, workload: job, replicas: 4}")
        == "w.yaml:6:7: error: ScaleWorkload event: 'job' is a Job; capsim scales Deployments, StatefulSets and "
           "ReplicaSets (a Job's pods are set by its parallelism and completions)");
  CHECK(errors("{at: 1m, kind: ScaleWorkload, workload: wbe, replicas: 4}")
        == "w.yaml:6:7: error: ScaleWorkload event: workload 'wbe' is not a Deployment, StatefulSet or ReplicaSet in "
           "the scenario (did you mean 'web'?)");
}

TEST_CASE("workload: pods pasted with their controllers count among its replicas", "[io][workload][adoption]")
{
  // `kubectl get deploy,rs,sts,job,ds,pod -o yaml` pasted into a scenario.
  const auto s = io::parse_scenario(R"(apiVersion: capsim/v1
kind: Scenario
spec:
  duration: 2h
  events:
    - {at: 1h, kind: ScaleWorkload, workload: db, replicas: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-abc
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true}]
spec:
  replicas: 3
  selector: {matchLabels: {app: web, pod-template-hash: abc}}
  template:
    metadata: {labels: {app: web, pod-template-hash: abc}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-abc-x1
  namespace: shop
  labels: {app: web, pod-template-hash: abc}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, controller: true}]
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-def-y2
  namespace: shop
  labels: {app: web, pod-template-hash: def}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-def, controller: true}]
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-abc-z3
  namespace: other
  labels: {app: web, pod-template-hash: abc}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, controller: true}]
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-2
  labels: {app: db}
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true}]
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-0
  labels: {app: db}
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true}]
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 50m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-q
  labels: {app: agent}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, controller: true}]
spec: {containers: [{name: c, resources: {requests: {cpu: 50m}}}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: other-agent-q
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: other-agent, controller: true}]
spec: {containers: [{name: c, resources: {requests: {cpu: 50m}}}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: batch, annotations: {capsim.io/runtime: 10m}}
spec:
  parallelism: 2
  completions: 4
  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}
---
apiVersion: v1
kind: Pod
metadata:
  name: batch-running
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: batch, controller: true}]
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: batch-done
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: batch, controller: true}]
spec: {containers: [{name: c}]}
status: {phase: Succeeded}
)",
                                    "w.yaml");
  // The DaemonSet's own pod is left to the DaemonSet; one of a DaemonSet not pasted stays.
  std::vector<std::string> bare;
  for (const auto& p : s.pods) {
    bare.push_back(p.name);
  }
  CHECK(bare == std::vector<std::string>{"web-abc-x1", "web-def-y2", "web-abc-z3", "db-2", "db-0", "other-agent-q",
                                         "batch-running"});
  // kube-scheduler's default spreading counts a pasted pod with its workload's new replicas.
  const auto workload = [&](const std::string& name) {
    return std::find_if(s.workloads.begin(), s.workloads.end(), [&](const auto& w) { return w.name == name; })->spec;
  };
  CHECK(s.pods[0].spec->counted_with == workload("web"));
  CHECK(s.pods[1].spec->counted_with == workload("web"));
  CHECK(s.pods[2].spec->counted_with == nullptr); // another namespace's
  CHECK(s.pods[3].spec->counted_with == workload("db"));
  CHECK(s.pods[6].spec->counted_with == workload("batch"));
  std::vector<std::string> names;
  for (const auto& p : io::expand_workload(s)) {
    names.push_back(fmt::format("{}@{}-{}", p.name, p.arrival / k_minute, p.departure < 0 ? -1 : p.departure / k_minute));
  }
  CHECK(names == std::vector<std::string>{
                     // The bare pods; db's scale-down to 1 at 1h deletes its highest ordinals.
                     "web-abc-x1@0--1", "web-def-y2@0--1", "web-abc-z3@0--1", "db-2@0-60", "db-0@0--1",
                     "other-agent-q@0--1", "batch-running@0--1",
                     // web: two of its three pods pasted (one through a ReplicaSet not pasted, by
                     // pod-template-hash), the pod in another namespace is not its; the managed
                     // ReplicaSet makes none. db: ordinal 1 was missing. batch: one of its 4
                     // completions is done and one runs, so 2 more, the first in the first wave.
                     "web-0@0--1", "db-1@0-60", "batch-1@0--1", "batch-2@10--1"});
}

TEST_CASE("workload: pasted pods beyond the replica count are deleted at the start", "[io][workload][adoption]")
{
  const auto s = io::parse_scenario(R"(apiVersion: capsim/v1
kind: Scenario
spec: {duration: 1h}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-0
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true}]
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-1
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true}]
spec: {containers: [{name: c}]}
)",
                                    "w.yaml");
  const auto pods = io::expand_workload(s);
  REQUIRE(pods.size() == 2);
  CHECK(pods[0].name == "db-0");
  CHECK(pods[0].departure == -1);
  CHECK(pods[1].name == "db-1");
  CHECK(pods[1].departure == 0);
}
