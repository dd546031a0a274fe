#include "core/io/yaml_reader.hpp"

#include "core/base/quantity.hpp"
#include "core/base/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace capsim::io {

namespace {

std::string_view type_name(const YAML::Node& node)
{
  switch (node.Type()) {
  case YAML::NodeType::Map: return "a mapping";
  case YAML::NodeType::Sequence: return "a sequence";
  case YAML::NodeType::Scalar: return "a scalar";
  case YAML::NodeType::Null: return "null";
  case YAML::NodeType::Undefined: return "nothing";
  }
  return "something else";
}

bool contains(std::initializer_list<std::string_view> list, std::string_view key)
{
  return std::find(list.begin(), list.end(), key) != list.end();
}

// A short, printable rendering of a user-supplied scalar for messages.
std::string shown(std::string_view text)
{
  std::string out;
  for (const char c : text.substr(0, 60)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? '?' : c;
  }
  if (text.size() > 60) {
    out += "...";
  }
  return out;
}

// Kubernetes resource names without a domain prefix that the API server accepts.
const std::initializer_list<std::string_view> k_standard_resources = {
    "cpu", "memory", "ephemeral-storage", "pods", "storage", "nodes"};

bool valid_resource_name(std::string_view name)
{
  if (name.empty() || name.size() > 253) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
           || c == '/' || c == '_';
  });
}

} // namespace

YamlReader::YamlReader(std::string file, Diagnostics& diagnostics)
  : m_file(std::move(file)), m_diagnostics(diagnostics)
{
}

const YamlReader::SetNode* YamlReader::find_set_node(const YAML::Node& node) const
{
  if (m_set_nodes.empty() || !node.IsDefined()) {
    return nullptr;
  }
  for (const auto& s : m_set_nodes) {
    if (s.node.is(node)) {
      return &s;
    }
  }
  return nullptr;
}

SourceLocation YamlReader::location(const YAML::Node& node) const
{
  if (const auto* s = find_set_node(node)) {
    return SourceLocation{s->label, 0, 0};
  }
  if (!node.IsDefined()) {
    return SourceLocation{m_file, 0, 0};
  }
  return location(node.Mark());
}

SourceLocation YamlReader::location(const YAML::Mark& mark) const
{
  if (mark.is_null() || mark.line < 0 || mark.column < 0) {
    return SourceLocation{m_file, 0, 0};
  }
  const int line = m_origin_line + mark.line;
  const int column = mark.line == 0 ? m_origin_column + mark.column : mark.column;
  return SourceLocation{m_file, static_cast<std::uint32_t>(line) + 1, static_cast<std::uint32_t>(column) + 1};
}

void YamlReader::error(const YAML::Node& at, std::string message)
{
  m_diagnostics.error(location(at), std::move(message));
}

void YamlReader::error(const SourceLocation& at, std::string message)
{
  m_diagnostics.error(at, std::move(message));
}

void YamlReader::register_set_node(const YAML::Node& node, const std::string& label, const std::string& path)
{
  m_set_nodes.push_back(SetNode{node, label, path});
}

bool YamlReader::expect_map(const YAML::Node& node, std::string_view what)
{
  if (node.IsMap()) {
    return true;
  }
  error(node, fmt::format("'{}' must be a mapping (got {})", what, type_name(node)));
  return false;
}

bool YamlReader::expect_sequence(const YAML::Node& node, std::string_view what)
{
  if (node.IsSequence()) {
    return true;
  }
  error(node, fmt::format("'{}' must be a list (got {})", what, type_name(node)));
  return false;
}

bool YamlReader::expect_scalar(const YAML::Node& node, std::string_view what)
{
  if (node.IsScalar()) {
    return true;
  }
  error(node, fmt::format("'{}' must be a single value (got {})", what, type_name(node)));
  return false;
}

