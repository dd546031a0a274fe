#include "core/report/json.hpp"

#include "core/report/format.hpp"
#include "core/report/json_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>
#include <vector>

namespace capsim::report {

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>; // key, raw JSON value

std::string quote(std::string_view text)
{
  return "\"" + json_escape(text) + "\"";
}

std::string money(double v)
{
  return fixed_number(v, k_money_decimals);
}

std::string ratio(double v)
{
  return fixed_number(v, k_ratio_decimals);
}

std::string secs(double v)
{
  return fixed_number(v, k_seconds_decimals);
}

std::string avg(double v)
{
  return fixed_number(v, k_count_decimals);
}

std::string integer(std::int64_t v)
{
  return std::to_string(v);
}

// {"a": 1, "b": 2} on one line.
std::string inline_object(const Fields& fields)
{
  std::string out = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += quote(fields[i].first) + ": " + fields[i].second;
  }
  return out + "}";
}

// A multi-line object: one "key": value per line at `indent` + 2 spaces.
std::string block_object(const Fields& fields, int indent)
{
  if (fields.empty()) {
    return "{}";
  }
  const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
  std::string out = "{\n";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    out += pad + quote(fields[i].first) + ": " + fields[i].second;
    out += i + 1 < fields.size() ? ",\n" : "\n";
  }
  return out + std::string(static_cast<std::size_t>(indent), ' ') + "}";
}

// An array with one (already rendered, single-line or block) item per line.
std::string block_array(const std::vector<std::string>& items, int indent)
{
  if (items.empty()) {
    return "[]";
  }
  const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
  std::string out = "[\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += pad + items[i];
    out += i + 1 < items.size() ? ",\n" : "\n";
  }
  return out + std::string(static_cast<std::size_t>(indent), ' ') + "]";
}

std::string engine_object(const EngineResult& r, int indent)
{
  Fields by_pool;
  for (const auto& [pool, usd] : r.cost.by_pool) {
    by_pool.emplace_back(pool, money(usd));
  }
  Fields f;
  f.emplace_back("engine", quote(r.engine));
  f.emplace_back("cost", inline_object({{"total_usd", money(r.cost.total_usd)},
                                        {"on_demand_usd", money(r.cost.on_demand_usd)},
                                        {"spot_usd", money(r.cost.spot_usd)},
                                        {"by_pool", inline_object(by_pool)},
                                        {"effective_total_usd", money(r.cost.effective_total_usd)}}));
  f.emplace_back("nodes", inline_object({{"launched", integer(r.nodes.launched)},
                                         {"terminated", integer(r.nodes.terminated)},
                                         {"peak", integer(r.nodes.peak)},
                                         {"average", avg(r.nodes.average)},
                                         {"final", integer(r.nodes.final_count)},
                                         {"node_hours", avg(r.nodes.node_hours)}}));
  f.emplace_back("pods", inline_object({{"total", integer(r.pods.total)},
                                        {"scheduled", integer(r.pods.scheduled)},
                                        {"unschedulable", integer(r.pods.unschedulable)},
                                        {"evicted", integer(r.pods.evicted)},
                                        {"pending_p50_s", secs(r.pods.pending_p50_s)},
                                        {"pending_p95_s", secs(r.pods.pending_p95_s)},
                                        {"pending_max_s", secs(r.pods.pending_max_s)},
                                        {"lost", integer(r.pods.lost)}}));
  f.emplace_back("utilization", inline_object({{"cpu", ratio(r.utilization.cpu)}, {"memory", ratio(r.utilization.memory)}}));
  f.emplace_back("disruptions", inline_object({{"emptiness", integer(r.disruptions.emptiness)},
                                               {"consolidation_delete", integer(r.disruptions.consolidation_delete)},
                                               {"consolidation_replace", integer(r.disruptions.consolidation_replace)},
                                               {"expiration", integer(r.disruptions.expiration)},
                                               {"drift", integer(r.disruptions.drift)},
                                               {"spot_interruption", integer(r.disruptions.spot_interruption)},
                                               {"scale_down", integer(r.disruptions.scale_down)}}));
  f.emplace_back("lower_bound", inline_object({{"total_usd", money(r.lower_bound.total_usd)},
                                               {"efficiency", ratio(r.lower_bound.efficiency)}}));
  std::vector<std::string> nodes;
  for (const auto& n : r.final_nodes) {
    nodes.push_back(inline_object({{"name", quote(n.name)},
                                   {"instance_type", quote(n.instance_type)},
                                   {"zone", quote(n.zone)},
                                   {"capacity_type", quote(n.capacity_type)},
                                   {"pool", quote(n.pool)},
                                   {"price_per_hour", money(n.price_per_hour)},
                                   {"pods", integer(n.pods)}}));
  }
  f.emplace_back("final_nodes", block_array(nodes, indent + 2));
  if (!r.warnings.empty()) {
    std::vector<std::string> warnings;
    for (const auto& w : r.warnings) {
      warnings.push_back(quote(w));
    }
    f.emplace_back("warnings", block_array(warnings, indent + 2));
  }
  if (!r.timeline.empty()) {
    std::vector<std::string> rows;
    for (const auto& t : r.timeline) {
      Fields types;
      for (const auto& [type, count] : t.nodes_by_type) {
        types.emplace_back(type, integer(count));
      }
      rows.push_back(inline_object({{"t_s", seconds_text(t.t)},
                                    {"nodes", integer(t.nodes)},
                                    {"cost_per_hour", money(t.cost_rate_per_hour)},
                                    {"cost_cumulative_usd", money(t.cost_cumulative)},
                                    {"pending", integer(t.pending)},
                                    {"cpu_requested_millis", integer(t.cpu_requested_m)},
                                    {"cpu_allocatable_millis", integer(t.cpu_allocatable_m)},
                                    {"memory_requested_bytes", integer(t.memory_requested)},
                                    {"memory_allocatable_bytes", integer(t.memory_allocatable)},
                                    {"nodes_by_type", inline_object(types)}}));
    }
    f.emplace_back("timeline", block_array(rows, indent + 2));
  }
  if (!r.decisions.empty()) {
    std::vector<std::string> rows;
    for (const auto& d : r.decisions) {
      rows.push_back(inline_object({{"t_s", seconds_text(d.t)},
                                    {"method", quote(d.method)},
                                    {"action", quote(d.action)},
                                    {"candidate", quote(d.candidate)},
                                    {"detail", quote(d.detail)},
                                    {"saving_per_hour", money(d.saving_per_hour)}}));
    }
    f.emplace_back("decisions", block_array(rows, indent + 2));
  }
  return block_object(f, indent);
}

