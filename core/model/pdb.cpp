#include "core/model/pdb.hpp"

#include "core/base/text.hpp"

#include <charconv>
#include <optional>
#include <utility>

namespace capsim::model {

namespace {

// "3" -> {3, false}; "50%" -> {50, true}; nullopt when unparsable.
std::optional<std::pair<std::int64_t, bool>> parse_int_or_percent(std::string_view text)
{
  text = trim(text);
  bool percent = false;
  if (!text.empty() && text.back() == '%') {
    percent = true;
    text.remove_suffix(1);
  }
  std::int64_t v = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || v < 0) {
    return std::nullopt;
  }
  return std::make_pair(v, percent);
}

std::int64_t scaled_up(std::int64_t value, bool percent, std::int64_t total)
{
  return percent ? (value * total + 99) / 100 : value;
}

} // namespace

std::int64_t pdb_disruptions_allowed(const PodDisruptionBudget& pdb, std::int64_t expected, std::int64_t healthy)
{
  std::int64_t desired_healthy = 0;
  if (pdb.min_available) {
    const auto v = parse_int_or_percent(*pdb.min_available);
    if (!v) {
      return k_unlimited_disruptions;
    }
    desired_healthy = scaled_up(v->first, v->second, expected);
  } else if (pdb.max_unavailable) {
    const auto v = parse_int_or_percent(*pdb.max_unavailable);
    if (!v) {
      return k_unlimited_disruptions;
    }
    desired_healthy = std::max<std::int64_t>(0, expected - scaled_up(v->first, v->second, expected));
  } else {
    return k_unlimited_disruptions;
  }
  return std::max<std::int64_t>(0, healthy - desired_healthy);
}

bool pdb_selects(const PodDisruptionBudget& pdb, const PodSpec& spec)
{
  return pdb.namespace_ == spec.namespace_ && pdb.selector.matches(spec.labels);
}

} // namespace capsim::model
