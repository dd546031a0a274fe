#include "core/io/cluster_dump.hpp"

#include "core/base/diagnostics.hpp"
#include "core/io/files.hpp"
#include "core/io/json_items.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/text_guard.hpp"
#include "core/io/trace.hpp"
#include "core/model/kube.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <memory>
#include <set>
#include <string_view>

namespace capsim::io {

namespace {

constexpr std::string_view k_stream_name = "<cluster dump>";

// One input file and where its text sits in the combined stream.
struct Source
{
  std::string path;
  std::string option;                  // --nodes, --pods, ...
  std::vector<std::string_view> kinds; // kinds the option accepts
  std::string text;
  std::uint32_t first_line = 0; // 1-based line of the file's first line in the combined stream
  std::uint32_t lines = 0;
  // A JSON List (what kubectl prints) is read an item at a time: `items` index into `text`, and
  // what is parsed whole is `blanked`, the text with the items blanked out.
  std::optional<JsonItems> list;
  std::string blanked;
};

struct GroupInfo
{
  std::vector<std::string> instance_types;
  std::int32_t nodes = 0;
};

// Where a node parsed from text that starts at 0-based (line, column) of its file is.
struct Origin
{
  int line = 0;
  int column = 0;
};

SourceLocation location(const Source& s, const YAML::Mark& m, Origin origin = {})
{
  if (m.is_null()) {
    return {s.path, 0, 0};
  }
  const int line = origin.line + m.line;
  const int column = m.line == 0 ? origin.column + m.column : m.column;
  return {s.path, static_cast<std::uint32_t>(line + 1), static_cast<std::uint32_t>(column + 1)};
}

SourceLocation location(const Source& s, const YAML::Node& n, Origin origin = {})
{
  return location(s, n.Mark(), origin);
}

// yaml-cpp throws on type queries of a missing ("zombie") node: check IsDefined first.
bool is_map(const YAML::Node& n)
{
  return n.IsDefined() && n.IsMap();
}

bool is_seq(const YAML::Node& n)
{
  return n.IsDefined() && n.IsSequence();
}

YAML::Node child(const YAML::Node& n, const char* key)
{
  if (!is_map(n)) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
  return n[key];
}

std::string scalar(const YAML::Node& n)
{
  return n.IsDefined() && n.IsScalar() ? n.Scalar() : std::string();
}

// Reads the object's timestamps; every one of them moves `newest`.
class Scanner
{
public:
  Scanner(ClusterDump& out, Diagnostics& diagnostics) : m_out(out), m_diag(diagnostics) {}

  // `origin`: where `root`'s text starts in the file (an item parsed on its own).
  void scan(const Source& s, const YAML::Node& root, int depth, Origin origin = {})
  {
    m_origin = origin;
    if (!root.IsDefined() || root.IsNull()) {
      return;
    }
    if (!is_map(root)) {
      m_diag.error(at(s, root), fmt::format("{} expects Kubernetes objects (mappings with apiVersion and kind)", s.option));
      return;
    }
    const auto kind_node = child(root, "kind");
    const std::string kind = scalar(kind_node);
    if (kind == "List" || (kind.size() > 4 && kind.ends_with("List"))) {
      const auto items = child(root, "items");
      if (depth > 0 || (items.IsDefined() && !items.IsNull() && !is_seq(items))) {
        m_diag.error(at(s, depth > 0 ? kind_node : items), "a List must hold a sequence of objects in 'items'");
        return;
      }
      if (is_seq(items)) {
        for (const auto& item : items) {
          scan(s, item, depth + 1, m_origin);
        }
      }
      return;
    }
    if (std::find(s.kinds.begin(), s.kinds.end(), kind) == s.kinds.end()) {
      m_diag.error(at(s, kind_node.IsDefined() ? kind_node : root),
                   fmt::format("{} expects {} objects ({}), got {}", s.option, fmt::join(s.kinds, " or "),
                               s.option == "--nodes"        ? "kubectl get nodes -o json"
                               : s.option == "--pods"       ? "kubectl get pods -A -o json"
                               : s.option == "--nodepools"  ? "kubectl get nodepools -o yaml"
                               : s.option == "--pdbs"       ? "kubectl get pdb -A -o json"
                               : s.option == "--volumes"    ? "kubectl get pvc,pv,storageclass -A -o json"
                                                            : "kubectl get ec2nodeclasses -o yaml",
                               kind.empty() ? std::string("an object without 'kind'") : "kind '" + kind + "'"));
      return;
    }
    const auto md = child(root, "metadata");
    if (kind == "Node") {
      node(s, root, md);
      return;
    }
    if (kind == "Pod") {
      pod(s, root, md);
      return;
    }
    stamp(s, child(md, "creationTimestamp")); // (node() and pod() read it themselves)
    if (kind == "NodePool" || kind == "EC2NodeClass") {
      const auto annotations = child(md, "annotations");
      const bool pool = kind == "NodePool";
      DumpHash h;
      h.hash = scalar(child(annotations, pool ? "karpenter.sh/nodepool-hash" : "karpenter.k8s.aws/ec2nodeclass-hash"));
      h.version = scalar(
          child(annotations, pool ? "karpenter.sh/nodepool-hash-version" : "karpenter.k8s.aws/ec2nodeclass-hash-version"));
      (pool ? m_out.node_pool_hashes : m_out.node_class_hashes)[scalar(child(md, "name"))] = h;
    }
  }

