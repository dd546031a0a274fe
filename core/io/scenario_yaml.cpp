#include "core/io/scenario_yaml.hpp"

#include "core/base/quantity.hpp"
#include "core/base/rng.hpp"
#include "core/base/text.hpp"
#include "core/catalog/aws_allocatable.hpp"
#include "core/catalog/catalog.hpp"
#include "core/io/capacity_reservations.hpp"
#include "core/io/files.hpp"
#include "core/io/pod_template.hpp"
#include "core/io/set_override.hpp"
#include "core/io/text_guard.hpp"
#include "core/io/trace.hpp"
#include "core/io/volumes.hpp"
#include "core/io/yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

namespace capsim::io {

namespace {

// One document of the stream (List items are documents of their own).
struct Doc
{
  YAML::Node root;
  std::string api_version;
  std::string kind;
  std::string name;
  std::string namespace_ = "default";
  // An item of an item list (ParseOptions::item_lists), parsed on its own: where its text starts
  // in the stream (its marks are relative to it) and where its metadata.name is. A Pod or Node
  // (the bulk of a dump, read by the main pass only) keeps its text instead of `root`, parsed
  // when it is read (collect_items).
  bool from_item = false;
  int origin_line = 0;
  int origin_column = 0;
  SourceLocation name_at;
  std::string_view item_text;
};

// `d` with `root` as its tree. (Assigning to a YAML::Node would merge the trees' memory into the
// node's: the document would hold on to both.)
Doc with_root(const Doc& d, const YAML::Node& root)
{
  return Doc{root, d.api_version, d.kind, d.name, d.namespace_, d.from_item, d.origin_line, d.origin_column,
             d.name_at, d.item_text};
}

// Cluster dumps: the YAML node budget is per object of a List.
bool item_within_budget(const YAML::Node& item)
{
  return within_node_budget(item, k_max_yaml_nodes, k_max_yaml_depth * 2);
}

std::string item_budget_error()
{
  return fmt::format("an object of the List is too large or too deep once YAML aliases are expanded (more than {} "
                     "nodes or {} levels)",
                     k_max_yaml_nodes, k_max_yaml_depth * 2);
}

// A NodePool document carrying this annotation is a later version of that NodePool, applied at
// the given time of the run (model::NodePoolUpdate).
constexpr std::string_view k_apply_at = model::k_apply_at_annotation;

// Why a NodePool may not name `key` (model::is_restricted_node_pool_key is true for it).
std::string restriction_reason(std::string_view key)
{
  if (key == model::labels::k_hostname || key == model::labels::k_nodepool) {
    return " (Karpenter sets it)";
  }
  return " (the karpenter.sh and karpenter.k8s.aws domains allow only the labels Karpenter knows)";
}

// A later version of a NodePool or EC2NodeClass (the documents share the name of the first).
bool is_later_version(const Doc& d)
{
  return (d.kind == "NodePool" || d.kind == "EC2NodeClass")
         && present(child(child(child(d.root, "metadata"), "annotations"), std::string(k_apply_at)));
}

// A YAML value as hashstructure sees it (FormatV2, SlicesAsSets, IgnoreZeroValue): mappings by
// sorted key without null or empty values, sequences as sets, scalars as written.
std::string canonical_text(const YAML::Node& n, const std::vector<std::string_view>& skip_keys = {})
{
  if (!n.IsDefined() || n.IsNull()) {
    return {};
  }
  if (n.IsScalar()) {
    return fmt::format("{}:{}", n.Scalar().size(), n.Scalar());
  }
  std::vector<std::string> parts;
  if (n.IsSequence()) {
    for (const auto& e : n) {
      parts.push_back(canonical_text(e));
    }
    std::sort(parts.begin(), parts.end());
  } else {
    for (const auto& kv : n) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : canonical_text(kv.first);
      if (std::find(skip_keys.begin(), skip_keys.end(), key) != skip_keys.end()) {
        continue;
      }
      std::string value = canonical_text(kv.second);
      if (value.empty() || value == "[]" || value == "{}") {
        continue;
      }
      parts.push_back(fmt::format("{}:{}={}", key.size(), key, value));
    }
    std::sort(parts.begin(), parts.end());
  }
  const bool seq = n.IsSequence();
  std::string out(1, seq ? '[' : '{');
  for (const auto& p : parts) {
    out += p;
    out += ',';
  }
  out += seq ? ']' : '}';
  return out;
}

struct KindInfo
{
  std::string_view kind;
  std::string_view api_version;
  bool namespaced;
};

constexpr KindInfo k_kinds[] = {
    {"Scenario", "capsim/v1", false},
    {"NodeGroup", "capsim/v1", false},
    {"Catalog", "capsim/v1", false},
    {"NodePool", "karpenter.sh/v1", false},
    {"EC2NodeClass", "karpenter.k8s.aws/v1", false},
    {"Node", "v1", false},
    {"Pod", "v1", true},
    {"Deployment", "apps/v1", true},
    {"StatefulSet", "apps/v1", true},
    {"ReplicaSet", "apps/v1", true},
    {"DaemonSet", "apps/v1", true},
    {"Job", "batch/v1", true},
    {"PodDisruptionBudget", "policy/v1", true},
    {"PriorityClass", "scheduling.k8s.io/v1", false},
    {"RuntimeClass", "node.k8s.io/v1", false},
    {"Namespace", "v1", false},
    {"PersistentVolumeClaim", "v1", true},
    {"PersistentVolume", "v1", false},
    {"StorageClass", "storage.k8s.io/v1", false},
};

const KindInfo* find_kind(std::string_view kind)
{
  for (const auto& k : k_kinds) {
    if (k.kind == kind) {
      return &k;
    }
  }
  return nullptr;
}

// Top-level fields of Kubernetes objects that capsim does not read.
const std::initializer_list<std::string_view> k_k8s_top_ignored = {"status"};

bool valid_percent_or_int(std::string_view text)
{
  if (text.empty()) {
    return false;
  }
  std::string_view digits = text;
  if (digits.back() == '%') {
    digits.remove_suffix(1);
    if (digits.empty() || digits.size() > 3) {
      return false;
    }
  }
  if (digits.empty() || digits.size() > 9) {
    return false;
  }
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  return text.back() != '%' || std::stoi(std::string(digits)) <= 100;
}

// A 5-field cron expression or a @macro, as Karpenter's budget schedule accepts.
bool valid_cron(std::string_view text)
{
  static constexpr std::string_view k_macros[] = {"@yearly", "@annually", "@monthly", "@weekly",
                                                  "@daily",  "@midnight", "@hourly"};
  for (const auto m : k_macros) {
    if (text == m) {
      return true;
    }
  }
  int fields = 0;
  bool in_field = false;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\t';
    if (!space && !in_field) {
      ++fields;
    }
    in_field = !space;
    if (!space && !((c >= '0' && c <= '9') || c == '*' || c == ',' || c == '-' || c == '/' || c == '?'
                     || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
      return false;
    }
  }
  return fields == 5;
}

class ScenarioParser
{
public:
  ScenarioParser(YamlReader& reader, std::string source, bool cluster_dump = false,
                 std::function<std::uint32_t(std::uint32_t)> file_line = nullptr)
    : m_r(reader), m_source(std::move(source)), m_storage([this] { return provisioning_zones(); }), m_dump(cluster_dump),
      m_file_line(std::move(file_line))
  {
  }

  model::Scenario parse(std::vector<Doc>& docs);

private:
  // Settings helpers: read an optional field into `out` when present.
  void set_duration(const YAML::Node& map, std::string_view key, const std::string& what, Duration& out,
                    bool allow_never = false)
  {
    if (const auto n = child(map, key); present(n)) {
      if (auto d = m_r.duration(n, what + "." + std::string(key), allow_never)) {
        out = *d;
      }
    }
  }

  void set_int(const YAML::Node& map, std::string_view key, const std::string& what, std::int32_t& out,
               std::int64_t min, std::int64_t max)
  {
    if (const auto n = child(map, key); present(n)) {
      if (auto v = m_r.integer(n, what + "." + std::string(key), min, max)) {
        out = static_cast<std::int32_t>(*v);
      }
    }
  }

  void set_double(const YAML::Node& map, std::string_view key, const std::string& what, double& out, double min,
                  double max)
  {
    if (const auto n = child(map, key); present(n)) {
      if (auto v = m_r.number(n, what + "." + std::string(key), min, max)) {
        out = *v;
      }
    }
  }

  void set_bool(const YAML::Node& map, std::string_view key, const std::string& what, bool& out)
  {
    if (const auto n = child(map, key); present(n)) {
      if (auto v = m_r.boolean(n, what + "." + std::string(key))) {
        out = *v;
      }
    }
  }

  void read_scenario(const Doc& d);
  void read_settings(const YAML::Node& spec);
  void read_workload_section(const YAML::Node& workload);
  std::optional<model::RuntimeDistribution> read_runtime(const YAML::Node& node, const std::string& what);
  void read_generator(const YAML::Node& g, std::size_t index);
  void read_event(const YAML::Node& e, std::size_t index);
  void read_node_pool(const Doc& d);
  void read_node_class(const Doc& d);
  // A NodePool's or EC2NodeClass's annotation capsim.io/apply-at (a later version of it,
  // applied during the run), or another time annotation `key` (a NodePool's
  // capsim.io/delete-at): `at` unset without it; `ok` false when it is wrong (reported).
  struct ApplyAt
  {
    std::optional<SimTime> at;
    SourceLocation location;
    bool ok = true;
  };
  ApplyAt read_at_annotation(const Doc& d, const std::string& w, std::string_view key = k_apply_at);
  void read_node_group(const Doc& d);
  void read_node(const Doc& d);
  void read_pod(const Doc& d);
  void read_workload(const Doc& d);
  void read_daemon_set(const Doc& d);
  void read_pdb(const Doc& d);
  void read_catalog(const Doc& d);
  void read_priority_class(const Doc& d);
  void note_controllers(const std::vector<Doc>& docs);
  [[nodiscard]] std::optional<std::pair<std::string, std::string>> controller_of(const Doc& d,
                                                                                 const PodTemplate& t) const;
  void adopt_pods();
  void read_runtime_class(const Doc& d);
  void read_namespace(const Doc& d);
  void read_claim_templates(const Doc& d, const YAML::Node& spec, std::vector<ClaimInfo>& out);
  void cross_check(const std::vector<Doc>& docs);

  // Claims of one pod template (a bare Pod, a workload, a DaemonSet), resolved once the whole
  // stream is read.
  struct TemplateClaims
  {
    std::size_t index = 0; // into m_s.pods, m_s.workloads or m_s.daemon_sets
    std::vector<PodClaimRef> volumes;
    std::vector<ClaimInfo> claim_templates; // StatefulSet spec.volumeClaimTemplates
    std::string what;                       // "Deployment/web", for messages
    SourceLocation location;                // the document
  };

  // One claim of a template as resolved: per_pod claims are made for each pod in a zone of
  // their own (Immediate); claim_template is the index into claim_templates, or -1.
  struct PlannedClaim
  {
    ClaimEffect effect;
    bool per_pod = false;
    model::PerPodClaim claim;
    int claim_template = -1;
  };

  void resolve_volumes();
  std::vector<PlannedClaim> plan_claims(const std::string& namespace_, const TemplateClaims& t);
  void check_class(const ClaimInfo& claim, const std::string& what);
  void check_absurd(model::PodSpec& spec, const TemplateClaims& t);
  void resolve_ordinals(model::Workload& w, const TemplateClaims& t, const model::PodSpec& base,
                        const std::vector<PlannedClaim>& plan);
  std::vector<std::string> provisioning_zones() const;

  // The pod template of a workload (spec.template), or nullptr after an error.
  model::PodSpecPtr read_template(const Doc& d, const YAML::Node& spec, model::OwnerKind owner, PodTemplate* out = nullptr);
  std::string what(const Doc& d) const { return fmt::format("{}/{}", d.kind, d.name); }

  // An RFC 3339 time (Unix ms), or nullopt after an error.
  std::optional<std::int64_t> timestamp(const YAML::Node& n, const std::string& field)
  {
    const auto text = m_r.string(n, field);
    if (!text) {
      return std::nullopt;
    }
    const auto ms = parse_rfc3339_ms(*text);
    if (!ms) {
      m_r.error(n, fmt::format("'{}': '{}' is not an RFC 3339 time (e.g. 2026-11-29T12:00:00Z)", field, *text));
    }
    return ms;
  }

  void note_creation(std::optional<std::int64_t> ms)
  {
    if (ms && (!m_newest_creation || *ms > *m_newest_creation)) {
      m_newest_creation = ms;
    }
  }

  YamlReader& m_r;
  std::string m_source;
  model::Scenario m_s;
  std::map<std::string, std::int32_t> m_priority_classes;
  std::optional<std::int32_t> m_default_priority;
  std::map<std::string, RuntimeClass> m_runtime_classes;
  // Namespace name -> labels: the stream's Namespaces and the namespaces of its other objects,
  // each with its kubernetes.io/metadata.name label (namespaceSelectors pick among them).
  std::map<std::string, model::Labels> m_namespaces;
  // Controllers of the stream, "Kind/namespace/name"; a ReplicaSet whose controller is one of
  // the stream's Deployments maps to that Deployment's name (pasted `kubectl get deploy,rs,pod`).
  std::set<std::string> m_controllers;
  std::map<std::string, std::string> m_managed_replica_sets; // "namespace/name" -> Deployment
  // Pods of the stream that a workload of the stream controls: pod index, "Kind/namespace/name".
  std::vector<std::pair<std::size_t, std::string>> m_adoptions;
  // The first pod's spec of each controller outside the stream ("namespace/Kind/name"): the
  // controller's other pods count with it (kube-scheduler's default spreading).
  std::map<std::string, model::PodSpecPtr> m_unlisted_controllers;
  std::map<std::string, std::int32_t> m_job_completions; // "Job/namespace/name" -> Succeeded pods
  std::optional<SourceLocation> m_scenario_location;
  // Locations for cross-references.
  std::map<std::string, SourceLocation> m_node_pool_ref_locations; // NodePool name -> nodeClassRef location
  // The NodePools' capsim.io/delete-at annotations, in stream order (cross_check applies them).
  struct PoolDeletion
  {
    std::string name;
    SimTime at = 0;
    SourceLocation location;
  };
  std::vector<PoolDeletion> m_pool_deletions;
  std::map<std::string, SourceLocation> m_pool_creations; // NodePools created during the run: their apply-at
  std::vector<std::pair<std::size_t, YAML::Node>> m_generator_template_nodes;
  std::vector<std::pair<std::size_t, YAML::Node>> m_trace_template_nodes;
  std::vector<std::pair<std::size_t, SourceLocation>> m_bound_pod_nodes; // pod index -> its nodeName
  StorageModel m_storage;
  std::vector<TemplateClaims> m_pod_claims;
  std::vector<TemplateClaims> m_workload_claims;
  std::vector<TemplateClaims> m_daemon_set_claims;
  std::optional<std::int64_t> m_newest_creation; // of the Nodes and Pods (Unix ms)
  std::vector<std::pair<std::size_t, std::int64_t>> m_pod_starts; // bound pod index, status.startTime
  bool m_has_scenario = false;
  bool m_dump = false; // ParseOptions::cluster_dump
  std::function<std::uint32_t(std::uint32_t)> m_file_line; // ParseOptions::file_line

