// `capsim preview` end to end: the binary on the fixture dumps.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <string>
#include <unistd.h>

namespace {

std::filesystem::path temp_dir()
{
  const auto dir = std::filesystem::temp_directory_path()
                   / ("capsim_preview_cli_test-" + std::to_string(::getpid())); // ctest runs cases in parallel
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs `capsim ARGS`, capturing stdout (and stderr, separately); returns the exit status.
int capsim(const std::string& args, std::string* out = nullptr, std::string* err = nullptr)
{
  const auto o = temp_dir() / "stdout.txt";
  const auto e = temp_dir() / "stderr.txt";
  const std::string cmd = std::string(CAPSIM_BINARY) + " " + args + " > " + o.string() + " 2> " + e.string();
  const int rc = std::system(cmd.c_str());
  const auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  if (out != nullptr) {
    *out = slurp(o);
  }
  if (err != nullptr) {
    *err = slurp(e);
  }
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

const std::string k_dir = std::string(CAPSIM_SOURCE_DIR) + "/tests/fixtures/preview/";
const std::string k_args = "preview --nodes " + k_dir + "nodes.json --pods " + k_dir + "pods.json --nodepools " + k_dir
                           + "nodepools.yaml --pdbs " + k_dir + "pdbs.json";

} // namespace

TEST_CASE("cli: preview prints the text report", "[preview][cli]")
{
  std::string out;
  std::string err;
  REQUIRE(capsim(k_args, &out, &err) == 0);
  CHECK(err.empty());
  CHECK(out.find("capsim preview at 2026-11-29T12:00:00Z (us-east-1, catalog default): 11 nodes, 11 pods (0 pending)")
        == 0);
  CHECK(out.find("Karpenter, next command: emptiness delete ip-10-0-1-60.ec2.internal; saves $0.0960/h ($70.08/month)")
        != std::string::npos);
  CHECK(out.find("replace (single-node)  c5.xlarge $0.1700  0.2140      156.22") != std::string::npos);
  CHECK(out.find("Cluster Autoscaler baseline (scale-down threshold 50%, after 10m unneeded)") != std::string::npos);
  // Deterministic: the same dumps give the same bytes.
  std::string again;
  REQUIRE(capsim(k_args, &again) == 0);
  CHECK(out == again);
}

TEST_CASE("cli: preview --json and -o FILE", "[preview][cli]")
{
  std::string out;
  REQUIRE(capsim(k_args + " --json", &out) == 0);
  CHECK(out.find("{\n  \"capsim\": {\n    \"version\": ") == 0);
  CHECK(out.find("\"next_command\": {\n      \"method\": \"emptiness\",\n      \"action\": \"delete\",\n      \"nodes\": [\n"
                 "        \"ip-10-0-1-60.ec2.internal\"\n      ],")
        != std::string::npos);
  CHECK(out.find("\"saving_per_month\": 156.22") != std::string::npos);
  CHECK(out.find("\"reason_code\": \"pod-fits-nowhere\"") != std::string::npos);
  CHECK(out.find("\"cluster_autoscaler\": {\n    \"utilization_threshold\": 0.5,") != std::string::npos);
  const auto file = temp_dir() / "preview.json";
  std::filesystem::remove(file);
  std::string quiet;
  REQUIRE(capsim(k_args + " --json -o " + file.string(), &quiet) == 0);
  CHECK(quiet.empty());
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  CHECK(s.str() == out);
}

TEST_CASE("cli: preview refuses bad input with exit 2", "[preview][cli]")
{
  const auto bad = temp_dir() / "nodes.json";
  std::ofstream(bad) << "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    {\"kind\": \"Node\"\n  ]\n}\n";
  std::string err;
  CHECK(capsim("preview --nodes " + bad.string() + " --pods " + k_dir + "pods.json --nodepools " + k_dir
                   + "nodepools.yaml",
               nullptr, &err)
        == 2);
  CHECK(err.find(bad.string() + ":6:3: error: invalid JSON/YAML") != std::string::npos);
  // Pods given where nodes are expected.
  CHECK(capsim("preview --nodes " + k_dir + "pods.json --pods " + k_dir + "pods.json --nodepools " + k_dir
                   + "nodepools.yaml",
               nullptr, &err)
        == 2);
  CHECK(err.find(k_dir + "pods.json:6:21: error: --nodes expects Node objects") != std::string::npos);
  CHECK(capsim(k_args + " --now yesterday", nullptr, &err) == 2);
  CHECK(err.find("--now: error: 'yesterday' is not an RFC 3339 time") != std::string::npos);
  CHECK(capsim("preview --nodes " + k_dir + "nodes.json", nullptr, &err) == 2); // missing required options
}
