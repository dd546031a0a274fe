#include "core/cas/estimator.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>

namespace capsim::cas {

namespace {

bool uses_hostname_spread(const model::Pod& pod)
{
  if (!pod.spec) {
    return false;
  }
  return std::any_of(pod.spec->topology_spread.begin(), pod.spec->topology_spread.end(),
                     [](const model::TopologySpreadConstraint& c) { return c.topology_key == model::labels::k_hostname; });
}

// The estimation's bookkeeping (estimationState).
struct State
{
  std::vector<const model::Pod*> scheduled;
  std::size_t next_name = 0;
  std::size_t last_node = SIZE_MAX;
  std::set<std::size_t> new_nodes;
  std::set<std::size_t> with_pods; // nodes (new or not) that got a pod
};

// Limiter: PermissionToAddNode; counts the nodes it allowed.
struct Limiter
{
  std::int32_t max_nodes = 0;
  std::int32_t nodes = 0;

  bool permission()
  {
    if (max_nodes < 0 || (max_nodes > 0 && nodes >= max_nodes)) {
      return false;
    }
    ++nodes;
    return true;
  }
};

} // namespace

std::int32_t min_node_limit(std::int32_t a, std::int32_t b)
{
  if (a < 0 || b < 0) {
    return -1;
  }
  if ((a == 0 || a > b) && b > 0) {
    return b;
  }
  return a;
}

std::vector<PodGroup> order_pod_groups(std::vector<PodGroup> groups, const NodeTemplate& tmpl)
{
  const auto& alloc = tmpl.node.allocatable;
  std::vector<double> score(groups.size(), 0.0);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].pods.empty()) {
      continue;
    }
    const auto& r = groups[i].pods.front()->requests;
    if (alloc.cpu() > 0) {
      score[i] += static_cast<double>(r.cpu()) / static_cast<double>(alloc.cpu());
    }
    if (alloc.memory() > 0) {
      score[i] += static_cast<double>(r.memory()) / static_cast<double>(alloc.memory());
    }
  }
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  std::vector<PodGroup> sorted;
  sorted.reserve(groups.size());
  for (const auto i : order) {
    sorted.push_back(std::move(groups[i]));
  }
  return sorted;
}

Estimate estimate(Snapshot& snapshot, const std::vector<PodGroup>& groups, const NodeTemplate& tmpl,
                  std::int32_t group_index, std::int32_t max_nodes, NodeOrdering& ordering)
{
  const auto ordered = order_pod_groups(groups, tmpl);
  const std::size_t mark = snapshot.mark();
  State st;
  Limiter limiter{max_nodes, 0};
  const auto add_node = [&]() {
    const std::string name = tmpl.node.name + "-e-" + std::to_string(st.next_name++);
    st.last_node = snapshot.add_copy(tmpl.node, name, tmpl.daemon_requested, group_index, tmpl.id);
    st.new_nodes.insert(st.last_node);
  };
  const auto track = [&](const model::Pod* pod, std::size_t node) {
    st.with_pods.insert(node);
    st.scheduled.push_back(pod);
  };
  bool new_nodes_available = true;
  for (const auto& group : ordered) {
    // tryToScheduleOnExistingNodes: any node added in this estimation; stop at the first failure.
    std::size_t k = 0;
    for (; k < group.pods.size(); ++k) {
      const auto node = schedule_on_any(
          snapshot, *group.pods[k], [&](std::size_t i) { return st.new_nodes.count(i) != 0; }, ordering);
      if (!node) {
        break;
      }
      track(group.pods[k], *node);
    }
    if (!new_nodes_available) {
      continue;
    }
    // tryToScheduleOnNewNodes: next-fit on the last added node.
    for (; k < group.pods.size(); ++k) {
      const auto* pod = group.pods[k];
      bool found = false;
      if (st.last_node != SIZE_MAX) {
        const Filter f = check_predicates(snapshot, st.last_node, *pod);
        if (f == Filter::none) {
          snapshot.add_pod(st.last_node, *pod);
          track(pod, st.last_node);
          found = true;
        } else if (f == Filter::topology_spread && uses_hostname_spread(*pod)) {
          const std::size_t last = st.last_node;
          const auto other = schedule_on_any(
              snapshot, *pod, [&](std::size_t i) { return i != last; }, ordering);
          if (other) {
            track(pod, *other);
            found = true;
          }
        }
      }
      if (found) {
        continue;
      }
      if (st.last_node != SIZE_MAX && st.with_pods.count(st.last_node) == 0) {
        break; // the last added node stayed empty: the pod can never fit a new node
      }
      if (!limiter.permission()) {
        new_nodes_available = false;
        break;
      }
      add_node();
      if (check_predicates(snapshot, st.last_node, *pod) != Filter::none) {
        break;
      }
      snapshot.add_pod(st.last_node, *pod);
      track(pod, st.last_node);
    }
  }
  Estimate result;
  result.node_count = static_cast<std::int32_t>(st.with_pods.size());
  result.pods = std::move(st.scheduled);
  snapshot.revert(mark);
  return result;
}

} // namespace capsim::cas