  // The line to name in a message for `at` (a cluster dump's stream line is not its file's).
  [[nodiscard]] std::uint32_t line_in_file(const SourceLocation& at) const
  {
    return m_file_line ? m_file_line(at.line) : at.line;
  }
};

// ----------------------------------------------------------------------------------------------
// Scenario

void ScenarioParser::read_scenario(const Doc& d)
{
  const SourceLocation here = m_r.location(d.root);
  if (m_scenario_location) {
    m_r.error(d.root, fmt::format("a second capsim/v1 Scenario document (the first is on line {}); a stream has "
                                  "exactly one",
                                  m_scenario_location->line));
    return;
  }
  m_scenario_location = here;
  m_s.settings.location = here;
  m_has_scenario = true;
  m_r.check_fields(d.root, "Scenario", {"apiVersion", "kind", "metadata", "spec"});
  if (const auto md = child(d.root, "metadata"); present(md)) {
    m_r.check_fields(md, "Scenario.metadata", {"name"}, {"labels", "annotations", "namespace"});
  }
  if (!d.name.empty()) {
    m_s.settings.name = d.name;
  }
  const auto spec = child(d.root, "spec");
  if (present(spec)) {
    read_settings(spec);
  }
}

void ScenarioParser::read_settings(const YAML::Node& spec)
{
  auto& st = m_s.settings;
  if (!m_r.check_fields(spec, "Scenario.spec",
                        {"region", "zones", "duration", "startTime", "seed", "catalog", "capacityReservations", "engines",
                         "workload", "events", "karpenter", "clusterAutoscaler", "spot", "pricing"})) {
    return;
  }
  if (const auto n = child(spec, "region"); present(n)) {
    if (auto v = m_r.string(n, "spec.region"); v && !v->empty()) {
      st.region = *v;
      st.region_location = m_r.location(n);
    } else if (v) {
      m_r.error(n, "'spec.region' must not be empty");
    }
  }
  st.zones = m_r.string_list(child(spec, "zones"), "spec.zones");
  {
    std::set<std::string> seen;
    for (const auto& z : st.zones) {
      if (!seen.insert(z).second) {
        m_r.error(child(spec, "zones"), fmt::format("zone '{}' is listed twice in 'spec.zones'", z));
      }
    }
  }
  if (const auto n = child(spec, "duration"); present(n)) {
    if (auto v = m_r.duration(n, "spec.duration")) {
      if (*v <= 0 || *v > k_max_sim_duration) {
        m_r.error(n, fmt::format("'spec.duration' must be between 1ms and {} (got {})",
                                 format_duration(k_max_sim_duration), format_duration(*v)));
      } else {
        st.duration = *v;
      }
    }
  }
  if (const auto n = child(spec, "startTime"); present(n)) {
    st.start_ms = timestamp(n, "spec.startTime");
  }
  if (const auto n = child(spec, "seed"); present(n)) {
    if (auto v = m_r.integer(n, "spec.seed", 0, std::numeric_limits<std::int64_t>::max())) {
      st.seed = static_cast<std::uint64_t>(*v);
    }
  }
  if (const auto n = child(spec, "capacityReservations"); present(n)) {
    // `aws ec2 describe-capacity-reservations` output, read now so that its errors come with the
    // scenario's.
    if (auto v = m_r.string(n, "spec.capacityReservations"); v && !v->empty()) {
      const std::string path = resolve_relative(m_source, *v);
      try {
        m_s.capacity_reservations = parse_capacity_reservations(read_text_file(path, m_r.location(n)), path);
      } catch (const InputError& e) {
        for (const auto& d : e.diagnostics()) {
          m_r.error(d.location, d.message);
        }
      }
    }
  }
  if (const auto n = child(spec, "catalog"); present(n)) {
    if (auto v = m_r.string(n, "spec.catalog")) {
      if (*v == "default" || v->empty()) {
        st.catalog = "default";
      } else {
        st.catalog = resolve_relative(m_source, *v);
        std::error_code ec;
        if (!std::filesystem::is_directory(st.catalog, ec)) {
          m_r.error(n, fmt::format("catalog folder '{}' not found (looked for '{}'; paths are relative to the "
                                   "scenario's folder; use 'default' for the embedded catalog)",
                                   *v, st.catalog));
        }
      }
    }
  }
  if (const auto n = child(spec, "engines"); present(n) && m_r.expect_sequence(n, "spec.engines")) {
    for (const auto& e : n) {
      if (auto v = m_r.choice(e, "spec.engines", {"karpenter", "cluster-autoscaler"})) {
        if (std::find(st.engines.begin(), st.engines.end(), *v) != st.engines.end()) {
          m_r.error(e, fmt::format("engine '{}' is listed twice", *v));
        } else {
          st.engines.push_back(*v);
        }
      }
    }
  }
  if (const auto n = child(spec, "workload"); present(n)) {
    read_workload_section(n);
  }
  if (const auto n = child(spec, "events"); present(n) && m_r.expect_sequence(n, "spec.events")) {
    std::size_t i = 0;
    for (const auto& e : n) {
      read_event(e, i++);
    }
  }
  if (const auto k = child(spec, "karpenter"); present(k)) {
    const std::string w = "spec.karpenter";
    auto& ks = st.karpenter;
    if (m_r.check_fields(k, w,
                         {"batchIdleDuration", "batchMaxDuration", "launchLatency", "registrationLatency",
                          "spotToSpotConsolidation", "version", "preferencePolicy", "minValuesPolicy",
                          "maxInstanceTypes", "interruptionQueue", "staticCapacity"})) {
      set_duration(k, "batchIdleDuration", w, ks.batch_idle_duration);
      set_duration(k, "batchMaxDuration", w, ks.batch_max_duration);
      set_duration(k, "launchLatency", w, ks.launch_latency);
      set_duration(k, "registrationLatency", w, ks.registration_latency);
      set_bool(k, "spotToSpotConsolidation", w, ks.spot_to_spot_consolidation);
      set_bool(k, "interruptionQueue", w, ks.interruption_queue);
      set_bool(k, "staticCapacity", w, ks.static_capacity);
      if (const auto n = child(k, "version"); present(n)) {
        if (auto v = m_r.choice(n, w + ".version", {"1.13", "1.14"})) {
          ks.version = *v;
        }
      }
      if (const auto n = child(k, "preferencePolicy"); present(n)) {
        if (auto v = m_r.choice(n, w + ".preferencePolicy", {"Respect", "Ignore"})) {
          ks.preference_policy_ignore = *v == "Ignore";
        }
      }
      if (const auto n = child(k, "minValuesPolicy"); present(n)) {
        if (auto v = m_r.choice(n, w + ".minValuesPolicy", {"Strict", "BestEffort"})) {
          ks.min_values_best_effort = *v == "BestEffort";
        }
      }
      set_int(k, "maxInstanceTypes", w, ks.max_instance_types, 1, 10000);
      if (ks.batch_max_duration < ks.batch_idle_duration) {
        m_r.error(k, fmt::format("'{}.batchMaxDuration' ({}) must not be shorter than batchIdleDuration ({})", w,
                                 format_duration(ks.batch_max_duration), format_duration(ks.batch_idle_duration)));
      }
    }
  }
  if (const auto c = child(spec, "clusterAutoscaler"); present(c)) {
    const std::string w = "spec.clusterAutoscaler";
    auto& cs = st.cluster_autoscaler;
    if (m_r.check_fields(c, w,
                         {"expander", "scanInterval", "scaleDownUtilizationThreshold", "scaleDownUnneededTime",
                          "scaleDownDelayAfterAdd", "scaleDownDelayAfterDelete", "scaleDownDelayAfterFailure",
                          "launchLatency", "maxNodeProvisionTime", "maxNodesTotal", "maxEmptyBulkDelete",
                          "maxScaleDownParallelism", "balanceSimilarNodeGroups", "skipNodesWithLocalStorage",
                          "skipNodesWithSystemPods", "useRealAllocatable", "rebalanceRecommendation",
                          "newPodScaleUpDelay", "maxDrainParallelism", "scaleDownGpuUtilizationThreshold",
                          "ignoreDaemonsetsUtilization", "expendablePodsPriorityCutoff",
                          "unremovableNodeRecheckTimeout", "initialNodeGroupBackoffDuration",
                          "maxNodeGroupBackoffDuration", "nodeGroupBackoffResetTimeout",
                          "blockingSystemPodDisruptionTimeout", "registrationLatency", "rebalanceLeadTime",
                          "maxBulkSoftTaintCount"})) {
      if (const auto n = child(c, "expander"); present(n)) {
        if (auto v = m_r.string(n, w + ".expander")) {
          const std::vector<std::string> known{"random", "most-pods", "least-waste", "least-nodes", "price",
                                               "priority"};
          bool ok = true;
          for (const auto& part : split(*v, ',')) {
            const std::string name(trim(part));
            if (std::find(known.begin(), known.end(), name) == known.end()) {
              m_r.error(n, fmt::format("unknown expander '{}' in '{}.expander' (expected {}{})", name, w,
                                       fmt::join(known, ", "),
                                       closest_match(name, known).empty()
                                           ? ""
                                           : fmt::format("; did you mean '{}'?", closest_match(name, known))));
              ok = false;
            }
          }
          if (ok) {
            cs.expander = *v;
            cs.expander_location = m_r.location(n);
          }
        }
      }
      set_duration(c, "scanInterval", w, cs.scan_interval);
      set_double(c, "scaleDownUtilizationThreshold", w, cs.scale_down_utilization_threshold, 0.0, 1.0);
      set_duration(c, "scaleDownUnneededTime", w, cs.scale_down_unneeded_time);
      set_duration(c, "scaleDownDelayAfterAdd", w, cs.scale_down_delay_after_add);
      set_duration(c, "scaleDownDelayAfterDelete", w, cs.scale_down_delay_after_delete);
      set_duration(c, "scaleDownDelayAfterFailure", w, cs.scale_down_delay_after_failure);
      set_duration(c, "launchLatency", w, cs.launch_latency);
      set_duration(c, "maxNodeProvisionTime", w, cs.max_node_provision_time);
      set_int(c, "maxNodesTotal", w, cs.max_nodes_total, 0, 1'000'000);
      set_int(c, "maxEmptyBulkDelete", w, cs.max_empty_bulk_delete, 1, 1'000'000);
      set_int(c, "maxScaleDownParallelism", w, cs.max_scale_down_parallelism, 1, 1'000'000);
      set_bool(c, "balanceSimilarNodeGroups", w, cs.balance_similar_node_groups);
      set_bool(c, "skipNodesWithLocalStorage", w, cs.skip_nodes_with_local_storage);
      set_bool(c, "skipNodesWithSystemPods", w, cs.skip_nodes_with_system_pods);
      set_bool(c, "useRealAllocatable", w, cs.use_real_allocatable);
      set_bool(c, "rebalanceRecommendation", w, cs.rebalance_recommendation);
      set_duration(c, "newPodScaleUpDelay", w, cs.new_pod_scale_up_delay);
      set_int(c, "maxDrainParallelism", w, cs.max_drain_parallelism, 1, 1'000'000);
      set_int(c, "maxBulkSoftTaintCount", w, cs.max_bulk_soft_taint_count, 0, 1'000'000);
      set_double(c, "scaleDownGpuUtilizationThreshold", w, cs.scale_down_gpu_utilization_threshold, 0.0, 1.0);
      set_bool(c, "ignoreDaemonsetsUtilization", w, cs.ignore_daemonsets_utilization);
      set_int(c, "expendablePodsPriorityCutoff", w, cs.expendable_pods_priority_cutoff, -2147483648LL, 2147483647LL);
      set_duration(c, "unremovableNodeRecheckTimeout", w, cs.unremovable_node_recheck_timeout);
      set_duration(c, "initialNodeGroupBackoffDuration", w, cs.initial_node_group_backoff_duration);
      set_duration(c, "maxNodeGroupBackoffDuration", w, cs.max_node_group_backoff_duration);
      set_duration(c, "nodeGroupBackoffResetTimeout", w, cs.node_group_backoff_reset_timeout);
      set_duration(c, "blockingSystemPodDisruptionTimeout", w, cs.blocking_system_pod_disruption_timeout);
      set_duration(c, "registrationLatency", w, cs.registration_latency);
      set_duration(c, "rebalanceLeadTime", w, cs.rebalance_lead_time);
      if (cs.scan_interval <= 0) {
        m_r.error(c, fmt::format("'{}.scanInterval' must be positive", w));
        cs.scan_interval = 10 * k_second;
      }
    }
  }
  if (const auto sp = child(spec, "spot"); present(sp)) {
    const std::string w = "spec.spot";
    if (m_r.check_fields(sp, w, {"interruptionModel", "hazardMultiplier"})) {
      if (const auto n = child(sp, "interruptionModel"); present(n)) {
        if (auto v = m_r.choice(n, w + ".interruptionModel", {"advisor", "none"})) {
          st.spot.interruption_model = *v;
        }
      }
      set_double(sp, "hazardMultiplier", w, st.spot.hazard_multiplier, 0.0, 1e6);
    }
  }
  if (const auto p = child(spec, "pricing"); present(p)) {
    const std::string w = "spec.pricing";
    auto& ps = st.pricing;
    if (m_r.check_fields(p, w,
                         {"onDemandDiscount", "savingsPlanUsdPerHour", "savingsPlanDiscount",
                          "nodeOverheadUsdPerHour", "minSpotDiscount"})) {
      set_double(p, "onDemandDiscount", w, ps.on_demand_discount, 0.0, 1.0);
      set_double(p, "savingsPlanUsdPerHour", w, ps.savings_plan_usd_per_hour, 0.0, 1e9);
      set_double(p, "savingsPlanDiscount", w, ps.savings_plan_discount, 0.0, 1.0);
      set_double(p, "nodeOverheadUsdPerHour", w, ps.node_overhead_usd_per_hour, 0.0, 1e6);
      set_double(p, "minSpotDiscount", w, ps.min_spot_discount, 0.0, 1.0);
    }
  }
}

void ScenarioParser::read_workload_section(const YAML::Node& workload)
{
  if (!m_r.check_fields(workload, "spec.workload", {"traces", "generators"})) {
    return;
  }
  if (const auto traces = child(workload, "traces"); present(traces) && m_r.expect_sequence(traces, "spec.workload.traces")) {
    for (const auto& t : traces) {
      const std::string w = "spec.workload.traces";
      if (!m_r.check_fields(t, w, {"path", "format", "template"})) {
        continue;
      }
      model::TraceSource source;
      source.location = m_r.location(t);
      const auto path = child(t, "path");
      if (!present(path)) {
        m_r.error(t, fmt::format("'{}' entry needs a 'path'", w));
        continue;
      }
      auto p = m_r.string(path, w + ".path");
      if (!p || p->empty()) {
        if (p) {
          m_r.error(path, fmt::format("'{}.path' must not be empty", w));
        }
        continue;
      }
      source.path = resolve_relative(m_source, *p);
      source.location = m_r.location(path);
      std::error_code ec;
      if (!std::filesystem::is_regular_file(source.path, ec)) {
        m_r.error(path, fmt::format("trace file '{}' not found (looked for '{}'; paths are relative to the "
                                    "scenario's folder)",
                                    *p, source.path));
      }
      if (const auto f = child(t, "format"); present(f)) {
        if (auto v = m_r.choice(f, w + ".format", {"csv", "jsonl", "openb", "kubectl"})) {
          source.format = *v;
        }
      } else {
        const std::string ext = std::filesystem::path(*p).extension().string();
        source.format = ext == ".jsonl" ? "jsonl" : ext == ".json" ? "kubectl" : "csv";
      }
      if (const auto tmpl = child(t, "template"); present(tmpl)) {
        source.template_name = m_r.string(tmpl, w + ".template").value_or("");
        m_trace_template_nodes.emplace_back(m_s.traces.size(), tmpl);
      }
      m_s.traces.push_back(std::move(source));
    }
  }
  if (const auto gens = child(workload, "generators"); present(gens) && m_r.expect_sequence(gens, "spec.workload.generators")) {
    std::size_t i = 0;
    for (const auto& g : gens) {
      read_generator(g, i++);
    }
  }
}

std::optional<model::RuntimeDistribution> ScenarioParser::read_runtime(const YAML::Node& node, const std::string& w)
{
  model::RuntimeDistribution r;
  if (node.IsScalar()) {
    auto d = m_r.duration(node, w);
    if (!d) {
      return std::nullopt;
    }
    r.dist = "fixed";
    r.value = *d;
    return r;
  }
  if (!m_r.check_fields(node, w, {"dist", "value", "mean", "median", "p95", "min", "max"})) {
    return std::nullopt;
  }
  const auto dist = child(node, "dist");
  if (!present(dist)) {
    m_r.error(node, fmt::format("'{}' needs 'dist' (fixed, exponential, lognormal or uniform)", w));
    return std::nullopt;
  }
  auto dname = m_r.choice(dist, w + ".dist", {"fixed", "exponential", "lognormal", "uniform"});
  if (!dname) {
    return std::nullopt;
  }
  r.dist = *dname;
  std::vector<std::string_view> needed;
  if (r.dist == "fixed") {
    needed = {"value"};
  } else if (r.dist == "exponential") {
    needed = {"mean"};
  } else if (r.dist == "lognormal") {
    needed = {"median", "p95"};
  } else {
    needed = {"min", "max"};
  }
  bool ok = true;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (key == "dist" || key.empty()) {
      continue;
    }
    if (std::find(needed.begin(), needed.end(), key) == needed.end()) {
      m_r.error(it->first, fmt::format("'{}.{}' does not apply to dist {} (it takes {})", w, key, r.dist,
                                       fmt::join(needed, ", ")));
      ok = false;
    }
  }
  for (const auto key : needed) {
    const auto n = child(node, key);
    if (!present(n)) {
      m_r.error(node, fmt::format("'{}' with dist {} needs '{}'", w, r.dist, key));
      ok = false;
      continue;
    }
    auto d = m_r.duration(n, fmt::format("{}.{}", w, key));
    if (!d) {
      ok = false;
      continue;
    }
    if (key == "value") {
      r.value = *d;
    } else if (key == "mean") {
      r.mean = *d;
    } else if (key == "median") {
      r.median = *d;
    } else if (key == "p95") {
      r.p95 = *d;
    } else if (key == "min") {
      r.min = *d;
    } else {
      r.max = *d;
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  if (r.dist == "exponential" && r.mean <= 0) {
    m_r.error(node, fmt::format("'{}.mean' must be positive", w));
    return std::nullopt;
  }
  if (r.dist == "lognormal" && (r.median <= 0 || r.p95 < r.median)) {
    m_r.error(node, fmt::format("'{}': lognormal needs 0 < median <= p95", w));
    return std::nullopt;
  }
  if (r.dist == "uniform" && r.max < r.min) {
    m_r.error(node, fmt::format("'{}': uniform needs min <= max", w));
    return std::nullopt;
  }
  return r;
}

void ScenarioParser::read_generator(const YAML::Node& g, std::size_t index)
{
  const std::string w = fmt::format("spec.workload.generators[{}]", index);
  if (!m_r.check_fields(g, w,
                        {"template", "pattern", "min", "max", "period", "ratePerHour", "peakRatePerHour", "runtime", "steps", "at",
                         "count", "replicas"})) {
    return;
  }
  model::Generator gen;
  gen.location = m_r.location(g);
  bool ok = true;
  const auto tmpl = child(g, "template");
  const auto pattern = child(g, "pattern");
  if (!present(tmpl) || !present(pattern)) {
    m_r.error(g, fmt::format("'{}' needs a 'template' and a 'pattern' (diurnal, poisson, steps, burst or constant)", w));
    return;
  }
  gen.template_name = m_r.string(tmpl, w + ".template").value_or("");
  auto p = m_r.choice(pattern, w + ".pattern", {"diurnal", "poisson", "steps", "burst", "constant"});
  if (!p) {
    return;
  }
  gen.pattern = *p;
  std::vector<std::string_view> allowed;
  if (gen.pattern == "diurnal") {
    allowed = {"min", "max", "period"};
  } else if (gen.pattern == "poisson") {
    allowed = {"ratePerHour", "peakRatePerHour", "period", "runtime"};
  } else if (gen.pattern == "steps") {
    allowed = {"steps"};
  } else if (gen.pattern == "burst") {
    allowed = {"at", "count", "runtime"};
  } else {
    allowed = {"replicas"};
  }
  for (auto it = g.begin(); it != g.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (key == "template" || key == "pattern" || key.empty()) {
      continue;
    }
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      m_r.error(it->first, fmt::format("'{}' does not apply to pattern {} (it takes {})", key, gen.pattern,
                                       fmt::join(allowed, ", ")));
      ok = false;
    }
  }
  const auto required = [&](std::string_view key) {
    const auto n = child(g, key);
    if (!present(n)) {
      m_r.error(g, fmt::format("'{}' (pattern {}) needs '{}'", w, gen.pattern, key));
      ok = false;
    }
    return n;
  };
  if (gen.pattern == "diurnal") {
    const auto mn = required("min");
    const auto mx = required("max");
    if (present(mn)) {
      gen.min = static_cast<std::int32_t>(m_r.integer(mn, w + ".min", 0, k_max_replicas).value_or(0));
    }
    if (present(mx)) {
      gen.max = static_cast<std::int32_t>(m_r.integer(mx, w + ".max", 0, k_max_replicas).value_or(0));
    }
    if (gen.max < gen.min) {
      m_r.error(g, fmt::format("'{}': max ({}) must be >= min ({})", w, gen.max, gen.min));
      ok = false;
    }
    set_duration(g, "period", w, gen.period);
    if (gen.period < k_minute) {
      m_r.error(g, fmt::format("'{}.period' must be at least 1m (replicas are evaluated every minute)", w));
      ok = false;
    }
  } else if (gen.pattern == "poisson") {
    const auto rate = required("ratePerHour");
    if (present(rate)) {
      if (auto v = m_r.number(rate, w + ".ratePerHour", 0.0, 1e7)) {
        gen.rate_per_hour = *v;
      } else {
        ok = false;
      }
    }
    if (const auto peak = child(g, "peakRatePerHour"); present(peak)) {
      if (auto v = m_r.number(peak, w + ".peakRatePerHour", 0.0, 1e7)) {
        gen.peak_rate_per_hour = *v;
        if (gen.peak_rate_per_hour < gen.rate_per_hour) {
          m_r.error(peak, fmt::format("'{}.peakRatePerHour' ({}) must be >= ratePerHour ({})", w,
                                      gen.peak_rate_per_hour, gen.rate_per_hour));
          ok = false;
        }
      } else {
        ok = false;
      }
    }
    set_duration(g, "period", w, gen.period);
    if (gen.period < k_minute) {
      m_r.error(g, fmt::format("'{}.period' must be at least 1m", w));
      ok = false;
    }
  } else if (gen.pattern == "steps") {
    const auto steps = required("steps");
    if (present(steps) && m_r.expect_sequence(steps, w + ".steps")) {
      for (const auto& s : steps) {
        if (!m_r.check_fields(s, w + ".steps", {"at", "replicas"})) {
          ok = false;
          continue;
        }
        const auto at = child(s, "at");
        const auto rep = child(s, "replicas");
        if (!present(at) || !present(rep)) {
          m_r.error(s, fmt::format("'{}.steps' entry needs 'at' and 'replicas'", w));
          ok = false;
          continue;
        }
        auto a = m_r.duration(at, w + ".steps.at");
        auto r = m_r.integer(rep, w + ".steps.replicas", 0, k_max_replicas);
        if (!a || !r) {
          ok = false;
          continue;
        }
        if (!gen.steps.empty() && *a <= gen.steps.back().at) {
          m_r.error(at, fmt::format("'{}.steps': 'at' times must increase ({} after {})", w, format_duration(*a),
                                    format_duration(gen.steps.back().at)));
          ok = false;
          continue;
        }
        gen.steps.push_back({*a, static_cast<std::int32_t>(*r)});
      }
    }
  } else if (gen.pattern == "burst") {
    const auto at = required("at");
    const auto count = required("count");
    if (present(at)) {
      gen.at = m_r.duration(at, w + ".at").value_or(0);
    }
    if (present(count)) {
      gen.count = static_cast<std::int32_t>(m_r.integer(count, w + ".count", 0, k_max_replicas).value_or(0));
    }
  } else {
    const auto rep = required("replicas");
    if (present(rep)) {
      gen.count = static_cast<std::int32_t>(m_r.integer(rep, w + ".replicas", 0, k_max_replicas).value_or(0));
      gen.steps.push_back({0, gen.count});
    }
  }
  if (const auto rt = child(g, "runtime"); present(rt)) {
    gen.runtime = read_runtime(rt, w + ".runtime");
    ok = ok && gen.runtime.has_value();
  }
  if (ok) {
    m_generator_template_nodes.emplace_back(m_s.generators.size(), tmpl);
    m_s.generators.push_back(std::move(gen));
  }
}

void ScenarioParser::read_event(const YAML::Node& e, std::size_t index)
{
  const std::string w = fmt::format("spec.events[{}]", index);
  if (!m_r.check_fields(e, w, {"at", "kind", "selector", "count", "nodePool", "for", "workload", "namespace", "replicas"})) {
    return;
  }
  model::ScenarioEvent ev;
  ev.location = m_r.location(e);
  const auto at = child(e, "at");
  const auto kind = child(e, "kind");
  if (!present(at) || !present(kind)) {
    m_r.error(e, fmt::format("'{}' needs 'at' and 'kind' (SpotInterruption, Drift, InsufficientCapacity or "
                             "ScaleWorkload)",
                             w));
    return;
  }
  auto a = m_r.duration(at, w + ".at");
  auto k = m_r.choice(kind, w + ".kind", {"SpotInterruption", "Drift", "InsufficientCapacity", "ScaleWorkload"});
  if (!a || !k) {
    return;
  }
  ev.at = *a;
  ev.kind = *k;
  std::vector<std::string_view> allowed;
  if (ev.kind == "SpotInterruption") {
    allowed = {"selector", "count"};
  } else if (ev.kind == "Drift") {
    allowed = {"nodePool"};
  } else if (ev.kind == "InsufficientCapacity") {
    allowed = {"selector", "for"};
  } else {
    allowed = {"workload", "namespace", "replicas"};
  }
  bool ok = true;
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (key == "at" || key == "kind" || key.empty()) {
      continue;
    }
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      m_r.error(it->first, fmt::format("'{}' does not apply to a {} event (it takes {})", key, ev.kind,
                                       fmt::join(allowed, ", ")));
      ok = false;
    }
  }
  if (const auto sel = child(e, "selector"); present(sel)) {
    if (m_r.check_fields(sel, w + ".selector", {"instanceType", "zone", "capacityType", "nodePool", "nodeName"})) {
      const auto get = [&](std::string_view key, std::string& out) {
        if (const auto n = child(sel, key); present(n)) {
          out = m_r.string(n, fmt::format("{}.selector.{}", w, key)).value_or("");
        }
      };
      get("instanceType", ev.selector.instance_type);
      get("zone", ev.selector.zone);
      get("nodePool", ev.selector.node_pool);
      get("nodeName", ev.selector.node_name);
      if (const auto n = child(sel, "capacityType"); present(n)) {
        ev.selector.capacity_type =
            m_r.choice(n, w + ".selector.capacityType", {"on-demand", "spot", "reserved"}).value_or("");
      }
    }
  }
  set_int(e, "count", w, ev.count, 1, 1'000'000);
  if (const auto n = child(e, "nodePool"); present(n)) {
    ev.node_pool = m_r.string(n, w + ".nodePool").value_or("");
  }
  if (ev.kind == "Drift" && ev.node_pool.empty()) {
    m_r.error(e, fmt::format("'{}': a Drift event needs 'nodePool'", w));
    ok = false;
  }
  if (ev.kind == "InsufficientCapacity") {
    ev.duration = k_never;
    set_duration(e, "for", w, ev.duration);
    if (ev.selector.instance_type.empty() && ev.selector.zone.empty() && ev.selector.capacity_type.empty()) {
      m_r.error(e, fmt::format("'{}': an InsufficientCapacity event needs a selector (instanceType, zone and/or "
                               "capacityType)",
                               w));
      ok = false;
    }
  }
  if (ev.kind == "ScaleWorkload") {
    const auto wl = child(e, "workload");
    const auto rep = child(e, "replicas");
    if (!present(wl) || !present(rep)) {
      m_r.error(e, fmt::format("'{}': a ScaleWorkload event needs 'workload' and 'replicas'", w));
      ok = false;
    } else {
      ev.workload = m_r.string(wl, w + ".workload").value_or("");
      if (const auto ns = child(e, "namespace"); present(ns)) {
        ev.workload_namespace = m_r.string(ns, w + ".namespace").value_or("");
      }
      ev.replicas = static_cast<std::int32_t>(m_r.integer(rep, w + ".replicas", 0, k_max_replicas).value_or(0));
    }
  }
  if (ok) {
    m_s.events.push_back(std::move(ev));
  }
}

