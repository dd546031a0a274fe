#include "core/io/files.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace capsim::io {

namespace {

SourceLocation where(const std::string& path, const SourceLocation& referenced_from)
{
  return referenced_from.file.empty() ? SourceLocation{path, 0, 0} : referenced_from;
}

std::string reason(const std::string& path)
{
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return "it is a folder";
  }
  if (!std::filesystem::exists(path, ec)) {
    return "no such file";
  }
  return std::strerror(errno);
}

} // namespace

std::string resolve_relative(const std::string& base_file, const std::string& path)
{
  const std::filesystem::path p(path);
  if (p.is_absolute() || base_file.empty()) {
    return path;
  }
  const std::filesystem::path base = std::filesystem::path(base_file).parent_path();
  if (base.empty()) {
    return path;
  }
  return (base / p).lexically_normal().string();
}

std::ifstream open_input(const std::string& path, const SourceLocation& referenced_from)
{
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(where(path, referenced_from), fmt::format("cannot read '{}': it is a folder", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(where(path, referenced_from), fmt::format("cannot read '{}': {}", path, reason(path)));
  }
  return in;
}

std::string read_text_file(const std::string& path, const SourceLocation& referenced_from, std::size_t max_bytes)
{
  std::ifstream in = open_input(path, referenced_from);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw InputError(where(path, referenced_from),
                     fmt::format("'{}' is too large ({} bytes; at most {} are read)", path, size, max_bytes));
  }
  std::string out;
  char buffer[65536];
  while (in) {
    in.read(buffer, sizeof buffer);
    out.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (out.size() > max_bytes) {
      throw InputError(where(path, referenced_from),
                       fmt::format("'{}' is too large (at most {} bytes are read)", path, max_bytes));
    }
  }
  if (in.bad()) {
    throw InputError(where(path, referenced_from), fmt::format("cannot read '{}': read error", path));
  }
  return out;
}

OutputTarget output_target(const std::string& path)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(path, ec); // as the kernel resolves it, /proc's magic links included
  if (!ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st)) {
    return {path, true};
  }
  // /dev/stdout, /dev/fd/N, /proc/self/fd/N: an open descriptor (perhaps a file the shell opened
  // for appending), not a name to replace.
  const auto descriptor = [](const fs::path& p) {
    const std::string s = p.lexically_normal().string();
    return s == "/dev/stdout" || s == "/dev/stderr" || s.rfind("/dev/fd/", 0) == 0 || s.rfind("/proc/", 0) == 0;
  };
  fs::path p(path);
  // A chain of links, as the kernel would follow it (it gives up after 40).
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    if (descriptor(p)) {
      return {path, true};
    }
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) {
      break;
    }
    p = to.is_absolute() ? to : (p.parent_path() / to).lexically_normal();
  }
  if (descriptor(p) && fs::exists(st)) {
    return {path, true};
  }
  return {p.string(), false};
}

AtomicFile::AtomicFile(std::string path) : m_path(std::move(path))
{
  const OutputTarget target = output_target(m_path);
  m_target = target.path;
  if (target.direct) {
    m_out.open(m_target, std::ios::binary | std::ios::app); // (appending: see OutputTarget)
  } else {
    const std::filesystem::path p(m_target);
    const std::string name = p.filename().string();
    const std::filesystem::path dir = p.parent_path();
    const std::string temp_name = fmt::format(".{}.tmp-{}", name, static_cast<long>(::getpid()));
    m_temp = dir.empty() ? temp_name : (dir / temp_name).string();
    m_out.open(m_temp, std::ios::binary | std::ios::trunc);
  }
  if (!m_out) {
    throw InputError(SourceLocation{m_path, 0, 0},
                     fmt::format("cannot write '{}': {}", m_path, std::strerror(errno)));
  }
}

AtomicFile::~AtomicFile()
{
  if (!m_committed) {
    m_out.close();
    std::error_code ec;
    if (!m_temp.empty()) {
      std::filesystem::remove(m_temp, ec);
    }
  }
}

void AtomicFile::commit()
{
  m_out.flush();
  const bool ok = static_cast<bool>(m_out);
  m_out.close();
  if (!ok || m_out.fail()) {
    throw InputError(SourceLocation{m_path, 0, 0}, fmt::format("cannot write '{}': write error", m_path));
  }
  if (m_temp.empty()) { // written in place
    m_committed = true;
    return;
  }
  std::error_code ec;
  std::filesystem::rename(m_temp, m_target, ec);
  if (ec) {
    throw InputError(SourceLocation{m_path, 0, 0}, fmt::format("cannot write '{}': {}", m_path, ec.message()));
  }
  m_committed = true;
}

void write_file_atomic(const std::string& path, std::string_view content)
{
  AtomicFile file(path);
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  file.commit();
}

} // namespace capsim::io
