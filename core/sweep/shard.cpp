#include "core/sweep/shard.hpp"

#include "core/base/diagnostics.hpp"
#include "core/report/format.hpp"
#include "core/report/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace capsim::sweep {

namespace {

constexpr std::string_view k_kind = "capsim-sweep-shard";

std::string quote(std::string_view text)
{
  return "\"" + report::json_escape(text) + "\"";
}

std::string string_array(const std::vector<std::string>& items)
{
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i > 0 ? ", " : "") + quote(items[i]);
  }
  return out + "]";
}

std::string money(double v)
{
  return report::fixed_number(v, report::k_money_decimals);
}

std::string secs(double v)
{
  return report::fixed_number(v, report::k_seconds_decimals);
}

std::string ratio(double v)
{
  return report::fixed_number(v, report::k_ratio_decimals);
}

std::string hours(double v)
{
  return report::fixed_number(v, report::k_count_decimals);
}

std::string engine_json(const EngineMetrics& m)
{
  return "{\"engine\": " + quote(m.engine) + ", \"total_usd\": " + money(m.total_usd)
         + ", \"on_demand_usd\": " + money(m.on_demand_usd) + ", \"spot_usd\": " + money(m.spot_usd)
         + ", \"effective_total_usd\": " + money(m.effective_total_usd) + ", \"node_hours\": " + hours(m.node_hours)
         + ", \"nodes_launched\": " + std::to_string(m.nodes_launched) + ", \"nodes_peak\": " + std::to_string(m.nodes_peak)
         + ", \"pods_total\": " + std::to_string(m.pods_total) + ", \"unschedulable\": " + std::to_string(m.unschedulable)
         + ", \"evicted\": " + std::to_string(m.evicted) + ", \"pending_p50_s\": " + secs(m.pending_p50_s)
         + ", \"pending_p95_s\": " + secs(m.pending_p95_s) + ", \"pending_max_s\": " + secs(m.pending_max_s)
         + ", \"spot_interruptions\": " + std::to_string(m.spot_interruptions)
         + ", \"cpu_utilization\": " + ratio(m.cpu_utilization)
         + ", \"memory_utilization\": " + ratio(m.memory_utilization)
         + ", \"lower_bound_usd\": " + money(m.lower_bound_usd) + "}";
}

// Typed access to a parsed document, with errors located at the offending value.
class Reader
{
public:
  explicit Reader(std::string source) : m_source(std::move(source)) {}

  [[noreturn]] void fail(const report::json::Value& at, const std::string& message) const
  {
    throw InputError(SourceLocation{m_source, at.line, at.column}, message);
  }

  const report::json::Value& member(const report::json::Value& object, std::string_view key, std::string_view what) const
  {
    if (object.type != report::json::Value::Type::object) {
      fail(object, std::string(what) + " must be an object, not " + object.type_name());
    }
    const auto* v = object.find(key);
    if (v == nullptr) {
      fail(object, std::string(what) + " has no \"" + std::string(key) + "\" (is this a `capsim sweep --shard` output?)");
    }
    return *v;
  }

  const report::json::Value& typed(const report::json::Value& object, std::string_view key,
                                   report::json::Value::Type type, std::string_view expected, std::string_view what) const
  {
    const auto& v = member(object, key, what);
    if (v.type != type) {
      fail(v, "\"" + std::string(key) + "\" must be " + std::string(expected) + ", not " + v.type_name());
    }
    return v;
  }

  std::string string(const report::json::Value& object, std::string_view key, std::string_view what) const
  {
    return typed(object, key, report::json::Value::Type::string, "a string", what).text;
  }

  const report::json::Value& array(const report::json::Value& object, std::string_view key, std::string_view what) const
  {
    return typed(object, key, report::json::Value::Type::array, "an array", what);
  }

