#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

// The grid of a sweep: --vary axes, their cartesian product (the variants), the variant×seed
// cells and the share of cells a --shard runs. Pure values; no I/O.
namespace capsim::sweep {

// One --vary axis: a field path (as --set spells it) and the values it takes, in the order given.
struct Axis
{
  std::string name;                // label in reports: the NAME: prefix, else the last field of the path
  std::string path;                // --set PATH
  std::vector<std::string> values; // YAML texts; "" = null (the field's default)
  bool named = false;              // the name came from a NAME: prefix
};

// Parses `[NAME:]PATH=V1,V2,...`. Values are split at commas outside [], {} and quotes, so
// `PATH=[amd64],[amd64, arm64]` has two values. InputError at "--vary TEXT" when there is no
// '=', the path is empty, brackets or quotes do not balance, or a value repeats.
[[nodiscard]] Axis parse_axis(std::string_view text);

// Checks a list of axes and makes their names unique: two axes on one path, or two explicit
// NAME: prefixes alike, are an InputError; default names that collide become the full path.
void name_axes(std::vector<Axis>& axes);

// One design: a scenario file plus the --set overrides that make it. `sweep` builds them from
// the axes; `compare` from its scenario files and --variant options.
struct Variant
{
  std::string name;                 // "consolidateAfter=5m, arch=[arm64]"; "base" without axes
  std::string path;                 // the scenario file
  std::vector<std::string> sets;    // the global --set first, then one PATH=VALUE per axis
  std::vector<std::size_t> choice;  // index into each axis' values (empty for compare designs)
};

// The cartesian product of the axes in odometer order: the first axis varies slowest and the
// last fastest, each in the order its values were given. No axes: one variant, "base".
[[nodiscard]] std::vector<Variant> grid_variants(const std::string& path, const std::vector<Axis>& axes,
                                                 const std::vector<std::string>& sets);

// Number of variants of `axes` (product of the value counts), or InputError when the grid
// would exceed k_max_cells cells with `seeds` seeds each.
[[nodiscard]] std::size_t variant_count(const std::vector<Axis>& axes, std::size_t seeds);

// A value as reports show it: the text, or "(default)" for "".
[[nodiscard]] std::string value_label(const std::string& value);

// Cells are variant-major: cell i is variant i / seeds with seed offset i % seeds.
inline constexpr std::size_t k_max_cells = 1'000'000;
inline constexpr std::size_t k_max_seeds = 10'000;

// A deterministic share of the cells: those with i mod count == index.
struct Shard
{
  std::size_t index = 0;
  std::size_t count = 1;
};

// "I/N" with 0 <= I < N <= k_max_cells; InputError at "--shard TEXT" otherwise.
[[nodiscard]] Shard parse_shard(std::string_view text);

[[nodiscard]] inline bool in_shard(std::size_t cell, const Shard& shard)
{
  return cell % shard.count == shard.index;
}

} // namespace capsim::sweep
