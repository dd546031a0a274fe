#include "cli/commands/commands.hpp"

namespace capsim::cli {

void add_run_command(CLI::App& app, CommandResult& result)
{
  auto* cmd = app.add_subcommand("run", "run (not yet implemented)");
  cmd->callback([&result] { result.action = [] { return 3; }; });
}

} // namespace capsim::cli
