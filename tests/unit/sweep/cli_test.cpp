// The sweep with the real simulator: core API and the `capsim` binary, on data/tiny.yaml (spot
// interruptions and a Poisson generator, so seeds matter; a trace, so the Job has a file to ship).
#include "core/io/files.hpp"
#include "core/sweep/render.hpp"
#include "core/sweep/runner.hpp"
#include "core/sweep/shard.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace capsim;
using namespace capsim::sweep;
namespace fs = std::filesystem;

namespace {

const std::string k_data = std::string(CAPSIM_SOURCE_DIR) + "/tests/unit/sweep/data";
const std::string k_scenario = k_data + "/tiny.yaml";

SweepSpec tiny_spec()
{
  SweepSpec spec;
  spec.scenario_file = "tiny.yaml";
  spec.axes = {parse_axis("NodePool/default.spec.disruption.consolidateAfter=30s,10m")};
  name_axes(spec.axes);
  spec.seeds = 3;
  return spec;
}

std::string shell_quote(const std::string& s)
{
  std::string out = "'";
  for (const char c : s) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

// Runs the capsim binary; returns its exit code.
int run_capsim(const std::string& args)
{
  const int status = std::system((shell_quote(CAPSIM_BINARY) + " " + args).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read(const fs::path& p)
{
  return io::read_text_file(p.string());
}

// A fresh folder under the system's temporary folder, removed at the end of the test.
struct TempDir
{
  fs::path path;
  explicit TempDir(const std::string& name)
    : path(fs::temp_directory_path() / ("capsim-sweep-test-" + name + "-" + std::to_string(::getpid())))
  {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

const std::string k_vary = "--vary NodePool/default.spec.disruption.consolidateAfter=30s,10m --seeds 3";

} // namespace

TEST_CASE("real runs: same result for any --jobs, and equal to the merge of shards", "[sweep][runner][sim]")
{
  const SweepSpec spec = tiny_spec();
  const auto variants = grid_variants(k_scenario, spec.axes, spec.sets);
  RunnerOptions one;
  one.jobs = 1;
  RunnerOptions four;
  four.jobs = 4;
  const SweepReport local = build_report("0.1.0", spec, run_shard(spec, variants, Shard{0, 1}, one));
  const SweepReport threaded = build_report("0.1.0", spec, run_shard(spec, variants, Shard{0, 1}, four));
  CHECK(render_json(threaded) == render_json(local));

  // The seeds really change the runs (otherwise the comparison above would prove little).
  bool differ = false;
  for (std::size_t k = 1; k < spec.seeds; ++k) {
    differ = differ || local.cells[k].engines[0].total_usd != local.cells[0].engines[0].total_usd;
  }
  CHECK(differ);
  CHECK(local.cells[0].seed == 7);
  CHECK(local.cells[2].seed == 9);

  std::vector<ShardResult> shards;
  std::vector<std::string> sources;
  for (std::size_t i = 0; i < 4; ++i) {
    const Shard shard{i, 4};
    const ShardResult s{"0.1.0", spec, shard, run_shard(spec, variants, shard, four)};
    sources.push_back("shard-" + std::to_string(i));
    shards.push_back(parse_shard_json(render_shard_json(s), sources.back()));
  }
  const SweepReport merged = merge_shards(shards, sources);
  for (const auto format : {report::Format::table, report::Format::json, report::Format::csv, report::Format::html}) {
    CHECK(render(merged, format) == render(local, format));
  }
}

TEST_CASE("capsim sweep: local run, shards and merge through the binary", "[sweep][cli]")
{
  TempDir tmp("cli");
  const std::string dir = tmp.path.string();
  REQUIRE(run_capsim("sweep " + shell_quote(k_scenario) + " " + k_vary + " -j 3 -o json --out " + shell_quote(dir + "/local.json"))
          == 0);
  REQUIRE(run_capsim("sweep " + shell_quote(k_scenario) + " " + k_vary + " -j 1 -o csv --out " + shell_quote(dir + "/local.csv"))
          == 0);
  std::string shard_files;
  for (int i = 0; i < 3; ++i) {
    const std::string out = dir + "/shard-" + std::to_string(i) + ".json";
    REQUIRE(run_capsim("sweep " + shell_quote(k_scenario) + " " + k_vary + " --shard " + std::to_string(i)
                   + "/3 -o json --out " + shell_quote(out))
            == 0);
    shard_files += " " + shell_quote(out);
  }
  REQUIRE(run_capsim("sweep merge" + shard_files + " -o json --out " + shell_quote(dir + "/merged.json")) == 0);
  REQUIRE(run_capsim("sweep merge" + shard_files + " --out " + shell_quote(dir + "/merged.csv")) == 0); // format from extension
  const std::string local = read(tmp.path / "local.json");
  CHECK_THAT(local, Catch::Contains("\"kind\": \"capsim-sweep\""));
  CHECK(read(tmp.path / "merged.json") == local);
  CHECK(read(tmp.path / "merged.csv") == read(tmp.path / "local.csv"));

  // Bad input exits with 2.
  CHECK(run_capsim("sweep merge " + shell_quote(dir + "/shard-0.json") + " -o json > /dev/null 2>&1") == 2); // shards missing
  CHECK(run_capsim("sweep " + shell_quote(k_scenario) + " --vary Scenario.spec.seed -o json > /dev/null 2>&1") == 2);
  CHECK(run_capsim("sweep " + shell_quote(k_scenario) + " --vary Scenario.spec.nosuchfield=1,2 -o json > /dev/null 2>&1") == 2);
  CHECK(run_capsim("sweep " + shell_quote(k_scenario) + " --shard 3/3 -o json > /dev/null 2>&1") == 2);
  CHECK(run_capsim("sweep " + shell_quote(k_scenario) + " --shard 0/3 -o csv > /dev/null 2>&1") == 2);
  CHECK(run_capsim("sweep -o json > /dev/null 2>&1") == 2);
  // -1 seeds is -1, not the largest count.
  CHECK(run_capsim("sweep " + shell_quote(k_scenario) + " --seeds -1 -o json 2>&1 | grep -q -- '^--seeds -1: error: "
                   "expected between 1 and 10000 seeds per variant'")
        == 0);
}

TEST_CASE("capsim sweep --emit-k8s-job: the pods, run as Kubernetes would, reproduce the local report",
          "[sweep][cli][k8s]")
{
  TempDir tmp("k8s");
  const std::string dir = tmp.path.string();
  REQUIRE(run_capsim("sweep " + shell_quote(k_scenario) + " " + k_vary
                 + " --emit-k8s-job --shards 4 --parallelism 2 --image example.com/capsim:test --out "
                 + shell_quote(dir + "/job.yaml"))
          == 0);
  const std::vector<YAML::Node> docs = YAML::LoadAll(read(tmp.path / "job.yaml"));
  REQUIRE(docs.size() == 2);
  const YAML::Node& cm = docs[0];
  const YAML::Node& job = docs[1];
  CHECK(cm["kind"].as<std::string>() == "ConfigMap");
  CHECK(job["apiVersion"].as<std::string>() == "batch/v1");
  CHECK(job["kind"].as<std::string>() == "Job");
  CHECK(job["metadata"]["name"].as<std::string>() == "capsim-sweep-tiny-sweep");
  CHECK(job["spec"]["completionMode"].as<std::string>() == "Indexed");
  CHECK(job["spec"]["completions"].as<int>() == 4);
  CHECK(job["spec"]["parallelism"].as<int>() == 2);
  const YAML::Node pod = job["spec"]["template"]["spec"];
  CHECK(pod["restartPolicy"].as<std::string>() == "Never");
  CHECK(pod["containers"][0]["image"].as<std::string>() == "example.com/capsim:test");

  // Mount the ConfigMap as the kubelet would: each item's key at its path under /scenario.
  const fs::path mount = tmp.path / "scenario";
  for (const auto& item : pod["volumes"][0]["configMap"]["items"]) {
    const fs::path file = mount / item["path"].as<std::string>();
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << cm["data"][item["key"].as<std::string>()].as<std::string>();
  }
  CHECK(read(mount / "tiny.yaml") == read(k_scenario));
  CHECK(read(mount / "traces/tiny.csv") == read(k_data + "/traces/tiny.csv"));

  // Each index runs the container's command with $(JOB_COMPLETION_INDEX) expanded.
  std::string shard_files;
  for (int index = 0; index < 4; ++index) {
    std::string args;
    for (const auto& a : pod["containers"][0]["args"]) {
      std::string arg = a.as<std::string>();
      const auto at = arg.find("$(JOB_COMPLETION_INDEX)");
      if (at != std::string::npos) {
        arg.replace(at, 23, std::to_string(index));
      }
      if (arg.rfind("/scenario/", 0) == 0) {
        arg = mount.string() + arg.substr(9);
      }
      args += " " + shell_quote(arg);
    }
    const std::string out = dir + "/pod-" + std::to_string(index) + ".json";
    REQUIRE(run_capsim(args + " > " + shell_quote(out)) == 0);
    shard_files += " " + shell_quote(out);
  }
  REQUIRE(run_capsim("sweep merge" + shard_files + " -o json --out " + shell_quote(dir + "/merged.json")) == 0);
  REQUIRE(run_capsim("sweep " + shell_quote(k_scenario) + " " + k_vary + " -o json --out " + shell_quote(dir + "/local.json"))
          == 0);
  CHECK(read(tmp.path / "merged.json") == read(tmp.path / "local.json"));
}
