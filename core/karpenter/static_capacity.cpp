#include "core/karpenter/static_capacity.hpp"

#include "core/karpenter/disruption_candidates.hpp"
#include "core/model/requirements.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace capsim::karpenter {

using cluster::NodeIndex;
using cluster::NodeLifecycle;

StaticNodeCounts static_node_counts(const cluster::Cluster& cluster, std::uint32_t pool)
{
  StaticNodeCounts c;
  for (const NodeIndex n : cluster.alive_node_indices()) {
    const auto& node = cluster.node(n);
    if (node.owner != cluster::NodeOwner::node_pool || node.pool != pool) {
      continue;
    }
    if (node.lifecycle == NodeLifecycle::deleting) {
      ++c.deleting;
    } else if (node.disrupted_taint) {
      ++c.pending_disruption;
    } else {
      ++c.active;
    }
  }
  return c;
}

std::int64_t static_room(const StaticNodeCounts& counts, const model::NodePool& pool, std::int64_t wanted)
{
  const std::int64_t limit = pool.limit_nodes.value_or(std::numeric_limits<std::int64_t>::max());
  const std::int64_t left = limit - (counts.active + counts.deleting + counts.pending_disruption);
  return std::clamp<std::int64_t>(std::min(wanted, left), 0, std::max<std::int64_t>(wanted, 0));
}

namespace {

// Requirement.Any for a custom label: an In requirement's smallest value (upstream: a random
// one); otherwise the smallest integer within the bounds that is not excluded (upstream: a
// random one). "" when the requirement admits no value.
std::string any_value(const model::Requirement& r)
{
  if (!r.complement) {
    return r.values.empty() ? std::string() : *std::min_element(r.values.begin(), r.values.end());
  }
  std::int64_t x = r.greater_than ? *r.greater_than + 1 : 0;
  const std::int64_t below = r.less_than.value_or(std::numeric_limits<std::int64_t>::max());
  for (; x < below; ++x) {
    if (!std::binary_search(r.values.begin(), r.values.end(), std::to_string(x))) {
      return std::to_string(x);
    }
  }
  return {};
}

} // namespace

NewNodeClaim static_node_claim(const NodePoolInput& in)
{
  const model::NodePool& pool = *in.pool;
  NewNodeClaim c;
  c.pool_input = in.index;
  c.pool = in.index;
  c.labels = pool.template_labels;
  c.labels[std::string(model::labels::k_nodepool)] = pool.name;
  if (!pool.node_class_ref.empty()) {
    c.labels["karpenter.k8s.aws/ec2nodeclass"] = pool.node_class_ref;
  }
  c.requirements = pool.requirements;
  for (const auto& [key, value] : c.labels) {
    c.requirements.add(model::Requirement::make(key, model::Operator::in, {value}));
  }
  for (const auto& r : c.requirements.items()) {
    if (model::is_well_known_label(r.key) || c.labels.contains(r.key)) {
      continue;
    }
    if (std::string v = any_value(r); !v.empty()) {
      c.labels[r.key] = std::move(v);
    }
  }
  // resolveInstanceTypes: the types whose requirements intersect the NodeClaim's (the launch
  // then drops those without an available offering).
  for (const auto* t : in.types()) {
    if (c.requirements.intersects_ok(t->requirements)) {
      c.instance_types.push_back(t);
    }
  }
  c.taints = pool.taints;
  c.startup_taints = pool.startup_taints;
  return c;
}

std::vector<NodeIndex> static_deprovisioning_candidates(const cluster::Cluster& cluster, std::uint32_t pool,
                                                        std::int64_t count, SimTime now)
{
  struct Entry
  {
    NodeIndex node = cluster::k_none;
    bool empty = false;
    bool do_not_disrupt = false;
    double cost = 0;
  };
  std::vector<Entry> nodes;
  for (const NodeIndex n : cluster.alive_node_indices()) {
    const auto& node = cluster.node(n);
    if (node.owner != cluster::NodeOwner::node_pool || node.pool != pool
        || node.lifecycle == NodeLifecycle::deleting || node.disrupted_taint) {
      continue;
    }
    Entry e;
    e.node = n;
    bool daemons_only = true;
    double rescheduling = 0;
    for (const cluster::PodIndex p : node.pods) {
      const auto& ps = cluster.pod(p);
      daemons_only = daemons_only && ps.pod().is_daemon;
      e.do_not_disrupt = e.do_not_disrupt || cluster::do_not_disrupt_active(ps, now);
      rescheduling += eviction_cost(*ps.pod().spec);
    }
    e.empty = daemons_only && !e.do_not_disrupt;
    e.cost = rescheduling * lifetime_left(node, now);
    nodes.push_back(e);
  }
  std::sort(nodes.begin(), nodes.end(),
            [&](const Entry& a, const Entry& b) { return cluster.node(a.node).name < cluster.node(b.node).name; });
  // Empty nodes first, in list order; then the others by (do-not-disrupt, cost).
  std::stable_sort(nodes.begin(), nodes.end(), [](const Entry& a, const Entry& b) {
    if (a.empty != b.empty) {
      return a.empty;
    }
    if (a.empty) {
      return false;
    }
    if (a.do_not_disrupt != b.do_not_disrupt) {
      return !a.do_not_disrupt;
    }
    return a.cost < b.cost;
  });
  std::vector<NodeIndex> out;
  for (const auto& e : nodes) {
    if (static_cast<std::int64_t>(out.size()) >= count) {
      break;
    }
    out.push_back(e.node);
  }
  return out;
}

} // namespace capsim::karpenter
