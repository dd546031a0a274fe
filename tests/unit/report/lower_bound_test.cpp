#include "core/report/lower_bound.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

using namespace capsim;
using namespace capsim::report;

namespace {

model::Resources res(std::int64_t cpu_m, std::int64_t mem, std::int64_t pods = 0, std::int64_t gpu = 0)
{
  model::Resources r;
  r.v[model::k_cpu] = cpu_m;
  r.v[model::k_memory] = mem;
  r.v[model::k_pods] = pods;
  r.v[model::k_nvidia_gpu] = gpu;
  return r;
}

CoverColumn column(std::string name, double price, model::Resources alloc)
{
  return CoverColumn{std::move(name), price, alloc};
}

// Solves M z = b by Gaussian elimination; false when singular (test-side reference code).
bool gauss(std::vector<std::vector<double>> m, std::vector<double> b, std::vector<double>& z)
{
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < n; ++r) {
      if (std::abs(m[r][c]) > std::abs(m[p][c])) {
        p = r;
      }
    }
    if (std::abs(m[p][c]) < 1e-12) {
      return false;
    }
    std::swap(m[p], m[c]);
    std::swap(b[p], b[c]);
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c) {
        continue;
      }
      const double f = m[r][c] / m[c][c];
      for (std::size_t j = c; j < n; ++j) {
        m[r][j] -= f * m[c][j];
      }
      b[r] -= f * b[c];
    }
  }
  z.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    z[i] = b[i] / m[i][i];
  }
  return true;
}

// Reference optimum of the joint relaxation, written independently of the solver: one Hall row
// per (every non-empty subset U of classes, resource), then the dual  max D.y  s.t. g_k.y <= p_k,
// y >= 0  by enumerating every vertex (every choice of R tight constraints).
double reference_lp(const BoundProblem& problem, const std::vector<model::Resources>& demand,
                    const std::vector<model::ResourceId>& dims)
{
  const std::size_t classes = problem.classes.size();
  std::vector<std::vector<double>> g(problem.columns.size()); // [column][row]
  std::vector<double> d;
  for (std::size_t mask = 1; mask < (std::size_t{1} << classes); ++mask) {
    std::vector<bool> in_n(problem.columns.size(), false);
    for (std::size_t c = 0; c < classes; ++c) {
      if ((mask >> c) & 1U) {
        for (const auto k : problem.classes[c].columns) {
          in_n[k] = true;
        }
      }
    }
    for (const auto r : dims) {
      // Units that keep the enumeration well conditioned: cores and GiB.
      const double unit = r == model::k_cpu ? 1000.0 : (r == model::k_memory ? static_cast<double>(k_gib) : 1.0);
      double total = 0;
      for (std::size_t c = 0; c < classes; ++c) {
        if ((mask >> c) & 1U) {
          total += static_cast<double>(demand[c].v[r]);
        }
      }
      d.push_back(total / unit);
      for (std::size_t k = 0; k < problem.columns.size(); ++k) {
        g[k].push_back(in_n[k] ? static_cast<double>(problem.columns[k].allocatable.v[r]) / unit : 0.0);
      }
    }
  }
  const std::size_t rows = d.size();
  const std::size_t total = problem.columns.size() + rows;
  double best = 0;
  std::vector<std::size_t> pick(rows);
  // Enumerate combinations of `rows` constraints out of `total`.
  std::function<void(std::size_t, std::size_t)> rec = [&](std::size_t start, std::size_t depth) {
    if (depth == rows) {
      std::vector<std::vector<double>> m(rows, std::vector<double>(rows, 0.0));
      std::vector<double> h(rows, 0.0);
      for (std::size_t a = 0; a < rows; ++a) {
        const auto j = pick[a];
        if (j < problem.columns.size()) {
          m[a] = g[j];
          h[a] = problem.columns[j].price_per_hour;
        } else {
          m[a][j - problem.columns.size()] = 1.0; // y_i = 0
        }
      }
      std::vector<double> y;
      if (!gauss(m, h, y)) {
        return;
      }
      for (const double v : y) {
        if (v < -1e-9) {
          return;
        }
      }
      for (std::size_t k = 0; k < problem.columns.size(); ++k) {
        double gy = 0;
        for (std::size_t i = 0; i < rows; ++i) {
          gy += g[k][i] * y[i];
        }
        if (gy > problem.columns[k].price_per_hour + 1e-9) {
          return;
        }
      }
      double value = 0;
      for (std::size_t i = 0; i < rows; ++i) {
        value += d[i] * y[i];
      }
      best = std::max(best, value);
      return;
    }
    for (std::size_t j = start; j < total; ++j) {
      pick[depth] = j;
      rec(j + 1, depth + 1);
    }
  };
  rec(0, 0);
  return best;
}

