#pragma once

#include "core/base/diagnostics.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace capsim::io {

// Checks raw text before it reaches a recursive parser (yaml-cpp recurses per nesting level):
// no NUL bytes (binary files), valid UTF-8, and YAML/JSON nesting (block indentation levels,
// compact "- - -" sequences and flow brackets) at most `max_depth`. Throws InputError naming
// FILE:LINE:COL of the first problem. Conservative: it may count a level too many in odd
// plain scalars, never fewer for well-formed input.
void check_text(std::string_view text, const std::string& file, int max_depth = 64);

// The nesting estimate used by check_text, exposed for tests: the deepest level reached and,
// when it is over `max_depth`, the 1-based line and column where it was first exceeded.
struct NestingReport
{
  int max_depth = 0;
  std::size_t line = 0;
  std::size_t column = 0;
  // Where a document's root starts with ',' (yaml-cpp 0.7 loops forever allocating memory on
  // that), 0 when none does.
  std::size_t comma_line = 0;
  std::size_t comma_column = 0;
  bool comma_left_of_root = false; // that ',' starts a line left of its document's root
};

[[nodiscard]] NestingReport measure_nesting(std::string_view text, int max_depth);

// The largest scenario or kubectl file read whole (bytes); larger ones are refused.
inline constexpr std::size_t k_max_document_bytes = std::size_t{256} << 20U;

} // namespace capsim::io
