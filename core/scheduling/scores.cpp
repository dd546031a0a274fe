#include "core/scheduling/scores.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace capsim::scheduling {

std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity)
{
  if (capacity == 0 || requested > capacity) {
    return 0;
  }
  return (capacity - requested) * k_max_node_score / capacity;
}

std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity)
{
  if (capacity == 0) {
    return 0;
  }
  requested = std::min(requested, capacity);
  return requested * k_max_node_score / capacity;
}

std::int64_t resource_fit_score(ScoringStrategy strategy, std::int64_t cpu_requested, std::int64_t cpu_allocatable,
                                std::int64_t memory_requested, std::int64_t memory_allocatable)
{
  std::int64_t score = 0;
  std::int64_t weights = 0;
  const auto add = [&](std::int64_t requested, std::int64_t allocatable) {
    if (allocatable == 0) {
      return;
    }
    score += strategy == ScoringStrategy::least_allocated ? least_requested_score(requested, allocatable)
                                                          : most_requested_score(requested, allocatable);
    ++weights;
  };
  add(cpu_requested, cpu_allocatable);
  add(memory_requested, memory_allocatable);
  return weights == 0 ? 0 : score / weights;
}

std::int64_t balanced_allocation_score(std::int64_t cpu_requested, std::int64_t cpu_allocatable,
                                       std::int64_t memory_requested, std::int64_t memory_allocatable)
{
  double fractions[2];
  int n = 0;
  if (cpu_allocatable != 0) {
    fractions[n++] = std::min(1.0, static_cast<double>(cpu_requested) / static_cast<double>(cpu_allocatable));
  }
  if (memory_allocatable != 0) {
    fractions[n++] = std::min(1.0, static_cast<double>(memory_requested) / static_cast<double>(memory_allocatable));
  }
  const double std_dev = n == 2 ? std::abs((fractions[0] - fractions[1]) / 2) : 0.0;
  return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(k_max_node_score));
}

void default_normalize(std::span<std::int64_t> scores, bool reverse)
{
  std::int64_t max = 0;
  for (const auto s : scores) {
    max = std::max(max, s);
  }
  if (max == 0) {
    if (reverse) {
      std::fill(scores.begin(), scores.end(), k_max_node_score);
    }
    return;
  }
  for (auto& s : scores) {
    s = k_max_node_score * s / max;
    if (reverse) {
      s = k_max_node_score - s;
    }
  }
}

void topology_spread_normalize(std::span<std::int64_t> scores, std::span<const std::uint8_t> ignored)
{
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = 0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (ignored[i] != 0) {
      continue;
    }
    min = std::min(min, scores[i]);
    max = std::max(max, scores[i]);
  }
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (ignored[i] != 0) {
      scores[i] = 0;
    } else if (max == 0) {
      scores[i] = k_max_node_score;
    } else {
      scores[i] = k_max_node_score * (max + min - scores[i]) / max;
    }
  }
}

void inter_pod_affinity_normalize(std::span<std::int64_t> scores)
{
  if (scores.empty()) {
    return;
  }
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = std::numeric_limits<std::int64_t>::min();
  for (const auto s : scores) {
    min = std::min(min, s);
    max = std::max(max, s);
  }
  const std::int64_t diff = max - min;
  for (auto& s : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(k_max_node_score) * (static_cast<double>(s - min) / static_cast<double>(diff));
    }
    s = static_cast<std::int64_t>(f);
  }
}

double topology_normalizing_weight(std::size_t domains)
{
  return std::log(static_cast<double>(domains + 2));
}

} // namespace capsim::scheduling
