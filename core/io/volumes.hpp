#pragma once

#include "core/io/yaml_reader.hpp"
#include "core/model/pod.hpp"
#include "core/model/scenario.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Persistent volume topology (docs/scenario-format.md §8, "Persistent volumes"): the stream's
// PersistentVolumeClaims, PersistentVolumes and StorageClasses, and what a pod's claims make of
// PodSpec::volume_affinity, volume_binds_on_schedule and volume_error, as kube-scheduler's
// VolumeBinding filter and Karpenter's volumetopology.go see them.
namespace capsim::io {

// A v1 PersistentVolumeClaim of the stream, or a claim capsim makes from a template (an
// ephemeral volume's volumeClaimTemplate, a StatefulSet's volumeClaimTemplates).
struct ClaimInfo
{
  std::string name;
  std::string namespace_ = "default";
  std::optional<std::string> storage_class; // spec.storageClassName; nullopt: absent (the default class)
  SourceLocation storage_class_at;          // the storageClassName value, for a missing class
  std::string volume_name;                  // spec.volumeName; "" = unbound
  SourceLocation volume_name_at;
  bool deleting = false; // metadata.deletionTimestamp
  bool lost = false;     // status.phase Lost
};

// A v1 PersistentVolume: its node affinity and whether it is a node's own disk.
struct VolumeInfo
{
  std::string name;
  std::vector<model::NodeSelectorTerm> node_affinity; // spec.nodeAffinity.required.nodeSelectorTerms
  bool local = false;    // spec.local or spec.hostPath
  bool deleting = false; // metadata.deletionTimestamp
};

// A storage.k8s.io/v1 StorageClass.
struct StorageClassInfo
{
  std::string name;
  std::string provisioner;
  bool wait_for_first_consumer = false; // volumeBindingMode; Immediate by default
  std::vector<model::NodeSelectorTerm> allowed_topologies; // each matchLabelExpressions entry: key In values
  bool is_default = false; // storageclass.kubernetes.io/is-default-class: "true" (or the beta annotation)
  std::int64_t created = std::numeric_limits<std::int64_t>::min(); // creationTimestamp, Unix ms
};

// A pod volume backed by a claim: persistentVolumeClaim.claimName (a claim of the pod's
// namespace) or an ephemeral volume (a claim per pod, "<pod>-<volume>", made from `claim`).
struct PodClaimRef
{
  std::string volume;    // the volume's name
  std::string claim_name; // persistentVolumeClaim.claimName; "" for an ephemeral volume
  bool ephemeral = false;
  ClaimInfo claim;       // ephemeral: the volumeClaimTemplate's spec
  SourceLocation at;     // the claimName value
};

// Where a claim comes from, which decides the Immediate and pinning rules.
enum class ClaimOrigin : std::uint8_t {
  document,     // a PersistentVolumeClaim of the stream
  stateful_set, // a StatefulSet's new claim from its volumeClaimTemplates
  ephemeral,    // an ephemeral volume's claim (it dies with the pod)
};

// What one claim does to a pod.
struct ClaimEffect
{
  std::vector<model::NodeSelectorTerm> alternatives; // ORed terms; empty = anywhere
  // Not empty: a claim capsim provisions at once (Immediate) in one of these zones (sorted),
  // chosen per claim name by pick_zone.
  std::vector<std::string> zones;
  bool binds_on_schedule = false;
  std::string error; // PodSpec::volume_error text, naming the claim
};

// The stream's storage objects, and claims resolved against them.
class StorageModel
{
public:
  // `zones` gives the zones a claim provisioned at once may land in when its class does not
  // restrict them (the scenario's zones); called at most once, only when needed.
  explicit StorageModel(std::function<std::vector<std::string>()> zones) : m_zones_source(std::move(zones)) {}

  void add_claim(ClaimInfo claim);
  void add_volume(VolumeInfo volume);
  void add_class(StorageClassInfo storage_class);

  // A claim of the stream by namespace and name, or nullptr.
  [[nodiscard]] const ClaimInfo* find_claim(const std::string& namespace_, const std::string& name) const;
  // Claims of `namespace_` whose names start with `prefix`, in name order.
  [[nodiscard]] std::vector<const ClaimInfo*> claims_with_prefix(const std::string& namespace_,
                                                                 const std::string& prefix) const;
  [[nodiscard]] const std::map<std::string, ClaimInfo>& claims() const { return m_claims; }
  [[nodiscard]] bool has_volume(const std::string& name) const { return m_volumes.count(name) > 0; }
  [[nodiscard]] bool has_classes() const { return !m_classes.empty(); }
  [[nodiscard]] bool has_class(const std::string& name) const { return m_classes.count(name) > 0; }
  [[nodiscard]] std::vector<std::string> class_names() const;