// ----------------------------------------------------------------------------------------------
// NodePool, EC2NodeClass, NodeGroup, Node

ScenarioParser::ApplyAt ScenarioParser::read_at_annotation(const Doc& d, const std::string& w, std::string_view key)
{
  ApplyAt out;
  const auto at = child(child(child(d.root, "metadata"), "annotations"), std::string(key));
  if (!present(at)) {
    return out;
  }
  out.location = m_r.location(at);
  const bool apply = key == k_apply_at;
  const std::string object = (d.kind == "EC2NodeClass" ? "an " : "a ") + d.kind;
  if (m_dump) {
    m_r.error(at, fmt::format("{}: annotation {} is for scenarios ({} {} during the run), not for cluster dumps", w,
                              key, object, apply ? "applied" : "deleted"));
  } else if (auto v = m_r.duration(at, std::string(key)); v && *v <= 0) {
    m_r.error(at, fmt::format("{}: annotation {} must be after the start (got {}){}", w, key, format_duration(*v),
                              apply ? fmt::format("; the {}'s version at t=0 is the document without it", d.kind)
                                    : std::string()));
  } else if (v) {
    out.at = *v;
  } else {
    out.ok = false;
  }
  return out;
}

void ScenarioParser::read_node_pool(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"}, k_k8s_top_ignored, Strictness::lenient);
  model::NodePool np;
  np.name = d.name;
  SourceLocation ref_location;
  const auto md = child(d.root, "metadata");
  check_metadata(m_r, md, w);
  const auto annotations = m_r.string_map(child(md, "annotations"), w + ".metadata.annotations");
  const auto [apply_at, apply_location, apply_ok] = read_at_annotation(d, w);
  if (!apply_ok) {
    return;
  }
  if (const auto deletion = read_at_annotation(d, w, model::k_delete_at_annotation); deletion.at) {
    m_pool_deletions.push_back({np.name, *deletion.at, deletion.location});
  }
  if (auto it = annotations.find("capsim.io/limit-usd-per-hour"); it != annotations.end()) {
    const auto node = child(child(md, "annotations"), "capsim.io/limit-usd-per-hour");
    if (auto v = m_r.number(node, "capsim.io/limit-usd-per-hour", 0.0, 1e9)) {
      np.limit_usd_per_hour = *v;
    }
  }
  const auto spec = child(d.root, "spec");
  if (!present(spec)) {
    m_r.error(d.root, fmt::format("{} needs a 'spec' (with template.spec.nodeClassRef and requirements)", w));
    return;
  }
  if (!m_r.check_fields(spec, w + ".spec", {"template", "disruption", "limits", "weight", "replicas"})) {
    return;
  }
  const auto tmpl = child(spec, "template");
  if (!present(tmpl)) {
    m_r.error(spec, fmt::format("{}: 'spec.template' is required", w));
  } else if (m_r.check_fields(tmpl, w + ".spec.template", {"metadata", "spec"})) {
    if (const auto tmd = child(tmpl, "metadata"); present(tmd)) {
      if (m_r.check_fields(tmd, w + ".spec.template.metadata", {"labels", "annotations"})) {
        np.template_labels = m_r.string_map(child(tmd, "labels"), w + ".spec.template.metadata.labels");
        np.template_annotations =
            m_r.string_map(child(tmd, "annotations"), w + ".spec.template.metadata.annotations");
        for (const auto& [k, v] : np.template_labels) {
          if (model::is_restricted_node_pool_key(k)) {
            m_r.error(child(tmd, "labels"), fmt::format("{}: label '{}' is restricted{}", w, k, restriction_reason(k)));
          }
        }
      }
    }
    const auto ts = child(tmpl, "spec");
    const std::string tw = w + ".spec.template.spec";
    if (!present(ts)) {
      m_r.error(tmpl, fmt::format("{}: 'spec.template.spec' is required (nodeClassRef, requirements)", w));
    } else if (m_r.check_fields(ts, tw,
                                {"requirements", "taints", "startupTaints", "expireAfter", "terminationGracePeriod",
                                 "nodeClassRef"})) {
      if (const auto reqs = child(ts, "requirements"); present(reqs) && m_r.expect_sequence(reqs, tw + ".requirements")) {
        if (reqs.size() > 100) {
          m_r.error(reqs, fmt::format("'{}.requirements' has {} entries (Karpenter allows at most 100)", tw, reqs.size()));
        }
        for (const auto& rq : reqs) {
          const std::string rw = tw + ".requirements";
          if (!m_r.check_fields(rq, rw, {"key", "operator", "values", "minValues"})) {
            continue;
          }
          const auto key = child(rq, "key");
          const auto op = child(rq, "operator");
          if (!present(key) || !present(op)) {
            m_r.error(rq, fmt::format("'{}' entry needs a 'key' and an 'operator'", rw));
            continue;
          }
          auto k = m_r.string(key, rw + ".key");
          auto o = m_r.choice(op, rw + ".operator", {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"});
          if (!k || !o) {
            continue;
          }
          if (k->empty()) {
            m_r.error(key, fmt::format("'{}.key' must not be empty", rw));
            continue;
          }
          if (model::is_restricted_node_pool_key(*k)) {
            m_r.error(key, fmt::format("{}: requirement key '{}' is restricted{}", w, *k, restriction_reason(*k)));
            continue;
          }
          auto values = m_r.string_list(child(rq, "values"), rw + ".values");
          const auto oper = *model::parse_operator(*o);
          std::optional<int> min_values;
          if (const auto mv = child(rq, "minValues"); present(mv)) {
            if (auto v = m_r.integer(mv, rw + ".minValues", 1, 50)) {
              min_values = static_cast<int>(*v);
              if (oper == model::Operator::in && static_cast<std::size_t>(*v) > values.size()) {
                m_r.error(mv, fmt::format("'{}': minValues ({}) is larger than the number of values ({}) for '{}'",
                                          rw, *v, values.size(), *k));
                continue;
              }
            } else {
              continue;
            }
          }
          if (oper == model::Operator::in && values.empty()) {
            m_r.error(rq, fmt::format("'{}': operator In needs at least one value for '{}'", rw, *k));
            continue;
          }
          if ((oper == model::Operator::exists || oper == model::Operator::does_not_exist) && !values.empty()) {
            m_r.error(rq, fmt::format("'{}': operator {} must not have values", rw, *o));
            continue;
          }
          const bool bound = oper == model::Operator::gt || oper == model::Operator::lt
                             || oper == model::Operator::gte || oper == model::Operator::lte;
          if (bound) {
            std::int64_t v = 0;
            const auto* end = values.empty() ? nullptr : values[0].data() + values[0].size();
            if (values.size() != 1 || values[0].empty()
                || std::from_chars(values[0].data(), end, v).ptr != end || v < 0) {
              m_r.error(rq, fmt::format("'{}': operator {} needs exactly one non-negative integer value", rw, *o));
              continue;
            }
          }
          np.requirements.add(model::Requirement::make(*k, oper, values, min_values));
        }
      }
      np.taints = m_r.taints(child(ts, "taints"), tw + ".taints");
      np.startup_taints = m_r.taints(child(ts, "startupTaints"), tw + ".startupTaints");
      set_duration(ts, "expireAfter", tw, np.expire_after, true);
      if (const auto n = child(ts, "terminationGracePeriod"); present(n)) {
        if (auto v = m_r.duration(n, tw + ".terminationGracePeriod")) {
          np.termination_grace_period = *v;
        }
      }
      const auto ref = child(ts, "nodeClassRef");
      if (!present(ref)) {
        m_r.error(ts, fmt::format("{}: 'spec.template.spec.nodeClassRef' is required in karpenter.sh/v1 "
                                  "(e.g. {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}})",
                                  w));
      } else if (m_r.check_fields(ref, tw + ".nodeClassRef", {"group", "kind", "name"})) {
        const auto name = child(ref, "name");
        if (!present(name)) {
          m_r.error(ref, fmt::format("'{}.nodeClassRef' needs a 'name'", tw));
        } else {
          np.node_class_ref = m_r.string(name, tw + ".nodeClassRef.name").value_or("");
          ref_location = m_r.location(name);
        }
        if (const auto kind = child(ref, "kind"); present(kind)) {
          (void)m_r.choice(kind, tw + ".nodeClassRef.kind", {"EC2NodeClass"});
        }
        if (const auto group = child(ref, "group"); present(group)) {
          (void)m_r.choice(group, tw + ".nodeClassRef.group", {"karpenter.k8s.aws"});
        }
      }
    }
  }
  if (const auto dis = child(spec, "disruption"); present(dis)) {
    const std::string dw = w + ".spec.disruption";
    if (m_r.check_fields(dis, dw, {"consolidationPolicy", "consolidateAfter", "budgets"})) {
      if (const auto n = child(dis, "consolidationPolicy"); present(n)) {
        if (auto v = m_r.choice(n, dw + ".consolidationPolicy", {"WhenEmptyOrUnderutilized", "WhenEmpty", "Balanced"})) {
          np.consolidation_policy = *v == "WhenEmpty" ? model::ConsolidationPolicy::when_empty
                                    : *v == "Balanced" ? model::ConsolidationPolicy::balanced
                                                       : model::ConsolidationPolicy::when_empty_or_underutilized;
        }
      }
      set_duration(dis, "consolidateAfter", dw, np.consolidate_after, true);
      if (const auto budgets = child(dis, "budgets"); present(budgets) && m_r.expect_sequence(budgets, dw + ".budgets")) {
        np.budgets.clear();
        if (budgets.size() > 50) {
          m_r.error(budgets, fmt::format("'{}.budgets' has {} entries (Karpenter allows at most 50)", dw, budgets.size()));
        }
        for (const auto& b : budgets) {
          const std::string bw = dw + ".budgets";
          if (!m_r.check_fields(b, bw, {"nodes", "schedule", "duration", "reasons"})) {
            continue;
          }
          model::DisruptionBudget budget;
          if (const auto n = child(b, "nodes"); present(n)) {
            if (auto v = m_r.string(n, bw + ".nodes")) {
              if (!valid_percent_or_int(*v)) {
                m_r.error(n, fmt::format("'{}.nodes' must be a count or a percentage such as \"10%\" (got '{}')", bw, *v));
              } else {
                budget.nodes = *v;
              }
            }
          }
          if (const auto n = child(b, "schedule"); present(n)) {
            if (auto v = m_r.string(n, bw + ".schedule")) {
              if (!valid_cron(*v)) {
                m_r.error(n, fmt::format("'{}.schedule' must be a cron expression with 5 fields or a macro such as "
                                         "@daily (got '{}')",
                                         bw, *v));
              } else {
                budget.schedule = *v;
              }
            }
          }
          if (const auto n = child(b, "duration"); present(n)) {
            budget.duration = m_r.duration(n, bw + ".duration");
          }
          if (present(child(b, "schedule")) != present(child(b, "duration"))) {
            m_r.error(b, fmt::format("'{}': 'schedule' and 'duration' must be given together", bw));
          }
          if (const auto reasons = child(b, "reasons"); present(reasons) && m_r.expect_sequence(reasons, bw + ".reasons")) {
            for (const auto& rs : reasons) {
              if (auto v = m_r.choice(rs, bw + ".reasons", {"Underutilized", "Empty", "Drifted"})) {
                budget.reasons.push_back(*v == "Underutilized" ? model::DisruptionReason::underutilized
                                         : *v == "Empty"       ? model::DisruptionReason::empty
                                                               : model::DisruptionReason::drifted);
              }
            }
          }
          np.budgets.push_back(std::move(budget));
        }
      }
    }
  }
  if (const auto limits = child(spec, "limits"); present(limits)) {
    model::Resources l;
    for (auto& x : l.v) {
      x = std::numeric_limits<std::int64_t>::max();
    }
    model::Resources given;
    if (m_r.resources(limits, w + ".spec.limits", given, &np.limit_nodes)) {
      bool any = false;
      for (const auto id : m_r.resource_ids(limits)) {
        l[id] = given[id];
        any = true;
      }
      if (any) {
        np.limits = l;
      }
    }
  }
  set_int(spec, "weight", w + ".spec", np.weight, 1, 100);
  if (const auto n = child(spec, "replicas"); present(n)) {
    np.replicas = m_r.integer(n, w + ".spec.replicas", 0, k_max_replicas);
    // The NodePool CRD's CEL rules for static NodePools.
    if (np.replicas && present(child(spec, "weight"))) {
      m_r.error(child(spec, "weight"), fmt::format("{}: 'weight' is not supported on static NodePools (spec.replicas "
                                                   "is set)",
                                                   w));
    }
    const auto limits = child(spec, "limits");
    if (np.replicas && limits.IsMap()) {
      for (const auto& kv : limits) {
        if (kv.first.Scalar() != "nodes") {
          m_r.error(kv.first, fmt::format("{}: only 'limits.nodes' is supported on static NodePools (got "
                                          "'limits.{}')",
                                          w, kv.first.Scalar()));
        }
      }
    }
    if (np.replicas && np.limit_usd_per_hour) {
      m_r.error(n, fmt::format("{}: annotation capsim.io/limit-usd-per-hour is not supported on static NodePools "
                               "(only limits.nodes caps them)",
                               w));
    }
  }
  np.template_hash = node_pool_template_hash(np);
  if (apply_at) {
    m_s.node_pool_updates.push_back({*apply_at, std::move(np), apply_location, ref_location});
    return;
  }
  m_node_pool_ref_locations[np.name] = ref_location;
  m_s.node_pools.push_back(std::move(np));
}

void ScenarioParser::read_node_class(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"}, k_k8s_top_ignored, Strictness::lenient);
  check_metadata(m_r, child(d.root, "metadata"), w);
  model::NodeClass nc;
  nc.name = d.name;
  nc.location = m_r.location(d.root);
  const auto spec = child(d.root, "spec");
  const auto [apply_at, apply_location, apply_ok] = read_at_annotation(d, w);
  if (!apply_ok) {
    return;
  }
  if (present(spec)
      && m_r.check_fields(spec, w + ".spec",
                          {"amiFamily", "amiSelectorTerms", "kubelet", "blockDeviceMappings",
                           "capacityReservationSelectorTerms", "instanceStorePolicy"},
                          {"subnetSelectorTerms", "securityGroupSelectorTerms", "role", "instanceProfile", "tags",
                           "userData", "detailedMonitoring", "associatePublicIPAddress",
                           "metadataOptions", "context", "ipPrefixCount"},
                          Strictness::lenient)) {
    if (const auto n = child(spec, "instanceStorePolicy"); present(n)) {
      nc.instance_store_raid0 = m_r.choice(n, w + ".spec.instanceStorePolicy", {"RAID0"}).has_value();
    }
    if (const auto n = child(spec, "amiFamily"); present(n)) {
      nc.ami_family = m_r.choice(n, w + ".spec.amiFamily",
                                 {"AL2", "AL2023", "Bottlerocket", "Windows2019", "Windows2022", "Windows2025", "Custom"})
                          .value_or("");
    }
    if (const auto terms = child(spec, "amiSelectorTerms"); present(terms) && terms.IsSequence() && nc.ami_family.empty()) {
      for (const auto& t : terms) {
        const auto alias = child(t, "alias");
        if (present(alias) && alias.IsScalar()) {
          const std::string family = alias.Scalar().substr(0, alias.Scalar().find('@'));
          static const std::map<std::string, std::string> k_alias{
              {"al2", "AL2"},
              {"al2023", "AL2023"},
              {"bottlerocket", "Bottlerocket"},
              {"windows2019", "Windows2019"},
              {"windows2022", "Windows2022"},
              {"windows2025", "Windows2025"}};
          if (auto it = k_alias.find(family); it != k_alias.end()) {
            nc.ami_family = it->second;
          } else {
            m_r.error(alias, fmt::format("{}: unknown AMI alias family '{}' (expected al2, al2023, bottlerocket, "
                                         "windows2019, windows2022 or windows2025)",
                                         w, family));
          }
        }
      }
    }
    if (const auto k = child(spec, "kubelet"); present(k)) {
      const std::string kw = w + ".spec.kubelet";
      if (m_r.check_fields(k, kw, {"maxPods", "podsPerCore", "kubeReserved", "systemReserved", "evictionHard"},
                           {"evictionSoft", "evictionSoftGracePeriod", "evictionMaxPodGracePeriod",
                            "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", "cpuCFSQuota",
                            "clusterDNS"})) {
        if (const auto n = child(k, "maxPods"); present(n)) {
          nc.max_pods = m_r.integer(n, kw + ".maxPods", 0, 100'000);
        }
        if (const auto n = child(k, "podsPerCore"); present(n)) {
          nc.pods_per_core = m_r.integer(n, kw + ".podsPerCore", 0, 100'000);
        }
        const auto reserved = [&](std::string_view key, std::map<std::string, std::string>& out) {
          const auto n = child(k, key);
          const std::string rw = kw + "." + std::string(key);
          out = m_r.string_map(n, rw);
          for (const auto& [name, value] : out) {
            const auto at = child(n, name);
            if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && name != "pid") {
              m_r.error(at, fmt::format("'{}': unknown resource '{}' (expected cpu, memory, ephemeral-storage or pid)",
                                        rw, name));
            } else if (auto q = name == "cpu" ? parse_quantity_milli(value) : parse_quantity(value); !q) {
              m_r.error(at, fmt::format("'{}.{}': {}", rw, name, q.error()));
            }
          }
        };
        reserved("kubeReserved", nc.kube_reserved);
        reserved("systemReserved", nc.system_reserved);
        const auto eh = child(k, "evictionHard");
        nc.eviction_hard = m_r.string_map(eh, kw + ".evictionHard");
        const std::vector<std::string> signals{"memory.available",  "nodefs.available",   "nodefs.inodesFree",
                                               "imagefs.available", "imagefs.inodesFree", "pid.available"};
        for (const auto& [signal, value] : nc.eviction_hard) {
          const auto at = child(eh, signal);
          if (std::find(signals.begin(), signals.end(), signal) == signals.end()) {
            m_r.error(at, fmt::format("'{}.evictionHard': unknown signal '{}'{}", kw, signal,
                                      did_you_mean(signal, signals)));
            continue;
          }
          if (!value.empty() && value.back() == '%') {
            double pct = -1;
            const auto* end = value.data() + value.size() - 1;
            if (std::from_chars(value.data(), end, pct).ptr != end || pct < 0 || pct > 100) {
              m_r.error(at, fmt::format("'{}.evictionHard.{}': '{}' is not a percentage", kw, signal, value));
            }
          } else if (auto q = parse_quantity(value); !q) {
            m_r.error(at, fmt::format("'{}.evictionHard.{}': {}", kw, signal, q.error()));
          }
        }
      }
    }
    if (const auto terms = child(spec, "capacityReservationSelectorTerms");
        present(terms) && m_r.expect_sequence(terms, w + ".spec.capacityReservationSelectorTerms")) {
      const std::string tw = w + ".spec.capacityReservationSelectorTerms";
      for (const auto& t : terms) {
        if (!m_r.check_fields(t, tw, {"id", "ownerID", "tags", "instanceMatchCriteria"})) {
          continue;
        }
        model::CapacityReservationTerm term;
        if (const auto n = child(t, "id"); present(n)) {
          term.id = m_r.string(n, tw + ".id").value_or("");
        }
        if (const auto n = child(t, "ownerID"); present(n)) {
          term.owner_id = m_r.string(n, tw + ".ownerID").value_or("");
        }
        if (const auto n = child(t, "instanceMatchCriteria"); present(n)) {
          term.instance_match_criteria = m_r.choice(n, tw + ".instanceMatchCriteria", {"open", "targeted"}).value_or("");
        }
        term.tags = m_r.string_map(child(t, "tags"), tw + ".tags");
        // The CRD's rules: a term names an id, tags or instanceMatchCriteria; an id stands alone.
        if (term.id.empty() && term.tags.empty() && term.instance_match_criteria.empty()) {
          m_r.error(t, fmt::format("'{}': a term needs 'id', 'tags' or 'instanceMatchCriteria'", tw));
          continue;
        }
        if (!term.id.empty() && (!term.owner_id.empty() || !term.tags.empty() || !term.instance_match_criteria.empty())) {
          m_r.error(t, fmt::format("'{}': 'id' excludes the term's other fields", tw));
          continue;
        }
        nc.capacity_reservation_terms.push_back(std::move(term));
      }
    }
    if (const auto bdm = child(spec, "blockDeviceMappings"); present(bdm) && m_r.expect_sequence(bdm, w + ".spec.blockDeviceMappings")) {
      // The AMI family's ephemeral block device (EphemeralBlockDevice).
      const std::string root_device = nc.ami_family == "Bottlerocket"        ? "/dev/xvdb"
                                      : nc.ami_family.rfind("Windows", 0) == 0 ? "/dev/sda1"
                                                                               : "/dev/xvda";
      for (const auto& m : bdm) {
        if (!m.IsMap()) {
          continue;
        }
        const auto root = child(m, "rootVolume");
        const auto device = child(m, "deviceName");
        const bool is_root = (present(root) && root.IsScalar() && root.Scalar() == "true")
                             || (present(device) && device.IsScalar() && device.Scalar() == root_device);
        const auto size = child(child(m, "ebs"), "volumeSize");
        if (is_root && present(size)) {
          if (auto s = m_r.string(size, w + ".spec.blockDeviceMappings.ebs.volumeSize")) {
            if (auto q = parse_quantity(*s)) {
              nc.root_volume_bytes = *q;
            } else {
              m_r.error(size, fmt::format("'{}.spec.blockDeviceMappings.ebs.volumeSize': {}", w, q.error()));
            }
          }
        }
      }
    }
  }
  nc.hash = hash_name(canonical_text(spec, {"subnetSelectorTerms", "securityGroupSelectorTerms",
                                            "capacityReservationSelectorTerms", "ipPrefixCount", "amiSelectorTerms",
                                            "amiFamily"})
                      + "|" + (nc.ami_family.empty() ? std::string("AL2023") : nc.ami_family));
  nc.ami_hash = hash_name(canonical_text(child(spec, "amiSelectorTerms")));
  if (apply_at) {
    m_s.node_class_updates.push_back({*apply_at, std::move(nc), apply_location});
    return;
  }
  m_s.node_classes.push_back(std::move(nc));
}

void ScenarioParser::read_node_group(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"});
  if (const auto md = child(d.root, "metadata"); present(md)) {
    m_r.check_fields(md, w + ".metadata", {"name"}, {"labels", "annotations"});
  }
  model::NodeGroup ng;
  ng.name = d.name;
  const auto spec = child(d.root, "spec");
  if (!present(spec)) {
    m_r.error(d.root, fmt::format("{} needs a 'spec' with instanceTypes and maxSize", w));
    return;
  }
  const std::string sw = w + ".spec";
  if (!m_r.check_fields(spec, sw,
                        {"instanceTypes", "capacityType", "mixedInstancesPolicy", "zones", "minSize", "maxSize",
                         "desiredCapacity", "labels", "taints", "priority"})) {
    return;
  }
  ng.location = m_r.location(d.root);
  ng.instance_types = m_r.string_list(child(spec, "instanceTypes"), sw + ".instanceTypes");
  if (const auto types = child(spec, "instanceTypes"); types.IsSequence() && types.size() == ng.instance_types.size()) {
    for (const auto& t : types) {
      ng.instance_type_locations.push_back(m_r.location(t));
    }
  }
  if (ng.instance_types.empty()) {
    m_r.error(present(child(spec, "instanceTypes")) ? child(spec, "instanceTypes") : spec,
              fmt::format("'{}.instanceTypes' must list at least one instance type", sw));
  }
  if (const auto n = child(spec, "capacityType"); present(n)) {
    ng.capacity_type = m_r.choice(n, sw + ".capacityType", {"on-demand", "spot"}).value_or("on-demand");
  }
  if (const auto mip = child(spec, "mixedInstancesPolicy"); present(mip)) {
    const std::string mw = sw + ".mixedInstancesPolicy";
    if (present(child(spec, "capacityType"))) {
      m_r.error(child(spec, "capacityType"),
                fmt::format("{}: 'capacityType' and 'mixedInstancesPolicy' exclude each other (the policy's "
                            "onDemandBaseCapacity and onDemandPercentageAboveBaseCapacity decide)",
                            w));
    }
    if (m_r.check_fields(mip, mw,
                         {"onDemandBaseCapacity", "onDemandPercentageAboveBaseCapacity", "spotAllocationStrategy"})) {
      ng.mixed = true;
      ng.capacity_type = "mixed";
      set_int(mip, "onDemandBaseCapacity", mw, ng.on_demand_base_capacity, 0, k_max_replicas);
      set_int(mip, "onDemandPercentageAboveBaseCapacity", mw, ng.on_demand_percentage_above_base, 0, 100);
      if (const auto n = child(mip, "spotAllocationStrategy"); present(n)) {
        if (auto v = m_r.choice(n, mw + ".spotAllocationStrategy",
                                {"lowest-price", "price-capacity-optimized", "capacity-optimized"})) {
          ng.spot_allocation_strategy = *v == "lowest-price"       ? model::SpotAllocationStrategy::lowest_price
                                        : *v == "capacity-optimized" ? model::SpotAllocationStrategy::capacity_optimized
                                                                     : model::SpotAllocationStrategy::price_capacity_optimized;
        }
      }
    }
  }
  ng.zones = m_r.string_list(child(spec, "zones"), sw + ".zones");
  set_int(spec, "minSize", sw, ng.min_size, 0, k_max_replicas);
  const auto max_size = child(spec, "maxSize");
  if (!present(max_size)) {
    m_r.error(spec, fmt::format("'{}.maxSize' is required", sw));
  }
  set_int(spec, "maxSize", sw, ng.max_size, 0, k_max_replicas);
  if (const auto n = child(spec, "desiredCapacity"); present(n)) {
    if (auto v = m_r.integer(n, sw + ".desiredCapacity", 0, k_max_replicas)) {
      ng.desired_capacity = static_cast<std::int32_t>(*v);
    }
  }
  if (ng.min_size > ng.max_size) {
    m_r.error(spec, fmt::format("{}: minSize ({}) is larger than maxSize ({})", w, ng.min_size, ng.max_size));
  }
  if (ng.desired_capacity && (*ng.desired_capacity < ng.min_size || *ng.desired_capacity > ng.max_size)) {
    m_r.error(child(spec, "desiredCapacity"), fmt::format("{}: desiredCapacity ({}) must be between minSize ({}) and "
                                                          "maxSize ({})",
                                                          w, *ng.desired_capacity, ng.min_size, ng.max_size));
  }
  ng.labels = m_r.string_map(child(spec, "labels"), sw + ".labels");
  ng.taints = m_r.taints(child(spec, "taints"), sw + ".taints");
  set_int(spec, "priority", sw, ng.priority, -1'000'000'000, 1'000'000'000);
  m_s.node_groups.push_back(std::move(ng));
}

void ScenarioParser::read_node(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"}, k_k8s_top_ignored, Strictness::lenient);
  const auto md = child(d.root, "metadata");
  check_metadata(m_r, md, w);
  model::InitialNode node;
  node.name = d.name;
  node.location = m_r.location(d.root);
  if (const auto created = child(md, "creationTimestamp"); present(created)) {
    node.created_ms = timestamp(created, w + ".metadata.creationTimestamp");
    note_creation(node.created_ms);
  }
  node.labels = m_r.string_map(child(md, "labels"), w + ".metadata.labels");
  const auto annotations = m_r.string_map(child(md, "annotations"), w + ".metadata.annotations");
  if (auto it = annotations.find(std::string(model::labels::k_do_not_disrupt)); it != annotations.end()) {
    node.do_not_disrupt = it->second == "true";
  }
  // Normalise the labels a kubelet or EKS would have set.
  auto& labels = node.labels;
  labels.emplace(std::string(model::labels::k_hostname), node.name);
  if (auto it = labels.find("beta.kubernetes.io/instance-type"); it != labels.end()) {
    labels.emplace(std::string(model::labels::k_instance_type), it->second);
  }
  if (auto it = labels.find("failure-domain.beta.kubernetes.io/zone"); it != labels.end()) {
    labels.emplace(std::string(model::labels::k_zone), it->second);
  }
  if (auto it = labels.find("eks.amazonaws.com/capacityType"); it != labels.end()) {
    labels.emplace(std::string(model::labels::k_capacity_type), it->second == "SPOT" ? "spot" : "on-demand");
  }
  if (labels.count(std::string(model::labels::k_instance_type)) == 0 && !m_dump) {
    m_r.error(present(md) ? md : d.root,
              fmt::format("{} needs the label {} (its instance type decides capacity and price)", w,
                          model::labels::k_instance_type));
  }
  if (labels.count(std::string(model::labels::k_zone)) == 0 && !m_dump) {
    m_r.error(present(md) ? md : d.root, fmt::format("{} needs the label {}", w, model::labels::k_zone));
  }
  if (auto it = labels.find(std::string(model::labels::k_capacity_type)); it != labels.end()
      && it->second != "on-demand" && it->second != "spot" && it->second != "reserved") {
    m_r.error(child(child(md, "labels"), model::labels::k_capacity_type),
              fmt::format("{}: label {} must be on-demand, spot or reserved (got '{}')", w,
                          model::labels::k_capacity_type, it->second));
  }
  if (const auto spec = child(d.root, "spec"); present(spec)) {
    if (m_r.check_fields(spec, w + ".spec", {"taints", "unschedulable"},
                         {"podCIDR", "podCIDRs", "providerID", "configSource", "externalID"}, Strictness::lenient)) {
      node.taints = m_r.taints(child(spec, "taints"), w + ".spec.taints");
      if (const auto u = child(spec, "unschedulable"); present(u) && m_r.boolean(u, w + ".spec.unschedulable").value_or(false)) {
        const bool has = std::any_of(node.taints.begin(), node.taints.end(),
                                     [](const model::Taint& t) { return t.key == "node.kubernetes.io/unschedulable"; });
        if (!has) {
          node.taints.push_back({"node.kubernetes.io/unschedulable", "", model::TaintEffect::no_schedule});
        }
      }
    }
  }
  if (const auto status = child(d.root, "status"); status.IsMap()) {
    // A kubelet reports resources capsim has no use for (attachable-volumes-aws-ebs, ...).
    // (Filtered as they are read: a map of the kept entries would take the whole dump's YAML
    // memory into each node's, which made reading a dump quadratic in its size.)
    const YamlReader::ResourceFilter known = [](std::string_view name) {
      return name == "cpu" || name == "memory" || name == "ephemeral-storage" || name == "pods"
             || name.find('/') != std::string_view::npos || name.starts_with("hugepages-");
    };
    const YamlReader::ResourceFilter filter = m_dump ? known : nullptr;
    if (const auto cap = child(status, "capacity"); present(cap)) {
      model::Resources r;
      if (m_r.resources(cap, w + ".status.capacity", r, nullptr, filter)) {
        node.capacity = r;
      }
    }
    if (const auto alloc = child(status, "allocatable"); present(alloc)) {
      model::Resources r;
      if (m_r.resources(alloc, w + ".status.allocatable", r, nullptr, filter)) {
        node.allocatable = r;
      }
    }
  }
  m_s.nodes.push_back(std::move(node));
}

// ----------------------------------------------------------------------------------------------
// Pods and workloads

void ScenarioParser::read_pod(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"}, k_k8s_top_ignored, Strictness::lenient);
  if (const auto phase = child(child(d.root, "status"), "phase"); present(phase) && phase.IsScalar()
      && (phase.Scalar() == "Succeeded" || phase.Scalar() == "Failed")) {
    // A finished pod holds no resources; a pasted Job's Succeeded pod is one of its completions.
    const auto owner = controller_reference(child(d.root, "metadata"));
    if (phase.Scalar() == "Succeeded" && owner.kind == "Job") {
      if (const std::string key = "Job/" + d.namespace_ + "/" + owner.name; m_controllers.count(key) > 0) {
        ++m_job_completions[key];
      }
    }
    return;
  }
  if (const auto created = child(child(d.root, "metadata"), "creationTimestamp"); present(created)) {
    note_creation(timestamp(created, w + ".metadata.creationTimestamp"));
  }
  PodContext ctx;
  ctx.priority_classes = &m_priority_classes;
  ctx.default_priority = m_default_priority;
  ctx.runtime_classes = &m_runtime_classes;
  ctx.namespaces = &m_namespaces;
  ctx.admitted = m_dump;
  auto t = read_pod_template(m_r, d.root, child(d.root, "metadata"), child(d.root, "spec"), w + ".spec", ctx);
  t.spec.template_name = d.name;
  std::string unlisted;
  if (const auto controller = controller_of(d, t)) {
    if (controller->first == "DaemonSet") {
      return; // the stream's DaemonSet places a pod like it on every node it selects
    }
    m_adoptions.emplace_back(m_s.pods.size(), controller->second);
  } else if (!t.owner_name.empty() && !t.daemon_owned) {
    unlisted = fmt::format("{}/{}/{}", d.namespace_, t.owner_kind, t.owner_name);
    if (const auto it = m_unlisted_controllers.find(unlisted); it != m_unlisted_controllers.end()) {
      t.spec.counted_with = it->second;
    }
  }
  model::Pod pod;
  pod.name = d.name;
  pod.requests = t.spec.requests;
  pod.node_name = t.node_name;
  pod.is_daemon = t.daemon_owned;
  if (t.runtime) {
    pod.runtime = *t.runtime;
  }
  if (!t.claims.empty()) {
    m_pod_claims.push_back({m_s.pods.size(), std::move(t.claims), {}, w, m_r.location(d.root)});
  }
  pod.spec = std::make_shared<const model::PodSpec>(std::move(t.spec));
  if (!unlisted.empty()) {
    m_unlisted_controllers.try_emplace(unlisted, pod.spec);
  }
  if (!pod.node_name.empty()) {
    m_bound_pod_nodes.emplace_back(m_s.pods.size(), m_r.location(child(child(d.root, "spec"), "nodeName")));
    const auto started = child(child(d.root, "status"), "startTime");
    if (present(started) && !m_dump) { // (preview reads a dump's start times itself)
      if (const auto ms = timestamp(started, w + ".status.startTime")) {
        m_pod_starts.emplace_back(m_s.pods.size(), *ms);
      }
    }
  }
  m_s.pods.push_back(std::move(pod));
}

model::PodSpecPtr ScenarioParser::read_template(const Doc& d, const YAML::Node& spec, model::OwnerKind owner,
                                                PodTemplate* out)
{
  const std::string w = what(d);
  const auto tmpl = child(spec, "template");
  if (!present(tmpl)) {
    m_r.error(spec, fmt::format("{}: 'spec.template' (the pod template) is required", w));
    return nullptr;
  }
  if (!m_r.check_fields(tmpl, w + ".spec.template", {"metadata", "spec"})) {
    return nullptr;
  }
  PodContext ctx;
  ctx.namespace_ = d.namespace_;
  ctx.owner = owner;
  ctx.priority_classes = &m_priority_classes;
  ctx.default_priority = m_default_priority;
  ctx.runtime_classes = &m_runtime_classes;
  ctx.namespaces = &m_namespaces;
  ctx.admitted = m_dump;
  auto t = read_pod_template(m_r, tmpl, child(tmpl, "metadata"), child(tmpl, "spec"), w + ".spec.template.spec",
                             ctx);
  t.spec.template_name = d.name;
  t.spec.namespace_ = d.namespace_;
  if (!t.node_name.empty()) {
    m_r.error(child(child(tmpl, "spec"), "nodeName"),
              fmt::format("{}: a pod template must not set nodeName", w));
  }
  if (const auto sel = child(spec, "selector"); present(sel)) {
    if (auto selector = m_r.label_selector(sel, w + ".spec.selector"); selector && !selector->matches(t.spec.labels)) {
      m_r.error(sel, fmt::format("{}: spec.selector does not match the template's labels", w));
    }
  }
  auto result = std::make_shared<const model::PodSpec>(t.spec);
  if (out != nullptr) {
    *out = std::move(t);
  }
  return result;
}

void ScenarioParser::read_workload(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"}, k_k8s_top_ignored, Strictness::lenient);
  const auto md = child(d.root, "metadata");
  check_metadata(m_r, md, w);
  const auto spec = child(d.root, "spec");
  if (!present(spec)) {
    m_r.error(d.root, fmt::format("{} needs a 'spec' with a pod template", w));
    return;
  }
  model::Workload wl;
  wl.kind = d.kind;
  wl.name = d.name;
  wl.namespace_ = d.namespace_;
  wl.location = m_r.location(d.root);
  model::OwnerKind owner = model::OwnerKind::replica_set;
  const std::string sw = w + ".spec";
  if (d.kind == "Job") {
    owner = model::OwnerKind::job;
    m_r.check_fields(spec, sw, {"parallelism", "completions", "template", "selector", "suspend"},
                     {"activeDeadlineSeconds", "backoffLimit", "backoffLimitPerIndex", "maxFailedIndexes",
                      "completionMode", "manualSelector", "podFailurePolicy", "podReplacementPolicy",
                      "ttlSecondsAfterFinished", "successPolicy", "managedBy"},
                     Strictness::lenient);
  } else {
    if (d.kind == "StatefulSet") {
      owner = model::OwnerKind::stateful_set;
      m_r.check_fields(spec, sw, {"replicas", "template", "selector", "volumeClaimTemplates"},
                       {"minReadySeconds", "revisionHistoryLimit", "serviceName", "podManagementPolicy",
                        "updateStrategy", "persistentVolumeClaimRetentionPolicy", "ordinals"},
                       Strictness::lenient);
    } else {
      m_r.check_fields(spec, sw, {"replicas", "template", "selector"},
                       {"strategy", "minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds", "paused",
                        "serviceName", "volumeClaimTemplates", "podManagementPolicy", "updateStrategy",
                        "persistentVolumeClaimRetentionPolicy", "ordinals"},
                       Strictness::lenient);
    }
  }
  PodTemplate t;
  wl.spec = read_template(d, spec, owner, &t);
  if (!wl.spec) {
    return;
  }
  if (d.kind == "Job") {
    std::int32_t parallelism = 1;
    set_int(spec, "parallelism", sw, parallelism, 0, k_max_replicas);
    std::optional<std::int32_t> completions;
    if (const auto n = child(spec, "completions"); present(n)) {
      if (auto v = m_r.integer(n, sw + ".completions", 0, k_max_replicas)) {
        completions = static_cast<std::int32_t>(*v);
      }
    }
    bool suspend = false;
    set_bool(spec, "suspend", sw, suspend);
    wl.replicas = completions ? std::min(parallelism, *completions) : parallelism;
    wl.completions = completions.value_or(wl.replicas);
    if (suspend) {
      wl.replicas = 0;
      wl.completions = 0;
    }
    // capsim.io/runtime on the Job or on its pod template.
    const auto job_annotations = m_r.string_map(child(md, "annotations"), w + ".metadata.annotations");
    if (auto it = job_annotations.find("capsim.io/runtime"); it != job_annotations.end()) {
      if (auto dur = parse_duration(it->second)) {
        wl.runtime = *dur;
      } else {
        m_r.error(child(child(md, "annotations"), "capsim.io/runtime"),
                  fmt::format("{}: annotation capsim.io/runtime: {}", w, dur.error()));
      }
    } else if (t.runtime) {
      wl.runtime = *t.runtime;
    }
  } else {
    set_int(spec, "replicas", sw, wl.replicas, 0, k_max_replicas);
    if (t.runtime) {
      wl.runtime = *t.runtime;
    }
    if (d.kind == "ReplicaSet" && m_managed_replica_sets.count(d.namespace_ + "/" + d.name) > 0) {
      wl.replicas = 0; // its Deployment, also in the stream, makes the replicas
    }
  }
  std::vector<ClaimInfo> claim_templates;
  if (d.kind == "StatefulSet") {
    read_claim_templates(d, spec, claim_templates);
  }
  if (!t.claims.empty() || !claim_templates.empty()) {
    m_workload_claims.push_back(
        {m_s.workloads.size(), std::move(t.claims), std::move(claim_templates), w, wl.location});
  }
  m_s.workloads.push_back(std::move(wl));
}

void ScenarioParser::read_daemon_set(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"}, k_k8s_top_ignored, Strictness::lenient);
  check_metadata(m_r, child(d.root, "metadata"), w);
  const auto spec = child(d.root, "spec");
  if (!present(spec)) {
    m_r.error(d.root, fmt::format("{} needs a 'spec' with a pod template", w));
    return;
  }
  m_r.check_fields(spec, w + ".spec", {"template", "selector"}, {"updateStrategy", "minReadySeconds", "revisionHistoryLimit"},
                   Strictness::lenient);
  PodTemplate t;
  auto ps = read_template(d, spec, model::OwnerKind::daemon_set, &t);
  if (ps) {
    if (!t.claims.empty()) {
      m_daemon_set_claims.push_back({m_s.daemon_sets.size(), std::move(t.claims), {}, w, m_r.location(d.root)});
    }
    m_s.daemon_sets.push_back(model::DaemonSet{d.name, std::move(ps)});
  }
}

void ScenarioParser::read_pdb(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"}, k_k8s_top_ignored, Strictness::lenient);
  check_metadata(m_r, child(d.root, "metadata"), w);
  model::PodDisruptionBudget pdb;
  pdb.name = d.name;
  pdb.namespace_ = d.namespace_;
  const auto spec = child(d.root, "spec");
  if (!present(spec)) {
    m_r.error(d.root, fmt::format("{} needs a 'spec' with a selector and minAvailable or maxUnavailable", w));
    return;
  }
  if (!m_r.check_fields(spec, w + ".spec", {"selector", "minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy"})) {
    return;
  }
  if (const auto policy = child(spec, "unhealthyPodEvictionPolicy"); present(policy)) {
    const auto v = m_r.string(policy, w + ".spec.unhealthyPodEvictionPolicy");
    if (v && *v != "IfHealthyBudget" && *v != "AlwaysAllow") {
      m_r.error(policy, fmt::format("'{}.spec.unhealthyPodEvictionPolicy' must be IfHealthyBudget or AlwaysAllow (got '{}')",
                                    w, *v));
      return;
    }
    pdb.always_allow_unhealthy = v && *v == "AlwaysAllow";
  }
  if (auto sel = m_r.label_selector(child(spec, "selector"), w + ".spec.selector")) {
    pdb.selector = *sel;
  } else if (!present(child(spec, "selector"))) {
    m_r.error(spec, fmt::format("{}: 'spec.selector' is required (an empty selector {{}} selects every pod)", w));
    return;
  }
  const auto read = [&](std::string_view key) -> std::optional<std::string> {
    const auto n = child(spec, key);
    if (!present(n)) {
      return std::nullopt;
    }
    auto v = m_r.string(n, fmt::format("{}.spec.{}", w, key));
    if (v && !valid_percent_or_int(*v)) {
      m_r.error(n, fmt::format("'{}.spec.{}' must be a count or a percentage such as \"50%\" (got '{}')", w, key, *v));
      return std::nullopt;
    }
    return v;
  };
  pdb.min_available = read("minAvailable");
  pdb.max_unavailable = read("maxUnavailable");
  if (present(child(spec, "minAvailable")) && present(child(spec, "maxUnavailable"))) {
    m_r.error(spec, fmt::format("{}: minAvailable and maxUnavailable exclude each other", w));
    return;
  }
  if (!present(child(spec, "minAvailable")) && !present(child(spec, "maxUnavailable"))) {
    m_r.error(spec, fmt::format("{}: give minAvailable or maxUnavailable", w));
    return;
  }
  m_s.pdbs.push_back(std::move(pdb));
}

void ScenarioParser::read_priority_class(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "value", "globalDefault"},
                   {"description", "preemptionPolicy"}, Strictness::lenient);
  check_metadata(m_r, child(d.root, "metadata"), w);
  const auto value = child(d.root, "value");
  if (!present(value)) {
    m_r.error(d.root, fmt::format("{} needs a 'value'", w));
    return;
  }
  auto v = m_r.integer(value, w + ".value", -2147483648LL, 1'000'000'000);
  if (!v) {
    return;
  }
  m_priority_classes[d.name] = static_cast<std::int32_t>(*v);
  if (const auto gd = child(d.root, "globalDefault"); present(gd) && m_r.boolean(gd, w + ".globalDefault").value_or(false)) {
    if (m_default_priority) {
      m_r.error(gd, fmt::format("{}: only one PriorityClass may be globalDefault", w));
    }
    m_default_priority = static_cast<std::int32_t>(*v);
  }
}

// A pasted `kubectl get deploy,rs,sts,job,ds,pod` holds controllers and the pods they made:
// those pods count among their controller's replicas instead of adding to them.
void ScenarioParser::note_controllers(const std::vector<Doc>& docs)
{
  for (const auto& d : docs) {
    if (d.kind == "Deployment" || d.kind == "ReplicaSet" || d.kind == "StatefulSet" || d.kind == "Job"
        || d.kind == "DaemonSet") {
      m_controllers.insert(d.kind + "/" + d.namespace_ + "/" + d.name);
    }
  }
  for (const auto& d : docs) {
    if (d.kind != "ReplicaSet") {
      continue;
    }
    const auto owner = controller_reference(child(d.root, "metadata"));
    if (owner.kind == "Deployment" && m_controllers.count("Deployment/" + d.namespace_ + "/" + owner.name) > 0) {
      m_managed_replica_sets[d.namespace_ + "/" + d.name] = owner.name;
    }
  }
}

// The stream's controller of a bare Pod document: its kind and "Kind/namespace/name" key. A pod
// of a ReplicaSet belongs to the ReplicaSet's Deployment when the stream has that Deployment,
// also when the ReplicaSet itself is not pasted (its name is the Deployment's plus the pod's
// pod-template-hash).
std::optional<std::pair<std::string, std::string>> ScenarioParser::controller_of(const Doc& d,
                                                                                 const PodTemplate& t) const
{
  if (t.owner_name.empty()) {
    return std::nullopt;
  }
  const auto in_stream = [&](const std::string& kind, const std::string& name)
      -> std::optional<std::pair<std::string, std::string>> {
    std::string key = kind + "/" + d.namespace_ + "/" + name;
    if (m_controllers.count(key) == 0) {
      return std::nullopt;
    }
    return std::pair{kind, std::move(key)};
  };
  if (t.owner_kind == "ReplicaSet") {
    if (const auto it = m_managed_replica_sets.find(d.namespace_ + "/" + t.owner_name); it != m_managed_replica_sets.end()) {
      return in_stream("Deployment", it->second);
    }
    if (auto rs = in_stream("ReplicaSet", t.owner_name)) {
      return rs;
    }
    const auto hash = t.spec.labels.find("pod-template-hash");
    const std::string suffix = hash != t.spec.labels.end() ? "-" + hash->second : "";
    if (!suffix.empty() && t.owner_name.size() > suffix.size() && t.owner_name.ends_with(suffix)) {
      return in_stream("Deployment", t.owner_name.substr(0, t.owner_name.size() - suffix.size()));
    }
    return std::nullopt;
  }
  if (t.owner_kind == "StatefulSet" || t.owner_kind == "Job" || t.owner_kind == "DaemonSet") {
    return in_stream(t.owner_kind, t.owner_name);
  }
  return std::nullopt;
}

// Hands each adopted pod to its workload (by name: the dump reader may drop pods later).
void ScenarioParser::adopt_pods()
{
  if (m_adoptions.empty() && m_job_completions.empty()) {
    return;
  }
  std::map<std::string, model::Workload*> workloads;
  for (auto& wl : m_s.workloads) {
    workloads.emplace(wl.kind + "/" + wl.namespace_ + "/" + wl.name, &wl);
  }
  for (const auto& [key, done] : m_job_completions) {
    if (const auto it = workloads.find(key); it != workloads.end()) {
      it->second->adopted_completions = done;
    }
  }
  for (const auto& [pod, key] : m_adoptions) {
    if (const auto it = workloads.find(key); it != workloads.end()) {
      auto& p = m_s.pods[pod];
      it->second->adopted_pods.push_back(p.name);
      if (p.spec && it->second->spec) {
        auto spec = std::make_shared<model::PodSpec>(*p.spec);
        spec->counted_with = it->second->spec;
        p.spec = std::move(spec);
      }
    }
  }
}

void ScenarioParser::read_runtime_class(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "handler", "overhead", "scheduling"}, {},
                   Strictness::lenient);
  check_metadata(m_r, child(d.root, "metadata"), w);
  const auto handler = child(d.root, "handler");
  if (!present(handler)) {
    m_r.error(d.root, fmt::format("{} needs a 'handler'", w));
  } else if (auto h = m_r.string(handler, w + ".handler"); h && h->empty()) {
    m_r.error(handler, fmt::format("{}.handler must not be empty", w));
  }
  RuntimeClass rc;
  if (const auto overhead = child(d.root, "overhead"); present(overhead) && m_r.check_fields(overhead, w + ".overhead", {"podFixed"})) {
    if (const auto fixed = child(overhead, "podFixed"); present(fixed)) {
      model::Resources o;
      if (m_r.resources(fixed, w + ".overhead.podFixed", o) && cap_requests(m_r, fixed, o, w + ".overhead.podFixed")) {
        rc.overhead = o;
      }
    }
  }
  if (const auto scheduling = child(d.root, "scheduling");
      present(scheduling) && m_r.check_fields(scheduling, w + ".scheduling", {"nodeSelector", "tolerations"})) {
    rc.node_selector = m_r.string_map(child(scheduling, "nodeSelector"), w + ".scheduling.nodeSelector");
    rc.tolerations = m_r.tolerations(child(scheduling, "tolerations"), w + ".scheduling.tolerations");
  }
  m_runtime_classes[d.name] = std::move(rc);
}

