#include "core/base/units.hpp"
#include "core/catalog/embedded_data.hpp"
#include "core/catalog/load.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

using namespace capsim;
using namespace capsim::catalog;

namespace {

const Catalog& us_east_1()
{
  static const Catalog k_catalog = load_catalog("us-east-1");
  return k_catalog;
}

const InstanceType& type(const Catalog& c, std::string_view name)
{
  const auto* it = c.find(name);
  REQUIRE(it != nullptr);
  return *it;
}

const Offering* offering(const InstanceType& it, std::string_view zone, std::string_view capacity_type)
{
  for (const auto& o : it.offerings) {
    if (o.zone == zone && o.capacity_type == capacity_type) {
      return &o;
    }
  }
  return nullptr;
}

bool has_warning(const Catalog& c, std::string_view text)
{
  return std::any_of(c.warnings().begin(), c.warnings().end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

} // namespace

TEST_CASE("embedded catalog: regions and zones", "[catalog][load]")
{
  const auto& data = embedded_catalog_data();
  CHECK(data.regions().size() == 21);
  CHECK(data.region_zones("us-east-1")
        == std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e", "us-east-1f"});
  CHECK(data.region_zones("us-west-1") == std::vector<std::string>{"us-west-1a", "us-west-1b"});
  // No per-AZ history for af-south-1: three default zones.
  CHECK(data.region_zones("af-south-1") == std::vector<std::string>{"af-south-1a", "af-south-1b", "af-south-1c"});
  CHECK(us_east_1().region() == "us-east-1");
  CHECK(us_east_1().zones().size() == 6);
}

TEST_CASE("us-east-1: every type with a 2026 price, the rest left out with a warning", "[catalog][load]")
{
  const auto& c = us_east_1();
  CHECK(c.instance_types().size() == 1363 - 18);
  CHECK(c.find("p5e.48xlarge") == nullptr);
  CHECK(has_warning(c, "18 instance types have no on-demand price in us-east-1 and are left out"));
  CHECK_FALSE(has_warning(c, "stale"));
}

TEST_CASE("labels are Karpenter's well-known labels", "[catalog][load]")
{
  const auto& m5 = type(us_east_1(), "m5.xlarge");
  const model::Labels expected{
      {"karpenter.k8s.aws/instance-capability-flex", "false"},
      {"karpenter.k8s.aws/instance-category", "m"},
      {"karpenter.k8s.aws/instance-cpu", "4"},
      {"karpenter.k8s.aws/instance-cpu-manufacturer", "intel"},
      {"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz", "3100"},
      {"karpenter.k8s.aws/instance-ebs-bandwidth", "4750"},
      {"karpenter.k8s.aws/instance-encryption-in-transit-supported", "false"},
      {"karpenter.k8s.aws/instance-family", "m5"},
      {"karpenter.k8s.aws/instance-generation", "5"},
      {"karpenter.k8s.aws/instance-hypervisor", "nitro"},
      {"karpenter.k8s.aws/instance-memory", "16384"},
      {"karpenter.k8s.aws/instance-network-bandwidth", "1250"},
      {"karpenter.k8s.aws/instance-size", "xlarge"},
      {"kubernetes.io/arch", "amd64"},
      {"kubernetes.io/os", "linux"},
      {"node.kubernetes.io/instance-type", "m5.xlarge"},
      {"topology.kubernetes.io/region", "us-east-1"},
  };
  CHECK(m5.labels == expected);
  CHECK(m5.vcpu == 4);
  CHECK(m5.memory_mib == 16384);
  CHECK(m5.arch == "amd64");
  CHECK(m5.gpu_count == 0);
  CHECK_FALSE(m5.exotic);

  const auto& p4d = type(us_east_1(), "p4d.24xlarge");
  CHECK(p4d.labels.at("karpenter.k8s.aws/instance-gpu-count") == "8");
  CHECK(p4d.labels.at("karpenter.k8s.aws/instance-gpu-name") == "a100");
  CHECK(p4d.labels.at("karpenter.k8s.aws/instance-gpu-manufacturer") == "nvidia");
  CHECK(p4d.labels.at("karpenter.k8s.aws/instance-gpu-memory") == "40960");
  CHECK(p4d.labels.at("karpenter.k8s.aws/instance-local-nvme") == "8000");
  CHECK(p4d.gpu_count == 8);
  CHECK(p4d.exotic);

  const auto& metal = type(us_east_1(), "c5.metal");
  CHECK(metal.labels.at("karpenter.k8s.aws/instance-hypervisor").empty());
  CHECK(metal.exotic);

  const auto& inf2 = type(us_east_1(), "inf2.xlarge");
  CHECK(inf2.labels.at("karpenter.k8s.aws/instance-accelerator-name") == "inferentia2");
  CHECK(inf2.labels.at("karpenter.k8s.aws/instance-accelerator-count") == "1");
  CHECK(inf2.exotic);

  const auto& flex = type(us_east_1(), "m7i-flex.large");
  CHECK(flex.labels.at("karpenter.k8s.aws/instance-capability-flex") == "true");
  CHECK(flex.labels.at("karpenter.k8s.aws/instance-family") == "m7i-flex");

  const auto& graviton = type(us_east_1(), "t4g.small");
  CHECK(graviton.labels.at("kubernetes.io/arch") == "arm64");
  CHECK(graviton.labels.at("karpenter.k8s.aws/instance-cpu-manufacturer") == "aws");
}

TEST_CASE("requirements: labels, zones, capacity types and DoesNotExist for absent keys", "[catalog][load]")
{
  const auto& m5 = type(us_east_1(), "m5.xlarge");
  const auto zone = m5.requirements.get(model::labels::k_zone);
  CHECK(zone.values.size() == 6);
  CHECK(m5.requirements.get(model::labels::k_capacity_type).values == std::vector<std::string>{"on-demand", "spot"});
  const auto* gpu = m5.requirements.find("karpenter.k8s.aws/instance-gpu-count");
  REQUIRE(gpu != nullptr);
  CHECK(gpu->op() == model::Operator::does_not_exist);

  model::Requirements wants_gpu;
  wants_gpu.add(model::Requirement::make("karpenter.k8s.aws/instance-gpu-count", model::Operator::gt, {"0"}));
  CHECK_FALSE(m5.requirements.intersects(wants_gpu).empty());
  CHECK(type(us_east_1(), "p4d.24xlarge").requirements.intersects(wants_gpu).empty());
}

TEST_CASE("offerings: on-demand and spot per zone, spot estimated and varied by zone", "[catalog][load]")
{
  const auto& m5 = type(us_east_1(), "m5.xlarge");
  REQUIRE(m5.offerings.size() == 12);
  CHECK(m5.offerings[0].zone == "us-east-1a");
  CHECK(m5.offerings[0].capacity_type == "on-demand");
  CHECK(m5.offerings[1].capacity_type == "spot");
  const auto* od = offering(m5, "us-east-1c", "on-demand");
  REQUIRE(od != nullptr);
  CHECK(od->price_per_hour == 0.192);
  CHECK_FALSE(od->interruption_band.has_value());
  CHECK_FALSE(od->stale_price);
  // Advisor: savings 66%, band 4. Zone factors 1a 1.0277, 1d 0.9747, 1e 0.9976, others 1.
  const auto* a = offering(m5, "us-east-1a", "spot");
  const auto* b = offering(m5, "us-east-1b", "spot");
  const auto* d = offering(m5, "us-east-1d", "spot");
  const auto* e = offering(m5, "us-east-1e", "spot");
  REQUIRE((a && b && d && e));
  CHECK(b->price_per_hour == 0.06528); // 0.192 x (1 - 0.66)
  CHECK(a->price_per_hour == 0.067088); // x 1.0277, rounded to 6 decimals
  CHECK(d->price_per_hour == 0.063628);
  CHECK(e->price_per_hour == 0.065123);
  CHECK(b->interruption_band == 4);
  CHECK(round_price(0.192 * (1 - 0.66) * 1.0277) == 0.067088);
}

TEST_CASE("no spot offering where the advisor has no row", "[catalog][load]")
{
  const auto& data = embedded_catalog_data();
  const auto& spot = data.spot.at("us-east-1");
  std::size_t without = 0;
  for (const auto& it : us_east_1().instance_types()) {
    const bool has_spot = std::any_of(it.offerings.begin(), it.offerings.end(),
                                      [](const Offering& o) { return o.capacity_type == "spot"; });
    CHECK(has_spot == spot.contains(it.name));
    without += has_spot ? 0 : 1;
  }
  CHECK(without > 0);
}

TEST_CASE("other regions use the 2020 prices and warn that they are stale", "[catalog][load]")
{
  const auto c = load_catalog("eu-west-1");
  CHECK(c.instance_types().size() == 275);
  CHECK(has_warning(c, "on-demand prices of 275 instance types in eu-west-1 are stale"));
  CHECK(has_warning(c, "have no on-demand price in eu-west-1 and are left out"));
  const auto& m5 = type(c, "m5.xlarge");
  const auto* od = offering(m5, "eu-west-1c", "on-demand");
  REQUIRE(od != nullptr);
  CHECK(od->price_per_hour == 0.214);
  CHECK(od->stale_price);
  const auto* spot = offering(m5, "eu-west-1a", "spot");
  REQUIRE(spot != nullptr);
  CHECK(spot->stale_price);
  CHECK(spot->price_per_hour == round_price(0.214 * 0.44 * 0.9986));
  CHECK(spot->interruption_band == 2);
  CHECK(m5.labels.at("topology.kubernetes.io/region") == "eu-west-1");
}

TEST_CASE("unknown region is an input error with a suggestion", "[catalog][load]")
{
  try {
    (void)load_catalog("us-esat-1");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("--region: error: unknown region 'us-esat-1' (did you mean 'us-east-1'?)") == 0);
  }
  // Spot Advisor regions without on-demand prices are not in the catalog.
  CHECK_THROWS_AS(load_catalog("ap-south-2"), InputError);
}

// ---------------------------------------------------------------------------------------------
// Catalog folders.

namespace {

// A temporary catalog folder, removed at the end of the test.
class TempFolder
{
public:
  TempFolder()
  {
    static int counter = 0;
    m_path = std::filesystem::temp_directory_path() /
             ("capsim-catalog-test-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    std::filesystem::create_directories(m_path);
  }
  ~TempFolder() { std::filesystem::remove_all(m_path); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  void write(const std::string& name, const std::string& text) const
  {
    std::ofstream(m_path / name, std::ios::binary) << text;
  }

  [[nodiscard]] std::string path() const { return m_path.string(); }
  [[nodiscard]] std::string file(const std::string& name) const { return (m_path / name).string(); }

private:
  std::filesystem::path m_path;
};

const char* const k_types = "instance_type,vcpu,memory_mib,arch,max_enis_default_card,ipv4_per_eni\n"
                            "m5.large,2,8192,amd64,3,10\n"
                            "t4g.small,2,2048,arm64,3,4\n";

std::string error_of(const std::string& dir, std::string_view region = "test-1")
{
  try {
    (void)load_catalog(region, dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("a minimal catalog folder: default zones, on-demand only", "[catalog][load][folder]")
{
  TempFolder dir;
  dir.write("instance_types.csv", k_types);
  dir.write("prices.csv", "region,instance_type,usd_per_hour\ntest-1,m5.large,0.1\ntest-1,t4g.small,0.0168\n");
  const auto c = load_catalog("test-1", dir.path());
  CHECK(c.zones() == std::vector<std::string>{"test-1a", "test-1b", "test-1c"});
  REQUIRE(c.instance_types().size() == 2);
  const auto& m5 = type(c, "m5.large");
  CHECK(m5.offerings.size() == 3);
  CHECK(m5.allocatable().cpu() == 1930);
  CHECK(m5.allocatable().memory() == 6903 * k_mib);
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-family") == "m5");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-category") == "m");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-generation") == "5");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-size") == "large");
  CHECK(type(c, "t4g.small").allocatable().memory() == 1359 * k_mib);
  CHECK(c.warnings().empty());
}

TEST_CASE("a catalog folder with zones, spot and factors", "[catalog][load][folder]")
{
  TempFolder dir;
  dir.write("instance_types.csv", k_types);
  dir.write("prices.csv", "region,instance_type,usd_per_hour,stale\ntest-1,m5.large,0.1,false\n");
  dir.write("zones.csv", "region,zone,az_id\ntest-1,z1,\ntest-1,z2,\n");
  dir.write("spot.csv", "region,instance_type,savings_pct,interruption_band\ntest-1,m5.large,60,1\n");
  dir.write("spot_zone_factors.csv", "region,instance_type,zone,factor\ntest-1,m5.large,z2,1.5\n");
  const auto c = load_catalog("test-1", dir.path());
  CHECK(c.zones() == std::vector<std::string>{"z1", "z2"});
  CHECK(has_warning(c, "1 instance types have no on-demand price in test-1 and are left out (t4g.small)"));
  const auto& m5 = type(c, "m5.large");
  REQUIRE(m5.offerings.size() == 4);
  CHECK(offering(m5, "z1", "spot")->price_per_hour == 0.04);
  CHECK(offering(m5, "z2", "spot")->price_per_hour == 0.06);
  CHECK(offering(m5, "z2", "spot")->interruption_band == 1);
}

TEST_CASE("catalog folder errors carry FILE:LINE:COL", "[catalog][load][folder]")
{
  SECTION("missing folder")
  {
    CHECK(error_of("/nonexistent/capsim-catalog").find("/nonexistent/capsim-catalog: error: catalog folder not found")
          == 0);
  }
  SECTION("missing prices.csv")
  {
    TempFolder dir;
    dir.write("instance_types.csv", k_types);
    CHECK(error_of(dir.path()).find("error: missing prices.csv") != std::string::npos);
  }
  SECTION("bad values are all reported")
  {
    TempFolder dir;
    dir.write("instance_types.csv", "instance_type,vcpu,memory_mib,arch\nm5.large,two,8192,amd64\nx.large,2,8192,sparc\n");
    dir.write("prices.csv", "region,instance_type,usd_per_hour\ntest-1,m5.large,abc\ntest-1,m5.larg,0.1\n");
    const std::string e = error_of(dir.path());
    CHECK(e.find(dir.file("instance_types.csv") + ":2:10: error: vcpu 'two' is not an integer") != std::string::npos);
    CHECK(e.find(dir.file("instance_types.csv") + ":3:16: error: arch 'sparc' is not supported (expected amd64 or arm64)")
          != std::string::npos);
    CHECK(e.find(dir.file("prices.csv") + ":2:17: error: usd_per_hour 'abc' is not a valid number") != std::string::npos);
    CHECK(e.find(dir.file("prices.csv") + ":3:8: error: unknown instance type 'm5.larg' (did you mean 'm5.large'?)")
          != std::string::npos);
  }
  SECTION("unknown and missing columns")
  {
    TempFolder dir;
    dir.write("instance_types.csv", "instance_type,vcpus,memory_mib,arch\nm5.large,2,8192,amd64\n");
    dir.write("prices.csv", "region,instance_type,usd_per_hour\n");
    const std::string e = error_of(dir.path());
    CHECK(e.find(dir.file("instance_types.csv") + ":1:15: error: unknown column 'vcpus' (did you mean 'vcpu'?)")
          != std::string::npos);
    CHECK(e.find(dir.file("instance_types.csv") + ":1:1: error: missing column 'vcpu'") != std::string::npos);
  }
  SECTION("row length, duplicates, bands and zones")
  {
    TempFolder dir;
    dir.write("instance_types.csv", std::string(k_types) + "m5.large,2,8192,amd64,3,10\nc5.large,2\n");
    dir.write("prices.csv", "region,instance_type,usd_per_hour\ntest-1,m5.large,0.1\n");
    dir.write("spot.csv", "region,instance_type,savings_pct,interruption_band\ntest-1,m5.large,60,7\n");
    dir.write("spot_zone_factors.csv", "region,instance_type,zone,factor\ntest-1,m5.large,test-1x,1.1\n");
    const std::string e = error_of(dir.path());
    CHECK(e.find(dir.file("instance_types.csv") + ":4:1: error: duplicate instance type 'm5.large' (first defined on line 2)")
          != std::string::npos);
    CHECK(e.find(dir.file("instance_types.csv") + ":5:1: error: row has 2 fields (expected 6") != std::string::npos);
    CHECK(e.find(dir.file("spot.csv") + ":2:20: error: interruption_band 7 is out of range (expected 0..4)")
          != std::string::npos);
    CHECK(e.find(dir.file("spot_zone_factors.csv") + ":2:17: error: zone 'test-1x' is not a zone of test-1")
          != std::string::npos);
  }
  SECTION("unterminated quote")
  {
    TempFolder dir;
    dir.write("instance_types.csv", k_types);
    dir.write("prices.csv", "region,instance_type,usd_per_hour\ntest-1,\"m5.large,0.1\n");
    CHECK(error_of(dir.path()).find(dir.file("prices.csv") + ":2:8: error: unterminated quoted field")
          != std::string::npos);
  }
}

TEST_CASE("the embedded files are the committed pricing-data/ files", "[catalog][load]")
{
  REQUIRE(embedded_files().size() == 5);
  for (const auto& f : embedded_files()) {
    std::ifstream in(std::string(CAPSIM_SOURCE_DIR) + "/pricing-data/" + std::string(f.name), std::ios::binary);
    REQUIRE(in.good());
    const std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(on_disk.size() > 1000);
    CHECK(f.text == on_disk);
  }
}
