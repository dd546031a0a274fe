#include "core/base/quantity.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <limits>

namespace capsim {

namespace {

__extension__ using Int128 = __int128;

constexpr Int128 k_int64_max = std::numeric_limits<std::int64_t>::max();

struct Scaled
{
  // value = mantissa * 10^exp10 * 2^exp2, mantissa >= 0
  Int128 mantissa = 0;
  int exp10 = 0;
  int exp2 = 0;
};

Expected<Scaled> parse_scaled(std::string_view text)
{
  using E = Expected<Scaled>;
  if (text.empty()) {
    return E::failure("empty quantity");
  }
  if (text.size() > 64) {
    return E::failure("quantity is too long");
  }
  std::size_t i = 0;
  if (text[0] == '+') {
    i = 1;
  } else if (text[0] == '-') {
    return E::failure(fmt::format("quantity '{}' must not be negative", text));
  }
  Scaled s;
  bool digits = false;
  bool dot = false;
  int frac_digits = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
      if (s.mantissa > Int128{1} << 100) {
        return E::failure(fmt::format("quantity '{}' is too large", text));
      }
      s.mantissa = s.mantissa * 10 + (c - '0');
      if (dot) {
        ++frac_digits;
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) {
    return E::failure(fmt::format("'{}' is not a quantity (expected a number such as 500m, 2 or 4Gi)", text));
  }
  s.exp10 = -frac_digits;
  const std::string_view suffix = text.substr(i);
  struct Suffix
  {
    std::string_view name;
    int exp10;
    int exp2;
  };
  static constexpr std::array<Suffix, 14> k_suffixes{{
      {"", 0, 0},   {"n", -9, 0}, {"u", -6, 0}, {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},
      {"T", 12, 0}, {"P", 15, 0}, {"E", 18, 0}, {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40},
  }};
  for (const auto& sfx : k_suffixes) {
    if (suffix == sfx.name) {
      s.exp10 += sfx.exp10;
      s.exp2 += sfx.exp2;
      return s;
    }
  }
  if (suffix == "Pi" || suffix == "Ei") {
    s.exp2 += suffix == "Pi" ? 50 : 60;
    return s;
  }
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    int sign = 1;
    std::size_t j = 1;
    if (suffix[j] == '-' || suffix[j] == '+') {
      sign = suffix[j] == '-' ? -1 : 1;
      ++j;
    }
    int exp = 0;
    if (j >= suffix.size()) {
      return E::failure(fmt::format("'{}' has an incomplete exponent", text));
    }
    for (; j < suffix.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(suffix[j])) || exp > 100) {
        return E::failure(fmt::format("'{}' has an invalid exponent", text));
      }
      exp = exp * 10 + (suffix[j] - '0');
    }
    s.exp10 += sign * exp;
    return s;
  }
  return E::failure(fmt::format("'{}' has an unknown unit suffix '{}' (expected one of m, k, M, G, T, "
                                "P, E, Ki, Mi, Gi, Ti, Pi, Ei)",
                                text, suffix));
}

// ceil(value * 10^extra10) as int64, or an error on overflow.
Expected<std::int64_t> to_int(const Scaled& s, int extra10, std::string_view text)
{
  using E = Expected<std::int64_t>;
  Int128 num = s.mantissa;
  Int128 den = 1;
  int e10 = s.exp10 + extra10;
  const auto too_large = [&] { return E::failure(fmt::format("quantity '{}' is too large", text)); };
  if (num == 0) {
    return std::int64_t{0};
  }
  for (int k = 0; k < s.exp2; ++k) {
    num *= 2;
    if (num > (Int128{1} << 120)) {
      return too_large();
    }
  }
  while (e10 > 0) {
    num *= 10;
    --e10;
    if (num > (Int128{1} << 120)) {
      return too_large();
    }
  }
  while (e10 < 0) {
    if (den > (Int128{1} << 100)) {
      // The value is below one unit at this scale: it rounds up to 1.
      return std::int64_t{1};
    }
    den *= 10;
    ++e10;
  }
  const Int128 q = (num + den - 1) / den;
  if (q > k_int64_max) {
    return too_large();
  }
  return static_cast<std::int64_t>(q);
}

} // namespace

Expected<std::int64_t> parse_quantity_milli(std::string_view text)
{
  auto s = parse_scaled(text);
  if (!s) {
    return Expected<std::int64_t>::failure(s.error());
  }
  return to_int(*s, 3, text);
}

