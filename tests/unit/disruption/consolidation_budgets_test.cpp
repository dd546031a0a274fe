// Ports of the Context("Budgets") cases of core:pkg/controllers/disruption/consolidation_test.go
// (kubernetes-sigs/karpenter HEAD 2266468) not already in consolidation_test.cpp or
// emptiness_test.cpp. Each case names its upstream `It(...)`. The context's BeforeEach: 10 nodes
// of the most expensive on-demand type with allocatable {cpu: 32, pods: 100} in a
// WhenEmptyOrUnderutilized NodePool (consolidateAfter 0s), the fake.InstanceTypesAssorted()
// catalog. Upstream drives one reconcile with no-op validators; here the engine runs, so a
// command is validated 15 s after it is computed (the first one at 15 s).
//
// The "should not mark ... consolidated" cases read Karpenter's internal consolidated flag after
// one ComputeCommands with a 0% budget. capsim keeps the same flag (it is not marked when a
// budget held a candidate back), and it is observable: a marked method does nothing until the
// cluster changes or the 5-minute ConsolidationState refresh. So these ports give the 0% budget a
// schedule (active for the first 2 minutes) and check that the method acts at the first poll
// after the window closes (120 s, command recorded after the 15 s validation), not at 300 s.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace capsim::karpenter::dtest {

namespace {

const model::Labels k_app = {{"app", "test"}};

model::DisruptionBudget nodes_budget(const std::string& nodes)
{
  return model::DisruptionBudget{nodes, std::nullopt, std::nullopt, {}};
}

// Nodes: "0%" from 00:00 for 2 minutes (the run starts at 1970-01-01T00:00Z), then no active
// budget (no limit).
model::DisruptionBudget blocked_for_two_minutes()
{
  return model::DisruptionBudget{"0%", std::string("@daily"), 2 * k_minute, {}};
}

struct BudgetsSuite
{
  Sim sim;
  std::string type;

  BudgetsSuite()
  {
    sim.pool("default");
    sim.scenario.settings.karpenter.spot_to_spot_consolidation = true;
    type = sim.most_expensive("on-demand").name;
  }

  model::NodePool& pool() { return sim.scenario.node_pools[0]; }

  // The context's 10 nodes of the default NodePool: node-00 .. node-09.
  std::vector<std::string> ten_nodes()
  {
    std::vector<std::string> out;
    for (int i = 0; i < 10; ++i) {
      out.push_back(sim.node(fmt::format("node-{:02d}", i), "default", type, resources(32000, 0, 100)));
    }
    return out;
  }

  // test.NodePools(10, ...) with `budget`, 3 nodes each (np-i-j); the default NodePool stays,
  // without nodes.
  std::vector<std::string> ten_pools_of_three(const model::DisruptionBudget& budget)
  {
    std::vector<std::string> out;
    for (int i = 0; i < 10; ++i) {
      const auto name = fmt::format("np-{}", i);
      sim.pool(name).budgets = {budget};
      for (int j = 0; j < 3; ++j) {
        out.push_back(sim.node(fmt::format("np-{}-{}", i, j), name, type, resources(32000, 0, 100)));
      }
    }
    return out;
  }

