// `capsim catalog import`: AWS CLI JSON (tests/fixtures/aws/, written in the exact formats the
// AWS CLI prints) -> catalog folder -> the same Catalog as the embedded data.
#include "core/base/units.hpp"
#include "core/catalog/import.hpp"
#include "core/catalog/load.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/wait.h>
#include <unistd.h>

using namespace capsim;
using namespace capsim::catalog;

namespace {

namespace fs = std::filesystem;

const std::string k_fixtures = std::string(CAPSIM_SOURCE_DIR) + "/tests/fixtures/aws";

// A fresh empty temporary folder, removed at the end of the test.
struct TempDir
{
  fs::path path;

  explicit TempDir(const std::string& tag)
  {
    static int counter = 0;
    path = fs::temp_directory_path()
           / ("capsim-import-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

void write_text(const fs::path& path, const std::string& text)
{
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const CatalogImport& fixture_import(bool with_reference)
{
  static const CatalogImport k_plain = import_aws_json(read_aws_json_files(k_fixtures));
  static const CatalogImport k_referenced =
      import_aws_json(read_aws_json_files(k_fixtures), {.reference = &embedded_catalog_data()});
  return with_reference ? k_referenced : k_plain;
}

// The fixture import written to a folder and read back as a catalog folder would be.
CatalogData fixture_catalog_data(bool with_reference)
{
  const TempDir dir("folder");
  for (const auto& f : fixture_import(with_reference).files) {
    write_text(dir.path / f.name, f.text);
  }
  return read_catalog_folder(dir.path.string());
}

const std::string& file_text(const CatalogImport& imp, std::string_view name)
{
  const auto it = std::find_if(imp.files.begin(), imp.files.end(), [&](const CatalogFile& f) { return f.name == name; });
  REQUIRE(it != imp.files.end());
  return it->text;
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

std::int64_t resource(const model::Resources& r, std::string_view name)
{
  const auto id = model::find_resource_id(name);
  return id ? r[*id] : 0;
}

bool has_warning(const CatalogImport& imp, std::string_view text)
{
  return std::any_of(imp.warnings.begin(), imp.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

// The diagnostics of an import of `files` that must fail.
std::string import_error(const std::vector<AwsJsonFile>& files)
{
  try {
    (void)import_aws_json(files);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("the import did not fail");
  return {};
}

// A describe-instance-types output with one type whose members are `body`.
std::string types_json(const std::string& body)
{
  return "{\n    \"InstanceTypes\": [\n        {\n            \"InstanceType\": \"m5.large\",\n" + body
         + "\n        }\n    ]\n}\n";
}

const std::string k_valid_type_body = R"(            "ProcessorInfo": {"SupportedArchitectures": ["x86_64"]},
            "VCpuInfo": {"DefaultVCpus": 2},
            "MemoryInfo": {"SizeInMiB": 8192})";

const std::string k_price_json =
    R"({"PriceList": ["{\"product\":{\"productFamily\":\"Compute Instance\",\"attributes\":{\"instanceType\":\"m5.large\",)"
    R"(\"regionCode\":\"us-east-1\",\"operatingSystem\":\"Linux\",\"preInstalledSw\":\"NA\",\"capacitystatus\":\"Used\",)"
    R"(\"tenancy\":\"Shared\"}},\"terms\":{\"OnDemand\":{\"T\":{\"priceDimensions\":{\"D\":{\"pricePerUnit\":)"
    R"({\"USD\":\"0.0960000000\"}}}}}}}"]})";

} // namespace

TEST_CASE("import: m5.xlarge gets Karpenter's allocatable from its NetworkInfo (4 ENIs x 15 IPv4)", "[catalog][import]")
{
  const auto data = fixture_catalog_data(false);
  const Catalog c = build_catalog(data, "us-east-1");
  const auto& m5 = type(c, "m5.xlarge");
  const auto a = m5.allocatable();
  CHECK(a.cpu() == 3920);
  CHECK(a.memory() == 14162 * k_mib);
  CHECK(a.pods() == 58);
  CHECK(m5.vcpu == 4);
  CHECK(m5.memory_mib == 16384);
  CHECK(m5.arch == "amd64");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-cpu-manufacturer") == "intel");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz") == "3100");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-hypervisor") == "nitro");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-network-bandwidth") == "1250");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-ebs-bandwidth") == "4750");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-family") == "m5");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-generation") == "5");
  CHECK(m5.labels.at("karpenter.k8s.aws/instance-size") == "xlarge");
  CHECK_FALSE(m5.labels.contains("karpenter.k8s.aws/instance-local-nvme"));
  CHECK_FALSE(m5.exotic);
}

