#pragma once

#include "core/base/diagnostics.hpp"
#include "core/base/units.hpp"
#include "core/model/kube.hpp"
#include "core/model/resources.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// How unknown keys of one mapping are treated. strict: every unknown key is an error (capsim
// kinds and the capacity-relevant parts of Kubernetes kinds). lenient: unknown keys are ignored
// (fields of newer Kubernetes versions) unless they are a near miss of a field capsim reads,
// which is almost certainly a typo.
enum class Strictness : std::uint8_t { strict, lenient };

// Converts yaml-cpp nodes to values, collecting "FILE:LINE:COL: error: ..." diagnostics.
// Every accessor reports its own error and returns nullopt (or false) on bad input, so a
// caller can keep going and report several errors per file.
class YamlReader
{
public:
  YamlReader(std::string file, Diagnostics& diagnostics);

  [[nodiscard]] const std::string& file() const { return m_file; }

  [[nodiscard]] Diagnostics& diagnostics() { return m_diagnostics; }

  // Where a node came from: FILE:LINE:COL (1-based), or the --set that created it.
  [[nodiscard]] SourceLocation location(const YAML::Node& node) const;
  // The same for a yaml-cpp mark (of a node or of a parse error).
  [[nodiscard]] SourceLocation location(const YAML::Mark& mark) const;

  // The nodes read next were parsed from a piece of the file starting at `line`, `column`
  // (0-based): their marks are relative to it.
  void set_origin(int line, int column)
  {
    m_origin_line = line;
    m_origin_column = column;
  }

  void error(const YAML::Node& at, std::string message);
  void error(const SourceLocation& at, std::string message);

  // A node created or replaced by `--set label`; keys created on the way are registered with
  // the path prefix they complete, so an unknown one is reported as a path that does not exist.
  void register_set_node(const YAML::Node& node, const std::string& label, const std::string& path);

  // The mapping checks: `node` must be a mapping (else an error naming `what`); duplicate keys,
  // non-scalar keys and unknown keys (see Strictness) are errors. `used` are the fields capsim
  // reads, `ignored` the valid fields without effect on capacity. Returns whether node is a map.
  bool check_fields(const YAML::Node& node, std::string_view what, std::initializer_list<std::string_view> used,
                    std::initializer_list<std::string_view> ignored = {},
                    Strictness strictness = Strictness::strict);

  // node must be a mapping/sequence/scalar; reports "expected a mapping for 'what'" otherwise.
  bool expect_map(const YAML::Node& node, std::string_view what);
  bool expect_sequence(const YAML::Node& node, std::string_view what);
  bool expect_scalar(const YAML::Node& node, std::string_view what);

  // Typed scalars. `what` names the field in messages ("spec.replicas").
  std::optional<std::string> string(const YAML::Node& node, std::string_view what);
  std::optional<std::int64_t> integer(const YAML::Node& node, std::string_view what, std::int64_t min,
                                      std::int64_t max);
  std::optional<double> number(const YAML::Node& node, std::string_view what, double min, double max);
  std::optional<bool> boolean(const YAML::Node& node, std::string_view what);
  std::optional<Duration> duration(const YAML::Node& node, std::string_view what, bool allow_never = false);
  // One of `choices` (exact match; "did you mean" otherwise).
  std::optional<std::string> choice(const YAML::Node& node, std::string_view what,
                                    std::initializer_list<std::string_view> choices);

  // map[string]string (labels, annotations, nodeSelector). Non-scalar values are errors.
  model::Labels string_map(const YAML::Node& node, std::string_view what);
  std::vector<std::string> string_list(const YAML::Node& node, std::string_view what);

  // A Kubernetes ResourceList {cpu: 500m, memory: 1Gi, ...} added into `out` (cpu in millicores,
  // memory/ephemeral-storage in bytes, others in units). Non-standard names without a domain are
  // errors ("did you mean"); `limit_nodes`, when given, receives a `nodes` entry (NodePool limits).
  // `keep`, when given, passes over the entries whose name it refuses (and those whose name is not
  // a string) without a word.
  using ResourceFilter = bool (*)(std::string_view name);
  bool resources(const YAML::Node& node, std::string_view what, model::Resources& out,
                 std::optional<std::int64_t>* limit_nodes = nullptr, ResourceFilter keep = nullptr);
  // Which resource names a ResourceList node lists (for "limits-only" defaulting).
  std::vector<model::ResourceId> resource_ids(const YAML::Node& node);

  // Taints [{key, value, effect}] and tolerations.
  std::vector<model::Taint> taints(const YAML::Node& node, std::string_view what);
  std::vector<model::Toleration> tolerations(const YAML::Node& node, std::string_view what);
  // metav1.LabelSelector.
  std::optional<model::LabelSelector> label_selector(const YAML::Node& node, std::string_view what);

private:
  struct SetNode
  {
    YAML::Node node;
    std::string label; // "--set PATH=VALUE"
    std::string path;  // path prefix this key completes ("" for value nodes)
  };

  [[nodiscard]] const SetNode* find_set_node(const YAML::Node& node) const;

  std::string m_file;
  Diagnostics& m_diagnostics;
  std::vector<SetNode> m_set_nodes;
  int m_origin_line = 0;
  int m_origin_column = 0;
};

// Present and not null (`key:` with no value and `key: ~` count as absent, as in Kubernetes).
[[nodiscard]] inline bool present(const YAML::Node& node)
{
  return node.IsDefined() && !node.IsNull();
}

// A child of a mapping without creating it (const lookup), or an undefined node. Safe on
// non-maps.
[[nodiscard]] YAML::Node child(const YAML::Node& map, std::string_view key);

// Number of nodes reachable from `root`, counting aliased subtrees every time they are reached,
// stopping at `limit` (so "billion laughs" alias bombs and alias cycles are caught) or when the
// nesting exceeds max_depth. Returns false when either bound is hit.
[[nodiscard]] bool within_node_budget(const YAML::Node& root, std::size_t limit, int max_depth);

} // namespace capsim::io
