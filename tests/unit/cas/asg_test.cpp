#include "core/cas/asg.hpp"

#include "tests/unit/cas/cas_fixtures.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace capsim;
using namespace capsim::cas;
using namespace capsim::cas::testing;

namespace {

model::NodeGroup mixed_group(std::int32_t base, std::int32_t pct, model::SpotAllocationStrategy strategy,
                             std::vector<std::string> types, std::vector<std::string> zones)
{
  auto g = make_group("mixed", std::move(types), 0, 100, std::move(zones));
  g.mixed = true;
  g.capacity_type = "mixed";
  g.on_demand_base_capacity = base;
  g.on_demand_percentage_above_base = pct;
  g.spot_allocation_strategy = strategy;
  return g;
}

std::vector<std::string> names(const std::vector<PoolChoice>& choices)
{
  std::vector<std::string> out;
  for (const auto& c : choices) {
    out.push_back(c.type->name + "@" + c.zone);
  }
  return out;
}

} // namespace

TEST_CASE("on-demand base capacity and percentage above base", "[cas][asg]")
{
  const auto g = mixed_group(2, 25, model::SpotAllocationStrategy::lowest_price, {"m5.large"}, {"us-east-1a"});
  CHECK(on_demand_target(g, 1) == 1);
  CHECK(on_demand_target(g, 2) == 2);
  CHECK(on_demand_target(g, 3) == 3); // 25% of 1, rounded up in favour of On-Demand
  CHECK(on_demand_target(g, 6) == 3);
  CHECK(on_demand_target(g, 7) == 4);
  CHECK(on_demand_target(g, 10) == 4);
  // Launch by launch: the capacity type follows the running mix.
  GroupInstances now;
  std::vector<std::string> sequence;
  for (int i = 0; i < 10; ++i) {
    const auto ct = next_capacity_type(g, now);
    sequence.push_back(ct);
    now.add("m5.large", "us-east-1a", ct);
  }
  CHECK(sequence
        == std::vector<std::string>{"on-demand", "on-demand", "on-demand", "spot", "spot", "spot", "on-demand", "spot",
                                    "spot", "spot"});
  CHECK(now.on_demand == 4);
  CHECK(now.spot == 6);
  // Plain groups launch their own capacity type.
  auto spot = make_group("s", {"m5.large"}, 0, 3);
  spot.capacity_type = "spot";
  CHECK(next_capacity_type(spot, now) == "spot");
  CHECK(next_capacity_type(make_group("o", {"m5.large"}, 0, 3), now) == "on-demand");
  // 0% above base of 0: all spot.
  const auto all_spot = mixed_group(0, 0, model::SpotAllocationStrategy::lowest_price, {"m5.large"}, {"us-east-1a"});
  CHECK(next_capacity_type(all_spot, GroupInstances{}) == "spot");
}

TEST_CASE("a group's instances counted by pool add up as one by one", "[cas][asg]")
{
  // fulfil() counts a group's nodes by pool before adding them.
  GroupInstances one_by_one;
  for (int i = 0; i < 3; ++i) {
    one_by_one.add("m5.large", "us-east-1a", "spot");
  }
  one_by_one.add("m5.large", "us-east-1b", "on-demand");
  one_by_one.add("m5a.large", "us-east-1a", "on-demand");
  one_by_one.add("m5a.large", "us-east-1a", "on-demand");
  GroupInstances by_pool;
  by_pool.add("m5.large", "us-east-1a", "spot", 3);
  by_pool.add("m5.large", "us-east-1b", "on-demand", 1);
  by_pool.add("m5a.large", "us-east-1a", "on-demand", 2);
  CHECK(by_pool.spot == 3);
  CHECK(by_pool.on_demand == 3);
  CHECK(by_pool.per_zone == one_by_one.per_zone);
  CHECK(by_pool.per_zone.at("us-east-1a") == 5);
  CHECK(by_pool.per_pool == one_by_one.per_pool);
  CHECK(by_pool.per_pool.at({"m5a.large", "us-east-1a"}) == 2);
  CHECK(one_by_one.spot == 3);
  CHECK(one_by_one.on_demand == 3);
}

