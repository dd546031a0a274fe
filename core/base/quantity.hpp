#pragma once

#include "core/base/expected.hpp"
#include "core/base/units.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace capsim {

// Kubernetes resource quantities ("500m", "2", "1.5Gi", "1e3", "128974848", "129M").
// Both results round up, as the API server does when it stores a quantity at a coarser
// scale. Negative values and values beyond int64 are errors.

// The quantity in thousandths: "500m" -> 500, "2" -> 2000 (CPU in millicores).
[[nodiscard]] Expected<std::int64_t> parse_quantity_milli(std::string_view text);

// The quantity in whole units: "1Gi" -> 1073741824, "1k" -> 1000, "1500m" -> 2.
[[nodiscard]] Expected<std::int64_t> parse_quantity(std::string_view text);

// Go-style durations ("90s", "1h30m", "500ms", "1.5h") plus "d" for days. "Never" gives
// k_never when allow_never is set. Negative durations are errors.
[[nodiscard]] Expected<Duration> parse_duration(std::string_view text, bool allow_never = false);

// Go's time.ParseDuration, for values Kubernetes controllers parse with it: parse_duration
// without days, with an optional leading '+'. Negative durations are errors, as above.
[[nodiscard]] Expected<Duration> parse_go_duration(std::string_view text);

// "1h30m0s"-like text for a duration, shortest form: 90000 -> "1m30s", 0 -> "0s".
[[nodiscard]] std::string format_duration(Duration d);

// Binary-suffixed memory for people: 14850000000 -> "13.83Gi".
[[nodiscard]] std::string format_bytes(std::int64_t bytes);

} // namespace capsim
