#pragma once

#include "core/base/units.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

// Karpenter's AWS instance-type resource model (aws/karpenter-provider-aws
// pkg/providers/instancetype/types.go; research notes karpenter-model.md §2), with the defaults
// of an AL2023 EC2NodeClass and no kubelet overrides:
//   capacity.cpu     = vCPU x 1000 millicores
//   capacity.memory  = (MiB - 64 if arm64) - ceil(that x 7.5%) MiB       (VM overhead)
//   capacity.pods    = ENI-limited: max ENIs of the default card x (IPv4 per ENI - 1) + 2
//   capacity.ephemeral-storage = 20Gi (default root volume)
//   kube-reserved    = cpu 6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25% of the rest;
//                      memory 11 x pods + 255 MiB; ephemeral-storage 1Gi
//   eviction         = memory 100Mi; ephemeral-storage ceil(10% of capacity)
//   allocatable      = capacity - kube-reserved - system-reserved (0) - eviction
namespace capsim::catalog {

inline constexpr double k_vm_memory_overhead_percent = 0.075;          // --vm-memory-overhead-percent
inline constexpr std::int64_t k_arm64_cma_reserved_mib = 64;           // Graviton "cma reserved"
inline constexpr std::int64_t k_default_ephemeral_storage = 20 * k_gib; // amifamily DefaultEBS
inline constexpr std::int64_t k_kube_reserved_ephemeral = k_gib;
inline constexpr std::int64_t k_eviction_memory = 100 * k_mib;
inline constexpr std::int64_t k_default_max_pods = 110; // AMI families without ENI-limited density

// The facts about one EC2 instance type that the resource model and Karpenter's labels need.
// Counts are 0 and optionals empty when the source does not know them.
struct AwsInstanceSpec
{
  std::string name{}; // "m5.large"
  std::string family{};
  std::string category{};
  std::optional<std::int64_t> generation{};
  std::string size{};
  std::int64_t vcpu = 0;
  std::int64_t memory_mib = 0; // as EC2 reports it (label instance-memory)
  std::string arch{}; // "amd64" | "arm64"
  std::string cpu_manufacturer{};
  std::optional<std::int64_t> cpu_sustained_clock_mhz{};
  std::string hypervisor{}; // "nitro", "xen", "" for bare metal
  bool bare_metal = false;
  bool burstable = false;
  bool capability_flex = false;
  std::int64_t gpu_count = 0;
  std::string gpu_name{};
  std::string gpu_manufacturer{};
  std::optional<std::int64_t> gpu_memory_mib{};
  std::int64_t accelerator_count = 0;
  std::string accelerator_name{};
  std::string accelerator_manufacturer{};
  std::optional<std::int64_t> local_nvme_gib{};
  std::optional<std::int64_t> network_bandwidth_mbps{};
  std::optional<std::int64_t> ebs_bandwidth_mbps{};
  bool encryption_in_transit = false;
  // Extended resources Karpenter advertises.
  std::int64_t efa = 0;        // vpc.amazonaws.com/efa
  std::int64_t nvidia_gpu = 0; // nvidia.com/gpu
  std::int64_t amd_gpu = 0;    // amd.com/gpu
  std::int64_t neuron = 0;     // aws.amazon.com/neuron
  std::int64_t neuroncore = 0; // aws.amazon.com/neuroncore
  std::int64_t pod_eni = 0;    // vpc.amazonaws.com/pod-eni (branch ENIs, trunking types only)
  // Network limits for the ENI-limited pod count.
  std::optional<std::int64_t> max_enis_default_card{};
  std::optional<std::int64_t> ipv4_per_eni{};
  std::optional<std::int64_t> max_pods_table{}; // the VPC CNI's eni-max-pods value (fallback)
  // Karpenter's own published figures (reference columns used by tests; not used to compute).
  std::optional<std::int64_t> karpenter_pods{};
  std::optional<std::int64_t> karpenter_allocatable_cpu_millis{};
  std::optional<std::int64_t> karpenter_allocatable_memory_mib{};
  std::optional<std::int64_t> karpenter_ephemeral_storage_gib{};
};

// Kubelet/operator settings that change the model. The defaults are Karpenter's.
struct AwsModelOptions
{
  double vm_memory_overhead_percent = k_vm_memory_overhead_percent;
  std::int64_t reserved_enis = 0;                               // --reserved-enis
  std::optional<std::int64_t> max_pods{};                       // kubelet.maxPods
  std::int64_t ephemeral_storage = k_default_ephemeral_storage; // root volume, bytes
};

// Capacity and overhead (kube-reserved + system-reserved + eviction threshold) of one type.
struct AwsResources
{
  model::Resources capacity;
  model::Resources overhead;
};

// Memory capacity in MiB after the arm64 reservation and the VM overhead:
// m5.large 8192 -> 7577; t4g.small (arm64) 2048 -> 1835.
[[nodiscard]] std::int64_t aws_memory_capacity_mib(std::int64_t memory_mib, bool arm64,
                                                   double vm_memory_overhead_percent = k_vm_memory_overhead_percent);

// ENI-limited pods: usable ENIs x (IPv4 per ENI - 1) + 2, usable = max(enis - reserved, 0);
// 0 when no ENI is usable. m5.large (3 ENIs, 10 IPv4 each) -> 29.
[[nodiscard]] std::int64_t aws_eni_limited_pods(std::int64_t max_enis_default_card, std::int64_t ipv4_per_eni,
                                                std::int64_t reserved_enis = 0);

// The pods capacity of `spec`: options.max_pods if set, else ENI-limited, else the CNI
// table's value, else 110.
[[nodiscard]] std::int64_t aws_pods(const AwsInstanceSpec& spec, const AwsModelOptions& options = {});

// kube-reserved cpu in millicores for `cpu_millis` of capacity (banded, each band truncated):
// 1000 -> 60, 2000 -> 70, 4000 -> 80, 96000 -> 310.
[[nodiscard]] std::int64_t aws_kube_reserved_cpu_millis(std::int64_t cpu_millis);

// kube-reserved memory in bytes: (11 x pods + 255) MiB.
[[nodiscard]] std::int64_t aws_kube_reserved_memory(std::int64_t pods);

// kube-reserved {cpu, memory, ephemeral-storage 1Gi} for a node with this cpu and pod count.
[[nodiscard]] model::Resources aws_kube_reserved(std::int64_t cpu_millis, std::int64_t pods);

// Hard eviction threshold {memory 100Mi, ephemeral-storage ceil(10% of ephemeral_storage)}.
[[nodiscard]] model::Resources aws_eviction_threshold(std::int64_t ephemeral_storage);

// The AWS overhead (kube-reserved + eviction threshold; system-reserved is 0) of a node with
// `cpu_millis` cpu, `memory_bytes` memory capacity and `pods` pods, for inline `capsim/v1
// Catalog` instance types that omit `overhead`. The defaults do not depend on memory_bytes
// (eviction memory is a flat 100Mi); it is taken so callers pass the whole capacity. The
// ephemeral-storage part assumes a root volume of `ephemeral_storage` bytes (default 20Gi:
// 1Gi kube-reserved + 2Gi eviction = 3Gi). Example: (4000, 16Gi, 58) -> cpu 80m,
// memory 993Mi (893Mi kube-reserved + 100Mi eviction), ephemeral-storage 3Gi.
[[nodiscard]] model::Resources aws_overhead(std::int64_t cpu_millis, std::int64_t memory_bytes, std::int64_t pods,
                                            std::int64_t ephemeral_storage = k_default_ephemeral_storage);

// The EC2NodeClass settings that change an instance type's capacity and overhead
// (aws:pkg/providers/instancetype/types.go NewInstanceType). Quantities as Kubernetes writes
// them; the scenario reader has checked them.
struct NodeClassSettings
{
  std::string ami_family; // AL2, AL2023 (""), Bottlerocket, Windows2019/2022/2025, Custom
  std::optional<std::int64_t> max_pods;
  std::optional<std::int64_t> pods_per_core;
  std::map<std::string, std::string> kube_reserved;   // cpu, memory, ephemeral-storage, pid
  std::map<std::string, std::string> system_reserved; // the same
  std::map<std::string, std::string> eviction_hard;   // memory.available, nodefs.available, ...
  std::optional<std::int64_t> ephemeral_storage;      // the root (ephemeral) volume's size, bytes
  bool instance_store_raid0 = false;                  // instanceStorePolicy: RAID0

