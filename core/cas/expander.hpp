#pragma once

#include "core/base/diagnostics.hpp"
#include "core/base/rng.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::cas {

// One way to scale up (expander.Option): grow node group `group` by node_count nodes, which
// would schedule `pods`. The template facts are what the expanders look at.
struct Option
{
  std::size_t group = 0;
  std::string group_id;                       // node group name (priority matching, logs)
  std::int32_t node_count = 0;
  std::vector<const model::Pod*> pods;
  std::vector<std::size_t> similar_groups;    // balance-similar-node-groups
  std::int64_t capacity_cpu_milli = 0;        // template node capacity
  std::int64_t capacity_memory = 0;           // bytes
  bool has_gpu = false;
  double node_price_per_hour = 0;             // price expander: template node's price
  std::int32_t priority = 0;                  // priority expander: the group's priority
  bool exists = true;                         // false only for auto-provisioned groups (never here)
  std::size_t input_index = 0;                // position in the list given to ExpanderChain
};

// A pod's price per hour for the price expander.
using PodPriceFn = double (*)(const model::Resources& requests);

// Context the price expander needs: the cluster's current node count picks the preferred
// node size (SimplePreferredNodeProvider).
struct PriceContext
{
  std::size_t cluster_nodes = 0;
};

// Expander filters (expander.Filter.BestOptions). Each keeps the best options, ties kept, in
// input order; an empty result means "no option".

// most-pods: the options that schedule the most pods.
[[nodiscard]] std::vector<Option> most_pods(const std::vector<Option>& options);
// least-nodes: the options that add the fewest nodes (options adding 0 nodes are dropped).
[[nodiscard]] std::vector<Option> least_nodes(const std::vector<Option>& options);
// least-waste: lowest (cap_cpu*n - req_cpu)/(cap_cpu*n) + (cap_mem*n - req_mem)/(cap_mem*n),
// on node CAPACITY.
[[nodiscard]] std::vector<Option> least_waste(const std::vector<Option>& options);
// priority: the options of the highest priority (starting from -1, as CA does, so groups
// with a priority below -1 are never preferred); all options when none qualifies.
[[nodiscard]] std::vector<Option> priority(const std::vector<Option>& options);
// price: lowest suppressed-unfitness x (node price + stabilization) / (pod price +
// stabilization), with GCE's per-resource pod prices (see price_score).
[[nodiscard]] std::vector<Option> price(const std::vector<Option>& options, const PriceContext& context,
                                        PodPriceFn pod_price);

// GCE's pod price per hour (gce_price_model PodPrice): cpu x 0.033174 + memory GiB x
// 0.004446 + GPUs x 0.700.
[[nodiscard]] double pod_price_per_hour(const model::Resources& requests);
// The price expander's score of one option (lower is better).
[[nodiscard]] double price_score(const Option& option, const PriceContext& context, PodPriceFn pod_price);
// SimplePreferredNodeProvider: preferred node CPU (millicores) for a cluster of n nodes.
[[nodiscard]] std::int64_t preferred_node_cpu_milli(std::size_t cluster_nodes);

// An --expander chain: comma-separated filter names applied in order until one option is
// left; remaining ties go to `random` (seeded, so runs are reproducible).
class ExpanderChain
{
public:
  // Throws InputError for unknown, repeated, or shadowed names (nothing may follow `random`).
  ExpanderChain(std::string_view spec, std::uint64_t seed, const SourceLocation& where = {});

  // The chosen option's index in `options`, or SIZE_MAX when no option is left.
  [[nodiscard]] std::size_t best_option(const std::vector<Option>& options, const PriceContext& context);

  [[nodiscard]] const std::vector<std::string>& names() const { return m_names; }

private:
  std::vector<std::string> m_names;
  Rng m_rng;
};

// The names --expander accepts.
[[nodiscard]] const std::vector<std::string>& expander_names();

} // namespace capsim::cas
