#include "core/report/lower_bound.hpp"

#include "core/base/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

// Why this is a lower bound of every real packing, and why it is exact.
//
// Notation: columns k (price p_k >= 0, allocatable a_k), classes c (allowed columns S_c,
// summed running requests d_c), resources r. For a set U of classes let N(U) be the union of
// their S_c and D_U = sum_{c in U} d_c.
//
// (1) Validity. Take any real placement at one instant: n_k nodes of column k (integers) and
// every running pod on a node of a column its class allows. For any U and r, all pods of U
// sit on nodes of columns in N(U), and on each node the requests fit its allocatable, so
//     sum_{k in N(U)} a_{k,r} n_k  >=  D_{U,r}.                                  (H_{U,r})
// Hence n is feasible for   min sum_k p_k x_k  s.t.  (H_{U,r}) for all U, r,  x >= 0,
// and its cost sum p_k n_k (the real price rate) is >= the optimum. Billing is per second
// with a one-minute minimum, so the billed cost over time is >= the integral of the rate,
// hence >= the integral of the optimum. Dropping any constraints (H_{U,r}) only lowers the
// optimum, so every subfamily of the rows also gives a valid bound (used when the classes
// are too many: CoverSolution::exact = false).
//
// (2) Exactness. For a fixed resource r and fixed capacities c_k = a_{k,r} x_k, routing the
// class demands d_{c,r} to allowed columns is a bipartite supply/demand problem; by Gale's
// theorem (max-flow min-cut) it is feasible iff D_{U,r} <= sum_{k in N(U)} c_k for every U.
// So the family (H_{U,r}) is exactly the "classes share a column's capacity" relaxation:
// there are x and per-resource routings z_{c,k,r} >= 0 with sum_k z_{c,k,r} >= d_{c,r} and
// sum_c z_{c,k,r} <= a_{k,r} x_k. Per-resource routing is independent, which is what a
// fractional cover of summed requests allows. For a given union N only the largest U with
// N(U) = N matters (U = {c : S_c subset of N}), so one row per (union, resource) suffices.
// Summing separate per-class covers would instead charge two classes twice for one node
// they could share (cpu-heavy and memory-heavy pods), which is NOT a valid bound.
//
// (3) Columns. Identical (allocatable, allowing classes) columns keep the cheapest; a column
// whose classes are a subset of another's, with allocatable <= and price >= the other's, is
// never needed (replace it one for one), so it is pruned.
//
// (4) Solver. The dual  max D.y  s.t.  g_k.y <= p_k (every column),  y >= 0  has a feasible
// region that does not depend on the demand (only the objective does), y = 0 is feasible as
// prices are >= 0, and the dimension is the (small) number of rows. We walk its vertices with
// the primal simplex in active-set form: at a vertex with active constraints W, solve
// G_W^T lambda = D; if lambda >= 0 it is optimal (lambda restricted to columns is an optimal
// primal x: strong duality), else drop the active constraint with the smallest index and a
// negative multiplier and move along the edge to the first blocking constraint (ties: the
// smallest index). This is Bland's rule, so it terminates. Each solve warm-starts from the
// previous optimal vertex (still feasible: the region is fixed). The returned value is D.y for
// a y that is checked dual feasible (scaled down if rounding left it a hair outside), so by
// weak duality it never exceeds the true optimum.

