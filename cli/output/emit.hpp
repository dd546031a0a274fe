#pragma once

#include "core/base/units.hpp"
#include "core/model/scenario.hpp"
#include "core/report/render.hpp"

#include <string>
#include <vector>

namespace capsim::cli {

// The -o format: the one asked for; else from the --out extension (.json, .csv, .md,
// .markdown, .html, .htm, .txt = table); else `table` when stdout is a terminal and `json`
// when it is not (a pipe or a file: machine output by default). InputError on an unknown name.
[[nodiscard]] report::Format choose_format(const std::string& requested, const std::string& out_path,
                                           bool stdout_is_terminal);

[[nodiscard]] bool stdout_is_terminal();

// ANSI colors for table deltas: stdout is a terminal, NO_COLOR is unset and TERM is not "dumb".
[[nodiscard]] bool color_wanted();

// Writes `text` to stdout, or atomically to `out_path` when it is not empty.
void emit(const std::string& text, const std::string& out_path);

// InputError at `out_path` when it names one of `inputs` (the same file, however spelled): the
// result would replace what it was made from. Commands call it before any work is done.
void refuse_input_as_output(const std::string& out_path, const std::vector<std::string>& inputs);

// The files a scenario was read from: the stream itself and its traces.
[[nodiscard]] std::vector<std::string> scenario_files(const model::Scenario& scenario);

// --timeline STEP ("30s", "5m"); InputError naming the option when invalid or zero.
[[nodiscard]] Duration parse_timeline_step(const std::string& text);

// The step used when an HTML report is asked for without --timeline: about 480 samples over
// the scenario duration, at least 10 s, in whole seconds (1 minute when the duration is open).
[[nodiscard]] Duration automatic_timeline_step(Duration scenario_duration);

} // namespace capsim::cli
