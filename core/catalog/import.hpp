#pragma once

#include "core/catalog/load.hpp"

#include <cstddef>
#include <string>
#include <vector>

// `capsim catalog import`: builds a catalog folder (the pricing-data/ layout, see
// pricing-data/README.md and docs/catalog-import.md) from JSON saved from the AWS CLI, exactly
// as it prints it:
//   aws ec2 describe-instance-types        {"InstanceTypes": [...], "NextToken": ...}
//   aws ec2 describe-spot-price-history    {"SpotPriceHistory": [...], "NextToken": ...}
//   aws pricing get-products               {"PriceList": ["<product JSON>", ...], ...}
// Each output may be split over several files (pages, regions). Instance types become
// instance_types.csv with the facts Karpenter's AWS provider reads (vCPU, memory, arch, ENI
// limits, GPUs, accelerators, local NVMe, bandwidths, ...). On-demand prices are filtered the
// way Karpenter's pricing provider asks the Price List API (Linux, no pre-installed software,
// capacity status Used, shared tenancy; dedicated for bare metal). Spot prices are the latest
// Linux/UNIX record per (zone, type); spot.csv then holds the savings of their mean over the
// on-demand price with an empty (unknown) interruption band, and spot_zone_factors.csv the
// zone factors that give back each zone's price exactly (offered=false where a zone has no
// record).
namespace capsim::catalog {

// One saved AWS CLI output: its path (for messages) and its text.
struct AwsJsonFile
{
  std::string path;
  std::string text;
};

// What an import read and kept, for the summary line and tests.
struct ImportStats
{
  std::size_t files = 0;
  std::size_t instance_types = 0;     // written to instance_types.csv
  std::size_t regions = 0;            // regions with an on-demand price
  std::size_t prices = 0;             // (region, type) on-demand prices written
  std::size_t spot_records = 0;       // Linux/UNIX spot price records read
  std::size_t spot_prices = 0;        // (zone, type) latest spot prices used
  std::size_t spot_types = 0;         // (region, type) rows written to spot.csv
  std::size_t zones = 0;              // zones written to zones.csv
};

// The catalog folder's files and what the import had to leave out.
struct CatalogImport
{
  // instance_types.csv, prices.csv, spot.csv, zones.csv, spot_zone_factors.csv in that order;
  // `path` is the bare file name. Rows are sorted; the same input gives the same bytes.
  std::vector<CatalogFile> files;
  std::vector<std::string> warnings; // sorted by kind, each naming up to 5 examples
  ImportStats stats;
};

// Import options. `reference` supplies, by type name, the facts the EC2 API does not return
// and Karpenter takes from generated tables: vpc.amazonaws.com/pod-eni (branch ENIs), the
// network bandwidth when the API gives no baseline, and the VPC CNI max-pods value when the
// API gives no ENI limits. nullptr: none (pod-eni 0).
struct ImportOptions
{
  const CatalogData* reference = nullptr;
};

// Builds the catalog files from saved AWS CLI outputs (processed in the given order; earlier
// files win for a type described twice; later records win for equal spot timestamps). Throws
// InputError with FILE:LINE:COL for invalid JSON (also inside PriceList strings), a file that
// is none of the three outputs, or fields of the wrong type; several at once. Also throws when
// no instance type or no on-demand price is found. The result always parses with
// parse_catalog_data().
[[nodiscard]] CatalogImport import_aws_json(const std::vector<AwsJsonFile>& files, const ImportOptions& options = {});

// The *.json files of folder `from` sorted by name, or the single file `from`. InputError when
// it does not exist or holds no .json file.
[[nodiscard]] std::vector<AwsJsonFile> read_aws_json_files(const std::string& from);

// FILE:LINE:COL of byte `offset` of `text` (1-based; the column counts bytes). Used for JSON
// parse errors: nlohmann's parse_error::byte is 1-based, so pass byte - 1.
[[nodiscard]] SourceLocation text_location(const std::string& file, std::string_view text, std::size_t offset);

} // namespace capsim::catalog
