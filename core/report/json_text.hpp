#pragma once

#include "core/base/diagnostics.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capsim::report::json {

// A parsed JSON value that remembers where it started (1-based line and column), so readers
// can point at the offending value, not just the file. Object members keep their order.
struct Value
{
  enum class Type : std::uint8_t { null, boolean, number, string, array, object };

  Type type = Type::null;
  bool boolean = false;
  std::string text; // string contents (unescaped), or the number literal as written
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  // The member named `key`, or nullptr (objects only).
  [[nodiscard]] const Value* find(std::string_view key) const;
  // The number as a double (numbers only).
  [[nodiscard]] double number() const;
  // The number as an integer when it is one exactly (no fraction, in range).
  [[nodiscard]] std::optional<std::int64_t> integer() const;
  [[nodiscard]] std::optional<std::uint64_t> unsigned_integer() const;
  // "a string", "an object", ... for error messages.
  [[nodiscard]] std::string type_name() const;
};

// Parses RFC 8259 JSON (one value, surrounding whitespace allowed). Throws InputError
// "SOURCE:LINE:COL: error: ..." on malformed text, duplicate keys or nesting deeper than 200.
[[nodiscard]] Value parse(std::string_view text, const std::string& source);

} // namespace capsim::report::json
