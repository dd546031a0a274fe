#pragma once

#include <string>
#include <string_view>

namespace capsim::cli {

// Writes a file so that nobody ever sees a partial one: the bytes go to a fresh temporary
// file in the same folder (same filesystem, so the rename is atomic), are flushed to disk, and
// commit() renames it over `path`. Destroyed without commit() (an error or exception on the
// way) it removes the temporary file and leaves `path` exactly as it was. A new file gets the
// usual 0666 & ~umask mode; replacing a file keeps that file's mode. A symbolic link is followed
// (the file it names is replaced, the link stays); a path that is not a file (/dev/stdout, a
// named pipe) is written in place (io::output_target).
class AtomicWriter
{
public:
  // InputError "PATH: error: cannot write ..." when the folder is missing or not writable.
  explicit AtomicWriter(std::string path);
  ~AtomicWriter();
  AtomicWriter(const AtomicWriter&) = delete;
  AtomicWriter& operator=(const AtomicWriter&) = delete;

  // Appends bytes; InputError on a write error (disk full, ...).
  void write(std::string_view bytes);

  // fsync, close and rename into place; InputError on failure (then nothing changed).
  void commit();

  [[nodiscard]] const std::string& temp_path() const { return m_temp; }

private:
  void discard() noexcept;

  std::string m_path;   // as given, for messages
  std::string m_target; // the file replaced (io::output_target)
  std::string m_temp;   // empty when written in place
  int m_fd = -1;
  bool m_committed = false;
};

// AtomicWriter in one call.
void write_file_atomic(const std::string& path, std::string_view content);

} // namespace capsim::cli
