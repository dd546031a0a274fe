#include "cli/commands/commands.hpp"

namespace capsim::cli {

void register_commands(CLI::App& app, CommandResult& result)
{
  add_run_command(app, result);
  add_compare_command(app, result);
  add_check_command(app, result);
  add_bound_command(app, result);
  add_sweep_command(app, result);
  add_preview_command(app, result);
  add_validate_command(app, result);
  add_catalog_command(app, result);
  add_trace_command(app, result);
}

} // namespace capsim::cli
