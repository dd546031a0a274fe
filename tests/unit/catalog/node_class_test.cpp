// An EC2NodeClass's kubelet settings, AMI family and root volume change its instance types
// (catalog::apply_node_class), as in aws/karpenter-provider-aws
// pkg/providers/instancetype/suite_test.go (Context "Metadata and Overhead" / "Kube Reserved",
// "System Reserved Resources", "Eviction Thresholds", "Pod Density"). Types come from the
// embedded catalog (AL2023 defaults).
#include "core/base/units.hpp"
#include "core/catalog/aws_allocatable.hpp"
#include "core/catalog/catalog.hpp"
#include "core/catalog/load.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace capsim;
using namespace capsim::catalog;

namespace {

const Catalog& us_east_1()
{
  static const Catalog c = load_catalog("us-east-1");
  return c;
}

const InstanceType& type(std::string_view name)
{
  const auto* t = us_east_1().find(name);
  REQUIRE(t != nullptr);
  return *t;
}

// The ENI-limited pods of a type (the catalog's pods under the AL2023 defaults).
std::int64_t eni_pods(const InstanceType& t)
{
  return t.capacity.pods();
}

} // namespace

TEST_CASE("node class: the defaults leave a type as the catalog built it", "[catalog][node-class]")
{
  const auto& m5 = type("m5.xlarge");
  REQUIRE(m5.aws_model);
  NodeClassSettings al2;
  al2.ami_family = "AL2";
  CHECK(al2.is_default());
  const auto same = apply_node_class(m5, al2);
  CHECK(same.capacity == m5.capacity);
  CHECK(same.overhead == m5.overhead);
  // "Kube Reserved ... should use defaults": 80m and 893Mi on m5.xlarge.
  CHECK(m5.overhead.cpu() == 80);
  CHECK(m5.overhead.memory() == 893 * k_mib + 100 * k_mib);
  // "should default max pods based off of network interfaces".
  CHECK(type("t3.large").capacity.pods() == 35);
  CHECK(type("m6idn.32xlarge").capacity.pods() == 394);
}

TEST_CASE("node class: systemReserved and kubeReserved replace their defaults per resource", "[catalog][node-class]")
{
  const auto& m5 = type("m5.xlarge");
  NodeClassSettings system;
  system.system_reserved = {{"cpu", "2"}, {"memory", "20Gi"}, {"ephemeral-storage", "10Gi"}};
  const auto with_system = apply_node_class(m5, system);
  // System reserved adds to the default kube-reserved (80m, 893Mi, 1Gi) and eviction (100Mi, 2Gi).
  CHECK(with_system.overhead.cpu() == 80 + 2000);
  CHECK(with_system.overhead.memory() == 893 * k_mib + 20 * k_gib + 100 * k_mib);
  CHECK(with_system.overhead[model::k_ephemeral_storage] == k_gib + 10 * k_gib + 2 * k_gib);

  // "should override kube reserved when specified".
  NodeClassSettings both;
  both.system_reserved = {{"cpu", "1"}, {"memory", "20Gi"}, {"ephemeral-storage", "1Gi"}};
  both.kube_reserved = {{"cpu", "2"}, {"memory", "10Gi"}, {"ephemeral-storage", "2Gi"}, {"pid", "1000"}};
  const auto with_both = apply_node_class(m5, both);
  CHECK(with_both.overhead.cpu() == 2000 + 1000);
  CHECK(with_both.overhead.memory() == 10 * k_gib + 20 * k_gib + 100 * k_mib);
  CHECK(with_both.overhead[model::k_ephemeral_storage] == 2 * k_gib + k_gib + 2 * k_gib);
  CHECK(with_both.capacity == m5.capacity);
}

