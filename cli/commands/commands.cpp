#include "cli/commands/commands.hpp"

#include <algorithm>
#include <string>

namespace capsim::cli {

const CLI::Validator& seed_check()
{
  static const CLI::Validator check(
      [](const std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 19
                            && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits || (text.size() == 19 && text > "9223372036854775807")) {
          return "'" + text + "' is not a seed (expected a whole number from 0 to 9223372036854775807, as spec.seed)";
        }
        return {};
      },
      "SEED");
  return check;
}

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
