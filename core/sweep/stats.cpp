#include "core/sweep/stats.hpp"

#include "core/base/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace capsim::sweep {

namespace {

// Continued fraction of the incomplete beta function (modified Lentz evaluation), valid for
// x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x)
{
  constexpr double k_tiny = 1e-300;
  constexpr double k_eps = 1e-16;
  const auto guard = [](double v) { return std::abs(v) < k_tiny ? k_tiny : v; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double md = m;
    // Even step: m (b - m) x / ((a + 2m - 1)(a + 2m)).
    double term = md * (b - md) * x / ((a + 2 * md - 1) * (a + 2 * md));
    d = 1.0 / guard(1.0 + term * d);
    c = guard(1.0 + term / c);
    h *= d * c;
    // Odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    term = -(a + md) * (a + b + md) * x / ((a + 2 * md) * (a + 2 * md + 1));
    d = 1.0 / guard(1.0 + term * d);
    c = guard(1.0 + term / c);
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1.0) < k_eps) {
      break;
    }
  }
  return h;
}

// The regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1.
double incomplete_beta(double a, double b, double x)
{
  if (x <= 0) {
    return 0;
  }
  if (x >= 1) {
    return 1;
  }
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) {
    return std::exp(log_front) * beta_continued_fraction(a, b, x) / a;
  }
  return 1.0 - std::exp(log_front) * beta_continued_fraction(b, a, 1.0 - x) / b;
}

// P(|T| > t) for Student's t with df degrees of freedom.
double two_sided_tail(double t, double df)
{
  return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

} // namespace

double student_t_quantile(double confidence, std::size_t df)
{
  CAPSIM_CHECK(df >= 1 && confidence > 0 && confidence < 1, "student_t_quantile: df >= 1 and 0 < confidence < 1");
  const double alpha = 1.0 - confidence;
  const double v = static_cast<double>(df);
  double lo = 0;
  double hi = 1;
  while (two_sided_tail(hi, v) > alpha) {
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (two_sided_tail(mid, v) > alpha) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

Estimate estimate(const std::vector<double>& values, double confidence)
{
  Estimate e;
  e.n = values.size();
  if (values.empty()) {
    return e;
  }
  double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  const double n = static_cast<double>(values.size());
  e.mean = sum / n;
  if (values.size() < 2) {
    return e;
  }
  double squares = 0;
  for (const double v : values) {
    squares += (v - e.mean) * (v - e.mean);
  }
  e.stddev = std::sqrt(squares / (n - 1));
  e.half_width = student_t_quantile(confidence, values.size() - 1) * e.stddev / std::sqrt(n);
  return e;
}

std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& points)
{
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].first != points[b].first) {
      return points[a].first < points[b].first;
    }
    if (points[a].second != points[b].second) {
      return points[a].second < points[b].second;
    }
    return a < b;
  });
  std::vector<bool> front(points.size(), false);
  double best_cheaper = std::numeric_limits<double>::infinity(); // least delay among strictly cheaper points
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && points[order[j]].first == points[order[i]].first) {
      ++j;
    }
    // Within one cost, only the least delay survives, and only if no cheaper point matches it.
    const double least = points[order[i]].second;
    if (least < best_cheaper) {
      for (std::size_t k = i; k < j && points[order[k]].second == least; ++k) {
        front[order[k]] = true;
      }
    }
    best_cheaper = std::min(best_cheaper, least);
    i = j;
  }
  return front;
}

} // namespace capsim::sweep