void ScenarioParser::read_namespace(const Doc& d)
{
  const std::string w = what(d);
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata"}, {"spec", "status"}, Strictness::lenient);
  check_metadata(m_r, child(d.root, "metadata"), w);
  auto labels = m_r.string_map(child(child(d.root, "metadata"), "labels"), w + ".metadata.labels");
  // The API server sets the name label on every namespace (NamespaceDefaultLabelName).
  labels["kubernetes.io/metadata.name"] = d.name;
  m_namespaces[d.name] = std::move(labels);
}

// ----------------------------------------------------------------------------------------------
// Catalog

void ScenarioParser::read_catalog(const Doc& d)
{
  const std::string w = "Catalog";
  if (m_s.inline_catalog) {
    m_r.error(d.root, "a second capsim/v1 Catalog document (a stream has at most one)");
    return;
  }
  m_r.check_fields(d.root, w, {"apiVersion", "kind", "metadata", "spec"});
  if (const auto md = child(d.root, "metadata"); present(md)) {
    m_r.check_fields(md, w + ".metadata", {"name"}, {"labels", "annotations"});
  }
  const auto spec = child(d.root, "spec");
  if (!present(spec)) {
    m_r.error(d.root, "Catalog needs a 'spec' with instanceTypes");
    return;
  }
  if (!m_r.check_fields(spec, "Catalog.spec", {"mode", "zones", "instanceTypes"})) {
    return;
  }
  model::InlineCatalog cat;
  cat.location = m_r.location(d.root);
  if (const auto n = child(spec, "mode"); present(n)) {
    cat.replace = m_r.choice(n, "Catalog.spec.mode", {"replace", "extend"}).value_or("replace") == "replace";
  }
  cat.zones = m_r.string_list(child(spec, "zones"), "Catalog.spec.zones");
  if (cat.zones.size() > catalog::k_max_zones) {
    m_r.error(child(spec, "zones"), fmt::format("'Catalog.spec.zones' lists {} zones (capsim supports up to {} per "
                                                "region)",
                                                cat.zones.size(), catalog::k_max_zones));
    cat.zones.resize(catalog::k_max_zones);
  }
  const auto types = child(spec, "instanceTypes");
  if (!present(types) || !m_r.expect_sequence(types, "Catalog.spec.instanceTypes") || types.size() == 0) {
    if (!present(types) || types.IsSequence()) {
      m_r.error(present(types) ? types : spec, "'Catalog.spec.instanceTypes' must list at least one instance type");
    }
    return;
  }
  std::map<std::string, std::uint32_t> seen;
  std::vector<std::string> derived_zones;
  std::map<std::string, std::pair<std::string, std::string>> reservation_zones; // id -> (type, zone)
  for (const auto& t : types) {
    const std::string tw = "Catalog.spec.instanceTypes";
    if (!m_r.check_fields(t, tw, {"name", "capacity", "overhead", "labels", "offerings"})) {
      continue;
    }
    catalog::InstanceType it;
    const auto name = child(t, "name");
    if (!present(name)) {
      m_r.error(t, fmt::format("'{}' entry needs a 'name'", tw));
      continue;
    }
    it.name = m_r.string(name, tw + ".name").value_or("");
    if (it.name.empty()) {
      continue;
    }
    if (auto [pos, inserted] = seen.emplace(it.name, m_r.location(name).line); !inserted) {
      m_r.error(name, fmt::format("instance type '{}' is listed twice (first on line {})", it.name, pos->second));
      continue;
    }
    const std::string iw = fmt::format("{}[{}]", tw, it.name);
    const auto cap = child(t, "capacity");
    if (!present(cap)) {
      m_r.error(t, fmt::format("'{}' needs 'capacity' (cpu, memory, pods, ...)", iw));
      continue;
    }
    if (!m_r.resources(cap, iw + ".capacity", it.capacity)) {
      continue;
    }
    if (it.capacity.cpu() <= 0 || it.capacity.memory() <= 0) {
      m_r.error(cap, fmt::format("'{}.capacity' needs positive cpu and memory", iw));
      continue;
    }
    if (it.capacity.pods() == 0) {
      it.capacity[model::k_pods] = 110; // the kubelet's default maxPods
    }
    if (const auto oh = child(t, "overhead"); present(oh)) {
      if (!m_r.resources(oh, iw + ".overhead", it.overhead)) {
        continue;
      }
    } else {
      it.overhead = catalog::aws_overhead(it.capacity.cpu(), it.capacity.memory(), it.capacity.pods());
      it.aws_model = true;
      if (it.capacity[model::k_ephemeral_storage] == 0) {
        it.overhead[model::k_ephemeral_storage] = 0;
      }
    }
    it.labels = m_r.string_map(child(t, "labels"), iw + ".labels");
    it.labels.emplace(std::string(model::labels::k_instance_type), it.name);
    it.labels.emplace(std::string(model::labels::k_arch), "amd64");
    it.labels.emplace(std::string(model::labels::k_os), "linux");
    it.arch = it.labels[std::string(model::labels::k_arch)];
    it.vcpu = static_cast<std::int32_t>((it.capacity.cpu() + 999) / 1000);
    it.memory_mib = it.capacity.memory() / k_mib;
    it.gpu_count = static_cast<std::int32_t>(it.capacity[model::k_nvidia_gpu]);
    it.exotic = it.gpu_count > 0;
    const auto offerings = child(t, "offerings");
    if (!present(offerings) || !m_r.expect_sequence(offerings, iw + ".offerings") || offerings.size() == 0) {
      if (!present(offerings) || offerings.IsSequence()) {
        m_r.error(present(offerings) ? offerings : t, fmt::format("'{}.offerings' must list at least one offering", iw));
      }
      continue;
    }
    bool ok = true;
    std::set<std::pair<std::string, std::string>> seen_offerings;
    for (const auto& o : offerings) {
      const std::string ow = iw + ".offerings";
      if (!m_r.check_fields(o, ow,
                            {"zone", "capacityType", "price", "interruptionBand", "available", "reservationId",
                             "reservationCapacity"})) {
        ok = false;
        continue;
      }
      catalog::Offering off;
      const auto zone = child(o, "zone");
      const auto ct = child(o, "capacityType");
      const auto price = child(o, "price");
      if (!present(zone) || !present(ct) || !present(price)) {
        m_r.error(o, fmt::format("'{}' entry needs 'zone', 'capacityType' and 'price'", ow));
        ok = false;
        continue;
      }
      off.zone = m_r.string(zone, ow + ".zone").value_or("");
      auto c = m_r.choice(ct, ow + ".capacityType", {"on-demand", "spot", "reserved"});
      auto p = m_r.number(price, ow + ".price", 0.0, 1e6);
      if (!c || !p || off.zone.empty()) {
        ok = false;
        continue;
      }
      off.capacity_type = *c;
      off.price_per_hour = *p;
      if (!cat.zones.empty() && std::find(cat.zones.begin(), cat.zones.end(), off.zone) == cat.zones.end()) {
        m_r.error(zone, fmt::format("'{}': zone '{}' is not in Catalog.spec.zones{}", ow, off.zone,
                                    did_you_mean(off.zone, cat.zones)));
        ok = false;
        continue;
      }
      // A reserved offering is one capacity reservation: it names the reservation and how many
      // instances it holds (the scenario's nodes in it use them up; Offering.ReservationCapacity).
      const auto rid = child(o, "reservationId");
      const auto rcap = child(o, "reservationCapacity");
      if (off.capacity_type == "reserved") {
        if (!present(rid) || !present(rcap)) {
          m_r.error(o, fmt::format("'{}': a reserved offering needs 'reservationId' and 'reservationCapacity' (the "
                                   "instances the capacity reservation holds)",
                                   ow));
          ok = false;
          continue;
        }
        off.reservation_id = m_r.string(rid, ow + ".reservationId").value_or("");
        const auto count = m_r.integer(rcap, ow + ".reservationCapacity", 0, 1'000'000);
        if (off.reservation_id.empty() || !count) {
          if (off.reservation_id.empty()) {
            m_r.error(rid, fmt::format("'{}.reservationId' must not be empty", ow));
          }
          ok = false;
          continue;
        }
        off.reservation_capacity = static_cast<std::int32_t>(*count);
        const auto [where, inserted] = reservation_zones.emplace(off.reservation_id, std::pair{it.name, off.zone});
        if (!inserted && where->second != std::pair{it.name, off.zone}) {
          m_r.error(rid, fmt::format("'{}': capacity reservation '{}' is for {} in {} already (a reservation holds one "
                                     "instance type in one zone)",
                                     ow, off.reservation_id, where->second.first, where->second.second));
          ok = false;
          continue;
        }
      } else if (present(rid) || present(rcap)) {
        m_r.error(present(rid) ? rid : rcap,
                  fmt::format("'{}': reservationId and reservationCapacity only apply to reserved offerings", ow));
        ok = false;
        continue;
      }
      if (!seen_offerings.emplace(off.zone, off.capacity_type + "/" + off.reservation_id).second) {
        m_r.error(o, fmt::format("'{}': {} in {}{} is listed twice", ow, off.capacity_type, off.zone,
                                 off.reservation_id.empty() ? "" : " for " + off.reservation_id));
        ok = false;
        continue;
      }
      if (const auto band = child(o, "interruptionBand"); present(band)) {
        if (auto b = m_r.integer(band, ow + ".interruptionBand", 0, 4)) {
          if (off.capacity_type != "spot") {
            m_r.error(band, fmt::format("'{}': interruptionBand only applies to spot offerings", ow));
            ok = false;
          }
          off.interruption_band = static_cast<int>(*b);
        }
      }
      set_bool(o, "available", ow, off.available);
      if (std::find(derived_zones.begin(), derived_zones.end(), off.zone) == derived_zones.end()) {
        if (derived_zones.size() == catalog::k_max_zones) {
          m_r.error(zone, fmt::format("'{}': zone '{}' is beyond the {} zones capsim supports per region", ow,
                                      off.zone, catalog::k_max_zones));
          ok = false;
          continue;
        }
        derived_zones.push_back(off.zone);
      }
      it.offerings.push_back(std::move(off));
    }
    if (!ok) {
      continue;
    }
    catalog::finalize_requirements(it);
    cat.instance_types.push_back(std::move(it));
  }
  if (cat.zones.empty()) {
    cat.zones = derived_zones;
  }
  m_s.inline_catalog = std::move(cat);
}

