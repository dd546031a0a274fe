#include "core/sweep/render.hpp"
#include "core/sweep/shard.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::sweep;

namespace {

// Two variants x three seeds, one engine, with hand-picked numbers:
//   variant 0 (consolidateAfter=0s): cost 10, 12, 14   p95 30, 30, 30  -> cheapest, slow
//   variant 1 (consolidateAfter=5m): cost 20, 20, 20   p95 10, 12, 14  -> dearer, fast
// plus a third variant that both others beat: cost 30, p95 40.
SweepReport sample_report()
{
  SweepSpec spec;
  spec.scenario_file = "web.yaml";
  spec.axes = {parse_axis("NodePool/default.spec.disruption.consolidateAfter=0s,5m,1h")};
  name_axes(spec.axes);
  spec.seeds = 3;
  const double cost[3][3] = {{10, 12, 14}, {20, 20, 20}, {30, 30, 30}};
  const double p95[3][3] = {{30, 30, 30}, {10, 12, 14}, {40, 40, 40}};
  std::vector<CellResult> cells;
  for (std::size_t v = 0; v < 3; ++v) {
    for (std::size_t k = 0; k < 3; ++k) {
      CellResult c;
      c.cell = v * 3 + k;
      c.variant = v;
      c.seed = 42 + k;
      c.scenario = "web";
      c.region = "us-east-1";
      c.duration_s = 3600;
      EngineMetrics m;
      m.engine = "karpenter";
      m.total_usd = cost[v][k];
      m.node_hours = 5.0 + static_cast<double>(k);
      m.pending_p95_s = p95[v][k];
      m.unschedulable = static_cast<std::int64_t>(k);
      m.spot_interruptions = v == 2 ? 1 : 0;
      c.engines.push_back(m);
      cells.push_back(c);
    }
  }
  return build_report("0.1.0", spec, cells);
}

} // namespace

TEST_CASE("build_report: statistics per variant and engine, Pareto flags", "[sweep][report]")
{
  const SweepReport r = sample_report();
  REQUIRE(r.variants.size() == 3);
  REQUIRE(r.summary.size() == 3);
  const auto& s0 = r.summary[0];
  CHECK(s0.variant == 0);
  CHECK(s0.engine == "karpenter");
  CHECK(s0.total_usd.n == 3);
  CHECK(s0.total_usd.mean == 12.0);
  CHECK(*s0.total_usd.half_width == Approx(4.9682754237).epsilon(1e-9));
  CHECK(s0.node_hours.mean == 6.0);
  CHECK(s0.unschedulable.mean == 1.0);
  CHECK(r.summary[1].pending_p95_s.mean == 12.0);
  CHECK(*r.summary[1].total_usd.half_width == 0.0);
  CHECK(s0.pareto);
  CHECK(r.summary[1].pareto);
  CHECK_FALSE(r.summary[2].pareto);
}

TEST_CASE("sweep table: mean ± half-width, Pareto marks, legend", "[sweep][report][table]")
{
  const std::string t = render_table(sample_report());
  CHECK_THAT(t, Catch::StartsWith("capsim sweep: web (web.yaml)\n3 variants × 3 seeds = 9 runs; seeds 42..44\n"
                                  "mean ± half-width of the 95% confidence interval over the seeds (Student t, 2 "
                                  "degrees of freedom)\n\n"));
  CHECK_THAT(t, Catch::Contains("#  consolidateAfter  engine"));
  CHECK_THAT(t, Catch::Contains("$12.00 ± $4.97"));
  CHECK_THAT(t, Catch::Contains("$20.00 ± $0.00"));
  CHECK_THAT(t, Catch::Contains("12s ± 5s")); // p95 of variant 1: 12 ± t(0.975, 2) * 2 / sqrt(3) = 4.97 s
  CHECK_THAT(t, Catch::Contains("* = Pareto front"));
}