TEST_CASE("import: arm64, GPU, Neuron and i386+x86_64 types", "[catalog][import]")
{
  const Catalog c = build_catalog(fixture_catalog_data(false), "us-east-1");

  // Graviton: arm64 loses 64 MiB before the VM overhead.
  const auto& m6g = type(c, "m6g.large");
  CHECK(m6g.arch == "arm64");
  CHECK(m6g.labels.at("kubernetes.io/arch") == "arm64");
  CHECK(m6g.labels.at("karpenter.k8s.aws/instance-cpu-manufacturer") == "aws");
  CHECK(m6g.allocatable().cpu() == 1930);
  CHECK(m6g.allocatable().memory() == 6844 * k_mib);
  CHECK(m6g.allocatable().pods() == 29);

  const auto& g4 = type(c, "g4dn.xlarge");
  CHECK(g4.gpu_count == 1);
  CHECK(g4.exotic);
  CHECK(g4.labels.at("karpenter.k8s.aws/instance-gpu-name") == "t4");
  CHECK(g4.labels.at("karpenter.k8s.aws/instance-gpu-manufacturer") == "nvidia");
  CHECK(g4.labels.at("karpenter.k8s.aws/instance-gpu-count") == "1");
  CHECK(g4.labels.at("karpenter.k8s.aws/instance-gpu-memory") == "16384");
  CHECK(g4.labels.at("karpenter.k8s.aws/instance-local-nvme") == "125");
  CHECK(g4.labels.at("karpenter.k8s.aws/instance-network-bandwidth") == "5000");
  CHECK(g4.labels.at("karpenter.k8s.aws/instance-encryption-in-transit-supported") == "true");
  CHECK(resource(g4.capacity, "nvidia.com/gpu") == 1);
  CHECK(g4.allocatable().memory() == 14481 * k_mib);
  CHECK(g4.allocatable().pods() == 29);

  const auto& inf2 = type(c, "inf2.xlarge");
  CHECK(inf2.labels.at("karpenter.k8s.aws/instance-accelerator-name") == "inferentia2");
  CHECK(inf2.labels.at("karpenter.k8s.aws/instance-accelerator-manufacturer") == "aws");
  CHECK(inf2.labels.at("karpenter.k8s.aws/instance-accelerator-count") == "1");
  CHECK(inf2.labels.at("karpenter.k8s.aws/instance-network-bandwidth") == "2083");
  CHECK(resource(inf2.capacity, "aws.amazon.com/neuron") == 1);
  CHECK(resource(inf2.capacity, "aws.amazon.com/neuroncore") == 2);
  CHECK(inf2.exotic);

  // t2.micro lists i386 first: Karpenter takes the first architecture it knows (x86_64).
  const auto& t2 = type(c, "t2.micro");
  CHECK(t2.arch == "amd64");
  CHECK(t2.labels.at("karpenter.k8s.aws/instance-hypervisor") == "xen");
  CHECK(t2.allocatable().cpu() == 940);
  CHECK(t2.allocatable().memory() == 548 * k_mib);
  CHECK(t2.allocatable().pods() == 4);
  // "Low to Moderate" has no figure; EBS optimisation unsupported: no bandwidth labels.
  CHECK_FALSE(t2.labels.contains("karpenter.k8s.aws/instance-network-bandwidth"));
  CHECK_FALSE(t2.labels.contains("karpenter.k8s.aws/instance-ebs-bandwidth"));

  // mac1.metal (x86_64_mac) is no Kubernetes node architecture.
  CHECK(c.find("mac1.metal") == nullptr);
  CHECK(has_warning(fixture_import(false), "1 instance types have no architecture Kubernetes nodes use (x86_64 or "
                                           "arm64) and are left out (mac1.metal)"));
  CHECK(fixture_import(false).stats.instance_types == 5);
}

