#include "core/io/set_override.hpp"

#include "core/base/quantity.hpp"
#include "core/base/text.hpp"
#include "core/io/text_guard.hpp"
#include "core/model/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace capsim::io {

namespace {

struct Segment
{
  std::string key;
  bool bracket_index = false; // [N]
  bool numeric = false;       // all digits (an index when the node is a list)
  std::size_t index = 0;
};

bool all_digits(std::string_view s)
{
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Parses ".a.b[0][key.x].c" into segments; "" on success, else a message.
std::string parse_segments(std::string_view rest, std::vector<Segment>& out)
{
  std::size_t i = 0;
  while (i < rest.size()) {
    if (rest[i] == '.') {
      ++i;
      std::size_t end = i;
      while (end < rest.size() && rest[end] != '.' && rest[end] != '[') {
        ++end;
      }
      const std::string_view key = rest.substr(i, end - i);
      if (key.empty()) {
        return "empty field name";
      }
      out.push_back(Segment{std::string(key), false, all_digits(key), all_digits(key) ? std::stoul(std::string(key)) : 0});
      i = end;
    } else if (rest[i] == '[') {
      const std::size_t close = rest.find(']', i);
      if (close == std::string_view::npos) {
        return "unclosed '['";
      }
      std::string_view key = rest.substr(i + 1, close - i - 1);
      if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front()) {
        key = key.substr(1, key.size() - 2);
        out.push_back(Segment{std::string(key)});
      } else if (all_digits(key)) {
        out.push_back(Segment{std::string(key), true, true, std::stoul(std::string(key))});
      } else if (key.empty()) {
        return "empty '[]'";
      } else {
        out.push_back(Segment{std::string(key)});
      }
      i = close + 1;
    } else {
      return fmt::format("expected '.' or '[' at '{}'", rest.substr(i));
    }
  }
  if (out.empty()) {
    return "the path names a document but no field";
  }
  return {};
}

void register_tree(YamlReader& reader, const YAML::Node& node, const std::string& label, std::size_t& budget,
                   int depth)
{
  if (budget == 0 || depth > 64) {
    return;
  }
  --budget;
  reader.register_set_node(node, label, "");
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      register_tree(reader, it->first, label, budget, depth + 1);
      register_tree(reader, it->second, label, budget, depth + 1);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      register_tree(reader, item, label, budget, depth + 1);
    }
  }
}

// The key node of the last `key` entry in map (created by force_insert).
YAML::Node key_node(const YAML::Node& map, const std::string& key)
{
  YAML::Node found;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      found.reset(it->first);
    }
  }
  return found;
}

// A NodePool's or EC2NodeClass's version applied during the run (model::NodePoolUpdate,
// NodeClassUpdate): its annotation capsim.io/apply-at; nullopt for the version at t=0, the
// document without it. (A time that does not parse sorts last: the parser reports it.)
std::optional<SimTime> applied_at(const DocumentRef& d)
{
  if (d.kind != "NodePool" && d.kind != "EC2NodeClass") {
    return std::nullopt;
  }
  const auto at = child(child(child(d.root, "metadata"), "annotations"), model::k_apply_at_annotation);
  if (!present(at)) {
    return std::nullopt;
  }
  if (at.IsScalar()) {
    if (const auto v = parse_duration(at.Scalar())) {
      return *v;
    }
  }
  return std::numeric_limits<SimTime>::max();
}

// The documents overrides go to (by index): each document but the versions applied during the
// run, and for a NodePool created during the run (no version at t=0) its first version.
std::vector<bool> override_targets(const std::vector<DocumentRef>& documents)
{
  std::vector<bool> target(documents.size(), false);
  std::set<std::string> at_start; // NodePools with a version at t=0
  for (std::size_t i = 0; i < documents.size(); ++i) {
    target[i] = !applied_at(documents[i]).has_value();
    if (target[i] && documents[i].kind == "NodePool") {
      at_start.insert(documents[i].name);
    }
  }
  std::map<std::string, std::size_t> created; // NodePool name -> its earliest version
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const auto& d = documents[i];
    if (d.kind != "NodePool" || target[i] || at_start.count(d.name) != 0) {
      continue;
    }
    const auto [it, added] = created.try_emplace(d.name, i);
    if (!added && *applied_at(d) < *applied_at(documents[it->second])) {
      it->second = i;
    }
  }
  for (const auto& [name, i] : created) {
    target[i] = true;
  }
  return target;
}

