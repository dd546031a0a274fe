#include "core/sweep/render.hpp"
#include "core/sweep/shard.hpp"
#include "fake.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace capsim;
using namespace capsim::sweep;
using capsim::sweep::testing::fake_load;
using capsim::sweep::testing::fake_options;

namespace {

SweepSpec sample_spec(std::size_t seeds)
{
  SweepSpec spec;
  spec.scenario_file = "fake.yaml";
  spec.sets = {"Scenario.spec.duration=2h"};
  spec.axes = {parse_axis("NodePool/default.spec.disruption.consolidateAfter=0s,5m,30m"),
               parse_axis("arch:NodePool/default.spec.template.spec.requirements[0].values=[amd64],[arm64, amd64]")};
  name_axes(spec.axes);
  spec.seeds = seeds;
  return spec;
}

std::vector<Variant> variants_of(const SweepSpec& spec)
{
  return grid_variants(spec.scenario_file, spec.axes, spec.sets);
}

SweepReport local_report(const SweepSpec& spec, unsigned jobs)
{
  return build_report("test", spec, run_shard(spec, variants_of(spec), Shard{0, 1}, fake_options(jobs), fake_load));
}

// Every shard of N run separately, written to JSON text and read back, as a cluster would.
std::vector<ShardResult> run_shards(const SweepSpec& spec, std::size_t n, std::vector<std::string>& sources)
{
  std::vector<ShardResult> out;
  for (std::size_t i = 0; i < n; ++i) {
    const Shard shard{i, n};
    ShardResult s{"test", spec, shard, run_shard(spec, variants_of(spec), shard, fake_options(2), fake_load)};
    const std::string name = "shard-" + std::to_string(i) + ".json";
    out.push_back(parse_shard_json(render_shard_json(s), name));
    sources.push_back(name);
  }
  return out;
}

const std::vector<report::Format> k_formats = {report::Format::table, report::Format::json, report::Format::csv,
                                               report::Format::markdown, report::Format::html};

std::string merge_error(const std::vector<ShardResult>& shards, const std::vector<std::string>& sources)
{
  try {
    (void)merge_shards(shards, sources);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("a local sweep equals the merge of its shards, byte for byte, for any N", "[sweep][shard][merge]")
{
  const SweepSpec spec = sample_spec(3); // 6 variants x 3 seeds = 18 cells
  REQUIRE(spec.cell_count() == 18);
  const SweepReport local = local_report(spec, 1);
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{5}, std::size_t{18},
                              std::size_t{25}}) {
    INFO("shards: " << n);
    std::vector<std::string> sources;
    std::vector<ShardResult> shards = run_shards(spec, n, sources);
    // Every cell ran in exactly one shard.
    std::size_t cells = 0;
    for (const auto& s : shards) {
      cells += s.cells.size();
      for (const auto& c : s.cells) {
        CHECK(c.cell % n == s.shard.index);
      }
    }
    CHECK(cells == 18);
    // Shards merge in any order.
    std::reverse(shards.begin(), shards.end());
    std::reverse(sources.begin(), sources.end());
    const SweepReport merged = merge_shards(shards, sources);
    for (const auto format : k_formats) {
      INFO("format: " << report::format_name(format));
      CHECK(render(merged, format) == render(local, format));
    }
  }
}

TEST_CASE("results are identical whatever the thread count", "[sweep][runner]")
{
  const SweepSpec spec = sample_spec(4);
  const std::string one = render_json(local_report(spec, 1));
  CHECK(render_json(local_report(spec, 4)) == one);
  CHECK(render_json(local_report(spec, 3)) == one);
  CHECK(render_json(local_report(spec, 64)) == one); // more threads than cells
  // Shards too.
  const Shard shard{1, 3};
  const auto a = run_shard(spec, variants_of(spec), shard, fake_options(1), fake_load);
  const auto b = run_shard(spec, variants_of(spec), shard, fake_options(4), fake_load);
  CHECK(render_shard_json({"test", spec, shard, a}) == render_shard_json({"test", spec, shard, b}));
}

TEST_CASE("run_shard seeds each variant from spec.seed or --seed", "[sweep][runner]")
{
  SweepSpec spec = sample_spec(3);
  auto cells = run_shard(spec, variants_of(spec), Shard{0, 1}, fake_options(2), fake_load);
  REQUIRE(cells.size() == 18);
  CHECK(cells[0].seed == 40); // fake scenarios have spec.seed 40
  CHECK(cells[1].seed == 41);
  CHECK(cells[2].seed == 42);
  CHECK(cells[3].seed == 40);
  CHECK(cells[3].variant == 1);
  CHECK(cells[17].variant == 5);
  spec.seed = 7;
  cells = run_shard(spec, variants_of(spec), Shard{1, 2}, fake_options(2), fake_load);
  REQUIRE(cells.size() == 9);
  CHECK(cells[0].cell == 1);
  CHECK(cells[0].seed == 8);
  CHECK(cells[1].cell == 3);
  CHECK(cells[1].seed == 7);
}

TEST_CASE("a shard file round-trips to the bit", "[sweep][shard]")
{
  const SweepSpec spec = sample_spec(2);
  const ShardResult s{"test", spec, Shard{1, 4}, run_shard(spec, variants_of(spec), Shard{1, 4}, fake_options(2), fake_load)};
  const std::string text = render_shard_json(s);
  const ShardResult back = parse_shard_json(text, "s.json");
  CHECK(render_shard_json(back) == text);
  REQUIRE(back.cells.size() == s.cells.size());
  for (std::size_t i = 0; i < s.cells.size(); ++i) {
    REQUIRE(back.cells[i].engines.size() == s.cells[i].engines.size());
    for (std::size_t e = 0; e < s.cells[i].engines.size(); ++e) {
      CHECK(back.cells[i].engines[e].total_usd == s.cells[i].engines[e].total_usd); // exact
      CHECK(back.cells[i].engines[e].pending_p95_s == s.cells[i].engines[e].pending_p95_s);
      CHECK(back.cells[i].engines[e].node_hours == s.cells[i].engines[e].node_hours);
    }
  }
  // Rounded as the JSON writes them.
  CHECK(s.cells[0].engines[0].cpu_utilization == 0.6667);
  CHECK(s.cells[0].engines[0].pending_p50_s == 0.333);
  CHECK(s.cells[0].duration_s == 7200.001);
  CHECK_THAT(text, Catch::Contains("\"kind\": \"capsim-sweep-shard\""));
  CHECK_THAT(text, Catch::Contains("\"shard\": {\"index\": 1, \"count\": 4}"));
}

TEST_CASE("merge refuses shards that do not make one whole sweep", "[sweep][merge]")
{
  const SweepSpec spec = sample_spec(2);
  std::vector<std::string> sources;
  const auto shards = run_shards(spec, 3, sources);

  SECTION("a missing shard")
  {
    CHECK_THAT(merge_error({shards[0], shards[2]}, {sources[0], sources[2]}),
               Catch::Contains("missing shard 1 of 3"));
  }
  SECTION("a shard given twice")
  {
    CHECK_THAT(merge_error({shards[0], shards[1], shards[1], shards[2]}, {"a", "b", "c", "d"}),
               Catch::Contains("c: error: shard 1/3 is also in b"));
  }
  SECTION("a shard of another sweep")
  {
    ShardResult other = shards[1];
    other.spec.seeds = 3;
    CHECK_THAT(merge_error({shards[0], other, shards[2]}, sources), Catch::Contains("belongs to a different sweep"));
    other = shards[1];
    other.spec.axes[0].values[1] = "10m";
    CHECK_THAT(merge_error({shards[0], other, shards[2]}, sources), Catch::Contains("belongs to a different sweep"));
  }
  SECTION("shards of different splits")
  {
    std::vector<std::string> more;
    const auto four = run_shards(spec, 4, more);
    CHECK_THAT(merge_error({shards[0], four[1]}, {"a", "b"}), Catch::Contains("one of 4 but a is one of 3"));
  }
  SECTION("another capsim version")
  {
    ShardResult other = shards[2];
    other.version = "9.9.9";
    CHECK_THAT(merge_error({shards[0], shards[1], other}, sources), Catch::Contains("made by capsim 9.9.9"));
  }
  SECTION("an incomplete file")
  {
    ShardResult cut = shards[1];
    cut.cells.pop_back();
    CHECK_THAT(merge_error({shards[0], cut, shards[2]}, sources),
               Catch::Contains("shard-1.json: error: cell 10 is missing from this shard"));
  }
  SECTION("nothing to merge")
  {
    CHECK_THAT(merge_error({}, {}), Catch::Contains("no shard files given"));
  }
}

TEST_CASE("parse_shard_json locates bad input", "[sweep][shard]")
{
  const SweepSpec spec = sample_spec(2);
  const ShardResult s{"test", spec, Shard{0, 2}, run_shard(spec, variants_of(spec), Shard{0, 2}, fake_options(1), fake_load)};
  const std::string good = render_shard_json(s);
  const auto error = [](const std::string& text) {
    try {
      (void)parse_shard_json(text, "x.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error(good) == "no error");
  CHECK_THAT(error("[1, 2]"), Catch::Contains("x.json:1:1: error: expected a `capsim sweep --shard` JSON object"));
  CHECK_THAT(error("{\"capsim\": {\"version\": \"0.1.0\"}, \"kind\": \"capsim-sweep\"}"),
             Catch::Contains("\"kind\" must be \"capsim-sweep-shard\""));
  // A cell of the other shard.
  std::string wrong = good;
  const auto at = wrong.find("{\"cell\": 2,");
  REQUIRE(at != std::string::npos);
  wrong.replace(at, 11, "{\"cell\": 3,");
  CHECK_THAT(error(wrong), Catch::Contains("cell 3 does not belong to shard 0/2"));
  // A number where a string belongs, located at its line.
  std::string typed = good;
  typed.replace(typed.find("\"engine\": \"karpenter\""), 21, "\"engine\": 7");
  CHECK_THAT(error(typed), Catch::Matches(".*x\\.json:[0-9]+:[0-9]+: error: \"engine\" must be a string, not a number.*"));
  // Truncated JSON.
  CHECK_THAT(error(good.substr(0, good.size() / 2)), Catch::Contains("x.json:"));
}

TEST_CASE("the runner reports the error of the lowest failing cell whatever the thread count", "[sweep][runner]")
{
  std::vector<model::Scenario> scenarios(1);
  scenarios[0].settings.seed = 1;
  std::vector<Cell> cells;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    cells.push_back(Cell{0, seed});
  }
  for (const unsigned jobs : {1U, 2U, 4U, 8U}) {
    RunnerOptions o = fake_options(jobs);
    o.run = [](const model::Scenario& s, const sim::RunOptions& ro) {
      if (*ro.seed == 13 || *ro.seed == 29 || *ro.seed == 31) {
        throw InputError(SourceLocation{"cell", 0, 0}, "seed " + std::to_string(*ro.seed) + " failed");
      }
      return capsim::sweep::testing::fake_run(s, ro);
    };
    INFO("jobs " << jobs);
    CHECK_THROWS_WITH(run_cells(scenarios, cells, o), Catch::Contains("seed 13 failed"));
  }
}

TEST_CASE("run_cells stores each result at its index and reports progress up to 1", "[sweep][runner]")
{
  std::vector<model::Scenario> scenarios(2);
  scenarios[0].settings.catalog = "a";
  scenarios[1].settings.catalog = "b";
  const auto cells = seed_cells({10, 20}, 3);
  REQUIRE(cells.size() == 6);
  CHECK(cells[4].scenario == 1);
  CHECK(cells[4].seed == 21);
  RunnerOptions o = fake_options(3);
  double last = 0;
  int calls = 0;
  o.progress = [&](double f) {
    CHECK(f >= last); // never goes back
    last = f;
    ++calls;
  };
  const auto runs = run_cells(scenarios, cells, o);
  REQUIRE(runs.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(runs[i].seed == cells[i].seed);
  }
  CHECK(calls >= 6);
  CHECK(last == Approx(1.0));
}
