#pragma once

#include "core/cas/asg.hpp"
#include "core/cas/estimator.hpp"
#include "core/cas/expander.hpp"
#include "core/cas/pod_groups.hpp"
#include "core/cas/predicates.hpp"
#include "core/cas/snapshot.hpp"
#include "core/catalog/catalog.hpp"
#include "core/model/scenario.hpp"
#include "core/sim/controller.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace capsim::cas {

// Cluster Autoscaler with fixed node groups (EC2 Auto Scaling groups), as
// research/cluster-autoscaler-model.md A.14 summarises it. Each loop (every scanInterval, at
// once after a productive loop, or on a new unschedulable pod) it:
//  1. lets each ASG launch instances up to its desired capacity (mixed-instances allocation,
//     zone balancing) and handles failed launches (backoff) and max-node-provision-time;
//  2. builds its snapshot: ready nodes + template copies for upcoming nodes;
//  3. drops pending pods that fit the snapshot (filter-out-schedulable), groups the rest
//     (equivalence groups), estimates each node group (binpacking on its template), picks one
//     option with the expander chain and scales up one group (or a balanced set) per loop;
//  4. finds unneeded nodes (utilization <= threshold, pods movable onto other nodes) and
//     deletes those unneeded long enough, outside the scale-down cooldown, within budgets.
// It acts only through sim::Actuator.
class ClusterAutoscaler final : public sim::Controller
{
public:
  ClusterAutoscaler(const model::Scenario& scenario, const catalog::Catalog& catalog, std::uint64_t seed);

  [[nodiscard]] std::string_view name() const override { return "cluster-autoscaler"; }

  std::optional<SimTime> reconcile(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator) override;

  // 0: CA alone ignores the spot notice (pods die with the instance). With
  // rebalance_recommendation: settings.rebalance_lead_time (10 min by default), the low end
  // of the "10-20 minutes before an interruption" that Karpenter's interruption design
  // (aws/karpenter-provider-aws designs/interruption-handling.md) gives for EC2 rebalance
  // recommendations, handled by a node-termination-handler draining the node.
  [[nodiscard]] Duration interruption_lead_time() const override;

  void finish(report::EngineResult& result) override;

  // Introspection (tests, --explain): the group's ASG desired capacity.
  [[nodiscard]] std::int32_t target_size(std::size_t group) const { return m_groups[group].target; }
  [[nodiscard]] bool backed_off(std::size_t group, SimTime now) const;
  [[nodiscard]] std::size_t loops() const { return m_loops; }

private:
  struct ScaleUpRequest
  {
    SimTime time = 0;
    std::int32_t increase = 0;
    SimTime expected_add = 0;
  };

  struct Group
  {
    std::int32_t target = 0;
    bool initialized = false;
    bool launch_failed = false;    // a launch found no pool since the last refresh
    std::optional<ScaleUpRequest> request;
    std::optional<NodeTemplate> catalog_template;
    std::optional<NodeTemplate> cached_template; // from a good real node (never expires)
    cluster::NodeIndex template_node = cluster::k_none; // the node it was copied from
    // Exponential backoff.
    SimTime backoff_until = -1;
    Duration backoff_duration = 0;
    SimTime last_failure = -1;
    std::vector<std::string> zones;
  };

  // One loop's view of a group.
  struct GroupView
  {
    std::vector<cluster::NodeIndex> ready;     // ready, not being deleted
    std::vector<cluster::NodeIndex> launching; // launched, not ready yet
    std::int32_t instances = 0;                // ready + launching
  };

  void run_loop(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);
  // The loop's snapshot of the cluster's nodes: the last loop's, brought up to date when that is
  // sound (see reuse_base), else built anew.
  void snapshot_nodes(const cluster::Cluster& cluster, bool any_anti_affinity);
  bool reuse_base(const cluster::Cluster& cluster, bool any_anti_affinity);
  SnapNode snap_node(const cluster::Cluster& cluster, cluster::NodeIndex i);
  [[nodiscard]] static bool listed(const cluster::NodeState& n);
  // Fills `views` (one per group; their buffers are reused from loop to loop) from m_observed.
  void observe(const cluster::Cluster& cluster, std::vector<GroupView>& views);
  // Where node `n` goes in the groups' views: k_unobserved, or its group's index times two, plus
  // one when it is launching.
  [[nodiscard]] std::uint32_t observed_slot(const cluster::NodeState& n) const;
  // The ASG launches instances up to the group's desired capacity.
  void fulfil(std::size_t g, SimTime now, const cluster::Cluster& cluster, GroupView& view, sim::Actuator& actuator);
  void handle_failures(SimTime now, const cluster::Cluster& cluster, std::vector<GroupView>& views,
                       sim::Actuator& actuator);
  void register_failed_scale_up(std::size_t g, SimTime now);
  const NodeTemplate* group_template(std::size_t g, SimTime now, const cluster::Cluster& cluster);
  // One scale-up; returns the groups whose desired capacity grew.
  std::vector<std::size_t> scale_up(SimTime now, sim::Actuator& actuator, Snapshot& snapshot,
                                    const std::vector<const model::Pod*>& pods,
                                    const std::vector<const NodeTemplate*>& templates);
  // Records a "nothing to do" decision once, not every loop.
  void note(SimTime now, sim::Actuator& actuator, const std::string& action, const std::string& detail);
  std::vector<std::size_t> similar_groups(std::size_t g, const std::vector<std::size_t>& valid,
                                          const std::vector<std::vector<PodGroup>>& schedulable,
                                          const std::vector<const NodeTemplate*>& templates, SimTime now) const;
  bool scale_down(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator, Snapshot& snapshot,
                  bool cooldown);
  void update_soft_taints(const cluster::Cluster& cluster, sim::Actuator& actuator);

