// kube-scheduler model benchmark (not a test): binding passes at the sizes capsim must handle.
//
//   large:  5,000 nodes, 100,000 pods bound in one pass, then churn (one departure + one arrival
//           per pass) on the full cluster;
//   week:   a 1,000,000-pod replay on ~600 nodes, one binding pass per arrival, departures
//           in between, as the simulation engine drives it.
//
// Pod mix: Deployment pods (ReplicaSet owner: system default spreading), pods with a zone
// topology spread constraint (DoNotSchedule), pods with hostname anti-affinity, and plain Job pods.
// Usage: kube_scheduler_bench [large|week|all] (default all). Prints one line per measurement;
// times are process CPU seconds.

#include "core/cluster/cluster.hpp"
#include "core/scheduling/kube_scheduler.hpp"

#include <fmt/format.h>

#include <ctime>
#include <cstdint>
#include <cstdio>
#include <queue>
#include <string>
#include <vector>

namespace {

using capsim::cluster::Cluster;
using capsim::cluster::NodeIndex;
using capsim::cluster::PodIndex;
using namespace capsim;

constexpr std::int64_t k_gi = 1024LL * 1024 * 1024;
constexpr std::int64_t k_mi = 1024LL * 1024;

// Small deterministic generator (SplitMix64).
struct Gen
{
  std::uint64_t state;

