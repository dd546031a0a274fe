#pragma once

#include "core/cas/estimator.hpp"
#include "core/catalog/catalog.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/scenario.hpp"

#include <string>
#include <vector>

namespace capsim::cas {

// Pods per node CA's AWS template assumes when it builds a node from the ASG ("TODO: get a
// real value", aws_manager.go buildNodeFromTemplate).
inline constexpr std::int64_t k_aws_template_pods = 110;

// The zones a group launches into: its own, else the scenario's, else the catalog's.
[[nodiscard]] std::vector<std::string> group_zones(const model::NodeGroup& group, const model::Scenario& scenario,
                                                   const catalog::Catalog& catalog);

// The requests of the scenario's DaemonSet pods that would run on `node` (one `pods` each).
[[nodiscard]] model::Resources daemon_overhead(const model::Scenario& scenario, const cluster::NodeState& node);

// CA's AWS cloud-provider template (scale from zero): the group's FIRST instance type in its
// FIRST zone; capacity = vCPU, memory, GPU and pods = 110; allocatable = capacity, unless
// `use_real_allocatable` (then the catalog's allocatable, real max pods included). The
// ephemeral-storage capacity is taken from the catalog, as if the ASG carried the
// node-template/resources/ephemeral-storage tag. Labels: the type's, the group's, zone,
// region, hostname, and karpenter.sh/capacity-type when every node of the group has the same
// one (the node-template/label tag an EKS managed node group sets). Taints: the group's.
// Returns nullopt when the first type is not in the catalog.
[[nodiscard]] std::optional<NodeTemplate> template_from_catalog(const model::NodeGroup& group,
                                                                std::size_t group_index,
                                                                const model::Scenario& scenario,
                                                                const catalog::Catalog& catalog,
                                                                bool use_real_allocatable);

// The template CA builds from a good real node of the group (a sanitized copy: its labels,
// taints, allocatable and DaemonSet pods).
[[nodiscard]] NodeTemplate template_from_node(const cluster::NodeState& node, std::size_t group_index,
                                              const std::string& group_name);

} // namespace capsim::cas
