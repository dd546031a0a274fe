#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::model {

enum class Operator : std::uint8_t { in, not_in, exists, does_not_exist, gt, lt, gte, lte };

[[nodiscard]] std::optional<Operator> parse_operator(std::string_view text);
[[nodiscard]] std::string_view to_string(Operator op);

// One key's allowed values, as Karpenter's scheduling.Requirement models it: a finite set
// (complement = false) or everything except a set (complement = true), optionally bounded by
// integer Gt/Lt. In = {values}; NotIn = all but {values}; Exists = all; DoesNotExist = {}.
struct Requirement
{
  std::string key;
  bool complement = false;
  std::vector<std::string> values; // sorted, unique
  std::optional<std::int64_t> greater_than;
  std::optional<std::int64_t> less_than;
  std::optional<int> min_values;

  [[nodiscard]] static Requirement make(std::string key, Operator op, std::vector<std::string> values,
                                        std::optional<int> min_values = std::nullopt);

  [[nodiscard]] bool has(std::string_view value) const;
  // Number of allowed values; "infinite" for complements.
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] Operator op() const;
  [[nodiscard]] Requirement intersection(const Requirement& other) const;
  // intersection(other).empty(), without building it (launch checks hundreds of types).
  [[nodiscard]] bool intersection_empty(const Requirement& other) const;
  // A representative allowed value (the smallest listed one); "" when none is listed.
  [[nodiscard]] std::string any() const;

  bool operator==(const Requirement&) const = default;
};

// Requirements keyed by label; a missing key allows anything (it behaves as Exists).
class Requirements
{
public:
  Requirements() = default;

  // Labels of a node or instance type: each becomes key In [value].
  [[nodiscard]] static Requirements from_labels(const std::map<std::string, std::string>& labels);

  // Intersect `r` into this set (Karpenter's Requirements.Add).
  void add(const Requirement& r);
  void add(Requirement&& r);
  void add(const Requirements& other);

  [[nodiscard]] bool has(std::string_view key) const;
  // The requirement for key, or Exists when absent.
  [[nodiscard]] Requirement get(std::string_view key) const;
  [[nodiscard]] const Requirement* find(std::string_view key) const;
  [[nodiscard]] const std::vector<Requirement>& items() const { return m_items; }
  [[nodiscard]] std::vector<Requirement>& items() { return m_items; }
  void erase(std::string_view key);

  // Every shared key has a non-empty intersection (Karpenter's Intersects). Empty result = ok;
  // otherwise a message naming the first conflicting key.
  [[nodiscard]] std::string intersects(const Requirements& other) const;
  // intersects(other).empty(), without building the message.
  [[nodiscard]] bool intersects_ok(const Requirements& other) const;

  // Karpenter's Compatible: keys that `incoming` constrains with In/Exists/Gt/Lt must be
  // defined here (unless allow_undefined_well_known and the key is well known), and shared
  // keys must intersect. Empty result = compatible.
  [[nodiscard]] std::string compatible(const Requirements& incoming, bool allow_undefined_well_known) const;

  [[nodiscard]] bool is_compatible(const Requirements& incoming, bool allow_undefined_well_known) const
  {
    return compatible(incoming, allow_undefined_well_known).empty();
  }

  // from_labels(labels).is_compatible(incoming, ...), reading only the labels `incoming` names
  // (the others make no difference): a node's dozens of labels are not all copied for the few
  // keys a NodePool constrains.
  [[nodiscard]] static bool labels_compatible(const std::map<std::string, std::string>& labels,
                                              const Requirements& incoming, bool allow_undefined_well_known);

  // Labels a node created from these requirements would carry: keys with exactly one value.
  [[nodiscard]] std::map<std::string, std::string> single_value_labels() const;

  bool operator==(const Requirements&) const = default;

private:
  std::vector<Requirement> m_items; // sorted by key
};

// Well-known labels that a pod may require even when a NodePool leaves them undefined
// (core:pkg/apis/v1/labels.go WellKnownLabels plus the AWS provider's additions).
[[nodiscard]] bool is_well_known_label(std::string_view key);

// The values a well-known label may take when Karpenter knows them all (WellKnownValuesForRequirements:
// capacity type, instance tenancy); empty for the other keys.
[[nodiscard]] std::span<const std::string_view> well_known_values(std::string_view key);

// Whether a NodePool may not name `key` in its template labels or requirements (the CRD's CEL
// rules): kubernetes.io/hostname, karpenter.sh/nodepool, and keys of the karpenter.sh and
// karpenter.k8s.aws domains other than the ones Karpenter lets a NodePool set.
[[nodiscard]] bool is_restricted_node_pool_key(std::string_view key);

[[nodiscard]] std::string to_string(const Requirement& r);

// Label keys.
namespace labels {
inline constexpr std::string_view k_zone = "topology.kubernetes.io/zone";
// The zone label of the EBS CSI driver's node plugin (PersistentVolumes of older driver versions
// name it in their node affinity).
inline constexpr std::string_view k_ebs_csi_zone = "topology.ebs.csi.aws.com/zone";
inline constexpr std::string_view k_region = "topology.kubernetes.io/region";
inline constexpr std::string_view k_hostname = "kubernetes.io/hostname";
inline constexpr std::string_view k_instance_type = "node.kubernetes.io/instance-type";
inline constexpr std::string_view k_arch = "kubernetes.io/arch";
inline constexpr std::string_view k_os = "kubernetes.io/os";
inline constexpr std::string_view k_capacity_type = "karpenter.sh/capacity-type";
inline constexpr std::string_view k_nodepool = "karpenter.sh/nodepool";
inline constexpr std::string_view k_eks_nodegroup = "eks.amazonaws.com/nodegroup";
inline constexpr std::string_view k_windows_build = "node.kubernetes.io/windows-build";
inline constexpr std::string_view k_instance_category = "karpenter.k8s.aws/instance-category";
inline constexpr std::string_view k_instance_family = "karpenter.k8s.aws/instance-family";
inline constexpr std::string_view k_instance_generation = "karpenter.k8s.aws/instance-generation";
inline constexpr std::string_view k_instance_size = "karpenter.k8s.aws/instance-size";
inline constexpr std::string_view k_instance_cpu = "karpenter.k8s.aws/instance-cpu";
inline constexpr std::string_view k_instance_memory = "karpenter.k8s.aws/instance-memory";
inline constexpr std::string_view k_instance_gpu_count = "karpenter.k8s.aws/instance-gpu-count";
inline constexpr std::string_view k_instance_gpu_name = "karpenter.k8s.aws/instance-gpu-name";
inline constexpr std::string_view k_do_not_disrupt = "karpenter.sh/do-not-disrupt";
// The capacity reservation a reserved node runs in (aws:pkg/apis/v1 LabelCapacityReservationID,
// Karpenter's cloudprovider.ReservationIDLabel).
inline constexpr std::string_view k_capacity_reservation_id = "karpenter.k8s.aws/capacity-reservation-id";
// default or dedicated: set on every node Karpenter launches (aws:pkg/cloudprovider).
inline constexpr std::string_view k_instance_tenancy = "karpenter.k8s.aws/instance-tenancy";
} // namespace labels

inline constexpr std::string_view k_capacity_spot = "spot";
inline constexpr std::string_view k_capacity_on_demand = "on-demand";
inline constexpr std::string_view k_capacity_reserved = "reserved";

} // namespace capsim::model