bool YamlReader::check_fields(const YAML::Node& node, std::string_view what,
                              std::initializer_list<std::string_view> used,
                              std::initializer_list<std::string_view> ignored, Strictness strictness)
{
  if (!expect_map(node, what)) {
    return false;
  }
  std::vector<std::string> candidates;
  candidates.reserve(used.size() + ignored.size());
  for (const auto k : used) {
    candidates.emplace_back(k);
  }
  std::vector<std::string> used_only = candidates;
  for (const auto k : ignored) {
    candidates.emplace_back(k);
  }
  std::map<std::string, std::uint32_t> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      error(key, fmt::format("keys of '{}' must be plain names (got {})", what, type_name(key)));
      continue;
    }
    const std::string& name = key.Scalar();
    const auto loc = location(key);
    if (auto [pos, inserted] = seen.emplace(name, loc.line); !inserted) {
      error(key, fmt::format("duplicate field '{}' in '{}' (first given on line {})", shown(name), what, pos->second));
      continue;
    }
    const bool known = contains(used, name) || contains(ignored, name);
    if (known) {
      continue;
    }
    if (const auto* s = find_set_node(key)) {
      const std::string best = closest_match(name, candidates);
      const std::string prefix = s->path.substr(0, s->path.size() - std::min(s->path.size(), name.size()));
      error(key, fmt::format("path '{}' does not exist{}", s->path,
                             best.empty() ? fmt::format(" (fields of '{}' are: {})", what, fmt::join(candidates, ", "))
                                          : fmt::format(" (did you mean '{}{}'?)", prefix, best)));
      continue;
    }
    if (strictness == Strictness::strict) {
      error(key, fmt::format("unknown field '{}' in '{}'{}", shown(name), what, did_you_mean(name, candidates)));
    } else if (const std::string best = closest_match(name, used_only); !best.empty()) {
      error(key, fmt::format("unknown field '{}' in '{}' (did you mean '{}'?)", shown(name), what, best));
    }
  }
  return true;
}

std::optional<std::string> YamlReader::string(const YAML::Node& node, std::string_view what)
{
  if (!expect_scalar(node, what)) {
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<std::int64_t> YamlReader::integer(const YAML::Node& node, std::string_view what, std::int64_t min,
                                                std::int64_t max)
{
  if (!expect_scalar(node, what)) {
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);
  }
  std::int64_t value = 0;
  const auto* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec == std::errc::result_out_of_range) {
    if (ec == std::errc::result_out_of_range) {
      error(node, fmt::format("'{}' is out of range for '{}' (expected {}..{})", shown(text), what, min, max));
    } else {
      error(node, fmt::format("'{}' must be an integer (got '{}')", what, shown(text)));
    }
    return std::nullopt;
  }
  if (ec != std::errc() || ptr != end) {
    error(node, fmt::format("'{}' must be an integer (got '{}')", what, shown(text)));
    return std::nullopt;
  }
  if (value < min || value > max) {
    error(node, fmt::format("'{}' is out of range for '{}' (expected {}..{})", value, what, min, max));
    return std::nullopt;
  }
  return value;
}

std::optional<double> YamlReader::number(const YAML::Node& node, std::string_view what, double min, double max)
{
  if (!expect_scalar(node, what)) {
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);
  }
  double value = 0;
  const auto* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    error(node, fmt::format("'{}' must be a number (got '{}')", what, shown(text)));
    return std::nullopt;
  }
  if (value < min || value > max) {
    error(node, fmt::format("'{}' is out of range for '{}' (expected {}..{})", shown(text), what, min, max));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> YamlReader::boolean(const YAML::Node& node, std::string_view what)
{
  if (!expect_scalar(node, what)) {
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  if (text == "true" || text == "True" || text == "TRUE") {
    return true;
  }
  if (text == "false" || text == "False" || text == "FALSE") {
    return false;
  }
  error(node, fmt::format("'{}' must be true or false (got '{}')", what, shown(text)));
  return std::nullopt;
}

std::optional<Duration> YamlReader::duration(const YAML::Node& node, std::string_view what, bool allow_never)
{
  if (!expect_scalar(node, what)) {
    return std::nullopt;
  }
  auto d = parse_duration(node.Scalar(), allow_never);
  if (!d) {
    error(node, fmt::format("'{}': {}", what, d.error()));
    return std::nullopt;
  }
  return *d;
}

std::optional<std::string> YamlReader::choice(const YAML::Node& node, std::string_view what,
                                              std::initializer_list<std::string_view> choices)
{
  auto text = string(node, what);
  if (!text) {
    return std::nullopt;
  }
  if (contains(choices, *text)) {
    return text;
  }
  std::vector<std::string> list(choices.begin(), choices.end());
  const std::string best = closest_match(*text, list);
  error(node, fmt::format("'{}' is not a valid value for '{}' (expected {}{})", shown(*text), what,
                          fmt::join(list, ", "), best.empty() ? "" : fmt::format("; did you mean '{}'?", best)));
  return std::nullopt;
}

model::Labels YamlReader::string_map(const YAML::Node& node, std::string_view what)
{
  model::Labels out;
  if (!present(node)) {
    return out;
  }
  if (!expect_map(node, what)) {
    return out;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) {
      error(it->first, fmt::format("keys of '{}' must be strings", what));
      continue;
    }
    const std::string& key = it->first.Scalar();
    if (it->second.IsNull()) {
      out[key] = "";
      continue;
    }
    if (!it->second.IsScalar()) {
      error(it->second, fmt::format("'{}.{}' must be a string (got {})", what, shown(key), type_name(it->second)));
      continue;
    }
    if (!out.emplace(key, it->second.Scalar()).second) {
      error(it->first, fmt::format("duplicate key '{}' in '{}'", shown(key), what));
    }
  }
  return out;
}

std::vector<std::string> YamlReader::string_list(const YAML::Node& node, std::string_view what)
{
  std::vector<std::string> out;
  if (!present(node)) {
    return out;
  }
  if (!expect_sequence(node, what)) {
    return out;
  }
  for (const auto& item : node) {
    if (auto s = string(item, what)) {
      out.push_back(std::move(*s));
    }
  }
  return out;
}

std::vector<model::ResourceId> YamlReader::resource_ids(const YAML::Node& node)
{
  std::vector<model::ResourceId> out;
  if (!node.IsMap()) {
    return out;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it->first.IsScalar()) {
      if (auto id = model::find_resource_id(it->first.Scalar())) {
        out.push_back(*id);
      }
    }
  }
  return out;
}