namespace capsim::report {

namespace {

constexpr double k_pivot_eps = 1e-12;
constexpr std::size_t k_max_iterations = 100000;

// Solves M z = rhs (M is n x n, row-major) by Gaussian elimination with partial pivoting.
// Returns false when M is singular.
bool solve_dense(std::vector<double> m, std::vector<double> rhs, std::size_t n, std::vector<double>& out)
{
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < n; ++row) {
      if (std::abs(m[row * n + col]) > std::abs(m[pivot * n + col])) {
        pivot = row;
      }
    }
    if (std::abs(m[pivot * n + col]) < k_pivot_eps) {
      return false;
    }
    if (pivot != col) {
      for (std::size_t j = 0; j < n; ++j) {
        std::swap(m[pivot * n + j], m[col * n + j]);
      }
      std::swap(rhs[pivot], rhs[col]);
    }
    for (std::size_t row = col + 1; row < n; ++row) {
      const double f = m[row * n + col] / m[col * n + col];
      if (f == 0.0) {
        continue;
      }
      for (std::size_t j = col; j < n; ++j) {
        m[row * n + j] -= f * m[col * n + j];
      }
      rhs[row] -= f * rhs[col];
    }
  }
  out.assign(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    double s = rhs[i];
    for (std::size_t j = i + 1; j < n; ++j) {
      s -= m[i * n + j] * out[j];
    }
    out[i] = s / m[i * n + i];
  }
  return true;
}