struct TestPod
{
  std::size_t cls = 0;
  model::Resources req;
};

// The cheapest real packing: every partition of the pods into nodes, each node the cheapest
// column allowed to every pod on it that fits their summed requests.
double best_integer_packing(const BoundProblem& problem, const std::vector<TestPod>& pods)
{
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> block(pods.size(), 0);
  std::function<void(std::size_t, std::size_t)> rec = [&](std::size_t i, std::size_t blocks) {
    if (i == pods.size()) {
      double cost = 0;
      for (std::size_t b = 0; b < blocks; ++b) {
        model::Resources sum;
        std::vector<bool> ok(problem.columns.size(), true);
        for (std::size_t p = 0; p < pods.size(); ++p) {
          if (block[p] != b) {
            continue;
          }
          sum += pods[p].req;
          const auto& allowed = problem.classes[pods[p].cls].columns;
          for (std::size_t k = 0; k < ok.size(); ++k) {
            ok[k] = ok[k] && std::find(allowed.begin(), allowed.end(), k) != allowed.end();
          }
        }
        double cheapest = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < ok.size(); ++k) {
          if (ok[k] && sum.fits_in(problem.columns[k].allocatable)) {
            cheapest = std::min(cheapest, problem.columns[k].price_per_hour);
          }
        }
        cost += cheapest;
      }
      best = std::min(best, cost);
      return;
    }
    for (std::size_t b = 0; b <= blocks; ++b) {
      block[i] = b;
      rec(i + 1, std::max(blocks, b + 1));
    }
  };
  rec(0, 0);
  return best;
}


} // namespace

TEST_CASE("three cpu-heavy pods and one type: the exact fractional cover", "[report][lower_bound]")
{
  BoundProblem p;
  p.columns.push_back(column("c5.xlarge", 0.2, res(4000, 16 * k_gib, 110)));
  p.classes.push_back(DemandClass{"all", {0}});
  LowerBoundSolver solver(p);
  // 3 x (1500m, 1Gi, 1 pod): cpu binds, 4500/4000 = 1.125 nodes.
  const auto& sol = solver.solve({res(4500, 3 * k_gib, 3)});
  CHECK(sol.cost_per_hour == Approx(0.225).epsilon(1e-12));
  REQUIRE(sol.nodes.size() == 1);
  CHECK(sol.nodes[0].first == 0);
  CHECK(sol.nodes[0].second == Approx(1.125));
  CHECK(sol.covered);
  CHECK(sol.exact);
}

TEST_CASE("two types: the optimum mixes them at a vertex", "[report][lower_bound]")
{
  BoundProblem p;
  p.columns.push_back(column("small", 0.1, res(2000, 8 * k_gib)));
  p.columns.push_back(column("big", 0.3, res(8000, 8 * k_gib)));
  p.classes.push_back(DemandClass{"all", {0, 1}});
  LowerBoundSolver solver(p);
  // 2a + 8b >= 8 cpu, 8a + 8b >= 16 GiB: a = 4/3, b = 2/3, cost 0.4/3 + 0.2 = 1/3.
  const auto& sol = solver.solve({res(8000, 16 * k_gib)});
  CHECK(sol.cost_per_hour == Approx(1.0 / 3.0).epsilon(1e-12));
  REQUIRE(sol.nodes.size() == 2);
  CHECK(sol.nodes[0].second == Approx(4.0 / 3.0));
  CHECK(sol.nodes[1].second == Approx(2.0 / 3.0));
  // Memory-only demand: the small type alone, 16/8 = 2 nodes.
  CHECK(solver.solve({res(0, 16 * k_gib)}).cost_per_hour == Approx(0.2));
  CHECK(solver.solve({model::Resources{}}).cost_per_hour == 0.0);
}

