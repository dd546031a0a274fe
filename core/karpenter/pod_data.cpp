#include "core/karpenter/pod_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace capsim::karpenter {

namespace {

ReqSet term_to_req_set(const model::NodeSelectorTerm& term, Interner& in)
{
  ReqSet out;
  for (const auto& r : term.requirements) {
    out.add(to_req(r, in), in);
  }
  return out;
}

// Indices of weighted terms, heaviest first; equal weights keep their listed order
// (upstream sorts with sort.SliceStable for removal).
template <typename T>
std::vector<std::uint16_t> heaviest_first(const std::vector<T>& terms)
{
  std::vector<std::uint16_t> order(terms.size());
  std::iota(order.begin(), order.end(), std::uint16_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint16_t a, std::uint16_t b) { return terms[a].weight > terms[b].weight; });
  return order;
}

void fill_requirements(const SpecData& d, PodVariant& v, const Interner& in)
{
  v.strict = d.node_selector;
  if (!d.required_terms.empty()) {
    v.strict.add(d.required_terms[v.required_term_start], in);
  }
  v.requirements = d.node_selector;
  if (!d.ignore_preferences && v.preferred_node_removed < d.preferred_terms.size()) {
    v.requirements.add(d.preferred_terms[v.preferred_node_removed], in);
  }
  if (!d.required_terms.empty()) {
    v.requirements.add(d.required_terms[v.required_term_start], in);
  }
  // NodeClaim.CanAdd / ExistingNode.CanAdd add the volume requirements to the node's requirements
  // only; v.strict, which topology spread counts domains by, stays without them.
  v.requirements.add(d.volume, in);
}

// Karpenter tries a pod's volume alternatives (ORed terms) one by one; capsim folds them into one
// requirement set: terms that each ask one key In some values (a volume's zones, however they are
// split into terms) become that key In their union, which is the same; any other shape keeps the
// first term.
ReqSet volume_requirements(const model::PodSpec& spec, Interner& in)
{
  const auto& terms = spec.volume_affinity;
  if (terms.empty()) {
    return {};
  }
  const auto single_in = [&](const model::NodeSelectorTerm& t) {
    return t.requirements.size() == 1 && t.requirements.front().op() == model::Operator::in
           && normalized_label(t.requirements.front().key) == normalized_label(terms.front().requirements.front().key);
  };
  if (terms.size() > 1 && !terms.front().requirements.empty() && std::all_of(terms.begin(), terms.end(), single_in)) {
    std::vector<std::string> values;
    for (const auto& t : terms) {
      const auto& r = t.requirements.front();
      values.insert(values.end(), r.values.begin(), r.values.end());
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    const auto& key = terms.front().requirements.front().key;
    return term_to_req_set({{model::Requirement::make(key, model::Operator::in, std::move(values))}}, in);
  }
  return term_to_req_set(terms.front(), in);
}

bool is_restricted_label(std::string_view key)
{
  key = normalized_label(key);
  if (model::is_well_known_label(key)) {
    return false;
  }
  // RestrictedLabelDomains: karpenter.sh and, from the AWS provider, karpenter.k8s.aws (and
  // their subdomains).
  const auto slash = key.find('/');
  if (slash != std::string_view::npos) {
    const auto domain = key.substr(0, slash);
    using namespace std::string_view_literals;
    for (const std::string_view restricted : {"karpenter.sh"sv, "karpenter.k8s.aws"sv}) {
      if (domain == restricted
          || (domain.size() > restricted.size() && domain.ends_with(restricted)
              && domain[domain.size() - restricted.size() - 1] == '.')) {
        return true;
      }
    }
  }
  return key == model::labels::k_hostname;
}

std::string validate_requirement(const model::Requirement& r)
{
  if (is_restricted_label(r.key)) {
    return fmt::format("using label {} is not allowed as it might interfere with the internal provisioning logic",
                       normalized_label(r.key));
  }
  // validateWellKnownValues: an In of a label with known values needs one of them.
  const auto known = model::well_known_values(normalized_label(r.key));
  if (!known.empty() && r.op() == model::Operator::in) {
    const bool any_known = std::any_of(r.values.begin(), r.values.end(), [&](const std::string& v) {
      return std::find(known.begin(), known.end(), v) != known.end();
    });
    if (!any_known) {
      return fmt::format("no valid values found for {}", normalized_label(r.key));
    }
  }
  return {};
}

} // namespace

std::string validate_pod_spec(const model::PodSpec& spec)
{
  for (const auto& [k, v] : spec.node_selector) {
    auto err = validate_requirement(model::Requirement::make(k, model::Operator::in, {v}));
    if (!err.empty()) {
      return err;
    }
  }
  for (const auto& term : spec.required_node_affinity) {
    for (const auto& r : term.requirements) {
      auto err = validate_requirement(r);
      if (!err.empty()) {
        return err;
      }
    }
  }
  // validateKarpenterManagedLabelCanExist: pods that require karpenter.sh/nodepool DoesNotExist.
  const auto is_np_dne = [](const model::Requirement& r) {
    return normalized_label(r.key) == model::labels::k_nodepool && !r.complement && r.values.empty();
  };
  bool dne = false;
  if (!spec.required_node_affinity.empty()) {
    const auto& t = spec.required_node_affinity.front().requirements;
    dne = std::any_of(t.begin(), t.end(), is_np_dne);
  }
  if (!dne && !spec.preferred_node_affinity.empty()) {
    const auto order = heaviest_first(spec.preferred_node_affinity);
    const auto& t = spec.preferred_node_affinity[order.front()].term.requirements;
    dne = std::any_of(t.begin(), t.end(), is_np_dne);
  }
  if (dne) {
    return "configured to not run on a Karpenter provisioned node (requirement karpenter.sh/nodepool DoesNotExist)";
  }
  return {};
}

