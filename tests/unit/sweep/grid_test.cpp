#include "core/base/diagnostics.hpp"
#include "core/sweep/grid.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::sweep;

using Strings = std::vector<std::string>;

TEST_CASE("parse_axis: path, values and the default name", "[sweep][grid]")
{
  const Axis a = parse_axis("NodePool/default.spec.disruption.consolidateAfter=0s,5m,30m");
  CHECK(a.path == "NodePool/default.spec.disruption.consolidateAfter");
  CHECK(a.name == "consolidateAfter");
  CHECK_FALSE(a.named);
  CHECK(a.values == Strings{"0s", "5m", "30m"});

  // List indices are skipped for the name; bracketed keys count.
  CHECK(parse_axis("NodePool/default.spec.template.spec.requirements[0].values=[a]").name == "values");
  CHECK(parse_axis("NodePool/default.spec.limits[cpu]=100,200").name == "cpu");
  CHECK(parse_axis("Scenario.spec.seed=1,2").name == "seed");
  CHECK(parse_axis("Deployment/web.spec.replicas=1").values == Strings{"1"});
}

TEST_CASE("parse_axis: commas inside brackets, braces and quotes do not split", "[sweep][grid]")
{
  const Axis a = parse_axis("arch:NodePool/default.spec.template.spec.requirements[0].values=[amd64],[arm64],[amd64, arm64]");
  CHECK(a.named);
  CHECK(a.name == "arch");
  CHECK(a.path == "NodePool/default.spec.template.spec.requirements[0].values");
  CHECK(a.values == Strings{"[amd64]", "[arm64]", "[amd64, arm64]"});

  const Axis b = parse_axis(R"(x.y="a,b",'c''d,e',{k: 1, j: [2, 3]}, spaced )");
  CHECK(b.values == Strings{R"("a,b")", "'c''d,e'", "{k: 1, j: [2, 3]}", "spaced"});

  // An empty value means null: the field's default.
  const Axis c = parse_axis("NodePool/default.spec.disruption.consolidateAfter=,5m");
  CHECK(c.values == Strings{"", "5m"});
  CHECK(value_label(c.values[0]) == "(default)");
  CHECK(value_label(c.values[1]) == "5m");
}

TEST_CASE("parse_axis: bad input is an InputError naming the --vary", "[sweep][grid]")
{
  const auto message = [](const std::string& text) {
    try {
      (void)parse_axis(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("Scenario.spec.seed"), Catch::Contains("--vary Scenario.spec.seed: error: expected [NAME:]PATH=V1,V2"));
  CHECK_THAT(message("=1,2"), Catch::Contains("path before '=' is empty"));
  CHECK_THAT(message("p=[a,b"), Catch::Contains("unbalanced"));
  CHECK_THAT(message("p=a]"), Catch::Contains("unbalanced ']'"));
  CHECK_THAT(message("p=\"a,b"), Catch::Contains("unterminated \" quote"));
  CHECK_THAT(message("p=a,b,a"), Catch::Contains("the value 'a' is given twice"));
}

TEST_CASE("name_axes: unique names, no field varied twice", "[sweep][grid]")
{
  std::vector<Axis> axes = {parse_axis("NodePool/a.spec.template.spec.requirements[0].values=[x],[y]"),
                            parse_axis("NodePool/b.spec.template.spec.requirements[0].values=[x],[y]"),
                            parse_axis("Scenario.spec.seed=1,2")};
  name_axes(axes);
  CHECK(axes[0].name == "NodePool/a.spec.template.spec.requirements[0].values");
  CHECK(axes[1].name == "NodePool/b.spec.template.spec.requirements[0].values");
  CHECK(axes[2].name == "seed");

  std::vector<Axis> twice = {parse_axis("Scenario.spec.seed=1,2"), parse_axis("s:Scenario.spec.seed=3")};
  CHECK_THROWS_AS(name_axes(twice), InputError);
  std::vector<Axis> same_name = {parse_axis("n:Scenario.spec.seed=1,2"), parse_axis("n:Scenario.spec.duration=1h")};
  CHECK_THROWS_AS(name_axes(same_name), InputError);
  // An explicit name keeps priority; the colliding default name becomes the path.
  std::vector<Axis> mixed = {parse_axis("seed:Scenario.spec.duration=1h,2h"), parse_axis("Scenario.spec.seed=1,2")};
  name_axes(mixed);
  CHECK(mixed[0].name == "seed");
  CHECK(mixed[1].name == "Scenario.spec.seed");
}

TEST_CASE("grid_variants: cartesian product in odometer order, first axis slowest", "[sweep][grid]")
{
  std::vector<Axis> axes = {parse_axis("a:A.x=1,2"), parse_axis("b:B.y=x,y,z")};
  name_axes(axes);
  const auto v = grid_variants("s.yaml", axes, {"Scenario.spec.duration=1h"});
  REQUIRE(v.size() == 6);
  CHECK(v[0].name == "a=1, b=x");
  CHECK(v[1].name == "a=1, b=y");
  CHECK(v[2].name == "a=1, b=z");
  CHECK(v[3].name == "a=2, b=x");
  CHECK(v[5].name == "a=2, b=z");
  CHECK(v[4].choice == std::vector<std::size_t>{1, 1});
  CHECK(v[4].path == "s.yaml");
  // The global --set first, then one per axis in axis order.
  CHECK(v[4].sets == Strings{"Scenario.spec.duration=1h", "A.x=2", "B.y=y"});

  const auto base = grid_variants("s.yaml", {}, {});
  REQUIRE(base.size() == 1);
  CHECK(base[0].name == "base");
  CHECK(base[0].sets.empty());

  std::vector<Axis> with_default = {parse_axis("P.q=,5m")};
  const auto d = grid_variants("s.yaml", with_default, {});
  CHECK(d[0].name == "q=(default)");
  CHECK(d[0].sets == Strings{"P.q="});
}

TEST_CASE("variant_count refuses absurd grids", "[sweep][grid]")
{
  std::vector<Axis> axes;
  for (int i = 0; i < 7; ++i) {
    Axis a;
    a.path = "P.f" + std::to_string(i);
    a.values = {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"};
    axes.push_back(a);
  }
  CHECK_THROWS_AS(variant_count(axes, 1), InputError); // 10^7 variants
  axes.resize(3);
  CHECK(variant_count(axes, 1) == 1000);
  CHECK(variant_count(axes, 1000) == 1000);
  CHECK_THROWS_AS(variant_count(axes, 1001), InputError);
}

TEST_CASE("parse_shard and in_shard", "[sweep][grid][shard]")
{
  const Shard s = parse_shard("1/4");
  CHECK(s.index == 1);
  CHECK(s.count == 4);
  CHECK(in_shard(1, s));
  CHECK(in_shard(5, s));
  CHECK_FALSE(in_shard(4, s));
  CHECK(parse_shard("0/1").count == 1);
  for (const char* bad : {"4/4", "0/0", "a/2", "1", "-1/2", "1/", "/2", "1/2/3", "$(JOB_COMPLETION_INDEX)/4"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_shard(bad), InputError);
  }
}
