#include "core/base/diagnostics.hpp"

#include <fmt/format.h>

namespace capsim {

std::string format_diagnostic(const Diagnostic& diagnostic)
{
  const auto& loc = diagnostic.location;
  std::string where = loc.file.empty() ? std::string("<input>") : loc.file;
  if (loc.line > 0) {
    where += fmt::format(":{}", loc.line);
    if (loc.column > 0) {
      where += fmt::format(":{}", loc.column);
    }
  }
  return fmt::format("{}: error: {}", where, diagnostic.message);
}

void Diagnostics::error(SourceLocation location, std::string message)
{
  if (m_items.size() < k_max_errors) {
    m_items.push_back({std::move(location), std::move(message)});
  }
}

void Diagnostics::throw_if_any() const
{
  if (!m_items.empty()) {
    throw InputError(m_items);
  }
}

namespace {

std::string join(const std::vector<Diagnostic>& items)
{
  std::string out;
  for (const auto& d : items) {
    if (!out.empty()) {
      out += '\n';
    }
    out += format_diagnostic(d);
  }
  return out;
}

} // namespace

InputError::InputError(std::vector<Diagnostic> diagnostics)
  : std::runtime_error(join(diagnostics)), m_diagnostics(std::move(diagnostics))
{
}

InputError::InputError(SourceLocation location, const std::string& message)
  : InputError(std::vector<Diagnostic>{{std::move(location), message}})
{
}

} // namespace capsim
