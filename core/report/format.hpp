#pragma once

#include "core/base/units.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::report {

// Deterministic, locale-independent number text for machine formats: fixed `decimals`, then
// trailing zeros (and a bare '.') removed; "-0" becomes "0"; non-finite values become "0".
// fixed_number(1.5, 6) == "1.5", fixed_number(2.0, 4) == "2", fixed_number(1e-9, 6) == "0".
[[nodiscard]] std::string fixed_number(double value, int decimals);

// Decimal places used in every machine format (JSON, CSV).
inline constexpr int k_money_decimals = 6;   // USD
inline constexpr int k_ratio_decimals = 4;   // utilization, efficiency
inline constexpr int k_seconds_decimals = 3; // pending times, t
inline constexpr int k_count_decimals = 4;   // averages, node-hours

// Simulated milliseconds as seconds text: 1500 -> "1.5".
[[nodiscard]] std::string seconds_text(Duration ms);

// Text for people (tables, markdown, HTML).
// "$1,234.57"; decimals < 0 picks 4 under $1 and 2 otherwise.
[[nodiscard]] std::string human_money(double usd, int decimals = -1);
// Decimals that suit a whole table row or column of money: 4 when every |value| < $10, else 2.
[[nodiscard]] int money_decimals(const std::vector<double>& values);
[[nodiscard]] std::string human_percent(double ratio);   // 0.6234 -> "62.3%"
[[nodiscard]] std::string human_seconds(double seconds); // "0s", "12.5s", "3m20s", "2h05m"
[[nodiscard]] std::string human_count(double value, int decimals); // "1,234" / "12.5"
[[nodiscard]] std::string human_duration(Duration ms);   // "24h", "1h30m", "90s"

// Escaping for each output format.
[[nodiscard]] std::string json_escape(std::string_view text);     // without the quotes
[[nodiscard]] std::string html_escape(std::string_view text);     // & < > " '
[[nodiscard]] std::string csv_field(std::string_view text);       // RFC 4180 quoting when needed
[[nodiscard]] std::string markdown_escape(std::string_view text); // | and other table breakers

// Display width of UTF-8 text in terminal columns (every code point counts as one).
[[nodiscard]] std::size_t display_width(std::string_view text);

} // namespace capsim::report
