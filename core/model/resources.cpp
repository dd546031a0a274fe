#include "core/model/resources.hpp"

#include "core/base/quantity.hpp"

#include <fmt/format.h>

#include <mutex>

namespace capsim::model {

namespace {

struct Registry
{
  std::mutex mutex;
  std::vector<std::string> names{"cpu", "memory", "pods", "ephemeral-storage", "nvidia.com/gpu"};
};

Registry& registry()
{
  static Registry r;
  return r;
}

} // namespace

std::optional<ResourceId> find_resource_id(std::string_view name)
{
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.names.size(); ++i) {
    if (r.names[i] == name) {
      return static_cast<ResourceId>(i);
    }
  }
  return std::nullopt;
}

std::optional<ResourceId> resource_id(std::string_view name)
{
  if (auto id = find_resource_id(name)) {
    return id;
  }
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  if (r.names.size() >= k_max_resources) {
    return std::nullopt;
  }
  r.names.emplace_back(name);
  return static_cast<ResourceId>(r.names.size() - 1);
}

std::string resource_name(ResourceId id)
{
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  return id < r.names.size() ? r.names[id] : fmt::format("resource-{}", id);
}

std::size_t resource_count()
{
  auto& r = registry();
  const std::lock_guard lock(r.mutex);
  return r.names.size();
}

std::string set_resource(Resources& r, std::string_view name, std::string_view quantity)
{
  const auto id = resource_id(name);
  if (!id) {
    return fmt::format("too many distinct resource names (at most {}); '{}' is one too many", k_max_resources,
                       name);
  }
  const auto value = *id == k_cpu ? parse_quantity_milli(quantity) : parse_quantity(quantity);
  if (!value) {
    return value.error();
  }
  r[*id] = *value;
  return {};
}

std::string to_string(const Resources& r)
{
  std::string out;
  const std::size_t n = resource_count();
  for (std::size_t i = 0; i < n && i < k_max_resources; ++i) {
    const auto id = static_cast<ResourceId>(i);
    if (r[id] == 0) {
      continue;
    }
    if (!out.empty()) {
      out += ' ';
    }
    if (id == k_cpu) {
      out += fmt::format("cpu={}m", r[id]);
    } else if (id == k_memory || id == k_ephemeral_storage) {
      out += fmt::format("{}={}", resource_name(id), format_bytes(r[id]));
    } else {
      out += fmt::format("{}={}", resource_name(id), r[id]);
    }
  }
  return out.empty() ? "none" : out;
}

} // namespace capsim::model
