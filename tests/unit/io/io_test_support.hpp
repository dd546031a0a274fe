#pragma once

#include "core/base/diagnostics.hpp"
#include "core/io/scenario_yaml.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace capsim::iotest {

// The minimal valid stream: one Scenario document. Tests append documents to it.
inline const std::string k_scenario = "apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h}\n";

// Every diagnostic line of the InputError that parsing `text` (as "t.yaml") throws; empty when
// it parses.
inline std::vector<std::string> errors_of(const std::string& text, const std::vector<std::string>& sets = {})
{
  try {
    (void)io::parse_scenario(text, "t.yaml", sets);
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.diagnostics()) {
      out.push_back(format_diagnostic(d));
    }
    return out;
  }
  return {};
}

// Whether `lines` contains exactly `line`; prints them on failure through CAPTURE.
inline bool has_line(const std::vector<std::string>& lines, const std::string& line)
{
  for (const auto& l : lines) {
    if (l == line) {
      return true;
    }
  }
  return false;
}

} // namespace capsim::iotest

// REQUIRE that parsing TEXT reports exactly the diagnostic LINE (among possibly others).
#define REQUIRE_ERROR(TEXT, LINE)                                                                  \
  do {                                                                                             \
    const auto capsim_errors = ::capsim::iotest::errors_of(TEXT);                                  \
    CAPTURE(capsim_errors);                                                                        \
    REQUIRE(::capsim::iotest::has_line(capsim_errors, LINE));                                      \
  } while (false)
