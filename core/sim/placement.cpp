#include "core/sim/placement.hpp"

#include <algorithm>

namespace capsim::sim {

namespace {

bool labels_satisfy(const model::PodSpec& spec, const cluster::NodeState& node)
{
  for (const auto& [k, v] : spec.node_selector) {
    auto it = node.labels.find(k);
    if (it == node.labels.end() || it->second != v) {
      return false;
    }
  }
  if (spec.required_node_affinity.empty()) {
    return true;
  }
  return std::any_of(spec.required_node_affinity.begin(), spec.required_node_affinity.end(),
                     [&](const model::NodeSelectorTerm& term) {
                       return std::all_of(term.requirements.begin(), term.requirements.end(), [&](const auto& r) {
                         auto it = node.labels.find(r.key);
                         if (it == node.labels.end()) {
                           const auto op = r.op();
                           return op == model::Operator::not_in || op == model::Operator::does_not_exist;
                         }
                         return r.has(it->second);
                       });
                     });
}

} // namespace

bool daemon_runs_on(const model::PodSpec& daemon, const cluster::NodeState& node)
{
  return model::tolerates_all(daemon.tolerations, node.taints, true) && labels_satisfy(daemon, node);
}

void place_pods(const cluster::Cluster& cluster, const std::vector<cluster::PodIndex>& pods, SimTime /*now*/,
                PlacerState& /*state*/, const std::function<void(cluster::PodIndex, cluster::NodeIndex)>& bind)
{
  // Interim first-fit binder (resources, taints, node selector/affinity); replaced by the
  // kube-scheduler model in core/scheduling.
  for (const auto p : pods) {
    const auto& pod = cluster.pod(p);
    if (pod.phase != cluster::PodPhase::pending || !pod.pod.spec) {
      continue;
    }
    model::Resources need = pod.pod.requests;
    need[model::k_pods] += 1;
    for (cluster::NodeIndex n = 0; n < cluster.nodes().size(); ++n) {
      const auto& node = cluster.node(n);
      if (node.lifecycle != cluster::NodeLifecycle::ready || node.disrupted_taint) {
        continue;
      }
      if (!need.fits_in(node.available())) {
        continue;
      }
      if (!model::tolerates_all(pod.pod.spec->tolerations, node.taints, true) || !labels_satisfy(*pod.pod.spec, node)) {
        continue;
      }
      bind(p, n);
      break;
    }
  }
}

} // namespace capsim::sim