  // Settings that leave every type as the catalog's AL2023 defaults built it.
  [[nodiscard]] bool is_default() const;
};

struct InstanceType;

// `base` (built with the AL2023 defaults: its pods are the ENI-limited count, its ephemeral
// storage the default 20Gi volume) as a NodeClass with `settings` launches it:
//   pods       = maxPods, else ENI-limited (110 for Windows), capped at podsPerCore x vCPU
//                (not on Bottlerocket);
//   ephemeral  = with instanceStorePolicy RAID0, the type's instance store (its
//                karpenter.k8s.aws/instance-local-nvme, in GB: 10^9 bytes); else the root
//                volume, else 20Gi (Windows 50Gi);
//   kube-reserved = the defaults (memory from the ENI-limited pods on AL2/AL2023/Custom, from
//                pods on Bottlerocket and Windows), each kubeReserved key replacing its default;
//   system-reserved = systemReserved;
//   eviction   = memory 100Mi and 10% of ephemeral, evictionHard's memory.available and
//                nodefs.available replacing them (a percentage of capacity; 100% disables).
// On a Windows AMI family the type is kubernetes.io/os=windows with the family's
// node.kubernetes.io/windows-build (arm64 types have no OS). A type whose overhead the catalog
// was given explicitly (not InstanceType::aws_model) is returned unchanged, as Karpenter's fake
// provider ignores the kubelet settings.
[[nodiscard]] InstanceType apply_node_class(const InstanceType& base, const NodeClassSettings& settings);

// Capacity and overhead of an EC2 instance type, as Karpenter computes them. Capacity lists
// cpu, memory, pods, ephemeral-storage and every non-zero extended resource (nvidia.com/gpu,
// amd.com/gpu, aws.amazon.com/neuron, aws.amazon.com/neuroncore, vpc.amazonaws.com/efa,
// vpc.amazonaws.com/pod-eni). Extended resource names are interned only when non-zero.
[[nodiscard]] AwsResources aws_instance_resources(const AwsInstanceSpec& spec, const AwsModelOptions& options = {});

} // namespace capsim::catalog