  // A finite number, read from its literal exactly as from_chars reads fixed_number text.
  double number(const report::json::Value& object, std::string_view key, std::string_view what) const
  {
    const auto& v = typed(object, key, report::json::Value::Type::number, "a number", what);
    double out = 0;
    const auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), out);
    if (ec != std::errc() || ptr != v.text.data() + v.text.size() || !std::isfinite(out)) {
      fail(v, "\"" + std::string(key) + "\" is not a finite number");
    }
    return out;
  }

  std::int64_t integer(const report::json::Value& object, std::string_view key, std::string_view what) const
  {
    const auto& v = typed(object, key, report::json::Value::Type::number, "a whole number", what);
    const auto i = v.integer();
    if (!i || *i < 0) {
      fail(v, "\"" + std::string(key) + "\" must be a whole number >= 0");
    }
    return *i;
  }

  std::uint64_t unsigned_integer(const report::json::Value& v, std::string_view key) const
  {
    if (v.type != report::json::Value::Type::number || !v.unsigned_integer()) {
      fail(v, "\"" + std::string(key) + "\" must be a whole number >= 0");
    }
    return *v.unsigned_integer();
  }

  std::uint64_t unsigned_integer(const report::json::Value& object, std::string_view key, std::string_view what) const
  {
    return unsigned_integer(member(object, key, what), key);
  }

  std::vector<std::string> strings(const report::json::Value& object, std::string_view key, std::string_view what) const
  {
    std::vector<std::string> out;
    for (const auto& item : array(object, key, what).items) {
      if (item.type != report::json::Value::Type::string) {
        fail(item, "\"" + std::string(key) + "\" must hold strings, not " + item.type_name());
      }
      out.push_back(item.text);
    }
    return out;
  }

  [[nodiscard]] const std::string& source() const { return m_source; }

private:
  std::string m_source;
};

SweepSpec parse_spec(const Reader& in, const report::json::Value& v)
{
  SweepSpec spec;
  spec.scenario_file = in.string(v, "scenario_file", "\"sweep\"");
  spec.sets = in.strings(v, "sets", "\"sweep\"");
  for (const auto& a : in.array(v, "axes", "\"sweep\"").items) {
    Axis axis;
    axis.name = in.string(a, "name", "an axis");
    axis.path = in.string(a, "path", "an axis");
    axis.values = in.strings(a, "values", "an axis");
    if (axis.values.empty()) {
      in.fail(a, "an axis needs at least one value");
    }
    spec.axes.push_back(std::move(axis));
  }
  const auto& seeds = in.member(v, "seeds", "\"sweep\"");
  spec.seeds = static_cast<std::size_t>(in.unsigned_integer(seeds, "seeds"));
  if (spec.seeds < 1 || spec.seeds > k_max_seeds) {
    in.fail(seeds, "\"seeds\" must be between 1 and " + std::to_string(k_max_seeds));
  }
  const auto& seed = in.member(v, "seed", "\"sweep\"");
  if (seed.type != report::json::Value::Type::null) {
    spec.seed = in.unsigned_integer(seed, "seed");
  }
  spec.engine = in.string(v, "engine", "\"sweep\"");
  std::size_t variants = 0;
  try {
    variants = spec.variant_count();
  } catch (const InputError&) {
    in.fail(v, "the sweep has more than " + std::to_string(k_max_cells) + " cells");
  }
  const auto& declared_variants = in.member(v, "variants", "\"sweep\"");
  const auto& declared_cells = in.member(v, "cells", "\"sweep\"");
  if (in.unsigned_integer(declared_variants, "variants") != variants) {
    in.fail(declared_variants, "\"variants\" does not match the axes (" + std::to_string(variants) + ")");
  }
  if (in.unsigned_integer(declared_cells, "cells") != variants * spec.seeds) {
    in.fail(declared_cells, "\"cells\" does not match variants x seeds (" + std::to_string(variants * spec.seeds) + ")");
  }
  return spec;
}

EngineMetrics parse_engine(const Reader& in, const report::json::Value& v)
{
  constexpr std::string_view what = "a cell result";
  EngineMetrics m;
  m.engine = in.string(v, "engine", what);
  m.total_usd = in.number(v, "total_usd", what);
  m.on_demand_usd = in.number(v, "on_demand_usd", what);
  m.spot_usd = in.number(v, "spot_usd", what);
  m.effective_total_usd = in.number(v, "effective_total_usd", what);
  m.node_hours = in.number(v, "node_hours", what);
  m.nodes_launched = in.integer(v, "nodes_launched", what);
  m.nodes_peak = in.integer(v, "nodes_peak", what);
  m.pods_total = in.integer(v, "pods_total", what);
  m.unschedulable = in.integer(v, "unschedulable", what);
  m.evicted = in.integer(v, "evicted", what);
  m.pending_p50_s = in.number(v, "pending_p50_s", what);
  m.pending_p95_s = in.number(v, "pending_p95_s", what);
  m.pending_max_s = in.number(v, "pending_max_s", what);
  m.spot_interruptions = in.integer(v, "spot_interruptions", what);
  m.cpu_utilization = in.number(v, "cpu_utilization", what);
  m.memory_utilization = in.number(v, "memory_utilization", what);
  m.lower_bound_usd = in.number(v, "lower_bound_usd", what);
  return m;
}

