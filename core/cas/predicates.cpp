#include "core/cas/predicates.hpp"

#include "core/scheduling/filters.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace capsim::cas {

namespace {

const std::string* label_value(const cluster::NodeState& node, const std::string& key)
{
  return scheduling::node_label(node, key);
}

const std::string& pod_namespace(const model::Pod& pod)
{
  static const std::string k_default = "default";
  return pod.spec ? pod.spec->namespace_ : k_default;
}

const model::Labels& pod_labels(const model::Pod& pod)
{
  static const model::Labels k_empty;
  return pod.spec ? pod.spec->labels : k_empty;
}

// Whether `pod` is selected by a pod (anti-)affinity term owned by a pod in `owner_ns`.
bool term_matches(const model::PodAffinityTerm& term, const std::string& owner_ns, const model::Pod& pod)
{
  if (!term.selector) {
    return false;
  }
  const auto& ns = pod_namespace(pod);
  if (!term.all_namespaces) {
    if (term.namespaces.empty()) {
      if (ns != owner_ns) {
        return false;
      }
    } else if (std::find(term.namespaces.begin(), term.namespaces.end(), ns) == term.namespaces.end()) {
      return false;
    }
  }
  return term.selector->matches(pod_labels(pod));
}

bool resources_fit(const SnapNode& node, const model::Pod& pod)
{
  return scheduling::fits_resources(pod.requests, node.state->allocatable, node.requested);
}

bool host_ports_free(const SnapNode& node, const model::Pod& pod)
{
  if (!pod.spec || pod.spec->host_ports.empty()) {
    return true;
  }
  std::vector<std::int32_t> used;
  for (const auto* other : node.pods) {
    if (other->spec) {
      used.insert(used.end(), other->spec->host_ports.begin(), other->spec->host_ports.end());
    }
  }
  return scheduling::ports_free(pod.spec->host_ports, used);
}

// The constraint's selector with matchLabelKeys merged in from the incoming pod's labels.
std::optional<model::LabelSelector> spread_selector(const model::TopologySpreadConstraint& c, const model::Pod& pod)
{
  if (!c.selector) {
    return std::nullopt;
  }
  model::LabelSelector s = *c.selector;
  for (const auto& key : c.match_label_keys) {
    auto it = pod_labels(pod).find(key);
    if (it != pod_labels(pod).end()) {
      s.match_labels[key] = it->second;
    }
  }
  return s;
}

bool topology_spread_ok(const Snapshot& snapshot, std::size_t node, const model::Pod& pod)
{
  const auto& spec = *pod.spec;
  const auto& candidate = snapshot.node(node);
  for (const auto& c : spec.topology_spread) {
    if (c.when_unsatisfiable != model::UnsatisfiableAction::do_not_schedule) {
      continue;
    }
    const std::string* domain = label_value(*candidate.state, c.topology_key);
    if (domain == nullptr) {
      return false; // the node lacks the topology key
    }
    const auto selector = spread_selector(c, pod);
    const auto& counts = snapshot.spread_counts(spec, c, selector).counts;
    std::int64_t min_count = std::numeric_limits<std::int64_t>::max();
    for (const auto& [d, count] : counts) {
      min_count = std::min(min_count, count);
    }
    if (counts.empty() || (c.min_domains && static_cast<std::int64_t>(counts.size()) < *c.min_domains)) {
      min_count = 0;
    }
    const std::int64_t self = selector && selector->matches(pod_labels(pod)) ? 1 : 0;
    auto it = counts.find(*domain);
    const std::int64_t here = it == counts.end() ? 0 : it->second;
    if (here + self - min_count > c.max_skew) {
      return false;
    }
  }
  return true;
}

Filter inter_pod_affinity(const Snapshot& snapshot, std::size_t node, const model::Pod& pod)
{
  const auto& spec = *pod.spec;
  const auto& target = *snapshot.node(node).state;
  const auto& ns = pod_namespace(pod);
  // The incoming pod's anti-affinity against pods already in the node's domain.
  for (const auto& term : spec.pod_anti_affinity_required) {
    const std::string* domain = label_value(target, term.topology_key);
    if (domain == nullptr) {
      continue;
    }
    for (const auto& n : snapshot.nodes()) {
      if (n.removed) {
        continue;
      }
      const std::string* value = label_value(*n.state, term.topology_key);
      if (value == nullptr || *value != *domain) {
        continue;
      }
      for (const auto* p : n.pods) {
        if (term_matches(term, ns, *p)) {
          return Filter::pod_anti_affinity;
        }
      }
    }
  }
  // Existing pods' anti-affinity against the incoming pod (the symmetric check).
  if (snapshot.anti_affinity_pods() > 0) {
    for (const auto& n : snapshot.nodes()) {
      if (n.removed) {
        continue;
      }
      for (const auto* p : n.pods) {
        if (!p->spec || p->spec->pod_anti_affinity_required.empty()) {
          continue;
        }
        for (const auto& term : p->spec->pod_anti_affinity_required) {
          const std::string* mine = label_value(target, term.topology_key);
          const std::string* theirs = label_value(*n.state, term.topology_key);
          if (mine != nullptr && theirs != nullptr && *mine == *theirs
              && term_matches(term, pod_namespace(*p), pod)) {
            return Filter::pod_anti_affinity;
          }
        }
      }
    }
  }
  // The incoming pod's required affinity: a matching pod in the node's domain, or (for the
  // first pod of a group) no matching pod anywhere and the pod matches its own term.
  for (const auto& term : spec.pod_affinity_required) {
    const std::string* domain = label_value(target, term.topology_key);
    if (domain == nullptr) {
      return Filter::pod_affinity;
    }
    bool in_domain = false;
    bool anywhere = false;
    for (const auto& n : snapshot.nodes()) {
      if (n.removed) {
        continue;
      }
      const std::string* value = label_value(*n.state, term.topology_key);
      for (const auto* p : n.pods) {
        if (term_matches(term, ns, *p)) {
          anywhere = true;
          if (value != nullptr && *value == *domain) {
            in_domain = true;
          }
        }
      }
      if (in_domain) {
        break;
      }
    }
    if (!in_domain && (anywhere || !term_matches(term, ns, pod))) {
      return Filter::pod_affinity;
    }
  }
  return Filter::none;
}

} // namespace

