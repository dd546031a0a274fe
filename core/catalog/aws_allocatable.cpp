#include "core/catalog/aws_allocatable.hpp"

#include "core/base/diagnostics.hpp"
#include "core/base/quantity.hpp"
#include "core/catalog/instance_type.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace capsim::catalog {

std::int64_t aws_memory_capacity_mib(std::int64_t memory_mib, bool arm64, double vm_memory_overhead_percent)
{
  const std::int64_t size_mib = arm64 ? memory_mib - k_arm64_cma_reserved_mib : memory_mib;
  // Same float64 expression as Karpenter (bytes x percent / 1024 / 1024, then ceil), so the
  // rounding is identical.
  const double bytes = static_cast<double>(size_mib * k_mib);
  const auto overhead_mib = static_cast<std::int64_t>(std::ceil(bytes * vm_memory_overhead_percent / 1024 / 1024));
  return size_mib - overhead_mib;
}

std::int64_t aws_eni_limited_pods(std::int64_t max_enis_default_card, std::int64_t ipv4_per_eni,
                                  std::int64_t reserved_enis)
{
  const std::int64_t usable = std::max<std::int64_t>(max_enis_default_card - reserved_enis, 0);
  if (usable == 0) {
    return 0;
  }
  return usable * (ipv4_per_eni - 1) + 2;
}

std::int64_t aws_pods(const AwsInstanceSpec& spec, const AwsModelOptions& options)
{
  if (options.max_pods) {
    return *options.max_pods;
  }
  if (spec.max_enis_default_card && spec.ipv4_per_eni) {
    return aws_eni_limited_pods(*spec.max_enis_default_card, *spec.ipv4_per_eni, options.reserved_enis);
  }
  if (spec.max_pods_table) {
    return *spec.max_pods_table;
  }
  return k_default_max_pods;
}

std::int64_t aws_kube_reserved_cpu_millis(std::int64_t cpu_millis)
{
  struct Band
  {
    std::int64_t start;
    std::int64_t end;
    double percentage;
  };
  static constexpr Band k_bands[] = {
      {0, 1000, 0.06},
      {1000, 2000, 0.01},
      {2000, 4000, 0.005},
      {4000, std::int64_t{1} << 31, 0.0025},
  };
  std::int64_t reserved = 0;
  for (const auto& band : k_bands) {
    if (cpu_millis >= band.start) {
      const double width = static_cast<double>(cpu_millis < band.end ? cpu_millis - band.start : band.end - band.start);
      reserved += static_cast<std::int64_t>(width * band.percentage);
    }
  }
  return reserved;
}

std::int64_t aws_kube_reserved_memory(std::int64_t pods)
{
  return (11 * pods + 255) * k_mib;
}

model::Resources aws_kube_reserved(std::int64_t cpu_millis, std::int64_t pods)
{
  model::Resources r;
  r[model::k_cpu] = aws_kube_reserved_cpu_millis(cpu_millis);
  r[model::k_memory] = aws_kube_reserved_memory(pods);
  r[model::k_ephemeral_storage] = k_kube_reserved_ephemeral;
  return r;
}

model::Resources aws_eviction_threshold(std::int64_t ephemeral_storage)
{
  model::Resources r;
  r[model::k_memory] = k_eviction_memory;
  r[model::k_ephemeral_storage] =
      static_cast<std::int64_t>(std::ceil(static_cast<double>(ephemeral_storage) / 100 * 10));
  return r;
}

model::Resources aws_overhead(std::int64_t cpu_millis, [[maybe_unused]] std::int64_t memory_bytes, std::int64_t pods,
                              std::int64_t ephemeral_storage)
{
  return aws_kube_reserved(cpu_millis, pods) + aws_eviction_threshold(ephemeral_storage);
}

namespace {

void set_extended(model::Resources& r, std::string_view name, std::int64_t value)
{
  if (value == 0) {
    return;
  }
  const auto id = model::resource_id(name);
  CAPSIM_CHECK(id.has_value(), "no free resource slot for " + std::string(name));
  r[*id] = value;
}

} // namespace

AwsResources aws_instance_resources(const AwsInstanceSpec& spec, const AwsModelOptions& options)
{
  AwsResources out;
  const std::int64_t cpu_millis = spec.vcpu * 1000;
  const std::int64_t pods = aws_pods(spec, options);
  auto& cap = out.capacity;
  cap[model::k_cpu] = cpu_millis;
  cap[model::k_memory] =
      aws_memory_capacity_mib(spec.memory_mib, spec.arch == "arm64", options.vm_memory_overhead_percent) * k_mib;
  cap[model::k_pods] = pods;
  cap[model::k_ephemeral_storage] = options.ephemeral_storage;
  cap[model::k_nvidia_gpu] = spec.nvidia_gpu;
  set_extended(cap, "amd.com/gpu", spec.amd_gpu);
  set_extended(cap, "aws.amazon.com/neuron", spec.neuron);
  set_extended(cap, "aws.amazon.com/neuroncore", spec.neuroncore);
  set_extended(cap, "vpc.amazonaws.com/efa", spec.efa);
  set_extended(cap, "vpc.amazonaws.com/pod-eni", spec.pod_eni);
  // AL2023 sizes kube-reserved memory from the ENI-limited pod count with no reserved ENIs,
  // whatever maxPods says (UsesENILimitedMemoryOverhead).
  const std::int64_t reserved_pods = aws_pods(spec, AwsModelOptions{});
  out.overhead = aws_kube_reserved(cpu_millis, reserved_pods) + aws_eviction_threshold(options.ephemeral_storage);
  return out;
}

