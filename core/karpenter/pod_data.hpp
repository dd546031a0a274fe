#pragma once

#include "core/karpenter/reqs.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace capsim::karpenter {

// Everything the scheduler derives from one PodSpec, shared by all pods of a Deployment/Job
// (they point at one PodSpec): validation, node requirements, and the sequence of relaxed
// variants that Karpenter's Preferences.Relax produces (preferences.go). Relaxation is
// deterministic per spec, so variant k of every pod of the spec is the same and is computed
// once.

// One relaxation state of a pod (variant 0 = the pod as written).
struct PodVariant
{
  ReqSet requirements; // nodeSelector + first remaining required term + heaviest remaining preferred term
  ReqSet strict;       // nodeSelector + first remaining required term
  bool tolerate_prefer_no_schedule = false;
  // Relaxation state (indices into the spec's lists).
  std::uint16_t required_term_start = 0;
  std::uint16_t preferred_affinity_removed = 0;
  std::uint16_t preferred_anti_affinity_removed = 0;
  std::uint16_t preferred_node_removed = 0;
  std::vector<std::uint16_t> spread; // active topology spread constraints, in upstream's order
};

struct SpecData
{
  model::PodSpecPtr spec; // keeps the spec alive while cached
  std::string validation_error; // non-empty: Provisioner.Validate rejects the pod
  bool ignore_preferences = false;
  bool tolerate_pns_enabled = false; // some NodePool has a PreferNoSchedule taint
  ReqSet node_selector;
  std::vector<ReqSet> required_terms;
  std::vector<ReqSet> preferred_terms;                 // heaviest first (stable)
  // The volumes' topology (PodSpec::volume_affinity) as one alternative: it narrows the node or
  // NodeClaim the pod goes on, never the pod's own requirements that topology spread reads.
  ReqSet volume;
  std::vector<std::uint16_t> preferred_affinity_order; // heaviest first (stable)
  std::vector<std::uint16_t> preferred_anti_affinity_order;
  bool has_pns_toleration = false; // already tolerates {Exists, PreferNoSchedule}
  // The node selector and node affinity terms (required and preferred) name no key but the zone
  // and the hostname: they narrow a NodeClaim's instance types by zone only.
  bool zone_only_requirements = true;
  // The pod makes topology groups in a solve (spread constraints and pod (anti-)affinity terms,
  // less the preferences it ignores), and whether every one is over the zone or the hostname.
  bool makes_topology_groups = false;
  bool zone_only_topology = true;
  std::vector<PodVariant> variants; // computed lazily by variant()
  bool exhausted = false;           // no further relaxation possible after variants.back()
};

// Derive the spec data (variant 0 only). `tolerate_pns_enabled`: some NodePool has a
// PreferNoSchedule taint (adds the last relaxation step).
[[nodiscard]] SpecData make_spec_data(const model::PodSpecPtr& spec, bool ignore_preferences, bool tolerate_pns_enabled,
                                      Interner& in);

// Variant k (k <= variants.size()); nullptr when the pod cannot be relaxed that far.
[[nodiscard]] const PodVariant* variant(SpecData& data, std::size_t k, const Interner& in);

// Tolerations of a variant tolerate every taint (PreferNoSchedule counts unless tolerated).
[[nodiscard]] bool tolerates(const model::PodSpec& spec, const PodVariant& v, const std::vector<model::Taint>& taints);

// The requirement-level checks of Provisioner.Validate; "" when valid.
[[nodiscard]] std::string validate_pod_spec(const model::PodSpec& spec);

} // namespace capsim::karpenter
