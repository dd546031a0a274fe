#pragma once

#include "core/base/diagnostics.hpp"
#include "core/model/kube.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capsim::model {

enum class SpotAllocationStrategy : std::uint8_t { lowest_price, price_capacity_optimized, capacity_optimized };

// A capsim/v1 NodeGroup: one EC2 Auto Scaling group managed by Cluster Autoscaler.
struct NodeGroup
{
  std::string name;
  std::vector<std::string> instance_types; // first = the type CA plans with
  std::vector<SourceLocation> instance_type_locations; // each entry's, for the catalog check
  std::string capacity_type = "on-demand"; // on-demand | spot | mixed
  std::int32_t on_demand_base_capacity = 0;
  std::int32_t on_demand_percentage_above_base = 100;
  SpotAllocationStrategy spot_allocation_strategy = SpotAllocationStrategy::price_capacity_optimized;
  bool mixed = false; // mixedInstancesPolicy given
  std::vector<std::string> zones;
  std::int32_t min_size = 0;
  std::int32_t max_size = 0;
  std::optional<std::int32_t> desired_capacity;
  Labels labels;
  std::vector<Taint> taints;
  std::int32_t priority = 0; // for the priority expander
  SourceLocation location;    // the document
};

} // namespace capsim::model