TEST_CASE("classes share a node's capacity: cpu-heavy and memory-heavy pods are not charged twice",
          "[report][lower_bound]")
{
  BoundProblem p;
  p.columns.push_back(column("m5.large", 1.0, res(2000, 2 * k_gib)));
  p.classes.push_back(DemandClass{"cpu-heavy", {0}});
  p.classes.push_back(DemandClass{"mem-heavy", {0}});
  LowerBoundSolver solver(p);
  // One real node holds both pods, so the bound must be <= 1 (summing per class would say 2).
  const auto& sol = solver.solve({res(2000, 0), res(0, 2 * k_gib)});
  CHECK(sol.cost_per_hour == Approx(1.0));
  CHECK(sol.exact);
}

TEST_CASE("a class restricted to a subset of types: Hall rows for every union", "[report][lower_bound]")
{
  BoundProblem p;
  p.columns.push_back(column("t1", 1.0, res(2000, k_gib)));
  p.columns.push_back(column("t2", 1.5, res(4000, k_gib)));
  p.classes.push_back(DemandClass{"only-t1", {0}});
  p.classes.push_back(DemandClass{"any", {0, 1}});
  LowerBoundSolver solver(p);
  // only-t1 needs 2 cpu on t1 (one t1); the rest (4 cpu) is cheapest on t2 (0.375/cpu):
  // 1 + 1.5 = 2.5. Pooling all demand on the cheapest type would give 6 x 0.375 = 2.25.
  const auto& sol = solver.solve({res(2000, 0), res(4000, 0)});
  CHECK(sol.cost_per_hour == Approx(2.5));
  CHECK(sol.cost_per_hour == Approx(reference_lp(p, {res(2000, 0), res(4000, 0)}, {model::k_cpu, model::k_memory})));
}

TEST_CASE("demand no allowed type provides is left out and flagged", "[report][lower_bound]")
{
  BoundProblem p;
  p.columns.push_back(column("m5.large", 0.1, res(2000, 8 * k_gib)));
  p.classes.push_back(DemandClass{"gpu-pods", {0}});
  p.classes.push_back(DemandClass{"nowhere", {}});
  LowerBoundSolver solver(p);
  const auto& sol = solver.solve({res(1000, 0, 0, 1), res(4000, 0)});
  CHECK_FALSE(sol.covered);
  CHECK(sol.cost_per_hour == Approx(0.05)); // the cpu part of the first class only
}

TEST_CASE("dominated and duplicate columns are never chosen", "[report][lower_bound]")
{
  BoundProblem p;
  p.columns.push_back(column("worse", 0.5, res(2000, 4 * k_gib)));
  p.columns.push_back(column("better", 0.4, res(4000, 8 * k_gib)));
  p.columns.push_back(column("better-dup", 0.45, res(4000, 8 * k_gib)));
  p.classes.push_back(DemandClass{"all", {0, 1, 2}});
  LowerBoundSolver solver(p);
  const auto& sol = solver.solve({res(8000, 8 * k_gib)});
  CHECK(sol.cost_per_hour == Approx(0.8));
  REQUIRE(sol.nodes.size() == 1);
  CHECK(sol.nodes[0].first == 1);
}

TEST_CASE("integration over segments, cached per distinct demand", "[report][lower_bound]")
{
  BoundProblem p;
  p.columns.push_back(column("m", 0.2, res(4000, 16 * k_gib)));
  p.classes.push_back(DemandClass{"all", {0}});
  LowerBoundSolver solver(p);
  std::vector<DemandSegment> segs;
  segs.push_back({0, 30 * k_minute, {res(4000, 0)}});              // 1 node, 0.5 h -> 0.1
  segs.push_back({30 * k_minute, 90 * k_minute, {res(8000, 0)}});  // 2 nodes, 1 h -> 0.4
  segs.push_back({90 * k_minute, 120 * k_minute, {res(4000, 0)}}); // again 0.1, cached
  segs.push_back({120 * k_minute, 120 * k_minute, {res(9999, 0)}}); // empty: not solved
  const auto r = solver.integrate(segs);
  CHECK(r.total_usd == Approx(0.6));
  CHECK(r.distinct_demands == 2);
  CHECK(solver.cache_size() == 2);
  CHECK(r.covered);
  CHECK(lower_bound(p, segs).total_usd == Approx(0.6));
}

