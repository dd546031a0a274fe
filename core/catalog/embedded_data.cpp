#include "core/catalog/embedded_data.hpp"

// pricing-data/*.csv are assembled into .rodata with .incbin, so capsim carries its default
// catalog and runs from any folder. CAPSIM_PRICING_DATA_DIR (absolute path, set by
// core/CMakeLists.txt) names the folder; CMake recompiles this file when a CSV changes.
#ifndef CAPSIM_PRICING_DATA_DIR
#error "CAPSIM_PRICING_DATA_DIR must name the pricing-data folder"
#endif

// Defines <sym>_begin/<sym>_end around the bytes of pricing-data/<file>, plus a NUL byte.
#define CAPSIM_INCBIN(sym, file)                                                                   \
  asm(".pushsection .rodata\n"                                                                     \
      ".balign 16\n"                                                                               \
      ".global " #sym "_begin\n"                                                                   \
      ".hidden " #sym "_begin\n" #sym "_begin:\n"                                                  \
      ".incbin \"" CAPSIM_PRICING_DATA_DIR "/" file "\"\n"                                         \
      ".global " #sym "_end\n"                                                                     \
      ".hidden " #sym "_end\n" #sym "_end:\n"                                                      \
      ".byte 0\n"                                                                                  \
      ".popsection\n");                                                                            \
  extern "C" const char sym##_begin[];                                                             \
  extern "C" const char sym##_end[]

CAPSIM_INCBIN(capsim_pricing_instance_types, "instance_types.csv");
CAPSIM_INCBIN(capsim_pricing_prices, "prices.csv");
CAPSIM_INCBIN(capsim_pricing_spot, "spot.csv");
CAPSIM_INCBIN(capsim_pricing_zones, "zones.csv");
CAPSIM_INCBIN(capsim_pricing_spot_zone_factors, "spot_zone_factors.csv");

namespace capsim::catalog {

namespace {

std::string_view bytes(const char* begin, const char* end)
{
  return {begin, static_cast<std::size_t>(end - begin)};
}

} // namespace

const std::vector<EmbeddedFile>& embedded_files()
{
  static const std::vector<EmbeddedFile> k_files = {
      {"instance_types.csv", bytes(capsim_pricing_instance_types_begin, capsim_pricing_instance_types_end)},
      {"prices.csv", bytes(capsim_pricing_prices_begin, capsim_pricing_prices_end)},
      {"spot.csv", bytes(capsim_pricing_spot_begin, capsim_pricing_spot_end)},
      {"zones.csv", bytes(capsim_pricing_zones_begin, capsim_pricing_zones_end)},
      {"spot_zone_factors.csv", bytes(capsim_pricing_spot_zone_factors_begin, capsim_pricing_spot_zone_factors_end)},
  };
  return k_files;
}

} // namespace capsim::catalog