  // What the claim does to a pod. `label` names it in the error ("persistentvolumeclaim
  // \"data\""). A volumeName, class or default class missing from the stream constrains
  // nothing here (the reader reports a missing volume or class as a scenario error).
  [[nodiscard]] ClaimEffect resolve(const ClaimInfo& claim, ClaimOrigin origin, const std::string& label) const;

  // The class an unbound claim uses: its storageClassName, else the default class (the newest
  // of several, ties by name). With no StorageClass in the stream every name, and the missing
  // default, is EKS's usual class (ebs.csi.aws.com, WaitForFirstConsumer). nullptr: none.
  [[nodiscard]] const StorageClassInfo* class_of(const ClaimInfo& claim) const;

private:
  const std::vector<std::string>& scenario_zones() const;

  std::map<std::string, ClaimInfo> m_claims; // by "namespace/name"
  std::map<std::string, VolumeInfo> m_volumes;
  std::map<std::string, StorageClassInfo> m_classes;
  std::function<std::vector<std::string>()> m_zones_source;
  mutable std::optional<std::vector<std::string>> m_zones;
};

// ANDs each term of `alternatives` with each of `volume` (a volume's ORed terms), keeping the
// pairs whose requirements intersect; when none does, every pair (as Karpenter's
// mergeVolumeRequirementAlternatives). An empty side means "no constraint".
[[nodiscard]] std::vector<model::NodeSelectorTerm>
merge_alternatives(const std::vector<model::NodeSelectorTerm>& alternatives,
                   const std::vector<model::NodeSelectorTerm>& volume);

// Applies one claim's effect to `spec` (alternatives merged, pin flag ORed, the first error
// kept). A claim provisioned at once becomes `topology.kubernetes.io/zone In [pick_zone]` of
// `claim_name`.
void apply_claim(model::PodSpec& spec, const ClaimEffect& effect, std::string_view claim_name);

// zones[FNV-1a(claim_name) % zones.size()]; zones must not be empty.
[[nodiscard]] const std::string& pick_zone(std::string_view claim_name, const std::vector<std::string>& zones);

// The claim name of a per-pod claim for pod `pod_name`.
[[nodiscard]] std::string per_pod_claim_name(const model::PerPodClaim& claim, std::string_view pod_name);

// Volume combinations beyond which a pod's volumes are refused as absurd.
inline constexpr std::size_t k_max_volume_alternatives = 1000;

// Specs of pods with per-pod claims (model::PerPodClaim): `base` with each claim's zone, one
// spec per distinct choice of zones, so pods that land alike share it.
class PerPodSpecs
{
public:
  [[nodiscard]] model::PodSpecPtr get(const model::PodSpecPtr& base, const std::vector<model::PerPodClaim>& claims,
                                      std::string_view pod_name);

private:
  // (base, chosen zones) -> (base kept alive, spec)
  std::map<std::pair<const model::PodSpec*, std::vector<std::string>>, std::pair<model::PodSpecPtr, model::PodSpecPtr>>
      m_specs;
};

// Readers of the three kinds (lenient Kubernetes kinds; node affinity and allowed topologies
// strict). `what` is "Kind/name" for messages. Errors go to the reader; the result is best effort.
[[nodiscard]] ClaimInfo read_claim(YamlReader& r, const YAML::Node& root, const std::string& name,
                                   const std::string& namespace_, const std::string& what);
[[nodiscard]] VolumeInfo read_volume(YamlReader& r, const YAML::Node& root, const std::string& name,
                                     const std::string& what);
[[nodiscard]] StorageClassInfo read_storage_class(YamlReader& r, const YAML::Node& root, const std::string& name,
                                                  const std::string& what);

// A claim template's spec (ephemeral volumeClaimTemplate.spec, StatefulSet
// volumeClaimTemplates[].spec): storageClassName into `out`; volumeName is not read (capsim
// never binds a template's claim in advance).
void read_claim_template_spec(YamlReader& r, const YAML::Node& spec, const std::string& what, ClaimInfo& out);

} // namespace capsim::io
