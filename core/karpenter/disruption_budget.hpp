#pragma once

#include "core/base/expected.hpp"
#include "core/base/units.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/node_pool.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace capsim::karpenter {

// NodePool disruption budgets (core:pkg/apis/v1/nodepool.go GetAllowedDisruptionsByReason,
// core:pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping).
//
// Budget schedules are cron expressions in UTC. Simulated time 0 is 1970-01-01T00:00:00 UTC (a
// Thursday): capsim scenarios have no wall-clock start, so "0 9 * * 1-5" opens at 09:00 on the
// simulated weekdays counted from that origin.

// A parsed 5-field cron expression (robfig/cron ParseStandard: minute hour day-of-month month
// day-of-week, lists, ranges, steps, month/day names, @yearly/@annually/@monthly/@weekly/@daily/
// @midnight/@hourly). Bit i of each mask means value i matches.
struct CronSchedule
{
  std::uint64_t minutes = 0; // 0..59
  std::uint32_t hours = 0;   // 0..23
  std::uint32_t days = 0;    // 1..31
  std::uint32_t months = 0;  // 1..12
  std::uint32_t weekdays = 0; // 0..6, Sunday = 0
  // The day-of-month / day-of-week field was "*" or "?": robfig ANDs the two day fields when
  // either is a star, otherwise ORs them (as cron does).
  bool days_star = false;
  bool weekdays_star = false;

  // Whether the minute starting at `t` (ms since the Unix epoch, UTC) is a scheduled time.
  [[nodiscard]] bool matches(SimTime t) const;
};

// Parses a schedule; the error says what is wrong without a location.
[[nodiscard]] Expected<CronSchedule> parse_cron(std::string_view text);

// Budget.IsActive: a budget without schedule is always active; otherwise it is active when a
// scheduled time t exists with now - duration < t <= now. An unparsable schedule is an error
// (upstream then fails closed: 0 disruptions).
[[nodiscard]] Expected<bool> budget_active(const model::DisruptionBudget& budget, SimTime now);

// Budget.GetAllowedDisruptions for one budget: MaxInt32 when inactive, else `nodes` as a count
// or as a percentage of num_nodes rounded up; 0 when the budget is malformed.
[[nodiscard]] std::int64_t budget_allowed(const model::DisruptionBudget& budget, std::int64_t num_nodes, SimTime now);

// NodePool.GetAllowedDisruptionsByReason: the minimum over the budgets that apply to `reason`
// (budgets without reasons apply to all); MaxInt32 when none applies.
[[nodiscard]] std::int64_t allowed_disruptions(const model::NodePool& pool, std::int64_t num_nodes,
                                               model::DisruptionReason reason, SimTime now);

// Per NodePool counts behind BuildDisruptionBudgetMapping.
struct PoolDisruptionCounts
{
  std::int64_t nodes = 0;      // managed, initialized, not terminated
  std::int64_t disrupting = 0; // of those: deleting or marked for deletion (disrupted taint)
};

// Counts per NodePool index (scenario.node_pools order).
[[nodiscard]] std::vector<PoolDisruptionCounts> pool_disruption_counts(const cluster::Cluster& cluster,
                                                                       std::size_t pool_count);

// BuildDisruptionBudgetMapping: per NodePool, max(allowed - disrupting, 0).
[[nodiscard]] std::vector<std::int64_t> budget_mapping(const std::vector<model::NodePool>& pools,
                                                       const cluster::Cluster& cluster,
                                                       model::DisruptionReason reason, SimTime now);

[[nodiscard]] std::string_view to_string(model::DisruptionReason reason);

} // namespace capsim::karpenter
