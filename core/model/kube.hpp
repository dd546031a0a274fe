#pragma once

#include "core/model/requirements.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace capsim::model {

using Labels = std::map<std::string, std::string>;

enum class TaintEffect : std::uint8_t { no_schedule, prefer_no_schedule, no_execute };

struct Taint
{
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::no_schedule;

  bool operator==(const Taint&) const = default;
};

// Cluster Autoscaler's soft taint on nodes it finds unneeded (PreferNoSchedule; its value is
// when it was set, in Unix seconds).
inline constexpr std::string_view k_deletion_candidate_taint_key = "DeletionCandidateOfClusterAutoscaler";

struct Toleration
{
  std::string key; // empty with op Exists tolerates everything
  bool op_exists = false;
  std::string value;
  std::optional<TaintEffect> effect; // nullopt tolerates every effect

  [[nodiscard]] bool tolerates(const Taint& taint) const;

  bool operator==(const Toleration&) const = default;
};

// Every taint is tolerated; PreferNoSchedule counts unless tolerate_prefer_no_schedule
// (Karpenter treats it as a hard constraint until its last relaxation step).
[[nodiscard]] bool tolerates_all(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints,
                                 bool tolerate_prefer_no_schedule = false);

[[nodiscard]] std::optional<TaintEffect> parse_taint_effect(std::string_view text);
[[nodiscard]] std::string_view to_string(TaintEffect effect);

// metav1.LabelSelector. An empty selector matches everything; a missing one (nullopt where
// it is optional) matches nothing.
struct LabelSelectorRequirement
{
  std::string key;
  Operator op = Operator::in; // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector
{
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  [[nodiscard]] bool matches(const Labels& labels) const;

  bool operator==(const LabelSelector&) const = default;
};

// A node selector term: requirements ANDed (matchExpressions and matchFields on metadata.name).
struct NodeSelectorTerm
{
  std::vector<Requirement> requirements;

  bool operator==(const NodeSelectorTerm&) const = default;
};

struct PreferredNodeTerm
{
  std::int32_t weight = 0;
  NodeSelectorTerm term;

  bool operator==(const PreferredNodeTerm&) const = default;
};

struct PodAffinityTerm
{
  std::optional<LabelSelector> selector; // nullopt matches no pod
  std::vector<std::string> namespaces;   // empty = the pod's own namespace
  bool all_namespaces = false;           // namespaceSelector: {} (matches every namespace)
  std::string topology_key;
  std::vector<std::string> match_label_keys;

  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm
{
  std::int32_t weight = 0;
  PodAffinityTerm term;

  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

enum class UnsatisfiableAction : std::uint8_t { do_not_schedule, schedule_anyway };

struct TopologySpreadConstraint
{
  std::int32_t max_skew = 1;
  std::string topology_key;
  UnsatisfiableAction when_unsatisfiable = UnsatisfiableAction::do_not_schedule;
  std::optional<LabelSelector> selector;
  std::optional<std::int32_t> min_domains;
  std::vector<std::string> match_label_keys;
  bool node_affinity_policy_honor = true; // nodeAffinityPolicy, default Honor
  bool node_taints_policy_honor = false;  // nodeTaintsPolicy, default Ignore

  bool operator==(const TopologySpreadConstraint&) const = default;
};

// A PodDisruptionBudget: selector in one namespace, and either minAvailable or maxUnavailable
// (as a count or a percent, stored as text as in the API).
struct PodDisruptionBudget
{
  std::string name;
  std::string namespace_ = "default";
  LabelSelector selector;
  std::optional<std::string> min_available;
  std::optional<std::string> max_unavailable;
  // spec.unhealthyPodEvictionPolicy AlwaysAllow: a pod whose Ready condition is False may be
  // evicted whatever the budget allows (model::Pod::unready; IfHealthyBudget, the default, when
  // false).
  bool always_allow_unhealthy = false;

  bool operator==(const PodDisruptionBudget&) const = default;
};

} // namespace capsim::model