TEST_CASE("import: same capacity, overhead and labels as the embedded catalog", "[catalog][import]")
{
  // With the embedded data as reference (what the CLI does) the pod-ENI branch interfaces,
  // which the EC2 API does not return, come from Karpenter's table too.
  const Catalog imported = build_catalog(fixture_catalog_data(true), "us-east-1");
  const Catalog embedded = load_catalog("us-east-1");
  for (const auto* name : {"m5.xlarge", "m6g.large", "g4dn.xlarge", "inf2.xlarge", "t2.micro"}) {
    INFO(name);
    const auto& a = type(imported, name);
    const auto& b = type(embedded, name);
    CHECK(a.capacity == b.capacity);
    CHECK(a.overhead == b.overhead);
    CHECK(a.labels == b.labels);
    CHECK(a.absent_labels == b.absent_labels);
    CHECK(a.exotic == b.exotic);
    CHECK(a.gpu_count == b.gpu_count);
  }
  CHECK(resource(type(imported, "m5.xlarge").capacity, "vpc.amazonaws.com/pod-eni") == 18);
  // Without a reference there are no branch ENIs, the rest is the same.
  const Catalog plain = build_catalog(fixture_catalog_data(false), "us-east-1");
  CHECK(resource(type(plain, "m5.xlarge").capacity, "vpc.amazonaws.com/pod-eni") == 0);
  CHECK(type(plain, "m5.xlarge").allocatable().cpu() == type(embedded, "m5.xlarge").allocatable().cpu());
}

TEST_CASE("import: on-demand prices filtered like Karpenter's pricing provider", "[catalog][import]")
{
  const auto& imp = fixture_import(false);
  // Windows, the capacity-reservation product (price 0) and the EBS product are skipped;
  // eu-west-1's product has no regionCode and is placed by its location "EU (Ireland)".
  CHECK(file_text(imp, "prices.csv") == "region,instance_type,usd_per_hour\n"
                                        "eu-west-1,m5.xlarge,0.214\n"
                                        "us-east-1,g4dn.xlarge,0.526\n"
                                        "us-east-1,inf2.xlarge,0.7582\n"
                                        "us-east-1,m5.xlarge,0.192\n"
                                        "us-east-1,m6g.large,0.077\n"
                                        "us-east-1,t2.micro,0.0116\n");
  CHECK(imp.stats.prices == 6);
  CHECK(imp.stats.regions == 2);
  CHECK(has_warning(imp, "1 on-demand prices are for instance types missing from the describe-instance-types output "
                         "and are left out (us-east-1/c7i.large)"));
  const auto data = fixture_catalog_data(false);
  CHECK(data.regions() == std::vector<std::string>{"eu-west-1", "us-east-1"});
  const Catalog eu = build_catalog(data, "eu-west-1");
  CHECK(eu.instance_types().size() == 1);
  const auto* od = offering(type(eu, "m5.xlarge"), "eu-west-1a", "on-demand");
  REQUIRE(od != nullptr);
  CHECK(od->price_per_hour == Approx(0.214).epsilon(1e-12));
  CHECK_FALSE(od->stale_price);
}

