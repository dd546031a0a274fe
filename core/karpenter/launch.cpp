#include "core/karpenter/launch.hpp"

#include "core/base/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <set>

namespace capsim::karpenter {

namespace {

// The capacity types launch compares, as small numbers (offerings name them by string).
enum class CapacityType : std::uint8_t { reserved, spot, on_demand, other };

// Equality with a literal of known length, which the compiler turns into a load and compare:
// launch classifies every offering of hundreds of types.
template <std::size_t N>
bool equals(std::string_view s, const char (&literal)[N])
{
  return s.size() == N - 1 && std::memcmp(s.data(), literal, N - 1) == 0;
}

CapacityType capacity_type_of(std::string_view ct)
{
  static_assert(model::k_capacity_spot == "spot" && model::k_capacity_on_demand == "on-demand"
                && model::k_capacity_reserved == "reserved");
  if (equals(ct, "spot")) {
    return CapacityType::spot;
  }
  if (equals(ct, "on-demand")) {
    return CapacityType::on_demand;
  }
  return equals(ct, "reserved") ? CapacityType::reserved : CapacityType::other;
}

// offering_usable with the zone and capacity-type requirements looked up once per type, the
// capacity-type answer remembered for the three known types, and the (virtual) availability
// asked last: consolidation prices every option of every candidate.
class OfferingGate
{
public:
  OfferingGate(const model::Requirements& requirements, const OfferingAvailable& available)
      : m_zone(requirements.find(model::labels::k_zone)),
        m_capacity_type(requirements.find(model::labels::k_capacity_type)),
        m_reservation(requirements.find(model::labels::k_capacity_reservation_id)), m_available(available)
  {
  }

  [[nodiscard]] bool usable(const catalog::InstanceType& it, const catalog::Offering& o) const
  {
    return usable(it, o, capacity_type_of(o.capacity_type));
  }

  [[nodiscard]] bool usable(const catalog::InstanceType& it, const catalog::Offering& o, CapacityType ct) const
  {
    return o.available && (m_zone == nullptr || m_zone->has(o.zone)) && allows(o.capacity_type, ct)
           && (m_reservation == nullptr || o.reservation_id.empty() || m_reservation->has(o.reservation_id))
           && (!m_available || m_available(it, o));
  }

private:
  [[nodiscard]] bool allows(const std::string& name, CapacityType ct) const
  {
    if (m_capacity_type == nullptr) {
      return true;
    }
    if (ct == CapacityType::other) {
      return m_capacity_type->has(name);
    }
    auto& memo = m_allows[static_cast<std::size_t>(ct)];
    if (memo < 0) {
      memo = m_capacity_type->has(name) ? 1 : 0;
    }
    return memo == 1;
  }

