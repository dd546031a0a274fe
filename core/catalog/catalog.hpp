#pragma once

#include "core/catalog/instance_type.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::catalog {

// Zones a catalog may have: Karpenter's offering filters keep one bit per zone.
inline constexpr std::size_t k_max_zones = 64;

// The instance types of one region with their offerings, immutable once built. Types are
// kept sorted by name so ids and iteration order are the same on every run.
class Catalog
{
public:
  Catalog() = default;
  Catalog(std::string region, std::vector<std::string> zones, std::vector<InstanceType> types);

  [[nodiscard]] const std::string& region() const { return m_region; }

  [[nodiscard]] const std::vector<std::string>& zones() const { return m_zones; }

  [[nodiscard]] const std::vector<InstanceType>& instance_types() const { return m_types; }

  [[nodiscard]] const InstanceType* find(std::string_view name) const;

  [[nodiscard]] std::vector<std::string> names() const;

  // Warnings gathered while building (stale prices used, ...), for the CLI to print.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return m_warnings; }

  void add_warning(std::string w) { m_warnings.push_back(std::move(w)); }

  // Keep only offerings in `zones` (a Scenario's spec.zones).
  void restrict_zones(const std::vector<std::string>& zones);

  // Add or replace types (an inline Catalog with mode: extend).
  void merge(std::vector<InstanceType> types);

private:
  void index();

  std::string m_region;
  std::vector<std::string> m_zones;
  std::vector<InstanceType> m_types;
  std::map<std::string, std::size_t, std::less<>> m_by_name;
  std::vector<std::string> m_warnings;
};

} // namespace capsim::catalog