TEST_CASE("import: latest Linux spot price per zone, no offering where a zone has none", "[catalog][import]")
{
  const auto& imp = fixture_import(false);
  CHECK(file_text(imp, "zones.csv") == "region,zone,az_id\n"
                                       "eu-west-1,eu-west-1a,\n"
                                       "us-east-1,us-east-1a,\n"
                                       "us-east-1,us-east-1b,\n"
                                       "us-east-1,us-east-1c,\n");
  // savings = round(100 x (1 - mean spot / on-demand)); the band is unknown (empty).
  CHECK(file_text(imp, "spot.csv") == "region,instance_type,savings_pct,interruption_band\n"
                                      "eu-west-1,m5.xlarge,63,\n"
                                      "us-east-1,g4dn.xlarge,60,\n"
                                      "us-east-1,m5.xlarge,65,\n"
                                      "us-east-1,m6g.large,60,\n");
  CHECK(imp.stats.spot_records == 8); // Windows is not counted; the Local Zone record is
  CHECK(imp.stats.spot_prices == 5);
  CHECK(imp.stats.spot_types == 4);
  CHECK(imp.stats.zones == 4);
  CHECK(has_warning(imp, "spot prices of 1 Local or Wavelength Zones are left out (us-east-1-bos-1a)"));
  CHECK(has_warning(imp, "1 spot prices are for instance types missing from the describe-instance-types output and "
                         "are left out (us-east-1b/c7i.large)"));

  const Catalog c = build_catalog(fixture_catalog_data(false), "us-east-1");
  CHECK(c.zones() == std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"});
  const auto& m5 = type(c, "m5.xlarge");
  // 0.065 at 12:00 is newer than 0.070 at 08:00 (record order does not matter).
  const auto* a = offering(m5, "us-east-1a", "spot");
  const auto* b = offering(m5, "us-east-1b", "spot");
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  CHECK(a->price_per_hour == 0.065);
  CHECK(b->price_per_hour == 0.069);
  CHECK_FALSE(a->interruption_band.has_value());
  CHECK(offering(m5, "us-east-1c", "spot") == nullptr);
  for (const auto* zone : {"us-east-1a", "us-east-1b", "us-east-1c"}) {
    const auto* od = offering(m5, zone, "on-demand");
    REQUIRE(od != nullptr);
    CHECK(od->price_per_hour == 0.192);
  }
  const auto& m6g = type(c, "m6g.large");
  REQUIRE(offering(m6g, "us-east-1a", "spot") != nullptr);
  CHECK(offering(m6g, "us-east-1a", "spot")->price_per_hour == 0.031);
  CHECK(offering(m6g, "us-east-1b", "spot") == nullptr);
  // "Linux/UNIX (Amazon VPC)" counts as Linux.
  const auto& g4 = type(c, "g4dn.xlarge");
  REQUIRE(offering(g4, "us-east-1c", "spot") != nullptr);
  CHECK(offering(g4, "us-east-1c", "spot")->price_per_hour == 0.21);
  CHECK(offering(g4, "us-east-1a", "spot") == nullptr);
  CHECK(offering(type(c, "t2.micro"), "us-east-1a", "spot") == nullptr);
  // Zone requirements follow the offerings.
  CHECK(c.find("inf2.xlarge")->offerings.size() == 3);

  const Catalog eu = build_catalog(fixture_catalog_data(false), "eu-west-1");
  CHECK(eu.zones() == std::vector<std::string>{"eu-west-1a"});
  REQUIRE(offering(type(eu, "m5.xlarge"), "eu-west-1a", "spot") != nullptr);
  CHECK(offering(type(eu, "m5.xlarge"), "eu-west-1a", "spot")->price_per_hour == 0.08);
}

TEST_CASE("import: zone factors give back every zone's spot price exactly", "[catalog][import]")
{
  // Prices that do not round-trip through 4-decimal factors.
  const std::string types = types_json(k_valid_type_body);
  std::string spot = R"({"SpotPriceHistory": [)";
  const std::vector<std::pair<std::string, std::string>> prices = {
      {"us-east-1a", "0.041234"}, {"us-east-1b", "0.038871"}, {"us-east-1c", "0.090001"}, {"us-east-1d", "0.000101"}};
  for (std::size_t i = 0; i < prices.size(); ++i) {
    spot += (i > 0 ? "," : "") + std::string(R"({"AvailabilityZone": ")") + prices[i].first +
            R"(", "InstanceType": "m5.large", "ProductDescription": "Linux/UNIX", "SpotPrice": ")" + prices[i].second +
            R"(", "Timestamp": "2025-01-10T12:00:00+00:00"})";
  }
  spot += "]}";
  const auto imp = import_aws_json({{"t.json", types}, {"p.json", k_price_json}, {"s.json", spot}});
  const TempDir dir("factors");
  for (const auto& f : imp.files) {
    write_text(dir.path / f.name, f.text);
  }
  const Catalog c = build_catalog(read_catalog_folder(dir.path.string()), "us-east-1");
  const auto& m5 = type(c, "m5.large");
  for (const auto& [zone, price] : prices) {
    INFO(zone);
    const auto* o = offering(m5, zone, "spot");
    REQUIRE(o != nullptr);
    CHECK(o->price_per_hour == std::stod(price));
  }
}

