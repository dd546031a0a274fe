#pragma once

#include "core/catalog/instance_type.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace capsim::catalog {

// Resources as a JSON object for `capsim catalog`: cpu_millis, memory_mib, pods and
// ephemeral_storage_mib always, then every other non-zero resource by its Kubernetes name,
// sorted ("nvidia.com/gpu": 8). Memory sizes are whole MiB when exact, else fractional MiB.
[[nodiscard]] nlohmann::ordered_json resources_json(const model::Resources& r);

// One offering: {"zone", "capacity_type", "price_per_hour", "interruption_band"} (band null
// for on-demand).
[[nodiscard]] nlohmann::ordered_json offering_json(const Offering& o);

// An instance type as SPEC §4 prints it, keys in this order: {"name", "vcpu", "memory_mib",
// "arch", "gpu_count", "labels": {...}, "capacity": {...}, "allocatable": {...},
// "offerings": [...]}. Labels are sorted by key; offerings keep the listed order.
// `offerings` overrides it.offerings (e.g. only those compatible with a filter) when given.
[[nodiscard]] nlohmann::ordered_json instance_type_json(const InstanceType& it,
                                                        const std::vector<Offering>* offerings = nullptr);

} // namespace capsim::catalog
