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
                   / ("capsim_io_cli_test-" + std::to_string(::getpid())); // ctest runs cases in parallel
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs `capsim ARGS`, capturing stdout+stderr; returns the exit status.
int capsim(const std::string& args, std::string* output = nullptr)
{
  const auto out = temp_dir() / "out.txt";
  const std::string cmd = std::string(CAPSIM_BINARY) + " " + args + " > " + out.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  if (output != nullptr) {
    std::ifstream in(out);
    std::ostringstream s;
    s << in.rdbuf();
    *output = s.str();
  }
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::filesystem::path& p)
{
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string k_scenarios = std::string(CAPSIM_SOURCE_DIR) + "/scenarios/";

} // namespace

TEST_CASE("cli: validate prints a summary or every error", "[io][cli]")
{
  std::string out;
  CHECK(capsim("validate " + k_scenarios + "quickstart.yaml", &out) == 0);
  CHECK(out.find("quickstart.yaml: ok") != std::string::npos);
  CHECK(out.find("pods       18 (16 at t=0, 0 bound to nodes)") != std::string::npos);
  CHECK(capsim("validate " + k_scenarios + "quickstart.yaml --set Deployment/web.spec.replicaz=3", &out) == 2);
  CHECK(out.find("--set Deployment/web.spec.replicaz=3: error: path 'Deployment/web.spec.replicaz' does not exist (did "
                 "you mean 'Deployment/web.spec.replicas'?)")
        != std::string::npos);
  const auto bad = temp_dir() / "bad.yaml";
  std::ofstream(bad) << "apiVersion: capsim/v1\nkind: Scenario\nspec: {duraton: 1h}\n";
  CHECK(capsim("validate " + bad.string(), &out) == 2);
  CHECK(out.find(bad.string() + ":3:8: error: unknown field 'duraton'") != std::string::npos);
}

TEST_CASE("cli: what only the catalog or an engine can reject points at its line, in validate and run",
          "[io][cli]")
{
  const auto dir = temp_dir();
  const auto write = [&](const std::string& name, const std::string& text) {
    const auto p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  };
  const std::string group = "---\napiVersion: capsim/v1\nkind: NodeGroup\nmetadata: {name: general}\nspec:\n"
                            "  instanceTypes:\n    - m5.large\n    - m5.lrage\n  maxSize: 3\n";
  const std::string pod = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                          "    - {name: c, image: i, resources: {requests: {cpu: 100m}}}\n";
  const auto region = write("region.yaml", "apiVersion: capsim/v1\nkind: Scenario\nspec:\n  duration: 1h\n"
                                           "  region: us-esat-1\n" + group + pod);
  const auto type = write("type.yaml", "apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h}\n" + group + pod);
  const auto endless = write("endless.yaml", "apiVersion: capsim/v1\nkind: Scenario\nspec: {seed: 2}\n"
                                             + group.substr(0, group.find("m5.lrage")) + "m5.xlarge\n  maxSize: 3\n"
                                             + pod);
  const auto chain = write("chain.yaml", "apiVersion: capsim/v1\nkind: Scenario\nspec:\n  duration: 1h\n"
                                         "  clusterAutoscaler: {expander: 'random,price'}\n"
                                         + group.substr(0, group.find("m5.lrage")) + "m5.xlarge\n  maxSize: 3\n"
                                         + pod);
  const auto engineless = write("engineless.yaml", "apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h}\n" + pod);
  for (const std::string command : {"validate ", "run "}) {
    std::string out;
    CHECK(capsim(command + region, &out) == 2);
    CHECK(out.find(region + ":5:11: error: unknown region 'us-esat-1' (did you mean 'us-east-1'?)") == 0);
    CHECK(capsim(command + type, &out) == 2);
    CHECK(out.find(type + ":11:7: error: NodeGroup/general: instance type 'm5.lrage' is not in the catalog (did "
                          "you mean 'm5.large'?)")
          == 0);
    CHECK(capsim(command + endless, &out) == 2);
    CHECK(out.find(endless + ":1:1: error: the workload has no natural end (pod 'p' runs until it is deleted)") == 0);
    CHECK(capsim(command + chain, &out) == 2);
    CHECK(out.find(chain + ":5:33: error: clusterAutoscaler.expander: 'price' follows 'random'") == 0);
    CHECK(capsim(command + engineless, &out) == 2);
    CHECK(out.find(engineless + ":1:1: error: the scenario configures no engine: add a karpenter.sh/v1 NodePool or a "
                                "capsim/v1 NodeGroup")
          == 0);
  }
}

