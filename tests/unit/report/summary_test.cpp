#include "core/report/format.hpp"
#include "core/report/summary.hpp"
#include "sample.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::report;

TEST_CASE("deltas against the first column", "[report][compare][delta]")
{
  SECTION("relative change, worse when a lower-is-better metric rises")
  {
    const auto d = compute_delta(10.0, 12.5, MetricKind::money, Better::lower);
    CHECK(d.sign == 1);
    CHECK(d.absolute == Approx(2.5));
    REQUIRE(d.relative.has_value());
    CHECK(*d.relative == Approx(0.25));
    CHECK(d.worse);
    CHECK_FALSE(d.better);
    CHECK(human_delta(d, MetricKind::money) == "▲ +25.0%");
  }
  SECTION("a drop of a lower-is-better metric is better")
  {
    const auto d = compute_delta(4, 3, MetricKind::count, Better::lower);
    CHECK(d.sign == -1);
    CHECK(d.better);
    CHECK(human_delta(d, MetricKind::count) == "▼ -25.0%");
  }
  SECTION("ratios change in percentage points; higher is better")
  {
    const auto d = compute_delta(0.6234, 0.7, MetricKind::ratio, Better::higher);
    CHECK_FALSE(d.relative.has_value());
    CHECK(d.better);
    CHECK(human_delta(d, MetricKind::ratio) == "▲ +7.7 pp");
    const auto down = compute_delta(0.5, 0.45, MetricKind::ratio, Better::higher);
    CHECK(down.worse);
    CHECK(human_delta(down, MetricKind::ratio) == "▼ -5.0 pp");
  }
  SECTION("from zero there is no percentage: the absolute change is shown")
  {
    const auto d = compute_delta(0, 3, MetricKind::count, Better::lower);
    CHECK_FALSE(d.relative.has_value());
    CHECK(human_delta(d, MetricKind::count) == "▲ +3");
    CHECK(human_delta(compute_delta(0, 42.25, MetricKind::seconds, Better::lower), MetricKind::seconds) == "▲ +42.2s");
    CHECK(human_delta(compute_delta(0, 0.5, MetricKind::money, Better::lower), MetricKind::money, 4) == "▲ +$0.5000");
  }
  SECTION("equal within rounding")
  {
    const auto d = compute_delta(1.2345671, 1.2345674, MetricKind::money, Better::lower);
    CHECK(d.sign == 0);
    CHECK_FALSE(d.worse);
    CHECK(d.relative == 0.0);
    CHECK(human_delta(d, MetricKind::money) == "=");
  }
  SECTION("neutral metrics are never worse or better")
  {
    const auto d = compute_delta(5, 9, MetricKind::count, Better::neutral);
    CHECK(d.sign == 1);
    CHECK_FALSE(d.worse);
    CHECK_FALSE(d.better);
  }
}

TEST_CASE("column labels: engines, designs, or both", "[report][compare]")
{
  const auto one = as_comparison(testing::sample_run());
  auto cols = columns_of(one);
  REQUIRE(cols.size() == 2);
  CHECK(cols[0].label == "karpenter");
  CHECK(cols[1].label == "cluster-autoscaler");
  CHECK(cols[0].design == "demo");

  const auto cmp = testing::sample_comparison();
  cols = columns_of(cmp);
  REQUIRE(cols.size() == 2);
  CHECK(cols[0].label == "a");
  CHECK(cols[1].label == "b");

  Comparison both;
  both.designs = {{"x", testing::sample_run()}, {"y", testing::sample_run()}};
  cols = columns_of(both);
  // Grouped by engine so each design sits next to its baseline: the same engine in design x.
  REQUIRE(cols.size() == 4);
  CHECK(cols[0].label == "x · karpenter");
  CHECK(cols[1].label == "y · karpenter");
  CHECK(cols[2].label == "x · cluster-autoscaler");
  CHECK(cols[3].label == "y · cluster-autoscaler");
  CHECK_FALSE(cols[0].baseline.has_value());
  CHECK(cols[1].baseline == 0U);
  CHECK_FALSE(cols[2].baseline.has_value());
  CHECK(cols[3].baseline == 2U);
  // One design: everything against the first engine.
  cols = columns_of(one);
  CHECK_FALSE(cols[0].baseline.has_value());
  CHECK(cols[1].baseline == 0U);
  // An engine the first design lacks has nothing to compare with.
  RunResult only_cas = testing::sample_run();
  only_cas.results.erase(only_cas.results.begin());
  RunResult only_k = testing::sample_run();
  only_k.results.pop_back();
  Comparison mixed;
  mixed.designs = {{"k", only_k}, {"c", only_cas}};
  cols = columns_of(mixed);
  REQUIRE(cols.size() == 2);
  CHECK(cols[1].label == "c");
  CHECK_FALSE(cols[1].baseline.has_value());
}