// ----------------------------------------------------------------------------------------------
// Persistent volumes

void ScenarioParser::read_claim_templates(const Doc& d, const YAML::Node& spec, std::vector<ClaimInfo>& out)
{
  const auto list = child(spec, "volumeClaimTemplates");
  const std::string w = what(d) + ".spec.volumeClaimTemplates";
  if (!present(list) || !m_r.expect_sequence(list, w)) {
    return;
  }
  std::set<std::string> seen;
  for (const auto& ct : list) {
    if (!m_r.check_fields(ct, w, {"metadata", "spec"}, {"apiVersion", "kind", "status"}, Strictness::lenient)) {
      continue;
    }
    const auto name = child(child(ct, "metadata"), "name");
    if (!present(name)) {
      m_r.error(ct, fmt::format("'{}' entry needs metadata.name (pod i's claim is <name>-{}-<i>)", w, d.name));
      continue;
    }
    ClaimInfo c;
    c.name = m_r.string(name, w + ".metadata.name").value_or("");
    c.namespace_ = d.namespace_;
    if (c.name.empty()) {
      continue;
    }
    if (!seen.insert(c.name).second) {
      m_r.error(name, fmt::format("'{}': claim template '{}' is listed twice", w, c.name));
      continue;
    }
    read_claim_template_spec(m_r, child(ct, "spec"), fmt::format("{}[{}].spec", w, c.name), c);
    out.push_back(std::move(c));
  }
}