std::string_view to_string(Filter filter)
{
  switch (filter) {
  case Filter::none: return "fits";
  case Filter::unschedulable: return "node is being deleted";
  case Filter::node_name: return "pod is bound to another node by name";
  case Filter::resources: return "insufficient resources";
  case Filter::node_affinity: return "node affinity/selector mismatch";
  case Filter::taints: return "untolerated taint";
  case Filter::host_ports: return "host port conflict";
  case Filter::volumes: return "volume node affinity conflict";
  case Filter::topology_spread: return "topology spread constraints not satisfied";
  case Filter::pod_affinity: return "pod affinity not satisfied";
  case Filter::pod_anti_affinity: return "pod anti-affinity conflict";
  }
  return "?";
}

Filter check_predicates(const Snapshot& snapshot, std::size_t node, const model::Pod& pod)
{
  const auto& n = snapshot.node(node);
  if (n.blocked || n.removed) {
    return Filter::unschedulable;
  }
  if (!pod.node_name.empty() && !snapshot.ignore_node_name() && n.state->name != pod.node_name) {
    return Filter::node_name;
  }
  if (!pod.spec) {
    return resources_fit(n, pod) ? Filter::none : Filter::resources;
  }
  const auto& spec = *pod.spec;
  if (scheduling::untolerated_taint(spec.tolerations, *n.state)) {
    return Filter::taints;
  }
  if (!scheduling::node_affinity_matches(spec, *n.state)) {
    return Filter::node_affinity;
  }
  if (!host_ports_free(n, pod)) {
    return Filter::host_ports;
  }
  if (!resources_fit(n, pod)) {
    return Filter::resources;
  }
  if (!spec.volume_error.empty() || !scheduling::volume_affinity_matches(spec, *n.state)) {
    return Filter::volumes;
  }
  if (!spec.topology_spread.empty() && !topology_spread_ok(snapshot, node, pod)) {
    return Filter::topology_spread;
  }
  if (!spec.pod_affinity_required.empty() || !spec.pod_anti_affinity_required.empty()
      || snapshot.anti_affinity_pods() > 0) {
    return inter_pod_affinity(snapshot, node, pod);
  }
  return Filter::none;
}

std::optional<std::size_t> schedule_on_any(Snapshot& snapshot, const model::Pod& pod,
                                           const std::function<bool(std::size_t)>& acceptable, NodeOrdering& ordering)
{
  const std::size_t n = snapshot.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t idx = (i + 1 + ordering.last_index) % n;
    const auto& node = snapshot.node(idx);
    if (node.removed || node.blocked) {
      continue;
    }
    if (acceptable && !acceptable(idx)) {
      continue;
    }
    // (Room first: check_predicates passes only nodes with room, and most nodes of a large
    // cluster have none, while its taint and affinity checks come before it.)
    if (resources_fit(node, pod) && check_predicates(snapshot, idx, pod) == Filter::none) {
      ordering.last_index = idx;
      snapshot.add_pod(idx, pod);
      return idx;
    }
  }
  return std::nullopt;
}

} // namespace capsim::cas