TEST_CASE("efficiency is bound over total", "[report][lower_bound]")
{
  CHECK(efficiency(5, 10) == Approx(0.5));
  CHECK(efficiency(0, 0) == 1.0);
  CHECK(efficiency(1, 0) == 0.0);
}

namespace {

// A random instance: up to 4 types, `classes` classes each allowed a random non-empty subset,
// up to 5 pods that each fit some allowed type. pods_dim adds the pods resource (1 per pod).
struct RandomInstance
{
  BoundProblem problem;
  std::vector<TestPod> pods;
  std::vector<model::Resources> demand;
  std::string text; // for failure messages
};

RandomInstance random_instance(std::mt19937& rng, int classes, bool pods_dim)
{
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomInstance in;
  auto& p = in.problem;
  const int types = uniform(1, 4);
  for (int t = 0; t < types; ++t) {
    p.columns.push_back(column("t" + std::to_string(t), uniform(1, 20) / 10.0,
                               res(uniform(1, 4) * 1000, uniform(1, 4) * k_gib, pods_dim ? uniform(2, 6) : 0)));
  }
  for (int c = 0; c < classes; ++c) {
    DemandClass cls{"c" + std::to_string(c), {}};
    for (int t = 0; t < types; ++t) {
      if (uniform(0, 1) == 1) {
        cls.columns.push_back(static_cast<std::size_t>(t));
      }
    }
    if (cls.columns.empty()) {
      cls.columns.push_back(static_cast<std::size_t>(uniform(0, types - 1)));
    }
    p.classes.push_back(cls);
  }
  const int pod_count = uniform(1, 5);
  for (int i = 0; i < pod_count; ++i) {
    TestPod pod{static_cast<std::size_t>(uniform(0, classes - 1)),
                res(uniform(1, 6) * 500, uniform(1, 6) * 512 * k_mib, pods_dim ? 1 : 0)};
    const auto& allowed = p.classes[pod.cls].columns;
    if (std::any_of(allowed.begin(), allowed.end(),
                    [&](std::size_t k) { return pod.req.fits_in(p.columns[k].allocatable); })) {
      in.pods.push_back(pod);
    }
  }
  in.demand.resize(p.classes.size());
  for (const auto& pod : in.pods) {
    in.demand[pod.cls] += pod.req;
  }
  for (const auto& c : p.columns) {
    in.text += c.name + " $" + std::to_string(c.price_per_hour) + " " + model::to_string(c.allocatable) + "\n";
  }
  for (std::size_t c = 0; c < p.classes.size(); ++c) {
    in.text += p.classes[c].name + " may use";
    for (const auto k : p.classes[c].columns) {
      in.text += " t" + std::to_string(k);
    }
    in.text += ", demand " + model::to_string(in.demand[c]) + "\n";
  }
  return in;
}

} // namespace

TEST_CASE("random small instances: exact LP optimum and never above the best integer packing",
          "[report][lower_bound][property]")
{
  std::mt19937 rng(20240607);
  int checked = 0;
  for (int instance = 0; instance < 300; ++instance) {
    // Mostly 1-2 classes with cpu, memory and pods; some 3-class instances on cpu and memory.
    const bool three = instance % 5 == 4;
    const auto in = random_instance(rng, three ? 3 : 1 + instance % 2, !three);
    LowerBoundSolver solver(in.problem);
    const auto& sol = solver.solve(in.demand);
    INFO("instance " << instance << "\n" << in.text);
    CHECK(sol.covered);
    CHECK(sol.exact);
    const auto dims = three ? std::vector<model::ResourceId>{model::k_cpu, model::k_memory}
                           : std::vector<model::ResourceId>{model::k_cpu, model::k_memory, model::k_pods};
    const double lp = reference_lp(in.problem, in.demand, dims);
    CHECK(sol.cost_per_hour == Approx(lp).epsilon(1e-9).margin(1e-9));
    if (!in.pods.empty()) {
      CHECK(sol.cost_per_hour <= best_integer_packing(in.problem, in.pods) + 1e-9);
      ++checked;
    }
  }
  CHECK(checked > 240);
}

