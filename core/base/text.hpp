#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace capsim {

// Levenshtein distance, for "did you mean" hints.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` within a distance proportional to its length, or "".
[[nodiscard]] std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" when nothing is close.
[[nodiscard]] std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

[[nodiscard]] std::vector<std::string> split(std::string_view text, char sep);

[[nodiscard]] std::string_view trim(std::string_view text);

} // namespace capsim