std::string version_of(const RunResult& run)
{
  return run.version.empty() ? std::string(CAPSIM_VERSION) : run.version;
}

// The run's top-level fields (without the braces), after optional leading fields.
Fields run_fields(const RunResult& run, int indent)
{
  Fields f;
  f.emplace_back("scenario", quote(run.scenario));
  f.emplace_back("seed", std::to_string(run.seed));
  f.emplace_back("region", quote(run.region));
  f.emplace_back("duration_s", seconds_text(run.duration));
  std::vector<std::string> results;
  for (const auto& r : run.results) {
    results.push_back(engine_object(r, indent + 2));
  }
  f.emplace_back("results", block_array(results, indent));
  return f;
}

} // namespace

std::string render_json(const RunResult& run)
{
  Fields f;
  f.emplace_back("capsim", inline_object({{"version", quote(version_of(run))}}));
  for (auto& field : run_fields(run, 2)) {
    f.push_back(std::move(field));
  }
  return block_object(f, 0) + "\n";
}

std::string render_json(const Comparison& cmp)
{
  Fields f;
  f.emplace_back("capsim", inline_object({{"version", quote(cmp.designs.empty() ? std::string(CAPSIM_VERSION)
                                                                                 : version_of(cmp.designs.front().result))}}));
  std::vector<std::string> designs;
  for (const auto& d : cmp.designs) {
    Fields df;
    df.emplace_back("design", quote(d.name));
    for (auto& field : run_fields(d.result, 6)) {
      df.push_back(std::move(field));
    }
    designs.push_back(block_object(df, 4));
  }
  f.emplace_back("designs", block_array(designs, 2));
  const auto columns = columns_of(cmp);
  const auto rows = summary_rows(columns);
  std::vector<std::string> deltas;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (!columns[c].baseline) {
      continue;
    }
    const std::size_t base = *columns[c].baseline;
    Fields metrics;
    for (const auto& row : rows) {
      const auto d = compute_delta(row.values[base], row.values[c], row.kind, row.better);
      const int decimals = row.kind == MetricKind::money    ? k_money_decimals
                           : row.kind == MetricKind::ratio   ? k_ratio_decimals
                           : row.kind == MetricKind::seconds ? k_seconds_decimals
                                                             : k_count_decimals;
      metrics.emplace_back(row.key, inline_object({{"value", fixed_number(row.values[c], decimals)},
                                                   {"delta", fixed_number(d.absolute, decimals)},
                                                   {"relative", d.relative ? fixed_number(*d.relative, 6) : "null"}}));
    }
    deltas.push_back(block_object({{"column", quote(columns[c].label)},
                                   {"baseline", quote(columns[base].label)},
                                   {"metrics", block_object(metrics, 6)}},
                                  4));
  }
  f.emplace_back("deltas", block_array(deltas, 2));
  return block_object(f, 0) + "\n";
}

