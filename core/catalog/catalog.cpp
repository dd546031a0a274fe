#include "core/catalog/catalog.hpp"

#include <algorithm>

namespace capsim::catalog {

Catalog::Catalog(std::string region, std::vector<std::string> zones, std::vector<InstanceType> types)
  : m_region(std::move(region)), m_zones(std::move(zones)), m_types(std::move(types))
{
  index();
}

void Catalog::index()
{
  std::stable_sort(m_types.begin(), m_types.end(),
                   [](const InstanceType& a, const InstanceType& b) { return a.name < b.name; });
  m_by_name.clear();
  for (std::size_t i = 0; i < m_types.size(); ++i) {
    m_by_name[m_types[i].name] = i;
  }
}

const InstanceType* Catalog::find(std::string_view name) const
{
  auto it = m_by_name.find(name);
  return it == m_by_name.end() ? nullptr : &m_types[it->second];
}

std::vector<std::string> Catalog::names() const
{
  std::vector<std::string> out;
  out.reserve(m_types.size());
  for (const auto& t : m_types) {
    out.push_back(t.name);
  }
  return out;
}

void Catalog::restrict_zones(const std::vector<std::string>& zones)
{
  if (zones.empty()) {
    return;
  }
  m_zones = zones;
  for (auto& t : m_types) {
    std::erase_if(t.offerings, [&](const Offering& o) {
      return std::find(zones.begin(), zones.end(), o.zone) == zones.end();
    });
    finalize_requirements(t);
  }
  std::erase_if(m_types, [](const InstanceType& t) { return t.offerings.empty(); });
  index();
}

void Catalog::merge(std::vector<InstanceType> types)
{
  for (auto& t : types) {
    auto it = m_by_name.find(t.name);
    if (it != m_by_name.end()) {
      m_types[it->second] = std::move(t);
    } else {
      m_types.push_back(std::move(t));
    }
  }
  index();
}

} // namespace capsim::catalog
