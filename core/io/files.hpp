#pragma once

#include "core/base/diagnostics.hpp"

#include <fstream>
#include <string>
#include <string_view>

namespace capsim::io {

// The whole content of a text file. A missing or unreadable file is an InputError at
// `referenced_from` (the scenario line that names it) when given, else at the path itself.
// Files larger than `max_bytes` are refused.
[[nodiscard]] std::string read_text_file(const std::string& path, const SourceLocation& referenced_from = {},
                                         std::size_t max_bytes = std::size_t{256} << 20U);

// `path` as written in `base_file` (a scenario): relative paths are taken from the folder of
// base_file, absolute ones are kept.
[[nodiscard]] std::string resolve_relative(const std::string& base_file, const std::string& path);

// Opens `path` for streaming input; InputError (at referenced_from, if given) when it cannot.
[[nodiscard]] std::ifstream open_input(const std::string& path, const SourceLocation& referenced_from = {});

// Where an output named `path` is written. A path naming something other than a regular file
// or a folder (a terminal, /dev/null, a named pipe) or an open descriptor (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N) is written in place, appending: renaming a file over it would destroy it, and
// a descriptor the shell opened with `>>` must keep what it has (after `>` it is empty anyway). A
// symbolic link is followed to the file it names, which is then replaced, so the link stays.
// Everything else is replaced through a temporary file.
struct OutputTarget
{
  std::string path;    // the file replaced (the link's target), or the one written in place
  bool direct = false; // written in place: no temporary file, no rename
};
[[nodiscard]] OutputTarget output_target(const std::string& path);

// Writes a file so that readers never see a partial one: the data goes to a temporary file in
// the same folder, renamed over `path` by commit(). Without commit() (an exception on the way)
// the temporary file is removed. Outputs that are not files (output_target) are written in place.
class AtomicFile
{
public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  [[nodiscard]] std::ostream& stream() { return m_out; }

  // Flushes, checks for write errors and renames into place; InputError on failure.
  void commit();

private:
  std::string m_path;   // as given, for messages
  std::string m_target; // the file replaced (output_target)
  std::string m_temp;   // empty when written in place
  std::ofstream m_out;
  bool m_committed = false;
};

// write `content` to `path` through an AtomicFile.
void write_file_atomic(const std::string& path, std::string_view content);

} // namespace capsim::io
