#pragma once

#include "core/cluster/cluster.hpp"
#include "core/model/kube.hpp"
#include "core/model/pod.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Stateless node checks of the default kube-scheduler filter plugins: the parts that look at
// one pod and one node only. PodTopologySpread and InterPodAffinity need cluster-wide counts
// and live in KubeScheduler (kube_scheduler.hpp).
namespace capsim::scheduling {

// The default profile's filter plugins, in the order kube-scheduler runs them; a node is
// rejected by the first one that fails.
enum class FilterPlugin : std::uint8_t {
  none, // every filter passed
  node_unschedulable,
  node_name,
  taint_toleration,
  node_affinity,
  node_ports,
  node_resources_fit,
  volume_binding,
  pod_topology_spread,
  inter_pod_affinity,
};

// Plugin name as kube-scheduler spells it ("NodeResourcesFit", ...); "" for none.
[[nodiscard]] std::string_view to_string(FilterPlugin plugin);

// Filter outcome for one pod on one node: the first failing plugin and its reason, worded as
// kube-scheduler words it in "0/N nodes are available: ..." messages.
struct FilterResult
{
  FilterPlugin plugin = FilterPlugin::none;
  std::string reason;

  [[nodiscard]] bool ok() const { return plugin == FilterPlugin::none; }
};

// Reason texts (kube-scheduler's, plus "not ready" for nodes that are not initialized yet).
namespace reason {
inline constexpr std::string_view k_not_ready = "node(s) were not ready";
inline constexpr std::string_view k_unschedulable = "node(s) were unschedulable";
inline constexpr std::string_view k_node_name = "node(s) didn't match the requested node name";
inline constexpr std::string_view k_node_affinity = "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view k_node_ports = "node(s) didn't have free ports for the requested pod ports";
inline constexpr std::string_view k_too_many_pods = "Too many pods";
inline constexpr std::string_view k_spread = "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view k_spread_label =
    "node(s) didn't match pod topology spread constraints (missing required label)";
inline constexpr std::string_view k_affinity = "node(s) didn't match pod affinity rules";
inline constexpr std::string_view k_anti_affinity = "node(s) didn't match pod anti-affinity rules";
inline constexpr std::string_view k_existing_anti_affinity = "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view k_volume_node_affinity = "node(s) had volume node affinity conflict";
} // namespace reason

// The taint Karpenter puts on nodes it is disrupting (NodeState::disrupted_taint).
inline constexpr std::string_view k_disrupted_taint_key = "karpenter.sh/disrupted";
// The taint kube-scheduler's NodeUnschedulable plugin lets pods tolerate on cordoned nodes.
inline constexpr std::string_view k_unschedulable_taint_key = "node.kubernetes.io/unschedulable";
// NodeSelectorTerm key that stands for matchFields on metadata.name.
inline constexpr std::string_view k_match_field_name = "metadata.name";

// Value of label `key` on `node`, or nullptr. When the label is absent,
// kubernetes.io/hostname falls back to the node name and topology.kubernetes.io/zone to
// NodeState::zone (every real node carries both labels), and so does the EBS CSI driver's
// topology.ebs.csi.aws.com/zone (capsim assumes the driver runs on every node).
[[nodiscard]] const std::string* node_label(const cluster::NodeState& node, const std::string& key);

// One NodeSelectorRequirement against a node's labels, with Kubernetes semantics: NotIn and
// DoesNotExist hold for an absent label; In, Exists, Gt and Lt need it. Key metadata.name
// compares the node name (matchFields).
[[nodiscard]] bool requirement_matches(const model::Requirement& requirement, const cluster::NodeState& node);

// All requirements of the term hold; an empty term matches no node.
[[nodiscard]] bool term_matches(const model::NodeSelectorTerm& term, const cluster::NodeState& node);

// NodeAffinity filter: nodeSelector labels all equal AND (no required terms, or any term matches).
[[nodiscard]] bool node_affinity_matches(const model::PodSpec& spec, const cluster::NodeState& node);

// VolumeBinding filter on the pod's volumes: no volume constraint, or a term of
// PodSpec::volume_affinity matches. (A spec with a volume_error fails before any node.)
[[nodiscard]] bool volume_affinity_matches(const model::PodSpec& spec, const cluster::NodeState& node);

// Sum of the weights of the preferred node-affinity terms the node matches (NodeAffinity score
// before normalization). Empty terms and zero weights are skipped as upstream does.
[[nodiscard]] std::int64_t preferred_node_affinity_score(const model::PodSpec& spec, const cluster::NodeState& node);

// TaintToleration filter: the first NoSchedule/NoExecute taint of the node the tolerations do
// not tolerate, counting Karpenter's disrupted taint when NodeState::disrupted_taint is set.
[[nodiscard]] std::optional<model::Taint> untolerated_taint(const std::vector<model::Toleration>& tolerations,
                                                             const cluster::NodeState& node);

// Whether tolerations tolerate node.kubernetes.io/unschedulable:NoSchedule (NodeUnschedulable
// lets such pods onto cordoned nodes).
[[nodiscard]] bool tolerates_unschedulable(const std::vector<model::Toleration>& tolerations);

// TaintToleration score before normalization: PreferNoSchedule taints of the node not
// tolerated by a toleration whose effect is PreferNoSchedule or empty.
[[nodiscard]] std::int64_t intolerable_prefer_no_schedule(const std::vector<model::Toleration>& tolerations,
                                                          const cluster::NodeState& node);

// NodeResourcesFit filter on one node. `request` is the pod's requests WITHOUT the pods entry
// (one pod slot is always needed); the node's room is allocatable minus requested, where requested
// counts one `pods` per bound pod (not made as a vector first: Cluster Autoscaler's simulations
// ask it of node after node, and most fail on cpu or memory). Only resources the pod requests are
// compared, as upstream does (an overcommitted dimension the pod does not ask for never rejects
// it).
[[nodiscard]] inline bool fits_resources(const model::Resources& request, const model::Resources& allocatable,
                                         const model::Resources& requested)
{
  if (allocatable.v[model::k_pods] - requested.v[model::k_pods] < 1) {
    return false;
  }
  for (std::size_t i = 0; i < model::k_max_resources; ++i) {
    if (i != model::k_pods && request.v[i] > 0 && request.v[i] > allocatable.v[i] - requested.v[i]) {
      return false;
    }
  }
  return true;
}

// Every reason NodeResourcesFit gives for the node ("Too many pods", "Insufficient cpu", ...),
// in upstream order; empty when the pod fits.
[[nodiscard]] std::vector<std::string> insufficient_resources(const model::Resources& request,
                                                              const model::Resources& available);

// NodePorts filter: none of `wanted` is already in `used` (host ports of the node's pods).
[[nodiscard]] bool ports_free(const std::vector<std::int32_t>& wanted, const std::vector<std::int32_t>& used);

} // namespace capsim::scheduling