TEST_CASE("node class: evictionHard sets the eviction threshold", "[catalog][node-class]")
{
  const auto& m5 = type("m5.xlarge");
  const auto memory_threshold = [&](const std::string& family, const std::string& value) {
    NodeClassSettings s;
    s.ami_family = family;
    s.system_reserved = {{"memory", "20Gi"}};
    s.kube_reserved = {{"memory", "10Gi"}};
    s.eviction_hard = {{"memory.available", value}};
    return apply_node_class(m5, s).overhead.memory() - 30 * k_gib;
  };
  // "should override eviction threshold when specified as a quantity".
  CHECK(memory_threshold("", "500Mi") == 500 * k_mib);
  // "... as a percentage value": 10% of the memory capacity, rounded up.
  CHECK(memory_threshold("", "10%")
        == static_cast<std::int64_t>(std::ceil(static_cast<double>(m5.capacity.memory()) / 100 * 10)));
  // "should consider the eviction threshold disabled when specified as 100%".
  CHECK(memory_threshold("", "100%") == 0);
  // "should ignore eviction threshold when using Bottlerocket AMI": evictionHard still counts.
  CHECK(memory_threshold("Bottlerocket", "1Gi") == k_gib);
  // nodefs.available against the ephemeral storage.
  NodeClassSettings nodefs;
  nodefs.eviction_hard = {{"nodefs.available", "5%"}};
  const auto with_nodefs = apply_node_class(m5, nodefs);
  CHECK(with_nodefs.overhead[model::k_ephemeral_storage] == k_gib + static_cast<std::int64_t>(std::ceil(20.0 * k_gib / 100 * 5)));
  CHECK(with_nodefs.overhead.memory() == m5.overhead.memory());
}

TEST_CASE("node class: maxPods and podsPerCore set the pods", "[catalog][node-class]")
{
  NodeClassSettings ten;
  ten.max_pods = 10;
  NodeClassSettings per_core;
  per_core.pods_per_core = 1;
  NodeClassSettings per_core_and_max;
  per_core_and_max.pods_per_core = 4;
  per_core_and_max.max_pods = 20;
  NodeClassSettings bottlerocket_per_core;
  bottlerocket_per_core.ami_family = "Bottlerocket";
  bottlerocket_per_core.pods_per_core = 1;
  NodeClassSettings zero_per_core;
  zero_per_core.pods_per_core = 0;
  zero_per_core.system_reserved = {{"cpu", "1m"}}; // (not default, so the type is rebuilt)
  std::size_t checked = 0;
  for (const auto& t : us_east_1().instance_types()) {
    const std::int64_t vcpus = t.capacity.cpu() / 1000;
    // "should override max-pods value" / "should set max-pods to user-defined value".
    CHECK(apply_node_class(t, ten).capacity.pods() == 10);
    // "should override pods-per-core value".
    CHECK(apply_node_class(t, per_core).capacity.pods() == std::min(vcpus, eni_pods(t)));
    // "should take the minimum of pods-per-core and max-pods".
    CHECK(apply_node_class(t, per_core_and_max).capacity.pods() == std::min<std::int64_t>(4 * vcpus, 20));
    // "should ignore pods-per-core when using Bottlerocket AMI".
    CHECK(apply_node_class(t, bottlerocket_per_core).capacity.pods() == eni_pods(t));
    // "should take limited pod density to be the default pods number when pods-per-core is 0".
    CHECK(apply_node_class(t, zero_per_core).capacity.pods() == eni_pods(t));
    ++checked;
  }
  CHECK(checked > 1000);
}

TEST_CASE("node class: kube-reserved memory follows the ENI-limited pods, or the pods on Bottlerocket and Windows",
          "[catalog][node-class]")
{
  // The AMI families of "should set max-pods ... based on AMI family" with maxPods 24 on
  // t3.large (35 ENI-limited pods): AL2, AL2023 and Custom reserve 11 x 35 + 255 = 640Mi;
  // Bottlerocket and Windows 11 x 24 + 255 = 519Mi.
  const auto& t3 = type("t3.large");
  for (const auto& [family, memory] : std::vector<std::pair<std::string, std::int64_t>>{
           {"AL2", 640}, {"AL2023", 640}, {"Custom", 640}, {"Bottlerocket", 519}, {"Windows2022", 519}}) {
    INFO(family);
    NodeClassSettings s;
    s.ami_family = family;
    s.max_pods = 24;
    const auto t = apply_node_class(t3, s);
    CHECK(t.capacity.pods() == 24);
    const std::int64_t eviction = 100 * k_mib;
    CHECK(t.overhead.memory() == memory * k_mib + eviction);
  }
  // Without maxPods, Windows has 110 pods (no ENI-limited density) and a 50Gi volume.
  NodeClassSettings windows;
  windows.ami_family = "Windows2019";
  const auto w = apply_node_class(t3, windows);
  CHECK(w.capacity.pods() == 110);
  CHECK(w.overhead.memory() == (11 * 110 + 255) * k_mib + 100 * k_mib);
  CHECK(w.capacity[model::k_ephemeral_storage] == 50 * k_gib);
}

