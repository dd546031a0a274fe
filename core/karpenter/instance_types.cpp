#include "core/karpenter/instance_types.hpp"

#include "core/base/diagnostics.hpp"
#include "core/catalog/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace capsim::karpenter {

int OfferingSpace::zone_index(ValueId v) const
{
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (zones[i] == v) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int OfferingSpace::capacity_type_index(ValueId v) const
{
  for (std::size_t i = 0; i < capacity_types.size(); ++i) {
    if (capacity_types[i] == v) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int OfferingSpace::add_zone(ValueId v)
{
  if (const int i = zone_index(v); i >= 0) {
    return i;
  }
  if (zones.size() >= catalog::k_max_zones) {
    // (An inline Catalog is refused at its 65th zone when read; this guards catalogs built in code.)
    throw InputError(SourceLocation{}, fmt::format("the catalog has more than {} zones; capsim supports up to {} per "
                                                   "region",
                                                   catalog::k_max_zones, catalog::k_max_zones));
  }
  zones.push_back(v);
  return static_cast<int>(zones.size() - 1);
}

int OfferingSpace::add_capacity_type(ValueId v)
{
  if (const int i = capacity_type_index(v); i >= 0) {
    return i;
  }
  if (capacity_types.size() >= 8) {
    throw InputError(SourceLocation{}, "the catalog has more than 8 distinct capacity types");
  }
  capacity_types.push_back(v);
  return static_cast<int>(capacity_types.size() - 1);
}

int OfferingSpace::add_reservation(const catalog::Offering& o)
{
  const auto it = std::find(reservations.begin(), reservations.end(), o.reservation_id);
  if (it != reservations.end()) {
    const auto i = static_cast<std::size_t>(it - reservations.begin());
    reservation_capacity[i] = std::min(reservation_capacity[i], o.reservation_capacity);
    return static_cast<int>(i);
  }
  reservations.push_back(o.reservation_id);
  reservation_capacity.push_back(o.reservation_capacity);
  return static_cast<int>(reservations.size() - 1);
}

OfferingFilter offering_filter(const ReqSet& reqs, const OfferingSpace& space, const Interner& in)
{
  OfferingFilter f;
  if (const Req* z = reqs.find(in.k_zone)) {
    f.zones = 0;
    for (std::size_t i = 0; i < space.zones.size(); ++i) {
      if (req_has(*z, space.zones[i], in)) {
        f.zones |= std::uint64_t{1} << i;
      }
    }
  }
  if (const Req* c = reqs.find(in.k_capacity_type)) {
    f.capacity_types = 0;
    for (std::size_t i = 0; i < space.capacity_types.size(); ++i) {
      if (req_has(*c, space.capacity_types[i], in)) {
        f.capacity_types |= std::uint32_t{1} << i;
      }
    }
  }
  return f;
}

double TypeInfo::cheapest_price(const OfferingFilter& f) const
{
  double best = std::numeric_limits<double>::infinity();
  for (const auto& o : offerings) {
    if (!o.available || ((f.capacity_types >> o.capacity_type) & 1U) == 0 || ((f.zones >> o.zone) & 1U) == 0) {
      continue;
    }
    best = std::min(best, o.offering->price_per_hour);
  }
  return best;
}

PoolTypes::PoolTypes(const std::vector<const catalog::InstanceType*>& types, Interner& in, OfferingSpace& space)
  : source(types)
{
  m_types.reserve(types.size());
  for (const auto* it : types) {
    TypeInfo t;
    t.it = it;
    t.requirements = to_req_set(it->requirements, in);
    t.allocatable = it->allocatable();
    t.capacity = it->capacity;
    for (const auto& o : it->offerings) {
      OfferingInfo oi;
      oi.offering = &o;
      oi.zone = static_cast<std::uint8_t>(space.add_zone(in.value(o.zone)));
      oi.capacity_type = static_cast<std::uint8_t>(space.add_capacity_type(in.value(o.capacity_type)));
      oi.available = o.available;
      if (!o.reservation_id.empty()) {
        oi.reservation = space.add_reservation(o);
      }
      t.offerings.push_back(oi);
    }
    for (const auto& r : t.requirements.items()) {
      if (m_defines.size() <= r.key) {
        m_defines.resize(r.key + 1, 0);
      }
      m_defines[r.key] = 1;
      in.mark_well_known(r.key); // the cloud provider registers its instance-type labels
    }
    m_types.push_back(std::move(t));
  }
  by_name.resize(m_types.size());
  for (std::uint32_t i = 0; i < by_name.size(); ++i) {
    by_name[i] = i;
  }
  std::stable_sort(by_name.begin(), by_name.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return m_types[a].it->name < m_types[b].it->name; });
}

PoolTypes::Threshold& PoolTypes::threshold(model::ResourceId dim)
{
  if (m_thresholds.size() <= dim) {
    m_thresholds.resize(static_cast<std::size_t>(dim) + 1);
  }
  auto& th = m_thresholds[dim];
  if (th.values.empty() && !m_types.empty()) {
    for (const auto& t : m_types) {
      th.values.push_back(t.allocatable[dim]);
    }
    std::sort(th.values.begin(), th.values.end());
    th.values.erase(std::unique(th.values.begin(), th.values.end()), th.values.end());
    th.at_least.assign(th.values.size(), TypeSet(m_types.size(), false));
    for (std::size_t i = 0; i < m_types.size(); ++i) {
      const auto k = static_cast<std::size_t>(
          std::upper_bound(th.values.begin(), th.values.end(), m_types[i].allocatable[dim]) - th.values.begin());
      for (std::size_t j = 0; j < k; ++j) {
        th.at_least[j].set(i);
      }
    }
    m_none = TypeSet(m_types.size(), false);
  }
  return th;
}

const TypeSet& PoolTypes::at_least(model::ResourceId dim, std::int64_t x)
{
  const auto& th = threshold(dim);
  const auto k = static_cast<std::size_t>(std::lower_bound(th.values.begin(), th.values.end(), x) - th.values.begin());
  return k < th.at_least.size() ? th.at_least[k] : m_none;
}

std::int64_t PoolTypes::max_allocatable(model::ResourceId dim, const TypeSet& members)
{
  const auto& th = threshold(dim);
  // at_least[k] shrinks as k grows: find the last k whose set still meets `members`.
  std::size_t lo = 0;
  std::size_t hi = th.at_least.size();
  if (hi == 0 || !members.intersects(th.at_least[0])) {
    return 0;
  }
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (members.intersects(th.at_least[mid])) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return std::max<std::int64_t>(0, th.values[lo]);
}

const TypeSet& PoolTypes::with_offering(const OfferingFilter& f)
{
  const auto key = filter_key(f);
  auto it = m_with_offering.find(key);
  if (it != m_with_offering.end() && it->second.first.zones == f.zones
      && it->second.first.capacity_types == f.capacity_types) {
    return it->second.second;
  }
  TypeSet s(m_types.size(), false);
  for (std::size_t i = 0; i < m_types.size(); ++i) {
    if (m_types[i].has_offering(f)) {
      s.set(i);
    }
  }
  auto& slot = m_with_offering[key];
  slot = {f, std::move(s)};
  return slot.second;
}

const std::vector<std::uint32_t>& PoolTypes::price_order(const OfferingFilter& f)
{
  const auto key = filter_key(f);
  auto it = m_price_order.find(key);
  if (it != m_price_order.end() && it->second.first.zones == f.zones
      && it->second.first.capacity_types == f.capacity_types) {
    return it->second.second;
  }
  std::vector<std::pair<double, std::uint32_t>> priced;
  priced.reserve(m_types.size());
  for (std::uint32_t i = 0; i < m_types.size(); ++i) {
    priced.emplace_back(m_types[i].cheapest_price(f), i);
  }
  std::stable_sort(priced.begin(), priced.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint32_t> order;
  order.reserve(priced.size());
  for (const auto& [price, i] : priced) {
    order.push_back(i);
  }
  auto& slot = m_price_order[key];
  slot = {f, std::move(order)};
  return slot.second;
}

const PoolTypes::CheapestMembers& PoolTypes::cheapest_members(const OfferingFilter& f, const TypeSet& members,
                                                              std::size_t max)
{
  constexpr std::size_t k_max_entries = 4096; // bounded: forget everything when full
  const std::uint64_t key = members.hash() ^ (filter_key(f) * 0xff51afd7ed558ccdULL) ^ (max * 0xc4ceb9fe1a85ec53ULL);
  auto it = m_cheapest.find(key);
  if (it != m_cheapest.end() && it->second.filter.zones == f.zones
      && it->second.filter.capacity_types == f.capacity_types && it->second.max == max && it->second.members == members) {
    return it->second.answer;
  }
  if (m_cheapest.size() >= k_max_entries) {
    m_cheapest.clear();
  }
  Cheapest entry{f, max, members, {}};
  auto& answer = entry.answer;
  const std::size_t wanted = std::min(max, members.count());
  answer.order.reserve(wanted);
  answer.types.reserve(wanted);
  answer.set.clear(size());
  for (const auto i : price_order(f)) {
    if (answer.order.size() >= wanted) {
      break;
    }
    if (members.test(i)) {
      answer.order.push_back(i);
      answer.types.push_back(m_types[i].it);
      answer.set.set(i);
    }
  }
  auto& slot = m_cheapest[key];
  slot = std::move(entry);
  return slot.answer;
}

std::size_t PoolTypes::ReqHash::operator()(const Req& r) const
{
  std::size_t h = std::hash<std::uint64_t>()((std::uint64_t{r.key} << 1U) | (r.complement ? 1U : 0U));
  const auto mix = [&h](std::uint64_t x) { h ^= std::hash<std::uint64_t>()(x) + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U); };
  for (const auto v : r.values) {
    mix(v);
  }
  mix(r.gte ? static_cast<std::uint64_t>(*r.gte) : 0x5555);
  mix(r.lte ? static_cast<std::uint64_t>(*r.lte) : 0xaaaa);
  return h;
}

const TypeSet& PoolTypes::compatible_with(const Req& r, const Interner& in)
{
  Req key = r;
  key.min_values.reset(); // minValues does not change which types intersect
  if (auto it = m_compat.find(key); it != m_compat.end()) {
    return it->second;
  }
  TypeSet s(m_types.size(), true);
  for (std::size_t i = 0; i < m_types.size(); ++i) {
    const Req* own = m_types[i].requirements.find(r.key);
    if (own != nullptr && !req_has_intersection(*own, r, in) && !(own->negative() && r.negative())) {
      s.reset(i);
    }
  }
  return m_compat.emplace(std::move(key), std::move(s)).first->second;
}

} // namespace capsim::karpenter
