#include "core/sweep/stats.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace capsim::sweep;

TEST_CASE("Student t quantiles match the published table", "[sweep][stats]")
{
  // Two-sided 95%: t(0.975, df).
  CHECK(student_t_quantile(0.95, 1) == Approx(12.7062047362).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 2) == Approx(4.3026527297).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 3) == Approx(3.1824463053).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 4) == Approx(2.7764451052).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 5) == Approx(2.5705818356).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 9) == Approx(2.2621571628).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 10) == Approx(2.2281388520).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 29) == Approx(2.0452296421).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 30) == Approx(2.0422724563).epsilon(1e-9));
  CHECK(student_t_quantile(0.95, 100) == Approx(1.9839715185).epsilon(1e-9));
  // Towards the normal quantile 1.959964 as df grows.
  CHECK(student_t_quantile(0.95, 1000) == Approx(1.9623390808).epsilon(1e-8));
  CHECK(student_t_quantile(0.95, 1000000) == Approx(1.959966).epsilon(1e-6));
  // Other confidence levels.
  CHECK(student_t_quantile(0.90, 1) == Approx(6.3137515147).epsilon(1e-9));
  CHECK(student_t_quantile(0.90, 10) == Approx(1.8124611228).epsilon(1e-9));
  CHECK(student_t_quantile(0.99, 5) == Approx(4.0321429836).epsilon(1e-9));
}

TEST_CASE("estimate: mean, sample standard deviation and the 95% interval", "[sweep][stats]")
{
  SECTION("five values")
  {
    const Estimate e = estimate({10, 12, 14, 16, 18});
    CHECK(e.n == 5);
    CHECK(e.mean == 14.0);
    CHECK(e.stddev == Approx(std::sqrt(10.0)));
    REQUIRE(e.half_width);
    // t(0.975, 4) * sqrt(10) / sqrt(5) = 2.7764451052 * sqrt(2)
    CHECK(*e.half_width == Approx(3.9264863230).epsilon(1e-9));
    CHECK(e.low() == Approx(14.0 - 3.9264863230).epsilon(1e-9));
    CHECK(e.high() == Approx(14.0 + 3.9264863230).epsilon(1e-9));
  }
  SECTION("three values")
  {
    const Estimate e = estimate({10, 12, 14});
    CHECK(e.mean == 12.0);
    CHECK(e.stddev == Approx(2.0));
    REQUIRE(e.half_width);
    CHECK(*e.half_width == Approx(4.9682754237).epsilon(1e-9)); // 4.3026527297 * 2 / sqrt(3)
  }
  SECTION("equal values have a zero-width interval")
  {
    const Estimate e = estimate({7.5, 7.5, 7.5, 7.5});
    CHECK(e.mean == 7.5);
    CHECK(e.stddev == 0.0);
    REQUIRE(e.half_width);
    CHECK(*e.half_width == 0.0);
  }
  SECTION("one value: a mean, no interval")
  {
    const Estimate e = estimate({42.25});
    CHECK(e.n == 1);
    CHECK(e.mean == 42.25);
    CHECK(e.stddev == 0.0);
    CHECK_FALSE(e.half_width);
    CHECK(e.low() == 42.25);
    CHECK(e.high() == 42.25);
  }
  SECTION("no values")
  {
    const Estimate e = estimate({});
    CHECK(e.n == 0);
    CHECK(e.mean == 0.0);
    CHECK_FALSE(e.half_width);
  }
}

TEST_CASE("Pareto front of cost vs delay on a hand-made set", "[sweep][stats][pareto]")
{
  const std::vector<std::pair<double, double>> points = {
    {10, 50},  // 0 A: on the front
    {12, 30},  // 1 B: on the front
    {15, 30},  // 2 C: dominated by B (same delay, dearer)
    {20, 5},   // 3 D: on the front
    {10, 60},  // 4 E: dominated by A (same cost, slower)
    {25, 5},   // 5 F: dominated by D
    {12, 30},  // 6 G: equal to B: both stay
    {9, 100},  // 7 H: the cheapest, on the front
    {30, 1},   // 8 I: the fastest, on the front
    {26, 4.5}, // 9 J: between D and I, on the front
    {31, 1},   // 10 K: dominated by I
  };
  const std::vector<bool> expected = {true, true, false, true, false, false, true, true, true, true, false};
  CHECK(pareto_front(points) == expected);
}

TEST_CASE("Pareto front edge cases", "[sweep][stats][pareto]")
{
  CHECK(pareto_front({}).empty());
  CHECK(pareto_front({{5, 5}}) == std::vector<bool>{true});
  // All equal: nobody dominates anybody.
  CHECK(pareto_front({{1, 1}, {1, 1}, {1, 1}}) == std::vector<bool>{true, true, true});
  // A chain where each point is better on both: only the best survives.
  CHECK(pareto_front({{3, 3}, {2, 2}, {1, 1}}) == std::vector<bool>{false, false, true});
  // The order of the input does not matter.
  CHECK(pareto_front({{1, 9}, {9, 1}, {5, 5}, {6, 6}}) == std::vector<bool>{true, true, true, false});
  CHECK(pareto_front({{6, 6}, {5, 5}, {9, 1}, {1, 9}}) == std::vector<bool>{false, true, true, true});
}