// The zones a claim capsim provisions at once may land in when its class does not say: the
// scenario's zones, or a replacing inline catalog's (the embedded or a folder catalog is not read
// here; without either the claim is made where its pod first binds, volumes.cpp).
std::vector<std::string> ScenarioParser::provisioning_zones() const
{
  const auto& st = m_s.settings;
  if (!st.zones.empty()) {
    return st.zones;
  }
  if (m_s.inline_catalog && m_s.inline_catalog->replace) {
    return m_s.inline_catalog->zones;
  }
  return {};
}

void ScenarioParser::check_class(const ClaimInfo& claim, const std::string& what)
{
  if (m_dump || !claim.storage_class || claim.storage_class->empty() || !m_storage.has_classes()
      || m_storage.has_class(*claim.storage_class)) {
    return;
  }
  m_r.error(claim.storage_class_at, fmt::format("{}: storageClassName '{}' names no StorageClass in the stream{}", what,
                                                *claim.storage_class,
                                                did_you_mean(*claim.storage_class, m_storage.class_names())));
}

void ScenarioParser::check_absurd(model::PodSpec& spec, const TemplateClaims& t)
{
  if (spec.volume_affinity.size() > k_max_volume_alternatives) {
    m_r.error(t.location, fmt::format("{}: the pod's volumes allow more than {} combinations of node constraints: "
                                      "refused as absurd",
                                      t.what, k_max_volume_alternatives));
    spec.volume_affinity.resize(k_max_volume_alternatives);
  }
}

