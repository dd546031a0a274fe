#pragma once

#include "core/catalog/catalog.hpp"
#include "core/model/scenario.hpp"
#include "core/report/lower_bound.hpp"

#include <functional>
#include <string_view>
#include <vector>

namespace capsim::sim {

// The lower-bound LP of one engine's configuration: a column per instance type at the
// cheapest offering some pool may launch it at, and a demand class per set of columns some pod
// template (PodSpec) may use (pool requirements and taints, pod node selector, required node
// affinity and tolerations; zone and capacity type per offering). Templates whose pods may use
// the same columns share a class: the LP reads only a class's summed demand, and a kubectl dump
// brings one template per pod.
struct BoundModel
{
  report::BoundProblem problem;
  std::vector<std::size_t> class_of_spec; // per spec as given: its class in `problem`
};

// engine: "karpenter" (NodePools) or "cluster-autoscaler" (NodeGroups). Static nodes are not
// columns: the bound covers what the autoscaler could buy.
// `pool_types(pool)`: the instance types a NodePool version may launch (as its EC2NodeClass
// builds them), or nullptr for the catalog's. Every version of a NodePool (the scenario's and
// its later ones) adds columns, so the bound holds for the whole run.
using PoolTypes = std::function<const std::vector<const catalog::InstanceType*>*(const model::NodePool& pool)>;
[[nodiscard]] BoundModel build_bound_model(const model::Scenario& scenario, const catalog::Catalog& catalog,
                                           std::string_view engine, const std::vector<model::PodSpecPtr>& specs,
                                           const PoolTypes& pool_types = {});

// Distinct PodSpecs of a workload, in first-seen order.
[[nodiscard]] std::vector<model::PodSpecPtr> distinct_specs(const std::vector<model::Pod>& workload);

// Resolution of the bound's time steps: within each step the bound uses the component-wise
// minimum of the demand, which keeps it a valid lower bound (the LP optimum is monotone in the
// demand) while needing one LP per step instead of one per pod event.
inline constexpr Duration k_bound_step = k_minute;

} // namespace capsim::sim
