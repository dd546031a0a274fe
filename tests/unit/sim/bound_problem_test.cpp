#include "core/report/lower_bound.hpp"
#include "core/sim/bound_problem.hpp"
#include "tests/support/fake_catalog_support.hpp"

#include <catch2/catch.hpp>

#include <memory>

using namespace capsim;

namespace {

model::PodSpecPtr spec(const std::string& name, const model::Labels& node_selector = {},
                       std::vector<model::Toleration> tolerations = {})
{
  auto s = std::make_shared<model::PodSpec>();
  s->template_name = name;
  s->labels["app"] = name;
  s->requests[model::k_cpu] = 500;
  s->node_selector = node_selector;
  s->tolerations = std::move(tolerations);
  return s;
}

} // namespace

TEST_CASE("bound model: templates whose pods may use the same columns share a class", "[sim][lower_bound]")
{
  model::Scenario scenario;
  model::NodePool pool;
  pool.name = "default";
  scenario.node_pools.push_back(pool);
  const catalog::Catalog catalog("test", {"test-zone-1", "test-zone-2", "test-zone-3"}, testing::fake_default_catalog());
  const model::Labels arm{{"kubernetes.io/arch", "arm64"}};
  model::Toleration any;
  any.op_exists = true;
  const std::vector<model::PodSpecPtr> specs{spec("web"), spec("api", arm), spec("batch"), spec("worker", arm),
                                             spec("tolerant", {}, {any})};
  const auto m = sim::build_bound_model(scenario, catalog, "karpenter", specs);
  // web, batch and tolerant (the pool has no taints) may use every amd64 type; api and worker
  // only arm-instance-type.
  REQUIRE(m.problem.classes.size() == 2);
  CHECK(m.class_of_spec == std::vector<std::size_t>{0, 1, 0, 1, 0});
  CHECK(m.problem.classes[0].name == "web");
  CHECK(m.problem.classes[1].name == "api");
  CHECK(m.problem.classes[0].columns.size() > 1);
  REQUIRE(m.problem.classes[1].columns.size() == 1);
  CHECK(m.problem.columns[m.problem.classes[1].columns.front()].name == "arm-instance-type");
}

TEST_CASE("lower bound: classes with the same columns merged give the same optimum", "[report][lower_bound]")
{
  // Classes 0 and 1 may use columns {0, 1}, class 2 column {2} only: the LP reads a class's
  // demand only through the unions holding its columns, so 0 and 1 summed are the same LP.
  report::BoundProblem split;
  split.columns = {{"a", 0.10, {}}, {"b", 0.25, {}}, {"c", 0.18, {}}};
  split.columns[0].allocatable[model::k_cpu] = 2000;
  split.columns[0].allocatable[model::k_memory] = 8 * k_gib;
  split.columns[1].allocatable[model::k_cpu] = 8000;
  split.columns[1].allocatable[model::k_memory] = 16 * k_gib;
  split.columns[2].allocatable[model::k_cpu] = 4000;
  split.columns[2].allocatable[model::k_memory] = 4 * k_gib;
  split.classes = {{"x", {0, 1}}, {"y", {0, 1}}, {"z", {2}}};
  report::BoundProblem merged = split;
  merged.classes = {{"xy", {0, 1}}, {"z", {2}}};
  report::LowerBoundSolver by_spec(split);
  report::LowerBoundSolver by_class(merged);
  const auto demand = [](std::int64_t cpu, std::int64_t memory) {
    model::Resources r;
    r[model::k_cpu] = cpu;
    r[model::k_memory] = memory;
    return r;
  };
  for (int i = 0; i < 20; ++i) {
    const auto x = demand(300 * i + 100, (i % 7) * k_gib + 512 * k_mib);
    const auto y = demand(7000 - 250 * i, ((i * 3) % 11) * k_gib);
    const auto z = demand(1000 + 90 * i, 2 * k_gib);
    const auto& a = by_spec.solve({x, y, z});
    const double cost = a.cost_per_hour;
    const auto& b = by_class.solve({x + y, z});
    CAPTURE(i);
    CHECK(cost > 0);
    CHECK(b.cost_per_hour == Approx(cost).epsilon(1e-12));
  }
}
