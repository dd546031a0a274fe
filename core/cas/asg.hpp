#pragma once

#include "core/catalog/catalog.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/node_group.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capsim::cas {

// The running instances of one Auto Scaling group, as the ASG sees them when it launches.
struct GroupInstances
{
  std::int32_t on_demand = 0;
  std::int32_t spot = 0;
  std::map<std::string, std::int32_t, std::less<>> per_zone;
  std::map<std::pair<std::string, std::string>, std::int32_t> per_pool; // (instance type, zone)

  // `count` instances of one pool.
  void add(const std::string& type, const std::string& zone, std::string_view capacity_type, std::int32_t count = 1);
};

// A (type, zone, capacity type) the ASG may launch, with its offering's price.
struct PoolChoice
{
  const catalog::InstanceType* type = nullptr;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
};

// Spot pools the lowest-price strategy spreads over (SpotInstancePools, default 2).
inline constexpr std::size_t k_spot_instance_pools = 2;

// Whether the group has a mixed instances policy distribution (spot and on-demand mix).
[[nodiscard]] bool uses_distribution(const model::NodeGroup& group);

// On-demand instances a group of `total` instances keeps: OnDemandBaseCapacity first, then
// OnDemandPercentageAboveBaseCapacity of the rest, rounded up (in favour of On-Demand).
[[nodiscard]] std::int32_t on_demand_target(const model::NodeGroup& group, std::int32_t total);

// The capacity type of the group's next instance: the group's own type, or for a mixed
// instances distribution on-demand while the on-demand count is below on_demand_target().
[[nodiscard]] std::string next_capacity_type(const model::NodeGroup& group, const GroupInstances& now);

// The pools the ASG tries for one instance of `capacity_type`, in order. Zones come first
// and are balanced (fewest instances of the group first, then the group's zone order);
// within a zone, on-demand follows the override order (the "prioritized" strategy, AWS's
// default for override lists) and spot follows the spot allocation strategy:
// lowest-price (the k_spot_instance_pools cheapest pools, the one with fewest instances of the
// group first, then the rest by price), capacity-optimized (lowest interruption band, then
// override order) or price-capacity-optimized (lowest band, then lowest price).
[[nodiscard]] std::vector<PoolChoice> launch_preferences(const model::NodeGroup& group, const catalog::Catalog& catalog,
                                                         const std::vector<std::string>& zones,
                                                         std::string_view capacity_type, const GroupInstances& now);

// One group's share of a balanced scale-up (nodegroupset.ScaleUpInfo).
struct ScaleUpInfo
{
  std::size_t group = 0;
  std::int32_t current_size = 0;
  std::int32_t new_size = 0;
  std::int32_t max_size = 0;
};

// BalanceScaleUpBetweenGroups: hands `new_nodes` out one at a time to the smallest group,
// skipping groups at their max size; the request is capped at the set's free capacity. Input
// order breaks size ties. Returns only the groups that grow.
[[nodiscard]] std::vector<ScaleUpInfo> balance_scale_up(std::vector<ScaleUpInfo> groups, std::int32_t new_nodes);

} // namespace capsim::cas
