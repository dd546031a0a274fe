#include "core/sim/effective_cost.hpp"

#include <algorithm>
#include <cstddef>

namespace capsim::sim {

namespace {

double hours(Duration d)
{
  return static_cast<double>(d) / static_cast<double>(k_hour);
}

} // namespace

double effective_cost(const std::vector<BilledInterval>& billed, const model::PricingSettings& pricing, SimTime end)
{
  const double od_rate = 1.0 - pricing.on_demand_discount;
  const bool plan = pricing.savings_plan_usd_per_hour > 0 && pricing.savings_plan_discount > 0;
  double total = 0;
  // On-demand list spend per clock hour, for the Savings Plan.
  std::vector<double> od_list_by_hour;
  for (const auto& b : billed) {
    const double h = hours(b.to - b.from);
    total += pricing.node_overhead_usd_per_hour * h;
    if (b.spot) {
      double price = b.list_per_hour;
      if (pricing.min_spot_discount > 0 && b.on_demand_list_per_hour > 0) {
        price = std::min(price, b.on_demand_list_per_hour * (1.0 - pricing.min_spot_discount));
      }
      total += price * h;
      continue;
    }
    if (!plan) {
      total += b.list_per_hour * od_rate * h;
      continue;
    }
    for (SimTime t = b.from; t < b.to;) {
      const auto hour = static_cast<std::size_t>(t / k_hour);
      const SimTime next = std::min<SimTime>(b.to, static_cast<SimTime>(hour + 1) * k_hour);
      if (od_list_by_hour.size() <= hour) {
        od_list_by_hour.resize(hour + 1, 0.0);
      }
      od_list_by_hour[hour] += b.list_per_hour * hours(next - t);
      t = next;
    }
  }
  if (plan) {
    // The commitment is paid for every hour of the run (a partial last hour pro rata) and
    // for any hour beyond it that still had usage.
    const auto run_hours = static_cast<std::size_t>((std::max<SimTime>(end, 0) + k_hour - 1) / k_hour);
    od_list_by_hour.resize(std::max(od_list_by_hour.size(), run_hours), 0.0);
    const double plan_rate = 1.0 - pricing.savings_plan_discount;
    for (std::size_t h = 0; h < od_list_by_hour.size(); ++h) {
      const SimTime from = static_cast<SimTime>(h) * k_hour;
      const double fraction = end > from ? std::min(1.0, hours(end - from)) : 0.0;
      const double commitment = pricing.savings_plan_usd_per_hour * fraction;
      const double at_plan_rate = od_list_by_hour[h] * plan_rate;
      const double covered = std::min(at_plan_rate, commitment);
      const double uncovered_list = (at_plan_rate - covered) / plan_rate;
      total += commitment + uncovered_list * od_rate;
    }
  }
  return total;
}

} // namespace capsim::sim