bool YamlReader::resources(const YAML::Node& node, std::string_view what, model::Resources& out,
                           std::optional<std::int64_t>* limit_nodes, ResourceFilter keep)
{
  if (!present(node)) {
    return true;
  }
  if (!expect_map(node, what)) {
    return false;
  }
  bool ok = true;
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;
    if (keep != nullptr && !(key.IsScalar() && keep(key.Scalar()))) {
      continue;
    }
    if (!key.IsScalar()) {
      error(key, fmt::format("resource names in '{}' must be strings", what));
      ok = false;
      continue;
    }
    const std::string& name = key.Scalar();
    if (!seen.insert(name).second) {
      error(key, fmt::format("duplicate resource '{}' in '{}'", shown(name), what));
      ok = false;
      continue;
    }
    const bool standard = contains(k_standard_resources, name) && (name != "nodes" || limit_nodes != nullptr);
    const bool prefixed = name.find('/') != std::string::npos || name.rfind("hugepages-", 0) == 0
                          || name.rfind("requests.", 0) == 0;
    if (!valid_resource_name(name) || (!standard && !prefixed)) {
      std::vector<std::string> names{"cpu", "memory", "ephemeral-storage", "pods", "nvidia.com/gpu"};
      if (limit_nodes != nullptr) {
        names.emplace_back("nodes");
      }
      error(key, fmt::format("unknown resource '{}' in '{}'{}", shown(name), what, did_you_mean(name, names)));
      ok = false;
      continue;
    }
    const YAML::Node value = it->second;
    if (!expect_scalar(value, fmt::format("{}.{}", what, name))) {
      ok = false;
      continue;
    }
    if (name == "nodes" && limit_nodes != nullptr) {
      auto v = parse_quantity(value.Scalar());
      if (!v) {
        error(value, fmt::format("'{}.nodes': {}", what, v.error()));
        ok = false;
      } else {
        *limit_nodes = *v;
      }
      continue;
    }
    if (name == "storage" || name.rfind("requests.", 0) == 0) {
      continue; // PVC-style names carry no node capacity
    }
    const std::string message = model::set_resource(out, name, value.Scalar());
    if (!message.empty()) {
      error(value, fmt::format("'{}.{}': {}", what, name, message));
      ok = false;
    }
  }
  return ok;
}

