#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace capsim::cli {

// The subcommand that CLI11 parsed stores what to run here; main() runs it after parsing so
// that exceptions map to exit codes in one place.
struct CommandResult
{
  std::function<int()> action;
};

// --seed's check, on the text before CLI11 converts it (which would take -1 or 2^64 as the largest
// seed): a whole number from 0 to 2^63-1, as spec.seed.
[[nodiscard]] const CLI::Validator& seed_check();

// Each command file adds its subcommand (one file per command, as in mamba's micromamba).
void register_commands(CLI::App& app, CommandResult& result);

void add_catalog_command(CLI::App& app, CommandResult& result);
void add_run_command(CLI::App& app, CommandResult& result);
void add_validate_command(CLI::App& app, CommandResult& result);
void add_trace_command(CLI::App& app, CommandResult& result);
void add_compare_command(CLI::App& app, CommandResult& result);
void add_check_command(CLI::App& app, CommandResult& result);
void add_bound_command(CLI::App& app, CommandResult& result);
void add_sweep_command(CLI::App& app, CommandResult& result);
void add_preview_command(CLI::App& app, CommandResult& result);

} // namespace capsim::cli
