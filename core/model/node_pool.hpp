#pragma once

#include "core/base/units.hpp"
#include "core/model/kube.hpp"
#include "core/model/requirements.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capsim::model {

enum class ConsolidationPolicy : std::uint8_t { when_empty, when_empty_or_underutilized, balanced };

enum class DisruptionReason : std::uint8_t { underutilized, empty, drifted };

// spec.disruption.budgets[i]. nodes is "10%" or "3"; schedule is a 5-field cron in UTC.
struct DisruptionBudget
{
  std::string nodes = "10%";
  std::optional<std::string> schedule;
  std::optional<Duration> duration;
  std::vector<DisruptionReason> reasons; // empty = all reasons
};

// A karpenter.sh/v1 NodePool, the fields that matter to capacity and cost.
struct NodePool
{
  std::string name;
  Labels template_labels;
  std::map<std::string, std::string> template_annotations;
  Requirements requirements; // spec.template.spec.requirements (with minValues)
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  Duration expire_after = 720 * k_hour;             // k_never for Never
  std::optional<Duration> termination_grace_period; // nullopt: wait forever
  std::string node_class_ref;
  ConsolidationPolicy consolidation_policy = ConsolidationPolicy::when_empty_or_underutilized;
  Duration consolidate_after = 0; // k_never disables consolidation
  std::vector<DisruptionBudget> budgets{DisruptionBudget{}};
  // spec.limits: resource -> max (nodes under the pseudo-resource name "nodes"). Resources
  // the NodePool does not list are INT64_MAX (no limit).
  std::optional<Resources> limits;
  std::optional<std::int64_t> limit_nodes;
  std::int32_t weight = 0;
  // capsim extension (annotation capsim.io/limit-usd-per-hour)
  std::optional<double> limit_usd_per_hour;
  // spec.replicas (alpha, Karpenter >= 1.8): a static NodePool of this many nodes, launched
  // whatever the pods need and never consolidated (StaticCapacity feature gate).
  std::optional<std::int64_t> replicas;
  // Hash of the fields whose change drifts nodes (template, excluding requirements etc.).
  std::uint64_t template_hash = 0;
  // **(capsim)** When the NodePool exists: created at `created_at` (0: from the start; a first
  // version annotated capsim.io/apply-at creates it then) and deleted at `deleted_at` (-1:
  // never; annotation capsim.io/delete-at), as `kubectl apply` and `kubectl delete` would.
  SimTime created_at = 0;
  SimTime deleted_at = -1;
};

} // namespace capsim::model
