#include "cli/commands/commands.hpp"

namespace capsim::cli {

void add_validate_command(CLI::App& app, CommandResult& result)
{
  auto* cmd = app.add_subcommand("validate", "validate (not yet implemented)");
  cmd->callback([&result] { result.action = [] { return 3; }; });
}

} // namespace capsim::cli
