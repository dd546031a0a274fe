#include "core/cas/expander.hpp"

#include "core/base/text.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace capsim::cas {

namespace {

constexpr double k_cpu_price_per_hour = 0.033174;       // gce_price_info.go cpuPricePerHour
constexpr double k_memory_price_per_gib_hour = 0.004446; // memoryPricePerHourPerGb
constexpr double k_gpu_price_per_hour = 0.700;          // gpuPricePerHour
constexpr double k_gpu_unfitness = 1000.0;               // gpuUnfitnessOverride
constexpr double k_not_exist_coefficient = 2.0;          // notExistCoeficient

model::Resources stabilization_pod()
{
  model::Resources r; // priceStabilizationPod: 500m CPU, 500 MiB
  r[model::k_cpu] = 500;
  r[model::k_memory] = 500 * k_mib;
  return r;
}

} // namespace

const std::vector<std::string>& expander_names()
{
  static const std::vector<std::string> k_names = {"random", "most-pods", "least-waste", "least-nodes", "price",
                                                   "priority"};
  return k_names;
}

std::vector<Option> most_pods(const std::vector<Option>& options)
{
  std::size_t best = 0;
  std::vector<Option> out;
  for (const auto& o : options) {
    if (o.pods.size() == best) {
      out.push_back(o);
    } else if (o.pods.size() > best) {
      best = o.pods.size();
      out = {o};
    }
  }
  return out;
}

std::vector<Option> least_nodes(const std::vector<Option>& options)
{
  std::int32_t best = std::numeric_limits<std::int32_t>::max();
  std::vector<Option> out;
  for (const auto& o : options) {
    if (o.node_count == 0) {
      continue;
    }
    if (o.node_count == best) {
      out.push_back(o);
    } else if (o.node_count < best) {
      best = o.node_count;
      out = {o};
    }
  }
  return out;
}

std::vector<Option> least_waste(const std::vector<Option>& options)
{
  double best = 0;
  std::vector<Option> out;
  bool any = false;
  for (const auto& o : options) {
    std::int64_t req_cpu = 0;
    std::int64_t req_mem = 0;
    for (const auto* p : o.pods) {
      req_cpu += p->requests.cpu();
      req_mem += p->requests.memory();
    }
    const auto avail_cpu = static_cast<double>(o.capacity_cpu_milli) * o.node_count;
    const auto avail_mem = static_cast<double>(o.capacity_memory) * o.node_count;
    const double wasted_cpu = (avail_cpu - static_cast<double>(req_cpu)) / avail_cpu;
    const double wasted_mem = (avail_mem - static_cast<double>(req_mem)) / avail_mem;
    const double score = wasted_cpu + wasted_mem;
    if (any && score == best) {
      out.push_back(o);
    } else if (!any || score < best) {
      best = score;
      out = {o};
      any = true;
    }
  }
  return out;
}

std::vector<Option> priority(const std::vector<Option>& options)
{
  if (options.empty()) {
    return {};
  }
  std::int32_t max_prio = -1;
  std::vector<Option> best;
  for (const auto& o : options) {
    if (o.priority < max_prio) {
      continue;
    }
    if (o.priority > max_prio) {
      max_prio = o.priority;
      best.clear();
    }
    best.push_back(o);
  }
  return best.empty() ? options : best;
}

double pod_price_per_hour(const model::Resources& requests)
{
  return static_cast<double>(requests.cpu()) / 1000.0 * k_cpu_price_per_hour
         + static_cast<double>(requests.memory()) / static_cast<double>(k_gib) * k_memory_price_per_gib_hour
         + static_cast<double>(requests[model::k_nvidia_gpu]) * k_gpu_price_per_hour;
}

std::int64_t preferred_node_cpu_milli(std::size_t cluster_nodes)
{
  if (cluster_nodes <= 2) {
    return 1000;
  }
  if (cluster_nodes <= 6) {
    return 2000;
  }
  if (cluster_nodes <= 20) {
    return 4000;
  }
  if (cluster_nodes <= 60) {
    return 8000;
  }
  if (cluster_nodes <= 200) {
    return 16000;
  }
  return 32000;
}

double price_score(const Option& option, const PriceContext& context, PodPriceFn pod_price)
{
  const double stabilization = pod_price(stabilization_pod());
  const double total_node = option.node_price_per_hour * option.node_count;
  double total_pod = 0;
  for (const auto* p : option.pods) {
    total_pod += pod_price(p->requests);
  }
  const double sub_score = (total_node + stabilization) / (total_pod + stabilization);
  const auto pref = static_cast<double>(preferred_node_cpu_milli(context.cluster_nodes));
  const auto cpu = static_cast<double>(option.capacity_cpu_milli);
  const double unfitness = cpu > 0 ? std::max(pref / cpu, cpu / pref) : std::numeric_limits<double>::infinity();
  double suppressed = (unfitness - 1.0) * (1.0 - std::tanh(static_cast<double>(option.node_count - 1) / 15.0)) + 1.0;
  if (option.has_gpu) {
    suppressed = k_gpu_unfitness;
  }
  double score = suppressed * sub_score;
  if (!option.exists) {
    score *= k_not_exist_coefficient;
  }
  return score;
}

std::vector<Option> price(const std::vector<Option>& options, const PriceContext& context, PodPriceFn pod_price)
{
  std::vector<Option> best;
  double best_score = 0;
  for (const auto& o : options) {
    const double score = price_score(o, context, pod_price);
    if (best.empty() || score == best_score) {
      best.push_back(o);
      best_score = score;
    } else if (best_score > score) {
      best = {o};
      best_score = score;
    }
  }
  return best;
}

ExpanderChain::ExpanderChain(std::string_view spec, std::uint64_t seed, const SourceLocation& where)
    : m_rng(seed, "cluster-autoscaler/expander-random")
{
  std::set<std::string> seen;
  for (const auto& raw : split(spec, ',')) {
    const std::string name(trim(raw));
    const auto& known = expander_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw InputError(where, "clusterAutoscaler.expander: unknown expander '" + name + "'" + did_you_mean(name, known)
                                  + " (expected a comma-separated list of random, most-pods, least-waste, "
                                    "least-nodes, price, priority)");
    }
    if (!seen.insert(name).second) {
      throw InputError(where, "clusterAutoscaler.expander: expander '" + name
                                  + "' is listed more than once (each expander may appear once)");
    }
    if (!m_names.empty() && m_names.back() == "random") {
      throw InputError(where, "clusterAutoscaler.expander: '" + name
                                  + "' follows 'random', which always returns one option (nothing may follow it)");
    }
    m_names.push_back(name);
  }
  if (m_names.empty()) {
    throw InputError(where, "clusterAutoscaler.expander: empty expander list (expected e.g. least-waste)");
  }
}

std::size_t ExpanderChain::best_option(const std::vector<Option>& options, const PriceContext& context)
{
  std::vector<Option> current = options;
  for (std::size_t i = 0; i < current.size(); ++i) {
    current[i].input_index = i;
  }
  for (const auto& name : m_names) {
    if (name == "random") {
      break; // the fallback below
    }
    if (name == "most-pods") {
      current = most_pods(current);
    } else if (name == "least-waste") {
      current = least_waste(current);
    } else if (name == "least-nodes") {
      current = least_nodes(current);
    } else if (name == "price") {
      current = price(current, context, pod_price_per_hour);
    } else if (name == "priority") {
      current = priority(current);
    }
    if (current.size() == 1) {
      return current.front().input_index;
    }
  }
  if (current.empty()) {
    return SIZE_MAX;
  }
  return current[m_rng.below(current.size())].input_index;
}

} // namespace capsim::cas