std::vector<ScenarioParser::PlannedClaim> ScenarioParser::plan_claims(const std::string& namespace_,
                                                                      const TemplateClaims& t)
{
  std::vector<PlannedClaim> plan;
  for (const auto& ref : t.volumes) {
    PlannedClaim p;
    if (ref.ephemeral) {
      check_class(ref.claim, fmt::format("{}: ephemeral volume '{}'", t.what, ref.volume));
      p.effect =
          m_storage.resolve(ref.claim, ClaimOrigin::ephemeral, fmt::format("ephemeral volume \"{}\"", ref.volume));
      p.claim = {ref.volume, true, p.effect.zones};
    } else if (const auto* c = m_storage.find_claim(namespace_, ref.claim_name)) {
      p.effect = m_storage.resolve(*c, ClaimOrigin::document, fmt::format("persistentvolumeclaim \"{}\"", c->name));
    } else {
      if (!m_dump) { // dumps seldom carry their claims: the volume is ignored there
        std::vector<std::string> names;
        if (m_r.diagnostics().size() < Diagnostics::k_max_errors) {
          for (const auto* other : m_storage.claims_with_prefix(namespace_, "")) {
            names.push_back(other->name);
          }
        }
        m_r.error(ref.at, fmt::format("PersistentVolumeClaim '{}/{}' is not in the stream{}", namespace_,
                                      ref.claim_name, did_you_mean(ref.claim_name, names)));
      }
      continue;
    }
    p.per_pod = !p.effect.zones.empty();
    plan.push_back(std::move(p));
  }
  for (std::size_t k = 0; k < t.claim_templates.size(); ++k) {
    const auto& ct = t.claim_templates[k];
    check_class(ct, fmt::format("{}: volumeClaimTemplate '{}'", t.what, ct.name));
    PlannedClaim p;
    p.effect = m_storage.resolve(ct, ClaimOrigin::stateful_set, fmt::format("volumeClaimTemplate \"{}\"", ct.name));
    p.claim = {ct.name, false, p.effect.zones};
    p.per_pod = !p.effect.zones.empty();
    p.claim_template = static_cast<int>(k);
    plan.push_back(std::move(p));
  }
  return plan;
}

namespace {

// A canonical ordinal ("0", "12"; no sign, no leading zero), or nullopt.
std::optional<std::int32_t> parse_ordinal(std::string_view text)
{
  if (text.empty() || text.size() > 8 || (text.size() > 1 && text.front() == '0')
      || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::int32_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// What a pod's volumes resolved to, as a key for sharing specs.
std::string volume_key(const model::PodSpec& spec)
{
  std::string key = fmt::format("{}|{}|", spec.volume_binds_on_schedule, spec.volume_error);
  for (const auto& term : spec.volume_affinity) {
    for (const auto& r : term.requirements) {
      key += fmt::format("{}{}{}{}", r.key.size(), r.key, r.complement ? '!' : '=', r.values.size());
      for (const auto& v : r.values) {
        key += fmt::format("{}:{}", v.size(), v);
      }
      key += fmt::format("<{}>{};", r.greater_than.value_or(0), r.less_than.value_or(0));
    }
    key += '|';
  }
  return key;
}

} // namespace

// StatefulSet ordinals whose claims are documents of the stream ("<template>-<set>-<i>").
void ScenarioParser::resolve_ordinals(model::Workload& w, const TemplateClaims& t, const model::PodSpec& base,
                                      const std::vector<PlannedClaim>& plan)
{
  std::map<std::int32_t, std::vector<const ClaimInfo*>> docs; // ordinal -> claim per template
  for (std::size_t k = 0; k < t.claim_templates.size(); ++k) {
    const std::string prefix = fmt::format("{}-{}-", t.claim_templates[k].name, w.name);
    for (const auto* c : m_storage.claims_with_prefix(w.namespace_, prefix)) {
      if (const auto ordinal = parse_ordinal(std::string_view(c->name).substr(prefix.size()))) {
        auto& slot = docs[*ordinal];
        slot.resize(t.claim_templates.size(), nullptr);
        slot[k] = c;
      }
    }
  }
  std::map<std::string, model::PodSpecPtr> shared;
  for (const auto& [ordinal, claims] : docs) {
    const std::string pod_name = fmt::format("{}-{}", w.name, ordinal);
    model::PodSpec spec = base;
    for (const auto& p : plan) {
      const ClaimInfo* doc = p.claim_template >= 0 ? claims[static_cast<std::size_t>(p.claim_template)] : nullptr;
      if (doc != nullptr) {
        const auto label = fmt::format("persistentvolumeclaim \"{}\"", doc->name);
        apply_claim(spec, m_storage.resolve(*doc, ClaimOrigin::document, label), doc->name);
      } else {
        apply_claim(spec, p.effect, per_pod_claim_name(p.claim, pod_name));
      }
    }
    check_absurd(spec, t);
    auto& slot = shared[volume_key(spec)];
    if (!slot) {
      slot = std::make_shared<const model::PodSpec>(std::move(spec));
    }
    w.ordinal_specs[ordinal] = slot;
  }
}

void ScenarioParser::resolve_volumes()
{
  for (const auto& [key, c] : m_storage.claims()) {
    const std::string w = fmt::format("PersistentVolumeClaim/{}", c.name);
    if (!m_dump && !c.lost && !c.volume_name.empty() && !m_storage.has_volume(c.volume_name)) {
      m_r.error(c.volume_name_at, fmt::format("{}: spec.volumeName names PersistentVolume '{}', which is not in the "
                                              "stream",
                                              w, c.volume_name));
    }
    if (c.volume_name.empty()) {
      check_class(c, w);
    }
  }
  // Applies every planned claim; per-pod claims too when the pod's name is known.
  const auto build = [this](const model::PodSpec& base, const TemplateClaims& t, const std::vector<PlannedClaim>& plan,
                            const std::string& pod_name) {
    auto spec = std::make_shared<model::PodSpec>(base);
    for (const auto& p : plan) {
      if (!p.per_pod) {
        apply_claim(*spec, p.effect, "");
      } else if (!pod_name.empty()) {
        apply_claim(*spec, p.effect, per_pod_claim_name(p.claim, pod_name));
      }
    }
    check_absurd(*spec, t);
    return spec;
  };
  for (const auto& t : m_pod_claims) {
    auto& pod = m_s.pods[t.index];
    const auto plan = plan_claims(pod.spec->namespace_, t);
    pod.spec = build(*pod.spec, t, plan, pod.name);
  }
  for (const auto& t : m_workload_claims) {
    auto& w = m_s.workloads[t.index];
    const auto plan = plan_claims(w.namespace_, t);
    const model::PodSpecPtr base = w.spec;
    w.spec = build(*base, t, plan, "");
    for (const auto& p : plan) {
      if (p.per_pod) {
        w.per_pod_claims.push_back(p.claim);
      }
    }
    if (!t.claim_templates.empty()) {
      resolve_ordinals(w, t, *base, plan);
    }
  }
  for (const auto& t : m_daemon_set_claims) {
    auto& ds = m_s.daemon_sets[t.index];
    // A DaemonSet pod's own claim provisioned at once is left unconstrained (capsim does not
    // name DaemonSet pods).
    ds.spec = build(*ds.spec, t, plan_claims(ds.spec->namespace_, t), "");
  }
}

// ----------------------------------------------------------------------------------------------
// The stream

void ScenarioParser::cross_check(const std::vector<Doc>& docs)
{
  std::vector<std::string> pool_names;
  for (const auto& p : m_s.node_pools) {
    pool_names.push_back(p.name);
  }
  // NodePools created during the run: the earliest version of a NodePool with no document at
  // t=0 creates it (kubectl apply of a new NodePool).
  std::stable_sort(m_s.node_pool_updates.begin(), m_s.node_pool_updates.end(),
                   [](const model::NodePoolUpdate& a, const model::NodePoolUpdate& b) { return a.at < b.at; });
  for (auto it = m_s.node_pool_updates.begin(); it != m_s.node_pool_updates.end();) {
    if (std::find(pool_names.begin(), pool_names.end(), it->pool.name) != pool_names.end()) {
      ++it;
      continue;
    }
    if (it->at > k_max_sim_duration) {
      m_r.error(it->location, fmt::format("NodePool/{}: {} {} is beyond any simulation", it->pool.name, k_apply_at,
                                          format_duration(it->at)));
    }
    model::NodePool created = std::move(it->pool);
    created.created_at = it->at;
    m_node_pool_ref_locations[created.name] = it->node_class_location;
    m_pool_creations[created.name] = it->location;
    pool_names.push_back(created.name);
    m_s.node_pools.push_back(std::move(created));
    it = m_s.node_pool_updates.erase(it);
  }
  std::vector<std::string> group_names;
  for (const auto& g : m_s.node_groups) {
    group_names.push_back(g.name);
  }
  std::vector<std::string> node_names;
  for (const auto& n : m_s.nodes) {
    node_names.push_back(n.name);
  }
  std::vector<std::string> class_names;
  for (const auto& c : m_s.node_classes) {
    class_names.push_back(c.name);
  }
  std::vector<std::string> template_names;
  for (const auto& wl : m_s.workloads) {
    template_names.push_back(wl.name);
  }
  for (const auto& p : m_s.pods) {
    template_names.push_back(p.name);
  }
  const auto contains = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };

  // Node ages and bound pods' running times at t=0, against spec.startTime or the newest
  // creation in the stream.
  if (const auto start = m_s.settings.start_ms ? m_s.settings.start_ms : m_newest_creation) {
    for (auto& n : m_s.nodes) {
      if (n.created_ms) {
        n.age = std::max<std::int64_t>(0, *start - *n.created_ms);
      }
    }
    for (const auto& [pod, started] : m_pod_starts) {
      m_s.pods[pod].started_before = std::max<std::int64_t>(0, *start - started);
    }
  }

  // Node ownership from labels.
  for (auto& n : m_s.nodes) {
    auto pool = n.labels.find(std::string(model::labels::k_nodepool));
    auto group = n.labels.find(std::string(model::labels::k_eks_nodegroup));
    if (m_dump && group != n.labels.end() && !contains(group_names, group->second)) {
      group = n.labels.end(); // a live node of a group the dump does not define: static
    }
    if (m_dump && pool != n.labels.end() && !contains(pool_names, pool->second)) {
      pool = n.labels.end();
    }
    if (group != n.labels.end()) {
      if (!contains(group_names, group->second)) {
        m_r.error(n.location, fmt::format("Node/{}: label {}={} names no NodeGroup in the scenario{}", n.name,
                                          model::labels::k_eks_nodegroup, group->second,
                                          did_you_mean(group->second, group_names)));
      }
      n.owner = model::InitialNode::Owner::node_group;
      n.owner_pool = group->second;
      n.node_group = group->second;
    }
    if (pool != n.labels.end()) {
      if (!contains(pool_names, pool->second)) {
        m_r.error(n.location, fmt::format("Node/{}: label {}={} names no NodePool in the scenario{}", n.name,
                                          model::labels::k_nodepool, pool->second,
                                          did_you_mean(pool->second, pool_names)));
      } else if (const auto created = m_pool_creations.find(pool->second); created != m_pool_creations.end()) {
        m_r.error(n.location, fmt::format("Node/{}: label {}={} names a NodePool that is created only during the run "
                                          "(its first version, line {}, is annotated {})",
                                          n.name, model::labels::k_nodepool, pool->second, created->second.line,
                                          k_apply_at));
      }
      n.owner = model::InitialNode::Owner::node_pool;
      n.owner_pool = pool->second;
      n.node_pool = pool->second;
    }
  }
  std::vector<std::size_t> orphans; // cluster dumps: pods bound to nodes not in the dump
  for (const auto& [index, node] : m_bound_pod_nodes) {
    const auto& pod = m_s.pods[index];
    if (m_dump && !contains(node_names, pod.node_name)) {
      orphans.push_back(index);
      continue;
    }
    if (!contains(node_names, pod.node_name)) {
      m_r.error(node, fmt::format("Pod/{}: spec.nodeName '{}' names no Node in the scenario{}", pod.name,
                                  pod.node_name, did_you_mean(pod.node_name, node_names)));
    }
  }
  std::sort(orphans.rbegin(), orphans.rend());
  for (const std::size_t i : orphans) {
    m_s.pods.erase(m_s.pods.begin() + static_cast<std::ptrdiff_t>(i));
  }
  for (const auto& p : m_s.node_pools) {
    if (!m_dump && !class_names.empty() && !p.node_class_ref.empty() && !contains(class_names, p.node_class_ref)) {
      m_r.error(m_node_pool_ref_locations[p.name],
                fmt::format("NodePool/{}: nodeClassRef names EC2NodeClass '{}', which is not in the scenario{}",
                            p.name, p.node_class_ref, did_you_mean(p.node_class_ref, class_names)));
    }
  }
  for (const auto& d : m_pool_deletions) {
    const auto found = std::find_if(m_s.node_pools.begin(), m_s.node_pools.end(),
                                    [&](const model::NodePool& p) { return p.name == d.name; });
    if (found == m_s.node_pools.end()) {
      continue; // (its document was refused)
    }
    auto& pool = *found;
    if (pool.deleted_at >= 0) {
      m_r.error(d.location, fmt::format("NodePool/{}: annotation {} is given twice (a NodePool is deleted once)",
                                        d.name, model::k_delete_at_annotation));
    } else if (d.at <= pool.created_at) {
      m_r.error(d.location, fmt::format("NodePool/{}: annotation {} {} is not after the NodePool is created ({})",
                                        d.name, model::k_delete_at_annotation, format_duration(d.at),
                                        format_duration(pool.created_at)));
    } else if (d.at > k_max_sim_duration) {
      m_r.error(d.location, fmt::format("NodePool/{}: {} {} is beyond any simulation", d.name,
                                        model::k_delete_at_annotation, format_duration(d.at)));
    } else {
      pool.deleted_at = d.at;
    }
  }
  for (std::size_t i = 0; i < m_s.node_pool_updates.size(); ++i) {
    const auto& u = m_s.node_pool_updates[i];
    const std::string& name = u.pool.name;
    const auto& base = *std::find_if(m_s.node_pools.begin(), m_s.node_pools.end(),
                                     [&](const model::NodePool& p) { return p.name == name; });
    if (base.replicas.has_value() != u.pool.replicas.has_value()) {
      m_r.error(u.location, fmt::format("NodePool/{}: Cannot transition NodePool between static (replicas set) and "
                                        "dynamic (replicas unset) provisioning modes",
                                        name));
    }
    if (base.created_at > 0 && u.at == base.created_at) {
      m_r.error(u.location, fmt::format("NodePool/{}: two versions are applied at {} (the other, which creates it, on "
                                        "line {})",
                                        name, format_duration(u.at), line_in_file(m_pool_creations[name])));
    }
    if (base.deleted_at >= 0 && u.at >= base.deleted_at) {
      m_r.error(u.location, fmt::format("NodePool/{}: a version applied at {} comes after the NodePool is deleted "
                                        "({} {})",
                                        name, format_duration(u.at), model::k_delete_at_annotation,
                                        format_duration(base.deleted_at)));
    }
    for (std::size_t j = 0; j < i; ++j) {
      const auto& other = m_s.node_pool_updates[j];
      if (other.pool.name == name && other.at == u.at) {
        m_r.error(u.location, fmt::format("NodePool/{}: two versions are applied at {} (the other on line {})", name,
                                          format_duration(u.at), line_in_file(other.location)));
      }
    }
    if (u.at > k_max_sim_duration) {
      m_r.error(u.location, fmt::format("NodePool/{}: {} {} is beyond any simulation", name, k_apply_at,
                                        format_duration(u.at)));
    }
    if (!class_names.empty() && !u.pool.node_class_ref.empty() && !contains(class_names, u.pool.node_class_ref)) {
      m_r.error(u.node_class_location,
                fmt::format("NodePool/{}: nodeClassRef names EC2NodeClass '{}', which is not in the scenario{}", name,
                            u.pool.node_class_ref, did_you_mean(u.pool.node_class_ref, class_names)));
    }
  }
  std::stable_sort(m_s.node_class_updates.begin(), m_s.node_class_updates.end(),
                   [](const model::NodeClassUpdate& a, const model::NodeClassUpdate& b) { return a.at < b.at; });
  for (std::size_t i = 0; i < m_s.node_class_updates.size(); ++i) {
    const auto& u = m_s.node_class_updates[i];
    const std::string& name = u.node_class.name;
    const auto base = std::find_if(m_s.node_classes.begin(), m_s.node_classes.end(),
                                   [&](const model::NodeClass& c) { return c.name == name; });
    if (base == m_s.node_classes.end()) {
      m_r.error(u.location, fmt::format("EC2NodeClass/{}: annotation {} applies a new version of an EC2NodeClass, but "
                                        "no EC2NodeClass document named '{}' without it gives its version at t=0{}",
                                        name, k_apply_at, name, did_you_mean(name, class_names)));
    } else if (base->capacity_reservation_terms != u.node_class.capacity_reservation_terms) {
      m_r.error(u.location, fmt::format("EC2NodeClass/{}: a later version may not change "
                                        "capacityReservationSelectorTerms (capsim resolves reservations once, at the "
                                        "start)",
                                        name));
    }
    for (std::size_t j = 0; j < i; ++j) {
      const auto& other = m_s.node_class_updates[j];
      if (other.node_class.name == name && other.at == u.at) {
        m_r.error(u.location, fmt::format("EC2NodeClass/{}: two versions are applied at {} (the other on line {})",
                                          name, format_duration(u.at), line_in_file(other.location)));
      }
    }
    if (u.at > k_max_sim_duration) {
      m_r.error(u.location, fmt::format("EC2NodeClass/{}: {} {} is beyond any simulation", name, k_apply_at,
                                        format_duration(u.at)));
    }
  }
  for (const auto& [index, node] : m_generator_template_nodes) {
    const auto& name = m_s.generators[index].template_name;
    if (!contains(template_names, name)) {
      m_r.error(node, fmt::format("generator template '{}' is not a Deployment, StatefulSet, ReplicaSet, Job or "
                                  "Pod in the scenario{}",
                                  name, did_you_mean(name, template_names)));
    }
  }
  for (const auto& [index, node] : m_trace_template_nodes) {
    const auto& name = m_s.traces[index].template_name;
    if (!name.empty() && !contains(template_names, name)) {
      m_r.error(node, fmt::format("trace template '{}' is not a Deployment, StatefulSet, ReplicaSet, Job or Pod in "
                                  "the scenario{}",
                                  name, did_you_mean(name, template_names)));
    }
  }
  for (const auto& e : m_s.events) {
    const std::string& pool = !e.node_pool.empty() ? e.node_pool : e.selector.node_pool;
    if (!pool.empty() && !contains(pool_names, pool)) {
      m_r.error(e.location, fmt::format("{} event: nodePool '{}' is not in the scenario{}", e.kind, pool,
                                        did_you_mean(pool, pool_names)));
    }
    if (!e.workload.empty()) {
      std::vector<std::string> names;
      for (const auto& wl : m_s.workloads) {
        names.push_back(wl.name);
      }
      const auto target = std::find_if(m_s.workloads.begin(), m_s.workloads.end(), [&](const model::Workload& wl) {
        return wl.name == e.workload && (e.workload_namespace.empty() || wl.namespace_ == e.workload_namespace);
      });
      if (target == m_s.workloads.end()) {
        const std::string in_ns =
            e.workload_namespace.empty() ? "" : fmt::format(" of namespace '{}'", e.workload_namespace);
        const bool name_elsewhere = std::find(names.begin(), names.end(), e.workload) != names.end();
        m_r.error(e.location, fmt::format("ScaleWorkload event: workload '{}'{} is not a Deployment, StatefulSet or "
                                          "ReplicaSet in the scenario{}",
                                          e.workload, in_ns, name_elsewhere ? "" : did_you_mean(e.workload, names)));
      } else if (target->kind == "Job") {
        m_r.error(e.location, fmt::format("ScaleWorkload event: '{}' is a Job; capsim scales Deployments, "
                                          "StatefulSets and ReplicaSets (a Job's pods are set by its parallelism "
                                          "and completions)",
                                          e.workload));
      }
    }
    if (e.at > k_max_sim_duration) {
      m_r.error(e.location, fmt::format("{} event at {} is beyond any simulation", e.kind, format_duration(e.at)));
    }
  }
  if (m_s.settings.duration == 0) {
    for (const auto& g : m_s.generators) {
      if (g.pattern == "diurnal" || g.pattern == "poisson") {
        m_r.error(g.location, fmt::format("a {} generator has no natural end: set Scenario spec.duration", g.pattern));
      }
    }
  }
  if (m_s.settings.engines.empty()) {
    if (!m_s.node_pools.empty()) {
      m_s.settings.engines.emplace_back("karpenter");
    }
    if (!m_s.node_groups.empty()) {
      m_s.settings.engines.emplace_back("cluster-autoscaler");
    }
  }
  if (!m_has_scenario) {
    m_r.error(SourceLocation{m_source, 1, 1},
              docs.empty() ? "the file has no documents (a scenario needs a capsim/v1 Scenario document)"
                           : "no capsim/v1 Scenario document (a stream needs exactly one, with the simulation settings)");
  }
}

model::Scenario ScenarioParser::parse(std::vector<Doc>& docs)
{
  m_s.source_path = m_source;
  // Duplicate names per kind (namespaced kinds per namespace).
  std::map<std::string, std::uint32_t> names;
  for (const auto& d : docs) {
    const auto* info = find_kind(d.kind);
    if (d.kind == "Scenario" || d.kind == "Catalog" || d.name.empty() || info == nullptr || is_later_version(d)) {
      continue; // (later versions share the name; cross_check pairs them)
    }
    const std::string key = info->namespaced ? fmt::format("{}/{}/{}", d.kind, d.namespace_, d.name)
                                             : fmt::format("{}/{}", d.kind, d.name);
    const SourceLocation at = d.from_item ? d.name_at : m_r.location(child(child(d.root, "metadata"), "name"));
    if (auto [pos, inserted] = names.emplace(key, line_in_file(at)); !inserted) {
      m_r.error(at, fmt::format("duplicate {} '{}' (first defined on line {})", d.kind, d.name, pos->second));
    }
  }
  for (const auto& d : docs) {
    m_r.set_origin(d.origin_line, d.origin_column);
    if (d.kind == "PriorityClass") {
      read_priority_class(d);
    } else if (d.kind == "RuntimeClass") {
      read_runtime_class(d);
    } else if (d.kind == "Namespace") {
      read_namespace(d);
    }
  }
  for (const auto& d : docs) {
    const auto* info = find_kind(d.kind);
    if (info != nullptr && info->namespaced && !m_namespaces.contains(d.namespace_)) {
      m_namespaces[d.namespace_] = {{"kubernetes.io/metadata.name", d.namespace_}};
    }
  }
  m_r.set_origin(0, 0);
  note_controllers(docs);
  for (const auto& stored : docs) {
    m_r.set_origin(stored.origin_line, stored.origin_column); // (0, 0) but for the items of item lists
    std::optional<Doc> loaded;
    if (!stored.item_text.empty()) {
      try {
        loaded = with_root(stored, load_yaml(stored.item_text));
      } catch (const YAML::Exception& e) {
        m_r.error(m_r.location(e.mark), fmt::format("invalid YAML: {}", e.msg));
        continue;
      }
      if (!item_within_budget(loaded->root)) {
        m_r.error(loaded->root, item_budget_error());
        continue;
      }
    }
    const Doc& d = loaded ? *loaded : stored;
    m_s.kind_counts[d.kind] += 1;
    if (d.kind == "Scenario") {
      read_scenario(d);
    } else if (d.kind == "NodePool") {
      read_node_pool(d);
    } else if (d.kind == "EC2NodeClass") {
      read_node_class(d);
    } else if (d.kind == "NodeGroup") {
      read_node_group(d);
    } else if (d.kind == "Node") {
      read_node(d);
    } else if (d.kind == "Pod") {
      read_pod(d);
    } else if (d.kind == "Deployment" || d.kind == "StatefulSet" || d.kind == "ReplicaSet" || d.kind == "Job") {
      read_workload(d);
    } else if (d.kind == "DaemonSet") {
      read_daemon_set(d);
    } else if (d.kind == "PodDisruptionBudget") {
      read_pdb(d);
    } else if (d.kind == "Catalog") {
      read_catalog(d);
    } else if (d.kind == "PersistentVolumeClaim") {
      m_storage.add_claim(read_claim(m_r, d.root, d.name, d.namespace_, what(d)));
    } else if (d.kind == "PersistentVolume") {
      m_storage.add_volume(read_volume(m_r, d.root, d.name, what(d)));
    } else if (d.kind == "StorageClass") {
      m_storage.add_class(read_storage_class(m_r, d.root, d.name, what(d)));
    }
  }
  m_r.set_origin(0, 0);
  resolve_volumes();
  adopt_pods(); // after the volumes: the workload's final template
  cross_check(docs);
  return std::move(m_s);
}

// Splits the raw documents into Doc records, flattening `kind: List`; reports bad headers.
void collect_documents(YamlReader& r, const YAML::Node& root, std::vector<Doc>& out, int depth)
{
  if (!present(root)) {
    return; // an empty document ("---" twice) is skipped, as kubectl does
  }
  if (!root.IsMap()) {
    r.error(root, "a document must be a mapping with apiVersion and kind");
    return;
  }
  const auto kind_node = child(root, "kind");
  const auto api_node = child(root, "apiVersion");
  if (!present(kind_node) || !kind_node.IsScalar()) {
    r.error(root, "the document has no 'kind'");
    return;
  }
  const std::string kind = kind_node.Scalar();
  const std::string api = present(api_node) && api_node.IsScalar() ? api_node.Scalar() : "";
  if (kind == "List" || (kind.size() > 4 && kind.substr(kind.size() - 4) == "List" && api == "v1")) {
    if (depth > 0) {
      r.error(kind_node, "a List inside a List is not supported");
      return;
    }
    r.check_fields(root, "List", {"apiVersion", "kind", "items"}, {"metadata"}, Strictness::lenient);
    const auto items = child(root, "items");
    if (present(items) && r.expect_sequence(items, "List.items")) {
      for (const auto& item : items) {
        collect_documents(r, item, out, depth + 1);
      }
    }
    return;
  }
  const auto* info = find_kind(kind);
  if (info == nullptr) {
    std::vector<std::string> kinds;
    for (const auto& k : k_kinds) {
      kinds.emplace_back(k.kind);
    }
    r.error(kind_node, fmt::format("unknown kind '{}'{} (capsim reads {})", kind, did_you_mean(kind, kinds),
                                   fmt::join(kinds, ", ")));
    return;
  }
  if (api != info->api_version) {
    if (kind == "NodePool" && api.rfind("karpenter.sh/v1beta1", 0) == 0) {
      r.error(present(api_node) ? api_node : root,
              "karpenter.sh/v1beta1 NodePools are not supported: migrate to karpenter.sh/v1 (see Karpenter's v1 "
              "migration guide)");
    } else {
      r.error(present(api_node) ? api_node : root,
              fmt::format("{} needs apiVersion '{}' (got '{}')", kind, info->api_version, api));
    }
    return;
  }
  Doc d;
  d.root = root;
  d.kind = kind;
  d.api_version = api;
  const auto md = child(root, "metadata");
  if (present(md) && !md.IsMap()) {
    r.error(md, fmt::format("{}: 'metadata' must be a mapping", kind));
    return;
  }
  const auto name = child(md, "name");
  if (present(name) && name.IsScalar()) {
    d.name = name.Scalar();
  }
  if (const auto ns = child(md, "namespace"); present(ns) && ns.IsScalar()) {
    d.namespace_ = ns.Scalar();
  }
  if (d.name.empty() && kind != "Scenario" && kind != "Catalog") {
    r.error(present(md) ? md : root, fmt::format("{} needs metadata.name", kind));
    return;
  }
  if (d.name.size() > 253) {
    r.error(name, fmt::format("{}: metadata.name is longer than 253 characters", kind));
    return;
  }
  out.push_back(std::move(d));
}

// Whether documents of `kind` from an item list keep their text instead of their tree (see Doc).
bool read_from_text(std::string_view kind)
{
  return kind == "Pod" || kind == "Node";
}

// The items of `list`, collected one at a time as documents of a List. A Pod or Node whose
// header reads plainly (scan_object_header, with what collect_documents asks of it) is not
// parsed here at all; any other item is parsed, collected, and a Pod or Node then let go of its
// tree. The main pass parses those again (ScenarioParser::parse).
void collect_items(YamlReader& r, const ParseOptions::ItemList& list, std::vector<Doc>& out)
{
  for (const auto& item : list.items) {
    const int line = list.first_line + item.line;
    const int column = item.column;
    r.set_origin(line, column);
    const std::string_view text = list.text.substr(item.begin, item.end - item.begin);
    if (const auto h = scan_object_header(text); h && read_from_text(h->kind) && h->metadata) {
      const auto* info = find_kind(h->kind);
      if (info != nullptr && h->api_version == info->api_version && !h->name.empty() && h->name.size() <= 253) {
        Doc d;
        d.kind = h->kind;
        d.api_version = h->api_version;
        d.name = h->name;
        d.namespace_ = h->namespace_.value_or("default");
        d.from_item = true;
        d.origin_line = line;
        d.origin_column = column;
        const int name_line = line + h->name_line;
        const int name_column = h->name_line == 0 ? column + h->name_column : h->name_column;
        d.name_at = SourceLocation{r.file(), static_cast<std::uint32_t>(name_line + 1),
                                   static_cast<std::uint32_t>(name_column + 1)};
        d.item_text = text;
        out.push_back(std::move(d));
        continue;
      }
    }
    YAML::Node root;
    try {
      root = load_yaml(text);
    } catch (const YAML::Exception& e) {
      r.error(r.location(e.mark), fmt::format("invalid YAML: {}", e.msg));
      continue;
    }
    if (!item_within_budget(root)) {
      r.error(root, item_budget_error());
      continue;
    }
    const std::size_t before = out.size();
    collect_documents(r, root, out, 1);
    if (out.size() > before) {
      Doc& d = out.back();
      d.from_item = true;
      d.origin_line = line;
      d.origin_column = column;
      d.name_at = r.location(child(child(root, "metadata"), "name"));
      if (read_from_text(d.kind)) {
        d.item_text = text;
        Doc light = with_root(d, YAML::Node()); // (the item's tree goes with the record it replaces)
        out.pop_back();
        out.push_back(std::move(light));
      }
    }
  }
  r.set_origin(0, 0);
}

// Throws the collected errors ordered by position in the file (command-line --set errors first),
// however the documents were visited.
void throw_sorted(const Diagnostics& diagnostics, const std::string& source_name)
{
  if (diagnostics.empty()) {
    return;
  }
  auto items = diagnostics.items();
  std::stable_sort(items.begin(), items.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    const bool a_file = a.location.file == source_name;
    const bool b_file = b.location.file == source_name;
    if (a_file != b_file) {
      return !a_file;
    }
    if (a.location.line != b.location.line) {
      return a.location.line < b.location.line;
    }
    return a.location.column < b.location.column;
  });
  throw InputError(std::move(items));
}

} // namespace

