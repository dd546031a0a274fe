#include "core/report/check.hpp"
#include "sample.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::report;

namespace {

const CheckLine* find_line(const CheckReport& r, const std::string& engine, const std::string& metric)
{
  for (const auto& l : r.lines) {
    if (l.engine == engine && l.metric == metric) {
      return &l;
    }
  }
  return nullptr;
}

} // namespace

TEST_CASE("check passes within every threshold", "[report][check]")
{
  const RunResult base = testing::sample_run();
  RunResult cur = base;
  cur.results[0].cost.total_usd *= 1.009;      // +0.9% < 1%
  cur.results[0].nodes.node_hours *= 1.0099;   // < 1%
  cur.results[0].pods.pending_p95_s *= 1.09;   // < 10%
  cur.results[1].pods.pending_p95_s += 0.9;    // under the 1 s grace
  cur.results[1].cost.total_usd = 1.4;         // cheaper
  const auto report = check_against_baseline(base, cur, {});
  CHECK(report.ok());
  CHECK(report.violations() == 0);
  CHECK(report.lines.size() == 8); // 4 metrics x 2 engines (efficiency is off by default)
  const auto text = render_check(report);
  CHECK(text.find("capsim check: ok") != std::string::npos);
  CHECK(text.find("FAIL") == std::string::npos);
  // The same run always passes against itself.
  CHECK(check_against_baseline(base, base, {}).ok());
}

TEST_CASE("check fails on each threshold with a readable reason", "[report][check]")
{
  const RunResult base = testing::sample_run();
  SECTION("cost")
  {
    RunResult cur = base;
    cur.results[0].cost.total_usd = 1.3; // +5.3%
    const auto r = check_against_baseline(base, cur, {});
    CHECK(r.violations() == 1);
    const auto* l = find_line(r, "karpenter", "total cost");
    REQUIRE(l != nullptr);
    CHECK_FALSE(l->ok);
    CHECK(l->reason == "karpenter: total cost rose 5.3% ($1.23 -> $1.30), above the +1% limit (--max-cost-increase)");
    CheckThresholds loose;
    loose.max_cost_increase = 0.06;
    CHECK(check_against_baseline(base, cur, loose).ok());
  }
  SECTION("node-hours")
  {
    RunResult cur = base;
    cur.results[1].nodes.node_hours = 6.6;
    const auto r = check_against_baseline(base, cur, {});
    CHECK(r.violations() == 1);
    CHECK(find_line(r, "cluster-autoscaler", "node-hours")->reason ==
          "cluster-autoscaler: node-hours rose 1.5% (6.50 -> 6.60), above the +1% limit (--max-node-hours-increase)");
  }
  SECTION("pending p95")
  {
    RunResult cur = base;
    cur.results[0].pods.pending_p95_s = 50;
    const auto r = check_against_baseline(base, cur, {});
    CHECK(r.violations() == 1);
    CHECK(find_line(r, "karpenter", "pending p95")->reason ==
          "karpenter: pending p95 rose 18.3% (42.2s -> 50s), above the +10% limit (--max-pending-p95-increase)");
  }
  SECTION("pending p95 from a zero baseline")
  {
    RunResult b0 = base;
    b0.results[0].pods.pending_p95_s = 0;
    RunResult cur = b0;
    cur.results[0].pods.pending_p95_s = 5;
    const auto r = check_against_baseline(b0, cur, {});
    CHECK(r.violations() == 1);
    CHECK(find_line(r, "karpenter", "pending p95")->reason ==
          "karpenter: pending p95 rose from 0s to 5s (the baseline had none; --max-pending-p95-increase)");
  }
  SECTION("unschedulable: default is no more than the baseline")
  {
    RunResult cur = base;
    cur.results[1].pods.unschedulable = 2;
    const auto r = check_against_baseline(base, cur, {});
    CHECK(r.violations() == 1);
    CHECK(find_line(r, "cluster-autoscaler", "unschedulable")->reason ==
          "cluster-autoscaler: 2 pods unschedulable at the end, the baseline had 0 (raise it with --max-unschedulable)");
    CheckThresholds t;
    t.max_unschedulable = 2;
    CHECK(check_against_baseline(base, cur, t).ok());
    t.max_unschedulable = 0;
    const auto strict = check_against_baseline(base, cur, t);
    CHECK(strict.violations() == 2); // karpenter's baseline already had 1
    CHECK(find_line(strict, "karpenter", "unschedulable")->reason ==
          "karpenter: 1 pods unschedulable at the end, above the limit of 0 (--max-unschedulable)");
  }
  SECTION("minimum efficiency")
  {
    CheckThresholds t;
    t.min_efficiency = 0.7;
    const auto r = check_against_baseline(base, base, t);
    CHECK(r.violations() == 1); // cluster-autoscaler is at 60%
    CHECK(find_line(r, "cluster-autoscaler", "efficiency")->reason ==
          "cluster-autoscaler: efficiency 60.0% is below the minimum 70.0% (--min-efficiency)");
    CHECK(find_line(r, "karpenter", "efficiency")->ok);
  }
  SECTION("an engine of the baseline is missing")
  {
    RunResult cur = base;
    cur.results.pop_back();
    const auto r = check_against_baseline(base, cur, {});
    CHECK(r.violations() == 1);
    CHECK(find_line(r, "cluster-autoscaler", "engine")->reason.find("the baseline has results for this engine") !=
          std::string::npos);
  }
  SECTION("an engine only in the current run is a note, not a failure")
  {
    RunResult b1 = base;
    b1.results.pop_back();
    const auto r = check_against_baseline(b1, base, {});
    CHECK(r.ok());
    CHECK(r.notes == std::vector<std::string>{"cluster-autoscaler: not in the baseline, not checked"});
  }
}

