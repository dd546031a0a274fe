#include "core/io/pod_template.hpp"

#include "core/base/quantity.hpp"
#include "core/base/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace capsim::io {

namespace {

const std::initializer_list<std::string_view> k_container_ignored = {
    "image", "command", "args", "workingDir", "env", "envFrom", "volumeMounts", "volumeDevices", "livenessProbe",
    "readinessProbe", "startupProbe", "lifecycle", "terminationMessagePath", "terminationMessagePolicy",
    "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty", "resizePolicy", "restartPolicyRules"};

// A container's requests (limits-only resources default to their limits, as the API server
// does) and whether it is a sidecar (an init container with restartPolicy: Always).
struct ContainerInfo
{
  model::Resources requests;
  bool sidecar = false;
  bool ok = true;
};

// requests plus, for every resource that only has a limit, the limit.
bool read_requirements(YamlReader& r, const YAML::Node& resources, const std::string& what, model::Resources& out)
{
  if (!present(resources)) {
    return true;
  }
  if (!r.check_fields(resources, what, {"requests", "limits"}, {"claims"})) {
    return false;
  }
  model::Resources requests;
  model::Resources limits;
  bool ok = r.resources(child(resources, "requests"), what + ".requests", requests);
  ok = r.resources(child(resources, "limits"), what + ".limits", limits) && ok;
  const auto requested = r.resource_ids(child(resources, "requests"));
  for (const auto id : r.resource_ids(child(resources, "limits"))) {
    if (std::find(requested.begin(), requested.end(), id) == requested.end()) {
      requests[id] = limits[id];
    }
  }
  for (std::size_t i = 0; i < model::k_max_resources; ++i) {
    if (requested.end() != std::find(requested.begin(), requested.end(), static_cast<model::ResourceId>(i))
        && limits.v[i] > 0 && requests.v[i] > limits.v[i]) {
      r.error(resources, fmt::format("'{}': the {} request ({}) is larger than its limit ({})", what,
                                     model::resource_name(static_cast<model::ResourceId>(i)), requests.v[i],
                                     limits.v[i]));
      ok = false;
    }
  }
  ok = ok && cap_requests(r, resources, requests, what);
  out = requests;
  return ok;
}

ContainerInfo read_container(YamlReader& r, const YAML::Node& c, const std::string& what, bool init,
                             bool host_network, std::vector<std::int32_t>& host_ports)
{
  ContainerInfo info;
  if (!r.check_fields(c, what, {"name", "resources", "ports", "restartPolicy"}, k_container_ignored,
                      Strictness::lenient)) {
    info.ok = false;
    return info;
  }
  info.ok = read_requirements(r, child(c, "resources"), what + ".resources", info.requests);
  if (const auto policy = child(c, "restartPolicy"); present(policy)) {
    if (!init) {
      r.error(policy, fmt::format("'{}.restartPolicy' is only allowed on init containers (sidecars)", what));
      info.ok = false;
    } else if (auto p = r.choice(policy, what + ".restartPolicy", {"Always"})) {
      info.sidecar = true;
    } else {
      info.ok = false;
    }
  }
  const YAML::Node ports = child(c, "ports");
  if (present(ports) && (!init || info.sidecar) && r.expect_sequence(ports, what + ".ports")) {
    for (const auto& p : ports) {
      const std::string pwhat = what + ".ports";
      if (!r.check_fields(p, pwhat, {"containerPort", "hostPort"}, {"name", "protocol", "hostIP"})) {
        continue;
      }
      std::optional<std::int64_t> host;
      if (const auto hp = child(p, "hostPort"); present(hp)) {
        host = r.integer(hp, pwhat + ".hostPort", 0, 65535);
      }
      std::optional<std::int64_t> container;
      if (const auto cp = child(p, "containerPort"); present(cp)) {
        container = r.integer(cp, pwhat + ".containerPort", 1, 65535);
      } else {
        r.error(p, fmt::format("'{}' entry needs a 'containerPort'", pwhat));
      }
      if (host_network && (!host || *host == 0) && container) {
        host = container;
      }
      if (host && *host > 0) {
        host_ports.push_back(static_cast<std::int32_t>(*host));
      }
    }
  }
  return info;
}

// Converts a NodeSelectorRequirement list (matchExpressions or matchFields) into requirements.
bool read_node_requirements(YamlReader& r, const YAML::Node& list, const std::string& what, bool fields,
                            std::vector<model::Requirement>& out)
{
  if (!present(list)) {
    return true;
  }
  if (!r.expect_sequence(list, what)) {
    return false;
  }
  bool ok = true;
  for (const auto& e : list) {
    if (!r.check_fields(e, what, {"key", "operator", "values"})) {
      ok = false;
      continue;
    }
    const YAML::Node key = child(e, "key");
    const YAML::Node op = child(e, "operator");
    if (!present(key) || !present(op)) {
      r.error(e, fmt::format("'{}' entry needs a 'key' and an 'operator'", what));
      ok = false;
      continue;
    }
    auto k = r.string(key, what + ".key");
    auto o = fields ? r.choice(op, what + ".operator", {"In", "NotIn"})
                    : r.choice(op, what + ".operator", {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"});
    if (!k || !o) {
      ok = false;
      continue;
    }
    if (k->empty()) {
      r.error(key, fmt::format("'{}.key' must not be empty", what));
      ok = false;
      continue;
    }
    if (fields && *k != "metadata.name") {
      r.error(key, fmt::format("'{}': matchFields only supports the key metadata.name (got '{}')", what, *k));
      ok = false;
      continue;
    }
    auto values = r.string_list(child(e, "values"), what + ".values");
    const auto oper = *model::parse_operator(*o);
    if ((oper == model::Operator::in || oper == model::Operator::not_in) && values.empty()) {
      r.error(e, fmt::format("'{}': operator {} needs at least one value", what, *o));
      ok = false;
      continue;
    }
    if ((oper == model::Operator::exists || oper == model::Operator::does_not_exist) && !values.empty()) {
      r.error(e, fmt::format("'{}': operator {} must not have values", what, *o));
      ok = false;
      continue;
    }
    if (oper == model::Operator::gt || oper == model::Operator::lt) {
      std::int64_t v = 0;
      const bool one = values.size() == 1;
      const auto* end = one ? values[0].data() + values[0].size() : nullptr;
      if (!one || std::from_chars(values[0].data(), end, v).ptr != end || values[0].empty()) {
        r.error(e, fmt::format("'{}': operator {} needs exactly one integer value", what, *o));
        ok = false;
        continue;
      }
    }
    out.push_back(model::Requirement::make(fields ? std::string(model::labels::k_hostname) : *k, oper, values));
  }
  return ok;
}

std::optional<model::NodeSelectorTerm> read_term(YamlReader& r, const YAML::Node& term, const std::string& what)
{
  const std::size_t errors_before = r.diagnostics().size();
  if (!r.check_fields(term, what, {"matchExpressions", "matchFields"})) {
    return std::nullopt;
  }
  model::NodeSelectorTerm out;
  bool ok = read_node_requirements(r, child(term, "matchExpressions"), what + ".matchExpressions", false,
                                   out.requirements);
  ok = read_node_requirements(r, child(term, "matchFields"), what + ".matchFields", true, out.requirements) && ok;
  if (!ok || r.diagnostics().size() != errors_before) {
    return std::nullopt;
  }
  return out;
}

void read_node_affinity(YamlReader& r, const YAML::Node& na, const std::string& what, model::PodSpec& spec)
{
  if (!r.check_fields(na, what,
                      {"requiredDuringSchedulingIgnoredDuringExecution",
                       "preferredDuringSchedulingIgnoredDuringExecution"})) {
    return;
  }
  if (const auto req = child(na, "requiredDuringSchedulingIgnoredDuringExecution"); present(req)) {
    const std::string rwhat = what + ".requiredDuringSchedulingIgnoredDuringExecution";
    if (r.check_fields(req, rwhat, {"nodeSelectorTerms"})) {
      const auto terms = child(req, "nodeSelectorTerms");
      if (!present(terms) || !terms.IsSequence() || terms.size() == 0) {
        r.error(req, fmt::format("'{}' needs at least one entry in 'nodeSelectorTerms'", rwhat));
      } else {
        bool any_empty = false;
        for (const auto& t : terms) {
          auto term = read_term(r, t, rwhat + ".nodeSelectorTerms");
          if (term && term->requirements.empty()) {
            any_empty = true; // an empty term matches no node: it never helps the OR
          } else if (term) {
            spec.required_node_affinity.push_back(std::move(*term));
          }
        }
        if (any_empty && spec.required_node_affinity.empty()) {
          r.error(terms, fmt::format("'{}': every nodeSelectorTerm is empty, so the pod matches no node", rwhat));
        }
      }
    }
  }
  if (const auto pref = child(na, "preferredDuringSchedulingIgnoredDuringExecution"); present(pref)) {
    const std::string pwhat = what + ".preferredDuringSchedulingIgnoredDuringExecution";
    if (r.expect_sequence(pref, pwhat)) {
      for (const auto& p : pref) {
        if (!r.check_fields(p, pwhat, {"weight", "preference"})) {
          continue;
        }
        const auto w = child(p, "weight");
        const auto pr = child(p, "preference");
        if (!present(w) || !present(pr)) {
          r.error(p, fmt::format("'{}' entry needs a 'weight' and a 'preference'", pwhat));
          continue;
        }
        auto weight = r.integer(w, pwhat + ".weight", 1, 100);
        auto term = read_term(r, pr, pwhat + ".preference");
        if (weight && term) {
          spec.preferred_node_affinity.push_back({static_cast<std::int32_t>(*weight), std::move(*term)});
        }
      }
    }
  }
}

// Adds `key In/NotIn [pod's value]` for matchLabelKeys/mismatchLabelKeys, as the API server
// and scheduler do, so engines only need the selector.
void merge_label_keys(model::LabelSelector& selector, const std::vector<std::string>& keys, const model::Labels& labels,
                      bool mismatch)
{
  for (const auto& k : keys) {
    auto it = labels.find(k);
    if (it == labels.end()) {
      continue;
    }
    selector.match_expressions.push_back(
        {k, mismatch ? model::Operator::not_in : model::Operator::in, {it->second}});
  }
}

using NamespaceLabels = std::map<std::string, model::Labels>;

std::optional<model::PodAffinityTerm> read_pod_affinity_term(YamlReader& r, const YAML::Node& t, const std::string& what,
                                                             const model::Labels& labels,
                                                             const NamespaceLabels* namespaces)
{
  if (!r.check_fields(t, what,
                      {"labelSelector", "namespaces", "namespaceSelector", "topologyKey", "matchLabelKeys",
                       "mismatchLabelKeys"})) {
    return std::nullopt;
  }
  model::PodAffinityTerm term;
  bool ok = true;
  const auto tk = child(t, "topologyKey");
  if (!present(tk)) {
    r.error(t, fmt::format("'{}' entry needs a 'topologyKey'", what));
    ok = false;
  } else if (auto k = r.string(tk, what + ".topologyKey"); k && !k->empty()) {
    term.topology_key = *k;
  } else {
    if (k) {
      r.error(tk, fmt::format("'{}.topologyKey' must not be empty", what));
    }
    ok = false;
  }
  term.selector = r.label_selector(child(t, "labelSelector"), what + ".labelSelector");
  term.namespaces = r.string_list(child(t, "namespaces"), what + ".namespaces");
  term.match_label_keys = r.string_list(child(t, "matchLabelKeys"), what + ".matchLabelKeys");
  const auto mismatch = r.string_list(child(t, "mismatchLabelKeys"), what + ".mismatchLabelKeys");
  if (term.selector) {
    merge_label_keys(*term.selector, term.match_label_keys, labels, false);
    merge_label_keys(*term.selector, mismatch, labels, true);
  }
  if (const auto ns = child(t, "namespaceSelector"); present(ns)) {
    auto sel = r.label_selector(ns, what + ".namespaceSelector");
    if (sel && sel->match_labels.empty() && sel->match_expressions.empty()) {
      term.all_namespaces = true;
    } else if (sel) {
      // Selectors on the name label every namespace carries name their namespaces directly;
      // others pick among the stream's namespaces (when the caller knows them).
      constexpr std::string_view k_name_label = "kubernetes.io/metadata.name";
      bool supported = true;
      for (const auto& [k, v] : sel->match_labels) {
        if (k == k_name_label) {
          term.namespaces.push_back(v);
        } else {
          supported = false;
        }
      }
      for (const auto& e : sel->match_expressions) {
        if (e.key == k_name_label && e.op == model::Operator::in) {
          term.namespaces.insert(term.namespaces.end(), e.values.begin(), e.values.end());
        } else {
          supported = false;
        }
      }
      if (!supported && namespaces != nullptr) {
        // None selected is kept as the one name "", which no pod's namespace equals (an empty
        // list would mean the pod's own namespace).
        term.namespaces = r.string_list(child(t, "namespaces"), what + ".namespaces");
        for (const auto& [name, ns_labels] : *namespaces) {
          if (sel->matches(ns_labels)) {
            term.namespaces.push_back(name);
          }
        }
        if (term.namespaces.empty()) {
          term.namespaces.emplace_back();
        }
      } else if (!supported) {
        r.error(ns, fmt::format("'{}.namespaceSelector': only {{}} (all namespaces) and selectors on "
                                "kubernetes.io/metadata.name (In / matchLabels) are supported",
                                what));
        ok = false;
      }
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  return term;
}

void read_pod_affinity(YamlReader& r, const YAML::Node& pa, const std::string& what, const model::Labels& labels,
                       const NamespaceLabels* namespaces, std::vector<model::PodAffinityTerm>& required,
                       std::vector<model::WeightedPodAffinityTerm>& preferred)
{
  if (!r.check_fields(pa, what,
                      {"requiredDuringSchedulingIgnoredDuringExecution",
                       "preferredDuringSchedulingIgnoredDuringExecution"})) {
    return;
  }
  if (const auto req = child(pa, "requiredDuringSchedulingIgnoredDuringExecution"); present(req)) {
    const std::string rwhat = what + ".requiredDuringSchedulingIgnoredDuringExecution";
    if (r.expect_sequence(req, rwhat)) {
      for (const auto& t : req) {
        if (auto term = read_pod_affinity_term(r, t, rwhat, labels, namespaces)) {
          required.push_back(std::move(*term));
        }
      }
    }
  }
  if (const auto pref = child(pa, "preferredDuringSchedulingIgnoredDuringExecution"); present(pref)) {
    const std::string pwhat = what + ".preferredDuringSchedulingIgnoredDuringExecution";
    if (r.expect_sequence(pref, pwhat)) {
      for (const auto& p : pref) {
        if (!r.check_fields(p, pwhat, {"weight", "podAffinityTerm"})) {
          continue;
        }
        const auto w = child(p, "weight");
        const auto t = child(p, "podAffinityTerm");
        if (!present(w) || !present(t)) {
          r.error(p, fmt::format("'{}' entry needs a 'weight' and a 'podAffinityTerm'", pwhat));
          continue;
        }
        auto weight = r.integer(w, pwhat + ".weight", 1, 100);
        auto term = read_pod_affinity_term(r, t, pwhat + ".podAffinityTerm", labels, namespaces);
        if (weight && term) {
          preferred.push_back({static_cast<std::int32_t>(*weight), std::move(*term)});
        }
      }
    }
  }
}

void read_affinity(YamlReader& r, const YAML::Node& a, const std::string& what, const NamespaceLabels* namespaces,
                   model::PodSpec& spec)
{
  if (!r.check_fields(a, what, {"nodeAffinity", "podAffinity", "podAntiAffinity"})) {
    return;
  }
  if (const auto na = child(a, "nodeAffinity"); present(na)) {
    read_node_affinity(r, na, what + ".nodeAffinity", spec);
  }
  if (const auto pa = child(a, "podAffinity"); present(pa)) {
    read_pod_affinity(r, pa, what + ".podAffinity", spec.labels, namespaces, spec.pod_affinity_required,
                      spec.pod_affinity_preferred);
  }
  if (const auto paa = child(a, "podAntiAffinity"); present(paa)) {
    read_pod_affinity(r, paa, what + ".podAntiAffinity", spec.labels, namespaces, spec.pod_anti_affinity_required,
                      spec.pod_anti_affinity_preferred);
  }
}

void read_spread(YamlReader& r, const YAML::Node& list, const std::string& what, model::PodSpec& spec)
{
  if (!r.expect_sequence(list, what)) {
    return;
  }
  for (const auto& c : list) {
    if (!r.check_fields(c, what,
                        {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
                         "matchLabelKeys", "nodeAffinityPolicy", "nodeTaintsPolicy"})) {
      continue;
    }
    model::TopologySpreadConstraint t;
    bool ok = true;
    const auto skew = child(c, "maxSkew");
    const auto key = child(c, "topologyKey");
    const auto when = child(c, "whenUnsatisfiable");
    if (!present(skew) || !present(key) || !present(when)) {
      r.error(c, fmt::format("'{}' entry needs 'maxSkew', 'topologyKey' and 'whenUnsatisfiable'", what));
      continue;
    }
    if (auto s = r.integer(skew, what + ".maxSkew", 1, 1'000'000)) {
      t.max_skew = static_cast<std::int32_t>(*s);
    } else {
      ok = false;
    }
    if (auto k = r.string(key, what + ".topologyKey"); k && !k->empty()) {
      t.topology_key = *k;
    } else {
      if (k) {
        r.error(key, fmt::format("'{}.topologyKey' must not be empty", what));
      }
      ok = false;
    }
    if (auto w = r.choice(when, what + ".whenUnsatisfiable", {"DoNotSchedule", "ScheduleAnyway"})) {
      t.when_unsatisfiable = *w == "DoNotSchedule" ? model::UnsatisfiableAction::do_not_schedule
                                                   : model::UnsatisfiableAction::schedule_anyway;
    } else {
      ok = false;
    }
    t.selector = r.label_selector(child(c, "labelSelector"), what + ".labelSelector");
    if (const auto md = child(c, "minDomains"); present(md)) {
      if (auto m = r.integer(md, what + ".minDomains", 1, 1'000'000)) {
        t.min_domains = static_cast<std::int32_t>(*m);
        if (t.when_unsatisfiable != model::UnsatisfiableAction::do_not_schedule) {
          r.error(md, fmt::format("'{}.minDomains' is only allowed with whenUnsatisfiable: DoNotSchedule", what));
          ok = false;
        }
      } else {
        ok = false;
      }
    }
    t.match_label_keys = r.string_list(child(c, "matchLabelKeys"), what + ".matchLabelKeys");
    if (t.selector) {
      merge_label_keys(*t.selector, t.match_label_keys, spec.labels, false);
    }
    if (const auto p = child(c, "nodeAffinityPolicy"); present(p)) {
      if (auto v = r.choice(p, what + ".nodeAffinityPolicy", {"Honor", "Ignore"})) {
        t.node_affinity_policy_honor = *v == "Honor";
      } else {
        ok = false;
      }
    }
    if (const auto p = child(c, "nodeTaintsPolicy"); present(p)) {
      if (auto v = r.choice(p, what + ".nodeTaintsPolicy", {"Honor", "Ignore"})) {
        t.node_taints_policy_honor = *v == "Honor";
      } else {
        ok = false;
      }
    }
    if (ok) {
      spec.topology_spread.push_back(std::move(t));
    }
  }
}

void read_annotations(YamlReader& r, const YAML::Node& metadata, const std::string& what, PodTemplate& out)
{
  auto& spec = out.spec;
  const YAML::Node annotations = child(metadata, "annotations");
  const auto at = [&](std::string_view key) {
    const auto node = child(annotations, key);
    return present(node) ? node : annotations;
  };
  // Karpenter's IsDoNotDisruptActive: "true" protects for good and a positive Go duration that
  // long after the pod starts; any other value is as if the annotation were absent (Karpenter
  // publishes an event and goes on), so a dump carrying one replays as the cluster runs.
  if (auto it = spec.annotations.find(std::string(model::labels::k_do_not_disrupt)); it != spec.annotations.end()) {
    if (it->second == "true") {
      spec.do_not_disrupt = k_never;
    } else if (auto d = parse_go_duration(it->second); d && *d > 0) {
      spec.do_not_disrupt = *d;
    } else {
      spec.do_not_disrupt = 0;
    }
  }
  if (auto it = spec.annotations.find("cluster-autoscaler.kubernetes.io/safe-to-evict"); it != spec.annotations.end()) {
    spec.safe_to_evict_false = it->second == "false";
    spec.safe_to_evict_true = it->second == "true";
  }
  if (auto it = spec.annotations.find("controller.kubernetes.io/pod-deletion-cost"); it != spec.annotations.end()) {
    std::int32_t cost = 0;
    const auto& v = it->second;
    const auto* end = v.data() + v.size();
    if (v.empty() || std::from_chars(v.data(), end, cost).ptr != end) {
      r.error(at("controller.kubernetes.io/pod-deletion-cost"),
              fmt::format("{}: annotation controller.kubernetes.io/pod-deletion-cost must be a 32-bit integer "
                          "(got '{}')",
                          what, v));
    } else {
      spec.deletion_cost = cost;
    }
  }
  if (auto it = spec.annotations.find("capsim.io/runtime"); it != spec.annotations.end()) {
    if (auto d = parse_duration(it->second)) {
      out.runtime = *d;
    } else {
      r.error(at("capsim.io/runtime"),
              fmt::format("{}: annotation capsim.io/runtime: {}", what, d.error()));
    }
  }
  out.mirror = spec.annotations.count("kubernetes.io/config.mirror") > 0;
}

void read_owner(YamlReader& r, const YAML::Node& metadata, const std::string& what, PodTemplate& out)
{
  const auto refs = child(metadata, "ownerReferences");
  if (!present(refs) || !r.expect_sequence(refs, what + ".metadata.ownerReferences")) {
    return;
  }
  const auto owner = controller_reference(metadata);
  out.owner_kind = owner.kind;
  out.owner_name = owner.name;
  const std::string& kind = owner.kind;
  if (kind == "ReplicaSet" || kind == "ReplicationController") {
    out.spec.owner = model::OwnerKind::replica_set;
  } else if (kind == "StatefulSet") {
    out.spec.owner = model::OwnerKind::stateful_set;
  } else if (kind == "Job") {
    out.spec.owner = model::OwnerKind::job;
  } else if (kind == "DaemonSet") {
    out.spec.owner = model::OwnerKind::daemon_set;
    out.daemon_owned = true;
  } else if (kind == "Node") {
    out.mirror = true;
  }
}

// A volume backed by a claim (persistentVolumeClaim or ephemeral) into `claims`.
void read_claim_volume(YamlReader& r, const YAML::Node& v, const std::string& what, std::vector<PodClaimRef>& claims)
{
  const auto name = child(v, "name");
  const std::string volume = present(name) && name.IsScalar() ? name.Scalar() : "";
  if (const auto pvc = child(v, "persistentVolumeClaim"); present(pvc)) {
    const std::string pw = what + ".persistentVolumeClaim";
    if (r.check_fields(pvc, pw, {"claimName"}, {"readOnly"})) {
      const auto cn = child(pvc, "claimName");
      if (!present(cn)) {
        r.error(pvc, fmt::format("'{}' needs a 'claimName'", pw));
      } else if (auto c = r.string(cn, pw + ".claimName"); c && c->empty()) {
        r.error(cn, fmt::format("'{}.claimName' must not be empty", pw));
      } else if (c) {
        PodClaimRef ref;
        ref.volume = volume;
        ref.claim_name = *c;
        ref.at = r.location(cn);
        claims.push_back(std::move(ref));
      }
    }
  }
  if (const auto eph = child(v, "ephemeral"); present(eph)) {
    const std::string ew = what + ".ephemeral";
    if (!r.check_fields(eph, ew, {"volumeClaimTemplate"})) {
      return;
    }
    const auto tmpl = child(eph, "volumeClaimTemplate");
    const std::string tw = ew + ".volumeClaimTemplate";
    if (!present(tmpl)) {
      r.error(eph, fmt::format("'{}' needs a 'volumeClaimTemplate'", ew));
      return;
    }
    if (!r.check_fields(tmpl, tw, {"spec"}, {"metadata"})) {
      return;
    }
    if (volume.empty()) {
      r.error(v, fmt::format("'{}' entry with an ephemeral volume needs a 'name' (its claim is <pod>-<name>)", what));
      return;
    }
    PodClaimRef ref;
    ref.volume = volume;
    ref.ephemeral = true;
    ref.claim.name = volume;
    ref.at = r.location(v);
    read_claim_template_spec(r, child(tmpl, "spec"), tw + ".spec", ref.claim);
    claims.push_back(std::move(ref));
  }
}

// The RuntimeClass admission plugin refuses an overhead that no RuntimeClass defines.
void refuse_classless_overhead(YamlReader& r, const YAML::Node& overhead_node, const std::string& what,
                               const PodContext& context, const std::optional<model::Resources>& overhead)
{
  if (overhead && !context.admitted) {
    r.error(overhead_node, fmt::format("{}.overhead is set without a runtimeClassName (the API server refuses the "
                                       "pod: only a RuntimeClass's overhead.podFixed may set it)",
                                       what));
  }
}

// What the API server's RuntimeClass admission plugin does to a pod naming `name_node`'s class:
// the class's overhead replaces a missing spec.overhead (a different one is refused), its
// nodeSelector joins the pod's (a conflicting value is refused) and its tolerations are added.
// A class that does not exist refuses the pod, unless the pods were admitted already (dumps).
void apply_runtime_class(YamlReader& r, const YAML::Node& name_node, const YAML::Node& overhead_node,
                         const std::string& what, const PodContext& context, std::optional<model::Resources>& overhead,
                         model::PodSpec& spec)
{
  const auto name = r.string(name_node, what + ".runtimeClassName");
  if (!name || name->empty()) {
    refuse_classless_overhead(r, overhead_node, what, context, overhead);
    return;
  }
  const RuntimeClass* rc = nullptr;
  if (context.runtime_classes != nullptr) {
    if (const auto it = context.runtime_classes->find(*name); it != context.runtime_classes->end()) {
      rc = &it->second;
    }
  }
  if (rc == nullptr) {
    if (!context.admitted) {
      std::vector<std::string> names;
      if (context.runtime_classes != nullptr) {
        for (const auto& [n, c] : *context.runtime_classes) {
          names.push_back(n);
        }
      }
      r.error(name_node, fmt::format("{}: unknown runtimeClassName '{}'{} (add a node.k8s.io/v1 RuntimeClass to the "
                                     "scenario)",
                                     what, *name, did_you_mean(*name, names)));
    }
    return;
  }
  if (rc->overhead) {
    if (overhead && *overhead != *rc->overhead) {
      r.error(overhead_node, fmt::format("{}.overhead differs from RuntimeClass '{}''s overhead.podFixed (the API "
                                         "server refuses the pod)",
                                         what, *name));
    }
    overhead = rc->overhead;
  } else if (overhead && !context.admitted) {
    r.error(overhead_node, fmt::format("{}.overhead is set but RuntimeClass '{}' defines none (the API server "
                                       "refuses the pod)",
                                       what, *name));
  }
  for (const auto& [key, value] : rc->node_selector) {
    const auto [it, inserted] = spec.node_selector.emplace(key, value);
    if (!inserted && it->second != value) {
      r.error(name_node, fmt::format("{}: RuntimeClass '{}' selects nodes with {}={} but the pod's nodeSelector has "
                                     "{}={} (the API server refuses the pod)",
                                     what, *name, key, value, key, it->second));
    }
  }
  for (const auto& t : rc->tolerations) {
    if (std::find(spec.tolerations.begin(), spec.tolerations.end(), t) == spec.tolerations.end()) {
      spec.tolerations.push_back(t);
    }
  }
}

} // namespace

bool cap_requests(YamlReader& r, const YAML::Node& at, const model::Resources& res, const std::string& what)
{
  for (std::size_t i = 0; i < model::k_max_resources; ++i) {
    if (res.v[i] > k_max_request) {
      r.error(at, fmt::format("'{}': {} request is absurdly large (at most {})", what,
                              model::resource_name(static_cast<model::ResourceId>(i)), k_max_request));
      return false;
    }
  }
  return true;
}

OwnerRef controller_reference(const YAML::Node& metadata)
{
  OwnerRef out;
  const auto refs = child(metadata, "ownerReferences");
  if (!present(refs) || !refs.IsSequence()) {
    return out;
  }
  for (const auto& ref : refs) {
    if (!ref.IsMap()) {
      continue;
    }
    const auto k = child(ref, "kind");
    const auto controller = child(ref, "controller");
    const bool is_controller = present(controller) && controller.IsScalar() && controller.Scalar() == "true";
    if (present(k) && k.IsScalar() && (out.kind.empty() || is_controller)) {
      out.kind = k.Scalar();
      const auto name = child(ref, "name");
      out.name = present(name) && name.IsScalar() ? name.Scalar() : "";
    }
  }
  return out;
}

std::optional<model::NodeSelectorTerm> read_node_selector_term(YamlReader& reader, const YAML::Node& term,
                                                               const std::string& what)
{
  return read_term(reader, term, what);
}

void check_metadata(YamlReader& reader, const YAML::Node& metadata, const std::string& what)
{
  if (!present(metadata)) {
    return;
  }
  reader.check_fields(metadata, what + ".metadata", {"name", "namespace", "labels", "annotations", "ownerReferences"},
                      {"generateName", "uid", "resourceVersion", "generation", "creationTimestamp",
                       "deletionTimestamp", "deletionGracePeriodSeconds", "finalizers", "managedFields", "selfLink",
                       "clusterName"},
                      Strictness::lenient);
}

PodTemplate read_pod_template(YamlReader& r, const YAML::Node& parent, const YAML::Node& metadata,
                              const YAML::Node& spec_node,
                              const std::string& what, const PodContext& context)
{
  PodTemplate out;
  auto& spec = out.spec;
  spec.namespace_ = context.namespace_;
  spec.owner = context.owner;
  if (present(metadata)) {
    check_metadata(r, metadata, what);
    if (metadata.IsMap()) {
      if (const auto n = child(metadata, "name"); present(n)) {
        out.name = r.string(n, what + ".metadata.name").value_or("");
      }
      if (const auto ns = child(metadata, "namespace"); present(ns)) {
        spec.namespace_ = r.string(ns, what + ".metadata.namespace").value_or(context.namespace_);
      }
      spec.labels = r.string_map(child(metadata, "labels"), what + ".metadata.labels");
      spec.annotations = r.string_map(child(metadata, "annotations"), what + ".metadata.annotations");
      read_annotations(r, metadata, what, out);
      if (context.owner == model::OwnerKind::none) {
        read_owner(r, metadata, what, out);
      }
    }
  }
  if (!present(spec_node)) {
    const bool metadata_placed = present(metadata) && r.location(metadata).line > 0;
    r.error(metadata_placed ? metadata : parent, fmt::format("{}: the pod needs a 'spec' with containers", what));
    return out;
  }
  if (!r.check_fields(spec_node, what,
                      {"containers", "initContainers", "overhead", "nodeSelector", "affinity", "tolerations",
                       "topologySpreadConstraints", "priority", "priorityClassName", "volumes", "hostNetwork",
                       "terminationGracePeriodSeconds", "nodeName", "resources", "runtimeClassName"},
                      {"activeDeadlineSeconds", "automountServiceAccountToken", "dnsConfig", "dnsPolicy",
                       "enableServiceLinks", "ephemeralContainers", "hostAliases", "hostIPC", "hostPID", "hostUsers",
                       "hostname", "imagePullSecrets", "os", "preemptionPolicy", "readinessGates", "resourceClaims",
                       "restartPolicy", "schedulerName", "schedulingGates", "securityContext",
                       "serviceAccount", "serviceAccountName", "setHostnameAsFQDN", "shareProcessNamespace",
                       "subdomain"},
                      Strictness::lenient)) {
    return out;
  }
  bool host_network = false;
  if (const auto hn = child(spec_node, "hostNetwork"); present(hn)) {
    host_network = r.boolean(hn, what + ".hostNetwork").value_or(false);
  }

  // Effective requests, as resourcehelper.PodRequests computes them.
  model::Resources sum;
  const auto containers = child(spec_node, "containers");
  if (!present(containers) || !containers.IsSequence() || containers.size() == 0) {
    r.error(present(containers) ? containers : spec_node,
            fmt::format("{}: 'containers' must list at least one container", what));
  } else {
    std::size_t index = 0;
    for (const auto& c : containers) {
      const auto info = read_container(r, c, fmt::format("{}.containers[{}]", what, index), false, host_network,
                                       spec.host_ports);
      sum += info.requests;
      ++index;
    }
  }
  model::Resources init_max;
  if (const auto inits = child(spec_node, "initContainers"); present(inits) && r.expect_sequence(inits, what + ".initContainers")) {
    model::Resources sidecars;
    std::size_t index = 0;
    for (const auto& c : inits) {
      const auto info = read_container(r, c, fmt::format("{}.initContainers[{}]", what, index), true, host_network,
                                       spec.host_ports);
      if (info.sidecar) {
        sum += info.requests;
        sidecars += info.requests;
        init_max = model::Resources::max_of(init_max, sidecars);
      } else {
        init_max = model::Resources::max_of(init_max, info.requests + sidecars);
      }
      ++index;
    }
  }
  spec.requests = model::Resources::max_of(sum, init_max);
  if (const auto pod_resources = child(spec_node, "resources"); present(pod_resources)) {
    // Pod-level resources (KEP-2837) replace the container aggregate for what they set.
    model::Resources pod_level;
    if (read_requirements(r, pod_resources, what + ".resources", pod_level)) {
      std::vector<model::ResourceId> set_ids = r.resource_ids(child(pod_resources, "requests"));
      for (const auto id : r.resource_ids(child(pod_resources, "limits"))) {
        set_ids.push_back(id);
      }
      for (const auto id : set_ids) {
        spec.requests[id] = pod_level[id];
      }
    }
  }
  std::optional<model::Resources> overhead;
  if (const auto node = child(spec_node, "overhead"); present(node)) {
    model::Resources o;
    if (r.resources(node, what + ".overhead", o) && cap_requests(r, node, o, what + ".overhead")) {
      overhead = o;
    }
  }
  spec.node_selector = r.string_map(child(spec_node, "nodeSelector"), what + ".nodeSelector");
  spec.tolerations = r.tolerations(child(spec_node, "tolerations"), what + ".tolerations");
  if (const auto rc = child(spec_node, "runtimeClassName"); present(rc)) {
    apply_runtime_class(r, rc, child(spec_node, "overhead"), what, context, overhead, spec);
  } else {
    refuse_classless_overhead(r, child(spec_node, "overhead"), what, context, overhead);
  }
  if (overhead) {
    spec.requests += *overhead;
  }

  if (const auto a = child(spec_node, "affinity"); present(a)) {
    read_affinity(r, a, what + ".affinity", context.namespaces, spec);
  }
  if (const auto tsc = child(spec_node, "topologySpreadConstraints"); present(tsc)) {
    read_spread(r, tsc, what + ".topologySpreadConstraints", spec);
  }

  // Priority: an explicit spec.priority wins (the API server resolved it), else the class.
  const auto prio = child(spec_node, "priority");
  const auto prio_class = child(spec_node, "priorityClassName");
  if (present(prio)) {
    spec.priority = static_cast<std::int32_t>(
        r.integer(prio, what + ".priority", -2147483648LL, 2147483647LL).value_or(0));
  } else if (present(prio_class)) {
    const auto name = r.string(prio_class, what + ".priorityClassName").value_or("");
    if (name == "system-cluster-critical") {
      spec.priority = k_system_cluster_critical;
    } else if (name == "system-node-critical") {
      spec.priority = k_system_node_critical;
    } else if (context.priority_classes != nullptr && context.priority_classes->count(name) > 0) {
      spec.priority = context.priority_classes->at(name);
    } else if (!context.admitted && !name.empty()) {
      std::vector<std::string> names{"system-cluster-critical", "system-node-critical"};
      if (context.priority_classes != nullptr) {
        for (const auto& [n, v] : *context.priority_classes) {
          names.push_back(n);
        }
      }
      r.error(prio_class, fmt::format("{}: unknown priorityClassName '{}'{} (add a scheduling.k8s.io/v1 "
                                      "PriorityClass to the scenario)",
                                      what, name, did_you_mean(name, names)));
    }
  } else if (context.default_priority) {
    spec.priority = *context.default_priority;
  }

  if (const auto vols = child(spec_node, "volumes"); present(vols) && r.expect_sequence(vols, what + ".volumes")) {
    for (const auto& v : vols) {
      if (!v.IsMap()) {
        continue;
      }
      read_claim_volume(r, v, what + ".volumes", out.claims);
      if (present(child(v, "hostPath"))) {
        spec.has_local_storage = true;
      }
      if (const auto ed = child(v, "emptyDir"); present(ed)) {
        const auto medium = child(ed, "medium");
        if (!(present(medium) && medium.IsScalar() && medium.Scalar() == "Memory")) {
          spec.has_local_storage = true;
        }
      }
    }
  }
  if (const auto tgp = child(spec_node, "terminationGracePeriodSeconds"); present(tgp)) {
    if (auto s = r.integer(tgp, what + ".terminationGracePeriodSeconds", 0, 10LL * 365 * 24 * 3600)) {
      spec.termination_grace_period = *s * k_second;
    }
  }
  if (const auto nn = child(spec_node, "nodeName"); present(nn)) {
    out.node_name = r.string(nn, what + ".nodeName").value_or("");
  }
  std::sort(spec.host_ports.begin(), spec.host_ports.end());
  return out;
}

} // namespace capsim::io
