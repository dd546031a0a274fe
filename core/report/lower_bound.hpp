#pragma once

#include "core/base/units.hpp"
#include "core/model/resources.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace capsim::report {

// The cost lower bound of SPEC §7: at every instant, the cheapest FRACTIONAL cover of the
// running pods' summed requests by the instance types those pods may use, integrated over time.
//
// Input (what the engine feeds):
// - columns: the ways to buy capacity, each an instance type at one price per hour (normally
//   its cheapest offering that the pods using this column accept) with its allocatable
//   resources. The same instance type may appear several times at different prices (e.g. a
//   spot column for pods that tolerate spot, an on-demand column for the others).
// - classes: groups of pods that may use exactly the same set of columns (same NodePool /
//   NodeGroup reach, selectors, affinities, tolerations, capacity types).
// - segments: a step function over time of the summed requests of the RUNNING pods of each class.
//
// The relaxation (solved exactly, see lower_bound.cpp for the proof): choose x_k >= 0 nodes of
// each column k at minimum sum_k price_k * x_k such that the demand of every class can be
// routed to columns it may use without exceeding sum x_k * allocatable_k, resource by resource.
// Classes SHARE a column's capacity, so pods of different classes that could share a node are
// never charged twice (summing per-class covers would not be a valid bound).
struct CoverColumn
{
  std::string name; // instance type (and offering), for reports
  double price_per_hour = 0; // USD, >= 0
  model::Resources allocatable;
};

// Pods that may use the same columns. `columns` are indices into BoundProblem::columns.
struct DemandClass
{
  std::string name;
  std::vector<std::size_t> columns;
};

struct BoundProblem
{
  std::vector<CoverColumn> columns;
  std::vector<DemandClass> classes;
};

// Summed requests of the running pods of each class (indexed like BoundProblem::classes;
// missing trailing classes are zero) over [start, end) in simulated milliseconds.
struct DemandSegment
{
  SimTime start = 0;
  SimTime end = 0;
  std::vector<model::Resources> demand;
};

// The optimum for one demand vector.
struct CoverSolution
{
  double cost_per_hour = 0; // USD/h of the cheapest fractional cover
  // The fractional node counts of one optimal cover: (column index in the problem, count),
  // ascending by column index; zero counts are left out.
  std::vector<std::pair<std::size_t, double>> nodes;
  // false when some demand fits no allowed column at all (e.g. GPUs requested, no GPU type
  // allowed): that part of the demand is left out, so the value is still a valid bound.
  bool covered = true;
  // false when the classes were so many that only a subfamily of the Hall constraints was
  // used, or when rounding stopped the simplex early (then `nodes` is empty): still a valid,
  // possibly weaker, bound (see lower_bound.cpp).
  bool exact = true;
};

// The bound over a whole run.
struct LowerBoundResult
{
  double total_usd = 0;
  bool covered = true;
  bool exact = true;
  std::size_t distinct_demands = 0; // LPs solved (cache misses)
};

// Solves the relaxation for many demand vectors of one problem. Preprocessing (column
// deduplication and dominance pruning, constraint rows, scaling) happens once; each distinct
// demand vector is solved once (cached), warm-started from the previous optimal vertex.
class LowerBoundSolver
{
public:
  explicit LowerBoundSolver(const BoundProblem& problem);

  // The cheapest fractional cover of `demand` (one Resources per class). Throws InternalError
  // on a malformed call (more demand entries than classes).
  [[nodiscard]] const CoverSolution& solve(const std::vector<model::Resources>& demand);

  // Sum over segments of cost_per_hour x length; segments may come in any order.
  [[nodiscard]] LowerBoundResult integrate(const std::vector<DemandSegment>& segments);

  [[nodiscard]] std::size_t cache_size() const { return m_cache.size(); }

  // Upper limit on constraint rows (unions x resources); beyond it unions are dropped.
  static constexpr std::size_t k_max_rows = 48;

private:
  struct Row
  {
    std::vector<std::size_t> classes; // classes whose columns all lie in this union
    std::size_t resource = 0;         // index into m_resources
  };

  [[nodiscard]] CoverSolution compute(const std::vector<model::Resources>& demand);

  std::size_t m_class_count = 0;
  std::vector<model::ResourceId> m_resources; // dimensions some column provides
  std::vector<double> m_scale;                // per m_resources entry: max allocatable
  // Reduced columns (deduplicated, undominated): original index, price, and the dense
  // constraint coefficients g (one per row, already scaled).
  std::vector<std::size_t> m_column_origin;
  std::vector<double> m_price;
  std::vector<std::vector<double>> m_coefficients; // [column][row]
  std::vector<Row> m_rows;
  bool m_exact = true;
  // Warm start: the rows and active set of the last optimal vertex.
  std::vector<std::size_t> m_last_rows;
  std::vector<std::size_t> m_last_active;
  std::map<std::vector<std::int64_t>, CoverSolution> m_cache;
};

// Convenience: one solver, all segments.
[[nodiscard]] LowerBoundResult lower_bound(const BoundProblem& problem, const std::vector<DemandSegment>& segments);

// SPEC §7 efficiency = lower bound / total cost (1 when both are 0, 0 when only the bound is).
[[nodiscard]] double efficiency(double lower_bound_usd, double total_usd);

} // namespace capsim::report
