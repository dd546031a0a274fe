#include "core/catalog/catalog_json.hpp"

#include "core/base/units.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace capsim::catalog {

namespace {

// Bytes as MiB: an integer when exact, else a fraction.
nlohmann::ordered_json mib(std::int64_t bytes)
{
  if (bytes % k_mib == 0) {
    return bytes / k_mib;
  }
  return static_cast<double>(bytes) / static_cast<double>(k_mib);
}

} // namespace

nlohmann::ordered_json resources_json(const model::Resources& r)
{
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["cpu_millis"] = r[model::k_cpu];
  j["memory_mib"] = mib(r[model::k_memory]);
  j["pods"] = r[model::k_pods];
  j["ephemeral_storage_mib"] = mib(r[model::k_ephemeral_storage]);
  // Extended resources sorted by name, so the output does not depend on the order in which
  // resource names were first seen in the process.
  std::vector<std::pair<std::string, std::int64_t>> extended;
  for (std::size_t id = model::k_nvidia_gpu; id < model::resource_count(); ++id) {
    const auto rid = static_cast<model::ResourceId>(id);
    if (r[rid] != 0) {
      extended.emplace_back(model::resource_name(rid), r[rid]);
    }
  }
  std::sort(extended.begin(), extended.end());
  for (const auto& [name, value] : extended) {
    j[name] = value;
  }
  return j;
}

nlohmann::ordered_json offering_json(const Offering& o)
{
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["zone"] = o.zone;
  j["capacity_type"] = o.capacity_type;
  j["price_per_hour"] = o.price_per_hour;
  j["interruption_band"] = o.interruption_band ? nlohmann::ordered_json(*o.interruption_band) : nullptr;
  if (!o.reservation_id.empty()) {
    j["reservation_id"] = o.reservation_id;
    j["reservation_capacity"] = o.reservation_capacity;
  }
  return j;
}

nlohmann::ordered_json instance_type_json(const InstanceType& it, const std::vector<Offering>* offerings)
{
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["name"] = it.name;
  j["vcpu"] = it.vcpu;
  j["memory_mib"] = it.memory_mib;
  j["arch"] = it.arch;
  j["gpu_count"] = it.gpu_count;
  nlohmann::ordered_json labels = nlohmann::ordered_json::object();
  for (const auto& [k, v] : it.labels) {
    labels[k] = v;
  }
  j["labels"] = std::move(labels);
  j["capacity"] = resources_json(it.capacity);
  j["allocatable"] = resources_json(it.allocatable());
  nlohmann::ordered_json offs = nlohmann::ordered_json::array();
  for (const auto& o : offerings != nullptr ? *offerings : it.offerings) {
    offs.push_back(offering_json(o));
  }
  j["offerings"] = std::move(offs);
  return j;
}

} // namespace capsim::catalog
