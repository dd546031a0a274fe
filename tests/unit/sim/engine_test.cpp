#include "core/karpenter/controller.hpp"
#include "core/sim/engine.hpp"
#include "tests/support/fake_catalog_support.hpp"

#include <catch2/catch.hpp>

#include <memory>

using namespace capsim;

namespace {

struct World
{
  model::Scenario scenario;
  catalog::Catalog catalog;
  std::vector<model::Pod> workload;
};

model::PodSpecPtr spec(std::int64_t cpu_milli, model::OwnerKind owner = model::OwnerKind::replica_set)
{
  auto s = std::make_shared<model::PodSpec>();
  s->template_name = "web";
  s->requests[model::k_cpu] = cpu_milli;
  s->requests[model::k_memory] = 256 * k_mib;
  s->owner = owner;
  return s;
}

World make_world(int pods, std::int64_t cpu_milli)
{
  World w;
  w.scenario.settings.duration = k_hour;
  model::NodePool pool;
  pool.name = "default";
  w.scenario.node_pools.push_back(pool);
  w.catalog = catalog::Catalog("test", {"test-zone-1", "test-zone-2", "test-zone-3"}, testing::fake_default_catalog());
  const auto s = spec(cpu_milli);
  for (int i = 0; i < pods; ++i) {
    model::Pod p;
    p.name = "web-" + std::to_string(i);
    p.spec = s;
    p.requests = s->requests;
    w.workload.push_back(p);
  }
  return w;
}

report::EngineResult run_karpenter(const World& w, std::uint64_t seed = 1)
{
  sim::EngineInput in;
  in.scenario = &w.scenario;
  in.catalog = &w.catalog;
  in.workload = &w.workload;
  in.end = w.scenario.settings.duration;
  in.seed = seed;
  sim::Engine engine(in);
  auto controller = karpenter::make_karpenter(w.scenario, w.catalog, seed);
  return engine.run(*controller);
}

} // namespace

TEST_CASE("engine: Karpenter provisions one node for a small batch and bills it per second", "[sim][engine]")
{
  const World w = make_world(3, 1000);
  const auto r = run_karpenter(w);
  REQUIRE(r.nodes.launched == 1);
  REQUIRE(r.final_nodes.size() == 1);
  CHECK(r.final_nodes[0].instance_type == "default-instance-type");
  CHECK(r.final_nodes[0].pods == 3);
  CHECK(r.pods.total == 3);
  CHECK(r.pods.scheduled == 3);
  CHECK(r.pods.unschedulable == 0);
  // Batch window closes 1 s after the pods arrive; the node is ready 45 s + 30 s later.
  CHECK(r.pods.pending_max_s == Approx(76.0));
  // Launched at t=1s and billed to the end of the hour.
  CHECK(r.cost.total_usd == Approx(0.8294967296 * 3599.0 / 3600.0));
  CHECK(r.nodes.node_hours == Approx(3599.0 / 3600.0));
  // Lower bound: 3000m of 3900m allocatable on default-instance-type, from the first whole
  // minute after the pods start (t=76 s falls in the step [60 s, 120 s)).
  CHECK(r.lower_bound.total_usd == Approx(0.8294967296 * 3000.0 / 3900.0 * 3480.0 / 3600.0));
  CHECK(r.lower_bound.efficiency == Approx(r.lower_bound.total_usd / r.cost.total_usd));
}

TEST_CASE("engine: the lower bound takes each template's minimum within a step, summed over its class",
          "[sim][engine][lower_bound]")
{
  // Two pods of `web` run all hour; a pod of `api` (placed alike: the same class) arrives at
  // 30m30s. In the step [30m, 31m) api's minimum is 0, so the class's minimum is web's 2000m
  // (its demand at the end of the step is 3000m).
  World w = make_world(2, 1000);
  auto api = std::make_shared<model::PodSpec>(*w.workload.front().spec);
  api->template_name = "api";
  model::Pod late;
  late.name = "api-0";
  late.spec = api;
  late.requests = api->requests;
  late.arrival = 30 * k_minute + 30 * k_second;
  w.workload.push_back(late);
  const auto r = run_karpenter(w);
  REQUIRE(r.nodes.launched == 1);
  CHECK(r.final_nodes[0].pods == 3);
  const double per_milli_second = 0.8294967296 / 3900.0 / 3600.0;
  CHECK(r.lower_bound.total_usd == Approx(per_milli_second * (2000.0 * (1860 - 120) + 3000.0 * (3600 - 1860))));
}

TEST_CASE("engine: pods that fit no instance type stay pending and are counted unschedulable", "[sim][engine]")
{
  const World w = make_world(1, 64000);
  const auto r = run_karpenter(w);
  CHECK(r.nodes.launched == 0);
  CHECK(r.pods.unschedulable == 1);
  CHECK(r.pods.pending_max_s == Approx(3600.0));
  CHECK(r.cost.total_usd == 0.0);
}

TEST_CASE("engine: the same inputs and seed give identical results", "[sim][engine][determinism]")
{
  const World w = make_world(40, 700);
  const auto a = run_karpenter(w, 7);
  const auto b = run_karpenter(w, 7);
  CHECK(a.cost.total_usd == b.cost.total_usd);
  CHECK(a.nodes.launched == b.nodes.launched);
  REQUIRE(a.final_nodes.size() == b.final_nodes.size());
  for (std::size_t i = 0; i < a.final_nodes.size(); ++i) {
    CHECK(a.final_nodes[i].name == b.final_nodes[i].name);
    CHECK(a.final_nodes[i].instance_type == b.final_nodes[i].instance_type);
  }
}

namespace {

// Records, at each reconcile, whether every offering is available, waking every 5 minutes.
class AvailabilityProbe : public sim::Controller
{
public:
  [[nodiscard]] std::string_view name() const override { return "probe"; }
  std::optional<SimTime> reconcile(SimTime now, const cluster::Cluster& /*cluster*/, sim::Actuator& actuator) override
  {
    seen.emplace_back(now, actuator.all_offerings_available());
    marked.push_back(actuator.offering_available("m5.large", "test-zone-1", "spot"));
    other.push_back(actuator.offering_available("m5.large", "test-zone-2", "spot"));
    return now + 5 * k_minute;
  }
  std::vector<std::pair<SimTime, bool>> seen;
  std::vector<bool> marked;
  std::vector<bool> other;
};

} // namespace

TEST_CASE("engine: all_offerings_available is false exactly while an offering is marked unavailable", "[sim][engine]")
{
  const World w = make_world(0, 100);
  sim::EngineInput in;
  in.scenario = &w.scenario;
  in.catalog = &w.catalog;
  in.workload = &w.workload;
  in.end = 20 * k_minute;
  sim::Engine engine(in);
  engine.mark_unavailable("m5.large", "test-zone-1", "spot", 12 * k_minute);
  AvailabilityProbe probe;
  (void)engine.run(probe);
  REQUIRE(probe.seen.size() >= 4);
  for (std::size_t i = 0; i < probe.seen.size(); ++i) {
    const auto [at, all] = probe.seen[i];
    CAPTURE(at);
    CHECK(all == (at >= 12 * k_minute));
    CHECK(probe.marked[i] == all); // the marked offering is the only one out
    CHECK(probe.other[i]);
  }
}