CellResult parse_cell(const Reader& in, const report::json::Value& v, const SweepSpec& spec, const Shard& shard,
                      std::size_t total)
{
  constexpr std::string_view what = "a cell";
  CellResult c;
  const auto& index = in.member(v, "cell", what);
  c.cell = static_cast<std::size_t>(in.unsigned_integer(index, "cell"));
  if (c.cell >= total) {
    in.fail(index, "cell " + std::to_string(c.cell) + " is outside the grid (" + std::to_string(total) + " cells)");
  }
  if (!in_shard(c.cell, shard)) {
    in.fail(index, "cell " + std::to_string(c.cell) + " does not belong to shard " + std::to_string(shard.index) + "/"
                       + std::to_string(shard.count));
  }
  const auto& variant = in.member(v, "variant", what);
  c.variant = static_cast<std::size_t>(in.unsigned_integer(variant, "variant"));
  if (c.variant != c.cell / spec.seeds) {
    in.fail(variant, "cell " + std::to_string(c.cell) + " belongs to variant " + std::to_string(c.cell / spec.seeds));
  }
  c.seed = in.unsigned_integer(v, "seed", what);
  c.scenario = in.string(v, "scenario", what);
  c.region = in.string(v, "region", what);
  c.duration_s = in.number(v, "duration_s", what);
  for (const auto& r : in.array(v, "results", what).items) {
    c.engines.push_back(parse_engine(in, r));
  }
  return c;
}

} // namespace

std::string render_spec_json(const SweepSpec& spec, int indent)
{
  const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
  std::string out = "{\n";
  out += pad + "\"scenario_file\": " + quote(spec.scenario_file) + ",\n";
  out += pad + "\"sets\": " + string_array(spec.sets) + ",\n";
  if (spec.axes.empty()) {
    out += pad + "\"axes\": [],\n";
  } else {
    out += pad + "\"axes\": [\n";
    for (std::size_t i = 0; i < spec.axes.size(); ++i) {
      const auto& a = spec.axes[i];
      out += pad + "  {\"name\": " + quote(a.name) + ", \"path\": " + quote(a.path)
             + ", \"values\": " + string_array(a.values) + "}" + (i + 1 < spec.axes.size() ? ",\n" : "\n");
    }
    out += pad + "],\n";
  }
  out += pad + "\"seeds\": " + std::to_string(spec.seeds) + ",\n";
  out += pad + "\"seed\": " + (spec.seed ? std::to_string(*spec.seed) : std::string("null")) + ",\n";
  out += pad + "\"engine\": " + quote(spec.engine) + ",\n";
  out += pad + "\"variants\": " + std::to_string(spec.variant_count()) + ",\n";
  out += pad + "\"cells\": " + std::to_string(spec.cell_count()) + "\n";
  return out + std::string(static_cast<std::size_t>(indent), ' ') + "}";
}

std::string render_cell_json(const CellResult& cell)
{
  std::string out = "{\"cell\": " + std::to_string(cell.cell) + ", \"variant\": " + std::to_string(cell.variant)
                    + ", \"seed\": " + std::to_string(cell.seed) + ", \"scenario\": " + quote(cell.scenario)
                    + ", \"region\": " + quote(cell.region) + ", \"duration_s\": " + secs(cell.duration_s)
                    + ", \"results\": [";
  for (std::size_t i = 0; i < cell.engines.size(); ++i) {
    out += (i > 0 ? ", " : "") + engine_json(cell.engines[i]);
  }
  return out + "]}";
}

std::string render_shard_json(const ShardResult& shard)
{
  std::string out = "{\n";
  out += "  \"capsim\": {\"version\": " + quote(shard.version) + "},\n";
  out += "  \"kind\": " + quote(k_kind) + ",\n";
  out += "  \"shard\": {\"index\": " + std::to_string(shard.shard.index)
         + ", \"count\": " + std::to_string(shard.shard.count) + "},\n";
  out += "  \"sweep\": " + render_spec_json(shard.spec, 2) + ",\n";
  if (shard.cells.empty()) {
    out += "  \"cells\": []\n";
  } else {
    out += "  \"cells\": [\n";
    for (std::size_t i = 0; i < shard.cells.size(); ++i) {
      out += "    " + render_cell_json(shard.cells[i]) + (i + 1 < shard.cells.size() ? ",\n" : "\n");
    }
    out += "  ]\n";
  }
  return out + "}\n";
}

