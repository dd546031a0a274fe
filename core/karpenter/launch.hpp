#pragma once

#include "core/catalog/instance_type.hpp"
#include "core/karpenter/solve.hpp"
#include "core/model/requirements.hpp"
#include "core/model/resources.hpp"
#include "core/sim/controller.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace capsim::karpenter {

// The AWS provider's launch decision for one NodeClaim (aws:pkg/providers/instance/instance.go
// Create -> filterInstanceTypes -> getCapacityType -> CreateFleet), as a pure function.

class LaunchMemo;

struct LaunchOptions
{
  int max_instance_types = 60; // settings.max_instance_types (maxInstanceTypes upstream)
  bool min_values_best_effort = false;
  OfferingAvailable offering_available; // ICE cache; nullptr = catalog flags only
  // Version of offering_available's answers (sim::Actuator::availability_version); 0 = unknown,
  // and then decisions that ask it are not remembered.
  std::uint64_t availability_version = 0;
  LaunchMemo* memo = nullptr; // optional: decisions remembered across calls (same results)
  // Instances in use per capacity reservation (with the memo unset): among reservations of one
  // type and zone the fleet goes to the one with the most instances left (ReservedOfferingFilter).
  std::function<std::int32_t(std::string_view reservation_id)> reservation_used;
};

struct LaunchDecision
{
  bool ok = false;
  const catalog::InstanceType* instance_type = nullptr;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
  std::string reservation_id; // reserved: the capacity reservation
  std::string tenancy;        // default or dedicated: the instance's, labelled on its node
  // The instance types sent to CreateFleet (after filters and truncation), cheapest first.
  std::vector<const catalog::InstanceType*> candidates;
  std::string error; // InsufficientCapacityError text when !ok
  // CreateFleet's other overrides of the chosen capacity type, in the order EC2 tries them after
  // the chosen one (for spot: interruption band, then price; for on-demand: price).
  std::vector<sim::FleetOverride> fallbacks;
};

// Launch decisions of one simulation, by requirements, instance types, options and availability
// version. A decision reads the claim's requests only to drop types without room for them, so
// a remembered one answers any claim whose requests every type has room for. A simulation
// launches tens of thousands of claims from a few hundred distinct option lists, and each
// decision walks every offering of every type.
class LaunchMemo
{
public:
  LaunchMemo();
  ~LaunchMemo();
  LaunchMemo(const LaunchMemo&) = delete;
  LaunchMemo& operator=(const LaunchMemo&) = delete;

  [[nodiscard]] std::int64_t hits() const { return m_hits; }

private:
  friend LaunchDecision choose_launch(const model::Requirements&, const model::Resources&,
                                      const std::vector<const catalog::InstanceType*>&, const LaunchOptions&, bool);
  struct Entry;
  // Bounded: each entry holds a claim's requirements (a provisioned claim's without the
  // instance-type list, SolveOptions::omit_instance_type_requirement).
  static constexpr std::size_t k_max_entries = 256;
  std::unordered_map<std::uint64_t, std::unique_ptr<Entry>> m_entries;
  std::int64_t m_hits = 0;
};

// Filters, in upstream order: compatible + available + fits the requests; exotic types
// (metal, GPUs) dropped unless only exotic ones remain (skipped with minValues); spot
// offerings pricier than the cheapest on-demand one dropped when both are allowed (skipped with
// minValues); the max_instance_types cheapest kept (minValues re-checked). Capacity type:
// reserved, then spot, then on-demand, the first allowed with an available offering. The
// offering: on-demand and reserved the cheapest (type, zone), ties to the first in list
// order; spot price-capacity-optimized (SPEC §5.3): among the allowed pools the lowest
// interruption band, then the lowest price, ties to the first in list order (pools without a
// known band rank after banded ones; with no band known anywhere this is lowest price).
// `known_compatible`: every instance type is known to intersect the requirements (Solve's
// options), so that check is skipped.
[[nodiscard]] LaunchDecision choose_launch(const model::Requirements& requirements, const model::Resources& requests,
                                           const std::vector<const catalog::InstanceType*>& instance_types,
                                           const LaunchOptions& options, bool known_compatible = false);

[[nodiscard]] inline LaunchDecision choose_launch(const NewNodeClaim& claim, const LaunchOptions& options)
{
  return choose_launch(claim.requirements, claim.requests, claim.instance_types, options, claim.options_compatible);
}

// Offering helpers shared with consolidation (core:pkg/cloudprovider/types.go).

// The offering is available now and compatible with the requirements' zone and capacity type.
[[nodiscard]] bool offering_usable(const catalog::InstanceType& it, const catalog::Offering& o,
                                   const model::Requirements& requirements, const OfferingAvailable& available);

// Cheapest usable offering price (OrderByPrice key); +infinity when none.
[[nodiscard]] double cheapest_price(const catalog::InstanceType& it, const model::Requirements& requirements,
                                    const OfferingAvailable& available);

// WorstLaunchPrice: the most expensive usable offering of the capacity type that would be
// launched (reserved, then spot, then on-demand); +infinity when none.
[[nodiscard]] double worst_launch_price(const catalog::InstanceType& it, const model::Requirements& requirements,
                                        const OfferingAvailable& available);

// InstanceTypes.SatisfiesMinValues over `types` in order: "" when every minValues requirement
// has enough distinct values, else the error.
[[nodiscard]] std::string min_values_error(const std::vector<const catalog::InstanceType*>& types,
                                           const model::Requirements& requirements);

} // namespace capsim::karpenter