TEST_CASE("import: deterministic bytes, first description of a type wins", "[catalog][import]")
{
  const auto again = import_aws_json(read_aws_json_files(k_fixtures));
  REQUIRE(again.files.size() == fixture_import(false).files.size());
  for (std::size_t i = 0; i < again.files.size(); ++i) {
    CHECK(again.files[i].name == fixture_import(false).files[i].name);
    CHECK(again.files[i].text == fixture_import(false).files[i].text);
  }
  const auto first = types_json(k_valid_type_body);
  auto second = first;
  second.replace(second.find("8192"), 4, "4096");
  const auto imp = import_aws_json({{"a.json", first}, {"b.json", second}, {"p.json", k_price_json}});
  CHECK(file_text(imp, "instance_types.csv").find("m5.large,m5,m,5,large,2,8192,amd64") != std::string::npos);
}

TEST_CASE("import: malformed JSON is reported at FILE:LINE:COL", "[catalog][import][errors]")
{
  SECTION("syntax error in a file")
  {
    const std::string text = "{\n    \"InstanceTypes\": [\n        {,\n";
    const auto err = import_error({{"types.json", text}});
    CHECK(err.rfind("types.json:3:10: error: invalid JSON: syntax error while parsing object key", 0) == 0);
  }
  SECTION("syntax error inside a PriceList string maps back to the file")
  {
    const std::string text = "{\"PriceList\": [\n  \"{\\\"product\\\":}\"\n]}\n";
    const auto err = import_error({{"prices.json", text}});
    CHECK(err.rfind("prices.json:2:17: error: invalid JSON in PriceList[0]: syntax error while parsing value", 0) == 0);
  }
  SECTION("escapes before the error are counted as one character each")
  {
    const std::string text = "{\"PriceList\": [\"{\\\"a\\u00e9\\\": tru}\"]}";
    const auto err = import_error({{"p.json", text}});
    // Decoded: {"aé": tru}: the error is at the "}" after "tru", byte 11 decoded, column 34 raw.
    CHECK(err.rfind("p.json:1:34: error: invalid JSON in PriceList[0]", 0) == 0);
  }
  SECTION("an empty file")
  {
    CHECK(import_error({{"empty.json", ""}}).rfind("empty.json:1:1: error: invalid JSON", 0) == 0);
  }
  SECTION("a field of the wrong type is reported where it is")
  {
    const std::string text = types_json(R"(            "ProcessorInfo": {"SupportedArchitectures": ["x86_64"]},
            "VCpuInfo": {"DefaultVCpus": "four"},
            "MemoryInfo": {"SizeInMiB": 8192})");
    CHECK(import_error({{"t.json", text}})
          == "t.json:6:42: error: InstanceTypes[0].VCpuInfo.DefaultVCpus is a string (expected an integer)");
  }
  SECTION("a missing field is reported at the enclosing object")
  {
    const std::string text = types_json(R"(            "ProcessorInfo": {"SupportedArchitectures": ["x86_64"]},
            "VCpuInfo": {"DefaultVCpus": 2})");
    CHECK(import_error({{"t.json", text}})
          == "t.json:3:9: error: missing InstanceTypes[0].MemoryInfo.SizeInMiB (expected an integer)");
  }
  SECTION("a bad value inside a PriceList product")
  {
    std::string text = k_price_json;
    text.replace(text.find("0.0960000000"), 12, "abc");
    CHECK(import_error({{"p.json", types_json(k_valid_type_body)}, {"q.json", text}})
          == "q.json:1:340: error: PriceList[0].terms.OnDemand.T.priceDimensions.D.pricePerUnit.USD 'abc' is not a "
             "price (expected a decimal number as a string, e.g. \"0.192\")");
  }
  SECTION("bad spot records; several errors at once")
  {
    const std::string spot = "{\"SpotPriceHistory\": [\n"
                             "  {\"AvailabilityZone\": \"us-east-1a\", \"InstanceType\": \"m5.large\", "
                             "\"ProductDescription\": \"Linux/UNIX\", \"SpotPrice\": \"0.04\", \"Timestamp\": \"yesterday\"},\n"
                             "  {\"AvailabilityZone\": \"us-east-1a\", \"InstanceType\": \"m5.large\", "
                             "\"ProductDescription\": \"Linux/UNIX\", \"SpotPrice\": 0.04, \"Timestamp\": "
                             "\"2025-01-10T12:00:00Z\"}\n]}";
    const auto err = import_error({{"s.json", spot}, {"x.json", "{\"Reservations\": []}"}});
    CHECK(err.find("s.json:2:136: error: SpotPriceHistory[0].Timestamp 'yesterday' is not a timestamp") == 0);
    CHECK(err.find("s.json:3:115: error: SpotPriceHistory[1].SpotPrice is a number (expected a string)")
          != std::string::npos);
    CHECK(err.find("x.json:1:1: error: not an AWS CLI output capsim can import") != std::string::npos);
  }
  SECTION("nothing to build a catalog from")
  {
    CHECK(import_error({{"p.json", k_price_json}})
          == "p.json: error: no `aws ec2 describe-instance-types` output found (expected a JSON file with "
             "\"InstanceTypes\")");
    CHECK(import_error({{"t.json", types_json(k_valid_type_body)}}).find("no `aws pricing get-products` output found")
          != std::string::npos);
  }
}