void apply_one(std::vector<DocumentRef>& documents, const std::string& text, YamlReader& reader)
{
  const std::string label = "--set " + text;
  const SourceLocation where{label, 0, 0};
  const auto fail = [&](const std::string& message) { reader.error(where, message); };
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    fail("expected PATH=VALUE, e.g. NodePool/default.spec.disruption.consolidateAfter=5m");
    return;
  }
  const std::string_view path = std::string_view(text).substr(0, eq);
  const std::string value_text = text.substr(eq + 1);

  // Kind, then an optional /name.
  std::size_t k = 0;
  while (k < path.size() && path[k] != '/' && path[k] != '.' && path[k] != '[') {
    ++k;
  }
  const std::string kind(path.substr(0, k));
  std::vector<DocumentRef*> of_kind;
  std::set<std::string> kinds;
  const std::vector<bool> targets = override_targets(documents);
  for (std::size_t i = 0; i < documents.size(); ++i) {
    auto& d = documents[i];
    kinds.insert(d.kind);
    if (d.kind == kind && targets[i]) {
      of_kind.push_back(&d);
    }
  }
  if (of_kind.empty()) {
    const std::vector<std::string> list(kinds.begin(), kinds.end());
    fail(fmt::format("path '{}' does not exist: the scenario has no {} document{} (kinds present: {})", path, kind,
                     did_you_mean(kind, list), fmt::join(list, ", ")));
    return;
  }
  DocumentRef* doc = nullptr;
  std::string_view rest = path.substr(k);
  std::string doc_path = kind;
  if (!rest.empty() && rest.front() == '/') {
    rest.remove_prefix(1);
    std::size_t best = 0;
    for (auto* d : of_kind) {
      const std::string& n = d->name;
      if (!n.empty() && rest.substr(0, n.size()) == n && n.size() > best
          && (rest.size() == n.size() || rest[n.size()] == '.' || rest[n.size()] == '[')) {
        best = n.size();
        doc = d;
      }
    }
    if (doc == nullptr) {
      const std::string_view guess = rest.substr(0, rest.find_first_of(".["));
      std::vector<std::string> names;
      for (const auto* d : of_kind) {
        names.push_back(d->name);
      }
      std::sort(names.begin(), names.end());
      fail(fmt::format("path '{}' does not exist: no {} named '{}'{} (names: {})", path, kind, guess,
                       did_you_mean(guess, names), fmt::join(names, ", ")));
      return;
    }
    rest.remove_prefix(best);
    doc_path += "/" + doc->name;
  } else if (of_kind.size() == 1) {
    doc = of_kind.front();
  } else {
    std::vector<std::string> names;
    for (const auto* d : of_kind) {
      names.push_back(kind + "/" + d->name);
    }
    fail(fmt::format("the scenario has {} {} documents: name one ({})", of_kind.size(), kind, fmt::join(names, ", ")));
    return;
  }

  std::vector<Segment> segments;
  if (const std::string message = parse_segments(rest, segments); !message.empty()) {
    fail(fmt::format("bad path '{}': {}", path, message));
    return;
  }

  // The value, as YAML.
  YAML::Node value;
  try {
    check_text(value_text, label, 32);
    value = value_text.empty() ? YAML::Node() : YAML::Load(value_text);
  } catch (const InputError& e) {
    fail(fmt::format("the value is not valid: {}", e.diagnostics().front().message));
    return;
  } catch (const YAML::Exception& e) {
    fail(fmt::format("the value is not valid YAML: {}", e.msg));
    return;
  }
  std::size_t budget = 10'000;
  register_tree(reader, value, label, budget, 0);

  YAML::Node cur = doc->root;
  std::string shown = doc_path;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& seg = segments[i];
    const bool last = i + 1 == segments.size();
    const std::string next_shown = seg.bracket_index ? fmt::format("{}[{}]", shown, seg.index) : shown + "." + seg.key;
    if (cur.IsSequence()) {
      if (!seg.numeric) {
        fail(fmt::format("'{}' is a list: use an index such as {}[0]", shown, shown));
        return;
      }
      if (seg.index > cur.size() || (seg.index == cur.size() && !last)) {
        fail(fmt::format("index {} is out of range: '{}' has {} entr{}", seg.index, shown, cur.size(),
                         cur.size() == 1 ? "y" : "ies"));
        return;
      }
      if (seg.index == cur.size()) {
        cur.push_back(value);
        return;
      }
      YAML::Node element = cur[seg.index];
      if (last) {
        element = value;
        return;
      }
      // Node::operator= writes through to the tree; reset() only rebinds the handle.
      if (element.IsNull()) {
        YAML::Node map(YAML::NodeType::Map);
        element = map;
        cur.reset(map);
      } else {
        cur.reset(element);
      }
      shown = next_shown;
      continue;
    }
    if (!cur.IsMap()) {
      fail(fmt::format("'{}' is a single value, so it has no field '{}'", shown, seg.key));
      return;
    }
    if (seg.bracket_index) {
      fail(fmt::format("'{}' is a mapping, not a list: use {}.{}", shown, shown, seg.key));
      return;
    }
    bool found = false;
    for (auto it = cur.begin(); it != cur.end(); ++it) {
      if (!(it->first.IsScalar() && it->first.Scalar() == seg.key)) {
        continue;
      }
      found = true;
      YAML::Node target = it->second;
      if (last) {
        target = value;
        return;
      }
      if (target.IsNull()) {
        YAML::Node map(YAML::NodeType::Map);
        target = map;
        cur.reset(map);
      } else {
        cur.reset(target);
      }
      break;
    }
    if (!found) {
      YAML::Node created = last ? value : YAML::Node(YAML::NodeType::Map);
      cur.force_insert(seg.key, created);
      reader.register_set_node(key_node(cur, seg.key), label, next_shown);
      if (last) {
        return;
      }
      cur.reset(created);
    }
    shown = next_shown;
  }
}

} // namespace

SetOverride parse_set_override(std::string_view text)
{
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw InputError(SourceLocation{"--set " + std::string(text), 0, 0},
                     "expected PATH=VALUE, e.g. NodePool/default.spec.disruption.consolidateAfter=5m");
  }
  return SetOverride{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

void apply_set_overrides(std::vector<DocumentRef>& documents, const std::vector<std::string>& sets,
                         YamlReader& reader)
{
  for (const auto& s : sets) {
    try {
      apply_one(documents, s, reader);
    } catch (const YAML::Exception& e) {
      reader.error(SourceLocation{"--set " + s, 0, 0}, fmt::format("cannot apply: {}", e.msg));
    }
  }
}

} // namespace capsim::io
