#include "core/sweep/runner.hpp"

#include "core/base/diagnostics.hpp"
#include "core/io/scenario_yaml.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace capsim::sweep {

std::vector<model::Scenario> load_variants(const std::vector<Variant>& variants)
{
  std::vector<model::Scenario> out;
  out.reserve(variants.size());
  for (const auto& v : variants) {
    out.push_back(io::load_scenario(v.path, v.sets));
  }
  return out;
}

std::vector<Cell> seed_cells(const std::vector<std::uint64_t>& first, std::size_t seeds)
{
  std::vector<Cell> out;
  out.reserve(first.size() * seeds);
  for (std::size_t i = 0; i < first.size(); ++i) {
    for (std::size_t k = 0; k < seeds; ++k) {
      out.push_back(Cell{i, first[i] + k}); // wraps modulo 2^64 like any seed arithmetic
    }
  }
  return out;
}

unsigned resolve_jobs(unsigned jobs)
{
  if (jobs > 0) {
    return jobs;
  }
  return std::max(1U, std::thread::hardware_concurrency());
}

void run_cells(const std::vector<model::Scenario>& scenarios, const std::vector<Cell>& cells,
               const RunnerOptions& options, const std::function<void(std::size_t, report::RunResult&&)>& consume)
{
  const std::size_t n = cells.size();
  if (n == 0) {
    return;
  }
  for (const auto& c : cells) {
    CAPSIM_CHECK(c.scenario < scenarios.size(), "run_cells: cell refers to a scenario that was not loaded");
  }
  const RunFunction run = options.run ? options.run : RunFunction(&sim::run_scenario);

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::vector<std::exception_ptr> errors(n);
  // Progress: each cell's own fraction, summed under a mutex so the callback is serialized.
  std::mutex progress_mutex;
  std::vector<double> fraction(n, 0.0);
  double done = 0;
  const auto report_progress = [&](std::size_t i, double f) {
    const std::lock_guard lock(progress_mutex);
    f = std::clamp(f, fraction[i], 1.0);
    done += f - fraction[i];
    fraction[i] = f;
    options.progress(std::clamp(done / static_cast<double>(n), 0.0, 1.0));
  };

  const auto worker = [&] {
    while (!stop.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= n) {
        return;
      }
      try {
        sim::RunOptions ro;
        ro.engines = options.engines;
        ro.seed = cells[i].seed;
        ro.timeline_step = options.timeline_step;
        ro.explain = options.explain;
        if (options.progress) {
          ro.progress = [&report_progress, i](double f) { report_progress(i, f); };
        }
        consume(i, run(scenarios[cells[i].scenario], ro));
        if (options.progress) {
          report_progress(i, 1.0);
        }
      } catch (...) {
        errors[i] = std::current_exception();
        stop.store(true);
      }
    }
  };

  const std::size_t threads = std::min<std::size_t>(resolve_jobs(options.jobs), n);
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::jthread> pool;
    pool.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t) {
      pool.emplace_back(worker);
    }
  } // jthreads join here
  // Cells are claimed in index order and every claimed cell finishes, so the lowest failing
  // cell always ran: the reported error does not depend on the thread count.
  for (const auto& e : errors) {
    if (e) {
      std::rethrow_exception(e);
    }
  }
}

std::vector<report::RunResult> run_cells(const std::vector<model::Scenario>& scenarios, const std::vector<Cell>& cells,
                                         const RunnerOptions& options)
{
  std::vector<report::RunResult> out(cells.size());
  run_cells(scenarios, cells, options,
            [&out](std::size_t i, report::RunResult&& result) { out[i] = std::move(result); });
  return out;
}

std::vector<CellResult> run_shard(const SweepSpec& spec, const std::vector<Variant>& variants, const Shard& shard,
                                  const RunnerOptions& options, const LoadFunction& load)
{
  CAPSIM_CHECK(variants.size() * spec.seeds == spec.cell_count(), "run_shard: variants do not match the spec");
  // This shard's cells, and the variants they need (ascending), loaded here.
  std::vector<std::size_t> cell_ids;
  std::vector<std::size_t> needed;
  for (std::size_t i = 0; i < spec.cell_count(); ++i) {
    if (in_shard(i, shard)) {
      cell_ids.push_back(i);
      if (needed.empty() || needed.back() != i / spec.seeds) {
        needed.push_back(i / spec.seeds);
      }
    }
  }
  std::vector<model::Scenario> scenarios;
  scenarios.reserve(needed.size());
  for (const auto v : needed) {
    scenarios.push_back(load ? load(variants[v]) : io::load_scenario(variants[v].path, variants[v].sets));
  }
  std::vector<Cell> cells;
  cells.reserve(cell_ids.size());
  for (const auto i : cell_ids) {
    const auto v = static_cast<std::size_t>(std::lower_bound(needed.begin(), needed.end(), i / spec.seeds) - needed.begin());
    cells.push_back(Cell{v, first_seed(spec, scenarios[v].settings.seed) + i % spec.seeds});
  }
  std::vector<CellResult> out(cells.size());
  run_cells(scenarios, cells, options, [&](std::size_t k, report::RunResult&& run) {
    out[k] = make_cell(cell_ids[k], cell_ids[k] / spec.seeds, run);
  });
  return out;
}

} // namespace capsim::sweep
