#pragma once

#include <cstdint>
#include <span>

// Score formulas and per-plugin normalizations of the default kube-scheduler profile, as pure
// functions of numbers so each can be tested against upstream's tables.
namespace capsim::scheduling {

inline constexpr std::int64_t k_max_node_score = 100;

// Requests assumed for a pod that requests no cpu / no memory, when scoring
// NodeResourcesFit (upstream DefaultMilliCPURequest and DefaultMemoryRequest).
inline constexpr std::int64_t k_default_milli_cpu_request = 100;
inline constexpr std::int64_t k_default_memory_request = 200LL * 1024 * 1024;

// NodeResourcesFit scoring strategy: LeastAllocated (kube-scheduler's default, spreads pods)
// or MostAllocated (bin-packing, what Karpenter's docs recommend pairing it with).
enum class ScoringStrategy : std::uint8_t { least_allocated, most_allocated };

// Plugin weights of the default profile (ImageLocality is not modelled).
struct ScoreWeights
{
  std::int64_t node_resources_fit = 1;
  std::int64_t balanced_allocation = 1;
  std::int64_t taint_toleration = 3;
  std::int64_t node_affinity = 2;
  std::int64_t pod_topology_spread = 2;
  std::int64_t inter_pod_affinity = 2;
};

// a * 100 / b truncated, for 0 <= a <= b, b > 0. Double division is exact here: a * 100 is an
// exact double below 2^53, the quotient is correctly rounded, and a non-integer quotient lies at
// least 1/b from the next integer, far more than its rounding error for any b below 10^14
// (100 TiB of memory in bytes). It is several times faster than a 64-bit integer division.
[[nodiscard]] inline std::int64_t percent_of(std::int64_t a, std::int64_t b)
{
  return static_cast<std::int64_t>(static_cast<double>(a * k_max_node_score) / static_cast<double>(b));
}

// (capacity - requested) * 100 / capacity; 0 when capacity is 0 or requested exceeds it.
[[nodiscard]] inline std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity)
{
  if (capacity <= 0 || requested > capacity) {
    return 0;
  }
  return percent_of(capacity - (requested < 0 ? 0 : requested), capacity);
}

// requested * 100 / capacity, requested capped at capacity; 0 when capacity is 0.
[[nodiscard]] inline std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity)
{
  if (capacity <= 0) {
    return 0;
  }
  requested = requested < 0 ? 0 : (requested > capacity ? capacity : requested);
  return percent_of(requested, capacity);
}

// NodeResourcesFit score over cpu and memory with weight 1 each. `*_requested` already include
// the incoming pod (non-zero requests); resources with zero allocatable are left out.
[[nodiscard]] inline std::int64_t resource_fit_score(ScoringStrategy strategy, std::int64_t cpu_requested,
                                                     std::int64_t cpu_allocatable, std::int64_t memory_requested,
                                                     std::int64_t memory_allocatable)
{
  const bool least = strategy == ScoringStrategy::least_allocated;
  std::int64_t score = 0;
  std::int64_t weights = 0;
  if (cpu_allocatable != 0) {
    score += least ? least_requested_score(cpu_requested, cpu_allocatable)
                   : most_requested_score(cpu_requested, cpu_allocatable);
    ++weights;
  }
  if (memory_allocatable != 0) {
    score += least ? least_requested_score(memory_requested, memory_allocatable)
                   : most_requested_score(memory_requested, memory_allocatable);
    ++weights;
  }
  return weights == 2 ? score / 2 : score;
}

// NodeResourcesBalancedAllocation: (1 - |cpu fraction - memory fraction| / 2) * 100, fractions
// capped at 1, truncated. `*_requested` include the incoming pod (actual requests).
[[nodiscard]] inline std::int64_t balanced_allocation_score(std::int64_t cpu_requested, std::int64_t cpu_allocatable,
                                                            std::int64_t memory_requested,
                                                            std::int64_t memory_allocatable)
{
  if (cpu_allocatable == 0 || memory_allocatable == 0) {
    return k_max_node_score; // fewer than two fractions: std = 0
  }
  double cpu = static_cast<double>(cpu_requested) / static_cast<double>(cpu_allocatable);
  double mem = static_cast<double>(memory_requested) / static_cast<double>(memory_allocatable);
  cpu = cpu > 1 ? 1 : cpu;
  mem = mem > 1 ? 1 : mem;
  const double std_dev = (cpu > mem ? cpu - mem : mem - cpu) / 2;
  return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(k_max_node_score));
}

// helper.DefaultNormalizeScore: scale to 0..100 by the maximum (all 100 when reverse and the
// maximum is 0), then reverse (100 - s) when asked. Used by TaintToleration (reverse) and
// NodeAffinity.
void default_normalize(std::span<std::int64_t> scores, bool reverse);

// PodTopologySpread NormalizeScore: ignored nodes get 0; otherwise 100 * (max + min - s) / max
// over the other nodes, all 100 when max is 0.
void topology_spread_normalize(std::span<std::int64_t> scores, std::span<const std::uint8_t> ignored);

// InterPodAffinity NormalizeScore: 100 * (s - min) / (max - min) over the scored nodes,
// truncated; all 0 when max == min.
void inter_pod_affinity_normalize(std::span<std::int64_t> scores);

// PodTopologySpread weight of a constraint whose key has `domains` domains among the scored nodes:
// ln(domains + 2).
[[nodiscard]] double topology_normalizing_weight(std::size_t domains);

} // namespace capsim::scheduling
