// Ports of core:pkg/apis/v1/nodepool_budgets_test.go (GetAllowedDisruptionsByReason,
// AllowedDisruptions, IsActive) and of the BuildDisruptionBudgetMapping cases of
// core:pkg/controllers/disruption/suite_test.go (kubernetes-sigs/karpenter HEAD 2266468).
// capsim times are milliseconds since 1970-01-01T00:00Z, so the upstream dates are converted.

#include "core/karpenter/disruption_budget.hpp"
#include "core/karpenter/disruption_candidates.hpp"

#include <catch2/catch.hpp>

#include <limits>

namespace capsim::karpenter {

namespace {

using model::DisruptionBudget;
using model::DisruptionReason;

constexpr std::int64_t k_max_int32 = std::numeric_limits<std::int32_t>::max();

// Milliseconds since the Unix epoch of a UTC date (days_from_civil).
SimTime utc(int y, unsigned m, unsigned d, int hh = 0, int mm = 0, int ss = 0)
{
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + static_cast<std::int64_t>(doe) - 719468;
  return days * k_day + hh * k_hour + mm * k_minute + ss * k_second;
}

DisruptionBudget budget(std::string nodes, std::string schedule, Duration duration,
                        std::vector<DisruptionReason> reasons = {})
{
  return DisruptionBudget{std::move(nodes), std::move(schedule), duration, std::move(reasons)};
}

// The upstream BeforeEach: six budgets, the clock at 2000-06-15T12:30:30Z.
struct BudgetSuite
{
  SimTime now = utc(2000, 6, 15, 12, 30, 30);
  std::vector<DisruptionBudget> budgets = {
      budget("10", "* * * * *", k_hour),
      budget("100", "* * * * *", k_hour),
      budget("100%", "* * * * *", k_hour),
      budget("15", "* * * * *", k_hour, {DisruptionReason::drifted, DisruptionReason::underutilized}),
      budget("5", "* * * * *", k_hour, {DisruptionReason::drifted}),
      budget("0", "@weekly", k_hour,
             {DisruptionReason::underutilized, DisruptionReason::drifted, DisruptionReason::empty}),
  };

