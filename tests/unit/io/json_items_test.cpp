// io/json_items: the scans that let a kubectl List be parsed one item at a time.
#include "core/io/json_items.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace capsim;

TEST_CASE("json items: a List's items and where they are", "[io][json]")
{
  const std::string text = "{\"apiVersion\": \"v1\",\n \"items\": [{\"a\": 1},\n  {\"b\": [true, null, -1.5e3]}],\n"
                           " \"kind\": \"List\"}";
  const auto list = io::scan_json_items(text);
  REQUIRE(list);
  CHECK(list->kind == "List");
  CHECK(list->items_line == 1);
  CHECK(list->items_column == 10);
  REQUIRE(list->items.size() == 2);
  CHECK(text.substr(list->items[0].begin, list->items[0].end - list->items[0].begin) == "{\"a\": 1}");
  CHECK(list->items[1].line == 2);
  CHECK(list->items[1].column == 2);
  CHECK(text.substr(list->items[1].begin, list->items[1].end - list->items[1].begin)
        == "{\"b\": [true, null, -1.5e3]}");
}

TEST_CASE("json items: anything but strict JSON is left to the YAML parser", "[io][json]")
{
  // An alias in one item to an anchor in another would not parse item by item.
  CHECK_FALSE(io::scan_json_items("{\"items\": [{\"a\": &x 1}, {\"b\": *x}]}"));
  CHECK_FALSE(io::scan_json_items("{\"items\": [{a: 1}]}"));          // a plain key
  CHECK_FALSE(io::scan_json_items("{\"items\": [{\"a\": yes}]}"));    // a plain word
  CHECK_FALSE(io::scan_json_items("{\"items\": [{\"a\": 1} # c\n]}")); // a comment
  CHECK_FALSE(io::scan_json_items("{\"items\": [{\"a\": 1}], \"items\": []}"));
  CHECK_FALSE(io::scan_json_items("{\"kind\": \"Pod\", \"items\": []}")); // a single Pod
  CHECK_FALSE(io::scan_json_items("items: []"));
  CHECK(io::scan_json_items("{\"items\": [{\"a\": [1, 2.5, \"x\\\"y\"]}]}"));
}

TEST_CASE("json items: an object's header, or nothing when any of it is unusual", "[io][json]")
{
  const std::string pod = "{\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n \"metadata\": {\"labels\": {\"name\": \"x\"},\n"
                          "  \"namespace\": \"web\", \"name\": \"web-1\"}, \"spec\": {}}";
  const auto h = io::scan_object_header(pod);
  REQUIRE(h);
  CHECK(h->kind == "Pod");
  CHECK(h->api_version == "v1");
  CHECK(h->metadata);
  CHECK(h->name == "web-1");
  CHECK(h->namespace_ == "web");
  CHECK(h->name_line == 2);
  CHECK(h->name_column == 30);
  const auto without = io::scan_object_header("{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"}}");
  REQUIRE(without);
  CHECK_FALSE(without->namespace_);
  CHECK(without->api_version.empty());
  CHECK_FALSE(io::scan_object_header("{\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\\u0062\"}}")); // an escape
  CHECK_FALSE(io::scan_object_header("{\"kind\": \"Pod\", \"metadata\": {\"name\": 5}}"));          // not a string
  CHECK_FALSE(io::scan_object_header("{\"kind\": \"Pod\", \"kind\": \"Node\"}"));                    // twice
  CHECK_FALSE(io::scan_object_header("{\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\", \"name\": \"b\"}}"));
  CHECK_FALSE(io::scan_object_header("{\"kind\": \"Pod\", \"metadata\": []}"));
  CHECK_FALSE(io::scan_object_header("{\"ki\\nd\": \"Pod\"}"));
  CHECK_FALSE(io::scan_object_header("{\"kind\": \"Pod\"} x"));
}
