#pragma once

#include "core/catalog/instance_type.hpp"
#include "core/model/requirements.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// Karpenter's fake cloud provider catalogs (core:pkg/cloudprovider/fake/instancetype.go and
// cloudprovider.go), rebuilt as capsim instance types so upstream test expectations carry
// over: same capacities, overhead (100m CPU + 10Mi), prices (PriceFromResources), labels,
// requirements and offering order.
namespace capsim::testing {

// fake.NewInstanceType options; defaults are upstream's (4 CPU, 4Gi, 5 pods, amd64,
// OS {linux, windows, darwin}, five offerings).
struct FakeTypeOptions
{
  std::int64_t cpu_milli = 4000;
  std::int64_t memory = 4LL * 1024 * 1024 * 1024;
  std::int64_t pods = 5;
  std::vector<std::pair<std::string, std::int64_t>> extended; // e.g. {"fake.com/vendor-a", 2}
  std::string arch = "amd64";
  std::vector<std::string> os = {"darwin", "linux", "windows"};
  // Offerings in order; nullopt = the five defaults (spot/test-zone-1, spot/test-zone-2,
  // on-demand/test-zone-1, on-demand/test-zone-2, on-demand/test-zone-3), all at the fake price.
  std::optional<std::vector<catalog::Offering>> offerings;
  std::vector<model::Requirement> extra_requirements; // fake.WithRequirements
};

// PriceFromResources: 0.1 per CPU + 0.1 per 1e9 bytes of memory + 1.0 per fake GPU vendor key.
[[nodiscard]] double fake_price(std::int64_t cpu_milli, std::int64_t memory_bytes,
                                const std::vector<std::pair<std::string, std::int64_t>>& extended = {});

// fake.NewInstanceType.
[[nodiscard]] catalog::InstanceType fake_instance_type(const std::string& name, const FakeTypeOptions& options = {});

// An offering as the fake provider lists it.
[[nodiscard]] catalog::Offering fake_offering(const std::string& zone, const std::string& capacity_type, double price,
                                              bool available = true);

// fake.CloudProvider.GetInstanceTypes with no override: default-instance-type,
// small-instance-type, gpu-vendor-instance-type, gpu-vendor-b-instance-type,
// arm-instance-type, single-pod-instance-type (in that order).
[[nodiscard]] std::vector<catalog::InstanceType> fake_default_catalog();

// fake.InstanceTypes(n): fake-it-i with i+1 CPU, 2(i+1)Gi, 10(i+1) pods.
[[nodiscard]] std::vector<catalog::InstanceType> fake_instance_types(int n);

// fake.InstanceTypesAssorted(): 1344 single-offering types.
[[nodiscard]] std::vector<catalog::InstanceType> fake_instance_types_assorted();

// Label keys of the fake provider (registered as well-known upstream).
inline constexpr std::string_view k_fake_size = "size";
inline constexpr std::string_view k_fake_special = "special";
inline constexpr std::string_view k_fake_integer = "integer";
inline constexpr std::string_view k_fake_vendor_a = "fake.com/vendor-a";
inline constexpr std::string_view k_fake_vendor_b = "fake.com/vendor-b";

} // namespace capsim::testing
