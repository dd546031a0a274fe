#pragma once

// An engine-level emulation of Karpenter's disruption test suites
// (core:pkg/controllers/disruption/suite_test.go): a scenario built in C++ — NodePools, nodes
// that exist at t=0 with their pods bound, pods arriving later — run through sim::Engine with
// KarpenterController + install_disruption, then inspected (surviving nodes, decisions).

#include "core/catalog/catalog.hpp"
#include "core/cluster/cluster.hpp"
#include "core/karpenter/controller.hpp"
#include "core/karpenter/disruption.hpp"
#include "core/model/scenario.hpp"
#include "core/report/result.hpp"
#include "core/sim/engine.hpp"
#include "tests/support/fake_catalog_support.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace capsim::karpenter::dtest {

// The fields of test.PodOptions the ported cases use.
struct PodOpts
{
  std::string ns = "default";
  model::Labels labels;
  std::int64_t cpu_milli = 0;
  std::int64_t memory = 0;
  model::OwnerKind owner = model::OwnerKind::replica_set;
  Duration do_not_disrupt = 0; // k_never = "true"
  std::int32_t priority = 0;
  std::int64_t deletion_cost = 0;
  std::vector<model::Toleration> tolerations;
  model::Labels node_selector;
  std::vector<model::PodAffinityTerm> anti_affinity;
  std::vector<model::TopologySpreadConstraint> spread;
  Duration runtime = -1;
  Duration termination_grace_period = 30 * k_second; // terminationGracePeriodSeconds
};

class Sim
{
public:
  // The disruption suite's default catalog is fake.InstanceTypesAssorted().
  explicit Sim(std::vector<catalog::InstanceType> types = testing::fake_instance_types_assorted(),
               std::vector<std::string> zones = {"test-zone-1", "test-zone-2", "test-zone-3"});
  explicit Sim(catalog::Catalog cat);

  model::Scenario scenario;
  catalog::Catalog catalog;
  std::vector<model::Pod> workload;

  // The disruption suite's NodePool: WhenEmptyOrUnderutilized, consolidateAfter 0s, budgets
  // 100%, no expiry.
  model::NodePool& pool(const std::string& name = "default");

  // A node of `pool` present at t=0 (initialized), of instance type `type` in its first
  // offering's zone and capacity type unless given. `allocatable` overrides the type's.
  std::string node(const std::string& name, const std::string& pool, const std::string& type,
                   std::optional<model::Resources> allocatable = std::nullopt, std::string zone = {},
                   std::string capacity_type = {}, bool do_not_disrupt = false);

  // Adds labels to a node declared with node().
  void label_node(const std::string& name, const model::Labels& labels);

  // n pods bound to `node` at t=0.
  void pods_on(const std::string& node, int n, const PodOpts& o = {});
  // n pending pods arriving at `at`.
  void pending(SimTime at, int n, const PodOpts& o = {});

  // Runs until `end` and returns the engine's result (decisions recorded unless `explain` is
  // false: the controller then takes the paths that need not say why).
  report::EngineResult run(SimTime end, bool explain = true);

  // After run(): the simulated cluster.
  [[nodiscard]] const cluster::Cluster& cluster() const { return m_engine->cluster(); }

  // After run(): the controller (its SolveCache's counters).
  [[nodiscard]] KarpenterController& controller() { return *m_controller; }

  // Names of the nodes alive at the end, sorted.
  [[nodiscard]] std::vector<std::string> alive() const;
  // Whether the named node is alive at the end.
  [[nodiscard]] bool alive(const std::string& name) const;
  // Instance types of the nodes alive at the end, sorted.
  [[nodiscard]] std::vector<std::string> alive_types() const;

  // The cheapest / most expensive type offering `capacity_type` (ties: name order).
  [[nodiscard]] const catalog::InstanceType& cheapest(const std::string& capacity_type) const;
  [[nodiscard]] const catalog::InstanceType& most_expensive(const std::string& capacity_type) const;

private:
  model::PodSpecPtr spec(const PodOpts& o) const;

  int m_pod_seq = 0;
  std::unique_ptr<KarpenterController> m_controller;
  std::unique_ptr<sim::Engine> m_engine;
};

// Decisions of `result` with the given method and action ("" matches any).
[[nodiscard]] std::vector<report::Decision> decisions(const report::EngineResult& result, const std::string& method,
                                                      const std::string& action = {});

// Whether some decision for `node` has `action` and a detail containing `text`.
[[nodiscard]] bool has_decision(const report::EngineResult& result, const std::string& node, const std::string& action,
                                const std::string& text);

// The decision log as text, for INFO() on failures.
[[nodiscard]] std::string dump(const report::EngineResult& result);

[[nodiscard]] model::Resources resources(std::int64_t cpu_milli, std::int64_t memory = 0, std::int64_t pods = 0);

// The consolidation suite's BeforeEach (consolidation_test.go): the "default" NodePool pool()
// makes, the SpotToSpotConsolidation gate on.
struct ConsolidationSuite
{
  Sim sim;

  explicit ConsolidationSuite(std::vector<catalog::InstanceType> types = testing::fake_instance_types_assorted(),
                              std::vector<std::string> zones = {"test-zone-1", "test-zone-2", "test-zone-3"});

  model::NodePool& pool() { return sim.scenario.node_pools[0]; }

  // The Delete context's nodes node-0 and node-1: leastExpensiveInstance with allocatable
  // {cpu: 32, pods: 100}.
  void two_cheap_nodes();
};

// test.PodOptions of the disruption suites: labels {"app": "test"}, owned by a ReplicaSet.
[[nodiscard]] PodOpts rs_pod();

// A spot node `name` of NodePool "default" (made spot-only) on its most expensive spot type, with
// `cpu_milli` allocatable CPU and one rs_pod() of `pod_milli` CPU bound to it.
void spot_node_with_pod(Sim& sim, const std::string& name, std::int64_t cpu_milli, std::int64_t pod_milli);

// test.PodDisruptionBudget{Labels: labels, MaxUnavailable: 0}, named "pdb".
[[nodiscard]] model::PodDisruptionBudget blocking_pdb(const model::Labels& labels);

// After run(): the one node alive (fails the test unless exactly one is).
[[nodiscard]] const cluster::NodeState& only_alive(const Sim& sim);

// After run(): the pods bound to nodes alive.
[[nodiscard]] int bound_pods(const Sim& sim);

} // namespace capsim::karpenter::dtest