  const model::Requirement* m_zone;
  const model::Requirement* m_capacity_type;
  const model::Requirement* m_reservation; // a NodeClaim's reserved offerings (FinalizeScheduling)
  const OfferingAvailable& m_available;
  mutable std::array<std::int8_t, 3> m_allows{-1, -1, -1}; // per known capacity type, -1 unknown
};

bool req_allows(const model::Requirements& reqs, std::string_view key, std::string_view value)
{
  const auto* r = reqs.find(key);
  return r == nullptr || r->has(value);
}

// The accelerator resources that make an instance type exotic (those registered so far).
std::vector<model::ResourceId> accelerator_ids()
{
  std::vector<model::ResourceId> ids;
  for (const char* name : {"nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore",
                           "habana.ai/gaudi"}) {
    if (const auto id = model::find_resource_id(name)) {
      ids.push_back(*id);
    }
  }
  return ids;
}

bool is_exotic(const catalog::InstanceType& it, const std::vector<model::ResourceId>& accelerators)
{
  // The catalog marks metal sizes (catalog::finalize_requirements reads the size label).
  return it.exotic
         || std::any_of(accelerators.begin(), accelerators.end(), [&](model::ResourceId id) { return it.capacity[id] != 0; });
}

// An offering of a candidate type: whether the requirements and availability allow it (asked
// once per launch: availability is a lookup by name), and whether a filter dropped it.
struct OfferingOption
{
  const catalog::Offering* o = nullptr;
  CapacityType ct = CapacityType::other;
  bool usable = false;
  bool dropped = false;
};

// An instance type with its offerings: options[begin, end) of the launch's flat list.
struct Candidate
{
  const catalog::InstanceType* it = nullptr;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
};

double candidate_price(const Candidate& c, const std::vector<OfferingOption>& options)
{
  double best = std::numeric_limits<double>::infinity();
  for (auto k = c.begin; k < c.end; ++k) {
    if (options[k].usable && !options[k].dropped) {
      best = std::min(best, options[k].o->price_per_hour);
    }
  }
  return best;
}

std::string min_values_error_of(const std::vector<Candidate>& cands, const model::Requirements& reqs)
{
  std::vector<const catalog::InstanceType*> types;
  types.reserve(cands.size());
  for (const auto& c : cands) {
    types.push_back(c.it);
  }
  return min_values_error(types, reqs);
}

} // namespace

bool offering_usable(const catalog::InstanceType& it, const catalog::Offering& o, const model::Requirements& requirements,
                     const OfferingAvailable& available)
{
  if (!o.available || (available && !available(it, o))) {
    return false;
  }
  return req_allows(requirements, model::labels::k_zone, o.zone)
         && req_allows(requirements, model::labels::k_capacity_type, o.capacity_type)
         && (o.reservation_id.empty() || req_allows(requirements, model::labels::k_capacity_reservation_id, o.reservation_id));
}


double cheapest_price(const catalog::InstanceType& it, const model::Requirements& requirements,
                      const OfferingAvailable& available)
{
  const OfferingGate gate(requirements, available);
  double best = std::numeric_limits<double>::infinity();
  for (const auto& o : it.offerings) {
    if (gate.usable(it, o)) {
      best = std::min(best, o.price_per_hour);
    }
  }
  return best;
}

double worst_launch_price(const catalog::InstanceType& it, const model::Requirements& requirements,
                          const OfferingAvailable& available)
{
  const OfferingGate gate(requirements, available);
  for (const std::string_view ct : {model::k_capacity_reserved, model::k_capacity_spot, model::k_capacity_on_demand}) {
    double worst = -1;
    for (const auto& o : it.offerings) {
      if (o.capacity_type == ct && gate.usable(it, o)) {
        worst = std::max(worst, o.price_per_hour);
      }
    }
    if (worst >= 0) {
      return worst;
    }
  }
  return std::numeric_limits<double>::infinity();
}

std::string min_values_error(const std::vector<const catalog::InstanceType*>& types,
                             const model::Requirements& requirements)
{
  std::vector<std::string> failing;
  for (const auto& r : requirements.items()) {
    if (!r.min_values) {
      continue;
    }
    std::set<std::string> values;
    for (const auto* it : types) {
      if (const auto* own = it->requirements.find(r.key)) {
        values.insert(own->values.begin(), own->values.end());
      }
    }
    if (static_cast<int>(values.size()) < *r.min_values) {
      failing.push_back(r.key);
    }
  }
  if (failing.empty()) {
    return {};
  }
  return min_values_not_met(std::move(failing));
}

namespace {

LaunchDecision decide_launch(const model::Requirements& reqs, const model::Resources& requests,
                             const std::vector<const catalog::InstanceType*>& instance_types,
                             const LaunchOptions& launch_options, bool known_compatible)
{
  LaunchDecision d;
  // getTenancyType (aws:pkg/providers/instance): default unless the claim allows only dedicated.
  const auto tenancy = reqs.get(model::labels::k_instance_tenancy);
  d.tenancy = tenancy.has("default") || !tenancy.has("dedicated") ? "default" : "dedicated";
  const auto& avail = launch_options.offering_available;
  const OfferingGate gate(reqs, avail);
  const bool has_min_values = std::any_of(reqs.items().begin(), reqs.items().end(),
                                          [](const model::Requirement& r) { return r.min_values.has_value(); });
  const auto ice = [&](std::string why) {
    d.ok = false;
    d.error = "insufficient capacity, " + why;
    return d;
  };

  // CompatibleAvailableFilter. Solve's options are already known to intersect the claim's
  // requirements (NewNodeClaim::options_compatible); debug builds check that they do.
  // Kept between launches (a launch lists thousands of offerings: a large block each time).
  thread_local std::vector<Candidate> cands;
  thread_local std::vector<OfferingOption> options;
  cands.clear();
  options.clear();
  cands.reserve(instance_types.size());
  options.reserve(instance_types.size() * (instance_types.empty() ? 0 : instance_types.front()->offerings.size()));
  // requests.fits_in(allocatable()) over the resources the claim asks for (others cannot fail).
  std::array<model::ResourceId, model::k_max_resources> asked{};
  std::size_t n_asked = 0;
  for (std::size_t r = 0; r < model::k_max_resources; ++r) {
    if (requests.v[r] > 0) {
      asked[n_asked++] = static_cast<model::ResourceId>(r);
    }
  }
  const auto has_room = [&](const catalog::InstanceType& it) {
    for (std::size_t i = 0; i < n_asked; ++i) {
      const auto r = asked[i];
      if (requests[r] > std::max<std::int64_t>(0, it.capacity[r] - it.overhead[r])) {
        return false;
      }
    }
    return true;
  };
  for (const auto* it : instance_types) {
#ifndef NDEBUG
    CAPSIM_CHECK(has_room(*it) == requests.fits_in(it->allocatable()), "launch: room check differs");
#endif
    if (!has_room(*it)) {
      continue;
    }
    if (!known_compatible && !reqs.intersects_ok(it->requirements)) {
      continue;
    }
#ifndef NDEBUG
    CAPSIM_CHECK(reqs.intersects_ok(it->requirements), "launch: an option Solve called compatible is not");
#endif
    Candidate c{it, static_cast<std::uint32_t>(options.size()), 0};
    bool any = false;
    for (const auto& o : it->offerings) {
      const auto ct = capacity_type_of(o.capacity_type);
      const bool usable = gate.usable(*it, o, ct);
      any = any || usable;
      options.push_back({&o, ct, usable, false});
    }
    if (any) {
      c.end = static_cast<std::uint32_t>(options.size());
      cands.push_back(c);
    } else {
      options.resize(c.begin);
    }
  }
  if (cands.empty()) {
    return ice("all requested instance types were unavailable during launch");
  }
  // (The capacity-reservation-type and capacity-block filters: capsim's reservations are all
  // of the default type.)
  // ExoticInstanceTypeFilter.
  if (!has_min_values) {
    const auto accelerators = accelerator_ids();
    std::vector<bool> exotic(cands.size());
    bool any_generic = false;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      exotic[i] = is_exotic(*cands[i].it, accelerators);
      any_generic = any_generic || !exotic[i];
    }
    if (any_generic) {
      std::size_t kept = 0;
      for (std::size_t i = 0; i < cands.size(); ++i) {
        if (!exotic[i]) {
          cands[kept++] = cands[i];
        }
      }
      cands.resize(kept);
    }
  }
  // SpotOfferingFilter.
  if (!has_min_values && req_allows(reqs, model::labels::k_capacity_type, model::k_capacity_on_demand)
      && req_allows(reqs, model::labels::k_capacity_type, model::k_capacity_spot)) {
    double cheapest_od = std::numeric_limits<double>::infinity();
    bool has_spot = false;
    bool has_od = false;
    for (const auto& c : cands) {
      for (auto k = c.begin; k < c.end; ++k) {
        if (!options[k].usable) {
          continue;
        }
        if (options[k].ct == CapacityType::on_demand) {
          has_od = true;
          cheapest_od = std::min(cheapest_od, options[k].o->price_per_hour);
        } else if (options[k].ct == CapacityType::spot) {
          has_spot = true;
        }
      }
    }
    if (has_od && has_spot) {
      // A type stays while any offering (usable or not) survives the filter.
      std::size_t kept = 0;
      for (const auto& c : cands) {
        bool left = false;
        for (auto k = c.begin; k < c.end; ++k) {
          auto& opt = options[k];
          opt.dropped = opt.ct == CapacityType::spot && opt.o->price_per_hour > cheapest_od;
          left = left || !opt.dropped;
        }
        if (left) {
          cands[kept++] = c;
        }
      }
      if (kept == 0) {
        return ice("all requested instance types were unavailable during launch");
      }
      cands.resize(kept);
    }
  }
  // Truncate: cheapest first (stable), first max_instance_types, minValues re-checked.
  std::vector<std::pair<double, std::size_t>> priced;
  priced.reserve(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    priced.emplace_back(candidate_price(cands[i], options), i);
  }
  std::stable_sort(priced.begin(), priced.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (priced.size() > static_cast<std::size_t>(std::max(0, launch_options.max_instance_types))) {
    priced.resize(static_cast<std::size_t>(std::max(0, launch_options.max_instance_types)));
  }
  std::vector<Candidate> ordered;
  ordered.reserve(priced.size());
  for (const auto& [price, i] : priced) {
    ordered.push_back(cands[i]);
  }
  if (has_min_values && !launch_options.min_values_best_effort) {
    const std::string mv = min_values_error_of(ordered, reqs);
    if (!mv.empty()) {
      return ice("truncating instance types based on the passed-in requirements, validating minValues, " + mv);
    }
  }
  d.candidates.reserve(ordered.size());
  for (const auto& c : ordered) {
    d.candidates.push_back(c.it);
  }
  // getCapacityType: reserved, then spot, then on-demand.
  const auto offered = [&](std::uint32_t k, CapacityType ct) {
    return options[k].usable && !options[k].dropped && options[k].ct == ct;
  };
  std::string ct = std::string(model::k_capacity_on_demand);
  for (const std::string_view want : {model::k_capacity_reserved, model::k_capacity_spot}) {
    if (!req_allows(reqs, model::labels::k_capacity_type, want)) {
      continue;
    }
    const CapacityType want_ct = capacity_type_of(want);
    const bool any = std::any_of(ordered.begin(), ordered.end(), [&](const Candidate& c) {
      for (auto k = c.begin; k < c.end; ++k) {
        if (offered(k, want_ct)) {
          return true;
        }
      }
      return false;
    });
    if (any) {
      ct = std::string(want);
      break;
    }
  }
  // CreateFleet overrides: one per (type, zone) with a usable offering of that capacity type
  // (a type's overrides are adjacent, so the first of a zone is found among them).
  struct Override
  {
    const catalog::InstanceType* it;
    const catalog::Offering* o;
  };
  const CapacityType chosen = capacity_type_of(ct);
  std::vector<Override> overrides;
  for (const auto& c : ordered) {
    const std::size_t first_of_type = overrides.size();
    for (auto k = c.begin; k < c.end; ++k) {
      if (!offered(k, chosen)) {
        continue;
      }
      const auto* o = options[k].o;
      // (Each capacity reservation is an override of its own.)
      const bool seen = std::any_of(overrides.begin() + static_cast<std::ptrdiff_t>(first_of_type), overrides.end(),
                                    [&](const Override& ov) {
                                      return ov.o->zone == o->zone && ov.o->reservation_id == o->reservation_id;
                                    });
      if (!seen) {
        overrides.push_back({c.it, o});
      }
    }
  }
  if (overrides.empty()) {
    return ice(fmt::format("no {} offering is available for the requested instance types", ct));
  }
  // The fleet's order: spot price-capacity-optimized as the lowest interruption band, then price;
  // on-demand lowest price. Ties keep the overrides' order.
  const auto band = [](const catalog::Offering* o) { return o->interruption_band ? *o->interruption_band : 1000; };
  const auto left = [&](const catalog::Offering* o) {
    const auto& used = launch_options.reservation_used;
    return o->reservation_capacity - (used ? used(o->reservation_id) : 0);
  };
  std::stable_sort(overrides.begin(), overrides.end(), [&](const Override& a, const Override& b) {
    if (chosen == CapacityType::spot && band(a.o) != band(b.o)) {
      return band(a.o) < band(b.o);
    }
    if (chosen == CapacityType::reserved && a.o->price_per_hour == b.o->price_per_hour) {
      return left(a.o) > left(b.o); // the reservation with the most instances left
    }
    return a.o->price_per_hour < b.o->price_per_hour;
  });
  const Override* best = &overrides.front();
  d.fallbacks.reserve(overrides.size() - 1);
  for (auto it = overrides.begin() + 1; it != overrides.end(); ++it) {
    d.fallbacks.push_back({it->it, it->o});
  }
  d.ok = true;
  d.instance_type = best->it;
  d.zone = best->o->zone;
  d.capacity_type = ct;
  d.price_per_hour = best->o->price_per_hour;
  d.reservation_id = best->o->reservation_id;
  return d;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v)
{
  return (h ^ v) * 0x100000001b3ULL + (h >> 29);
}

// The memo's bucket only (an entry is compared in full before it is used): a requirement's
// first value and count stand for its values, since a claim's instance-type list runs to hundreds
// of names and the types themselves are hashed with it.
std::uint64_t hash_of(const model::Requirements& reqs)
{
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const std::hash<std::string_view> text;
  for (const auto& r : reqs.items()) {
    h = mix(h, text(r.key));
    h = mix(h, (r.complement ? 1U : 0U) | (r.greater_than ? 2U : 0U) | (r.less_than ? 4U : 0U) | (r.min_values ? 8U : 0U));
    h = mix(h, r.values.size());
    if (!r.values.empty()) {
      h = mix(h, text(*r.values.begin()));
    }
    h = mix(h, static_cast<std::uint64_t>(r.greater_than.value_or(0)));
    h = mix(h, static_cast<std::uint64_t>(r.less_than.value_or(0)));
    h = mix(h, static_cast<std::uint64_t>(r.min_values.value_or(0)));
  }
  return h;
}

} // namespace

struct LaunchMemo::Entry
{
  model::Requirements requirements;
  std::vector<const catalog::InstanceType*> instance_types;
  bool known_compatible = false;
  int max_instance_types = 0;
  bool min_values_best_effort = false;
  std::uint64_t availability_version = 0;
  // Per resource, the least any of the types has room for: requests within it pass every
  // type's room check, the only thing the decision reads of the requests.
  model::Resources room;
  LaunchDecision decision;
};

LaunchMemo::LaunchMemo() = default;
LaunchMemo::~LaunchMemo() = default;

LaunchDecision choose_launch(const model::Requirements& reqs, const model::Resources& requests,
                             const std::vector<const catalog::InstanceType*>& instance_types,
                             const LaunchOptions& options, bool known_compatible)
{
  LaunchMemo* memo = options.memo;
  if (memo == nullptr || (options.offering_available && options.availability_version == 0)) {
    return decide_launch(reqs, requests, instance_types, options, known_compatible);
  }
  std::uint64_t key = hash_of(reqs);
  for (const auto* it : instance_types) {
    key = mix(key, reinterpret_cast<std::uintptr_t>(it));
  }
  key = mix(key, static_cast<std::uint64_t>(options.max_instance_types));
  key = mix(key, (known_compatible ? 1U : 0U) | (options.min_values_best_effort ? 2U : 0U));
  key = mix(key, options.offering_available ? options.availability_version : 0);
  const auto same = [&](const LaunchMemo::Entry& e) {
    return e.known_compatible == known_compatible && e.max_instance_types == options.max_instance_types
           && e.min_values_best_effort == options.min_values_best_effort
           && e.availability_version == (options.offering_available ? options.availability_version : 0)
           && e.instance_types == instance_types && e.requirements == reqs;
  };
  if (const auto found = memo->m_entries.find(key); found != memo->m_entries.end() && same(*found->second)) {
    const auto& e = *found->second;
    if (requests.fits_in(e.room)) {
      ++memo->m_hits;
      return e.decision;
    }
  }
  LaunchDecision d = decide_launch(reqs, requests, instance_types, options, known_compatible);
  auto e = std::make_unique<LaunchMemo::Entry>();
  for (auto& q : e->room.v) {
    q = std::numeric_limits<std::int64_t>::max();
  }
  for (const auto* it : instance_types) {
    for (std::size_t r = 0; r < model::k_max_resources; ++r) {
      e->room.v[r] = std::min(e->room.v[r], std::max<std::int64_t>(0, it->capacity.v[r] - it->overhead.v[r]));
    }
  }
  if (!requests.fits_in(e->room)) {
    return d; // a type was left out for room: another claim's requests may keep it
  }
  if (memo->m_entries.size() >= LaunchMemo::k_max_entries) {
    memo->m_entries.clear();
  }
  e->requirements = reqs;
  e->instance_types = instance_types;
  e->known_compatible = known_compatible;
  e->max_instance_types = options.max_instance_types;
  e->min_values_best_effort = options.min_values_best_effort;
  e->availability_version = options.offering_available ? options.availability_version : 0;
  e->decision = d;
  memo->m_entries.insert_or_assign(key, std::move(e));
  return d;
}

} // namespace capsim::karpenter
