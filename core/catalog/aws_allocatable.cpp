#include "core/catalog/aws_allocatable.hpp"

#include "core/base/diagnostics.hpp"

#include <algorithm>
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

} // namespace capsim::catalog