std::vector<model::Taint> YamlReader::taints(const YAML::Node& node, std::string_view what)
{
  std::vector<model::Taint> out;
  if (!present(node)) {
    return out;
  }
  if (!expect_sequence(node, what)) {
    return out;
  }
  for (const auto& item : node) {
    if (!check_fields(item, what, {"key", "value", "effect"}, {"timeAdded"})) {
      continue;
    }
    model::Taint t;
    bool ok = true;
    if (auto key = child(item, "key"); present(key)) {
      t.key = string(key, fmt::format("{}.key", what)).value_or("");
    }
    if (t.key.empty()) {
      error(item, fmt::format("'{}' entry needs a non-empty 'key'", what));
      ok = false;
    }
    if (auto value = child(item, "value"); present(value)) {
      t.value = string(value, fmt::format("{}.value", what)).value_or("");
    }
    const YAML::Node effect = child(item, "effect");
    if (!present(effect)) {
      error(item, fmt::format("'{}' entry '{}' needs an 'effect' (NoSchedule, PreferNoSchedule or NoExecute)",
                              what, shown(t.key)));
      ok = false;
    } else if (auto e = choice(effect, fmt::format("{}.effect", what), {"NoSchedule", "PreferNoSchedule", "NoExecute"})) {
      t.effect = *model::parse_taint_effect(*e);
    } else {
      ok = false;
    }
    if (ok) {
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::vector<model::Toleration> YamlReader::tolerations(const YAML::Node& node, std::string_view what)
{
  std::vector<model::Toleration> out;
  if (!present(node)) {
    return out;
  }
  if (!expect_sequence(node, what)) {
    return out;
  }
  for (const auto& item : node) {
    if (!check_fields(item, what, {"key", "operator", "value", "effect", "tolerationSeconds"})) {
      continue;
    }
    model::Toleration t;
    bool ok = true;
    if (auto key = child(item, "key"); present(key)) {
      t.key = string(key, fmt::format("{}.key", what)).value_or("");
    }
    if (auto op = child(item, "operator"); present(op)) {
      if (auto o = choice(op, fmt::format("{}.operator", what), {"Equal", "Exists"})) {
        t.op_exists = *o == "Exists";
      } else {
        ok = false;
      }
    }
    if (auto value = child(item, "value"); present(value)) {
      t.value = string(value, fmt::format("{}.value", what)).value_or("");
    }
    if (t.op_exists && !t.value.empty()) {
      error(item, fmt::format("'{}': a toleration with operator Exists must not have a value", what));
      ok = false;
    }
    if (t.key.empty() && !t.op_exists) {
      error(item, fmt::format("'{}': a toleration without a key must use operator Exists", what));
      ok = false;
    }
    if (auto effect = child(item, "effect"); present(effect)) {
      if (auto e = choice(effect, fmt::format("{}.effect", what), {"NoSchedule", "PreferNoSchedule", "NoExecute"})) {
        t.effect = model::parse_taint_effect(*e);
      } else {
        ok = false;
      }
    }
    if (auto seconds = child(item, "tolerationSeconds"); present(seconds)) {
      (void)integer(seconds, fmt::format("{}.tolerationSeconds", what), INT64_MIN, INT64_MAX);
    }
    if (ok) {
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::optional<model::LabelSelector> YamlReader::label_selector(const YAML::Node& node, std::string_view what)
{
  if (!present(node)) {
    return std::nullopt;
  }
  if (!check_fields(node, what, {"matchLabels", "matchExpressions"})) {
    return std::nullopt;
  }
  model::LabelSelector selector;
  selector.match_labels = string_map(child(node, "matchLabels"), fmt::format("{}.matchLabels", what));
  const YAML::Node exprs = child(node, "matchExpressions");
  if (present(exprs) && expect_sequence(exprs, fmt::format("{}.matchExpressions", what))) {
    for (const auto& e : exprs) {
      const std::string ewhat = fmt::format("{}.matchExpressions", what);
      if (!check_fields(e, ewhat, {"key", "operator", "values"})) {
        continue;
      }
      model::LabelSelectorRequirement r;
      const YAML::Node key = child(e, "key");
      if (!present(key)) {
        error(e, fmt::format("'{}' entry needs a 'key'", ewhat));
        continue;
      }
      r.key = string(key, ewhat + ".key").value_or("");
      const YAML::Node op = child(e, "operator");
      if (!present(op)) {
        error(e, fmt::format("'{}' entry needs an 'operator' (In, NotIn, Exists or DoesNotExist)", ewhat));
        continue;
      }
      auto o = choice(op, ewhat + ".operator", {"In", "NotIn", "Exists", "DoesNotExist"});
      if (!o) {
        continue;
      }
      r.op = *model::parse_operator(*o);
      r.values = string_list(child(e, "values"), ewhat + ".values");
      const bool needs_values = r.op == model::Operator::in || r.op == model::Operator::not_in;
      if (needs_values && r.values.empty()) {
        error(e, fmt::format("'{}': operator {} needs at least one value", ewhat, *o));
        continue;
      }
      if (!needs_values && !r.values.empty()) {
        error(e, fmt::format("'{}': operator {} must not have values", ewhat, *o));
        continue;
      }
      selector.match_expressions.push_back(std::move(r));
    }
  }
  return selector;
}

YAML::Node child(const YAML::Node& map, std::string_view key)
{
  if (!map.IsDefined() || !map.IsMap()) {
    return YAML::Node();
  }
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      return it->second;
    }
  }
  return YAML::Node();
}

namespace {

bool walk_budget(const YAML::Node& node, std::size_t& remaining, int depth, int max_depth)
{
  if (remaining == 0 || depth > max_depth) {
    return false;
  }
  --remaining;
  if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!walk_budget(item, remaining, depth + 1, max_depth)) {
        return false;
      }
    }
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!walk_budget(it->first, remaining, depth + 1, max_depth)
          || !walk_budget(it->second, remaining, depth + 1, max_depth)) {
        return false;
      }
    }
  }
  return true;
}

} // namespace

bool within_node_budget(const YAML::Node& root, std::size_t limit, int max_depth)
{
  std::size_t remaining = limit;
  return walk_budget(root, remaining, 0, max_depth);
}

} // namespace capsim::io
