#pragma once

// A small emulation of Karpenter's test harness (core:pkg/test/expectations): a cluster, the
// fake catalog, NodePools and DaemonSets; provision() runs one scheduling round (solve over
// every pending pod), launches each NodeClaim with choose_launch, creates the node (registered,
// not initialized, as ExpectProvisioned leaves it) and binds the given pods.

#include "core/cluster/cluster.hpp"
#include "core/karpenter/launch.hpp"
#include "core/karpenter/solve.hpp"
#include "tests/support/fake_catalog_support.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace capsim::karpenter::test {

using model::Operator;
using model::Requirement;

// Well-known label keys as strings, for the requirements and selectors of the ported cases.
inline const std::string k_zone{model::labels::k_zone};
inline const std::string k_ct{model::labels::k_capacity_type};
inline const std::string k_arch{model::labels::k_arch};
inline const std::string k_it{model::labels::k_instance_type};
inline const std::string k_host{model::labels::k_hostname};
inline const std::string k_os{model::labels::k_os};
inline const std::string k_np{model::labels::k_nodepool};
inline constexpr std::int64_t k_gi = 1024LL * 1024 * 1024;

// test.PodOptions, the fields the ported cases use.
struct PodOptions
{
  std::string name;
  std::string ns = "default";
  model::Labels labels;
  std::int64_t cpu_milli = 0;
  std::int64_t memory = 0;
  std::vector<std::pair<std::string, std::int64_t>> extended;
  model::Labels node_selector;
  std::vector<Requirement> node_requirements;              // one required node-affinity term
  std::vector<std::vector<Requirement>> node_requirement_terms; // several ORed terms
  std::vector<Requirement> node_preferences;                // one preferred term, weight 1
  std::vector<model::PreferredNodeTerm> preferred_terms;
  std::vector<model::Toleration> tolerations;
  std::vector<model::TopologySpreadConstraint> spread;
  std::vector<model::PodAffinityTerm> pod_requirements; // required pod affinity
  std::vector<model::WeightedPodAffinityTerm> pod_preferences;
  std::vector<model::PodAffinityTerm> pod_anti_requirements;
  std::vector<model::WeightedPodAffinityTerm> pod_anti_preferences;
  std::vector<std::int32_t> host_ports;
  // The pod's volumes as the scenario reader resolves them (PodSpec::volume_affinity, ...).
  std::vector<std::vector<Requirement>> volume_terms; // ORed
  std::string volume_error;
  bool volume_binds_on_schedule = false;
};

[[nodiscard]] Requirement req(const std::string& key, Operator op, std::vector<std::string> values = {},
                              std::optional<int> min_values = std::nullopt);
[[nodiscard]] model::LabelSelector match_labels(model::Labels labels);
[[nodiscard]] model::TopologySpreadConstraint spread(const std::string& key, model::Labels selector, int max_skew = 1,
                                                     bool do_not_schedule = true);
[[nodiscard]] model::PodAffinityTerm affinity_term(const std::string& key, model::Labels selector);

class Env
{
public:
  explicit Env(std::vector<catalog::InstanceType> types = testing::fake_default_catalog());

  std::vector<catalog::InstanceType> types;
  cluster::Cluster cluster;
  std::vector<std::unique_ptr<model::NodePool>> pools;
  std::vector<std::vector<const catalog::InstanceType*>> pool_types; // per pool; empty = all types
  std::vector<model::PodSpecPtr> daemon_sets;
  SolveOptions options;
  LaunchOptions launch;
  OfferingAvailable available;
  SolveCache cache;
  SimTime now = 0;

  // test.NodePool(): limits cpu 2000, no requirements.
  model::NodePool& node_pool(const std::string& name = "default");
  [[nodiscard]] model::PodSpecPtr spec(const PodOptions& o) const;
  // A pending pod (its own PodSpec).
  cluster::PodIndex pod(const PodOptions& o = {});
  // n pending pods sharing one PodSpec (test.UnschedulablePods).
  std::vector<cluster::PodIndex> pods(const PodOptions& o, int n);
  void daemon_set(const PodOptions& o);
  // A DaemonSet pod (is_daemon), pending until bound with bind().
  cluster::PodIndex daemon_pod(const PodOptions& o);
  // A node that exists before the round (unowned unless pool is set).
  cluster::NodeIndex node(const std::string& name, model::Labels labels, model::Resources allocatable,
                          cluster::NodeLifecycle lifecycle = cluster::NodeLifecycle::ready,
                          std::optional<std::uint32_t> pool = std::nullopt);
  void bind(cluster::PodIndex pod, cluster::NodeIndex node);
  // ExpectDeleted: the pod leaves the cluster (unbound if bound).
  void remove(cluster::PodIndex pod);
  // ExpectDeleteAllUnscheduledPods.
  void delete_unscheduled();

  struct Round
  {
    SolveResult result;
    std::vector<LaunchDecision> launches;
    std::vector<cluster::NodeIndex> created; // per claim; k_none when the launch failed
  };

  // ExpectProvisioned(pods...): schedule every pending pod, launch, bind the given pods.
  Round provision(const std::vector<cluster::PodIndex>& bind_pods);
  Round provision(cluster::PodIndex p) { return provision(std::vector<cluster::PodIndex>{p}); }

  [[nodiscard]] SolveInput input() const;
  [[nodiscard]] bool scheduled(cluster::PodIndex p) const { return cluster.pod(p).node != cluster::k_none; }
  [[nodiscard]] const cluster::NodeState& node_of(cluster::PodIndex p) const;
  [[nodiscard]] std::string label(cluster::PodIndex p, const std::string& key) const;
  [[nodiscard]] const catalog::InstanceType& type_of(cluster::PodIndex p) const;
  // ExpectSkew: bound pods matching the selector per domain of `key` (node name for hostname),
  // as a sorted list of counts.
  [[nodiscard]] std::vector<int> skew(const std::string& key, const model::LabelSelector& selector,
                                      const std::string& ns = "default") const;
  [[nodiscard]] std::size_t node_count() const { return cluster.alive_nodes(); }
  // Capacity reservations: whether a type has a reserved offering in one, and the nodes in one
  // (as the provider's available count goes down on each launch into it).
  [[nodiscard]] bool has_reservations() const;
  [[nodiscard]] std::int32_t reservation_used(std::string_view id) const;

private:
  int m_pod_seq = 0;
  int m_node_seq = 0;
};

// Catch checks that two solves agree: stopped, every error, placement and NodeClaim (pods,
// options, requirements).
void check_same(const SolveResult& a, const SolveResult& b);

} // namespace capsim::karpenter::test

// --- Helpers of the upstream_*_test.cpp ports --------------------------------------------------

namespace capsim::karpenter::test {

// A PodSpec read from the YAML of a pod's `spec:` (indented by two spaces, as under `spec:`)
// with capsim's pod converter (core/io/pod_template), so init containers, sidecars, overhead and
// zero-quantity requests reach the scheduler as they do from a scenario. Fails the test case
// (REQUIRE) on a conversion error.
[[nodiscard]] model::PodSpecPtr spec_from_yaml(const std::string& spec_yaml, const std::string& name = "yaml-pod");

// A pending pod of env with the given spec (test.UnschedulablePod for a spec built elsewhere).
cluster::PodIndex pending_pod(Env& env, const model::PodSpecPtr& spec, const std::string& name);

} // namespace capsim::karpenter::test
