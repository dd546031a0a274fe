#pragma once

#include "core/catalog/aws_allocatable.hpp"
#include "core/catalog/catalog.hpp"
#include "core/model/scenario.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::sim {

// Karpenter's instance types per EC2NodeClass: cloudProvider.GetInstanceTypes(nodePool) builds
// each type for the NodePool's EC2NodeClass, so its kubelet settings (maxPods, podsPerCore,
// kubeReserved, systemReserved, evictionHard), AMI family and root volume change the types'
// pods, ephemeral storage and overhead (catalog::apply_node_class), and the capacity
// reservations its capacityReservationSelectorTerms select become reserved offerings
// (ReservedCapacityResolver). A class that changes nothing, or a NodePool whose class is not in
// the stream, gets the catalog's own types.
class NodeClassTypes
{
public:
  NodeClassTypes(const model::Scenario& scenario, const catalog::Catalog& catalog);
  NodeClassTypes(const NodeClassTypes&) = delete;
  NodeClassTypes& operator=(const NodeClassTypes&) = delete;

  // The types offered to NodePools of `node_class` (catalog order); they live as long as this.
  // `node_class` is a name, or version_key() of a later version (model::NodeClassUpdate).
  [[nodiscard]] const std::vector<const catalog::InstanceType*>& types_for(std::string_view node_class) const;
  // The key of the scenario's node_class_updates[update].
  [[nodiscard]] static std::string version_key(const model::Scenario& scenario, std::size_t update);
  // The type named `name` as NodePools of `node_class` launch it; nullptr when unknown.
  [[nodiscard]] const catalog::InstanceType* find(std::string_view node_class, std::string_view name) const;

private:
  // Builds the types of `node_class` under `key` unless it changes nothing.
  void add(const std::string& key, const model::NodeClass& node_class, const model::Scenario& scenario,
           const std::map<std::string, std::int32_t>& in_use);

  const catalog::Catalog& m_source;
  std::vector<const catalog::InstanceType*> m_catalog;
  // Per class that changes something: its types (never resized after construction) and their list.
  std::map<std::string, std::vector<catalog::InstanceType>, std::less<>> m_derived;
  std::map<std::string, std::vector<const catalog::InstanceType*>, std::less<>> m_lists;
};

// The settings of an EC2NodeClass that change its instance types.
[[nodiscard]] catalog::NodeClassSettings node_class_settings(const model::NodeClass& node_class);

// Whether selector terms select the reservation: DescribeCapacityReservations with each term's
// filters (an id; or owner, tags and instance match criteria) and state=active; terms are ORed.
[[nodiscard]] bool selects(const std::vector<model::CapacityReservationTerm>& terms,
                           const model::CapacityReservation& reservation);

// The reserved offering of `reservation` for `type`: in its zone, priced at the type's on-demand
// price / 10,000,000 (Karpenter's "free but ordered" price), with `in_use` more instances than
// the reservation has available (the scenario's own nodes in it at t=0). nullopt when the type
// is not offered in that zone.
[[nodiscard]] std::optional<catalog::Offering> reserved_offering(const catalog::InstanceType& type,
                                                                 const model::CapacityReservation& reservation,
                                                                 std::int32_t in_use);

} // namespace capsim::sim