  [[nodiscard]] std::int64_t allowed(DisruptionReason reason) const
  {
    model::NodePool p;
    p.budgets = budgets;
    return allowed_disruptions(p, 100, reason, now);
  }
};

const DisruptionReason k_reasons[] = {DisruptionReason::empty, DisruptionReason::underutilized,
                                      DisruptionReason::drifted};

} // namespace

TEST_CASE("Budgets GetAllowedDisruptionsByReason: should return 0 for all reasons if a budget is active for all reasons",
          "[disruption][budgets]")
{
  BudgetSuite s;
  s.budgets[5].schedule = "* * * * *";
  for (const auto r : k_reasons) {
    CHECK(s.allowed(r) == 0);
  }
}

TEST_CASE("Budgets GetAllowedDisruptionsByReason: should return MaxInt32 for all reasons when there are no active budgets",
          "[disruption][budgets]")
{
  BudgetSuite s;
  for (auto& b : s.budgets) {
    b.schedule = "@yearly";
    b.duration = k_hour;
  }
  for (const auto r : k_reasons) {
    CHECK(s.allowed(r) == k_max_int32);
  }
}

TEST_CASE("Budgets GetAllowedDisruptionsByReason: should ignore reason-defined budgets when inactive",
          "[disruption][budgets]")
{
  BudgetSuite s;
  s.budgets[3].schedule = "@yearly";
  s.budgets[4].schedule = "@yearly";
  for (const auto r : k_reasons) {
    CHECK(s.allowed(r) == 10);
  }
}

TEST_CASE("Budgets GetAllowedDisruptionsByReason: should get the minimum budget for each reason", "[disruption][budgets]")
{
  BudgetSuite s;
  s.budgets.push_back(budget("4", "* * * * *", k_hour, {DisruptionReason::empty}));
  CHECK(s.allowed(DisruptionReason::empty) == 4);
  CHECK(s.allowed(DisruptionReason::drifted) == 5);
  CHECK(s.allowed(DisruptionReason::underutilized) == 10);
}

TEST_CASE("Budgets AllowedDisruptions", "[disruption][budgets]")
{
  BudgetSuite s;
  SECTION("should return zero values if a schedule is invalid")
  {
    s.budgets[0].schedule = "@wrongly";
    CHECK(budget_allowed(s.budgets[0], 100, s.now) == 0);
    CHECK(!budget_active(s.budgets[0], s.now).ok());
  }
  SECTION("should return zero values if a nodes value is invalid")
  {
    s.budgets[0].nodes = "1000a%";
    CHECK(budget_allowed(s.budgets[0], 100, s.now) == 0);
  }
  SECTION("should return MaxInt32 when a budget is inactive")
  {
    s.budgets[0].schedule = "@yearly";
    CHECK(budget_allowed(s.budgets[0], 100, s.now) == k_max_int32);
  }
  SECTION("should return the int value when a budget is active")
  {
    CHECK(budget_allowed(s.budgets[0], 100, s.now) == 10);
  }
  SECTION("should return the string value when a budget is active")
  {
    CHECK(budget_allowed(s.budgets[2], 100, s.now) == 100);
  }
  SECTION("percentages round up (19 nodes x 20% -> 4; 10 nodes x 5% -> 1)")
  {
    CHECK(budget_allowed(DisruptionBudget{"20%", std::nullopt, std::nullopt, {}}, 19, 0) == 4);
    CHECK(budget_allowed(DisruptionBudget{"5%", std::nullopt, std::nullopt, {}}, 10, 0) == 1);
    CHECK(budget_allowed(DisruptionBudget{"10%", std::nullopt, std::nullopt, {}}, 0, 0) == 0);
  }
}

TEST_CASE("Budgets IsActive", "[disruption][budgets][cron]")
{
  BudgetSuite s;
  SECTION("should always consider a schedule and time in UTC")
  {
    // 2000-05-31T00:00 at UTC+1 = 2000-05-30T23:00Z; @daily for 30m is not active.
    CHECK(!*budget_active(budget("10", "@daily", 30 * k_minute), utc(2000, 5, 30, 23)));
  }
  SECTION("should return that a schedule is active when schedule and duration are nil")
  {
    CHECK(*budget_active(DisruptionBudget{"10", std::nullopt, std::nullopt, {}}, s.now));
  }
  SECTION("should return that a schedule is active")
  {
    CHECK(*budget_active(s.budgets[0], s.now));
  }
  SECTION("should return that a schedule is inactive")
  {
    s.budgets[0].schedule = "@yearly";
    CHECK(!*budget_active(s.budgets[0], s.now));
  }
  SECTION("should return that a schedule is active when the schedule hit is in the middle of the duration")
  {
    CHECK(*budget_active(budget("10", "@yearly", 24 * k_hour), utc(1000, 1, 1, 12)));
  }
  SECTION("should return that a schedule is active when the duration is longer than the recurrence")
  {
    CHECK(*budget_active(budget("10", "@daily", 48 * k_hour), utc(2024, 1, 7)));
  }
  SECTION("should return that a schedule is inactive when the schedule hit is after the duration")
  {
    // 2024-01-07 is a Sunday; 06:30 is after midnight.
    CHECK(!*budget_active(budget("10", "30 6 * * SUN", 6 * k_hour), utc(2024, 1, 7)));
    CHECK(*budget_active(budget("10", "30 6 * * SUN", 6 * k_hour), utc(2024, 1, 7, 12, 29)));
    CHECK(!*budget_active(budget("10", "30 6 * * SUN", 6 * k_hour), utc(2024, 1, 7, 12, 30)));
  }
  SECTION("should return an error indicating why the cron fails to parse")
  {
    const auto active = budget_active(budget("10", "0 0 * * tue-mon", 6 * k_hour), utc(2024, 1, 7));
    REQUIRE(!active.ok());
    CHECK_THAT(active.error(), Catch::Contains("beginning of range (2) beyond end of range (1)"));
  }
}

TEST_CASE("Budgets cron: fields, lists, ranges, steps, names, day-of-month OR day-of-week", "[disruption][budgets][cron]")
{
  // Simulated time 0 is 1970-01-01T00:00Z, a Thursday.
  const auto s = parse_cron("*/15 9-17 * * mon-fri");
  REQUIRE(s.ok());
  CHECK(s.value().matches(utc(1970, 1, 1, 9, 45)));
  CHECK(!s.value().matches(utc(1970, 1, 1, 9, 46)));
  CHECK(!s.value().matches(utc(1970, 1, 3, 10, 0))); // Saturday
  const auto both = parse_cron("0 0 13 * 5"); // the 13th OR a Friday
  REQUIRE(both.ok());
  CHECK(both.value().matches(utc(1970, 1, 2)));  // Friday the 2nd
  CHECK(both.value().matches(utc(1970, 1, 13))); // Tuesday the 13th
  CHECK(!both.value().matches(utc(1970, 1, 14)));
  const auto star_dom = parse_cron("0 0 * * 5"); // a star day-of-month ANDs
  REQUIRE(star_dom.ok());
  CHECK(!star_dom.value().matches(utc(1970, 1, 13)));
  CHECK(parse_cron("0 0 1 jan,jul *").ok());
  CHECK(!parse_cron("0 0 * *").ok());
  CHECK(!parse_cron("60 * * * *").ok());
  CHECK(!parse_cron("* * * * 7").ok());
  // A weekday maintenance window relative to the simulation start.
  const DisruptionBudget window{"0", "0 9 * * 1-5", 8 * k_hour, {}};
  CHECK(*budget_active(window, utc(1970, 1, 1, 9)));         // Thursday 09:00
  CHECK(*budget_active(window, utc(1970, 1, 1, 16, 59)));    // still inside
  CHECK(!*budget_active(window, utc(1970, 1, 1, 17)));       // closed
  CHECK(!*budget_active(window, utc(1970, 1, 3, 10)));       // Saturday
}

namespace {

// BuildDisruptionBudgetMapping suite: 10 initialized nodes of one NodePool.
struct MappingSuite
{
  cluster::Cluster cluster;
  std::vector<model::NodePool> pools;

