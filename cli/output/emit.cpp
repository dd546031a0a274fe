#include "cli/output/emit.hpp"

#include "cli/output/files.hpp"
#include "core/base/diagnostics.hpp"
#include "core/base/quantity.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>

namespace capsim::cli {

report::Format choose_format(const std::string& requested, const std::string& out_path, bool stdout_is_tty)
{
  if (!requested.empty()) {
    const auto f = report::parse_format(requested);
    if (!f) {
      throw InputError(SourceLocation{"-o " + requested, 0, 0},
                       "unknown output format (expected table, json, csv, markdown or html)");
    }
    return *f;
  }
  if (!out_path.empty()) {
    const auto dot = out_path.rfind('.');
    const auto slash = out_path.rfind('/');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
      const std::string ext = out_path.substr(dot + 1);
      if (ext == "json") {
        return report::Format::json;
      }
      if (ext == "csv") {
        return report::Format::csv;
      }
      if (ext == "md" || ext == "markdown") {
        return report::Format::markdown;
      }
      if (ext == "html" || ext == "htm") {
        return report::Format::html;
      }
      if (ext == "txt") {
        return report::Format::table;
      }
    }
    return report::Format::json;
  }
  return stdout_is_tty ? report::Format::table : report::Format::json;
}

bool stdout_is_terminal()
{
  return ::isatty(STDOUT_FILENO) == 1;
}

bool color_wanted()
{
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return stdout_is_terminal() && (no_color == nullptr || no_color[0] == '\0') &&
         !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

void emit(const std::string& text, const std::string& out_path)
{
  if (out_path.empty() || out_path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  write_file_atomic(out_path, text);
}

void refuse_input_as_output(const std::string& out_path, const std::vector<std::string>& inputs)
{
  if (out_path.empty() || out_path == "-") {
    return;
  }
  for (const auto& in : inputs) {
    std::error_code ec;
    if (!in.empty() && std::filesystem::equivalent(out_path, in, ec) && !ec) {
      throw InputError(SourceLocation{out_path, 0, 0},
                       fmt::format("this is the input file '{}': writing the result here would replace it (expected "
                                   "another output path)",
                                   in));
    }
  }
}

std::vector<std::string> scenario_files(const model::Scenario& scenario)
{
  std::vector<std::string> out{scenario.source_path};
  for (const auto& t : scenario.traces) {
    out.push_back(t.path);
  }
  return out;
}

Duration parse_timeline_step(const std::string& text)
{
  const auto d = parse_duration(text);
  if (!d.ok()) {
    throw InputError(SourceLocation{"--timeline " + text, 0, 0}, d.error() + " (expected a duration such as 30s or 5m)");
  }
  if (*d <= 0) {
    throw InputError(SourceLocation{"--timeline " + text, 0, 0}, "the step must be longer than 0 (e.g. 30s or 5m)");
  }
  return *d;
}

Duration automatic_timeline_step(Duration scenario_duration)
{
  if (scenario_duration <= 0) {
    return k_minute;
  }
  const Duration step = (scenario_duration / 480 + k_second - 1) / k_second * k_second;
  return std::max<Duration>(step, 10 * k_second);
}

} // namespace capsim::cli
