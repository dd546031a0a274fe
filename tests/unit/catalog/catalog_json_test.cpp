#include "core/catalog/catalog_json.hpp"
#include "core/catalog/load.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::catalog;

TEST_CASE("instance type JSON has SPEC §4's shape", "[catalog][json]")
{
  const auto c = load_catalog("us-east-1");
  const auto j = instance_type_json(*c.find("m5.xlarge"));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) {
    keys.push_back(k);
  }
  CHECK(keys == std::vector<std::string>{"name", "vcpu", "memory_mib", "arch", "gpu_count", "labels", "capacity",
                                         "allocatable", "offerings"});
  CHECK(j["name"] == "m5.xlarge");
  CHECK(j["vcpu"] == 4);
  CHECK(j["memory_mib"] == 16384);
  CHECK(j["arch"] == "amd64");
  CHECK(j["gpu_count"] == 0);
  CHECK(j["labels"]["karpenter.k8s.aws/instance-family"] == "m5");
  CHECK(j["labels"].size() == 17);
  CHECK(j["capacity"].dump() ==
        R"({"cpu_millis":4000,"memory_mib":15155,"pods":58,"ephemeral_storage_mib":20480,"vpc.amazonaws.com/pod-eni":18})");
  CHECK(j["allocatable"].dump() ==
        R"({"cpu_millis":3920,"memory_mib":14162,"pods":58,"ephemeral_storage_mib":17408,"vpc.amazonaws.com/pod-eni":18})");
  REQUIRE(j["offerings"].size() == 12);
  CHECK(j["offerings"][0].dump() ==
        R"({"zone":"us-east-1a","capacity_type":"on-demand","price_per_hour":0.192,"interruption_band":null})");
  CHECK(j["offerings"][1].dump() ==
        R"({"zone":"us-east-1a","capacity_type":"spot","price_per_hour":0.067088,"interruption_band":4})");
}

TEST_CASE("resources JSON: fractional MiB and extended resources", "[catalog][json]")
{
  model::Resources r;
  r[model::k_cpu] = 1500;
  r[model::k_memory] = 1536 * 1024; // 1.5 MiB
  r[model::k_nvidia_gpu] = 2;
  CHECK(resources_json(r).dump() ==
        R"({"cpu_millis":1500,"memory_mib":1.5,"pods":0,"ephemeral_storage_mib":0,"nvidia.com/gpu":2})");
}
