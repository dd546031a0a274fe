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

// A Kubernetes object's identity, read from its JSON text without parsing the rest into a tree.
struct JsonObjectHeader
{
  std::string kind;
  std::string api_version;
  bool metadata = false; // the object has a "metadata" object
  std::string name;
  std::optional<std::string> namespace_;
  int name_line = 0; // where metadata.name's value is (0-based)
  int name_column = 0;
};

// The header of a strict JSON object; nullopt when the object is not one, or when any of those
// fields is unusual: not a string, a string with escapes, or a key twice (the caller then
// parses the object to report or read it).
[[nodiscard]] std::optional<JsonObjectHeader> scan_object_header(std::string_view object);

} // namespace capsim::io
