#include "core/cas/templates.hpp"

#include "core/cas/asg.hpp"
#include "core/sim/placement.hpp"

namespace capsim::cas {

std::vector<std::string> group_zones(const model::NodeGroup& group, const model::Scenario& scenario,
                                     const catalog::Catalog& catalog)
{
  if (!group.zones.empty()) {
    return group.zones;
  }
  if (!scenario.settings.zones.empty()) {
    return scenario.settings.zones;
  }
  return catalog.zones();
}

model::Resources daemon_overhead(const model::Scenario& scenario, const cluster::NodeState& node)
{
  model::Resources total;
  for (const auto& ds : scenario.daemon_sets) {
    if (!ds.spec || !sim::daemon_runs_on(*ds.spec, node)) {
      continue;
    }
    model::Resources r = ds.spec->requests;
    r[model::k_pods] += 1;
    total += r;
  }
  return total;
}

std::optional<NodeTemplate> template_from_catalog(const model::NodeGroup& group, std::size_t group_index,
                                                  const model::Scenario& scenario, const catalog::Catalog& catalog,
                                                  bool use_real_allocatable)
{
  if (group.instance_types.empty()) {
    return std::nullopt;
  }
  const auto* type = catalog.find(group.instance_types.front());
  if (type == nullptr) {
    return std::nullopt;
  }
  const auto zones = group_zones(group, scenario, catalog);
  NodeTemplate t;
  auto& n = t.node;
  n.name = "template-" + group.name;
  n.instance_type = type;
  n.zone = zones.empty() ? std::string() : zones.front();
  n.labels = type->labels;
  for (const auto& [k, v] : group.labels) {
    n.labels[k] = v;
  }
  if (!n.zone.empty()) {
    n.labels[std::string(model::labels::k_zone)] = n.zone;
  }
  if (!catalog.region().empty()) {
    n.labels[std::string(model::labels::k_region)] = catalog.region();
  }
  if (!uses_distribution(group)) {
    n.capacity_type = group.capacity_type == model::k_capacity_spot ? std::string(model::k_capacity_spot)
                                                                    : std::string(model::k_capacity_on_demand);
    n.labels[std::string(model::labels::k_capacity_type)] = n.capacity_type;
  }
  n.labels[std::string(model::labels::k_hostname)] = n.name;
  n.taints = group.taints;
  n.owner = cluster::NodeOwner::node_group;
  n.pool = static_cast<std::uint32_t>(group_index);
  n.lifecycle = cluster::NodeLifecycle::ready;

  model::Resources cap;
  cap[model::k_cpu] = type->vcpu > 0 ? static_cast<std::int64_t>(type->vcpu) * 1000 : type->capacity.cpu();
  cap[model::k_memory] = type->memory_mib > 0 ? type->memory_mib * k_mib : type->capacity.memory();
  cap[model::k_nvidia_gpu] = type->capacity[model::k_nvidia_gpu];
  cap[model::k_pods] = k_aws_template_pods;
  cap[model::k_ephemeral_storage] = type->capacity[model::k_ephemeral_storage];
  t.capacity = cap;
  n.allocatable = use_real_allocatable ? type->allocatable() : cap;
  t.daemon_requested = daemon_overhead(scenario, n);
  n.requested = t.daemon_requested;
  n.daemon_requested = t.daemon_requested;
  t.from_real_node = false;
  return t;
}

NodeTemplate template_from_node(const cluster::NodeState& node, std::size_t group_index, const std::string& group_name)
{
  NodeTemplate t;
  t.node = node;
  t.node.name = "template-" + group_name;
  t.node.labels[std::string(model::labels::k_hostname)] = t.node.name;
  t.node.pods.clear();
  // SanitizeTaints: the new nodes of the group will not carry scale-down's soft taint.
  std::erase_if(t.node.taints,
                [](const model::Taint& taint) { return taint.key == model::k_deletion_candidate_taint_key; });
  t.node.requested = node.daemon_requested;
  t.node.owner = cluster::NodeOwner::node_group;
  t.node.pool = static_cast<std::uint32_t>(group_index);
  t.node.lifecycle = cluster::NodeLifecycle::ready;
  t.capacity = node.instance_type != nullptr ? node.instance_type->capacity : node.allocatable;
  t.daemon_requested = node.daemon_requested;
  t.from_real_node = true;
  return t;
}

} // namespace capsim::cas