std::uint64_t node_pool_template_hash(const model::NodePool& pool)
{
  std::string text;
  const auto add = [&text](std::string_view s) {
    text += std::to_string(s.size());
    text += ':';
    text += s;
  };
  add("labels");
  for (const auto& [k, v] : pool.template_labels) {
    add(k);
    add(v);
  }
  add("annotations");
  for (const auto& [k, v] : pool.template_annotations) {
    add(k);
    add(v);
  }
  const auto taints = [&](std::string_view name, const std::vector<model::Taint>& list) {
    add(name);
    for (const auto& t : list) {
      add(t.key);
      add(t.value);
      add(model::to_string(t.effect));
    }
  };
  taints("taints", pool.taints);
  taints("startupTaints", pool.startup_taints);
  add("expireAfter");
  add(std::to_string(pool.expire_after));
  add("terminationGracePeriod");
  add(pool.termination_grace_period ? std::to_string(*pool.termination_grace_period) : "nil");
  add("nodeClassRef");
  add(pool.node_class_ref);
  return hash_name(text);
}

model::Scenario parse_scenario(std::string_view text, const std::string& source_name, const std::vector<std::string>& sets)
{
  return parse_scenario(text, source_name, sets, ParseOptions{});
}

model::Scenario parse_scenario(std::string_view text, const std::string& source_name, const std::vector<std::string>& sets,
                               const ParseOptions& options)
{
  check_text(text, source_name, k_max_yaml_depth);
  check_yaml_documents(text, source_name);
  CAPSIM_CHECK(sets.empty() || options.item_lists.empty(), "parse_scenario: --set cannot reach the items of item lists");
  std::vector<YAML::Node> raw;
  try {
    raw = load_yaml_documents(text);
  } catch (const YAML::Exception& e) {
    const auto line = e.mark.is_null() ? 0U : static_cast<std::uint32_t>(e.mark.line + 1);
    const auto col = e.mark.is_null() ? 0U : static_cast<std::uint32_t>(e.mark.column + 1);
    throw InputError(SourceLocation{source_name, line, col}, fmt::format("invalid YAML: {}", e.msg));
  }
  Diagnostics diagnostics;
  YamlReader reader(source_name, diagnostics);
  try {
    std::vector<Doc> docs;
    for (const auto& root : raw) {
      // A cluster dump's List holds every pod of the cluster: the budget is per object.
      const auto items = options.cluster_dump && root.IsMap() ? child(root, "items") : YAML::Node();
      if (items.IsDefined() && items.IsSequence()) {
        if (!std::all_of(items.begin(), items.end(), item_within_budget)) {
          reader.error(root, item_budget_error());
          continue;
        }
        collect_documents(reader, root, docs, 0);
        const auto at = items.Mark();
        for (const auto& list : options.item_lists) {
          if (items.size() == 0 && at.line == list.items_line && at.column == list.items_column) {
            collect_items(reader, list, docs);
          }
        }
        continue;
      }
      if (!within_node_budget(root, k_max_yaml_nodes, k_max_yaml_depth * 2)) {
        reader.error(root, fmt::format("the document is too large or too deep once YAML aliases are expanded "
                                       "(more than {} nodes or {} levels)",
                                       k_max_yaml_nodes, k_max_yaml_depth * 2));
        continue;
      }
      collect_documents(reader, root, docs, 0);
    }
    if (raw.empty() || std::all_of(raw.begin(), raw.end(), [](const YAML::Node& n) { return !present(n); })) {
      throw InputError(SourceLocation{source_name, 1, 1},
                       "the file is empty (a scenario needs at least a capsim/v1 Scenario document)");
    }
    if (!sets.empty()) {
      std::vector<DocumentRef> refs;
      refs.reserve(docs.size());
      for (const auto& d : docs) {
        refs.push_back(DocumentRef{d.kind, d.name, d.root});
      }
      apply_set_overrides(refs, sets, reader);
      // A --set may have replaced metadata.name or namespace: re-read them.
      for (auto& d : docs) {
        const auto md = child(d.root, "metadata");
        if (const auto ns = child(md, "namespace"); present(ns) && ns.IsScalar()) {
          d.namespace_ = ns.Scalar();
        }
      }
    }
    ScenarioParser parser(reader, source_name, options.cluster_dump, options.file_line);
    auto scenario = parser.parse(docs);
    throw_sorted(diagnostics, source_name);
    return scenario;
  } catch (const YAML::Exception& e) {
    // yaml-cpp accessors throw on shapes we did not anticipate; report, never crash.
    const auto line = e.mark.is_null() ? 0U : static_cast<std::uint32_t>(e.mark.line + 1);
    const auto col = e.mark.is_null() ? 0U : static_cast<std::uint32_t>(e.mark.column + 1);
    diagnostics.error(SourceLocation{source_name, line, col}, fmt::format("unexpected YAML structure: {}", e.msg));
    throw InputError(diagnostics.items());
  }
}

model::Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets)
{
  const std::string text = read_text_file(path, {}, k_max_document_bytes);
  return parse_scenario(text, path, sets);
}

} // namespace capsim::io
