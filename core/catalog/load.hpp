#pragma once

#include "core/base/diagnostics.hpp"
#include "core/catalog/aws_allocatable.hpp"
#include "core/catalog/catalog.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Loading the AWS catalog: the embedded pricing-data/ or a catalog folder with the same
// layout (`--catalog DIR`, Scenario `spec.catalog`). Files (CSV, one header row; see
// pricing-data/README.md for every column):
//   instance_types.csv     required: instance_type, vcpu, memory_mib, arch (+ optional specs)
//   prices.csv             required: region, instance_type, usd_per_hour [, stale]
//   spot.csv               optional: region, instance_type, savings_pct, interruption_band (may be empty)
//   zones.csv              optional: region, zone [, az_id]   (default <region>a, b, c)
//   spot_zone_factors.csv  optional: region, instance_type, zone, factor [, offered]
namespace capsim::catalog {

// One catalog file: its name in pricing-data/ ("prices.csv"), its path for messages and
// its text.
struct CatalogFile
{
  std::string name;
  std::string path;
  std::string text;
};

// An on-demand price row (USD per hour). stale = from the July 2020 multi-region table.
struct PriceRow
{
  double usd_per_hour = 0;
  bool stale = false;
};

// A Spot Instance Advisor row: savings of spot over on-demand (integer %, may be negative)
// and the interruption frequency band 0 (<5%) .. 4 (>20%); no band when the cell is empty
// (unknown, e.g. a catalog imported from spot price history).
struct SpotRow
{
  int savings_pct = 0;
  std::optional<int> interruption_band = 0;
};

template <typename T>
using ByName = std::map<std::string, T, std::less<>>;

// Every region of a catalog, parsed and validated, before a region is chosen.
struct CatalogData
{
  std::string source;                          // folder path or k_embedded_catalog_name
  std::vector<AwsInstanceSpec> instance_types; // sorted by name
  ByName<ByName<PriceRow>> prices;             // region -> type -> price
  ByName<ByName<SpotRow>> spot;                // region -> type -> advisor row
  ByName<std::vector<std::string>> zones;      // region -> zones in order (as listed)
  ByName<ByName<ByName<double>>> zone_factors; // region -> type -> zone -> relative spot price
  // region -> type -> zones where the type has no spot offering (spot_zone_factors.csv rows
  // with offered=false), sorted.
  ByName<ByName<std::vector<std::string>>> spot_unoffered;

  // Regions that have at least one price, sorted.
  [[nodiscard]] std::vector<std::string> regions() const;
  // The zones capsim uses for `region`: zones.csv's, else <region>a, <region>b, <region>c.
  [[nodiscard]] std::vector<std::string> region_zones(std::string_view region) const;
  [[nodiscard]] const AwsInstanceSpec* find(std::string_view name) const;
};

// The interruption band labels of the Spot Instance Advisor: 0 "<5%", 1 "5-10%", 2 "10-15%",
// 3 "15-20%", 4 ">20%"; "" outside 0..4.
[[nodiscard]] std::string_view interruption_band_label(int band);

// Parse and validate catalog files (instance_types.csv and prices.csv must be present).
// Throws InputError with FILE:LINE:COL for every problem found (several at once).
[[nodiscard]] CatalogData parse_catalog_data(const std::vector<CatalogFile>& files, std::string source);

// The embedded default catalog, parsed once per process.
[[nodiscard]] const CatalogData& embedded_catalog_data();

// Read and parse a catalog folder. Throws InputError when the folder or a required file is
// missing, or a file is malformed.
[[nodiscard]] CatalogData read_catalog_folder(const std::string& dir);

// Fills family, size, category and generation of `spec` from its name where they are empty,
// as Karpenter's instanceTypeScheme does: "u7i-12tb.224xlarge" -> u7i-12tb, 224xlarge, u, 7.
void derive_name_parts(AwsInstanceSpec& spec);

// Well-known labels of an EC2 instance type in `region`, as Karpenter sets them
// (karpenter.k8s.aws/instance-*, kubernetes.io/arch, kubernetes.io/os=linux,
// node.kubernetes.io/instance-type, topology.kubernetes.io/region).
[[nodiscard]] model::Labels aws_labels(const AwsInstanceSpec& spec, std::string_view region);

// An InstanceType from an EC2 spec: labels, absent_labels, capacity and overhead (Karpenter's
// AWS model), vcpu/memory_mib/arch/gpu_count and the exotic flag. No offerings; requirements
// are not finalized.
[[nodiscard]] InstanceType aws_instance_type(const AwsInstanceSpec& spec, std::string_view region);

// Round a price to 6 decimals (micro-dollars), so estimates print the same everywhere.
[[nodiscard]] double round_price(double usd_per_hour);

// The Catalog of `region`: every type with an on-demand price there, offered in every zone of
// the region as on-demand (the regional price) and, where the advisor has a row, as spot
// (estimated price = on-demand x (1 - savings%) x the zone's factor, rounded to 6 decimals;
// interruption band from the advisor). Offerings are listed zone by zone, on-demand first.
// Warnings name types left out for lack of a price and the use of stale prices.
// An unknown region throws InputError at `region_location`.
[[nodiscard]] Catalog build_catalog(const CatalogData& data, std::string_view region,
                                    const SourceLocation& region_location = {.file = "--region"});

// build_catalog() over the embedded catalog (folder "" or "default") or a catalog folder.
[[nodiscard]] Catalog load_catalog(std::string_view region, std::string_view folder = {},
                                   const SourceLocation& region_location = {.file = "--region"});

} // namespace capsim::catalog
