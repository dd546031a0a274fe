#include "core/sim/node_class_types.hpp"

#include <algorithm>


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
  s.instance_store_raid0 = node_class.instance_store_raid0;
  return s;
}

bool selects(const std::vector<model::CapacityReservationTerm>& terms, const model::CapacityReservation& reservation)
{
  if (reservation.state != "active") {
    return false;
  }
  return std::any_of(terms.begin(), terms.end(), [&](const model::CapacityReservationTerm& t) {
    if (!t.id.empty()) {
      return t.id == reservation.id;
    }
    if (!t.owner_id.empty() && t.owner_id != reservation.owner_id) {
      return false;
    }
    if (!t.instance_match_criteria.empty() && t.instance_match_criteria != reservation.instance_match_criteria) {
      return false;
    }
    return std::all_of(t.tags.begin(), t.tags.end(), [&](const auto& tag) {
      const auto it = reservation.tags.find(tag.first);
      return it != reservation.tags.end() && (tag.second == "*" || tag.second == it->second);
    });
  });
}

std::optional<catalog::Offering> reserved_offering(const catalog::InstanceType& type,
                                                   const model::CapacityReservation& reservation, std::int32_t in_use)
{
  const catalog::Offering* in_zone = nullptr;
  double on_demand = 0;
  for (const auto& o : type.offerings) {
    in_zone = in_zone != nullptr || o.zone != reservation.zone ? in_zone : &o;
    if (o.capacity_type == model::k_capacity_on_demand && (on_demand == 0 || o.price_per_hour < on_demand)) {
      on_demand = o.price_per_hour;
    }
  }
  if (in_zone == nullptr) {
    return std::nullopt;
  }
  catalog::Offering r;
  r.zone = reservation.zone;
  r.capacity_type = std::string(model::k_capacity_reserved);
  r.price_per_hour = on_demand / 10'000'000.0;
  r.reservation_id = reservation.id;
  r.reservation_capacity = reservation.available + in_use;
  return r;
}

NodeClassTypes::NodeClassTypes(const model::Scenario& scenario, const catalog::Catalog& catalog) : m_source(catalog)
{
  m_catalog.reserve(catalog.instance_types().size());
  for (const auto& t : catalog.instance_types()) {
    m_catalog.push_back(&t);
  }
  // Instances of each reservation the scenario's nodes hold at t=0 (not in its available count).
  std::map<std::string, std::int32_t> in_use;
  for (const auto& n : scenario.nodes) {
    if (const auto it = n.labels.find(std::string(model::labels::k_capacity_reservation_id)); it != n.labels.end()) {
      ++in_use[it->second];
    }
  }
  for (const auto& nc : scenario.node_classes) {
    add(nc.name, nc, scenario, in_use);
  }
  for (std::size_t u = 0; u < scenario.node_class_updates.size(); ++u) {
    add(version_key(scenario, u), scenario.node_class_updates[u].node_class, scenario, in_use);
  }
}

std::string NodeClassTypes::version_key(const model::Scenario& scenario, std::size_t update)
{
  // ('@' is not allowed in a Kubernetes name: no class is named so.)
  return scenario.node_class_updates[update].node_class.name + "@" + std::to_string(update);
}

void NodeClassTypes::add(const std::string& key, const model::NodeClass& nc, const model::Scenario& scenario,
                         const std::map<std::string, std::int32_t>& in_use)
{
  const catalog::Catalog& catalog = m_source;
  const auto settings = node_class_settings(nc);
  std::vector<const model::CapacityReservation*> selected;
  for (const auto& r : scenario.capacity_reservations) {
    if (selects(nc.capacity_reservation_terms, r)) {
      selected.push_back(&r);
    }
  }
  if ((settings.is_default() && selected.empty()) || m_derived.contains(key)) {
    return;
  }
  auto& types = m_derived[key];
  types.reserve(catalog.instance_types().size());
  for (const auto& t : catalog.instance_types()) {
    auto& derived = types.emplace_back(catalog::apply_node_class(t, settings));
    bool reserved = false;
    std::vector<std::string> ids;
    std::vector<std::string> reservation_types;
    for (const auto* r : selected) {
      if (r->instance_type != t.name) {
        continue;
      }
      const auto it = in_use.find(r->id);
      if (auto o = reserved_offering(t, *r, it == in_use.end() ? 0 : it->second)) {
        derived.offerings.push_back(std::move(*o));
        reserved = true;
      }
      // computeRequirements: the type's reservations (DoesNotExist without any).
      ids.push_back(r->id);
      reservation_types.push_back(r->reservation_type);
    }
    if (!ids.empty()) {
      const auto set = [&](std::string_view label, std::vector<std::string> values) {
        derived.requirements.erase(label);
        derived.requirements.add(model::Requirement::make(std::string(label), model::Operator::in, std::move(values)));
      };
      set(model::labels::k_capacity_reservation_id, ids);
      set("karpenter.k8s.aws/capacity-reservation-type", reservation_types);
      set("karpenter.k8s.aws/capacity-reservation-interruptible", {"false"});
    }
    if (reserved) {
      auto ct = derived.requirements.get(model::labels::k_capacity_type);
      if (!ct.complement && !ct.has(model::k_capacity_reserved)) {
        ct.values.emplace_back(model::k_capacity_reserved);
        std::sort(ct.values.begin(), ct.values.end());
        derived.requirements.erase(model::labels::k_capacity_type);
        derived.requirements.add(ct);
      }
    }
  }
  auto& list = m_lists[key];
  list.reserve(types.size());
  for (const auto& t : types) {
    list.push_back(&t);
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
