#include "cli/commands/commands.hpp"
#include "core/base/diagnostics.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#endif

namespace {

#if defined(__GLIBC__) && defined(__linux__)
// Starts capsim again with glibc's heap on transparent huge pages (GLIBC_TUNABLES
// glibc.malloc.hugetlb=1, which glibc reads only at start-up), unless the environment already
// says either way. A replay reads nodes, pod lists and the solver's caches scattered over hundreds
// of MB: with 4 KiB pages most of those reads also missed the TLB, and the 1,000,000-pod week
// runs ~15% faster with 2 MiB ones (bench/RESULTS.md). Outputs do not depend on it
// (tests/cli/restart_test.sh). Not done where it cannot help: glibc before 2.35, THP off, under
// valgrind (it would stop following the process). The same start keeps up to 1,000 freed blocks
// per size in glibc's per-thread cache (glibc.malloc.tcache_count, default 7, also read only at
// start-up) unless the environment sets it: a solve frees and takes back thousands of small
// blocks of a few sizes, and with 7 most went through the heap's bins (the 100,000-pod week:
// 1.9% fewer instructions together with M_MXFAST below; same peak RSS).
void restart_with_huge_pages(char** argv)
{
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) {
    return; // set by the user (=0 turns it off) or by the start before this one
  }
  if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) {
    return;
  }
  int major = 0;
  int minor = 0;
  if (std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2 || major < 2 || (major == 2 && minor < 35)) {
    return;
  }
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  if (!std::getline(thp, modes) || modes.find("[never]") != std::string::npos) {
    return;
  }
  std::string value = "glibc.malloc.hugetlb=1";
  if (tunables == nullptr || std::strstr(tunables, "glibc.malloc.tcache_count") == nullptr) {
    value += ":glibc.malloc.tcache_count=1000";
  }
  if (tunables != nullptr && *tunables != '\0') {
    value = std::string(tunables) + ":" + value;
  }
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) == 0) {
    execv("/proc/self/exe", argv); // returns only when it failed: carry on as we are
  }
}
#endif

} // namespace

// Exit codes (SPEC §6): 0 ok; 1 `check` found a regression; 2 bad input or usage; 3 internal error.
int main(int argc, char** argv)
{
#if defined(__GLIBC__) && defined(__linux__)
  restart_with_huge_pages(argv);
#endif
#ifdef __GLIBC__
  // Blocks of 128 KiB and more are mapped and given back when freed. By default glibc raises
  // that threshold to the largest block freed so far (the trace reader's megabytes), after which
  // such blocks come from the heap, where a growing cluster's lists left holes that were never
  // reused: a 4,000-node day held 900 MB of RSS for 100 MB in use (265 MB with this).
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  // The heap grows and shrinks by 64 MiB, not by the request: a replay's steps free and take back
  // tens of MB, and each time the top was given back and faulted in again (on huge pages, zeroed
  // 2 MiB at a time). The 1,000,000-pod week took 18,000 page faults and 0.5-1.8 s of system
  // time; with this, 4,500 and 0.4-0.5 s, for 5 MB more peak RSS.
  mallopt(M_TOP_PAD, 64 * 1024 * 1024);
  // No fast bins (unless the environment sets glibc.malloc.mxfast): with them, every large
  // request first merged all freed small blocks (malloc_consolidate, ~1% of a week's replay);
  // the per-thread cache above serves the small ones instead.
  if (const char* tunables = std::getenv("GLIBC_TUNABLES");
      tunables == nullptr || std::strstr(tunables, "glibc.malloc.mxfast") == nullptr) {
    mallopt(M_MXFAST, 0);
  }
#endif
  CLI::App app{"capsim: offline cluster-capacity and cost simulator for Kubernetes on AWS.\n"
               "Replays a workload through Karpenter and Cluster Autoscaler models and reports\n"
               "nodes, cost, utilization, pending time and disruptions."};
  app.set_version_flag("--version", std::string("capsim ") + CAPSIM_VERSION);
  app.require_subcommand(1);
  app.footer("Examples:\n"
             "  capsim run scenarios/quickstart.yaml\n"
             "  capsim run scenarios/quickstart.yaml -e karpenter -o json --out result.json\n"
             "  capsim catalog list --where 'karpenter.k8s.aws/instance-family In m5'\n"
             "  capsim validate my-scenario.yaml");
  capsim::cli::CommandResult result;
  capsim::cli::register_commands(app, result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (result.action) {
      return result.action();
    }
    return 0;
  } catch (const capsim::InputError& e) {
    std::cerr << e.what() << '\n';
    return 2;
  } catch (const capsim::InternalError& e) {
    std::cerr << "capsim: internal error: " << e.what() << '\n';
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "capsim: out of memory\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "capsim: internal error: " << e.what() << '\n';
    return 3;
  }
}