namespace {

// Typed access to a parsed result with located errors.
class Reader
{
public:
  explicit Reader(const std::string& source) : m_source(source) {}

  [[noreturn]] void fail(const json::Value& at, const std::string& what) const
  {
    throw InputError(SourceLocation{m_source, at.line, at.column}, what);
  }

  const json::Value& member(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    const auto* v = obj.find(key);
    if (v == nullptr) {
      fail(obj, "missing key \"" + std::string(key) + "\" in " + path + " (a capsim run -o json result has it)");
    }
    return *v;
  }

  const json::Value& object(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    const auto& v = member(obj, key, path);
    if (v.type != json::Value::Type::object) {
      fail(v, path + "." + std::string(key) + " is " + v.type_name() + " (expected an object)");
    }
    return v;
  }

  const json::Value& array(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    const auto& v = member(obj, key, path);
    if (v.type != json::Value::Type::array) {
      fail(v, path + "." + std::string(key) + " is " + v.type_name() + " (expected an array)");
    }
    return v;
  }

  double number(const json::Value& v, const std::string& what) const
  {
    if (v.type != json::Value::Type::number) {
      fail(v, what + " is " + v.type_name() + " (expected a number)");
    }
    const double d = v.number();
    if (!std::isfinite(d)) {
      fail(v, what + " is out of range");
    }
    return d;
  }

  double number(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    return number(member(obj, key, path), path + "." + std::string(key));
  }

  std::int64_t integer(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    const auto& v = member(obj, key, path);
    number(v, path + "." + std::string(key));
    const auto i = v.integer();
    if (!i) {
      fail(v, path + "." + std::string(key) + " must be a whole number");
    }
    return *i;
  }

  std::string string(const json::Value& v, const std::string& what) const
  {
    if (v.type != json::Value::Type::string) {
      fail(v, what + " is " + v.type_name() + " (expected a string)");
    }
    return v.text;
  }

  std::string string(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    return string(member(obj, key, path), path + "." + std::string(key));
  }

  // Costs, hours, counts and waits: a result never has them below zero.
  double amount(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    const double d = number(obj, key, path);
    if (d < 0) {
      fail(member(obj, key, path), path + "." + std::string(key) + " is negative (expected a number >= 0)");
    }
    return d;
  }

  // Optional extras: read when present (with type checks), default otherwise.
  double opt_number(const json::Value& obj, std::string_view key, const std::string& path, double dflt) const
  {
    return obj.find(key) != nullptr ? number(obj, key, path) : dflt;
  }

  std::int64_t opt_integer(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    return obj.find(key) != nullptr ? integer(obj, key, path) : 0;
  }