TEST_CASE("ASG zones are balanced: fewest instances first, then zone order", "[cas][asg]")
{
  const auto cat = default_catalog();
  const auto g = make_group("od", {"m5.large", "m5a.large"}, 0, 10, {"us-east-1a", "us-east-1b", "us-east-1c"});
  GroupInstances now;
  std::vector<std::string> zones;
  for (int i = 0; i < 5; ++i) {
    const auto prefs = launch_preferences(g, cat, g.zones, "on-demand", now);
    REQUIRE_FALSE(prefs.empty());
    // On-demand is "prioritized": the first override first.
    CHECK(prefs.front().type->name == "m5.large");
    zones.push_back(prefs.front().zone);
    now.add(prefs.front().type->name, prefs.front().zone, "on-demand");
  }
  CHECK(zones == std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1a", "us-east-1b"});
  // All pools are listed, so a launch failure can fall through to the next one.
  const auto prefs = launch_preferences(g, cat, g.zones, "on-demand", now);
  CHECK(names(prefs)
        == std::vector<std::string>{"m5.large@us-east-1c", "m5a.large@us-east-1c", "m5.large@us-east-1a",
                                    "m5a.large@us-east-1a", "m5.large@us-east-1b", "m5a.large@us-east-1b"});
}

TEST_CASE("spot allocation strategies order the pools of a zone", "[cas][asg]")
{
  // In us-east-1a: a is cheapest but most interrupted, b mid-price with the best band, c dearest.
  const auto cat = make_catalog({make_type("a.large", 2, 8, 0.1, {{"us-east-1a", 0.020, 4}}),
                                 make_type("b.large", 2, 8, 0.1, {{"us-east-1a", 0.030, 0}}),
                                 make_type("c.large", 2, 8, 0.1, {{"us-east-1a", 0.040, 0}}),
                                 make_type("d.large", 2, 8, 0.1, {{"us-east-1a", 0.025, 2}})});
  const std::vector<std::string> types = {"c.large", "b.large", "a.large", "d.large"};
  const std::vector<std::string> zones = {"us-east-1a"};
  SECTION("lowest-price")
  {
    const auto g = mixed_group(0, 0, model::SpotAllocationStrategy::lowest_price, types, zones);
    GroupInstances now;
    CHECK(names(launch_preferences(g, cat, zones, "spot", now))
          == std::vector<std::string>{"a.large@us-east-1a", "d.large@us-east-1a", "b.large@us-east-1a",
                                      "c.large@us-east-1a"});
    // Spread over the two cheapest pools (SpotInstancePools = 2).
    now.add("a.large", "us-east-1a", "spot");
    CHECK(launch_preferences(g, cat, zones, "spot", now).front().type->name == "d.large");
    now.add("d.large", "us-east-1a", "spot");
    CHECK(launch_preferences(g, cat, zones, "spot", now).front().type->name == "a.large");
  }
  SECTION("capacity-optimized ignores price")
  {
    const auto g = mixed_group(0, 0, model::SpotAllocationStrategy::capacity_optimized, types, zones);
    CHECK(names(launch_preferences(g, cat, zones, "spot", GroupInstances{}))
          == std::vector<std::string>{"c.large@us-east-1a", "b.large@us-east-1a", "d.large@us-east-1a",
                                      "a.large@us-east-1a"});
  }
  SECTION("price-capacity-optimized: best band, then lowest price")
  {
    const auto g = mixed_group(0, 0, model::SpotAllocationStrategy::price_capacity_optimized, types, zones);
    CHECK(names(launch_preferences(g, cat, zones, "spot", GroupInstances{}))
          == std::vector<std::string>{"b.large@us-east-1a", "c.large@us-east-1a", "d.large@us-east-1a",
                                      "a.large@us-east-1a"});
  }
  SECTION("pools without the capacity type are skipped")
  {
    const auto g = mixed_group(0, 0, model::SpotAllocationStrategy::lowest_price, types, {"us-east-1b"});
    CHECK(launch_preferences(g, cat, {"us-east-1b"}, "spot", GroupInstances{}).empty());
    CHECK(launch_preferences(g, cat, {"us-east-1b"}, "on-demand", GroupInstances{}).size() == 4);
  }
}

namespace {

std::map<std::size_t, std::int32_t> to_map(const std::vector<ScaleUpInfo>& infos)
{
  std::map<std::size_t, std::int32_t> out;
  for (const auto& i : infos) {
    out[i.group] = i.new_size;
  }
  return out;
}

} // namespace

// balancing_processor_test.go
TEST_CASE("balance-similar-node-groups splits a scale-up smallest group first", "[cas][balance]")
{
  // TestBalanceSingleGroup: ng1 min 1 max 10 size 1.
  CHECK(to_map(balance_scale_up({{1, 1, 1, 10}}, 1)) == std::map<std::size_t, std::int32_t>{{1, 2}});
  CHECK(to_map(balance_scale_up({{1, 1, 1, 10}}, 4)) == std::map<std::size_t, std::int32_t>{{1, 5}});

  // TestBalanceUnderMaxSize: sizes 1, 3, 5, 5 (max 10).
  const std::vector<ScaleUpInfo> four = {{1, 1, 1, 10}, {2, 3, 3, 10}, {3, 5, 5, 10}, {4, 5, 5, 10}};
  CHECK(to_map(balance_scale_up(four, 1)) == std::map<std::size_t, std::int32_t>{{1, 2}});
  CHECK(to_map(balance_scale_up(four, 2)) == std::map<std::size_t, std::int32_t>{{1, 3}});
  CHECK(to_map(balance_scale_up(four, 4)) == std::map<std::size_t, std::int32_t>{{1, 4}, {2, 4}});
  const auto five = to_map(balance_scale_up(four, 5));
  REQUIRE(five.size() == 2);
  CHECK(five.at(1) + five.at(2) == 9);
  CHECK((five.at(1) == 4 || five.at(1) == 5));
  CHECK(to_map(balance_scale_up(four, 10))
        == std::map<std::size_t, std::int32_t>{{1, 6}, {2, 6}, {3, 6}, {4, 6}});

  // TestBalanceHittingMaxSize: ng1 (1/1), ng2 (1/3), ng3 (3/10), ng4 (5/7), ng5 (6/3).
  const ScaleUpInfo ng1{1, 1, 1, 1};
  const ScaleUpInfo ng2{2, 1, 1, 3};
  const ScaleUpInfo ng3{3, 3, 3, 10};
  const ScaleUpInfo ng4{4, 5, 5, 7};
  const ScaleUpInfo ng5{5, 6, 6, 3};
  CHECK(balance_scale_up({ng1}, 1).empty());
  CHECK(to_map(balance_scale_up({ng1, ng2}, 1)) == std::map<std::size_t, std::int32_t>{{2, 2}});
  CHECK(to_map(balance_scale_up({ng1, ng2}, 5)) == std::map<std::size_t, std::int32_t>{{2, 3}});
  CHECK(to_map(balance_scale_up({ng2, ng3}, 4)) == std::map<std::size_t, std::int32_t>{{2, 3}, {3, 5}});
  CHECK(to_map(balance_scale_up({ng2, ng3, ng4}, 9)) == std::map<std::size_t, std::int32_t>{{2, 3}, {3, 8}, {4, 7}});
  CHECK(to_map(balance_scale_up({ng2, ng3, ng4}, 900)) == std::map<std::size_t, std::int32_t>{{2, 3}, {3, 10}, {4, 7}});
  CHECK(to_map(balance_scale_up({ng2, ng5}, 1)) == std::map<std::size_t, std::int32_t>{{2, 2}});
}
