// `capsim run|compare|check|bound` end to end: runs the built binary (CAPSIM_BINARY) on
// tests/unit/report/data/tiny.yaml from a temporary folder.
#include "core/report/json.hpp"
#include "core/report/json_text.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace capsim;

namespace {

struct Run
{
  int exit_code = -1;
  std::string out;
  std::string err;
};

const std::string k_tiny = std::string(CAPSIM_SOURCE_DIR) + "/tests/unit/report/data/tiny.yaml";

// A temporary folder for one test, removed at the end.
struct Workdir
{
  std::filesystem::path path;

  Workdir()
  {
    char tmpl[] = "/tmp/capsim-report-cli-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }

  ~Workdir() { std::filesystem::remove_all(path); }

  [[nodiscard]] std::string file(const std::string& name) const { return (path / name).string(); }
};

// Runs `capsim ARGS` in `dir` with stdout a pipe (not a terminal); args are shell-quoted by the caller.
Run run_capsim(const Workdir& dir, const std::string& args)
{
  const std::string err_path = dir.file("stderr.txt");
  const std::string cmd = "cd '" + dir.path.string() + "' && '" + std::string(CAPSIM_BINARY) + "' " + args + " 2>'" +
                          err_path + "' </dev/null";
  Run r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    r.out.append(buf.data(), n);
  }
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  r.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  return r;
}

std::string slurp(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("capsim run: JSON by default off a terminal, parseable, deterministic", "[report][cli][run]")
{
  Workdir dir;
  const auto a = run_capsim(dir, "run '" + k_tiny + "'");
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  const auto run = report::parse_result_json(a.out, "stdout");
  CHECK(run.scenario == "tiny");
  CHECK(run.seed == 7);
  CHECK(run.duration == k_hour);
  REQUIRE(run.results.size() == 2);
  CHECK(run.results[0].engine == "karpenter");
  CHECK(run.results[1].engine == "cluster-autoscaler");
  for (const auto& r : run.results) {
    CHECK(r.pods.total == 16);
    CHECK(r.cost.total_usd > 0);
    CHECK(r.lower_bound.total_usd > 0);
    CHECK(r.lower_bound.total_usd <= r.cost.total_usd + 1e-6);
  }
  CHECK(a.err.empty()); // no progress bar off a terminal
  const auto b = run_capsim(dir, "run '" + k_tiny + "'");
  CHECK(a.out == b.out);
}

TEST_CASE("capsim run: every format, --out by extension, atomically", "[report][cli][run]")
{
  Workdir dir;
  SECTION("table")
  {
    const auto r = run_capsim(dir, "run '" + k_tiny + "' -o table -e karpenter");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("capsim 0.1.0 · tiny · seed 7 · us-east-1 · 1h\n", 0) == 0);
    CHECK(r.out.find("cost lower bound") != std::string::npos);
  }
  SECTION("csv, markdown")
  {
    const auto csv = run_capsim(dir, "run '" + k_tiny + "' -o csv");
    REQUIRE(csv.exit_code == 0);
    CHECK(csv.out.rfind("design,engine,total_usd,", 0) == 0);
    CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 3);
    const auto md = run_capsim(dir, "run '" + k_tiny + "' -o markdown");
    REQUIRE(md.exit_code == 0);
    CHECK(md.out.rfind("### capsim: tiny", 0) == 0);
  }
  SECTION("--out picks the format from the extension; stdout stays empty")
  {
    const auto r = run_capsim(dir, "run '" + k_tiny + "' --out result.csv");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(slurp(dir.file("result.csv")).rfind("design,engine,", 0) == 0);
    const auto h = run_capsim(dir, "run '" + k_tiny + "' --out report.html");
    REQUIRE(h.exit_code == 0);
    const auto html = slurp(dir.file("report.html"));
    CHECK(html.find("<svg id=\"chart-nodes\"") != std::string::npos);
    CHECK(html.find("no timeline data") == std::string::npos); // html turns the timeline on
  }
  SECTION("--timeline and --explain reach the JSON")
  {
    const auto r = run_capsim(dir, "run '" + k_tiny + "' -o json --timeline 10m --explain -e karpenter");
    REQUIRE(r.exit_code == 0);
    const auto run = report::parse_result_json(r.out, "stdout");
    REQUIRE(run.results.size() == 1);
    CHECK(run.results[0].timeline.size() == 7); // 0, 10m, ..., 60m
    const auto doc = report::json::parse(r.out, "stdout");
    const auto& res = doc.find("results")->items.at(0);
    CHECK(res.find("timeline") != nullptr);
  }
  SECTION("--out through a symbolic link replaces the file it names and keeps the link")
  {
    std::filesystem::create_directory(dir.file("real"));
    std::filesystem::create_symlink("real/result.json", dir.file("link.json"));
    REQUIRE(run_capsim(dir, "run '" + k_tiny + "' -o json --out link.json").exit_code == 0);
    CHECK(std::filesystem::is_symlink(dir.file("link.json")));
    CHECK(slurp(dir.file("real/result.json")).rfind("{\n  \"capsim\"", 0) == 0);
    REQUIRE(run_capsim(dir, "run '" + k_tiny + "' -o json --out link.json").exit_code == 0); // the file exists now
    CHECK(std::filesystem::is_symlink(dir.file("link.json")));
    CHECK(slurp(dir.file("link.json")) == slurp(dir.file("real/result.json")));
  }
  SECTION("--out a named pipe or a descriptor writes to it, never over it")
  {
    REQUIRE(::mkfifo(dir.file("pipe").c_str(), 0600) == 0);
    // (The reader runs in the test's folder, not the run's.)
    const auto r = run_capsim(dir, "run '" + k_tiny + "' -o json --out pipe & timeout 60 cat '" + dir.file("pipe")
                                       + "' > '" + dir.file("got.json") + "'; wait $!");
    CHECK(r.exit_code == 0);
    CHECK(std::filesystem::is_fifo(dir.file("pipe")));
    CHECK(slurp(dir.file("got.json")).rfind("{\n  \"capsim\"", 0) == 0);
    // A descriptor the shell opened with >> keeps what it had (/dev/fd/1: /dev/stdout as the
    // descriptor itself; a version that renamed over it would fail here, not replace a device).
    std::ofstream(dir.file("append.json")) << "before\n";
    const auto a = run_capsim(dir, "run '" + k_tiny + "' -o json --out /dev/fd/1 >> append.json");
    CHECK(a.exit_code == 0);
    const auto text = slurp(dir.file("append.json"));
    CHECK(text.rfind("before\n{\n  \"capsim\"", 0) == 0);
    CHECK(text == "before\n" + slurp(dir.file("got.json")));
    const auto t = run_capsim(dir, "trace generate --pattern poisson --rate-per-hour 30 --duration 1h --seed 1 "
                                   "--out /proc/self/fd/1 >> append.json");
    CHECK(t.exit_code == 0);
    CHECK(slurp(dir.file("append.json")).find("}\narrival,cpu,memory,template,name\n") != std::string::npos);
  }
  SECTION("--out naming an input file is refused before anything runs")
  {
    std::filesystem::copy_file(k_tiny, dir.file("tiny.yaml"));
    std::filesystem::create_symlink("tiny.yaml", dir.file("alias.yaml"));
    const std::string original = slurp(dir.file("tiny.yaml"));
    for (const std::string command : {"run tiny.yaml --out ./tiny.yaml", "bound alias.yaml --out tiny.yaml",
                                      "compare tiny.yaml tiny.yaml --out alias.yaml",
                                      "sweep tiny.yaml --vary Scenario.spec.seed=1,2 --out tiny.yaml"}) {
      const auto r = run_capsim(dir, command);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find("error: this is the input file '") != std::string::npos);
      CHECK(slurp(dir.file("tiny.yaml")) == original);
    }
    std::ofstream(dir.file("t.csv")) << "arrival,cpu,memory,duration\n1,100m,128Mi,60\n";
    const auto t = run_capsim(dir, "trace convert t.csv ./t.csv");
    CHECK(t.exit_code == 2);
    CHECK(t.err.rfind("./t.csv: error: this is the input file 't.csv'", 0) == 0);
    CHECK(slurp(dir.file("t.csv")) == "arrival,cpu,memory,duration\n1,100m,128Mi,60\n");
  }
  SECTION("an unwritable --out is an input error and leaves no file")
  {
    const auto r = run_capsim(dir, "run '" + k_tiny + "' --out missing-dir/result.json");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("missing-dir/result.json: error: cannot write") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.file("missing-dir")));
  }
}

