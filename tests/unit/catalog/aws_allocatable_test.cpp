#include "core/base/units.hpp"
#include "core/catalog/aws_allocatable.hpp"
#include "core/catalog/load.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace capsim;
using namespace capsim::catalog;

namespace {

const AwsInstanceSpec& spec(std::string_view name)
{
  const auto* s = embedded_catalog_data().find(name);
  REQUIRE(s != nullptr);
  return *s;
}

model::Resources allocatable(const AwsInstanceSpec& s)
{
  const auto r = aws_instance_resources(s);
  return (r.capacity - r.overhead).floored();
}

} // namespace

TEST_CASE("allocatable cpu, memory, pods and ephemeral storage match Karpenter for every catalog type",
          "[catalog][allocatable]")
{
  const auto& types = embedded_catalog_data().instance_types;
  REQUIRE(types.size() == 1363);
  std::vector<std::string> mismatches;
  std::size_t checked = 0;
  for (const auto& s : types) {
    REQUIRE(s.karpenter_allocatable_cpu_millis.has_value());
    REQUIRE(s.karpenter_allocatable_memory_mib.has_value());
    REQUIRE(s.karpenter_pods.has_value());
    REQUIRE(s.karpenter_ephemeral_storage_gib.has_value());
    const auto a = allocatable(s);
    const auto cap = aws_instance_resources(s).capacity;
    const bool ok = a.cpu() == *s.karpenter_allocatable_cpu_millis
                    && a.memory() == *s.karpenter_allocatable_memory_mib * k_mib && cap.pods() == *s.karpenter_pods
                    && a.pods() == *s.karpenter_pods
                    && a[model::k_ephemeral_storage] == *s.karpenter_ephemeral_storage_gib * k_gib;
    if (!ok) {
      mismatches.push_back(s.name + ": cpu " + std::to_string(a.cpu()) + " memory " +
                           std::to_string(a.memory() / k_mib) + "Mi pods " + std::to_string(cap.pods()));
    }
    ++checked;
  }
  INFO("first mismatches: " << (mismatches.empty() ? std::string() : mismatches.front()));
  CHECK(checked == 1363);
  CHECK(mismatches.empty());
}

TEST_CASE("m5.xlarge: 3920m, 14162Mi, 58 pods, 17Gi ephemeral", "[catalog][allocatable]")
{
  const auto& s = spec("m5.xlarge");
  const auto r = aws_instance_resources(s);
  CHECK(r.capacity.cpu() == 4000);
  CHECK(r.capacity.memory() == 15155 * k_mib); // 16384 - ceil(1228.8)
  CHECK(r.capacity.pods() == 58);              // 4 x (15 - 1) + 2
  CHECK(r.capacity[model::k_ephemeral_storage] == 20 * k_gib);
  CHECK(r.overhead.cpu() == 80);
  CHECK(r.overhead.memory() == (893 + 100) * k_mib);
  CHECK(r.overhead[model::k_ephemeral_storage] == 3 * k_gib);
  const auto a = allocatable(s);
  CHECK(a.cpu() == 3920);
  CHECK(a.memory() == 14162 * k_mib);
  CHECK(a.pods() == 58);
  CHECK(a[model::k_ephemeral_storage] == 17 * k_gib);
}

TEST_CASE("worked examples of the research notes", "[catalog][allocatable]")
{
  // t4g.small (arm64): 2048 - 64 = 1984, - ceil(148.8) = 1835; - 376 - 100 = 1359.
  CHECK(aws_memory_capacity_mib(2048, true) == 1835);
  CHECK(allocatable(spec("t4g.small")).memory() == 1359 * k_mib);
  CHECK(aws_pods(spec("t4g.small")) == 11);
  CHECK(allocatable(spec("t4g.xlarge")).memory() == 14103 * k_mib);
  CHECK(allocatable(spec("m5.large")).memory() == 6903 * k_mib);
  CHECK(aws_memory_capacity_mib(8192, false) == 7577);
  CHECK(aws_pods(spec("t3.large")) == 35);
  CHECK(aws_pods(spec("m6idn.32xlarge")) == 394);
  CHECK(allocatable(spec("t3.large")).memory() == 6837 * k_mib);
}