TEST_CASE("text_location: 1-based line and byte column", "[catalog][import]")
{
  CHECK(text_location("f", "ab\ncd", 0) == SourceLocation{"f", 1, 1});
  CHECK(text_location("f", "ab\ncd", 2) == SourceLocation{"f", 1, 3});
  CHECK(text_location("f", "ab\ncd", 3) == SourceLocation{"f", 2, 1});
  CHECK(text_location("f", "ab\ncd", 99) == SourceLocation{"f", 2, 3});
}

TEST_CASE("read_aws_json_files: *.json in name order, or one file", "[catalog][import]")
{
  const auto files = read_aws_json_files(k_fixtures);
  REQUIRE(files.size() == 6);
  CHECK(fs::path(files[0].path).filename() == "describe-instance-types-1.json");
  CHECK(fs::path(files[5].path).filename() == "spot-price-history-us-east-1.json");
  CHECK(read_aws_json_files(k_fixtures + "/get-products-eu-west-1.json").size() == 1);
  const TempDir empty("empty");
  write_text(empty.path / "notes.txt", "not json");
  CHECK_THROWS_AS(read_aws_json_files(empty.path.string()), InputError);
  CHECK_THROWS_AS(read_aws_json_files((empty.path / "missing").string()), InputError);
}

TEST_CASE("catalog folders: empty interruption band and offered=false", "[catalog][load][import]")
{
  const std::vector<CatalogFile> base = {
      {"instance_types.csv", "it.csv", "instance_type,vcpu,memory_mib,arch\nm5.large,2,8192,amd64\n"},
      {"prices.csv", "p.csv", "region,instance_type,usd_per_hour\nus-east-1,m5.large,0.096\n"},
      {"spot.csv", "s.csv", "region,instance_type,savings_pct,interruption_band\nus-east-1,m5.large,50,\n"},
  };
  SECTION("band unknown, every zone offered")
  {
    const Catalog c = build_catalog(parse_catalog_data(base, "test"), "us-east-1");
    const auto* o = offering(type(c, "m5.large"), "us-east-1b", "spot");
    REQUIRE(o != nullptr);
    CHECK(o->price_per_hour == 0.048);
    CHECK_FALSE(o->interruption_band.has_value());
  }
  SECTION("offered=false removes the zone's spot offering")
  {
    auto files = base;
    files.push_back({"spot_zone_factors.csv", "f.csv",
                     "region,instance_type,zone,factor,offered\nus-east-1,m5.large,us-east-1a,1.5,true\n"
                     "us-east-1,m5.large,us-east-1c,,false\n"});
    const Catalog c = build_catalog(parse_catalog_data(files, "test"), "us-east-1");
    const auto& m5 = type(c, "m5.large");
    REQUIRE(offering(m5, "us-east-1a", "spot") != nullptr);
    CHECK(offering(m5, "us-east-1a", "spot")->price_per_hour == 0.072);
    CHECK(offering(m5, "us-east-1b", "spot") != nullptr);
    CHECK(offering(m5, "us-east-1c", "spot") == nullptr);
    CHECK(offering(m5, "us-east-1c", "on-demand") != nullptr);
  }
  SECTION("offered=false with a factor, or twice, is an error")
  {
    auto files = base;
    files.push_back({"spot_zone_factors.csv", "f.csv",
                     "region,instance_type,zone,factor,offered\nus-east-1,m5.large,us-east-1a,1.5,false\n"
                     "us-east-1,m5.large,us-east-1c,,false\nus-east-1,m5.large,us-east-1c,1.1,true\n"});
    try {
      (void)parse_catalog_data(files, "test");
      FAIL("expected an error");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("f.csv:2:31: error: factor must be empty when offered is false") == 0);
      CHECK(std::string(e.what()).find("f.csv:4:20: error: duplicate factor for (us-east-1, m5.large, us-east-1c)")
            != std::string::npos);
    }
  }
  SECTION("a malformed band is still an error")
  {
    auto files = base;
    files[2].text = "region,instance_type,savings_pct,interruption_band\nus-east-1,m5.large,50,x\n";
    CHECK_THROWS_WITH(parse_catalog_data(files, "test"),
                      Catch::Contains("s.csv:2:23: error: interruption_band 'x' is not an integer"));
  }
}

