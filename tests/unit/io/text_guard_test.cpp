#include "core/io/text_guard.hpp"

#include <catch2/catch.hpp>

using namespace capsim;

TEST_CASE("text guard: nesting counts block levels and flow brackets", "[io][hostile]")
{
  CHECK(io::measure_nesting("a: 1\nb:\n  c: 2\n", 64).max_depth == 2);
  CHECK(io::measure_nesting("a: [[1], {b: [2]}]\n", 64).max_depth == 4);
  CHECK(io::measure_nesting("- - - x\n", 64).max_depth == 4);
  CHECK(io::measure_nesting("{\"a\":[{\"b\":[1]}]}", 64).max_depth == 5); // the top-level mapping is level 1
}

TEST_CASE("text guard: brackets in quotes, comments and block scalars do not count", "[io][hostile]")
{
  const std::string text = "a: \"[[[[[\"\nb: '{{{{'' [['\nc: plain [text {here\n# [[[[[[[[\nd: |\n  [[[[[[[[[[\n"
                           "  {{{{{{{{{{\ne: 1\n";
  const auto r = io::measure_nesting(text, 5);
  CHECK(r.max_depth == 1);
  CHECK(r.line == 0);
}

TEST_CASE("text guard: refuses binary, bad UTF-8 and deep nesting with a location", "[io][hostile]")
{
  CHECK_THROWS_WITH(io::check_text(std::string("a: 1\nb: \0", 9), "f.yaml"),
                    "f.yaml:2:4: error: file contains a NUL byte: it looks binary (expected YAML or JSON text)");
  CHECK_THROWS_WITH(io::check_text("a: \xc3\x28\n", "f.yaml"),
                    "f.yaml:1:4: error: file is not valid UTF-8 text (expected YAML or JSON)");
  CHECK_NOTHROW(io::check_text("name: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n", "f.yaml"));
  // yaml-cpp 0.7 loops forever, allocating, on a document that starts with ','.
  CHECK_THROWS_WITH(io::check_text(",", "f.yaml"),
                    "f.yaml:1:1: error: a document cannot start with ',', with a tag or anchor holding one, or with a quoted or bracketed value followed by one (expected a mapping such as 'apiVersion: ...')");
  CHECK_THROWS_WITH(io::check_text("a: 1\n---\n# c\n&x !t , y\n", "f.yaml"),
                    "f.yaml:4:7: error: a document cannot start with ',', with a tag or anchor holding one, or with a quoted or bracketed value followed by one (expected a mapping such as 'apiVersion: ...')");
  // ... and on one that starts with a tag or anchor holding a ','.
  CHECK_THROWS_WITH(io::check_text("!rrival,duration,dep6522,,1000,2# trace", "f.yaml"),
                    "f.yaml:1:8: error: a document cannot start with ',', with a tag or anchor holding one, or with a quoted or bracketed value followed by one (expected a mapping such as 'apiVersion: ...')");
  CHECK_THROWS_WITH(io::check_text("a: 1\n--- &x,y\n", "f.yaml"),
                    "f.yaml:2:7: error: a document cannot start with ',', with a tag or anchor holding one, or with a quoted or bracketed value followed by one (expected a mapping such as 'apiVersion: ...')");
  // ... and on one whose root is a quoted scalar or a flow collection followed by ',' (fuzz
  // finding: '"250m",' on a line of its own after comments).
  const std::string root_comma = "error: " + std::string("a document cannot start with ',', with a tag or anchor "
                                                         "holding one, or with a quoted or bracketed value followed "
                                                         "by one (expected a mapping such as 'apiVersion: ...')");
  CHECK_THROWS_WITH(io::check_text("# c\n\"250m\",\n", "f.yaml"), "f.yaml:2:7: " + root_comma);
  CHECK_THROWS_WITH(io::check_text("a: 1\n--- 'it''s' ,\n", "f.yaml"), "f.yaml:2:13: " + root_comma);
  CHECK_THROWS_WITH(io::check_text("[\"a\",\n \"b\"] # c\n\n, x\n", "f.yaml"), "f.yaml:4:1: " + root_comma);
  CHECK_THROWS_WITH(io::check_text("{a: 1},", "f.yaml"), "f.yaml:1:7: " + root_comma);
  // ... and on a line less indented than the document's root that starts with ',' (fuzz
  // finding, minimised to "  : \n,").
  const std::string left_comma = "error: a line left of its document's root cannot start with ',' (expected a "
                                 "mapping such as 'apiVersion: ...')";
  CHECK_THROWS_WITH(io::check_text("  : \n,", "f.yaml"), "f.yaml:2:1: " + left_comma);
  CHECK_THROWS_WITH(io::check_text("a: 1\n---\n   b: 2\n , c\n", "f.yaml"), "f.yaml:4:2: " + left_comma);
  // The root's indentation is per document: a later document starting on its '---' line
  // does not inherit the previous one's.
  CHECK_NOTHROW(io::check_text("    a: 1\n--- x\n, y\n", "f.yaml"));
  CHECK_NOTHROW(io::check_text("a: b\n  , c\n", "f.yaml")); // a plain scalar's continuation
  CHECK_NOTHROW(io::check_text("\"apiVersion\": v1\n\"kind\": Pod\n", "f.yaml"));
  CHECK_NOTHROW(io::check_text("{\"apiVersion\": \"v1\", \"items\": [\"a\", \"b\"]}\n", "f.yaml"));
  CHECK_NOTHROW(io::check_text("a: \"x\", y\nb: [1], 2\n", "f.yaml"));
  CHECK_NOTHROW(io::check_text("a: !t x, y\nb: &anchor v\n", "f.yaml"));
  CHECK_NOTHROW(io::check_text("a: [1, 2]\nb: x, y\n---\n[a, b]\n", "f.yaml"));
  CHECK_THROWS_WITH(io::check_text(std::string(10, '[') + std::string(10, ']'), "f.yaml", 8),
                    "f.yaml:1:8: error: nesting is deeper than 8 levels (refused before parsing)");
}