SpecData make_spec_data(const model::PodSpecPtr& spec, bool ignore_preferences, bool tolerate_pns_enabled, Interner& in)
{
  SpecData d;
  d.spec = spec;
  d.ignore_preferences = ignore_preferences;
  d.tolerate_pns_enabled = tolerate_pns_enabled;
  d.validation_error = validate_pod_spec(*spec);
  if (d.validation_error.empty()) {
    d.validation_error = spec->volume_error; // ValidatePersistentVolumeClaims
  }
  for (const auto& [k, v] : spec->node_selector) {
    d.node_selector.add(make_in(in.key(normalized_label(k)), in.value(v)), in);
  }
  for (const auto& term : spec->required_node_affinity) {
    d.required_terms.push_back(term_to_req_set(term, in));
  }
  for (const auto i : heaviest_first(spec->preferred_node_affinity)) {
    d.preferred_terms.push_back(term_to_req_set(spec->preferred_node_affinity[i].term, in));
  }
  const auto zone_only = [&in](const ReqSet& r) {
    return std::all_of(r.items().begin(), r.items().end(),
                       [&in](const Req& q) { return q.key == in.k_zone || q.key == in.k_hostname; });
  };
  d.volume = volume_requirements(*spec, in);
  d.zone_only_requirements = zone_only(d.node_selector) && zone_only(d.volume)
                             && std::all_of(d.required_terms.begin(), d.required_terms.end(), zone_only)
                             && std::all_of(d.preferred_terms.begin(), d.preferred_terms.end(), zone_only);
  // The keys of the groups a solve makes for the pod (Scheduler::make_spec_groups).
  const auto note_key = [&](const std::string& key) {
    const KeyId k = in.key(key);
    d.makes_topology_groups = true;
    d.zone_only_topology = d.zone_only_topology && (k == in.k_zone || k == in.k_hostname);
  };
  for (const auto& tsc : spec->topology_spread) {
    if (!ignore_preferences || tsc.when_unsatisfiable == model::UnsatisfiableAction::do_not_schedule) {
      note_key(tsc.topology_key);
    }
  }
  for (const auto* terms : {&spec->pod_affinity_required, &spec->pod_anti_affinity_required}) {
    for (const auto& term : *terms) {
      note_key(term.topology_key);
    }
  }
  if (!ignore_preferences) {
    for (const auto* terms : {&spec->pod_affinity_preferred, &spec->pod_anti_affinity_preferred}) {
      for (const auto& weighted : *terms) {
        note_key(weighted.term.topology_key);
      }
    }
  }
  d.preferred_affinity_order = heaviest_first(spec->pod_affinity_preferred);
  d.preferred_anti_affinity_order = heaviest_first(spec->pod_anti_affinity_preferred);
  d.has_pns_toleration = std::any_of(spec->tolerations.begin(), spec->tolerations.end(), [](const model::Toleration& t) {
    return t.key.empty() && t.op_exists && t.value.empty() && t.effect == model::TaintEffect::prefer_no_schedule;
  });
  PodVariant v0;
  v0.spread.reserve(spec->topology_spread.size());
  for (std::size_t i = 0; i < spec->topology_spread.size(); ++i) {
    v0.spread.push_back(static_cast<std::uint16_t>(i));
  }
  fill_requirements(d, v0, in);
  d.variants.push_back(std::move(v0));
  return d;
}

const PodVariant* variant(SpecData& d, std::size_t k, const Interner& in)
{
  while (d.variants.size() <= k) {
    if (d.exhausted) {
      return nullptr;
    }
    PodVariant v = d.variants.back();
    const auto& spec = *d.spec;
    bool relaxed = false;
    if (d.required_terms.size() > static_cast<std::size_t>(v.required_term_start) + 1) {
      // removeRequiredNodeAffinityTerm: the last term is never dropped.
      ++v.required_term_start;
      relaxed = true;
    } else if (!d.ignore_preferences && v.preferred_affinity_removed < d.preferred_affinity_order.size()) {
      ++v.preferred_affinity_removed;
      relaxed = true;
    } else if (!d.ignore_preferences && v.preferred_anti_affinity_removed < d.preferred_anti_affinity_order.size()) {
      ++v.preferred_anti_affinity_removed;
      relaxed = true;
    } else if (!d.ignore_preferences && v.preferred_node_removed < d.preferred_terms.size()) {
      ++v.preferred_node_removed;
      relaxed = true;
    } else {
      if (!d.ignore_preferences) {
        // removeTopologySpreadScheduleAnyway: first ScheduleAnyway constraint, swapped with the last.
        for (std::size_t i = 0; i < v.spread.size(); ++i) {
          if (spec.topology_spread[v.spread[i]].when_unsatisfiable == model::UnsatisfiableAction::schedule_anyway) {
            v.spread[i] = v.spread.back();
            v.spread.pop_back();
            relaxed = true;
            break;
          }
        }
      }
      if (!relaxed && d.tolerate_pns_enabled && !v.tolerate_prefer_no_schedule && !d.has_pns_toleration) {
        v.tolerate_prefer_no_schedule = true;
        relaxed = true;
      }
    }
    if (!relaxed) {
      d.exhausted = true;
      return nullptr;
    }
    fill_requirements(d, v, in);
    d.variants.push_back(std::move(v));
  }
  return &d.variants[k];
}

bool tolerates(const model::PodSpec& spec, const PodVariant& v, const std::vector<model::Taint>& taints)
{
  return model::tolerates_all(spec.tolerations, taints, v.tolerate_prefer_no_schedule);
}

} // namespace capsim::karpenter
