#include "core/sim/initial_node.hpp"

namespace capsim::sim {

cluster::NodeState node_from_initial(const model::InitialNode& in, const catalog::Catalog& catalog)
{
  const auto label = [&](std::string_view key) {
    auto it = in.labels.find(std::string(key));
    return it == in.labels.end() ? std::string() : it->second;
  };
  cluster::NodeState n;
  n.name = in.name;
  n.labels = in.labels;
  n.taints = in.taints;
  if (const std::string type = label(model::labels::k_instance_type); !type.empty()) {
    n.instance_type = catalog.find(type);
  }
  n.zone = label(model::labels::k_zone);
  n.capacity_type = label(model::labels::k_capacity_type);
  if (n.capacity_type.empty()) {
    n.capacity_type = std::string(model::k_capacity_on_demand);
  }
  if (n.instance_type != nullptr) {
    n.allocatable = n.instance_type->allocatable();
    for (const auto& o : n.instance_type->offerings) {
      if (o.capacity_type == n.capacity_type && (n.zone.empty() || o.zone == n.zone)) {
        n.price_per_hour = o.price_per_hour;
        break;
      }
    }
    for (const auto& [k, v] : n.instance_type->labels) {
      n.labels.emplace(k, v);
    }
  }
  if (in.allocatable) {
    n.allocatable = *in.allocatable; // what the kubelet reports wins, as for the scheduler
  } else if (in.capacity && n.instance_type == nullptr) {
    n.allocatable = *in.capacity;
  }
  n.labels[std::string(model::labels::k_hostname)] = n.name;
  n.do_not_disrupt = in.do_not_disrupt;
  return n;
}

} // namespace capsim::sim
