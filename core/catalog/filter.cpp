#include "core/catalog/filter.hpp"

#include "core/base/text.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>

namespace capsim::catalog {

namespace {

constexpr std::string_view k_operators = "In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte";

bool is_integer(std::string_view v)
{
  std::int64_t x = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  return !v.empty() && ec == std::errc() && ptr == v.data() + v.size();
}

// Shared checks of one requirement; "" when fine, else what is wrong.
std::string check_requirement(std::string_view key, model::Operator op, const std::vector<std::string>& values)
{
  if (key.empty()) {
    return "empty key (expected a label key such as karpenter.k8s.aws/instance-family)";
  }
  switch (op) {
  case model::Operator::in:
  case model::Operator::not_in:
    if (values.empty()) {
      return fmt::format("{} needs at least one value (expected e.g. '{} {} v1,v2')", model::to_string(op), key,
                         model::to_string(op));
    }
    break;
  case model::Operator::exists:
  case model::Operator::does_not_exist:
    if (!values.empty()) {
      return fmt::format("{} takes no values (expected '{} {}')", model::to_string(op), key, model::to_string(op));
    }
    break;
  case model::Operator::gt:
  case model::Operator::lt:
  case model::Operator::gte:
  case model::Operator::lte:
    if (values.size() != 1 || !is_integer(values.front())) {
      return fmt::format("{} needs exactly one integer value (expected e.g. '{} {} 4')", model::to_string(op), key,
                         model::to_string(op));
    }
    break;
  }
  return {};
}

std::vector<std::string> operator_names()
{
  return {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"};
}

} // namespace

model::Requirement parse_where(std::string_view text, const SourceLocation& where)
{
  const std::string_view body = trim(text);
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < body.size() && words.size() < 2) {
    while (i < body.size() && (body[i] == ' ' || body[i] == '\t')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < body.size() && body[i] != ' ' && body[i] != '\t') {
      ++i;
    }
    if (i > start) {
      words.emplace_back(body.substr(start, i - start));
    }
  }
  if (words.size() < 2) {
    throw InputError(where, fmt::format("'{}' is not a requirement (expected 'KEY OPERATOR [V1,V2,...]', e.g. "
                                        "'karpenter.k8s.aws/instance-family In m5,c6i')",
                                        text));
  }
  const auto op = model::parse_operator(words[1]);
  if (!op) {
    throw InputError(where, fmt::format("unknown operator '{}'{} (expected one of {})", words[1],
                                        did_you_mean(words[1], operator_names()), k_operators));
  }
  std::vector<std::string> values;
  const std::string_view rest = trim(body.substr(i));
  if (!rest.empty()) {
    for (const auto& v : split(rest, ',')) {
      const auto t = trim(v);
      if (t.empty()) {
        throw InputError(where, fmt::format("empty value in '{}' (expected comma-separated values)", rest));
      }
      values.emplace_back(t);
    }
  }
  if (auto problem = check_requirement(words[0], *op, values); !problem.empty()) {
    throw InputError(where, problem);
  }
  return model::Requirement::make(words[0], *op, std::move(values));
}

namespace {

SourceLocation location(const std::string& path, const YAML::Node& node)
{
  const auto mark = node.Mark();
  if (mark.line < 0) {
    return {path};
  }
  return {path, static_cast<std::uint32_t>(mark.line + 1), static_cast<std::uint32_t>(mark.column + 1)};
}

std::string scalar_text(const YAML::Node& n)
{
  return n.IsScalar() ? n.Scalar() : std::string();
}

} // namespace

model::Requirements parse_nodepool_requirements(std::string_view yaml_text, const std::string& path)
{
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw InputError({path, static_cast<std::uint32_t>(e.mark.line + 1), static_cast<std::uint32_t>(e.mark.column + 1)},
                     fmt::format("invalid YAML: {}", e.msg));
  }
  const YAML::Node* nodepool = nullptr;
  for (const auto& d : docs) {
    if (d.IsMap() && d["kind"] && scalar_text(d["kind"]) == "NodePool") {
      nodepool = &d;
      break;
    }
  }
  if (nodepool == nullptr && docs.size() == 1 && docs[0].IsMap() && !docs[0]["kind"]) {
    nodepool = &docs[0];
  }
  if (nodepool == nullptr) {
    throw InputError({path}, "no NodePool found (expected a document with kind: NodePool)");
  }
  const YAML::Node& np = *nodepool;
  model::Requirements out;
  const YAML::Node spec = np["spec"];
  const YAML::Node tmpl = spec && spec.IsMap() ? spec["template"] : YAML::Node();
  const YAML::Node tspec = tmpl && tmpl.IsMap() ? tmpl["spec"] : YAML::Node();
  const YAML::Node reqs = tspec && tspec.IsMap() ? tspec["requirements"] : YAML::Node();
  if (!reqs || reqs.IsNull()) {
    return out; // no requirements: every type
  }
  if (!reqs.IsSequence()) {
    throw InputError(location(path, reqs), "spec.template.spec.requirements must be a list (expected "
                                           "- {key: ..., operator: ..., values: [...]})");
  }
  Diagnostics diags;
  for (const auto& item : reqs) {
    if (!item.IsMap()) {
      diags.error(location(path, item), "a requirement must be a mapping (expected {key, operator, values})");
      continue;
    }
    bool ok = true;
    for (const auto& kv : item) {
      const std::string k = scalar_text(kv.first);
      if (k != "key" && k != "operator" && k != "values" && k != "minValues") {
        diags.error(location(path, kv.first),
                    fmt::format("unknown field '{}'{} in a requirement (expected key, operator, values, minValues)", k,
                                did_you_mean(k, {"key", "operator", "values", "minValues"})));
        ok = false;
      }
    }
    const YAML::Node key = item["key"];
    const YAML::Node op_node = item["operator"];
    if (!key || !key.IsScalar() || key.Scalar().empty()) {
      diags.error(location(path, key ? key : item), "missing key (expected a label key)");
      continue;
    }
    if (!op_node || !op_node.IsScalar()) {
      diags.error(location(path, op_node ? op_node : item), fmt::format("missing operator (expected one of {})", k_operators));
      continue;
    }
    const auto op = model::parse_operator(op_node.Scalar());
    if (!op) {
      diags.error(location(path, op_node), fmt::format("unknown operator '{}'{} (expected one of {})", op_node.Scalar(),
                                                       did_you_mean(op_node.Scalar(), operator_names()), k_operators));
      continue;
    }
    std::vector<std::string> values;
    if (const YAML::Node vs = item["values"]; vs && !vs.IsNull()) {
      if (!vs.IsSequence()) {
        diags.error(location(path, vs), "values must be a list (expected [v1, v2])");
        continue;
      }
      for (const auto& v : vs) {
        if (!v.IsScalar()) {
          diags.error(location(path, v), "a value must be a string (expected a scalar)");
          ok = false;
          continue;
        }
        values.push_back(v.Scalar());
      }
    }
    std::optional<int> min_values;
    if (const YAML::Node mv = item["minValues"]; mv && !mv.IsNull()) {
      std::int64_t x = 0;
      const std::string t = scalar_text(mv);
      const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
      if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || x < 1 || x > 50) {
        diags.error(location(path, mv), fmt::format("minValues '{}' is invalid (expected an integer 1..50)", t));
        continue;
      }
      min_values = static_cast<int>(x);
    }
    if (auto problem = check_requirement(key.Scalar(), *op, values); !problem.empty()) {
      diags.error(location(path, op_node), problem);
      continue;
    }
    if (ok) {
      out.add(model::Requirement::make(key.Scalar(), *op, std::move(values), min_values));
    }
  }
  diags.throw_if_any();
  return out;
}

std::vector<Offering> compatible_offerings(const InstanceType& it, const model::Requirements& reqs)
{
  std::vector<Offering> out;
  for (const auto& o : it.offerings) {
    model::Requirements r;
    r.add(model::Requirement::make(std::string(model::labels::k_zone), model::Operator::in, {o.zone}));
    r.add(model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in,
                                   {o.capacity_type}));
    if (reqs.is_compatible(r, true)) {
      out.push_back(o);
    }
  }
  return out;
}

bool matches(const InstanceType& it, const model::Requirements& reqs)
{
  return it.requirements.intersects(reqs).empty() && !compatible_offerings(it, reqs).empty();
}

} // namespace capsim::catalog