  // Seconds (JSON) to simulated milliseconds.
  Duration millis(const json::Value& obj, std::string_view key, const std::string& path) const
  {
    const double s = number(obj, key, path);
    if (s < 0 || s > 1e12) {
      fail(member(obj, key, path), path + "." + std::string(key) + " is out of range");
    }
    return static_cast<Duration>(std::llround(s * 1000.0));
  }

private:
  const std::string& m_source;
};

EngineResult read_engine(const Reader& in, const json::Value& v, const std::string& path)
{
  if (v.type != json::Value::Type::object) {
    in.fail(v, path + " is " + v.type_name() + " (expected an object)");
  }
  EngineResult r;
  r.engine = in.string(v, "engine", path);
  if (r.engine != "karpenter" && r.engine != "cluster-autoscaler") {
    in.fail(in.member(v, "engine", path), path + ".engine is '" + r.engine
                                               + "' (expected karpenter or cluster-autoscaler)");
  }
  const auto& cost = in.object(v, "cost", path);
  const std::string cp = path + ".cost";
  r.cost.total_usd = in.amount(cost, "total_usd", cp);
  r.cost.on_demand_usd = in.amount(cost, "on_demand_usd", cp);
  r.cost.spot_usd = in.amount(cost, "spot_usd", cp);
  r.cost.effective_total_usd = in.opt_number(cost, "effective_total_usd", cp, r.cost.total_usd);
  for (const auto& [pool, usd] : in.object(cost, "by_pool", cp).members) {
    r.cost.by_pool[pool] = in.number(usd, cp + ".by_pool." + pool);
  }
  const auto& nodes = in.object(v, "nodes", path);
  const std::string np = path + ".nodes";
  r.nodes.launched = in.integer(nodes, "launched", np);
  r.nodes.terminated = in.integer(nodes, "terminated", np);
  r.nodes.peak = in.integer(nodes, "peak", np);
  r.nodes.average = in.number(nodes, "average", np);
  r.nodes.final_count = in.integer(nodes, "final", np);
  r.nodes.node_hours = in.amount(nodes, "node_hours", np);
  const auto& pods = in.object(v, "pods", path);
  const std::string pp = path + ".pods";
  r.pods.total = in.integer(pods, "total", pp);
  r.pods.scheduled = in.integer(pods, "scheduled", pp);
  r.pods.unschedulable = in.integer(pods, "unschedulable", pp);
  r.pods.evicted = in.integer(pods, "evicted", pp);
  r.pods.pending_p50_s = in.amount(pods, "pending_p50_s", pp);
  r.pods.pending_p95_s = in.amount(pods, "pending_p95_s", pp);
  r.pods.pending_max_s = in.amount(pods, "pending_max_s", pp);
  r.pods.lost = in.opt_integer(pods, "lost", pp);
  const auto& util = in.object(v, "utilization", path);
  r.utilization.cpu = in.number(util, "cpu", path + ".utilization");
  r.utilization.memory = in.number(util, "memory", path + ".utilization");
  const auto& dis = in.object(v, "disruptions", path);
  const std::string dp = path + ".disruptions";
  r.disruptions.emptiness = in.integer(dis, "emptiness", dp);
  r.disruptions.consolidation_delete = in.integer(dis, "consolidation_delete", dp);
  r.disruptions.consolidation_replace = in.integer(dis, "consolidation_replace", dp);
  r.disruptions.expiration = in.integer(dis, "expiration", dp);
  r.disruptions.drift = in.integer(dis, "drift", dp);
  r.disruptions.spot_interruption = in.integer(dis, "spot_interruption", dp);
  r.disruptions.scale_down = in.opt_integer(dis, "scale_down", dp);
  const auto& lb = in.object(v, "lower_bound", path);
  r.lower_bound.total_usd = in.number(lb, "total_usd", path + ".lower_bound");
  r.lower_bound.efficiency = in.number(lb, "efficiency", path + ".lower_bound");
  const auto& final_nodes = in.array(v, "final_nodes", path);
  for (std::size_t i = 0; i < final_nodes.items.size(); ++i) {
    const auto& n = final_nodes.items[i];
    const std::string fp = path + ".final_nodes[" + std::to_string(i) + "]";
    if (n.type != json::Value::Type::object) {
      in.fail(n, fp + " is " + n.type_name() + " (expected an object)");
    }
    FinalNode node;
    node.name = in.string(n, "name", fp);
    node.instance_type = in.string(n, "instance_type", fp);
    node.zone = in.string(n, "zone", fp);
    node.capacity_type = in.string(n, "capacity_type", fp);
    node.pool = in.string(n, "pool", fp);
    node.price_per_hour = in.number(n, "price_per_hour", fp);
    node.pods = in.integer(n, "pods", fp);
    r.final_nodes.push_back(std::move(node));
  }
  if (v.find("warnings") != nullptr) {
    const auto& warnings = in.array(v, "warnings", path);
    for (std::size_t i = 0; i < warnings.items.size(); ++i) {
      r.warnings.push_back(in.string(warnings.items[i], path + ".warnings[" + std::to_string(i) + "]"));
    }
  }
  if (v.find("timeline") != nullptr) {
    const auto& rows = in.array(v, "timeline", path);
    for (std::size_t i = 0; i < rows.items.size(); ++i) {
      const auto& t = rows.items[i];
      const std::string tp = path + ".timeline[" + std::to_string(i) + "]";
      if (t.type != json::Value::Type::object) {
        in.fail(t, tp + " is " + t.type_name() + " (expected an object)");
      }
      TimelineRow row;
      row.t = in.millis(t, "t_s", tp);
      row.nodes = in.integer(t, "nodes", tp);
      row.cost_rate_per_hour = in.number(t, "cost_per_hour", tp);
      row.cost_cumulative = in.number(t, "cost_cumulative_usd", tp);
      row.pending = in.integer(t, "pending", tp);
      row.cpu_requested_m = in.integer(t, "cpu_requested_millis", tp);
      row.cpu_allocatable_m = in.integer(t, "cpu_allocatable_millis", tp);
      row.memory_requested = in.integer(t, "memory_requested_bytes", tp);
      row.memory_allocatable = in.integer(t, "memory_allocatable_bytes", tp);
      if (t.find("nodes_by_type") != nullptr) {
        for (const auto& [type, count] : in.object(t, "nodes_by_type", tp).members) {
          in.number(count, tp + ".nodes_by_type." + type);
          const auto c = count.integer();
          if (!c) {
            in.fail(count, tp + ".nodes_by_type." + type + " must be a whole number");
          }
          row.nodes_by_type[type] = *c;
        }
      }
      r.timeline.push_back(std::move(row));
    }
  }
  if (v.find("decisions") != nullptr) {
    const auto& rows = in.array(v, "decisions", path);
    for (std::size_t i = 0; i < rows.items.size(); ++i) {
      const auto& d = rows.items[i];
      const std::string dpath = path + ".decisions[" + std::to_string(i) + "]";
      if (d.type != json::Value::Type::object) {
        in.fail(d, dpath + " is " + d.type_name() + " (expected an object)");
      }
      Decision dec;
      dec.t = in.millis(d, "t_s", dpath);
      dec.method = in.string(d, "method", dpath);
      dec.action = in.string(d, "action", dpath);
      dec.candidate = in.string(d, "candidate", dpath);
      dec.detail = in.string(d, "detail", dpath);
      dec.saving_per_hour = in.number(d, "saving_per_hour", dpath);
      r.decisions.push_back(std::move(dec));
    }
  }
  return r;
}

} // namespace

