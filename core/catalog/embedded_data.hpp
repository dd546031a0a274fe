#pragma once

#include <string_view>
#include <vector>

namespace capsim::catalog {

// One file of pricing-data/ compiled into the binary.
struct EmbeddedFile
{
  std::string_view name; // "instance_types.csv"
  std::string_view text; // the file's bytes
};

// The embedded default catalog (pricing-data/*.csv at build time), in a fixed order:
// instance_types.csv, prices.csv, spot.csv, zones.csv, spot_zone_factors.csv.
[[nodiscard]] const std::vector<EmbeddedFile>& embedded_files();

// The name of the embedded catalog in messages ("pricing-data (embedded)").
inline constexpr std::string_view k_embedded_catalog_name = "pricing-data (embedded)";

} // namespace capsim::catalog
