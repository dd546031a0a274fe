// `capsim catalog` end to end: runs the built binary (CAPSIM_BINARY) from a temporary folder.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Run
{
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `capsim ARGS` in a fresh temporary folder (so nothing is found relative to the source
// tree); `args` is shell-quoted by the caller.
Run capsim(const std::string& args)
{
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("capsim-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
  std::filesystem::create_directories(dir);
  const auto err_path = dir / "stderr.txt";
  const std::string cmd = "cd '" + dir.string() + "' && '" + std::string(CAPSIM_BINARY) + "' " + args + " 2>'" +
                          err_path.string() + "'";
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
  std::filesystem::remove_all(dir);
  return r;
}

} // namespace

TEST_CASE("catalog show m5.xlarge -o json prints SPEC §4's object", "[catalog][cli]")
{
  const auto r = capsim("catalog show m5.xlarge -o json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) {
    keys.push_back(k);
  }
  CHECK(keys == std::vector<std::string>{"name", "vcpu", "memory_mib", "arch", "gpu_count", "labels", "capacity",
                                         "allocatable", "offerings"});
  CHECK(j["allocatable"]["cpu_millis"] == 3920);
  CHECK(j["allocatable"]["memory_mib"] == 14162);
  CHECK(j["allocatable"]["pods"] == 58);
  CHECK(j["offerings"].size() == 12);
  CHECK(j["offerings"][0]["price_per_hour"] == 0.192);
  CHECK(r.err.empty());
}

TEST_CASE("catalog list --where prints a readable table", "[catalog][cli]")
{
  const auto r = capsim("catalog list --where 'karpenter.k8s.aws/instance-family In m5' -o table");
  REQUIRE(r.exit_code == 0);
  // Header, 9 types (family order: by vCPU), count line.
  CHECK(r.out.find("NAME         VCPU  MEMORY-GIB  ARCH   GPU  ALLOC-CPU  ALLOC-MEM-GIB  PODS  ON-DEMAND-$/H  "
                   "SPOT-$/H  SPOT-INTERRUPT\n") == 0);
  CHECK(r.out.find("\nm5.large        2           8  amd64    -      1930m           6.74    29         0.0960") !=
        std::string::npos);
  CHECK(r.out.find("\nm5.xlarge       4          16  amd64    -      3920m          13.83    58         0.1920") !=
        std::string::npos);
  CHECK(r.out.find("m5.large") < r.out.find("m5.xlarge"));
  CHECK(r.out.find("m5.xlarge") < r.out.find("m5.2xlarge"));
  CHECK(r.out.find("9 instance types\n") != std::string::npos);
}

TEST_CASE("catalog list -o json and csv", "[catalog][cli]")
{
  const auto j = capsim("catalog list --where 'karpenter.k8s.aws/instance-family In m5,c6i' "
                        "--where 'karpenter.k8s.aws/instance-cpu Gt 4' --where 'karpenter.k8s.aws/instance-cpu Lt 17' "
                        "--sort name -o json");
  REQUIRE(j.exit_code == 0);
  const auto arr = nlohmann::json::parse(j.out);
  REQUIRE(arr.is_array());
  std::vector<std::string> names;
  for (const auto& t : arr) {
    names.push_back(t["name"]);
  }
  CHECK(names == std::vector<std::string>{"c6i.2xlarge", "c6i.4xlarge", "m5.2xlarge", "m5.4xlarge"});

  const auto c = capsim("catalog list --where 'node.kubernetes.io/instance-type In m5.large' -o csv");
  REQUIRE(c.exit_code == 0);
  CHECK(c.out == "name,vcpu,memory_mib,arch,gpu_count,allocatable_cpu_millis,allocatable_memory_mib,pods,"
                 "on_demand_usd_per_hour,spot_usd_per_hour,interruption_band\n"
                 "m5.large,2,8192,amd64,0,1930,6903,29,0.096,0.03233,3\n");
}

TEST_CASE("catalog list --requirements reads a NodePool", "[catalog][cli]")
{
  const auto path = std::filesystem::temp_directory_path() / ("capsim-np-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n"
                         "  template:\n    spec:\n      requirements:\n"
                         "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [t4g]}\n"
                         "        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [small, medium]}\n";
  const auto r = capsim("catalog list --requirements '" + path.string() + "' --sort name -o csv");
  std::filesystem::remove(path);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\nt4g.medium,2,4096,arm64,") != std::string::npos);
  CHECK(r.out.find("\nt4g.small,2,2048,arm64,0,1930,1359,11,") != std::string::npos);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 3);
}

TEST_CASE("catalog prices lists offerings per zone", "[catalog][cli]")
{
  const auto r = capsim("catalog prices m5.xlarge -o csv");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("name,zone,capacity_type,price_per_hour,interruption_band\n"
                   "m5.xlarge,us-east-1a,on-demand,0.192,\n"
                   "m5.xlarge,us-east-1a,spot,0.067088,4\n") == 0);
  const auto t = capsim("catalog prices m5.xlarge --where 'topology.kubernetes.io/zone In us-east-1b'");
  REQUIRE(t.exit_code == 0);
  CHECK(t.out == "NAME       ZONE        ON-DEMAND-$/H  SPOT-$/H  SPOT-SAVING  SPOT-INTERRUPT\n"
                 "m5.xlarge  us-east-1b         0.1920    0.0653          66%  >20%\n");
}

TEST_CASE("stale prices in other regions are warned about", "[catalog][cli]")
{
  const auto r = capsim("catalog show m5.xlarge --region eu-west-1 -o json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("capsim: warning: the on-demand price of m5.xlarge in eu-west-1 is stale") == 0);
  CHECK(nlohmann::json::parse(r.out)["offerings"][0]["price_per_hour"] == 0.214);
}

TEST_CASE("catalog errors exit 2 with one clear line", "[catalog][cli]")
{
  const auto unknown = capsim("catalog show m5.xlarg");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "m5.xlarg: error: unknown instance type 'm5.xlarg' (did you mean 'm5.xlarge'?) (expected an "
                       "instance type of us-east-1; see `capsim catalog list`)\n");
  CHECK(unknown.out.empty());

  const auto region = capsim("catalog list --region eu-wset-1");
  CHECK(region.exit_code == 2);
  CHECK(region.err.find("--region: error: unknown region 'eu-wset-1' (did you mean 'eu-west-1'?)") == 0);

  const auto where = capsim("catalog list --where 'karpenter.k8s.aws/instance-famly In m5'");
  CHECK(where.exit_code == 2);
  CHECK(where.err.find("no instance type has label 'karpenter.k8s.aws/instance-famly' (did you mean "
                       "'karpenter.k8s.aws/instance-family'?)") != std::string::npos);

  const auto op = capsim("catalog list --where 'kubernetes.io/arch Equals arm64'");
  CHECK(op.exit_code == 2);
  CHECK(op.err.find("unknown operator 'Equals'") != std::string::npos);

  const auto folder = capsim("catalog list --catalog /nonexistent/capsim-folder");
  CHECK(folder.exit_code == 2);
  CHECK(folder.err.find("/nonexistent/capsim-folder: error: catalog folder not found") == 0);

  const auto usage = capsim("catalog list -o yaml");
  CHECK(usage.exit_code == 2);
}

TEST_CASE("catalog --help has examples", "[catalog][cli]")
{
  for (const char* cmd : {"catalog --help", "catalog list --help", "catalog show --help", "catalog prices --help"}) {
    const auto r = capsim(cmd);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Examples:") != std::string::npos);
  }
}
