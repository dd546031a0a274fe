#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace capsim {

// Where a piece of user input came from. line/column are 1-based; 0 means unknown
// (a whole-file problem), and the formatter then leaves them out.
struct SourceLocation
{
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  bool operator==(const SourceLocation&) const = default;
};

struct Diagnostic
{
  SourceLocation location;
  std::string message;
};

// "FILE:LINE:COL: error: message", the GCC form editors and CI annotate.
[[nodiscard]] std::string format_diagnostic(const Diagnostic& diagnostic);

// Errors collected while reading input, so several are reported at once.
class Diagnostics
{
public:
  void error(SourceLocation location, std::string message);

  [[nodiscard]] bool empty() const { return m_items.empty(); }

  [[nodiscard]] std::size_t size() const { return m_items.size(); }

  [[nodiscard]] const std::vector<Diagnostic>& items() const { return m_items; }

  // Throws InputError when any error was collected.
  void throw_if_any() const;

  // Collecting stops adding after this many, so hostile input cannot flood the terminal.
  static constexpr std::size_t k_max_errors = 50;

private:
  std::vector<Diagnostic> m_items;
};

// Bad user input: exit code 2. what() is every diagnostic, one per line.
class InputError : public std::runtime_error
{
public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  InputError(SourceLocation location, const std::string& message);

  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

private:
  std::vector<Diagnostic> m_diagnostics;
};

// A broken invariant inside capsim: exit code 3.
class InternalError : public std::logic_error
{
public:
  using std::logic_error::logic_error;
};

} // namespace capsim

#define CAPSIM_CHECK(cond, msg)                                                                    \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      throw ::capsim::InternalError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " \
                                    + (msg));                                                      \
    }                                                                                              \
  } while (false)