bool is_subset(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b)
{
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

std::vector<std::size_t> set_union(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b)
{
  std::vector<std::size_t> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

} // namespace

double efficiency(double lower_bound_usd, double total_usd)
{
  if (!(total_usd > 0)) {
    return lower_bound_usd > 0 ? 0.0 : 1.0;
  }
  return lower_bound_usd / total_usd;
}

LowerBoundSolver::LowerBoundSolver(const BoundProblem& problem) : m_class_count(problem.classes.size())
{
  const std::size_t n = problem.columns.size();
  // Which classes may use each original column (sorted, unique).
  std::vector<std::vector<std::size_t>> allowed_by(n);
  for (std::size_t c = 0; c < problem.classes.size(); ++c) {
    for (const std::size_t k : problem.classes[c].columns) {
      CAPSIM_CHECK(k < n, "lower bound: class column index out of range");
      allowed_by[k].push_back(c);
    }
  }
  for (auto& classes : allowed_by) {
    std::sort(classes.begin(), classes.end());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  }
  // Resource dimensions some usable column provides.
  for (std::size_t r = 0; r < model::k_max_resources; ++r) {
    double max_alloc = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (!allowed_by[k].empty()) {
        max_alloc = std::max(max_alloc, static_cast<double>(problem.columns[k].allocatable.v[r]));
      }
    }
    if (max_alloc > 0) {
      m_resources.push_back(static_cast<model::ResourceId>(r));
      m_scale.push_back(max_alloc);
    }
  }
  // Deduplicate (classes, allocatable) keeping the cheapest (lowest index on ties).
  std::map<std::pair<std::vector<std::size_t>, std::vector<std::int64_t>>, std::size_t> best;
  for (std::size_t k = 0; k < n; ++k) {
    const auto& col = problem.columns[k];
    CAPSIM_CHECK(col.price_per_hour >= 0 && std::isfinite(col.price_per_hour), "lower bound: bad column price");
    if (allowed_by[k].empty()) {
      continue;
    }
    std::vector<std::int64_t> alloc;
    for (const auto r : m_resources) {
      alloc.push_back(std::max<std::int64_t>(0, col.allocatable.v[r]));
    }
    if (std::all_of(alloc.begin(), alloc.end(), [](std::int64_t v) { return v == 0; })) {
      continue; // provides nothing
    }
    auto key = std::make_pair(allowed_by[k], std::move(alloc));
    const auto it = best.find(key);
    if (it == best.end()) {
      best.emplace(std::move(key), k);
    } else if (col.price_per_hour < problem.columns[it->second].price_per_hour) {
      it->second = k;
    }
  }
  std::vector<std::size_t> kept;
  kept.reserve(best.size());
  for (const auto& [key, k] : best) {
    kept.push_back(k);
  }
  std::sort(kept.begin(), kept.end());
  // Dominance pruning.
  const auto dominates = [&](std::size_t a, std::size_t b) { // a makes b useless
    if (problem.columns[a].price_per_hour > problem.columns[b].price_per_hour) {
      return false;
    }
    if (!is_subset(allowed_by[b], allowed_by[a])) {
      return false;
    }
    for (const auto r : m_resources) {
      if (problem.columns[a].allocatable.v[r] < problem.columns[b].allocatable.v[r]) {
        return false;
      }
    }
    return true;
  };
  std::vector<std::size_t> columns;
  for (const std::size_t b : kept) {
    bool dominated = false;
    for (const std::size_t a : kept) {
      if (a != b && dominates(a, b)) {
        // Mutual domination means identical (classes, allocatable, price): impossible after
        // deduplication, so this is strict.
        dominated = true;
        break;
      }
    }
    if (!dominated) {
      columns.push_back(b);
    }
  }
  m_column_origin = columns;
  // Each class's allowed set in reduced column positions.
  std::vector<std::vector<std::size_t>> reach(m_class_count);
  for (std::size_t pos = 0; pos < columns.size(); ++pos) {
    for (const std::size_t c : allowed_by[columns[pos]]) {
      reach[c].push_back(pos);
    }
  }
  // The family of unions: each class's set, the union of all, then closure under union
  // (breadth first) while it fits the row budget.
  std::vector<std::vector<std::size_t>> unions;
  const auto add_union = [&](const std::vector<std::size_t>& s) {
    if (s.empty() || std::find(unions.begin(), unions.end(), s) != unions.end()) {
      return true;
    }
    if ((unions.size() + 1) * std::max<std::size_t>(1, m_resources.size()) > k_max_rows) {
      m_exact = false;
      return false;
    }
    unions.push_back(s);
    return true;
  };
  std::vector<std::size_t> all;
  for (const auto& s : reach) {
    all = set_union(all, s);
  }
  add_union(all);
  for (const auto& s : reach) {
    add_union(s);
  }
  for (std::size_t i = 0; i < unions.size() && m_exact; ++i) {
    for (const auto& s : reach) {
      if (!add_union(set_union(unions[i], s))) {
        break;
      }
    }
  }
  // Rows: (union, resource); the classes whose whole reach lies in the union.
  for (const auto& u : unions) {
    std::vector<std::size_t> inside;
    for (std::size_t c = 0; c < m_class_count; ++c) {
      if (!reach[c].empty() && is_subset(reach[c], u)) {
        inside.push_back(c);
      }
    }
    for (std::size_t r = 0; r < m_resources.size(); ++r) {
      m_rows.push_back(Row{inside, r});
    }
  }
  // Coefficients: g_k[row] = a_{k,r} / scale_r when column k lies in the row's union.
  m_price.resize(columns.size());
  m_coefficients.assign(columns.size(), std::vector<double>(m_rows.size(), 0.0));
  for (std::size_t pos = 0; pos < columns.size(); ++pos) {
    const auto& col = problem.columns[columns[pos]];
    m_price[pos] = col.price_per_hour;
    std::size_t row = 0;
    for (const auto& u : unions) {
      const bool in_union = std::binary_search(u.begin(), u.end(), pos);
      for (std::size_t r = 0; r < m_resources.size(); ++r, ++row) {
        if (in_union) {
          m_coefficients[pos][row] = static_cast<double>(col.allocatable.v[m_resources[r]]) / m_scale[r];
        }
      }
    }
  }
}

const CoverSolution& LowerBoundSolver::solve(const std::vector<model::Resources>& demand)
{
  CAPSIM_CHECK(demand.size() <= m_class_count, "lower bound: more demand entries than classes");
  std::vector<std::int64_t> key;
  key.reserve(m_class_count * model::k_max_resources);
  for (std::size_t c = 0; c < m_class_count; ++c) {
    for (std::size_t r = 0; r < model::k_max_resources; ++r) {
      key.push_back(c < demand.size() ? demand[c].v[r] : 0);
    }
  }
  const auto it = m_cache.find(key);
  if (it != m_cache.end()) {
    return it->second;
  }
  return m_cache.emplace(std::move(key), compute(demand)).first->second;
}