namespace {

struct Run
{
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `capsim ARGS` (shell-quoted by the caller) from `dir`.
Run run_capsim(const fs::path& dir, const std::string& args)
{
  const auto err_path = dir / "stderr.txt";
  const std::string cmd =
      "cd '" + dir.string() + "' && '" + std::string(CAPSIM_BINARY) + "' " + args + " 2>'" + err_path.string() + "'";
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
  r.err = read_text(err_path);
  fs::remove(err_path);
  return r;
}

} // namespace

TEST_CASE("capsim catalog import, then catalog show on the folder", "[catalog][import][cli]")
{
  const TempDir dir("cli");
  const auto r = run_capsim(dir.path, "catalog import --from '" + k_fixtures + "' --out out");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "imported 5 instance types, 6 on-demand prices in 2 regions, 5 spot prices (4 types) in 4 zones "
                 "from 6 files into out\n");
  CHECK(r.err.find("capsim: warning: 1 instance types have no architecture") != std::string::npos);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path / "out")) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"instance_types.csv", "prices.csv", "spot.csv", "spot_zone_factors.csv",
                                          "zones.csv"});
  CHECK(read_text(dir.path / "out" / "prices.csv") == file_text(fixture_import(true), "prices.csv"));
  CHECK(read_text(dir.path / "out" / "instance_types.csv") == file_text(fixture_import(true), "instance_types.csv"));

  const auto show = run_capsim(dir.path, "catalog show m5.xlarge --catalog out -o json");
  REQUIRE(show.exit_code == 0);
  const auto j = nlohmann::json::parse(show.out);
  CHECK(j["name"] == "m5.xlarge");
  CHECK(j["allocatable"]["cpu_millis"] == 3920);
  CHECK(j["allocatable"]["memory_mib"] == 14162);
  CHECK(j["allocatable"]["pods"] == 58);
  CHECK(j["capacity"]["vpc.amazonaws.com/pod-eni"] == 18);
  int spot = 0;
  for (const auto& o : j["offerings"]) {
    if (o["capacity_type"] == "spot") {
      ++spot;
      CHECK(o["interruption_band"].is_null());
      CHECK(o["price_per_hour"] == (o["zone"] == "us-east-1a" ? 0.065 : 0.069));
    }
  }
  CHECK(spot == 2);
  CHECK(j["offerings"].size() == 5);

  const auto eu = run_capsim(dir.path, "catalog show m5.xlarge --catalog out --region eu-west-1 -o json");
  REQUIRE(eu.exit_code == 0);
  CHECK(nlohmann::json::parse(eu.out)["offerings"].size() == 2);

  // Re-importing replaces the files in place; no temporary file is left behind.
  REQUIRE(run_capsim(dir.path, "catalog import --from '" + k_fixtures + "' --out out").exit_code == 0);
  CHECK(std::distance(fs::directory_iterator(dir.path / "out"), fs::directory_iterator()) == 5);
}

TEST_CASE("capsim catalog import: bad JSON exits 2 with FILE:LINE:COL and writes nothing", "[catalog][import][cli]")
{
  const TempDir dir("cli-bad");
  fs::create_directories(dir.path / "from");
  fs::copy_file(k_fixtures + "/describe-instance-types-1.json", dir.path / "from" / "a.json");
  write_text(dir.path / "from" / "b.json", "{\n  \"SpotPriceHistory\": [\n    {\"AvailabilityZone\": }\n  ]\n}\n");
  const auto r = run_capsim(dir.path, "catalog import --from from --out out");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("from/b.json:3:26: error: invalid JSON: syntax error while parsing value") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "out"));
  const auto missing = run_capsim(dir.path, "catalog import --from nowhere --out out");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("nowhere: error: no such file or folder") != std::string::npos);
}