TEST_CASE("text guard: a document yaml-cpp's LoadAll would loop on is refused where it starts", "[io][hostile]")
{
  // Inputs on which yaml-cpp 0.7's LoadAll never returns (it keeps producing empty documents
  // at the same token); check_text refuses these forms too, this is the parser-level guard.
  const std::string message = "a YAML document cannot start with ',' here (the parser would not get past it; expected "
                              "a mapping such as 'apiVersion: ...')";
  CHECK_THROWS_WITH(io::check_yaml_documents(",", "f.yaml"), "f.yaml:1:1: error: " + message);
  CHECK_THROWS_WITH(io::check_yaml_documents("{a: 1}\n,", "f.yaml"), "f.yaml:2:1: error: " + message);
  CHECK_THROWS_WITH(io::check_yaml_documents("[1, 2]\n, 3\n", "f.yaml"), "f.yaml:2:1: error: " + message);
  CHECK_THROWS_AS(io::check_yaml_documents("  : \n,", "f.yaml"), InputError);
  // Well-formed streams, empty documents included, pass; syntax errors are the caller's to report.
  CHECK_NOTHROW(io::check_yaml_documents("", "f.yaml"));
  CHECK_NOTHROW(io::check_yaml_documents("a: 1\n---\nb: 2\n...\n---\n- c\n", "f.yaml"));
  CHECK_NOTHROW(io::check_yaml_documents("---\n---\n---\na: 1\n", "f.yaml"));
  CHECK_NOTHROW(io::check_yaml_documents("{\"kind\": \"List\", \"items\": [{\"a\": 1}]}", "f.yaml"));
  CHECK_NOTHROW(io::check_yaml_documents("a: [1\n", "f.yaml"));
  CHECK_NOTHROW(io::check_yaml_documents("a: 1\n}\n", "f.yaml"));
}
