#pragma once

#include "core/sweep/sweep.hpp"

#include <string>
#include <string_view>
#include <vector>

// `capsim sweep --shard I/N` output and `capsim sweep merge`: the raw cells of one share of a
// sweep as JSON, read back and reassembled into the report a local run gives.
namespace capsim::sweep {

// One shard's output: the sweep it belongs to and the cells it ran (cell order).
struct ShardResult
{
  std::string version;
  SweepSpec spec;
  Shard shard;
  std::vector<CellResult> cells;
};

// {"capsim": {"version"}, "kind": "capsim-sweep-shard", "shard": {"index", "count"},
//  "sweep": <spec>, "cells": [<cell>, ...]}: one cell per line, numbers as make_cell rounds
// them, so reading it back gives the same values to the bit. Ends with a newline.
[[nodiscard]] std::string render_shard_json(const ShardResult& shard);

// Reads a shard back. InputError "SOURCE:LINE:COL: error: ..." on malformed JSON, a missing or
// mistyped field, or a cell that does not belong to the shard.
[[nodiscard]] ShardResult parse_shard_json(std::string_view text, const std::string& source);

// Reassembles shards (any order) into the report of the whole sweep. InputError, naming the
// file, when shards come from different sweeps or capsim versions, a shard index repeats, or
// cells are missing (the message lists the shards not given).
[[nodiscard]] SweepReport merge_shards(const std::vector<ShardResult>& shards, const std::vector<std::string>& sources);

// The pieces, for the report's JSON: the spec object (block, at `indent`) and a cell (one line).
[[nodiscard]] std::string render_spec_json(const SweepSpec& spec, int indent);
[[nodiscard]] std::string render_cell_json(const CellResult& cell);

} // namespace capsim::sweep