TEST_CASE("summary rows: pools are the union over columns, in name order", "[report][summary]")
{
  const auto cmp = as_comparison(testing::sample_run());
  const auto rows = summary_rows(columns_of(cmp));
  std::vector<std::string> pools;
  for (const auto& r : rows) {
    if (r.label.rfind("pool ", 0) == 0) {
      pools.push_back(r.label);
      if (r.label == "pool workers") {
        CHECK(r.values == std::vector<double>{0.0, 1.3653});
      }
    }
  }
  CHECK(pools == std::vector<std::string>{"pool default", "pool static", "pool workers"});
  // effective total and lost pods only appear when they say something.
  for (const auto& r : rows) {
    CHECK(r.key != "effective_total_usd");
    CHECK(r.key != "pods_lost");
  }
}

TEST_CASE("number formatting is fixed and deterministic", "[report][format]")
{
  CHECK(fixed_number(1.5, 6) == "1.5");
  CHECK(fixed_number(2.0, 4) == "2");
  CHECK(fixed_number(1e-9, 6) == "0");
  CHECK(fixed_number(-1e-9, 6) == "0");
  CHECK(fixed_number(0.1234565, 6) == "0.123456"); // the double is just below ...565
  CHECK(fixed_number(1234567.125, 2) == "1234567.12");
  CHECK(fixed_number(std::numeric_limits<double>::infinity(), 2) == "0");
  CHECK(seconds_text(1500) == "1.5");
  CHECK(seconds_text(86400000) == "86400");
  CHECK(human_money(1234.567) == "$1,234.57");
  CHECK(human_money(0.0123) == "$0.0123");
  CHECK(human_money(0) == "$0.00");
  CHECK(human_money(-2.5) == "-$2.50");
  CHECK(human_money(3.14159, 4) == "$3.1416");
  CHECK(money_decimals({0.5, 9.99}) == 4);
  CHECK(money_decimals({0.5, 10}) == 2);
  CHECK(human_percent(0.6234) == "62.3%");
  CHECK(human_seconds(0) == "0s");
  CHECK(human_seconds(12.5) == "12.5s");
  CHECK(human_seconds(200) == "3m20s");
  CHECK(human_seconds(7500) == "2h05m");
  CHECK(human_count(1234567, 0) == "1,234,567");
  CHECK(human_duration(0) == "0s");
  CHECK(human_duration(90 * k_minute) == "1h30m");
  CHECK(human_duration(k_day + 1500) == "1d1s500ms");
}

TEST_CASE("escaping for every format", "[report][format]")
{
  CHECK(json_escape("a\"b\\c\n\t\x01") == "a\\\"b\\\\c\\n\\t\\u0001");
  CHECK(html_escape("<a href='x'>&\"</a>") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(markdown_escape("a|b*c_d\ne") == "a\\|b\\*c\\_d e");
  CHECK(display_width("▲ +5%") == 5);
}
