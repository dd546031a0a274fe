#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// One item of a JSON object's "items" array: its bytes [begin, end) and where they start
// (0-based line and column).
struct JsonItem
{
  std::size_t begin = 0;
  std::size_t end = 0;
  int line = 0;
  int column = 0;
};

// A JSON object whose "items" is an array of objects, as `kubectl get ... -o json` prints.
struct JsonItems
{
  std::string kind; // the object's "kind" ("" when it has none)
  std::vector<JsonItem> items;
  int items_line = 0; // where the array's '[' is (0-based)
  int items_column = 0;
};

// Finds the items of such an object by a scan that checks the object's own syntax and skips
// values, so that the items can be parsed one at a time: a whole dump as one YAML tree takes
// some 50 to 60 bytes of memory per byte of JSON. nullopt for anything else: a single Pod,
// YAML, an object with another shape or bad syntax, which a whole-document reader then reads
// or reports. The items themselves are not checked.
[[nodiscard]] std::optional<JsonItems> scan_json_items(std::string_view text);

} // namespace capsim::io