ShardResult parse_shard_json(std::string_view text, const std::string& source)
{
  const report::json::Value doc = report::json::parse(text, source);
  const Reader in(source);
  if (doc.type != report::json::Value::Type::object) {
    in.fail(doc, "expected a `capsim sweep --shard` JSON object, not " + doc.type_name());
  }
  const auto& kind = in.member(doc, "kind", "the shard");
  if (kind.type != report::json::Value::Type::string || kind.text != k_kind) {
    in.fail(kind, "\"kind\" must be \"" + std::string(k_kind) + "\" (merge the --shard outputs, not reports)");
  }
  ShardResult out;
  out.version = in.string(in.member(doc, "capsim", "the shard"), "version", "\"capsim\"");
  const auto& shard = in.member(doc, "shard", "the shard");
  const auto& count = in.member(shard, "count", "\"shard\"");
  const auto& index = in.member(shard, "index", "\"shard\"");
  out.shard.count = static_cast<std::size_t>(in.unsigned_integer(count, "count"));
  out.shard.index = static_cast<std::size_t>(in.unsigned_integer(index, "index"));
  if (out.shard.count < 1 || out.shard.count > k_max_cells) {
    in.fail(count, "\"count\" must be between 1 and " + std::to_string(k_max_cells));
  }
  if (out.shard.index >= out.shard.count) {
    in.fail(index, "\"index\" must be below \"count\"");
  }
  out.spec = parse_spec(in, in.member(doc, "sweep", "the shard"));
  const std::size_t total = out.spec.cell_count();
  std::size_t last = 0;
  for (const auto& c : in.array(doc, "cells", "the shard").items) {
    CellResult cell = parse_cell(in, c, out.spec, out.shard, total);
    if (!out.cells.empty() && cell.cell <= last) {
      in.fail(c, "cells must be in increasing cell order (cell " + std::to_string(cell.cell) + " after "
                     + std::to_string(last) + ")");
    }
    last = cell.cell;
    out.cells.push_back(std::move(cell));
  }
  return out;
}

SweepReport merge_shards(const std::vector<ShardResult>& shards, const std::vector<std::string>& sources)
{
  CAPSIM_CHECK(shards.size() == sources.size(), "merge_shards: one source per shard");
  if (shards.empty()) {
    throw InputError(SourceLocation{"capsim sweep merge", 0, 0}, "no shard files given");
  }
  const ShardResult& first = shards.front();
  const std::string spec_text = render_spec_json(first.spec, 0);
  std::vector<std::size_t> given(first.shard.count, shards.size()); // shard index -> position in `shards`
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const auto& s = shards[i];
    const SourceLocation at{sources[i], 0, 0};
    if (s.version != first.version) {
      throw InputError(at, "this shard was made by capsim " + s.version + " but " + sources[0] + " by capsim "
                               + first.version + " (run every shard with the same capsim)");
    }
    if (render_spec_json(s.spec, 0) != spec_text) {
      throw InputError(at, "this shard belongs to a different sweep than " + sources[0]
                               + " (scenario file, --set, --vary, --seeds, --seed or -e differ)");
    }
    if (s.shard.count != first.shard.count) {
      throw InputError(at, "this shard is one of " + std::to_string(s.shard.count) + " but " + sources[0]
                               + " is one of " + std::to_string(first.shard.count));
    }
    if (given[s.shard.index] != shards.size()) {
      throw InputError(at, "shard " + std::to_string(s.shard.index) + "/" + std::to_string(s.shard.count)
                               + " is also in " + sources[given[s.shard.index]]);
    }
    given[s.shard.index] = i;
  }
  std::string missing;
  std::size_t missing_count = 0;
  for (std::size_t k = 0; k < given.size(); ++k) {
    if (given[k] == shards.size()) {
      if (missing_count < 20) {
        missing += (missing.empty() ? "" : ", ") + std::to_string(k);
      }
      ++missing_count;
    }
  }
  if (missing_count > 0) {
    throw InputError(SourceLocation{"capsim sweep merge", 0, 0},
                     "missing shard" + std::string(missing_count > 1 ? "s " : " ") + missing
                         + (missing_count > 20 ? ", ..." : "") + " of " + std::to_string(first.shard.count) + " ("
                         + std::to_string(missing_count) + " not given)");
  }
  const std::size_t total = first.spec.cell_count();
  std::vector<CellResult> cells;
  cells.reserve(total);
  std::vector<bool> seen(total, false);
  for (const auto& s : shards) {
    for (const auto& c : s.cells) {
      seen[c.cell] = true;
      cells.push_back(c);
    }
  }
  for (std::size_t k = 0; k < total; ++k) {
    if (!seen[k]) {
      const std::size_t owner = k % first.shard.count;
      throw InputError(SourceLocation{sources[given[owner]], 0, 0},
                       "cell " + std::to_string(k) + " is missing from this shard (an incomplete file?)");
    }
  }
  return build_report(first.version, first.spec, std::move(cells));
}

} // namespace capsim::sweep