TEST_CASE("node class: the root volume sizes the ephemeral storage", "[catalog][node-class]")
{
  const auto& m5 = type("m5.xlarge");
  NodeClassSettings s;
  s.ephemeral_storage = 100 * k_gib;
  const auto t = apply_node_class(m5, s);
  CHECK(t.capacity[model::k_ephemeral_storage] == 100 * k_gib);
  // 1Gi kube-reserved + 10% eviction.
  CHECK(t.overhead[model::k_ephemeral_storage] == k_gib + 10 * k_gib);
  CHECK(t.allocatable()[model::k_ephemeral_storage] == 89 * k_gib);
}

TEST_CASE("node class: instanceStorePolicy RAID0 makes the instance store the ephemeral storage",
          "[catalog][node-class]")
{
  // instancetype suite_test.go "should launch instances w/ instance storage for ephemeral storage
  // resource requests when disks are mounted for ephemeral-storage": m6idn.32xlarge's capacity
  // is its 7600G of NVMe (ephemeralStorage(): "%dG" of TotalSizeInGB).
  NodeClassSettings s;
  s.instance_store_raid0 = true;
  CHECK_FALSE(s.is_default());
  const auto t = apply_node_class(type("m6idn.32xlarge"), s);
  const std::int64_t store = 7600LL * 1'000'000'000;
  CHECK(t.capacity[model::k_ephemeral_storage] == store);
  // 1Gi kube-reserved + 10% eviction of the new size.
  CHECK(t.overhead[model::k_ephemeral_storage]
        == k_gib + static_cast<std::int64_t>(std::ceil(static_cast<double>(store) / 10)));
  // A type without an instance store keeps the root volume (20Gi by default, or the mapping's).
  CHECK(apply_node_class(type("m5.xlarge"), s).capacity[model::k_ephemeral_storage] == 20 * k_gib);
  s.ephemeral_storage = 100 * k_gib;
  CHECK(apply_node_class(type("m5.xlarge"), s).capacity[model::k_ephemeral_storage] == 100 * k_gib);
  CHECK(apply_node_class(type("m5d.large"), s).capacity[model::k_ephemeral_storage] == 75LL * 1'000'000'000);
}

TEST_CASE("node class: an inline type with its own overhead is left alone", "[catalog][node-class]")
{
  InstanceType inline_type;
  inline_type.name = "default-instance-type";
  inline_type.capacity[model::k_cpu] = 4000;
  inline_type.capacity[model::k_memory] = 4 * k_gib;
  inline_type.capacity[model::k_pods] = 5;
  inline_type.overhead[model::k_cpu] = 100;
  NodeClassSettings s;
  s.max_pods = 110;
  const auto t = apply_node_class(inline_type, s);
  CHECK(t.capacity.pods() == 5);
  CHECK(t.overhead == inline_type.overhead);
}

TEST_CASE("node class: a Windows AMI family makes amd64 types windows nodes of its build", "[catalog][node-class]")
{
  // getOS and the windows-build requirement of computeRequirements.
  NodeClassSettings s;
  s.ami_family = "Windows2022";
  const auto m5 = apply_node_class(type("m5.xlarge"), s);
  CHECK(m5.labels.at("kubernetes.io/os") == "windows");
  CHECK(m5.labels.at("node.kubernetes.io/windows-build") == "10.0.20348");
  CHECK(m5.requirements.get("kubernetes.io/os").values == std::vector<std::string>{"windows"});
  CHECK(m5.requirements.get("node.kubernetes.io/windows-build").values == std::vector<std::string>{"10.0.20348"});
  CHECK(m5.requirements.get("karpenter.sh/capacity-type").values == type("m5.xlarge").requirements.get("karpenter.sh/capacity-type").values);
  // arm64 types have no OS under a Windows AMI.
  const auto m6g = apply_node_class(type("m6g.xlarge"), s);
  const auto os = m6g.requirements.get("kubernetes.io/os");
  CHECK_FALSE(os.complement);
  CHECK(os.values.empty());
  // Linux families keep linux.
  NodeClassSettings bottlerocket;
  bottlerocket.ami_family = "Bottlerocket";
  bottlerocket.max_pods = 50;
  CHECK(apply_node_class(type("m5.xlarge"), bottlerocket).labels.at("kubernetes.io/os") == "linux");
}
