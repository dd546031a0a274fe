#include "core/report/format.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace capsim::report {

namespace {

// Strips trailing zeros after a decimal point, then a bare point, then a "-" on zero.
std::string trim_number(std::string s)
{
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') {
      s.pop_back();
    }
    if (!s.empty() && s.back() == '.') {
      s.pop_back();
    }
  }
  if (s == "-0") {
    s = "0";
  }
  return s;
}

// "1234567" -> "1,234,567" (digits only, an optional leading '-').
std::string group_thousands(const std::string& digits)
{
  std::string out;
  const std::size_t start = (!digits.empty() && digits[0] == '-') ? 1 : 0;
  const std::size_t n = digits.size() - start;
  out.append(digits, 0, start);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) {
      out.push_back(',');
    }
    out.push_back(digits[start + i]);
  }
  return out;
}

// Fixed text with thousands separators in the integer part.
std::string grouped_fixed(double value, int decimals)
{
  std::string s = fmt::format("{:.{}f}", value, decimals);
  const auto dot = s.find('.');
  const std::string int_part = s.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out = group_thousands(int_part) + frac;
  if (out.rfind("-0", 0) == 0 && out.find_first_not_of("-0.,") == std::string::npos) {
    out.erase(0, 1); // "-0.00" -> "0.00"
  }
  return out;
}

} // namespace

std::string fixed_number(double value, int decimals)
{
  if (!std::isfinite(value)) {
    return "0";
  }
  return trim_number(fmt::format("{:.{}f}", value, decimals));
}

std::string seconds_text(Duration ms)
{
  return fixed_number(static_cast<double>(ms) / 1000.0, k_seconds_decimals);
}

std::string human_money(double usd, int decimals)
{
  if (!std::isfinite(usd)) {
    return "n/a";
  }
  if (decimals < 0) {
    decimals = (std::abs(usd) < 1.0 && usd != 0.0) ? 4 : 2;
  }
  std::string s = grouped_fixed(usd, decimals);
  if (!s.empty() && s[0] == '-') {
    return "-$" + s.substr(1);
  }
  return "$" + s;
}

int money_decimals(const std::vector<double>& values)
{
  for (const double v : values) {
    if (!(std::abs(v) < 10.0)) {
      return 2;
    }
  }
  return 4;
}

std::string human_percent(double ratio)
{
  if (!std::isfinite(ratio)) {
    return "n/a";
  }
  return grouped_fixed(ratio * 100.0, 1) + "%";
}

std::string human_seconds(double seconds)
{
  if (!std::isfinite(seconds) || seconds < 0) {
    return "n/a";
  }
  if (seconds < 60.0) {
    return trim_number(fmt::format("{:.1f}", seconds)) + "s";
  }
  const auto total = static_cast<std::int64_t>(std::llround(seconds));
  if (total < 3600) {
    return fmt::format("{}m{:02}s", total / 60, total % 60);
  }
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

std::string human_count(double value, int decimals)
{
  if (!std::isfinite(value)) {
    return "n/a";
  }
  return grouped_fixed(value, decimals);
}

std::string human_duration(Duration ms)
{
  if (ms <= 0) {
    return "0s";
  }
  std::string out;
  Duration rest = ms;
  const auto part = [&](Duration unit, const char* suffix) {
    if (rest >= unit) {
      out += std::to_string(rest / unit) + suffix;
      rest %= unit;
    }
  };
  part(k_day, "d");
  part(k_hour, "h");
  part(k_minute, "m");
  part(k_second, "s");
  if (rest > 0) {
    out += std::to_string(rest) + "ms";
  }
  return out;
}

std::string json_escape(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
      } else {
        out.push_back(ch);
      }
    }
  }
  return out;
}

std::string html_escape(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    switch (ch) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out.push_back(ch);
    }
  }
  return out;
}

std::string csv_field(std::string_view text)
{
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (const char ch : text) {
    if (ch == '"') {
      out += "\"\"";
    } else {
      out.push_back(ch);
    }
  }
  out += '"';
  return out;
}

std::string markdown_escape(std::string_view text)
{
  std::string out;
  for (const char ch : text) {
    switch (ch) {
    case '|': out += "\\|"; break;
    case '\\': out += "\\\\"; break;
    case '*': out += "\\*"; break;
    case '_': out += "\\_"; break;
    case '`': out += "\\`"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '\n':
    case '\r': out += ' '; break;
    default: out.push_back(ch);
    }
  }
  return out;
}

std::size_t display_width(std::string_view text)
{
  std::size_t width = 0;
  for (const char ch : text) {
    if ((static_cast<unsigned char>(ch) & 0xC0U) != 0x80U) {
      ++width;
    }
  }
  return width;
}

} // namespace capsim::report
