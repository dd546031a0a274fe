#include "core/report/json.hpp"
#include "core/report/json_text.hpp"
#include "sample.hpp"

#include <catch2/catch.hpp>

#include <clocale>
#include <locale>

using namespace capsim;
using namespace capsim::report;

namespace {

// The text of the InputError thrown by `f`, or "" when none.
template <typename F>
std::string input_error(F&& f)
{
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void check_same(const EngineResult& a, const EngineResult& b)
{
  CHECK(a.engine == b.engine);
  CHECK(a.cost.total_usd == Approx(b.cost.total_usd).margin(5e-7));
  CHECK(a.cost.on_demand_usd == Approx(b.cost.on_demand_usd).margin(5e-7));
  CHECK(a.cost.spot_usd == Approx(b.cost.spot_usd).margin(5e-7));
  CHECK(a.cost.effective_total_usd == Approx(b.cost.effective_total_usd).margin(5e-7));
  REQUIRE(a.cost.by_pool.size() == b.cost.by_pool.size());
  for (const auto& [pool, usd] : a.cost.by_pool) {
    CHECK(b.cost.by_pool.at(pool) == Approx(usd).margin(5e-7));
  }
  CHECK(a.nodes.launched == b.nodes.launched);
  CHECK(a.nodes.terminated == b.nodes.terminated);
  CHECK(a.nodes.peak == b.nodes.peak);
  CHECK(a.nodes.average == Approx(b.nodes.average).margin(5e-5));
  CHECK(a.nodes.final_count == b.nodes.final_count);
  CHECK(a.nodes.node_hours == Approx(b.nodes.node_hours).margin(5e-5));
  CHECK(a.pods.total == b.pods.total);
  CHECK(a.pods.scheduled == b.pods.scheduled);
  CHECK(a.pods.unschedulable == b.pods.unschedulable);
  CHECK(a.pods.evicted == b.pods.evicted);
  CHECK(a.pods.lost == b.pods.lost);
  CHECK(a.pods.pending_p50_s == Approx(b.pods.pending_p50_s).margin(5e-4));
  CHECK(a.pods.pending_p95_s == Approx(b.pods.pending_p95_s).margin(5e-4));
  CHECK(a.pods.pending_max_s == Approx(b.pods.pending_max_s).margin(5e-4));
  CHECK(a.utilization.cpu == Approx(b.utilization.cpu).margin(5e-5));
  CHECK(a.utilization.memory == Approx(b.utilization.memory).margin(5e-5));
  CHECK(a.disruptions.emptiness == b.disruptions.emptiness);
  CHECK(a.disruptions.consolidation_delete == b.disruptions.consolidation_delete);
  CHECK(a.disruptions.consolidation_replace == b.disruptions.consolidation_replace);
  CHECK(a.disruptions.expiration == b.disruptions.expiration);
  CHECK(a.disruptions.drift == b.disruptions.drift);
  CHECK(a.disruptions.spot_interruption == b.disruptions.spot_interruption);
  CHECK(a.disruptions.scale_down == b.disruptions.scale_down);
  CHECK(a.lower_bound.total_usd == Approx(b.lower_bound.total_usd).margin(5e-7));
  CHECK(a.lower_bound.efficiency == Approx(b.lower_bound.efficiency).margin(5e-5));
  REQUIRE(a.final_nodes.size() == b.final_nodes.size());
  for (std::size_t i = 0; i < a.final_nodes.size(); ++i) {
    CHECK(a.final_nodes[i].name == b.final_nodes[i].name);
    CHECK(a.final_nodes[i].instance_type == b.final_nodes[i].instance_type);
    CHECK(a.final_nodes[i].zone == b.final_nodes[i].zone);
    CHECK(a.final_nodes[i].capacity_type == b.final_nodes[i].capacity_type);
    CHECK(a.final_nodes[i].pool == b.final_nodes[i].pool);
    CHECK(a.final_nodes[i].price_per_hour == Approx(b.final_nodes[i].price_per_hour).margin(5e-7));
    CHECK(a.final_nodes[i].pods == b.final_nodes[i].pods);
  }
  CHECK(a.warnings == b.warnings);
  REQUIRE(a.timeline.size() == b.timeline.size());
  for (std::size_t i = 0; i < a.timeline.size(); ++i) {
    CHECK(a.timeline[i].t == b.timeline[i].t);
    CHECK(a.timeline[i].nodes == b.timeline[i].nodes);
    CHECK(a.timeline[i].cost_rate_per_hour == Approx(b.timeline[i].cost_rate_per_hour).margin(5e-7));
    CHECK(a.timeline[i].cost_cumulative == Approx(b.timeline[i].cost_cumulative).margin(5e-7));
    CHECK(a.timeline[i].pending == b.timeline[i].pending);
    CHECK(a.timeline[i].cpu_requested_m == b.timeline[i].cpu_requested_m);
    CHECK(a.timeline[i].cpu_allocatable_m == b.timeline[i].cpu_allocatable_m);
    CHECK(a.timeline[i].memory_requested == b.timeline[i].memory_requested);
    CHECK(a.timeline[i].memory_allocatable == b.timeline[i].memory_allocatable);
    CHECK(a.timeline[i].nodes_by_type == b.timeline[i].nodes_by_type);
  }
  REQUIRE(a.decisions.size() == b.decisions.size());
  for (std::size_t i = 0; i < a.decisions.size(); ++i) {
    CHECK(a.decisions[i].t == b.decisions[i].t);
    CHECK(a.decisions[i].method == b.decisions[i].method);
    CHECK(a.decisions[i].action == b.decisions[i].action);
    CHECK(a.decisions[i].candidate == b.decisions[i].candidate);
    CHECK(a.decisions[i].detail == b.decisions[i].detail);
    CHECK(a.decisions[i].saving_per_hour == Approx(b.decisions[i].saving_per_hour).margin(5e-7));
  }
}

} // namespace

TEST_CASE("json round trip: render, parse back, same values", "[report][json]")
{
  for (const auto& run : {testing::sample_run(), testing::sample_run_with_timeline()}) {
    const std::string text = render_json(run);
    const RunResult back = parse_result_json(text, "result.json");
    CHECK(back.version == run.version);
    CHECK(back.scenario == run.scenario);
    CHECK(back.seed == run.seed);
    CHECK(back.region == run.region);
    CHECK(back.duration == run.duration);
    REQUIRE(back.results.size() == run.results.size());
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      check_same(run.results[i], back.results[i]);
    }
    // Rendering what was read gives the same bytes (values are already rounded).
    CHECK(render_json(back) == text);
  }
}