Expected<std::int64_t> parse_quantity(std::string_view text)
{
  auto s = parse_scaled(text);
  if (!s) {
    return Expected<std::int64_t>::failure(s.error());
  }
  return to_int(*s, 0, text);
}

Expected<Duration> parse_duration(std::string_view text, bool allow_never)
{
  using E = Expected<Duration>;
  if (allow_never && text == "Never") {
    return k_never;
  }
  if (text.empty()) {
    return E::failure("empty duration");
  }
  if (text.size() > 64) {
    return E::failure("duration is too long");
  }
  if (text[0] == '-') {
    return E::failure(fmt::format("duration '{}' must not be negative", text));
  }
  if (text == "0") {
    return Duration{0};
  }
  long double total_ms = 0;
  std::size_t i = 0;
  const auto bad = [&] {
    return E::failure(fmt::format("'{}' is not a duration (expected e.g. 90s, 10m, 1h30m, 7d{})", text,
                                  allow_never ? " or Never" : ""));
  };
  while (i < text.size()) {
    const std::size_t start = i;
    long double number = 0;
    long double scale = 1;
    bool dot = false;
    bool digits = false;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c >= '0' && c <= '9') {
        digits = true;
        if (dot) {
          scale /= 10;
          number += (c - '0') * scale;
        } else {
          number = number * 10 + (c - '0');
        }
      } else if (c == '.' && !dot) {
        dot = true;
      } else {
        break;
      }
    }
    if (!digits || i == start) {
      return bad();
    }
    std::size_t unit_end = i;
    while (unit_end < text.size() && std::isalpha(static_cast<unsigned char>(text[unit_end])) != 0) {
      ++unit_end;
    }
    const std::string_view unit = text.substr(i, unit_end - i);
    long double ms_per_unit = 0;
    if (unit == "ms") {
      ms_per_unit = 1;
    } else if (unit == "s") {
      ms_per_unit = 1000;
    } else if (unit == "m") {
      ms_per_unit = 60'000;
    } else if (unit == "h") {
      ms_per_unit = 3'600'000;
    } else if (unit == "d") {
      ms_per_unit = 86'400'000;
    } else if (unit == "us" || unit == "µs" || unit == "ns") {
      ms_per_unit = unit == "ns" ? 1e-6L : 1e-3L;
    } else {
      return bad();
    }
    total_ms += number * ms_per_unit;
    if (total_ms > 1e17L) {
      return E::failure(fmt::format("duration '{}' is too large", text));
    }
    i = unit_end;
  }
  return static_cast<Duration>(total_ms + 0.5L);
}

Expected<Duration> parse_go_duration(std::string_view text)
{
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
  }
  // No unit of Go's (ns, us, µs, ms, s, m, h) has a 'd': "7d" is capsim's, not Go's.
  if (text.find('d') != std::string_view::npos) {
    return Expected<Duration>::failure(fmt::format("'{}' is not a Go duration (days are not a unit)", text));
  }
  return parse_duration(text);
}

std::string format_duration(Duration d)
{
  if (d == k_never) {
    return "Never";
  }
  if (d == 0) {
    return "0s";
  }
  std::string out;
  if (d < 0) {
    out += '-';
    d = -d;
  }
  const Duration days = d / k_day;
  d %= k_day;
  const Duration hours = d / k_hour;
  d %= k_hour;
  const Duration minutes = d / k_minute;
  d %= k_minute;
  if (days > 0) {
    out += fmt::format("{}d", days);
  }
  if (hours > 0) {
    out += fmt::format("{}h", hours);
  }
  if (minutes > 0) {
    out += fmt::format("{}m", minutes);
  }
  if (d > 0) {
    if (d % k_second == 0) {
      out += fmt::format("{}s", d / k_second);
    } else {
      out += fmt::format("{}ms", d);
    }
  }
  return out;
}

std::string format_bytes(std::int64_t bytes)
{
  if (bytes % k_gib == 0) {
    return fmt::format("{}Gi", bytes / k_gib);
  }
  if (bytes >= k_gib) {
    return fmt::format("{:.2f}Gi", static_cast<double>(bytes) / static_cast<double>(k_gib));
  }
  if (bytes % k_mib == 0) {
    return fmt::format("{}Mi", bytes / k_mib);
  }
  if (bytes >= k_mib) {
    return fmt::format("{:.1f}Mi", static_cast<double>(bytes) / static_cast<double>(k_mib));
  }
  return fmt::format("{}", bytes);
}

} // namespace capsim
