// Tests of cli/output (atomic result files, the progress bar). cli/ is an executable with no
// library target, so the two small units under test are compiled into this test directly.
#include "cli/output/files.cpp"    // NOLINT(bugprone-suspicious-include)
#include "cli/output/progress.cpp" // NOLINT(bugprone-suspicious-include)

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace capsim;
using namespace capsim::cli;

namespace {

// A fresh empty folder, removed at the end of the test.
struct TempDir
{
  std::filesystem::path path;

  TempDir()
  {
    char tmpl[] = "/tmp/capsim-out-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }

  ~TempDir() { std::filesystem::remove_all(path); }

  [[nodiscard]] std::vector<std::string> names() const
  {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string slurp(const std::filesystem::path& p)
{
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string read_all(std::FILE* f)
{
  std::rewind(f);
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    out.append(buf, n);
  }
  return out;
}

} // namespace

TEST_CASE("atomic write creates and replaces a file, leaving no temporary behind", "[cli][output][atomic]")
{
  TempDir dir;
  const auto target = (dir.path / "result.json").string();
  write_file_atomic(target, "first\n");
  CHECK(slurp(target) == "first\n");
  ::chmod(target.c_str(), 0640);
  write_file_atomic(target, "second, longer content\n");
  CHECK(slurp(target) == "second, longer content\n");
  CHECK(dir.names() == std::vector<std::string>{"result.json"});
  struct stat st
  {
  };
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640); // the replaced file's mode is kept
}

TEST_CASE("atomic write: no partial file on failure", "[cli][output][atomic]")
{
  TempDir dir;
  const auto target = (dir.path / "result.json").string();
  write_file_atomic(target, "the old complete result\n");
  SECTION("an error while producing the content leaves the old file untouched")
  {
    try {
      AtomicWriter writer(target);
      writer.write("{\"partial\": ");
      CHECK(std::filesystem::exists(writer.temp_path()));
      throw std::runtime_error("renderer failed half way");
    } catch (const std::runtime_error&) {
    }
    CHECK(slurp(target) == "the old complete result\n");
    CHECK(dir.names() == std::vector<std::string>{"result.json"});
  }
  SECTION("a missing folder is an input error and creates nothing")
  {
    const auto missing = (dir.path / "no-such-dir" / "out.json").string();
    try {
      write_file_atomic(missing, "x");
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(missing + ": error: cannot write " + missing) == 0);
    }
    CHECK(dir.names() == std::vector<std::string>{"result.json"});
  }
  SECTION("when the rename fails (the target is a folder) nothing is left behind")
  {
    const auto folder = dir.path / "taken";
    std::filesystem::create_directory(folder);
    std::ofstream(folder / "keep.txt") << "x";
    CHECK_THROWS_AS(write_file_atomic(folder.string(), "content"), InputError);
    CHECK(dir.names() == std::vector<std::string>{"result.json", "taken"});
    CHECK(slurp(folder / "keep.txt") == "x");
  }
  SECTION("a path ending in a slash is refused")
  {
    CHECK_THROWS_AS(write_file_atomic(dir.path.string() + "/", "x"), InputError);
  }
}

TEST_CASE("progress bar: never, and automatic off a terminal, print nothing", "[cli][output][progress]")
{
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ProgressBar never(ProgressMode::never, "run", f);
    never.update(0.5);
    never.update(1.0);
    CHECK_FALSE(never.enabled());
    ProgressBar automatic(ProgressMode::automatic, "run", f); // a file is not a terminal
    automatic.update(0.5);
    CHECK_FALSE(automatic.enabled());
  }
  CHECK(read_all(f).empty());
  std::fclose(f);
}

TEST_CASE("progress bar: always, off a terminal, writes a line per 10% step", "[cli][output][progress]")
{
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ProgressBar bar(ProgressMode::always, "karpenter", f);
    CHECK(bar.enabled());
    for (int i = 0; i <= 100; i += 5) {
      bar.update(i / 100.0);
    }
    bar.update(2.0); // clamped, no new line
  }
  const auto text = read_all(f);
  std::fclose(f);
  CHECK(text.rfind("karpenter: 0%\nkarpenter: 10%\nkarpenter: 20%\n", 0) == 0);
  CHECK(text.find("karpenter: 100%\n") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 11);
  CHECK(text.find('\r') == std::string::npos);
  CHECK(parse_progress_mode("auto") == ProgressMode::automatic);
  CHECK(parse_progress_mode("always") == ProgressMode::always);
  CHECK(parse_progress_mode("never") == ProgressMode::never);
  CHECK_FALSE(parse_progress_mode("sometimes").has_value());
}