  const model::Scenario& m_scenario;
  const catalog::Catalog& m_catalog;
  model::ClusterAutoscalerSettings m_settings;
  ExpanderChain m_expander;
  std::vector<Group> m_groups;
  std::vector<GroupView> m_views; // observe()'s, kept for its buffers
  // The groups' nodes as observe() last saw them, brought up to date from the cluster's node log
  // (a node's group and state change only with a stamp): every loop read every alive node
  // before, thousands in the 1M week. `slot` by node index (observed_slot).
  struct Observed
  {
    std::uint64_t cluster = 0; // Cluster::instance_id; 0: not built
    std::size_t node_log = 0;
    std::vector<GroupView> views;
    std::vector<std::uint32_t> slot;
  };
  Observed m_observed;
  static constexpr std::uint32_t k_unobserved = UINT32_MAX;
  HintingSimulator m_filter_sim;  // filter-out-schedulable
  HintingSimulator m_removal_sim; // scale-down removal simulation
  ControllerIds m_controllers;     // scale-up's pod groups
  NodeOrdering m_ordering;
  Snapshot m_snapshot; // run_loop's (its buffers are kept)
  // The snapshot's cluster nodes as the last loop took them, before anything the loop did (all of
  // it logged after `mark`). The next loop reverts to the mark and refreshes the nodes changed
  // since, while the same nodes are listed and the cluster's node and pod tables did not move
  // (the snapshot points into them): most loops see a few bindings among ~1,500 nodes, and
  // reading every node's record each loop was a fifth of a 1M-pod week.
  struct SnapshotBase
  {
    bool valid = false;
    std::size_t mark = 0;
    std::uint64_t cluster = 0;
    const void* nodes = nullptr; // Cluster::nodes().data() then
    const void* pods = nullptr;  // Cluster::pods().data() then
    std::size_t node_log = 0;
    std::size_t bindings = 0;
    bool any_anti_affinity = false;
    std::vector<cluster::NodeIndex> listed; // in snapshot order (ascending)
    std::vector<cluster::NodeIndex> changed; // reuse_base's scratch
  };
  SnapshotBase m_base;

  SimTime m_next_loop = 0;
  SimTime m_last_loop = -1;
  bool m_run_now = true;
  std::size_t m_loops = 0;
  SimTime m_last_scale_up = -1;
  SimTime m_last_delete = -1;
  SimTime m_last_refresh = -1;
  std::map<cluster::NodeIndex, SimTime> m_unneeded_since;
  std::vector<cluster::NodeIndex> m_still_unneeded; // scale_down's scratch: this loop's unneeded nodes
  std::map<cluster::NodeIndex, SimTime> m_unremovable_until;
  std::map<cluster::NodeIndex, bool> m_deleting; // CA deletions in flight -> needed a drain
  std::vector<cluster::NodeIndex> m_soft_tainted; // nodes with the DeletionCandidate soft taint, ascending
  bool m_soft_taints_seen = false;                // the nodes' own soft taints were read
  std::vector<std::string> m_warnings;
  std::string m_last_note;
};

// Builds the Cluster Autoscaler controller for a scenario (what `capsim run -e
// cluster-autoscaler` simulates). Throws InputError for a bad expander list or node groups
// whose instance types are not in the catalog. `seed` feeds the random expander.
[[nodiscard]] std::unique_ptr<sim::Controller> make_cluster_autoscaler(const model::Scenario& scenario,
                                                                       const catalog::Catalog& catalog,
                                                                       std::uint64_t seed);

} // namespace capsim::cas
