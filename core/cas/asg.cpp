#include "core/cas/asg.hpp"

#include "core/model/requirements.hpp"

#include <algorithm>
#include <numeric>

namespace capsim::cas {

namespace {

constexpr int k_unknown_band = 5; // pools without a Spot Advisor band rank after band 4

const catalog::Offering* find_offering(const catalog::InstanceType& type, std::string_view zone,
                                       std::string_view capacity_type)
{
  for (const auto& o : type.offerings) {
    if (o.zone == zone && o.capacity_type == capacity_type) {
      return &o;
    }
  }
  return nullptr;
}

} // namespace

void GroupInstances::add(const std::string& type, const std::string& zone, std::string_view capacity_type,
                         std::int32_t count)
{
  if (capacity_type == model::k_capacity_spot) {
    spot += count;
  } else {
    on_demand += count;
  }
  per_zone[zone] += count;
  per_pool[{type, zone}] += count;
}

bool uses_distribution(const model::NodeGroup& group)
{
  return group.mixed || group.capacity_type == "mixed";
}

std::int32_t on_demand_target(const model::NodeGroup& group, std::int32_t total)
{
  const std::int32_t base = std::max<std::int32_t>(0, group.on_demand_base_capacity);
  const std::int32_t pct = std::clamp<std::int32_t>(group.on_demand_percentage_above_base, 0, 100);
  const std::int32_t in_base = std::min(total, base);
  const std::int32_t above = std::max(0, total - base);
  return in_base + (above * pct + 99) / 100;
}

std::string next_capacity_type(const model::NodeGroup& group, const GroupInstances& now)
{
  if (!uses_distribution(group)) {
    return group.capacity_type == model::k_capacity_spot ? std::string(model::k_capacity_spot)
                                                         : std::string(model::k_capacity_on_demand);
  }
  const std::int32_t total = now.on_demand + now.spot + 1;
  return now.on_demand < on_demand_target(group, total) ? std::string(model::k_capacity_on_demand)
                                                        : std::string(model::k_capacity_spot);
}

std::vector<PoolChoice> launch_preferences(const model::NodeGroup& group, const catalog::Catalog& catalog,
                                           const std::vector<std::string>& zones, std::string_view capacity_type,
                                           const GroupInstances& now)
{
  // Zones: fewest instances of the group first, then the group's zone order.
  std::vector<std::size_t> zone_order(zones.size());
  std::iota(zone_order.begin(), zone_order.end(), std::size_t{0});
  const auto zone_count = [&](std::size_t i) {
    auto it = now.per_zone.find(zones[i]);
    return it == now.per_zone.end() ? 0 : it->second;
  };
  std::stable_sort(zone_order.begin(), zone_order.end(),
                   [&](std::size_t a, std::size_t b) { return zone_count(a) < zone_count(b); });

  std::vector<PoolChoice> out;
  for (const std::size_t zi : zone_order) {
    const std::string& zone = zones[zi];
    struct Pool
    {
      PoolChoice choice;
      std::size_t rank = 0; // override order
      int band = k_unknown_band;
      std::int32_t instances = 0;
    };
    std::vector<Pool> pools;
    for (std::size_t ti = 0; ti < group.instance_types.size(); ++ti) {
      const auto* type = catalog.find(group.instance_types[ti]);
      if (type == nullptr) {
        continue;
      }
      const auto* o = find_offering(*type, zone, capacity_type);
      if (o == nullptr || !o->available) {
        continue;
      }
      Pool p;
      p.choice = PoolChoice{type, zone, std::string(capacity_type), o->price_per_hour};
      p.rank = ti;
      p.band = o->interruption_band.value_or(k_unknown_band);
      auto it = now.per_pool.find({type->name, zone});
      p.instances = it == now.per_pool.end() ? 0 : it->second;
      pools.push_back(std::move(p));
    }
    if (capacity_type == model::k_capacity_spot) {
      const auto by_price = [](const Pool& a, const Pool& b) {
        if (a.choice.price_per_hour != b.choice.price_per_hour) {
          return a.choice.price_per_hour < b.choice.price_per_hour;
        }
        return a.rank < b.rank;
      };
      switch (group.spot_allocation_strategy) {
      case model::SpotAllocationStrategy::lowest_price: {
        std::sort(pools.begin(), pools.end(), by_price);
        const auto n = static_cast<std::ptrdiff_t>(std::min(k_spot_instance_pools, pools.size()));
        std::stable_sort(pools.begin(), pools.begin() + n,
                         [](const Pool& a, const Pool& b) { return a.instances < b.instances; });
        break;
      }
      case model::SpotAllocationStrategy::capacity_optimized:
        std::sort(pools.begin(), pools.end(), [](const Pool& a, const Pool& b) {
          if (a.band != b.band) {
            return a.band < b.band;
          }
          return a.rank < b.rank;
        });
        break;
      case model::SpotAllocationStrategy::price_capacity_optimized:
        std::sort(pools.begin(), pools.end(), [&](const Pool& a, const Pool& b) {
          if (a.band != b.band) {
            return a.band < b.band;
          }
          return by_price(a, b);
        });
        break;
      }
    }
    // On-demand: "prioritized", the override order the pools were built in.
    for (auto& p : pools) {
      out.push_back(std::move(p.choice));
    }
  }
  return out;
}

std::vector<ScaleUpInfo> balance_scale_up(std::vector<ScaleUpInfo> groups, std::int32_t new_nodes)
{
  std::vector<ScaleUpInfo> infos;
  std::int32_t capacity = 0;
  for (auto& g : groups) {
    if (g.current_size >= g.max_size) {
      continue; // already maxed
    }
    capacity += g.max_size - g.current_size;
    g.new_size = g.current_size;
    infos.push_back(g);
  }
  new_nodes = std::min(new_nodes, capacity);
  std::stable_sort(infos.begin(), infos.end(),
                   [](const ScaleUpInfo& a, const ScaleUpInfo& b) { return a.current_size < b.current_size; });
  std::size_t start = 0;
  std::size_t current = 0;
  while (new_nodes > 0) {
    auto& info = infos[current];
    if (info.new_size < info.max_size) {
      ++info.new_size;
      --new_nodes;
    } else {
      std::swap(infos[start], infos[current]);
      ++start;
    }
    if (current + 1 < infos.size() && infos[current].new_size > infos[current + 1].new_size) {
      ++current;
    } else {
      current = start;
    }
  }
  std::vector<ScaleUpInfo> out;
  for (const auto& info : infos) {
    if (info.new_size != info.current_size) {
      out.push_back(info);
    }
  }
  return out;
}

} // namespace capsim::cas
