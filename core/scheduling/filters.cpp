#include "core/scheduling/filters.hpp"

#include <algorithm>

namespace capsim::scheduling {

std::string_view to_string(FilterPlugin plugin)
{
  switch (plugin) {
  case FilterPlugin::none: return "";
  case FilterPlugin::node_unschedulable: return "NodeUnschedulable";
  case FilterPlugin::node_name: return "NodeName";
  case FilterPlugin::taint_toleration: return "TaintToleration";
  case FilterPlugin::node_affinity: return "NodeAffinity";
  case FilterPlugin::node_ports: return "NodePorts";
  case FilterPlugin::node_resources_fit: return "NodeResourcesFit";
  case FilterPlugin::volume_binding: return "VolumeBinding";
  case FilterPlugin::pod_topology_spread: return "PodTopologySpread";
  case FilterPlugin::inter_pod_affinity: return "InterPodAffinity";
  }
  return "?";
}

const std::string* node_label(const cluster::NodeState& node, const std::string& key)
{
  auto it = node.labels.find(key);
  if (it != node.labels.end()) {
    return &it->second;
  }
  if (key == model::labels::k_hostname && !node.name.empty()) {
    return &node.name;
  }
  if ((key == model::labels::k_zone || key == model::labels::k_ebs_csi_zone) && !node.zone.empty()) {
    return &node.zone;
  }
  return nullptr;
}

bool requirement_matches(const model::Requirement& requirement, const cluster::NodeState& node)
{
  const std::string* value =
      requirement.key == k_match_field_name ? &node.name : node_label(node, requirement.key);
  const model::Operator op = requirement.op();
  if (value == nullptr) {
    return op == model::Operator::not_in || op == model::Operator::does_not_exist;
  }
  if (op == model::Operator::does_not_exist) {
    return false;
  }
  return requirement.has(*value);
}

bool term_matches(const model::NodeSelectorTerm& term, const cluster::NodeState& node)
{
  if (term.requirements.empty()) {
    return false;
  }
  return std::all_of(term.requirements.begin(), term.requirements.end(),
                     [&](const model::Requirement& r) { return requirement_matches(r, node); });
}

bool node_affinity_matches(const model::PodSpec& spec, const cluster::NodeState& node)
{
  for (const auto& [key, value] : spec.node_selector) {
    const std::string* have = node_label(node, key);
    if (have == nullptr || *have != value) {
      return false;
    }
  }
  if (spec.required_node_affinity.empty()) {
    return true;
  }
  return std::any_of(spec.required_node_affinity.begin(), spec.required_node_affinity.end(),
                     [&](const model::NodeSelectorTerm& term) { return term_matches(term, node); });
}

bool volume_affinity_matches(const model::PodSpec& spec, const cluster::NodeState& node)
{
  return spec.volume_affinity.empty()
         || std::any_of(spec.volume_affinity.begin(), spec.volume_affinity.end(),
                        [&](const model::NodeSelectorTerm& term) { return term_matches(term, node); });
}

std::int64_t preferred_node_affinity_score(const model::PodSpec& spec, const cluster::NodeState& node)
{
  std::int64_t score = 0;
  for (const auto& p : spec.preferred_node_affinity) {
    if (p.weight == 0 || p.term.requirements.empty()) {
      continue;
    }
    if (term_matches(p.term, node)) {
      score += p.weight;
    }
  }
  return score;
}

namespace {

bool tolerated(const std::vector<model::Toleration>& tolerations, const model::Taint& taint)
{
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const model::Toleration& t) { return t.tolerates(taint); });
}

} // namespace

std::optional<model::Taint> untolerated_taint(const std::vector<model::Toleration>& tolerations,
                                              const cluster::NodeState& node)
{
  for (const auto& taint : node.taints) {
    if (taint.effect == model::TaintEffect::prefer_no_schedule) {
      continue;
    }
    if (!tolerated(tolerations, taint)) {
      return taint;
    }
  }
  if (node.disrupted_taint) {
    model::Taint taint{std::string(k_disrupted_taint_key), "", model::TaintEffect::no_schedule};
    if (!tolerated(tolerations, taint)) {
      return taint;
    }
  }
  return std::nullopt;
}

bool tolerates_unschedulable(const std::vector<model::Toleration>& tolerations)
{
  const model::Taint taint{std::string(k_unschedulable_taint_key), "", model::TaintEffect::no_schedule};
  return tolerated(tolerations, taint);
}

std::int64_t intolerable_prefer_no_schedule(const std::vector<model::Toleration>& tolerations,
                                            const cluster::NodeState& node)
{
  std::int64_t count = 0;
  for (const auto& taint : node.taints) {
    if (taint.effect != model::TaintEffect::prefer_no_schedule) {
      continue;
    }
    const bool ok = std::any_of(tolerations.begin(), tolerations.end(), [&](const model::Toleration& t) {
      return (!t.effect || *t.effect == model::TaintEffect::prefer_no_schedule) && t.tolerates(taint);
    });
    if (!ok) {
      ++count;
    }
  }
  return count;
}

std::vector<std::string> insufficient_resources(const model::Resources& request, const model::Resources& available)
{
  std::vector<std::string> out;
  if (available[model::k_pods] < 1) {
    out.emplace_back(reason::k_too_many_pods);
  }
  // Upstream order: cpu, memory, ephemeral-storage, then scalar resources.
  static constexpr model::ResourceId k_order[] = {model::k_cpu, model::k_memory, model::k_ephemeral_storage};
  for (const auto id : k_order) {
    if (request[id] > 0 && request[id] > available[id]) {
      out.push_back("Insufficient " + model::resource_name(id));
    }
  }
  for (std::size_t i = 0; i < model::k_max_resources; ++i) {
    const auto id = static_cast<model::ResourceId>(i);
    if (id == model::k_cpu || id == model::k_memory || id == model::k_ephemeral_storage || id == model::k_pods) {
      continue;
    }
    if (request[id] > 0 && request[id] > available[id]) {
      out.push_back("Insufficient " + model::resource_name(id));
    }
  }
  return out;
}

bool ports_free(const std::vector<std::int32_t>& wanted, const std::vector<std::int32_t>& used)
{
  for (const auto p : wanted) {
    if (p > 0 && std::find(used.begin(), used.end(), p) != used.end()) {
      return false;
    }
  }
  return true;
}

} // namespace capsim::scheduling
