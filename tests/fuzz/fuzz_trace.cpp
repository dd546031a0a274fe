// libFuzzer target: one trace reader (CAPSIM_FUZZ_FORMAT = csv, jsonl, openb or kubectl). Any
// input must either read or throw capsim::InputError; anything else is a finding. Pods that
// were read are written back and read again, which fuzzes write_trace and the round trip.
#include "core/base/diagnostics.hpp"
#include "core/io/trace.hpp"
#include "core/io/trace_stats.hpp"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#define CAPSIM_STR2(x) #x
#define CAPSIM_STR(x) CAPSIM_STR2(x)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const auto format = *capsim::io::parse_trace_format(CAPSIM_STR(CAPSIM_FUZZ_FORMAT));
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const auto pods = capsim::io::read_trace(in, format, "fuzz.trace");
    (void)capsim::io::trace_stats(pods);
    std::ostringstream out;
    capsim::io::write_trace(out, pods, capsim::io::TraceFormat::csv);
    std::istringstream back(out.str());
    const auto again = capsim::io::read_trace(back, capsim::io::TraceFormat::csv, "roundtrip.csv");
    if (again.size() != pods.size()) {
      __builtin_trap(); // a written trace must read back
    }
  } catch (const capsim::InputError&) {
    // Refused cleanly.
  }
  return 0;
}
