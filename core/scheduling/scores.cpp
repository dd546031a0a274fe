#include "core/scheduling/scores.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace capsim::scheduling {

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
      scores[i] = percent_of(max + min - scores[i], max);
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
