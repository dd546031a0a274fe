// B1 scheduling: Karpenter's scheduling benchmark shape
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go)
// run through capsim's karpenter::solve: fake.InstanceTypes(400), one NodePool with no
// requirements and huge limits, no existing nodes; makeDiversePods(n) for n = 1 ... 20,000
// (generic, zonal spread, hostname spread, zonal self-affinity, hostname anti-affinity) and
// makePreferencePods(4000) under both preference policies, plus an all-generic variant.
// Prints solve time and pods/s.
// Usage: scheduling_bench [--max N] [--shared-specs] [--only diverse|generic|preference]

#include "core/cluster/cluster.hpp"
#include "core/karpenter/solve.hpp"
// The fake catalog builder is shared with the tests (it is not part of capsim_core).
#include "tests/support/fake_catalog_support.cpp" // NOLINT(bugprone-suspicious-include)

#include <fmt/format.h>

#include <ctime>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace capsim;

namespace {

// CPU time of this thread: the machine is shared, so wall time would measure the neighbours.
double cpu_seconds()
{
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Rng
{
  std::mt19937_64 gen{42};

  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(gen() % n); }
};

const char* const k_values[] = {"a", "b", "c", "d", "e", "f", "g"};

struct PodShape
{
  std::string kind;
  model::Labels labels;
  model::Labels selector;
  std::int64_t cpu = 0;
  std::int64_t memory = 0;
};

std::int64_t random_cpu(Rng& r)
{
  static const std::int64_t cpu[] = {100, 250, 500, 1000, 1500};
  return cpu[r.pick(5)];
}

std::int64_t random_memory(Rng& r)
{
  static const std::int64_t mem[] = {100, 256, 512, 1024, 2048, 4096};
  return mem[r.pick(6)] * k_mib;
}

// makeDiversePods(count): n/5 of each kind, the remainder generic.
std::vector<PodShape> diverse(int count, Rng& r, bool generic_only)
{
  std::vector<PodShape> out;
  const int each = count / 5;
  const auto add = [&](const std::string& kind, int n) {
    for (int i = 0; i < n; ++i) {
      PodShape p;
      p.kind = kind;
      if (kind == "generic") {
        p.labels = {{"my-label", k_values[r.pick(7)]}};
      } else if (kind == "zone-spread" || kind == "host-spread") {
        p.labels = {{"my-label", k_values[r.pick(7)]}};
        p.selector = {{"my-label", k_values[r.pick(7)]}};
      } else if (kind == "zone-affinity") {
        p.labels = {{"my-affininity", k_values[r.pick(7)]}};
        p.selector = p.labels;
      } else if (kind == "host-anti") {
        p.labels = {{"app", "nginx"}};
        p.selector = p.labels;
      }
      p.cpu = random_cpu(r);
      p.memory = random_memory(r);
      out.push_back(std::move(p));
    }
  };
  if (generic_only) {
    add("generic", count);
    return out;
  }
  add("generic", each);
  add("zone-spread", each);
  add("host-spread", each);
  add("zone-affinity", each);
  add("host-anti", each);
  add("generic", count - static_cast<int>(out.size()));
  return out;
}

model::PodSpecPtr make_spec(const PodShape& s)
{
  auto spec = std::make_shared<model::PodSpec>();
  spec->labels = s.labels;
  model::LabelSelector sel;
  sel.match_labels = s.selector;
  if (s.kind == "zone-spread" || s.kind == "host-spread") {
    model::TopologySpreadConstraint t;
    t.max_skew = 1;
    t.topology_key = s.kind == "zone-spread" ? std::string(model::labels::k_zone) : std::string(model::labels::k_hostname);
    t.selector = sel;
    spec->topology_spread.push_back(t);
  } else if (s.kind == "zone-affinity") {
    model::PodAffinityTerm t;
    t.topology_key = std::string(model::labels::k_zone);
    t.selector = sel;
    spec->pod_affinity_required.push_back(t);
  } else if (s.kind == "host-anti") {
    model::PodAffinityTerm t;
    t.topology_key = std::string(model::labels::k_hostname);
    t.selector = sel;
    spec->pod_anti_affinity_required.push_back(t);
  } else if (s.kind == "preference") {
    model::PreferredNodeTerm pref;
    pref.weight = 1;
    pref.term.requirements.push_back(
        model::Requirement::make(std::string(model::labels::k_zone), model::Operator::in, {"test-zone-1"}));
    spec->preferred_node_affinity.push_back(pref);
    model::WeightedPodAffinityTerm zone;
    zone.weight = 10;
    zone.term.topology_key = std::string(model::labels::k_zone);
    zone.term.selector = sel;
    model::WeightedPodAffinityTerm host;
    host.weight = 1;
    host.term.topology_key = std::string(model::labels::k_hostname);
    host.term.selector = sel;
    spec->pod_anti_affinity_preferred = {zone, host};
  }
  return spec;
}

struct Outcome
{
  double seconds = 0;
  std::size_t nodes = 0;
  std::size_t errors = 0;
  int runs = 0;
};

Outcome run(const std::vector<PodShape>& shapes, const std::vector<catalog::InstanceType>& types,
            const model::NodePool& pool, bool shared_specs, bool ignore_preferences)
{
  cluster::Cluster c;
  c.reserve_pods(shapes.size());
  std::map<std::string, model::PodSpecPtr> shared;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto& s = shapes[i];
    model::PodSpecPtr spec;
    if (shared_specs) {
      std::string key = s.kind;
      for (const auto& [k, v] : s.labels) {
        key += "|" + k + "=" + v;
      }
      for (const auto& [k, v] : s.selector) {
        key += "|s:" + k + "=" + v;
      }
      auto& slot = shared[key];
      if (!slot) {
        slot = make_spec(s);
      }
      spec = slot;
    } else {
      spec = make_spec(s);
    }
    model::Pod p;
    p.name = fmt::format("pod-{:06d}", i);
    p.spec = spec;
    p.requests[model::k_cpu] = s.cpu;
    p.requests[model::k_memory] = s.memory;
    const auto idx = c.add_pod(std::move(p));
    c.set_pending(idx, 0);
  }
  karpenter::SolveInput in;
  in.cluster = &c;
  in.pods = c.pending();
  karpenter::NodePoolInput np;
  np.pool = &pool;
  std::vector<const catalog::InstanceType*> offered;
  for (const auto& t : types) {
    offered.push_back(&t);
  }
  np.instance_types = karpenter::make_type_list(std::move(offered));
  in.node_pools.push_back(np);
  in.options.ignore_preferences = ignore_preferences;
  karpenter::SolveCache cache; // the catalog is interned once, as a simulation would
  in.cache = &cache;
  (void)karpenter::solve(in);  // warm the cache; not timed

