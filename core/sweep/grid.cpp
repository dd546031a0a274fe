#include "core/sweep/grid.hpp"

#include "core/base/diagnostics.hpp"
#include "core/base/text.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace capsim::sweep {

namespace {

[[noreturn]] void vary_error(std::string_view text, const std::string& message)
{
  throw InputError(SourceLocation{"--vary " + std::string(text), 0, 0}, message);
}

bool is_name_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool all_digits(std::string_view s)
{
  if (s.empty()) {
    return false;
  }
  for (const char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return true;
}

// The last field of a --set path that is not a list index: "a.b[0].values" -> "values",
// "NodePool/x.spec.limits[cpu]" -> "cpu".
std::string default_name(std::string_view path)
{
  std::vector<std::string> fields;
  std::string current;
  bool bracket = false;
  for (const char c : path) {
    if (bracket) {
      if (c == ']') {
        fields.push_back(current);
        current.clear();
        bracket = false;
      } else {
        current.push_back(c);
      }
    } else if (c == '.' || c == '[') {
      if (!current.empty()) {
        fields.push_back(current);
      }
      current.clear();
      bracket = c == '[';
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) {
    fields.push_back(current);
  }
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
    if (!all_digits(*it)) {
      const auto slash = it->rfind('/');
      // "Scenario/x" alone names a document; keep the name part.
      return slash == std::string::npos ? *it : it->substr(slash + 1);
    }
  }
  return std::string(path);
}

// Splits V1,V2,... at commas outside brackets, braces and YAML quotes.
std::vector<std::string> split_values(std::string_view all, std::string_view text)
{
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const char c = all[i];
    if (quote == '"') {
      current.push_back(c);
      if (c == '\\' && i + 1 < all.size()) {
        current.push_back(all[++i]);
      } else if (c == '"') {
        quote = 0;
      }
      continue;
    }
    if (quote == '\'') {
      current.push_back(c);
      if (c == '\'') {
        if (i + 1 < all.size() && all[i + 1] == '\'') {
          current.push_back(all[++i]); // '' is a quote inside single quotes
        } else {
          quote = 0;
        }
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth < 0) {
        vary_error(text, std::string("unbalanced '") + c + "' in the values (expected PATH=V1,V2,...)");
      }
    } else if (c == ',' && depth == 0) {
      out.emplace_back(trim(current));
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (quote != 0) {
    vary_error(text, std::string("unterminated ") + quote + " quote in the values");
  }
  if (depth != 0) {
    vary_error(text, "unbalanced '[' or '{' in the values (expected PATH=V1,V2,...)");
  }
  out.emplace_back(trim(current));
  return out;
}

} // namespace

Axis parse_axis(std::string_view text)
{
  const auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    vary_error(text, "expected [NAME:]PATH=V1,V2,... (e.g. NodePool/default.spec.disruption.consolidateAfter=0s,5m,30m)");
  }
  Axis axis;
  std::string_view head = text.substr(0, eq);
  const auto colon = head.find(':');
  if (colon != std::string_view::npos && colon > 0) {
    bool simple = true;
    for (const char c : head.substr(0, colon)) {
      simple = simple && is_name_char(c);
    }
    if (simple) {
      axis.name = std::string(head.substr(0, colon));
      axis.named = true;
      head = head.substr(colon + 1);
    }
  }
  axis.path = std::string(trim(head));
  if (axis.path.empty()) {
    vary_error(text, "the field path before '=' is empty (expected [NAME:]PATH=V1,V2,...)");
  }
  if (!axis.named) {
    axis.name = default_name(axis.path);
  }
  axis.values = split_values(text.substr(eq + 1), text);
  std::set<std::string> seen;
  for (const auto& v : axis.values) {
    if (!seen.insert(v).second) {
      vary_error(text, "the value '" + v + "' is given twice");
    }
  }
  return axis;
}

void name_axes(std::vector<Axis>& axes)
{
  for (std::size_t i = 0; i < axes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (axes[i].path == axes[j].path) {
        throw InputError(SourceLocation{"--vary " + axes[i].path, 0, 0},
                         "this field is already varied by another --vary (give all its values in one)");
      }
      if (axes[i].named && axes[j].named && axes[i].name == axes[j].name) {
        throw InputError(SourceLocation{"--vary " + axes[i].name + ":" + axes[i].path, 0, 0},
                         "the axis name '" + axes[i].name + "' is used twice");
      }
    }
  }
  // Default names that collide with any other name fall back to the full path.
  std::vector<std::string> names;
  for (const auto& a : axes) {
    names.push_back(a.name);
  }
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].named) {
      continue;
    }
    for (std::size_t j = 0; j < axes.size(); ++j) {
      if (j != i && names[j] == names[i]) {
        axes[i].name = axes[i].path;
        break;
      }
    }
  }
}

std::string value_label(const std::string& value)
{
  return value.empty() ? "(default)" : value;
}

std::size_t variant_count(const std::vector<Axis>& axes, std::size_t seeds)
{
  std::size_t n = 1;
  for (const auto& a : axes) {
    n *= a.values.size();
    if (n * std::max<std::size_t>(seeds, 1) > k_max_cells) {
      throw InputError(SourceLocation{"--vary", 0, 0},
                       "the grid has more than " + std::to_string(k_max_cells)
                           + " variant x seed runs (fewer values or seeds, or several sweeps)");
    }
  }
  return n;
}

std::vector<Variant> grid_variants(const std::string& path, const std::vector<Axis>& axes,
                                   const std::vector<std::string>& sets)
{
  const std::size_t count = variant_count(axes, 1);
  std::vector<Variant> out;
  out.reserve(count);
  std::vector<std::size_t> choice(axes.size(), 0);
  for (std::size_t v = 0; v < count; ++v) {
    Variant variant;
    variant.path = path;
    variant.sets = sets;
    variant.choice = choice;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const std::string& value = axes[a].values[choice[a]];
      variant.sets.push_back(axes[a].path + "=" + value);
      variant.name += (a > 0 ? ", " : "") + axes[a].name + "=" + value_label(value);
    }
    if (axes.empty()) {
      variant.name = "base";
    }
    out.push_back(std::move(variant));
    // Odometer: the last axis turns fastest.
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++choice[a] < axes[a].values.size()) {
        break;
      }
      choice[a] = 0;
    }
  }
  return out;
}

Shard parse_shard(std::string_view text)
{
  const auto fail = [&]() -> Shard {
    throw InputError(SourceLocation{"--shard " + std::string(text), 0, 0},
                     "expected I/N with 0 <= I < N (e.g. 0/4, or $(JOB_COMPLETION_INDEX)/4 in a Kubernetes Indexed Job)");
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    return fail();
  }
  const auto number = [](std::string_view s, std::size_t& out) {
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
  };
  Shard shard;
  if (!number(trim(text.substr(0, slash)), shard.index) || !number(trim(text.substr(slash + 1)), shard.count)
      || shard.count == 0 || shard.index >= shard.count || shard.count > k_max_cells) {
    return fail();
  }
  return shard;
}

} // namespace capsim::sweep