bool NodeClassSettings::is_default() const
{
  return (ami_family.empty() || ami_family == "AL2023" || ami_family == "AL2") && !max_pods && !pods_per_core
         && kube_reserved.empty() && system_reserved.empty() && eviction_hard.empty()
         && (!ephemeral_storage || *ephemeral_storage == k_default_ephemeral_storage) && !instance_store_raid0;
}

namespace {

bool is_windows(const std::string& family)
{
  return family.rfind("Windows", 0) == 0;
}

// A kubeReserved / systemReserved quantity (the reader checked it; 0 if not).
std::int64_t reserved_amount(const std::string& resource, const std::string& value)
{
  const auto q = resource == "cpu" ? parse_quantity_milli(value) : parse_quantity(value);
  return q ? *q : 0;
}

// computeEvictionSignal: a percentage of capacity (ceil; 100% disables the threshold), or a
// quantity.
std::int64_t eviction_signal(std::int64_t capacity, const std::string& value)
{
  if (!value.empty() && value.back() == '%') {
    double pct = 0;
    std::from_chars(value.data(), value.data() + value.size() - 1, pct);
    if (pct == 100) {
      pct = 0;
    }
    return static_cast<std::int64_t>(std::ceil(static_cast<double>(capacity) / 100 * pct));
  }
  const auto q = parse_quantity(value);
  return q ? *q : 0;
}

// kubeReserved / systemReserved keys onto resources (pid is not a resource capsim tracks).
void assign_reserved(model::Resources& r, const std::map<std::string, std::string>& overrides)
{
  for (const auto& [resource, value] : overrides) {
    if (resource == "cpu") {
      r[model::k_cpu] = reserved_amount(resource, value);
    } else if (resource == "memory") {
      r[model::k_memory] = reserved_amount(resource, value);
    } else if (resource == "ephemeral-storage") {
      r[model::k_ephemeral_storage] = reserved_amount(resource, value);
    }
  }
}

} // namespace

InstanceType apply_node_class(const InstanceType& base, const NodeClassSettings& settings)
{
  InstanceType t = base;
  if (!base.aws_model || settings.is_default()) {
    return t;
  }
  const std::string& family = settings.ami_family;
  const bool windows = is_windows(family);
  const bool bottlerocket = family == "Bottlerocket";
  const std::int64_t cpu = base.capacity.cpu();
  const std::int64_t eni_pods = base.capacity.pods(); // the AL2023 default: ENI-limited
  std::int64_t pods = settings.max_pods ? *settings.max_pods : (windows ? k_default_max_pods : eni_pods);
  if (settings.pods_per_core && *settings.pods_per_core > 0 && !bottlerocket) {
    pods = std::min(pods, *settings.pods_per_core * (cpu / 1000));
  }
  const bool storage = base.capacity[model::k_ephemeral_storage] != 0;
  // (An inline type keeps the ephemeral storage it lists unless the class sizes the volume.)
  std::int64_t ephemeral = settings.ephemeral_storage ? *settings.ephemeral_storage
                           : windows                  ? 50 * k_gib
                                                      : base.capacity[model::k_ephemeral_storage];
  if (settings.instance_store_raid0) {
    // RAID0 makes the instance store disks the node's ephemeral storage (types without one
    // keep the root volume).
    const auto it = base.labels.find("karpenter.k8s.aws/instance-local-nvme");
    std::int64_t gb = 0;
    if (it != base.labels.end()) {
      const auto& text = it->second;
      std::from_chars(text.data(), text.data() + text.size(), gb);
    }
    if (gb > 0) {
      ephemeral = gb * 1'000'000'000;
    }
  }
  t.capacity[model::k_pods] = pods;
  if (storage) {
    t.capacity[model::k_ephemeral_storage] = ephemeral;
  }
  // UsesENILimitedMemoryOverhead: AL2, AL2023 and Custom size kube-reserved memory from the
  // ENI-limited pods whatever maxPods says; Bottlerocket and Windows from the pods.
  model::Resources kube = aws_kube_reserved(cpu, bottlerocket || windows ? pods : eni_pods);
  if (!storage) {
    kube[model::k_ephemeral_storage] = 0;
  }
  assign_reserved(kube, settings.kube_reserved);
  model::Resources system;
  assign_reserved(system, settings.system_reserved);
  model::Resources eviction;
  eviction[model::k_memory] = k_eviction_memory;
  if (storage) {
    eviction[model::k_ephemeral_storage] = aws_eviction_threshold(ephemeral)[model::k_ephemeral_storage];
  }
  if (const auto it = settings.eviction_hard.find("memory.available"); it != settings.eviction_hard.end()) {
    eviction[model::k_memory] = eviction_signal(base.capacity.memory(), it->second);
  }
  if (const auto it = settings.eviction_hard.find("nodefs.available"); it != settings.eviction_hard.end() && storage) {
    eviction[model::k_ephemeral_storage] = eviction_signal(ephemeral, it->second);
  }
  t.overhead = kube + system + eviction;
  if (windows) {
    // getOS: Windows AMIs run amd64 types as windows (no OS for others), with the family's
    // node.kubernetes.io/windows-build.
    static const std::map<std::string, std::string> k_builds{
        {"Windows2019", "10.0.17763"}, {"Windows2022", "10.0.20348"}, {"Windows2025", "10.0.26100"}};
    t.labels[std::string(model::labels::k_os)] = "windows";
    if (const auto b = k_builds.find(family); b != k_builds.end()) {
      t.labels[std::string(model::labels::k_windows_build)] = b->second;
    }
    finalize_requirements(t);
    if (base.arch != "amd64") {
      t.requirements.erase(model::labels::k_os);
      t.requirements.add(model::Requirement::make(std::string(model::labels::k_os), model::Operator::in, {}));
    }
  }
  return t;
}

} // namespace capsim::catalog
