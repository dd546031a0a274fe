#include "core/report/render.hpp"
#include "sample.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace capsim;
using namespace capsim::report;

namespace {

std::size_t count(const std::string& text, const std::string& what)
{
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) {
    ++n;
  }
  return n;
}

const std::array<const char*, 6> k_chart_ids = {"chart-nodes",   "chart-cost-rate",   "chart-cost-cumulative",
                                                "chart-pending", "chart-utilization", "chart-instance-mix"};

} // namespace

TEST_CASE("html: every chart and the summary table, one polyline per series", "[report][html]")
{
  const std::string html = render(testing::sample_run_with_timeline(), Format::html, {});
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* id : k_chart_ids) {
    CHECK(count(html, std::string("<svg id=\"") + id + "\"") == 1);
  }
  CHECK(count(html, "<table id=\"summary\">") == 1);
  // nodes, cost rate, cumulative, pending: 2 engines each; utilization: cpu + memory per engine.
  CHECK(count(html, "<polyline class=\"series\"") == 4 * 2 + 4);
  // Instance mix: karpenter has m5.large and t3.medium, CAS m5.xlarge and t3.medium.
  CHECK(count(html, "<rect class=\"mix\"") == 4);
  CHECK(html.find("Decisions: karpenter (2)") != std::string::npos);
  CHECK(html.find("Final nodes: cluster-autoscaler (1)") != std::string::npos);
  // Karpenter's nodes (2, 3, 4, 2, 3 every 30 min, y axis 0..4 over 190 px from y=30, x over
  // 656 px from x=70) as a step chart: each value held until the next sample.
  CHECK(html.find("points=\"70,125 234,125 234,77.5 398,77.5 398,30 562,30 562,125 726,125 726,77.5\"") !=
        std::string::npos);
}

TEST_CASE("html: self-contained, nothing loaded from elsewhere", "[report][html]")
{
  const std::string html = render(testing::sample_run_with_timeline(), Format::html, {});
  for (const char* banned : {"<script", "<link", "<iframe", "<img", "@import", "url(", "http://", "https://", "src=",
                             "href="}) {
    INFO(banned);
    CHECK(html.find(banned) == std::string::npos);
  }
}

TEST_CASE("html: all text is escaped", "[report][html]")
{
  RunResult run = testing::sample_run_with_timeline();
  run.scenario = "<script>alert('x')</script>";
  run.results[0].final_nodes[0].name = "node\"><img src=x>";
  run.results[0].timeline[0].nodes_by_type["<b>evil</b>"] = 1;
  run.results[0].decisions[0].detail = "a & b";
  const std::string html = render(run, Format::html, {});
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<b>evil") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("a &amp; b") != std::string::npos);
}

TEST_CASE("html: without timeline rows the charts say so, compare shows deltas", "[report][html]")
{
  const std::string html = render(testing::sample_run(), Format::html, {});
  for (const char* id : k_chart_ids) {
    CHECK(html.find(std::string("<svg id=\"") + id + "\"") != std::string::npos);
  }
  CHECK(count(html, "no timeline data (run with --timeline STEP)") == 5);
  CHECK(count(html, "<rect class=\"mix\"") == 3); // from the final nodes: 2 types + 1 type
  const std::string cmp = render(testing::sample_comparison(), Format::html, {true, false});
  CHECK(cmp.find("<span class=\"delta worse\">▲ +5.3%</span>") != std::string::npos);
  CHECK(cmp.find("<span class=\"delta better\">▼ -25.0%</span>") != std::string::npos);
}

TEST_CASE("html: the same result renders byte-identical text", "[report][html]")
{
  CHECK(render(testing::sample_run_with_timeline(), Format::html, {}) ==
        render(testing::sample_run_with_timeline(), Format::html, {}));
}

// End to end: the page renders in a real browser and its charts are in the DOM. Needs the
// Debian package chromium (scripts/test.sh installs it); skipped with a message without it.
TEST_CASE("html renders in headless Chromium with every chart", "[report][html][chromium]")
{
  const char* chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) {
    WARN("SKIPPED: /usr/bin/chromium is absent (install the Debian package chromium to run this test)");
    return;
  }
  char dir_template[] = "/tmp/capsim-html-XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::filesystem::path dir(dir_template);
  const auto page = dir / "report.html";
  std::ofstream(page) << render(testing::sample_run_with_timeline(), Format::html, {});
  const std::string command = std::string("timeout 120 ") + chromium +
                              " --headless --no-sandbox --disable-gpu --disable-background-networking"
                              " --disable-component-update --disable-sync --no-first-run --user-data-dir=" +
                              (dir / "profile").string() + " --dump-dom file://" + page.string() + " 2>/dev/null";
  std::string dom;
  {
    std::FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 65536> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
      dom.append(buffer.data(), n);
    }
    const int status = ::pclose(pipe);
    INFO("chromium exit status " << status);
    CHECK(status == 0);
  }
  std::filesystem::remove_all(dir);
  // The serialized DOM (after parsing, so the SVG really is part of the document).
  CHECK(dom.find("<title>capsim report: demo</title>") != std::string::npos);
  for (const char* id : k_chart_ids) {
    INFO(id);
    CHECK(dom.find(std::string("<svg id=\"") + id + "\"") != std::string::npos);
  }
  CHECK(count(dom, "<polyline class=\"series\"") == 12);
  CHECK(count(dom, "<rect class=\"mix\"") == 4);
  CHECK(dom.find("<table id=\"summary\">") != std::string::npos);
}
