#include "core/sim/node_class_types.hpp"


namespace capsim::sim {

catalog::NodeClassSettings node_class_settings(const model::NodeClass& node_class)
{
  catalog::NodeClassSettings s;
  s.ami_family = node_class.ami_family;
  s.max_pods = node_class.max_pods;
  s.pods_per_core = node_class.pods_per_core;
  s.kube_reserved = node_class.kube_reserved;
  s.system_reserved = node_class.system_reserved;
  s.eviction_hard = node_class.eviction_hard;
  s.ephemeral_storage = node_class.root_volume_bytes;
  return s;
}

NodeClassTypes::NodeClassTypes(const model::Scenario& scenario, const catalog::Catalog& catalog) : m_source(catalog)
{
  m_catalog.reserve(catalog.instance_types().size());
  for (const auto& t : catalog.instance_types()) {
    m_catalog.push_back(&t);
  }
  for (const auto& nc : scenario.node_classes) {
    const auto settings = node_class_settings(nc);
    if (settings.is_default() || m_derived.contains(nc.name)) {
      continue;
    }
    auto& types = m_derived[nc.name];
    types.reserve(catalog.instance_types().size());
    for (const auto& t : catalog.instance_types()) {
      types.push_back(catalog::apply_node_class(t, settings));
    }
    auto& list = m_lists[nc.name];
    list.reserve(types.size());
    for (const auto& t : types) {
      list.push_back(&t);
    }
  }
}

const std::vector<const catalog::InstanceType*>& NodeClassTypes::types_for(std::string_view node_class) const
{
  const auto it = m_lists.find(node_class);
  return it == m_lists.end() ? m_catalog : it->second;
}

const catalog::InstanceType* NodeClassTypes::find(std::string_view node_class, std::string_view name) const
{
  const auto* base = m_source.find(name);
  if (base == nullptr) {
    return nullptr;
  }
  // Derived lists keep the catalog's order.
  return types_for(node_class)[static_cast<std::size_t>(base - m_source.instance_types().data())];
}

} // namespace capsim::sim
