#include "core/sim/effective_cost.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using sim::BilledInterval;

TEST_CASE("effective cost: no adjustments is the list cost", "[sim][pricing]")
{
  const std::vector<BilledInterval> billed{{0, 2 * k_hour, 0.192, false, 0}, {0, 30 * k_minute, 0.05, true, 0.1}};
  CHECK(sim::effective_cost(billed, {}, 2 * k_hour) == Approx(0.384 + 0.025));
}

TEST_CASE("effective cost: on-demand discount, node overhead and minimum spot discount", "[sim][pricing]")
{
  model::PricingSettings p;
  p.on_demand_discount = 0.25;
  p.node_overhead_usd_per_hour = 0.01;
  p.min_spot_discount = 0.6;
  // 2 h on-demand at $0.20: 0.40 x 0.75 = 0.30, + overhead 0.02.
  // 1 h spot listed at $0.05, on-demand $0.20: capped at 0.20 x 0.4 = 0.08 -> 0.05 stays; + 0.01.
  // 1 h spot listed at $0.12, on-demand $0.20: capped at 0.08; + 0.01.
  const std::vector<BilledInterval> billed{
      {0, 2 * k_hour, 0.20, false, 0}, {0, k_hour, 0.05, true, 0.20}, {0, k_hour, 0.12, true, 0.20}};
  CHECK(sim::effective_cost(billed, p, 2 * k_hour) == Approx(0.30 + 0.02 + 0.05 + 0.01 + 0.08 + 0.01));
}

TEST_CASE("effective cost: a Savings Plan covers on-demand usage hour by hour up to the commitment", "[sim][pricing]")
{
  model::PricingSettings p;
  p.savings_plan_usd_per_hour = 0.10;
  p.savings_plan_discount = 0.5;
  p.on_demand_discount = 0.1;
  // List usage: hour 0 $0.30 + $0.05 = $0.35, hour 1 $0.05 + $0.05 = $0.10, hour 2 none.
  // Hour 0: $0.175 at the plan rate, $0.10 covered; the rest, $0.15 of list, at 0.9: 0.235.
  // Hour 1: $0.05 at the plan rate, all covered: the commitment, 0.10.
  // Hour 2 (the run ends at 2.5 h): half the commitment, 0.05.
  const std::vector<BilledInterval> billed{{0, k_hour, 0.30, false, 0},
                                           {30 * k_minute, 90 * k_minute, 0.10, false, 0},
                                           {90 * k_minute, 120 * k_minute, 0.10, false, 0}};
  CHECK(sim::effective_cost(billed, p, 150 * k_minute) == Approx(0.235 + 0.10 + 0.05));
  // Spot is outside the plan.
  const std::vector<BilledInterval> spot{{0, k_hour, 0.30, true, 0.6}};
  CHECK(sim::effective_cost(spot, p, k_hour) == Approx(0.30 + 0.10));
}