  std::uint64_t next()
  {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

// Process CPU time in seconds (the build machine is shared, so wall time is noisy).
double cpu_now()
{
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

double seconds_since(double t0)
{
  return cpu_now() - t0;
}

void add_nodes(Cluster& c, int count)
{
  static const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
  const std::string zone_key(model::labels::k_zone);
  const std::string host_key(model::labels::k_hostname);
  for (int i = 0; i < count; ++i) {
    cluster::NodeState n;
    n.name = fmt::format("node-{:05d}", i);
    n.zone = zones[i % 3];
    n.labels = {{zone_key, n.zone}, {host_key, n.name}, {"node.kubernetes.io/instance-type", "m5.4xlarge"}};
    n.allocatable[model::k_cpu] = 15'890;
    n.allocatable[model::k_memory] = 57 * k_gi;
    n.allocatable[model::k_pods] = 234;
    n.lifecycle = cluster::NodeLifecycle::ready;
    c.add_node(std::move(n));
  }
}

// The pod templates of the mix: `deployments` ReplicaSets, 10 spread workloads, 5 anti-affinity
// workloads, 20 job templates.
struct Mix
{
  std::vector<model::PodSpecPtr> deployments;
  std::vector<model::PodSpecPtr> spread;
  std::vector<model::PodSpecPtr> anti;
  std::vector<model::PodSpecPtr> jobs;

  explicit Mix(int n_deployments)
  {
    const std::string zone_key(model::labels::k_zone);
    for (int i = 0; i < n_deployments; ++i) {
      auto s = std::make_shared<model::PodSpec>();
      s->labels = {{"app", fmt::format("web-{}", i)}, {"pod-template-hash", fmt::format("h{}", i)}};
      s->owner = model::OwnerKind::replica_set;
      deployments.push_back(s);
    }
    for (int i = 0; i < 10; ++i) {
      auto s = std::make_shared<model::PodSpec>();
      s->labels = {{"app", fmt::format("spread-{}", i)}};
      s->owner = model::OwnerKind::replica_set;
      model::TopologySpreadConstraint tsc;
      tsc.max_skew = 1;
      tsc.topology_key = zone_key;
      tsc.selector = model::LabelSelector{{{"app", fmt::format("spread-{}", i)}}, {}};
      s->topology_spread = {tsc};
      spread.push_back(s);
    }
    for (int i = 0; i < 5; ++i) {
      auto s = std::make_shared<model::PodSpec>();
      s->labels = {{"app", fmt::format("kafka-{}", i)}};
      s->owner = model::OwnerKind::stateful_set;
      model::PodAffinityTerm term;
      term.selector = model::LabelSelector{{{"app", fmt::format("kafka-{}", i)}}, {}};
      term.topology_key = std::string(model::labels::k_hostname);
      s->pod_anti_affinity_required = {term};
      anti.push_back(s);
    }
    for (int i = 0; i < 20; ++i) {
      auto s = std::make_shared<model::PodSpec>();
      s->labels = {{"job", fmt::format("batch-{}", i)}};
      s->owner = model::OwnerKind::job;
      jobs.push_back(s);
    }
  }

  // A pod of the mix: 70% deployments, 15% spread, 2% anti-affinity, 13% jobs.
  model::Pod make(Gen& g, std::uint64_t serial)
  {
    model::Pod p;
    p.name = fmt::format("p{}", serial);
    const auto r = g.below(100);
    if (r < 70) {
      p.spec = deployments[g.below(deployments.size())];
    } else if (r < 85) {
      p.spec = spread[g.below(spread.size())];
    } else if (r < 87) {
      p.spec = anti[g.below(anti.size())];
    } else {
      p.spec = jobs[g.below(jobs.size())];
    }
    p.requests[model::k_cpu] = 100 + static_cast<std::int64_t>(g.below(8)) * 100;
    p.requests[model::k_memory] = (128 + static_cast<std::int64_t>(g.below(8)) * 256) * k_mi;
    return p;
  }
};

void bench_large()
{
  Cluster c;
  add_nodes(c, 5000);
  Mix mix(400);
  Gen g{42};
  const std::size_t n_pods = 100'000;
  c.reserve_pods(n_pods + 20'000);
  scheduling::KubeScheduler s;
  // Fill the cluster in waves of 2,000 pending pods per pass.
  std::vector<scheduling::Binding> bound;
  double t0 = cpu_now();
  for (std::size_t wave = 0; wave < n_pods / 2000; ++wave) {
    for (std::size_t i = 0; i < 2000; ++i) {
      const auto p = c.add_pod(mix.make(g, wave * 2000 + i));
      c.set_pending(p, static_cast<SimTime>(wave));
    }
    const auto b = s.bind_pending(c, static_cast<SimTime>(wave));
    bound.insert(bound.end(), b.begin(), b.end());
  }
  const double t_initial = seconds_since(t0);
  fmt::print("large: 5000 nodes, {} pods in passes of 2000 pending -> {} bound: {:.2f} s ({:.0f} pods/s, "
             "{:.1f} us/pod)\n",
             n_pods, bound.size(), t_initial, static_cast<double>(bound.size()) / t_initial,
             1e6 * t_initial / static_cast<double>(bound.size()));

  // Churn: one departure and one arrival per pass.
  std::vector<PodIndex> running;
  for (const auto& b : bound) {
    running.push_back(b.pod);
  }
  const int passes = 20'000;
  std::size_t churn_bound = 0;
  t0 = cpu_now();
  for (int i = 0; i < passes; ++i) {
    const auto k = g.below(running.size());
    const PodIndex leaving = running[k];
    c.unbind(leaving, 2 + i);
    c.pod_mut(leaving).phase = cluster::PodPhase::finished;
    running[k] = running.back();
    running.pop_back();
    const auto p = c.add_pod(mix.make(g, n_pods + static_cast<std::size_t>(i)));
    c.set_pending(p, 2 + i);
    for (const auto& b : s.bind_pending(c, 2 + i)) {
      running.push_back(b.pod);
      ++churn_bound;
    }
  }
  const double t_churn = seconds_since(t0);
  fmt::print("large: churn on 5000 nodes / ~{} running pods: {} passes, {} bound, {:.1f} us/pass\n", running.size(),
             passes, churn_bound, 1e6 * t_churn / passes);
}

void bench_week()
{
  // ~1,000,000 arrivals over a simulated week (0.6 s apart), runtimes 10 min .. 3 h, so about
  // 8,000 pods run at once on 600 nodes. One binding pass per arrival, as the engine does it.
  Cluster c;
  add_nodes(c, 600);
  Mix mix(150);
  Gen g{7};
  const std::size_t n_pods = 1'000'000;
  c.reserve_pods(n_pods);
  scheduling::KubeScheduler s;
  using Departure = std::pair<SimTime, PodIndex>;
  std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures;
  std::size_t bound = 0;
  std::size_t passes = 0;
  std::size_t peak = 0;
  std::size_t running = 0;
  const double t0 = cpu_now();
  for (std::size_t i = 0; i < n_pods; ++i) {
    const SimTime now = static_cast<SimTime>(i) * 600;
    while (!departures.empty() && departures.top().first <= now) {
      const PodIndex p = departures.top().second;
      departures.pop();
      c.unbind(p, now);
      c.pod_mut(p).phase = cluster::PodPhase::finished;
      --running;
    }
    const auto p = c.add_pod(mix.make(g, i));
    c.set_pending(p, now);
    for (const auto& b : s.bind_pending(c, now)) {
      const SimTime runtime = (10 + static_cast<SimTime>(g.below(170))) * 60'000;
      departures.emplace(now + runtime, b.pod);
      ++bound;
      ++running;
    }
    peak = std::max(peak, running);
    ++passes;
  }
  const double t = seconds_since(t0);
  fmt::print("week: 600 nodes, {} arrivals, {} bound, {} still pending, peak {} running: {:.2f} s total, "
             "{:.2f} us/pass\n",
             n_pods, bound, c.pending().size(), peak, t, 1e6 * t / static_cast<double>(passes));
}

} // namespace

int main(int argc, char** argv)
{
  const std::string which = argc > 1 ? argv[1] : "all";
  if (which == "large" || which == "all") {
    bench_large();
  }
  if (which == "week" || which == "all") {
    bench_week();
  }
  return 0;
}
