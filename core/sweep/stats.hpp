#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

// Statistics of a sweep: Student-t confidence intervals over seeds and the Pareto front.
namespace capsim::sweep {

// The two-sided quantile t such that P(|T| <= t) = `confidence` for Student's t distribution
// with `df` >= 1 degrees of freedom (0.95 and df = 4 give 2.776445). Solved by bisection on the
// regularized incomplete beta function, to about 1e-12.
[[nodiscard]] double student_t_quantile(double confidence, std::size_t df);

// Mean and 95% confidence interval of a sample, mean ± t(0.975, n-1) * s / sqrt(n) with s the
// sample standard deviation (n - 1 in the denominator).
struct Estimate
{
  std::size_t n = 0;
  double mean = 0;
  double stddev = 0;                // 0 when n < 2
  std::optional<double> half_width; // none when n < 2 (one seed says nothing about spread)

  [[nodiscard]] double low() const { return mean - half_width.value_or(0); }
  [[nodiscard]] double high() const { return mean + half_width.value_or(0); }
};

// Values are summed in the order given (the seed order), so the result does not depend on
// which thread ran what.
[[nodiscard]] Estimate estimate(const std::vector<double>& values, double confidence = 0.95);

// For points (cost, delay), both to be minimized: true for each point no other point dominates
// (another is <= on both and < on one). Equal points are all on the front. O(n log n).
[[nodiscard]] std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& points);

} // namespace capsim::sweep