TEST_CASE("sweep CSV: one row per variant and engine with exact numbers", "[sweep][report][csv]")
{
  const std::string csv = render_csv(sample_report());
  const std::string header =
    "variant,name,vary:consolidateAfter,engine,runs,total_usd_mean,total_usd_stddev,total_usd_ci95_low,"
    "total_usd_ci95_high,node_hours_mean,node_hours_stddev,node_hours_ci95_low,node_hours_ci95_high,pending_p95_s_mean,"
    "pending_p95_s_stddev,pending_p95_s_ci95_low,pending_p95_s_ci95_high,unschedulable_mean,unschedulable_stddev,"
    "unschedulable_ci95_low,unschedulable_ci95_high,spot_interruptions_mean,spot_interruptions_stddev,"
    "spot_interruptions_ci95_low,spot_interruptions_ci95_high,pareto\n";
  CHECK_THAT(csv, Catch::StartsWith(header));
  // 12 ± 4.968275 (t(0.975, 2) * 2 / sqrt(3)); node-hours 6 ± 2.4841 (sd 1); p95 30 ± 0.
  CHECK_THAT(csv, Catch::Contains("\n0,consolidateAfter=0s,0s,karpenter,3,12,2,7.031725,16.968275,6,1,3.5159,8.4841,30,0,30,30,"
                                  "1,1,-1.4841,3.4841,0,0,0,0,true\n"));
  CHECK_THAT(csv, Catch::Contains("\n2,consolidateAfter=1h,1h,karpenter,3,30,0,30,30,"));
  CHECK_THAT(csv, Catch::EndsWith(",false\n"));
}

TEST_CASE("sweep JSON: spec, variants, summary and cells", "[sweep][report][json]")
{
  const std::string j = render_json(sample_report());
  CHECK_THAT(j, Catch::StartsWith("{\n  \"capsim\": {\"version\": \"0.1.0\"},\n  \"kind\": \"capsim-sweep\",\n"));
  CHECK_THAT(j, Catch::Contains("{\"variant\": 1, \"name\": \"consolidateAfter=5m\", \"values\": {\"consolidateAfter\": \"5m\"}, "
                                "\"sets\": [\"NodePool/default.spec.disruption.consolidateAfter=5m\"]}"));
  CHECK_THAT(j, Catch::Contains("{\"variant\": 0, \"name\": \"consolidateAfter=0s\", \"engine\": \"karpenter\", \"runs\": 3, "
                                "\"pareto\": true, \"total_usd\": {\"mean\": 12, \"stddev\": 2, \"ci95_low\": 7.031725, "
                                "\"ci95_high\": 16.968275}"));
  CHECK_THAT(j, Catch::Contains("\"pareto\": false"));
  CHECK_THAT(j, Catch::Contains("{\"cell\": 8, \"variant\": 2, \"seed\": 44,"));
}

TEST_CASE("sweep JSON with one seed has no interval", "[sweep][report][json]")
{
  SweepSpec spec;
  spec.scenario_file = "s.yaml";
  CellResult c;
  c.scenario = "s";
  c.seed = 9;
  EngineMetrics m;
  m.engine = "cluster-autoscaler";
  m.total_usd = 1.5;
  c.engines.push_back(m);
  const SweepReport r = build_report("0.1.0", spec, {c});
  CHECK_THAT(render_json(r), Catch::Contains("\"total_usd\": {\"mean\": 1.5, \"stddev\": 0, \"ci95_low\": null, \"ci95_high\": null}"));
  CHECK_THAT(render_table(r), Catch::Contains("1 variant × 1 seed = 1 run; seed 9\none seed per variant"));
  CHECK_THAT(render_csv(r), Catch::Contains("\n0,base,cluster-autoscaler,1,1.5,0,,,"));
}

TEST_CASE("sweep HTML: a self-contained page with the Pareto scatter chart", "[sweep][report][html]")
{
  const std::string h = render_html(sample_report());
  CHECK_THAT(h, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(h, Catch::Contains("<svg id=\"chart-pareto\""));
  CHECK_THAT(h, Catch::Contains("<table id=\"summary\">"));
  // Two highlighted points, one plain, and the front as a staircase through the two.
  std::size_t pareto = 0;
  for (auto at = h.find("class=\"point pareto\""); at != std::string::npos; at = h.find("class=\"point pareto\"", at + 1)) {
    ++pareto;
  }
  CHECK(pareto == 2);
  CHECK_THAT(h, Catch::Contains("<g class=\"point\" data-variant=\"2\""));
  CHECK_THAT(h, Catch::Contains("<polyline class=\"front\""));
  CHECK_THAT(h, Catch::Contains("<tr class=\"pareto\">"));
  // Self-contained: no scripts, links or external references.
  CHECK(h.find("<script") == std::string::npos);
  CHECK(h.find("href=") == std::string::npos);
  CHECK(h.find("src=") == std::string::npos);
  CHECK(h.find("http") == std::string::npos);
}

TEST_CASE("renderers are pure functions of the report", "[sweep][report]")
{
  for (const auto format : {report::Format::table, report::Format::json, report::Format::csv, report::Format::markdown,
                            report::Format::html}) {
    CHECK(render(sample_report(), format) == render(sample_report(), format));
  }
  CHECK_THAT(render_markdown(sample_report()), Catch::Contains("| # | consolidateAfter | engine | cost |"));
}