TEST_CASE("cli: trace generate is seeded, convert and stats read it back", "[io][cli]")
{
  const auto dir = temp_dir();
  const std::string gen = "trace generate --pattern poisson --rate-per-hour 120 --runtime lognormal:median=5m,p95=30m "
                          "--duration 2h --cpu 250m --memory 1Gi --template batch ";
  REQUIRE(capsim(gen + "--seed 7 --out " + (dir / "a.csv").string()) == 0);
  REQUIRE(capsim(gen + "--seed 7 --out " + (dir / "b.csv").string()) == 0);
  REQUIRE(capsim(gen + "--seed 8 --out " + (dir / "c.csv").string()) == 0);
  CHECK(slurp(dir / "a.csv") == slurp(dir / "b.csv"));
  CHECK(slurp(dir / "a.csv") != slurp(dir / "c.csv"));
  CHECK(slurp(dir / "a.csv").rfind("arrival,duration,cpu,memory,template,name\n", 0) == 0);
  REQUIRE(capsim("trace convert " + (dir / "a.csv").string() + " " + (dir / "a.jsonl").string()) == 0);
  REQUIRE(capsim("trace convert " + (dir / "a.jsonl").string() + " " + (dir / "a2.csv").string()) == 0);
  CHECK(slurp(dir / "a.csv") == slurp(dir / "a2.csv"));
  std::string out;
  REQUIRE(capsim("trace stats " + (dir / "a.csv").string() + " -o json", &out) == 0);
  CHECK(out.find("\"cpu_millis\"") != std::string::npos);
  CHECK(capsim("trace stats " + (dir / "missing.csv").string(), &out) == 2);
  CHECK(out.find("missing.csv: error: cannot read") != std::string::npos);
  // --shapes draws each pod's requests from the list, seeded.
  REQUIRE(capsim("trace generate --pattern poisson --rate-per-hour 600 --duration 1h --shapes 250m/512Mi,8/32Gi "
                 "--seed 3 --out " + (dir / "shapes.csv").string()) == 0);
  const std::string shapes = slurp(dir / "shapes.csv");
  CHECK(shapes.find(",250m,512Mi,") != std::string::npos);
  CHECK(shapes.find(",8000m,32768Mi,") != std::string::npos);
  CHECK(capsim("trace generate --pattern poisson --rate-per-hour 60 --shapes 1/2Gi,2 --out " +
                   (dir / "bad-shape.csv").string(), &out) == 2);
  CHECK(out.find("--shapes: error: shape '2' is not CPU/MEMORY") != std::string::npos);
  CHECK(capsim("trace generate --pattern poisson --rate-per-hour 60 --peak-rate-per-hour 30 --out " +
                   (dir / "bad-peak.csv").string(), &out) == 2);
  CHECK(out.find("--peak-rate-per-hour: error: --peak-rate-per-hour must be >= --rate-per-hour") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "bad-peak.csv"));
  CHECK(capsim("trace generate --pattern burst --count -3 --out " + (dir / "neg.csv").string(), &out) == 2);
  CHECK(out.find("--count: error: burst needs --count >= 0") == 0);
  CHECK(capsim("trace generate --pattern poisson --rate-per-hour 10 --peak-rate-per-hour 1e300 --out " +
                   (dir / "huge.csv").string(), &out) == 2);
  CHECK(out.find("error: peakRatePerHour 1e+300 over 1d makes about 2.4e+301 pods (at most 50000000): refused as "
                 "absurd")
        != std::string::npos);
  // A failed generate leaves no partial file behind.
  CHECK(capsim("trace generate --pattern steps --steps 2h=1,1h=2 --out " + (dir / "bad.csv").string(), &out) == 2);
  CHECK_FALSE(std::filesystem::exists(dir / "bad.csv"));
}