TEST_CASE("warm starts across a changing demand give the same optimum as cold solves", "[report][lower_bound]")
{
  std::mt19937 rng(7);
  BoundProblem p;
  for (int t = 0; t < 30; ++t) {
    p.columns.push_back(column("t" + std::to_string(t), 0.05 + 0.01 * (t % 13) + 0.002 * t,
                               res((1 + t % 8) * 1000, (1 + (t * 7) % 16) * k_gib, 10 + t)));
  }
  p.classes.push_back(DemandClass{"a", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}});
  p.classes.push_back(DemandClass{"b", {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}});
  LowerBoundSolver warm(p);
  for (int step = 0; step < 40; ++step) {
    std::vector<model::Resources> demand{
      res(std::uniform_int_distribution<int>(0, 40000)(rng), std::uniform_int_distribution<std::int64_t>(0, 80)(rng) * k_gib, 30),
      res(std::uniform_int_distribution<int>(0, 40000)(rng), std::uniform_int_distribution<std::int64_t>(0, 80)(rng) * k_gib, 20)};
    LowerBoundSolver cold(p);
    CHECK(warm.solve(demand).cost_per_hour == Approx(cold.solve(demand).cost_per_hour).epsilon(1e-9));
  }
}

TEST_CASE("catalog-sized instances: the returned cover is feasible and its cost equals the bound",
          "[report][lower_bound][property]")
{
  // Strong duality certificate: a feasible fractional cover x (checked against every Hall row,
  // computed here independently) whose cost equals the dual value proves both optimal.
  std::mt19937 rng(99);
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int instance = 0; instance < 12; ++instance) {
    BoundProblem p;
    const int types = 150 + uniform(0, 150);
    for (int t = 0; t < types; ++t) {
      const int vcpu = 1 << uniform(0, 7);                 // 1..128
      const int gib_per_cpu = 1 << uniform(0, 3);          // 1..8
      const double price = 0.02 * vcpu * (0.6 + 0.2 * gib_per_cpu) * (0.8 + 0.4 * uniform(0, 100) / 100.0);
      p.columns.push_back(column("t" + std::to_string(t), price,
                                 res(vcpu * 1000 - 80, static_cast<std::int64_t>(vcpu) * gib_per_cpu * k_gib - 600 * k_mib,
                                     uniform(8, 250), uniform(0, 9) == 0 ? uniform(1, 8) : 0)));
    }
    const int classes = 1 + instance % 3;
    for (int c = 0; c < classes; ++c) {
      DemandClass cls{"c" + std::to_string(c), {}};
      for (int t = 0; t < types; ++t) {
        if (uniform(0, 3) != 0) {
          cls.columns.push_back(static_cast<std::size_t>(t));
        }
      }
      p.classes.push_back(cls);
    }
    LowerBoundSolver solver(p);
    for (int step = 0; step < 5; ++step) {
      std::vector<model::Resources> demand;
      for (int c = 0; c < classes; ++c) {
        demand.push_back(res(uniform(0, 400000), uniform(0, 2000) * k_gib, uniform(0, 3000), uniform(0, 3) == 0 ? uniform(0, 20) : 0));
      }
      const auto& sol = solver.solve(demand);
      INFO("instance " << instance << " step " << step);
      REQUIRE(sol.exact);
      REQUIRE(sol.covered);
      double cost = 0;
      for (const auto& [k, x] : sol.nodes) {
        CHECK(x >= 0);
        cost += x * p.columns[k].price_per_hour;
      }
      CHECK(cost == Approx(sol.cost_per_hour).epsilon(1e-7));
      for (int mask = 1; mask < (1 << classes); ++mask) {
        for (const auto r : {model::k_cpu, model::k_memory, model::k_pods, model::k_nvidia_gpu}) {
          double need = 0;
          std::vector<bool> allowed(p.columns.size(), false);
          for (int c = 0; c < classes; ++c) {
            if ((mask >> c) & 1) {
              need += static_cast<double>(demand[static_cast<std::size_t>(c)].v[r]);
              for (const auto k : p.classes[static_cast<std::size_t>(c)].columns) {
                allowed[k] = true;
              }
            }
          }
          double have = 0;
          for (const auto& [k, x] : sol.nodes) {
            if (allowed[k]) {
              have += x * static_cast<double>(p.columns[k].allocatable.v[r]);
            }
          }
          CHECK(have >= need * (1 - 1e-7) - 1e-6);
        }
      }
    }
  }
}