  static PodOpts rs_pod(std::int64_t cpu_milli)
  {
    PodOpts o;
    o.labels = k_app;
    o.cpu_milli = cpu_milli;
    return o;
  }
};

std::size_t count_nodes(const std::string& candidates)
{
  return candidates.empty() ? 0 : static_cast<std::size_t>(std::count(candidates.begin(), candidates.end(), ',')) + 1;
}

// The first command (delete or replace) `method` started.
std::optional<report::Decision> first_command(const report::EngineResult& result, const std::string& method)
{
  for (const auto& d : result.decisions) {
    if (d.method == method && (d.action == "delete" || d.action == "replace")) {
      return d;
    }
  }
  return std::nullopt;
}

// Alive nodes of the named NodePool.
std::size_t alive_in_pool(const Sim& sim, const std::string& pool)
{
  std::size_t index = sim.scenario.node_pools.size();
  for (std::size_t i = 0; i < sim.scenario.node_pools.size(); ++i) {
    if (sim.scenario.node_pools[i].name == pool) {
      index = i;
    }
  }
  REQUIRE(index < sim.scenario.node_pools.size());
  std::size_t n = 0;
  for (const auto& node : sim.cluster().nodes()) {
    if (node.alive() && node.pool == index) {
      ++n;
    }
  }
  return n;
}

// The command of a "should not mark ... consolidated" case: started by `method` once the budget
// window closed (computed at the 120 s poll, validated 15 s later), and none before.
void expect_acts_after_window(const report::EngineResult& result, const std::string& method)
{
  const auto cmd = first_command(result, method);
  REQUIRE(cmd.has_value());
  CHECK(cmd->t >= 2 * k_minute + 15 * k_second);
  CHECK(cmd->t <= 2 * k_minute + 25 * k_second);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Budgets: how many nodes one pass disrupts

TEST_CASE("Consolidation Budgets: should allow all empty nodes to be disrupted",
          "[disruption][consolidation][budgets]")
{
  BudgetsSuite s;
  s.pool().budgets = {nodes_budget("100%")};
  s.ten_nodes();
  const auto result = s.sim.run(20 * k_second);
  INFO(dump(result));
  // One command deleting all 10 NodeClaims.
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(count_nodes(deletes[0].candidate) == 10);
  CHECK(s.sim.alive().empty());
}

TEST_CASE("Consolidation Budgets: should only allow 3 nodes to be deleted in single node consolidation delete",
          "[disruption][consolidation][budgets]")
{
  // A 15-CPU pod on each node (two fit a node). Budget 30% of 10 = 3. Upstream reconciles five
  // times and executes every queued command: 7 NodeClaims are left, whichever consolidation
  // method found the deletions (multi-node can move three pods beside the others at once).
  BudgetsSuite s;
  s.pool().budgets = {nodes_budget("30%")};
  for (const auto& n : s.ten_nodes()) {
    s.sim.pods_on(n, 1, BudgetsSuite::rs_pod(15000));
  }
  const auto result = s.sim.run(20 * k_second);
  INFO(dump(result));
  std::size_t deleted = 0;
  for (const auto& d : result.decisions) {
    if (d.action == "delete") {
      deleted += count_nodes(d.candidate);
    }
  }
  CHECK(deleted == 3);
  CHECK(result.nodes.launched == 0);
  CHECK(s.sim.alive().size() == 7);
}

TEST_CASE("Consolidation Budgets: should allow 2 nodes from each nodePool to be deleted",
          "[disruption][consolidation][budgets]")
{
  // 10 NodePools of 3 empty nodes, budget 50%: 1.5 nodes round up to 2 per NodePool, so one
  // command deletes 20 NodeClaims and 10 are left. (emptiness_test.cpp ports Emptiness's own
  // version of this case, two NodePools of 10 at 20%.)
  BudgetsSuite s;
  s.ten_pools_of_three(nodes_budget("50%"));
  const auto result = s.sim.run(20 * k_second);
  INFO(dump(result));
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(count_nodes(deletes[0].candidate) == 20);
  CHECK(s.sim.alive().size() == 10);
  for (int i = 0; i < 10; ++i) {
    CHECK(alive_in_pool(s.sim, fmt::format("np-{}", i)) == 1);
  }
}

TEST_CASE("Consolidation Budgets: should allow all nodes from each nodePool to be deleted",
          "[disruption][consolidation][budgets]")
{
  BudgetsSuite s;
  s.ten_pools_of_three(nodes_budget("100%"));
  const auto result = s.sim.run(20 * k_second);
  INFO(dump(result));
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(count_nodes(deletes[0].candidate) == 30);
  CHECK(s.sim.alive().empty());
}

TEST_CASE("Consolidation Budgets: should allow no nodes from each nodePool to be deleted",
          "[disruption][consolidation][budgets]")
{
  BudgetsSuite s;
  s.ten_pools_of_three(nodes_budget("0%"));
  const auto result = s.sim.run(2 * k_minute);
  INFO(dump(result));
  // No command at all.
  CHECK(!first_command(result, "emptiness").has_value());
  CHECK(!first_command(result, "multi-node").has_value());
  CHECK(!first_command(result, "single-node").has_value());
  CHECK(s.sim.alive().size() == 30);
  CHECK(has_decision(result, "np-0-0", "keep", "allows no more Empty disruptions"));
}

// ---------------------------------------------------------------------------------------------
// Budgets: a method held back by a budget is not marked consolidated

TEST_CASE("Consolidation Budgets: should not mark empty node consolidated if the candidates can't be disrupted due to "
          "budgets with one nodepool",
          "[disruption][consolidation][budgets]")
{
  BudgetsSuite s;
  s.pool().budgets = {blocked_for_two_minutes()};
  s.ten_nodes();
  const auto result = s.sim.run(150 * k_second);
  INFO(dump(result));
  CHECK(has_decision(result, "node-00", "keep", "allows no more Empty disruptions"));
  expect_acts_after_window(result, "emptiness");
  CHECK(count_nodes(first_command(result, "emptiness").value().candidate) == 10);
}

TEST_CASE("Consolidation Budgets: should not mark empty node consolidated if all candidates can't be disrupted due to "
          "budgets with many nodepools",
          "[disruption][consolidation][budgets]")
{
  BudgetsSuite s;
  s.ten_pools_of_three(blocked_for_two_minutes());
  const auto result = s.sim.run(150 * k_second);
  INFO(dump(result));
  CHECK(has_decision(result, "np-0-0", "keep", "allows no more Empty disruptions"));
  expect_acts_after_window(result, "emptiness");
  CHECK(count_nodes(first_command(result, "emptiness").value().candidate) == 30);
}

TEST_CASE("Consolidation Budgets: should not mark multi node consolidated if the candidates can't be disrupted due to "
          "budgets with one nodepool",
          "[disruption][consolidation][budgets][multi]")
{
  // A 1-CPU pod on each node; multi-node runs before single-node, so the first command after
  // the window is multi-node's.
  BudgetsSuite s;
  s.pool().budgets = {blocked_for_two_minutes()};
  for (const auto& n : s.ten_nodes()) {
    s.sim.pods_on(n, 1, BudgetsSuite::rs_pod(1000));
  }
  const auto result = s.sim.run(150 * k_second);
  INFO(dump(result));
  CHECK(has_decision(result, "node-00", "keep", "allows no more Underutilized disruptions"));
  expect_acts_after_window(result, "multi-node");
  CHECK(!first_command(result, "single-node").has_value());
}

TEST_CASE("Consolidation Budgets: should not mark multi node consolidated if all candidates can't be disrupted due to "
          "budgets with many nodepools",
          "[disruption][consolidation][budgets][multi]")
{
  BudgetsSuite s;
  for (const auto& n : s.ten_pools_of_three(blocked_for_two_minutes())) {
    s.sim.pods_on(n, 1, BudgetsSuite::rs_pod(1000));
  }
  const auto result = s.sim.run(150 * k_second);
  INFO(dump(result));
  CHECK(has_decision(result, "np-0-0", "keep", "allows no more Underutilized disruptions"));
  expect_acts_after_window(result, "multi-node");
  CHECK(!first_command(result, "single-node").has_value());
}

namespace {

// The single-node cases' pods: 1 CPU, one per node (required hostname anti-affinity among them),
// so any multi-node batch needs one new node per candidate and fails; single-node replaces one
// node with a cheaper one. (Upstream calls single-node's ComputeCommands directly; in the engine
// multi-node would act first on plain pods.)
PodOpts spread_pod()
{
  auto o = BudgetsSuite::rs_pod(1000);
  model::PodAffinityTerm term;
  term.selector = model::LabelSelector{k_app, {}};
  term.topology_key = std::string(model::labels::k_hostname);
  o.anti_affinity = {term};
  return o;
}

} // namespace

TEST_CASE("Consolidation Budgets: should not mark single node consolidated if the candidates can't be disrupted due to "
          "budgets with one nodepool",
          "[disruption][consolidation][budgets]")
{
  BudgetsSuite s;
  s.pool().budgets = {blocked_for_two_minutes()};
  for (const auto& n : s.ten_nodes()) {
    s.sim.pods_on(n, 1, spread_pod());
  }
  const auto result = s.sim.run(150 * k_second);
  INFO(dump(result));
  CHECK(has_decision(result, "node-00", "keep", "allows no more Underutilized disruptions"));
  CHECK(!first_command(result, "multi-node").has_value());
  expect_acts_after_window(result, "single-node");
}

TEST_CASE("Consolidation Budgets: should not mark single node consolidated if all candidates can't be disrupted due to "
          "budgets with many nodepools",
          "[disruption][consolidation][budgets]")
{
  BudgetsSuite s;
  for (const auto& n : s.ten_pools_of_three(blocked_for_two_minutes())) {
    s.sim.pods_on(n, 1, spread_pod());
  }
  const auto result = s.sim.run(150 * k_second);
  INFO(dump(result));
  CHECK(has_decision(result, "np-0-0", "keep", "allows no more Underutilized disruptions"));
  CHECK(!first_command(result, "multi-node").has_value());
  expect_acts_after_window(result, "single-node");
}

} // namespace capsim::karpenter::dtest