TEST_CASE("check report text", "[report][check][golden]")
{
  const RunResult base = testing::sample_run();
  RunResult cur = base;
  cur.results[0].cost.total_usd = 1.3;
  cur.results[1].pods.unschedulable = 3;
  const std::string expected = R"(      engine              metric         baseline  current  change  limit
FAIL  karpenter           total cost        $1.23    $1.30   +5.3%  +1%
ok    karpenter           node-hours         5.25     5.25       =  +1%
ok    karpenter           pending p95       42.2s    42.2s       =  +10%
ok    karpenter           unschedulable         1        1       =  <= 1
ok    cluster-autoscaler  total cost        $1.50    $1.50       =  +1%
ok    cluster-autoscaler  node-hours         6.50     6.50       =  +1%
ok    cluster-autoscaler  pending p95       2m10s    2m10s       =  +10%
FAIL  cluster-autoscaler  unschedulable         0        3      +3  <= 0
capsim check: 2 regressions
  karpenter: total cost rose 5.3% ($1.23 -> $1.30), above the +1% limit (--max-cost-increase)
  cluster-autoscaler: 3 pods unschedulable at the end, the baseline had 0 (raise it with --max-unschedulable)
)";
  CHECK(render_check(check_against_baseline(base, cur, {})) == expected);
}

TEST_CASE("threshold options parse percentages and ratios", "[report][check]")
{
  CHECK(parse_percent("1%") == Approx(0.01));
  CHECK(parse_percent("0.5%") == Approx(0.005));
  CHECK(parse_percent("10") == Approx(0.10));
  CHECK_FALSE(parse_percent("-1%").has_value());
  CHECK_FALSE(parse_percent("abc").has_value());
  CHECK_FALSE(parse_percent("").has_value());
  CHECK(parse_ratio("0.8") == Approx(0.8));
  CHECK(parse_ratio("85%") == Approx(0.85));
  CHECK_FALSE(parse_ratio("1.5").has_value());
  CHECK_FALSE(parse_ratio("x").has_value());
}