TEST_CASE("kube-reserved cpu bands", "[catalog][allocatable]")
{
  CHECK(aws_kube_reserved_cpu_millis(1000) == 60);
  CHECK(aws_kube_reserved_cpu_millis(2000) == 70);
  CHECK(aws_kube_reserved_cpu_millis(4000) == 80);
  CHECK(aws_kube_reserved_cpu_millis(8000) == 90);
  CHECK(aws_kube_reserved_cpu_millis(16000) == 110);
  CHECK(aws_kube_reserved_cpu_millis(32000) == 150);
  CHECK(aws_kube_reserved_cpu_millis(64000) == 230);
  CHECK(aws_kube_reserved_cpu_millis(96000) == 310);
  CHECK(aws_kube_reserved_cpu_millis(500) == 30);
  CHECK(aws_kube_reserved_cpu_millis(0) == 0);
}

TEST_CASE("ENI-limited pods and their fallbacks", "[catalog][allocatable]")
{
  CHECK(aws_eni_limited_pods(3, 10) == 29);
  CHECK(aws_eni_limited_pods(3, 10, 1) == 20);
  CHECK(aws_eni_limited_pods(1, 10, 1) == 0);
  AwsInstanceSpec s{.name = "x.large", .vcpu = 2, .memory_mib = 8192, .arch = "amd64"};
  CHECK(aws_pods(s) == 110);
  s.max_pods_table = 100;
  CHECK(aws_pods(s) == 100);
  s.max_enis_default_card = 3;
  s.ipv4_per_eni = 10;
  CHECK(aws_pods(s) == 29);
  CHECK(aws_pods(s, {.max_pods = 50}) == 50);
  // maxPods changes capacity but not the ENI-sized kube-reserved memory (AL2023).
  const auto r = aws_instance_resources(s, {.max_pods = 50});
  CHECK(r.capacity.pods() == 50);
  CHECK(r.overhead.memory() == (11 * 29 + 255 + 100) * k_mib);
  // The hpc types without ENI limits use the CNI table's 100.
  CHECK(aws_pods(spec("hpc6a.48xlarge")) == 100);
}

TEST_CASE("aws_overhead for inline catalog types", "[catalog][allocatable]")
{
  const auto o = aws_overhead(4000, 16 * k_gib, 58);
  CHECK(o.cpu() == 80);
  CHECK(o.memory() == 993 * k_mib);
  CHECK(o.pods() == 0);
  CHECK(o[model::k_ephemeral_storage] == 3 * k_gib);
  const auto small = aws_overhead(1000, 4 * k_gib, 5, 50 * k_gib);
  CHECK(small.cpu() == 60);
  CHECK(small.memory() == (55 + 255 + 100) * k_mib);
  CHECK(small[model::k_ephemeral_storage] == k_gib + 5 * k_gib);
}

TEST_CASE("extended resources Karpenter advertises", "[catalog][allocatable]")
{
  const auto p4d = aws_instance_resources(spec("p4d.24xlarge")).capacity;
  CHECK(p4d[model::k_nvidia_gpu] == 8);
  CHECK(p4d[*model::find_resource_id("vpc.amazonaws.com/efa")] == 4);
  CHECK(p4d[*model::find_resource_id("vpc.amazonaws.com/pod-eni")] == 62);
  const auto inf2 = aws_instance_resources(spec("inf2.xlarge")).capacity;
  CHECK(inf2[*model::find_resource_id("aws.amazon.com/neuron")] == 1);
  CHECK(inf2[*model::find_resource_id("aws.amazon.com/neuroncore")] == 2);
  CHECK(inf2[model::k_nvidia_gpu] == 0);
}
