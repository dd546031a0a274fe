#pragma once

#include "core/io/volumes.hpp"
#include "core/io/yaml_reader.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace capsim::io {

// A node.k8s.io/v1 RuntimeClass: what the API server's RuntimeClass admission plugin sets on a
// pod that names it.
struct RuntimeClass
{
  std::optional<model::Resources> overhead; // overhead.podFixed
  model::Labels node_selector;              // scheduling.nodeSelector
  std::vector<model::Toleration> tolerations; // scheduling.tolerations
};

// What the pod converter needs to know beyond the pod itself.
struct PodContext
{
  std::string namespace_ = "default"; // when metadata.namespace is absent
  model::OwnerKind owner = model::OwnerKind::none;
  // PriorityClass name -> value (the stream's scheduling.k8s.io/v1 PriorityClasses).
  const std::map<std::string, std::int32_t>* priority_classes = nullptr;
  std::optional<std::int32_t> default_priority; // a PriorityClass with globalDefault: true
  // RuntimeClass name -> class (the stream's node.k8s.io/v1 RuntimeClasses).
  const std::map<std::string, RuntimeClass>* runtime_classes = nullptr;
  // Namespace name -> labels (with kubernetes.io/metadata.name): the stream's Namespaces and
  // every namespace its objects are in, for affinity terms' namespaceSelectors.
  const std::map<std::string, model::Labels>* namespaces = nullptr;
  // kubectl dumps: the API server admitted these pods (spec.priority resolved, the
  // RuntimeClass's overhead and scheduling applied), so an unknown priorityClassName or
  // runtimeClassName is not an error there.
  bool admitted = false;
};

// A pod template (or a Pod) converted: the shared spec plus per-pod facts.
struct PodTemplate
{
  model::PodSpec spec;
  std::string name;      // metadata.name ("" in templates)
  std::string node_name; // spec.nodeName
  std::optional<Duration> runtime; // annotation capsim.io/runtime
  bool daemon_owned = false;       // ownerReferences name a DaemonSet
  std::string owner_kind;          // the controller ownerReference (else the first): kind and name
  std::string owner_name;
  bool mirror = false;             // a static pod's mirror (kubernetes.io/config.mirror)
  // Volumes backed by claims (persistentVolumeClaim, ephemeral), in the order of spec.volumes;
  // the scenario reader resolves them once the whole stream is read (volumes.hpp).
  std::vector<PodClaimRef> claims;
};

// Converts metadata + spec of a Pod or PodTemplateSpec (SPEC §2) with the real Kubernetes
// schema: effective requests (containers, limits-only defaulting, init containers and
// sidecars, pod-level resources, overhead), scheduling constraints, priority and annotations.
// `what` prefixes field names in messages ("Deployment/web spec.template.spec"); `parent` (the
// object holding metadata and spec) is where a missing spec is reported when neither has a place
// in the file (a key with no value at the end of a document has none).
// Errors go to the reader's diagnostics; the result is best effort.
[[nodiscard]] PodTemplate read_pod_template(YamlReader& reader, const YAML::Node& parent, const YAML::Node& metadata,
                                            const YAML::Node& spec, const std::string& what,
                                            const PodContext& context);

// Largest request accepted for one resource of one container (cpu in millicores, memory in
// bytes): about 10^15. Larger values are refused as absurd.
inline constexpr std::int64_t k_max_request = std::int64_t{1} << 50U;

// A metadata.ownerReferences entry: the controller's (else the first one's with a kind); empty
// when there is none. Reports nothing (read_pod_template checks the list).
struct OwnerRef
{
  std::string kind;
  std::string name;
};
[[nodiscard]] OwnerRef controller_reference(const YAML::Node& metadata);

// Whether every resource of `res` is at most k_max_request; reports the first that is not.
bool cap_requests(YamlReader& reader, const YAML::Node& at, const model::Resources& res, const std::string& what);

// One NodeSelectorTerm (matchExpressions ANDed with matchFields on metadata.name, which becomes
// a kubernetes.io/hostname requirement), as required node affinity reads it; nullopt after an
// error (reported).
[[nodiscard]] std::optional<model::NodeSelectorTerm> read_node_selector_term(YamlReader& reader, const YAML::Node& term,
                                                                             const std::string& what);

// The fields of metav1.ObjectMeta, for unknown-field checks.
void check_metadata(YamlReader& reader, const YAML::Node& metadata, const std::string& what);

// Priority of the two built-in classes.
inline constexpr std::int32_t k_system_cluster_critical = 2000000000;
inline constexpr std::int32_t k_system_node_critical = 2000001000;

} // namespace capsim::io