  [[nodiscard]] const std::map<std::string, GroupInfo>& groups() const { return m_groups; }

  [[nodiscard]] const std::string& region() const { return m_region; }
  [[nodiscard]] const SourceLocation& region_location() const { return m_region_location; }

private:
  [[nodiscard]] SourceLocation at(const Source& s, const YAML::Node& n) const { return location(s, n, m_origin); }

  SimTime stamp(const Source& s, const YAML::Node& n)
  {
    if (!n.IsDefined() || n.IsNull()) {
      return -1;
    }
    const auto t = n.IsScalar() ? parse_rfc3339_ms(n.Scalar()) : std::nullopt;
    if (!t) {
      m_diag.error(at(s, n), fmt::format("'{}' is not an RFC 3339 timestamp", scalar(n)));
      return -1;
    }
    m_out.newest = std::max(m_out.newest, *t);
    return *t;
  }

  void node(const Source& s, const YAML::Node& root, const YAML::Node& md)
  {
    const std::string name = scalar(child(md, "name"));
    DumpNodeFacts f;
    f.created = stamp(s, child(md, "creationTimestamp"));
    f.deleting = stamp(s, child(md, "deletionTimestamp")) >= 0;
    const auto labels = child(md, "labels");
    if (is_map(labels)) {
      const std::string group = scalar(labels["eks.amazonaws.com/nodegroup"]);
      std::string type = scalar(labels["node.kubernetes.io/instance-type"]);
      if (type.empty()) {
        type = scalar(labels["beta.kubernetes.io/instance-type"]);
      }
      if (!group.empty()) {
        auto& g = m_groups[group];
        ++g.nodes;
        if (!type.empty() && std::find(g.instance_types.begin(), g.instance_types.end(), type) == g.instance_types.end()) {
          g.instance_types.push_back(type);
        }
      }
      if (const auto region = child(labels, "topology.kubernetes.io/region"); m_region.empty() && region.IsDefined()) {
        m_region = scalar(region);
        m_region_location = at(s, region); // (only a node that exists has a place)
      }
    }
    const auto annotations = child(md, "annotations");
    f.node_pool_hash = scalar(child(annotations, "karpenter.sh/nodepool-hash"));
    f.node_pool_hash_version = scalar(child(annotations, "karpenter.sh/nodepool-hash-version"));
    f.node_class_hash = scalar(child(annotations, "karpenter.k8s.aws/ec2nodeclass-hash"));
    f.node_class_hash_version = scalar(child(annotations, "karpenter.k8s.aws/ec2nodeclass-hash-version"));
    f.node_class = scalar(child(labels, "karpenter.k8s.aws/ec2nodeclass"));
    const auto conditions = child(child(root, "status"), "conditions");
    if (is_seq(conditions)) {
      for (const auto& c : conditions) {
        stamp(s, child(c, "lastHeartbeatTime"));
        const SimTime transition = stamp(s, child(c, "lastTransitionTime"));
        if (scalar(child(c, "type")) == "Ready") {
          f.ready = scalar(child(c, "status")) == "True";
          f.ready_since = f.ready ? transition : -1;
        }
      }
    }
    if (!name.empty()) {
      m_out.nodes[name] = f;
    }
  }