CoverSolution LowerBoundSolver::compute(const std::vector<model::Resources>& demand)
{
  CoverSolution out;
  out.exact = m_exact;
  const auto class_demand = [&](std::size_t c, std::size_t r) -> double {
    return c < demand.size() ? static_cast<double>(std::max<std::int64_t>(0, demand[c].v[r])) : 0.0;
  };
  // Demand nothing can cover: dimensions no column provides, classes with no column.
  for (std::size_t c = 0; c < demand.size(); ++c) {
    for (std::size_t r = 0; r < model::k_max_resources; ++r) {
      if (demand[c].v[r] <= 0) {
        continue;
      }
      const bool known = std::find(m_resources.begin(), m_resources.end(), r) != m_resources.end();
      const bool reachable = std::any_of(m_rows.begin(), m_rows.end(), [&](const Row& row) {
        return std::find(row.classes.begin(), row.classes.end(), c) != row.classes.end();
      });
      if (!known || !reachable) {
        out.covered = false;
      }
    }
  }
  // Active rows: positive demand and some column able to cover it.
  std::vector<std::size_t> rows;
  std::vector<double> d;
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    double total = 0;
    for (const std::size_t c : m_rows[i].classes) {
      total += class_demand(c, m_resources[m_rows[i].resource]);
    }
    if (total <= 0) {
      continue;
    }
    const bool coverable = std::any_of(m_coefficients.begin(), m_coefficients.end(),
                                       [&](const std::vector<double>& g) { return g[i] > 0; });
    if (!coverable) {
      out.covered = false;
      continue;
    }
    rows.push_back(i);
    d.push_back(total / m_scale[m_rows[i].resource]);
  }
  const std::size_t n = rows.size();
  if (n == 0) {
    return out;
  }
  const std::size_t k_cols = m_price.size();
  // Constraint j: j < k_cols is column j (g_j.y <= p_j); j = k_cols + i is -y_i <= 0.
  const auto coeff = [&](std::size_t j, std::size_t i) -> double {
    return j < k_cols ? m_coefficients[j][rows[i]] : (j - k_cols == i ? -1.0 : 0.0);
  };
  const auto rhs = [&](std::size_t j) -> double { return j < k_cols ? m_price[j] : 0.0; };

  std::vector<std::size_t> active(n);
  std::iota(active.begin(), active.end(), k_cols);
  // Warm start from the last optimal vertex when it has the same rows.
  if (m_last_rows == rows && m_last_active.size() == n) {
    active = m_last_active;
  }
  const double d_scale = std::max(1.0, *std::max_element(d.begin(), d.end()));
  const double lambda_tol = 1e-9 * d_scale;
  std::vector<double> y;
  std::vector<double> lambda;
  std::vector<double> m(n * n);
  std::vector<double> mt(n * n);
  bool optimal = false;
  bool restarted = false;
  // Numerical trouble (a singular basis, no convergence) never aborts a run: the last vertex
  // reached is dual feasible, so its value is still a valid (possibly weaker) bound.
  bool trouble = false;
  std::vector<double> best_y(n, 0.0);
  for (std::size_t iteration = 0; iteration < k_max_iterations; ++iteration) {
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t i = 0; i < n; ++i) {
        m[a * n + i] = coeff(active[a], i);
        mt[i * n + a] = m[a * n + i];
      }
    }
    std::vector<double> h(n);
    for (std::size_t a = 0; a < n; ++a) {
      h[a] = rhs(active[a]);
    }
    bool ok = solve_dense(m, h, n, y) && solve_dense(mt, d, n, lambda);
    // A warm start that does not fit (singular, or infeasible after rounding) restarts cold.
    if (ok && iteration == 0) {
      for (std::size_t j = 0; j < k_cols && ok; ++j) {
        double gy = 0;
        for (std::size_t i = 0; i < n; ++i) {
          gy += coeff(j, i) * y[i];
        }
        ok = gy <= m_price[j] + 1e-9 * (1.0 + m_price[j]);
      }
      for (std::size_t i = 0; i < n && ok; ++i) {
        ok = y[i] >= -1e-9;
      }
    }
    if (!ok) {
      if (restarted) {
        trouble = true;
        break;
      }
      restarted = true;
      std::iota(active.begin(), active.end(), k_cols);
      continue;
    }
    best_y = y;
    // Bland: the smallest constraint index with a negative multiplier leaves the active set.
    std::size_t leave = n;
    for (std::size_t a = 0; a < n; ++a) {
      if (lambda[a] < -lambda_tol && (leave == n || active[a] < active[leave])) {
        leave = a;
      }
    }
    if (leave == n) {
      optimal = true;
      break;
    }
    std::vector<double> e(n, 0.0);
    e[leave] = -1.0;
    std::vector<double> dir;
    if (!solve_dense(m, e, n, dir)) {
      trouble = true;
      break;
    }
    // Ratio test over the inactive constraints; ties go to the smallest index.
    std::vector<bool> is_active(k_cols + n, false);
    for (const auto j : active) {
      is_active[j] = true;
    }
    std::size_t enter = k_cols + n;
    double best_step = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < k_cols + n; ++j) {
      if (is_active[j]) {
        continue;
      }
      double gd = 0;
      double gy = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double g = coeff(j, i);
        gd += g * dir[i];
        gy += g * y[i];
      }
      if (gd <= 1e-12) {
        continue;
      }
      const double step = std::max(0.0, rhs(j) - gy) / gd;
      if (enter == k_cols + n || step < best_step - 1e-12 * (1.0 + best_step)) {
        best_step = step;
        enter = j;
      }
    }
    if (enter == k_cols + n) {
      trouble = true; // unbounded: impossible with coverable rows, unless rounding says so
      break;
    }
    active[leave] = enter;
  }
  const bool solved = optimal && !trouble;
  if (!solved) {
    y = best_y;
    out.exact = false;
    m_last_active.clear();
    m_last_rows.clear();
  } else {
    m_last_active = active;
    m_last_rows = rows;
  }

  // Certify: clamp y >= 0 and scale it into the feasible region, then value = D.y.
  for (auto& v : y) {
    v = std::max(0.0, v);
  }
  double shrink = 1.0;
  for (std::size_t j = 0; j < k_cols; ++j) {
    double gy = 0;
    for (std::size_t i = 0; i < n; ++i) {
      gy += coeff(j, i) * y[i];
    }
    if (gy > m_price[j]) {
      shrink = std::min(shrink, m_price[j] / gy);
    }
  }
  double value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    value += d[i] * y[i] * shrink;
  }
  out.cost_per_hour = std::max(0.0, value);
  for (std::size_t a = 0; a < n && solved; ++a) {
    if (active[a] < k_cols && lambda[a] > 0) {
      out.nodes.emplace_back(m_column_origin[active[a]], lambda[a]);
    }
  }
  std::sort(out.nodes.begin(), out.nodes.end());
  return out;
}

LowerBoundResult LowerBoundSolver::integrate(const std::vector<DemandSegment>& segments)
{
  LowerBoundResult out;
  out.exact = m_exact;
  for (const auto& seg : segments) {
    CAPSIM_CHECK(seg.end >= seg.start, "lower bound: segment ends before it starts");
    if (seg.end == seg.start) {
      continue;
    }
    const auto& sol = solve(seg.demand);
    out.covered = out.covered && sol.covered;
    out.total_usd += sol.cost_per_hour * static_cast<double>(seg.end - seg.start) / static_cast<double>(k_hour);
  }
  out.distinct_demands = m_cache.size();
  return out;
}

LowerBoundResult lower_bound(const BoundProblem& problem, const std::vector<DemandSegment>& segments)
{
  LowerBoundSolver solver(problem);
  return solver.integrate(segments);
}

} // namespace capsim::report