  Outcome o;
  double best = std::numeric_limits<double>::max();
  double total = 0;
  const int runs = shapes.size() >= 5000 ? 3 : (shapes.size() >= 500 ? 5 : 20);
  for (int i = 0; i < runs; ++i) {
    const double t0 = cpu_seconds();
    const auto result = karpenter::solve(in);
    const double s = cpu_seconds() - t0;
    best = std::min(best, s);
    total += s;
    o.nodes = result.claims.size();
    o.errors = result.errors.size();
  }
  o.seconds = best;
  o.runs = runs;
  (void)total;
  return o;
}

void row(const std::string& name, std::size_t pods, const Outcome& o)
{
  std::printf("%-28s %7zu pods %6zu nodes %10.3f ms/solve %8.2f us/pod %12.0f pods/s%s\n", name.c_str(), pods,
              o.nodes, o.seconds * 1e3, o.seconds * 1e6 / static_cast<double>(pods),
              static_cast<double>(pods) / o.seconds,
              o.errors != 0 ? fmt::format("  ({} unscheduled!)", o.errors).c_str() : "");
}

} // namespace

int main(int argc, char** argv)
{
  int max = 20000;
  bool shared_specs = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
      continue;
    }
    if (std::strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
      max = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--shared-specs") == 0) {
      shared_specs = true;
    }
  }
  const auto types = testing::fake_instance_types(400);
  model::NodePool pool;
  pool.name = "default";
  model::Resources limits;
  limits.v.fill(std::numeric_limits<std::int64_t>::max());
  limits[model::k_cpu] = 10'000'000LL * 1000;
  limits[model::k_memory] = 10'000'000LL * k_gib;
  pool.limits = limits;

  std::printf("B1 scheduling: fake.InstanceTypes(400), one NodePool, %s PodSpecs (thread CPU time, min of several "
              "solves)\n",
              shared_specs ? "shared" : "one per pod");
  const auto want = [&](const char* name) { return only.empty() || only == name; };
  std::printf("== diverse pods (makeDiversePods) ==\n");
  for (const int n : {1, 50, 100, 500, 1000, 2000, 5000, 10000, 20000}) {
    if (n > max || !want("diverse")) {
      break;
    }
    Rng r;
    const auto shapes = diverse(n, r, false);
    row(fmt::format("diverse {}", n), shapes.size(), run(shapes, types, pool, shared_specs, false));
  }
  std::printf("== generic pods ==\n");
  for (const int n : {1000, 5000, 20000}) {
    if (n > max || !want("generic")) {
      break;
    }
    Rng r;
    const auto shapes = diverse(n, r, true);
    row(fmt::format("generic {}", n), shapes.size(), run(shapes, types, pool, shared_specs, false));
  }
  std::printf("== preference pods (makePreferencePods 4000) ==\n");
  if (want("preference")) {
    // test.Pods(4000, options) evaluates randomCPU()/randomMemory() once: identical pods.
    Rng r;
    PodShape p;
    p.kind = "preference";
    p.labels = {{"app", "nginx"}};
    p.selector = p.labels;
    p.cpu = random_cpu(r);
    p.memory = random_memory(r);
    const std::vector<PodShape> shapes(static_cast<std::size_t>(std::min(4000, max)), p);
    row("PreferencePolicy=Respect", shapes.size(), run(shapes, types, pool, shared_specs, false));
    row("PreferencePolicy=Ignore", shapes.size(), run(shapes, types, pool, shared_specs, true));
  }
  return 0;
}
