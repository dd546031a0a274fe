#pragma once

#include "core/base/units.hpp"
#include "core/model/scenario.hpp"

#include <vector>

namespace capsim::sim {

// One node's billed time at list price (per-second billing with the 1-minute minimum already
// applied: `to` - `from` >= 1 minute).
struct BilledInterval
{
  SimTime from = 0;
  SimTime to = 0;
  double list_per_hour = 0;
  bool spot = false;
  // On-demand list price of the same type and zone (for the minimum spot discount); 0 = unknown.
  double on_demand_list_per_hour = 0;
};

// spec.pricing applied to what was billed at list prices. Decisions (Karpenter's and Cluster
// Autoscaler's) are made on list prices, as the real controllers do; only the reported
// effective cost changes.
//
// - on-demand: list x (1 - onDemandDiscount);
// - Savings Plan: every hour of the run [0, end) pays the commitment (the last one pro rata);
//   that hour's on-demand
//   usage at the plan's rate, list x (1 - savingsPlanDiscount), is covered up to the
//   commitment, the rest is billed as plain on-demand (AWS applies a plan hour by hour);
// - spot: min(spot list, on-demand list x (1 - minSpotDiscount));
// - every node: + nodeOverheadUsdPerHour for its billed time.
[[nodiscard]] double effective_cost(const std::vector<BilledInterval>& billed, const model::PricingSettings& pricing,
                                    SimTime end);

} // namespace capsim::sim
