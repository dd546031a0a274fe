#pragma once

#include "core/base/diagnostics.hpp"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// Checks raw text before it reaches a recursive parser (yaml-cpp recurses per nesting level):
// no NUL bytes (binary files), valid UTF-8, and YAML/JSON nesting (block indentation levels,
// compact "- - -" sequences and flow brackets) at most `max_depth`. Throws InputError naming
// FILE:LINE:COL of the first problem. Conservative: it may count a level too many in odd
// plain scalars, never fewer for well-formed input.
void check_text(std::string_view text, const std::string& file, int max_depth = 64);

// Walks the YAML stream's documents with yaml-cpp's event parser before YAML::LoadAll builds
// them: yaml-cpp 0.7's LoadAll loops forever, allocating, when a document starts at a token the
// parser does not consume (a ',' after a root node is one such; check_text refuses the forms
// known). Two documents starting at the same place, or more documents than lines, mean that
// loop: throws InputError at FILE:LINE:COL of the token. Syntax errors are left to the caller's
// parse, which reports them with the same position.
void check_yaml_documents(std::string_view text, const std::string& file);

// YAML::Load and YAML::LoadAll over the text in place (theirs from a std::string copy it into a
// stream first: twice the text, which a dump of a large cluster feels). Throw as they do.
[[nodiscard]] YAML::Node load_yaml(std::string_view text);
[[nodiscard]] std::vector<YAML::Node> load_yaml_documents(std::string_view text);

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
