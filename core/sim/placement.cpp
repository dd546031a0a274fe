#include "core/sim/placement.hpp"

#include "core/scheduling/filters.hpp"

namespace capsim::sim {

bool daemon_runs_on(const model::PodSpec& daemon, const cluster::NodeState& node)
{
  return scheduling::node_affinity_matches(daemon, node) && !scheduling::untolerated_taint(daemon.tolerations, node);
}

void place_pods(const cluster::Cluster& cluster, const std::vector<cluster::PodIndex>& pods, SimTime /*now*/,
                PlacerState& state, const std::function<void(cluster::PodIndex, cluster::NodeIndex)>& bind)
{
  state.scheduler.place(cluster, pods, bind);
}

} // namespace capsim::sim
