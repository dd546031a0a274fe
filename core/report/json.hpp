#pragma once

#include "core/report/result.hpp"
#include "core/report/summary.hpp"

#include <string>
#include <string_view>

namespace capsim::report {

// SPEC §7 JSON: keys in the SPEC's order, then extra fields (cost.effective_total_usd,
// pods.lost, disruptions.scale_down, warnings when any, timeline when present, decisions when
// present). Numbers are fixed-point text independent of the locale: money 6 decimals, ratios
// 4, seconds 3, averages and node-hours 4, trailing zeros trimmed. Small objects sit on one
// line, one array record per line, so files diff well. Ends with a newline.
[[nodiscard]] std::string render_json(const RunResult& run);

// `capsim compare -o json`: {"capsim", "designs": [{"design", <a run object's fields>}...],
// "deltas": [{"column", "baseline", "metrics": {key: {"value", "delta", "relative"}}}...]}.
[[nodiscard]] std::string render_json(const Comparison& cmp);

// Reads a `capsim run -o json` result back (for `check --baseline`). Every SPEC §7 key must be
// present with the right type; extra keys are ignored. Throws InputError
// "SOURCE:LINE:COL: error: ..." on malformed JSON or a wrong/missing field.
[[nodiscard]] RunResult parse_result_json(std::string_view text, const std::string& source);

} // namespace capsim::report