TEST_CASE("json top-level and result keys come in SPEC order", "[report][json]")
{
  const std::string text = render_json(testing::sample_run());
  const auto doc = json::parse(text, "x");
  std::vector<std::string> top;
  for (const auto& [k, v] : doc.members) {
    top.push_back(k);
  }
  CHECK(top == std::vector<std::string>{"capsim", "scenario", "seed", "region", "duration_s", "results"});
  const auto& r = doc.find("results")->items.at(0);
  std::vector<std::string> keys;
  for (const auto& [k, v] : r.members) {
    keys.push_back(k);
  }
  CHECK(keys == std::vector<std::string>{"engine", "cost", "nodes", "pods", "utilization", "disruptions", "lower_bound",
                                         "final_nodes"});
  std::vector<std::string> pods;
  for (const auto& [k, v] : r.find("pods")->members) {
    pods.push_back(k);
  }
  // SPEC keys first, in SPEC order; extras after.
  CHECK(std::vector<std::string>(pods.begin(), pods.begin() + 7) ==
        std::vector<std::string>{"total", "scheduled", "unschedulable", "evicted", "pending_p50_s", "pending_p95_s",
                                 "pending_max_s"});
}

namespace {

// A C++ locale that writes 1.234.567,5.
struct CommaNumpunct : std::numpunct<char>
{
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

} // namespace

TEST_CASE("json numbers do not depend on the C or C++ locale", "[report][json]")
{
  const std::string before = render_json(testing::sample_run());
  {
    const std::locale saved = std::locale::global(std::locale(std::locale::classic(), new CommaNumpunct));
    const std::string with_comma = render_json(testing::sample_run());
    std::locale::global(saved);
    CHECK(with_comma == before);
  }
  // A locale with a decimal comma, when the machine has one; the C locale otherwise.
  const char* previous = std::setlocale(LC_ALL, nullptr);
  const std::string saved = previous != nullptr ? previous : "C";
  const bool has_comma_locale = std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr;
  const std::string during = render_json(testing::sample_run());
  std::setlocale(LC_ALL, saved.c_str());
  CHECK(before == during);
  CHECK(before.find("\"total_usd\": 1.234568") != std::string::npos);
  if (!has_comma_locale) {
    WARN("de_DE.UTF-8 is not installed; checked under the default locale only");
  }
}

TEST_CASE("json strings are escaped", "[report][json]")
{
  RunResult run = testing::sample_run();
  run.scenario = "a \"quoted\"\\ name\n\x01";
  const std::string text = render_json(run);
  CHECK(text.find(R"("scenario": "a \"quoted\"\\ name\n\u0001")") != std::string::npos);
  CHECK(parse_result_json(text, "x").scenario == run.scenario);
}

TEST_CASE("malformed result files are input errors with a location", "[report][json]")
{
  CHECK(input_error([] { (void)parse_result_json("{\n  \"capsim\": {\"version\": \"0.1.0\"},\n  \"seed\": 4x\n}", "base.json"); })
          .find("base.json:3:12: error:") == 0);
  CHECK(input_error([] { (void)parse_result_json("", "base.json"); }).find("base.json:1:1: error: unexpected end of file") == 0);
  CHECK(input_error([] { (void)parse_result_json("[1, 2]", "b.json"); }).find("b.json:1:1: error: the result is an array") ==
        0);
  CHECK(input_error([] { (void)parse_result_json("{\"a\": 1, \"a\": 2}", "b.json"); }).find("b.json:1:10: error: duplicate key") ==
        0);
  CHECK(input_error([] { (void)parse_result_json("{\"s\": \"abc", "b.json"); }).find("inside a string") != std::string::npos);
  CHECK(input_error([] { (void)parse_result_json(std::string(500, '[') + std::string(500, ']'), "b.json"); })
          .find("nested too deeply") != std::string::npos);
}

TEST_CASE("result files with a missing or mistyped field are refused at that field", "[report][json]")
{
  std::string text = render_json(testing::sample_run());
  SECTION("missing key")
  {
    const auto pos = text.find("\"peak\": 4, ");
    REQUIRE(pos != std::string::npos);
    text.erase(pos, std::string("\"peak\": 4, ").size());
    const auto msg = input_error([&] { (void)parse_result_json(text, "b.json"); });
    CHECK(msg.find("b.json:11:16: error: missing key \"peak\" in results[0].nodes") == 0);
  }
  SECTION("wrong type")
  {
    const auto pos = text.find("\"total_usd\": 1.234568");
    text.replace(pos, std::string("\"total_usd\": 1.234568").size(), "\"total_usd\": \"1.23\"");
    const auto msg = input_error([&] { (void)parse_result_json(text, "b.json"); });
    CHECK(msg.find("b.json:10:29: error: results[0].cost.total_usd is a string (expected a number)") == 0);
  }
  SECTION("fractional count")
  {
    const auto pos = text.find("\"launched\": 5");
    text.replace(pos, std::string("\"launched\": 5").size(), "\"launched\": 5.5");
    CHECK(input_error([&] { (void)parse_result_json(text, "b.json"); }).find("results[0].nodes.launched must be a whole number") !=
          std::string::npos);
  }
  SECTION("a compare result is not a baseline")
  {
    const auto cmp_text = render_json(testing::sample_comparison());
    CHECK(input_error([&] { (void)parse_result_json(cmp_text, "b.json"); }).find("capsim compare result") != std::string::npos);
  }
  SECTION("an engine capsim does not have")
  {
    const auto pos = text.find("\"engine\": \"karpenter\"");
    text.replace(pos, std::string("\"engine\": \"karpenter\"").size(), "\"engine\": \"kapenter\"");
    const auto msg = input_error([&] { (void)parse_result_json(text, "b.json"); });
    CAPTURE(msg);
    CHECK(msg.find("b.json:9:17: error: results[0].engine is 'kapenter' (expected karpenter or cluster-autoscaler)")
          == 0);
  }
  SECTION("a negative cost")
  {
    const auto pos = text.find("\"total_usd\": 1.234568");
    text.replace(pos, std::string("\"total_usd\": 1.234568").size(), "\"total_usd\": -1e300");
    CHECK(input_error([&] { (void)parse_result_json(text, "b.json"); })
              .find("b.json:10:29: error: results[0].cost.total_usd is negative (expected a number >= 0)")
          == 0);
  }
  SECTION("no engine, or one engine twice")
  {
    auto run = testing::sample_run();
    run.results.clear();
    CHECK(input_error([&] { (void)parse_result_json(render_json(run), "b.json"); })
              .find("error: the result's results list no engine")
          != std::string::npos);
    run = testing::sample_run();
    run.results.push_back(run.results.front());
    const auto msg = input_error([&] { (void)parse_result_json(render_json(run), "b.json"); });
    CAPTURE(msg);
    CHECK(msg.find("error: results[2].engine: karpenter is listed twice (also in results[0])") != std::string::npos);
  }
  SECTION("unknown extra keys are accepted")
  {
    const auto pos = text.find("\"engine\": \"karpenter\",");
    text.insert(pos, "\"future_field\": {\"x\": [1, 2]}, ");
    CHECK(parse_result_json(text, "b.json").results.at(0).engine == "karpenter");
  }
}

TEST_CASE("json text parser: values, escapes and positions", "[report][json]")
{
  const auto v = json::parse(" {\"a\": [true, false, null, -1.5e2, \"\\u00e9\\ud83d\\ude00\\/\"],\n \"b\": {}}", "x");
  REQUIRE(v.type == json::Value::Type::object);
  const auto* a = v.find("a");
  REQUIRE(a != nullptr);
  REQUIRE(a->items.size() == 5);
  CHECK(a->items[0].boolean);
  CHECK(a->items[1].type == json::Value::Type::boolean);
  CHECK(a->items[2].type == json::Value::Type::null);
  CHECK(a->items[3].number() == -150.0);
  CHECK(a->items[3].integer() == -150);
  CHECK(a->items[4].text == "\xc3\xa9\xf0\x9f\x98\x80/");
  CHECK(v.find("b")->line == 2);
  CHECK(v.find("b")->column == 7);
  CHECK(json::parse("18446744073709551615", "x").unsigned_integer() == 18446744073709551615ULL);
  CHECK_FALSE(json::parse("1.5", "x").integer().has_value());
  CHECK(input_error([] { (void)json::parse("01", "x"); }).find("leading zeros") != std::string::npos);
  CHECK(input_error([] { (void)json::parse("\"\\ud800\"", "x"); }).find("surrogate") != std::string::npos);
  CHECK(input_error([] { (void)json::parse("{} x", "x"); }).find("x:1:4: error: unexpected text") == 0);
}