  MappingSuite()
  {
    model::NodePool p;
    p.name = "default";
    p.budgets = {DisruptionBudget{"100%", std::nullopt, std::nullopt, {}}};
    pools.push_back(p);
    for (int i = 0; i < 10; ++i) {
      add(cluster::NodeLifecycle::ready, cluster::NodeOwner::node_pool);
    }
  }

  cluster::NodeIndex add(cluster::NodeLifecycle lifecycle, cluster::NodeOwner owner)
  {
    cluster::NodeState n;
    n.name = "node-" + std::to_string(cluster.nodes().size());
    n.owner = owner;
    n.pool = owner == cluster::NodeOwner::static_node ? cluster::k_none : 0;
    n.lifecycle = lifecycle;
    n.ready_at = lifecycle == cluster::NodeLifecycle::ready ? 0 : -1;
    return cluster.add_node(n);
  }

  [[nodiscard]] std::int64_t allowed(DisruptionReason reason) const
  {
    return budget_mapping(pools, cluster, reason, 0)[0];
  }
};

} // namespace

TEST_CASE("BuildDisruptionBudgetMapping: should not consider nodes that are not managed as part of disruption count",
          "[disruption][budgets]")
{
  MappingSuite s;
  s.add(cluster::NodeLifecycle::ready, cluster::NodeOwner::static_node);
  for (const auto r : k_reasons) {
    CHECK(s.allowed(r) == 10);
  }
}

TEST_CASE("BuildDisruptionBudgetMapping: should not consider nodes that are not initialized as part of disruption count",
          "[disruption][budgets]")
{
  MappingSuite s;
  s.add(cluster::NodeLifecycle::registered, cluster::NodeOwner::node_pool);
  for (const auto r : k_reasons) {
    CHECK(s.allowed(r) == 10);
  }
}

TEST_CASE("BuildDisruptionBudgetMapping: should not return a negative disruption value", "[disruption][budgets]")
{
  MappingSuite s;
  s.pools[0].budgets = {DisruptionBudget{"10%", std::nullopt, std::nullopt, {}}};
  for (cluster::NodeIndex i = 0; i < 10; ++i) {
    s.cluster.node_mut(i).lifecycle = cluster::NodeLifecycle::deleting;
  }
  for (const auto r : k_reasons) {
    CHECK(s.allowed(r) == 0);
  }
}

TEST_CASE("BuildDisruptionBudgetMapping: should consider nodes with a deletion timestamp set and MarkedForDeletion to the "
          "disruption count",
          "[disruption][budgets]")
{
  MappingSuite s;
  s.cluster.node_mut(0).lifecycle = cluster::NodeLifecycle::deleting; // deletion timestamp
  s.cluster.node_mut(1).disrupted_taint = true;                       // MarkForDeletion by a command
  for (const auto r : k_reasons) {
    CHECK(s.allowed(r) == 8);
  }
}

TEST_CASE("Pod Eviction Cost", "[disruption][candidates]")
{
  model::PodSpec spec;
  CHECK(eviction_cost(spec) == 1.0); // standard cost without priority or deletion cost
  spec.deletion_cost = 100;
  CHECK(eviction_cost(spec) > 1.0);
  spec.deletion_cost = -100;
  CHECK(eviction_cost(spec) < 1.0);
  spec.deletion_cost = 0;
  spec.priority = 1;
  CHECK(eviction_cost(spec) > 1.0);
  spec.priority = -1;
  CHECK(eviction_cost(spec) < 1.0);
  spec.priority = 2'000'000'000;
  CHECK(eviction_cost(spec) == 10.0); // clamped
}

} // namespace capsim::karpenter