  void pod(const Source& s, const YAML::Node& root, const YAML::Node& md)
  {
    DumpPodFacts f;
    std::string ns = scalar(child(md, "namespace"));
    if (ns.empty()) {
      ns = "default";
    }
    f.created = stamp(s, child(md, "creationTimestamp"));
    f.deletion = stamp(s, child(md, "deletionTimestamp"));
    f.deleting = f.deletion >= 0;
    const auto owners = child(md, "ownerReferences");
    if (is_seq(owners)) {
      for (const auto& o : owners) {
        const auto controller = child(o, "controller");
        if (owners.size() > 1 && scalar(controller) != "true") {
          continue;
        }
        const std::string kind = scalar(child(o, "kind"));
        if (kind == "DaemonSet") {
          f.daemon_set = scalar(child(o, "name"));
        } else if (kind == "Node") {
          f.node_pod = true;
        }
      }
    }
    const auto annotations = child(md, "annotations");
    if (is_map(annotations) && annotations["kubernetes.io/config.mirror"].IsDefined()) {
      f.node_pod = true;
    }
    const auto status = child(root, "status");
    f.node_name = scalar(child(child(root, "spec"), "nodeName"));
    const std::string phase = scalar(child(status, "phase"));
    f.finished = phase == "Succeeded" || phase == "Failed";
    f.started = stamp(s, child(status, "startTime"));
    const auto conditions = child(status, "conditions");
    if (is_seq(conditions)) {
      for (const auto& c : conditions) {
        const SimTime t = stamp(s, child(c, "lastTransitionTime"));
        const std::string type = scalar(child(c, "type"));
        if (type == "PodScheduled" && scalar(child(c, "status")) == "True") {
          f.scheduled = t;
        } else if (type == "Ready" && scalar(child(c, "status")) == "False") {
          f.unready = true;
        }
      }
    }
    for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
      const auto statuses = child(status, list);
      if (!is_seq(statuses)) {
        continue;
      }
      for (const auto& cs : statuses) {
        const auto state = child(cs, "state");
        stamp(s, child(child(state, "running"), "startedAt"));
        stamp(s, child(child(state, "terminated"), "startedAt"));
        stamp(s, child(child(state, "terminated"), "finishedAt"));
      }
    }
    const std::string name = scalar(child(md, "name"));
    if (!name.empty()) {
      m_out.pods[pod_key(ns, name)] = f;
    }
  }

