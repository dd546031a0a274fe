#pragma once

#include "core/base/units.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/pod.hpp"
#include "core/scheduling/kube_scheduler.hpp"

#include <functional>
#include <vector>

namespace capsim::sim {

// The kube-scheduler model the engine binds pods with, kept between binding passes (its
// incremental indexes follow the cluster's change log).
struct PlacerState
{
  scheduling::KubeScheduler scheduler;
};

// The kube-scheduler's binding pass over `pods` (pending pods to try): each feasible pod is
// handed to `bind` with its chosen node, one at a time, so later pods see earlier bindings.
void place_pods(const cluster::Cluster& cluster, const std::vector<cluster::PodIndex>& pods, SimTime now,
                PlacerState& state, const std::function<void(cluster::PodIndex, cluster::NodeIndex)>& bind);

// Whether a DaemonSet's pod runs on `node`: it tolerates the node's taints and its node
// selector / required node affinity match the node's labels.
[[nodiscard]] bool daemon_runs_on(const model::PodSpec& daemon, const cluster::NodeState& node);

} // namespace capsim::sim
