#pragma once

#include "core/catalog/instance_type.hpp"
#include "core/karpenter/reqs.hpp"
#include "core/model/resources.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace capsim::karpenter {

// A set of instance types of one NodePool, as a bitset over the pool's type indices. A
// NodeClaim's InstanceTypeOptions is one of these: narrowing is an AND.
class TypeSet
{
public:
  TypeSet() = default;

  explicit TypeSet(std::size_t n, bool value = false) { resize(n, value); }

  void resize(std::size_t n, bool value)
  {
    m_n = n;
    m_words.assign((n + 63) / 64, value ? ~std::uint64_t{0} : 0);
    trim();
  }

  [[nodiscard]] std::size_t size() const { return m_n; }

  [[nodiscard]] bool test(std::size_t i) const { return ((m_words[i / 64] >> (i % 64)) & 1U) != 0; }

  void set(std::size_t i) { m_words[i / 64] |= std::uint64_t{1} << (i % 64); }

  void reset(std::size_t i) { m_words[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }

  void and_with(const TypeSet& o)
  {
    for (std::size_t w = 0; w < m_words.size(); ++w) {
      m_words[w] &= o.m_words[w];
    }
  }

  void or_with(const TypeSet& o)
  {
    for (std::size_t w = 0; w < m_words.size(); ++w) {
      m_words[w] |= o.m_words[w];
    }
  }

  // Resize to n members, all clear (reusing the allocation).
  void clear(std::size_t n)
  {
    m_n = n;
    m_words.assign((n + 63) / 64, 0);
  }

  [[nodiscard]] bool intersects(const TypeSet& o) const
  {
    for (std::size_t w = 0; w < m_words.size(); ++w) {
      if ((m_words[w] & o.m_words[w]) != 0) {
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] bool any() const
  {
    for (const auto w : m_words) {
      if (w != 0) {
        return true;
      }
    }
    return false;
  }

  [[nodiscard]] std::size_t count() const
  {
    std::size_t c = 0;
    for (const auto w : m_words) {
      c += static_cast<std::size_t>(std::popcount(w));
    }
    return c;
  }

  // Calls f(i) for every member, ascending.
  template <typename F>
  void for_each(F&& f) const
  {
    for (std::size_t w = 0; w < m_words.size(); ++w) {
      std::uint64_t bits = m_words[w];
      while (bits != 0) {
        const auto b = static_cast<std::size_t>(std::countr_zero(bits));
        f(w * 64 + b);
        bits &= bits - 1;
      }
    }
  }

  bool operator==(const TypeSet&) const = default;

  [[nodiscard]] std::uint64_t hash() const
  {
    std::uint64_t h = m_n;
    for (const auto w : m_words) {
      h = (h ^ w) * 0x100000001b3ULL + (h >> 29U);
    }
    return h;
  }

private:
  void trim()
  {
    if (m_n % 64 != 0 && !m_words.empty()) {
      m_words.back() &= (std::uint64_t{1} << (m_n % 64)) - 1;
    }
  }

  std::vector<std::uint64_t> m_words;
  std::size_t m_n = 0;
};

// Zones and capacity types of a solve as small indices, so "does this instance type have an
// available offering compatible with the claim's zone and capacity-type requirements" is a
// few AND operations. At most 64 zones and 8 capacity types.
struct OfferingSpace
{
  std::vector<ValueId> zones;          // zone index -> value id
  std::vector<ValueId> capacity_types; // capacity-type index -> value id
  // Capacity reservations of reserved offerings, by index, with the instances each had at the
  // start (the smallest listed, as NewReservationManager keeps).
  std::vector<std::string> reservations;
  std::vector<std::int32_t> reservation_capacity;

  [[nodiscard]] int zone_index(ValueId v) const;
  [[nodiscard]] int capacity_type_index(ValueId v) const;
  int add_zone(ValueId v);
  int add_capacity_type(ValueId v);
  int add_reservation(const catalog::Offering& o);
};

// Zone bitmask and capacity-type bitmask allowed by a requirement set.
struct OfferingFilter
{
  std::uint64_t zones = ~std::uint64_t{0};
  std::uint32_t capacity_types = ~std::uint32_t{0};
};

[[nodiscard]] OfferingFilter offering_filter(const ReqSet& reqs, const OfferingSpace& space, const Interner& in);

// One offering, interned.
struct OfferingInfo
{
  const catalog::Offering* offering = nullptr;
  std::uint8_t zone = 0;
  std::uint8_t capacity_type = 0;
  bool available = true; // catalog flag and the solve's availability predicate
  std::int32_t reservation = -1; // OfferingSpace::reservations index of a reserved offering
};

// An instance type of a pool, interned.
struct TypeInfo
{
  const catalog::InstanceType* it = nullptr;
  ReqSet requirements;
  model::Resources allocatable;
  model::Resources capacity;
  std::vector<OfferingInfo> offerings;
  // Per capacity-type index: zones with an available offering.
  std::array<std::uint64_t, 8> available_zones{};

  [[nodiscard]] bool has_offering(const OfferingFilter& f) const
  {
    for (std::size_t c = 0; c < available_zones.size(); ++c) {
      if (((f.capacity_types >> c) & 1U) != 0 && (available_zones[c] & f.zones) != 0) {
        return true;
      }
    }
    return false;
  }

  // Cheapest available offering compatible with the filter (upstream OrderByPrice key);
  // +infinity when none.
  [[nodiscard]] double cheapest_price(const OfferingFilter& f) const;
};

// The instance types offered to one NodePool, interned once. Also caches, per (key,
// requirement), which types intersect that requirement, so narrowing a NodeClaim by a pod's
// requirement is a bitset AND.
class PoolTypes
{
public:
  PoolTypes(const std::vector<const catalog::InstanceType*>& types, Interner& in, OfferingSpace& space);

  [[nodiscard]] const std::vector<TypeInfo>& types() const { return m_types; }

  [[nodiscard]] std::vector<TypeInfo>& types() { return m_types; }

  [[nodiscard]] std::size_t size() const { return m_types.size(); }

  // Some type of the pool defines `key`.
  [[nodiscard]] bool defines(KeyId key) const { return key < m_defines.size() && m_defines[key] != 0; }

  // Types whose own requirement for r.key intersects r (types not defining the key are in).
  [[nodiscard]] const TypeSet& compatible_with(const Req& r, const Interner& in);

  // Re-evaluate offering availability (catalog flag and the predicate) for this solve.
  // `version` != 0 names the predicate's answers: the same non-zero version as last time skips
  // the re-evaluation.
  template <typename Pred>
  void refresh_availability(std::uint64_t version, Pred&& available)
  {
    if (availability_current(version)) {
      return;
    }
    m_availability_version = version;
    bool changed = false;
    for (auto& t : m_types) {
      const auto before = t.available_zones;
      t.available_zones.fill(0);
      for (auto& o : t.offerings) {
        o.available = o.offering->available && available(*t.it, *o.offering);
        if (o.available) {
          t.available_zones[o.capacity_type] |= std::uint64_t{1} << o.zone;
        }
      }
      changed = changed || before != t.available_zones;
    }
    if (changed || !m_availability_known) {
      m_with_offering.clear();
      m_price_order.clear();
      m_cheapest.clear();
      m_availability_known = true;
      ++m_availability_generation;
    }
  }

  // Bumped whenever the available offerings change (caches built on them compare it).
  [[nodiscard]] std::uint64_t availability_generation() const { return m_availability_generation; }
  // refresh_availability(version, ...) would do nothing.
  [[nodiscard]] bool availability_current(std::uint64_t version) const
  {
    return version != 0 && m_availability_known && version == m_availability_version;
  }

  // Types whose allocatable amount of `dim` is at least x.
  [[nodiscard]] const TypeSet& at_least(model::ResourceId dim, std::int64_t x);
  // The largest allocatable amount of `dim` among `members` (0 when none is larger): a binary
  // search over the nested at_least sets instead of a walk over the members.
  [[nodiscard]] std::int64_t max_allocatable(model::ResourceId dim, const TypeSet& members);
  // Types with an available offering the filter allows.
  [[nodiscard]] const TypeSet& with_offering(const OfferingFilter& f);
  // Type indices by cheapest available offering the filter allows (ties: index); types with
  // none come last.
  [[nodiscard]] const std::vector<std::uint32_t>& price_order(const OfferingFilter& f);
  // The first `max` members of `members` in price_order(f), remembered per (filter, members,
  // max): the disruption controller's simulations finalize the same NodeClaim options poll
  // after poll.
  struct CheapestMembers
  {
    std::vector<std::uint32_t> order;                // type indices, cheapest first
    std::vector<const catalog::InstanceType*> types; // the same types
    TypeSet set;                                     // the same types as a set
  };
  [[nodiscard]] const CheapestMembers& cheapest_members(const OfferingFilter& f, const TypeSet& members,
                                                        std::size_t max);

  // Identity of the input this was built from (to detect a changed catalog).
  std::vector<const catalog::InstanceType*> source;
  // Type indices sorted by instance-type name (to emit instance-type In [...] sorted).
  std::vector<std::uint32_t> by_name;

private:
  struct ReqHash
  {
    std::size_t operator()(const Req& r) const;
  };

  struct Threshold
  {
    std::vector<std::int64_t> values; // sorted distinct allocatable amounts
    std::vector<TypeSet> at_least;    // at_least[k]: types with amount >= values[k]
  };
  Threshold& threshold(model::ResourceId dim);
  static std::uint64_t filter_key(const OfferingFilter& f)
  {
    return f.zones ^ (std::uint64_t{f.capacity_types} * 0x9e3779b97f4a7c15ULL);
  }

  std::vector<TypeInfo> m_types;
  std::vector<std::uint8_t> m_defines;
  std::unordered_map<Req, TypeSet, ReqHash> m_compat;
  std::vector<Threshold> m_thresholds; // per resource id, built lazily
  TypeSet m_none;
  std::unordered_map<std::uint64_t, std::pair<OfferingFilter, TypeSet>> m_with_offering;
  std::unordered_map<std::uint64_t, std::pair<OfferingFilter, std::vector<std::uint32_t>>> m_price_order;
  struct Cheapest
  {
    OfferingFilter filter;
    std::size_t max = 0;
    TypeSet members;
    CheapestMembers answer;
  };
  std::unordered_map<std::uint64_t, Cheapest> m_cheapest;
  bool m_availability_known = false;
  std::uint64_t m_availability_version = 0;
  std::uint64_t m_availability_generation = 0;
};

// Component-wise: requests fit in allocatable on the dimensions listed.
[[nodiscard]] inline bool fits_dims(const model::Resources& requests, const model::Resources& allocatable,
                                    const std::vector<model::ResourceId>& dims)
{
  for (const auto d : dims) {
    if (requests[d] > allocatable[d]) {
      return false;
    }
  }
  return true;
}

} // namespace capsim::karpenter