RunResult parse_result_json(std::string_view text, const std::string& source)
{
  const json::Value doc = json::parse(text, source);
  const Reader in(source);
  if (doc.type != json::Value::Type::object) {
    in.fail(doc, "the result is " + doc.type_name() + " (expected the object written by capsim run -o json)");
  }
  if (doc.find("results") == nullptr && doc.find("designs") != nullptr) {
    in.fail(doc, "this is a capsim compare result (expected one written by capsim run -o json)");
  }
  RunResult run;
  const auto& capsim = in.object(doc, "capsim", "the result");
  run.version = in.string(capsim, "version", "capsim");
  run.scenario = in.string(doc, "scenario", "the result");
  const auto& seed = in.member(doc, "seed", "the result");
  in.number(seed, "seed");
  const auto s = seed.unsigned_integer();
  if (!s) {
    in.fail(seed, "seed must be a whole number >= 0");
  }
  run.seed = *s;
  run.region = in.string(doc, "region", "the result");
  run.duration = in.millis(doc, "duration_s", "the result");
  const auto& results = in.array(doc, "results", "the result");
  if (results.items.empty()) {
    in.fail(results, "the result's results list no engine (expected one entry per engine run)");
  }
  for (std::size_t i = 0; i < results.items.size(); ++i) {
    const std::string path = "results[" + std::to_string(i) + "]";
    run.results.push_back(read_engine(in, results.items[i], path));
    for (std::size_t j = 0; j < i; ++j) {
      if (run.results[j].engine == run.results[i].engine) {
        in.fail(in.member(results.items[i], "engine", path),
                path + ".engine: " + run.results[i].engine + " is listed twice (also in results[" + std::to_string(j)
                    + "])");
      }
    }
  }
  return run;
}

} // namespace capsim::report
