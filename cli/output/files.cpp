#include "cli/output/files.hpp"

#include "core/base/diagnostics.hpp"
#include "core/io/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace capsim::cli {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err)
{
  throw InputError(SourceLocation{path, 0, 0}, "cannot write " + path + ": " + what + ": " + std::strerror(err));
}

} // namespace

AtomicWriter::AtomicWriter(std::string path) : m_path(std::move(path))
{
  if (m_path.empty() || m_path.back() == '/') {
    throw InputError(SourceLocation{m_path, 0, 0}, "cannot write '" + m_path + "': not a file name");
  }
  const io::OutputTarget target = io::output_target(m_path);
  m_target = target.path;
  if (target.direct) {
    m_fd = ::open(m_target.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC); // (see io::OutputTarget)
    if (m_fd < 0) {
      fail(m_path, "cannot open it for writing", errno);
    }
    return;
  }
  const auto slash = m_target.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : m_target.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? m_target : m_target.substr(slash + 1);
  std::string pattern = dir + "." + name + ".tmp-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  m_fd = ::mkstemp(buffer.data());
  if (m_fd < 0) {
    fail(m_path, "cannot create a temporary file in its folder", errno);
  }
  m_temp = buffer.data();
  // mkstemp makes 0600 files; results are for sharing, so use the mode a plain create would
  // give (or the mode of the file being replaced).
  struct stat existing
  {
  };
  mode_t mode = 0;
  if (::stat(m_target.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
    mode = existing.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::fchmod(m_fd, mode);
}

AtomicWriter::~AtomicWriter()
{
  if (!m_committed) {
    discard();
  }
}

void AtomicWriter::discard() noexcept
{
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
  }
  if (!m_temp.empty()) {
    ::unlink(m_temp.c_str());
  }
}

void AtomicWriter::write(std::string_view bytes)
{
  CAPSIM_CHECK(m_fd >= 0 && !m_committed, "AtomicWriter::write after commit");
  while (!bytes.empty()) {
    const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int err = errno;
      discard();
      fail(m_path, "write error", err);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicWriter::commit()
{
  CAPSIM_CHECK(m_fd >= 0 && !m_committed, "AtomicWriter::commit twice");
  if (!m_temp.empty() && ::fsync(m_fd) != 0 && errno != EINVAL) {
    const int err = errno;
    discard();
    fail(m_path, "cannot flush to disk", err);
  }
  if (::close(m_fd) != 0) {
    const int err = errno;
    m_fd = -1;
    discard();
    fail(m_path, "write error", err);
  }
  m_fd = -1;
  if (m_temp.empty()) { // written in place
    m_committed = true;
    return;
  }
  if (::rename(m_temp.c_str(), m_target.c_str()) != 0) {
    const int err = errno;
    discard();
    fail(m_path, "cannot move the temporary file into place", err);
  }
  m_committed = true;
}

void write_file_atomic(const std::string& path, std::string_view content)
{
  AtomicWriter writer(path);
  writer.write(content);
  writer.commit();
}

} // namespace capsim::cli