TEST_CASE("capsim run: progress goes to stderr only, never into the result", "[report][cli][run][progress]")
{
  Workdir dir;
  const auto quiet = run_capsim(dir, "run '" + k_tiny + "' -o json --progress never");
  const auto loud = run_capsim(dir, "run '" + k_tiny + "' -o json --progress always");
  REQUIRE(quiet.exit_code == 0);
  REQUIRE(loud.exit_code == 0);
  CHECK(quiet.out == loud.out);
  CHECK(quiet.err.empty());
  CHECK(loud.err.find("capsim run tiny: 0%") != std::string::npos);
}

TEST_CASE("capsim run/compare/check/bound: bad input exits 2 with a reason", "[report][cli]")
{
  Workdir dir;
  CHECK(run_capsim(dir, "run '" + k_tiny + "' -o yaml").exit_code == 2);
  CHECK(run_capsim(dir, "run '" + k_tiny + "' --progress sometimes").exit_code == 2);
  const auto missing = run_capsim(dir, "run no-such-file.yaml");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no-such-file.yaml") != std::string::npos);
  const auto step = run_capsim(dir, "run '" + k_tiny + "' --timeline soon");
  CHECK(step.exit_code == 2);
  CHECK(step.err.find("--timeline soon: error:") == 0);
  // A row a millisecond over the hour: 3.6 million rows, refused before the run.
  const auto rows = run_capsim(dir, "run '" + k_tiny + "' --timeline 1ms");
  CHECK(rows.exit_code == 2);
  CHECK(rows.err.find("--timeline 1ms: error: 3600001 rows over 1h (at most 1000000; expected a step of at least 1s)")
        == 0);
  // CLI11 alone would take these as the largest seed.
  for (const std::string seed : {"-1", "18446744073709551616", "9223372036854775808", "0x10"}) {
    const auto r = run_capsim(dir, "run '" + k_tiny + "' --seed " + seed);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--seed: '" + seed + "' is not a seed (expected a whole number from 0 to 9223372036854775807") == 0);
  }
  CHECK(run_capsim(dir, "run '" + k_tiny + "' -o json --seed 9223372036854775807").out.find(
            "\"seed\": 9223372036854775807,")
        != std::string::npos);
  const auto variant = run_capsim(dir, "compare '" + k_tiny + "' --variant nocolon");
  CHECK(variant.exit_code == 2);
  CHECK(variant.err.find("expected NAME:PATH=VALUE") != std::string::npos);
  CHECK(run_capsim(dir, "compare '" + k_tiny + "'").err.find("nothing to compare") != std::string::npos);
  std::ofstream(dir.file("bad.json")) << "{\"capsim\": {\"version\": \"0.1.0\"},\n \"seed\": }";
  const auto bad = run_capsim(dir, "check '" + k_tiny + "' --baseline bad.json");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bad.json:2:10: error:") == 0);
  const auto pct = run_capsim(dir, "check '" + k_tiny + "' --baseline bad.json --max-cost-increase lots");
  CHECK(pct.exit_code == 2);
  CHECK(pct.err.find("--max-cost-increase lots: error: expected a percentage") == 0);
}

TEST_CASE("capsim check: exit 0 against itself, 1 on a regression, reasons on stdout", "[report][cli][check]")
{
  Workdir dir;
  REQUIRE(run_capsim(dir, "run '" + k_tiny + "' --out baseline.json").exit_code == 0);
  const auto same = run_capsim(dir, "check '" + k_tiny + "' --baseline baseline.json --out again.json");
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("capsim check: ok") != std::string::npos);
  CHECK(slurp(dir.file("again.json")) == slurp(dir.file("baseline.json")));
  // More replicas cost more: both engines regress.
  const auto worse = run_capsim(dir, "check '" + k_tiny + "' --baseline baseline.json --set Deployment/web.spec.replicas=30");
  CHECK(worse.exit_code == 1);
  CHECK(worse.out.find("karpenter: total cost rose") != std::string::npos);
  CHECK(worse.out.find("cluster-autoscaler: total cost rose") != std::string::npos);
  CHECK(worse.out.find("(--max-cost-increase)") != std::string::npos);
  // Loose enough thresholds let it pass.
  const auto loose = run_capsim(dir, "check '" + k_tiny + "' --baseline baseline.json --set Deployment/web.spec.replicas=30 "
                                 "--max-cost-increase 1000% --max-node-hours-increase 1000% "
                                 "--max-pending-p95-increase 100000% --max-unschedulable 100");
  CHECK(loose.exit_code == 0);
  // Asked for an engine the baseline does not have, the gate would compare nothing: bad input.
  REQUIRE(run_capsim(dir, "run '" + k_tiny + "' -e karpenter --out karpenter.json").exit_code == 0);
  const auto other = run_capsim(dir, "check '" + k_tiny + "' --baseline karpenter.json -e cluster-autoscaler");
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("--engine cluster-autoscaler: error: the baseline has no result for this engine (it has "
                       "karpenter): nothing to compare")
        == 0);
  CHECK(run_capsim(dir, "check '" + k_tiny + "' --baseline karpenter.json -e karpenter").exit_code == 0);
}