  ClusterDump& m_out;
  Diagnostics& m_diag;
  Origin m_origin;
  std::map<std::string, GroupInfo> m_groups;
  std::string m_region;
  SourceLocation m_region_location; // the label m_region came from
};

std::uint32_t count_lines(std::string_view text)
{
  return static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n'));
}

// `text` with the items of its List removed: their lines are kept as empty lines, and the last
// one as spaces up to where the last item ended, so that whatever follows keeps its line and
// column. The array is then empty.
std::string blank_items(std::string_view text, const std::vector<JsonItem>& items)
{
  const std::size_t begin = items.front().begin;
  const std::size_t end = items.back().end;
  std::string out(text.substr(0, begin));
  const std::string_view cut = text.substr(begin, end - begin);
  out.append(static_cast<std::size_t>(std::count(cut.begin(), cut.end(), '\n')), '\n');
  const std::size_t last_line = cut.rfind('\n');
  out.append(last_line == std::string_view::npos ? cut.size() : cut.size() - last_line - 1, ' ');
  out.append(text.substr(end));
  return out;
}

// One item of `s`'s List, parsed on its own.
YAML::Node load_item(const Source& s, const JsonItem& item)
{
  try {
    return load_yaml(std::string_view(s.text).substr(item.begin, item.end - item.begin));
  } catch (const YAML::Exception& e) {
    throw InputError(location(s, e.mark, {item.line, item.column}), fmt::format("invalid JSON/YAML: {}", e.msg));
  }
}

// Maps a location in the combined stream back to the file it came from.
SourceLocation remap(const SourceLocation& loc, const std::vector<Source>& sources)
{
  if (loc.file != k_stream_name) {
    return loc;
  }
  for (const auto& s : sources) {
    if (loc.line >= s.first_line && loc.line < s.first_line + s.lines) {
      return {s.path, loc.line - s.first_line + 1, loc.column};
    }
  }
  return {"<preview>", 0, 0};
}

// The DaemonSet controller pins each pod to its node with a matchFields term on
// metadata.name (read as a hostname requirement); the DaemonSet itself has no such term.
model::PodSpecPtr daemon_template(const model::PodSpec& pod_spec, const std::string& name)
{
  auto spec = std::make_shared<model::PodSpec>(pod_spec);
  spec->template_name = name;
  spec->owner = model::OwnerKind::daemon_set;
  std::vector<model::NodeSelectorTerm> terms;
  for (auto term : spec->required_node_affinity) {
    std::erase_if(term.requirements,
                  [](const model::Requirement& r) { return r.key == model::labels::k_hostname; });
    if (!term.requirements.empty()) {
      terms.push_back(std::move(term));
    }
  }
  spec->required_node_affinity = std::move(terms);
  return spec;
}

} // namespace

