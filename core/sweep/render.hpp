#pragma once

#include "core/report/render.hpp"
#include "core/sweep/sweep.hpp"

#include <string>

// The sweep report in every -o format. Pure functions of the report: the same report gives
// byte-identical text, so a local run and `sweep merge` of its shards print the same bytes.
namespace capsim::sweep {

// Plain text for a terminal: a header (scenario, variants × seeds, seed range), one row per
// variant and engine with the axis values and mean ± 95% half-width of cost, node-hours,
// pending p95, unschedulable pods and spot interruptions, '*' on Pareto rows, and a legend.
[[nodiscard]] std::string render_table(const SweepReport& report);

// The same rows as a GitHub-flavoured Markdown table.
[[nodiscard]] std::string render_markdown(const SweepReport& report);

// {"capsim", "kind": "capsim-sweep", "sweep": <spec>, "variants": [...], "summary": [{"variant",
// "name", "engine", "runs", "pareto", <metric>: {"mean", "stddev", "ci95_low", "ci95_high"}}...],
// "cells": [<raw cells>]}. ci95 bounds are null with one seed.
[[nodiscard]] std::string render_json(const SweepReport& report);

// One row per variant and engine: variant,name,vary:<axis>...,engine,runs, then per metric
// _mean,_stddev,_ci95_low,_ci95_high (bounds empty with one seed), then pareto (true/false).
[[nodiscard]] std::string render_csv(const SweepReport& report);

// One self-contained page (no scripts or external references): an inline SVG scatter chart
// (id chart-pareto) of mean cost vs mean pending p95 per variant and engine, with confidence
// whiskers, Pareto points highlighted and the front drawn as a staircase; the summary table
// (id summary); the raw cells in a <details> block.
[[nodiscard]] std::string render_html(const SweepReport& report);

// Dispatch by format (markdown included).
[[nodiscard]] std::string render(const SweepReport& report, report::Format format);

} // namespace capsim::sweep