TEST_CASE("capsim compare: designs side by side with deltas", "[report][cli][compare]")
{
  Workdir dir;
  const auto r = run_capsim(dir, "compare '" + k_tiny + "' --variant big:Deployment/web.spec.replicas=24 -e karpenter -o table");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("compare tiny, big") != std::string::npos);
  CHECK(r.out.find("Δ vs tiny") != std::string::npos);
  CHECK(r.out.find("▲ +") != std::string::npos);
  const auto j = run_capsim(dir, "compare '" + k_tiny + "' '" + k_tiny + "' -o json");
  REQUIRE(j.exit_code == 0);
  const auto doc = report::json::parse(j.out, "stdout");
  REQUIRE(doc.find("designs") != nullptr);
  CHECK(doc.find("designs")->items.size() == 2);
  CHECK(doc.find("designs")->items[1].find("design")->text == "tiny#2");
  // Same scenario twice: every delta is zero.
  CHECK(j.out.find("\"delta\": 0,") != std::string::npos);
}

TEST_CASE("capsim bound: lower bound per engine, below the simulated cost", "[report][cli][bound]")
{
  Workdir dir;
  const auto r = run_capsim(dir, "bound '" + k_tiny + "' -o json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = report::json::parse(r.out, "stdout");
  const auto* bounds = doc.find("bounds");
  REQUIRE(bounds != nullptr);
  REQUIRE(bounds->items.size() == 2);
  for (const auto& b : bounds->items) {
    CHECK(b.find("lower_bound_usd")->number() > 0);
    CHECK(b.find("lower_bound_usd")->number() <= b.find("total_usd")->number() + 1e-6);
  }
}

TEST_CASE("capsim run -o html renders in headless Chromium", "[report][cli][html][chromium]")
{
  const char* chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) {
    WARN("SKIPPED: /usr/bin/chromium is absent (install the Debian package chromium to run this test)");
    return;
  }
  Workdir dir;
  const auto r = run_capsim(dir, "compare '" + k_tiny + "' --variant big:Deployment/web.spec.replicas=24 --out report.html");
  REQUIRE(r.exit_code == 0);
  const std::string command = std::string("timeout 120 ") + chromium +
                              " --headless --no-sandbox --disable-gpu --disable-background-networking"
                              " --disable-component-update --disable-sync --no-first-run --user-data-dir=" +
                              dir.file("profile") + " --dump-dom file://" + dir.file("report.html") + " 2>/dev/null";
  std::string dom;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 65536> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    dom.append(buf.data(), n);
  }
  CHECK(::pclose(pipe) == 0);
  for (const char* id : {"chart-nodes", "chart-cost-rate", "chart-cost-cumulative", "chart-pending", "chart-utilization",
                         "chart-instance-mix"}) {
    INFO(id);
    CHECK(dom.find(std::string("<svg id=\"") + id + "\"") != std::string::npos);
  }
  CHECK(dom.find("<polyline class=\"series\"") != std::string::npos);
  CHECK(dom.find("no timeline data") == std::string::npos);
}
