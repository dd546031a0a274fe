// libFuzzer target: the `aws ec2 describe-capacity-reservations` reader. Any input must either
// read or throw capsim::InputError; anything else is a finding.
#include "core/base/diagnostics.hpp"
#include "core/io/capacity_reservations.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    (void)capsim::io::parse_capacity_reservations(std::string_view(reinterpret_cast<const char*>(data), size),
                                                  "fuzz.json");
  } catch (const capsim::InputError&) {
    // Refused cleanly.
  }
  return 0;
}