ClusterDump load_cluster_dump(const ClusterDumpFiles& files)
{
  std::vector<Source> sources;
  const auto add = [&sources](const std::string& path, std::string option, std::vector<std::string_view> kinds) {
    if (!path.empty()) {
      sources.push_back({path, std::move(option), std::move(kinds), {}, 0, 0, std::nullopt, {}});
    }
  };
  add(files.nodes, "--nodes", {"Node"});
  add(files.pods, "--pods", {"Pod"});
  add(files.node_pools, "--nodepools", {"NodePool"});
  add(files.pdbs, "--pdbs", {"PodDisruptionBudget"});
  add(files.node_classes, "--nodeclasses", {"EC2NodeClass"});
  add(files.volumes, "--volumes", {"PersistentVolumeClaim", "PersistentVolume", "StorageClass"});

  ClusterDump out;
  Diagnostics diagnostics;
  Scanner scanner(out, diagnostics);
  for (auto& s : sources) {
    s.text = read_text_file(s.path, {}, k_max_document_bytes);
    check_text(s.text, s.path, k_max_yaml_depth);
    // (A List of another kind, "NodeList", is left whole: the scenario reader takes it only as v1.)
    if (s.list = scan_json_items(s.text); s.list && (s.list->kind != "List" || s.list->items.empty())) {
      s.list.reset();
    }
    if (s.list) {
      s.blanked = blank_items(s.text, s.list->items);
    }
    // Only what is parsed whole can trip the parser (an item is a JSON object); the check itself
    // holds a JSON text's tokens, ~10 bytes per byte.
    check_yaml_documents(s.list ? s.blanked : s.text, s.path);
    std::vector<YAML::Node> docs;
    try {
      docs = load_yaml_documents(s.list ? s.blanked : s.text);
    } catch (const YAML::Exception& e) {
      throw InputError(location(s, e.mark), fmt::format("invalid JSON/YAML: {}", e.msg));
    }
    if (std::none_of(docs.begin(), docs.end(), [](const YAML::Node& d) { return d.IsDefined() && !d.IsNull(); })) {
      diagnostics.error({s.path, 1, 1}, fmt::format("{}: the file is empty", s.option));
    }
    try {
      for (const auto& d : docs) {
        scanner.scan(s, d, 0);
      }
    } catch (const YAML::Exception& e) {
      diagnostics.error(location(s, e.mark), fmt::format("unexpected structure: {}", e.msg));
    }
    if (s.list) {
      for (const auto& item : s.list->items) {
        const Origin origin{item.line, item.column};
        try {
          scanner.scan(s, load_item(s, item), 1, origin);
        } catch (const YAML::Exception& e) {
          diagnostics.error(location(s, e.mark, origin), fmt::format("unexpected structure: {}", e.msg));
        }
      }
    }
  }
  diagnostics.throw_if_any();

  // The combined stream: a synthesised Scenario and NodeGroups, then every file.
  std::string text = "apiVersion: capsim/v1\nkind: Scenario\nmetadata: {name: preview}\nspec: {}\n";
  for (const auto& [name, g] : scanner.groups()) {
    text += fmt::format("---\napiVersion: capsim/v1\nkind: NodeGroup\nmetadata: {{name: {}}}\n"
                        "spec: {{instanceTypes: {}, minSize: 0, maxSize: {}}}\n",
                        nlohmann::json(name).dump(), nlohmann::json(g.instance_types).dump(), std::max(g.nodes, 1));
  }
  ParseOptions options;
  options.cluster_dump = true;
  for (auto& s : sources) {
    text += "---\n";
    s.first_line = count_lines(text) + 1;
    s.lines = count_lines(s.text) + 1;
    text += s.list ? s.blanked : s.text;
    if (!text.ends_with('\n')) {
      text += '\n';
    }
    if (s.list) {
      const int first = static_cast<int>(s.first_line) - 1;
      options.item_lists.push_back({s.text, s.list->items, first, first + s.list->items_line, s.list->items_column});
      s.blanked = std::string();
    }
  }
  options.file_line = [&sources](std::uint32_t line) { return remap({std::string(k_stream_name), line, 1}, sources).line; };
  try {
    out.scenario = parse_scenario(text, std::string(k_stream_name), {}, options);
  } catch (const InputError& e) {
    std::vector<Diagnostic> items;
    for (const auto& d : e.diagnostics()) {
      items.push_back({remap(d.location, sources), d.message});
    }
    throw InputError(std::move(items));
  }
  auto& sc = out.scenario;
  sc.source_path = files.nodes;
  sc.settings.name = "preview";
  if (!scanner.region().empty()) {
    sc.settings.region = scanner.region();
    sc.settings.region_location = scanner.region_location();
  }
  sc.settings.engines.clear();

  // What the lenient reading left out.
  std::set<std::string> node_names;
  for (const auto& n : sc.nodes) {
    node_names.insert(n.name);
    const auto pool = n.labels.find(std::string(model::labels::k_nodepool));
    if (pool != n.labels.end() && n.node_pool.empty()) {
      out.warnings.push_back(fmt::format("node {} is labelled {}={}, which is not in {}: not taken as a Karpenter node",
                                         n.name, model::labels::k_nodepool, pool->second, files.node_pools));
    }
    if (n.labels.count(std::string(model::labels::k_instance_type)) == 0) {
      out.warnings.push_back(fmt::format("node {} has no {} label: capacity from its status, price unknown", n.name,
                                         model::labels::k_instance_type));
    }
  }
  std::vector<std::string> orphans;
  for (const auto& [key, f] : out.pods) {
    if (!f.finished && !f.node_name.empty() && node_names.count(f.node_name) == 0) {
      orphans.push_back(key);
    }
  }
  if (!orphans.empty()) {
    const std::size_t shown = std::min<std::size_t>(orphans.size(), 3);
    out.warnings.push_back(fmt::format("{} pod(s) bound to nodes that are not in {} were left out ({}{})", orphans.size(),
                                       files.nodes, fmt::join(orphans.begin(), orphans.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                                       orphans.size() > shown ? ", ..." : ""));
  }

  // Static/mirror pods follow their node; DaemonSets are rebuilt from their pods.
  std::set<std::string> daemon_sets;
  for (auto& p : sc.pods) {
    const std::string ns = p.spec ? p.spec->namespace_ : "default";
    const auto it = out.pods.find(pod_key(ns, p.name));
    if (it == out.pods.end()) {
      continue;
    }
    if (it->second.node_pod) {
      p.is_daemon = true;
    }
    if (!it->second.daemon_set.empty() && p.spec && daemon_sets.insert(ns + "/" + it->second.daemon_set).second) {
      sc.daemon_sets.push_back({it->second.daemon_set, daemon_template(*p.spec, it->second.daemon_set)});
    }
  }
  return out;
}

} // namespace capsim::io
