#include "core/karpenter/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

namespace capsim::karpenter {

namespace {

// offering_usable with the zone and capacity-type requirements looked up once per type, and
// the (virtual) availability asked last: consolidation prices every option of every candidate.
class OfferingGate
{
public:
  OfferingGate(const model::Requirements& requirements, const OfferingAvailable& available)
      : m_zone(requirements.find(model::labels::k_zone)),
        m_capacity_type(requirements.find(model::labels::k_capacity_type)), m_available(available)
  {
  }

  [[nodiscard]] bool usable(const catalog::InstanceType& it, const catalog::Offering& o) const
  {
    return o.available && (m_zone == nullptr || m_zone->has(o.zone))
           && (m_capacity_type == nullptr || m_capacity_type->has(o.capacity_type))
           && (!m_available || m_available(it.name, o.zone, o.capacity_type));
  }

private:
  const model::Requirement* m_zone;
  const model::Requirement* m_capacity_type;
  const OfferingAvailable& m_available;
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
  if (it.exotic) {
    return true;
  }
  static const std::string k_size_key(model::labels::k_instance_size);
  const auto size = it.labels.find(k_size_key);
  if (size != it.labels.end() && size->second.find("metal") != std::string::npos) {
    return true;
  }
  return std::any_of(accelerators.begin(), accelerators.end(), [&](model::ResourceId id) { return it.capacity[id] != 0; });
}

// An instance type with the offerings still under consideration.
struct Candidate
{
  const catalog::InstanceType* it = nullptr;
  std::vector<const catalog::Offering*> offerings;
};

double candidate_price(const Candidate& c, const OfferingGate& gate)
{
  double best = std::numeric_limits<double>::infinity();
  for (const auto* o : c.offerings) {
    if (gate.usable(*c.it, *o)) {
      best = std::min(best, o->price_per_hour);
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
  if (!o.available || (available && !available(it.name, o.zone, o.capacity_type))) {
    return false;
  }
  return req_allows(requirements, model::labels::k_zone, o.zone)
         && req_allows(requirements, model::labels::k_capacity_type, o.capacity_type);
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
  std::string keys;
  for (std::size_t i = 0; i < failing.size(); ++i) {
    keys += (i != 0 ? "," : "") + failing[i];
  }
  return fmt::format("minValues requirement is not met for label(s) ({})", keys);
}

LaunchDecision choose_launch(const model::Requirements& reqs, const model::Resources& requests,
                             const std::vector<const catalog::InstanceType*>& instance_types,
                             const LaunchOptions& options)
{
  LaunchDecision d;
  const auto& avail = options.offering_available;
  const OfferingGate gate(reqs, avail);
  const bool has_min_values = std::any_of(reqs.items().begin(), reqs.items().end(),
                                          [](const model::Requirement& r) { return r.min_values.has_value(); });
  const auto ice = [&](std::string why) {
    d.ok = false;
    d.error = "insufficient capacity, " + why;
    return d;
  };

  // CompatibleAvailableFilter.
  std::vector<Candidate> cands;
  for (const auto* it : instance_types) {
    if (!requests.fits_in(it->allocatable()) || !reqs.intersects_ok(it->requirements)) {
      continue;
    }
    Candidate c{it, {}};
    for (const auto& o : it->offerings) {
      c.offerings.push_back(&o);
    }
    bool any = false;
    for (const auto* o : c.offerings) {
      any = any || gate.usable(*it, *o);
    }
    if (any) {
      cands.push_back(std::move(c));
    }
  }
  if (cands.empty()) {
    return ice("all requested instance types were unavailable during launch");
  }
  // (Capacity-reservation and capacity-block filters: capsim has no reservation ids.)
  // ExoticInstanceTypeFilter.
  if (!has_min_values) {
    const auto accelerators = accelerator_ids();
    const auto generic = std::count_if(cands.begin(), cands.end(),
                                       [&](const Candidate& c) { return !is_exotic(*c.it, accelerators); });
    if (generic > 0) {
      std::erase_if(cands, [&](const Candidate& c) { return is_exotic(*c.it, accelerators); });
    }
  }
  // SpotOfferingFilter.
  if (!has_min_values && req_allows(reqs, model::labels::k_capacity_type, model::k_capacity_on_demand)
      && req_allows(reqs, model::labels::k_capacity_type, model::k_capacity_spot)) {
    double cheapest_od = std::numeric_limits<double>::infinity();
    bool has_spot = false;
    bool has_od = false;
    for (const auto& c : cands) {
      for (const auto* o : c.offerings) {
        if (!gate.usable(*c.it, *o)) {
          continue;
        }
        if (o->capacity_type == model::k_capacity_on_demand) {
          has_od = true;
          cheapest_od = std::min(cheapest_od, o->price_per_hour);
        } else if (o->capacity_type == model::k_capacity_spot) {
          has_spot = true;
        }
      }
    }
    if (has_od && has_spot) {
      std::vector<Candidate> kept;
      for (auto& c : cands) {
        std::erase_if(c.offerings, [&](const catalog::Offering* o) {
          return o->capacity_type == model::k_capacity_spot && o->price_per_hour > cheapest_od;
        });
        if (!c.offerings.empty()) {
          kept.push_back(std::move(c));
        }
      }
      if (kept.empty()) {
        return ice("all requested instance types were unavailable during launch");
      }
      cands = std::move(kept);
    }
  }
  // Truncate: cheapest first (stable), first max_instance_types, minValues re-checked.
  std::vector<std::pair<double, std::size_t>> priced;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    priced.emplace_back(candidate_price(cands[i], gate), i);
  }
  std::stable_sort(priced.begin(), priced.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (priced.size() > static_cast<std::size_t>(std::max(0, options.max_instance_types))) {
    priced.resize(static_cast<std::size_t>(std::max(0, options.max_instance_types)));
  }
  std::vector<Candidate> ordered;
  ordered.reserve(priced.size());
  for (const auto& [price, i] : priced) {
    ordered.push_back(std::move(cands[i]));
  }
  if (has_min_values && !options.min_values_best_effort) {
    const std::string mv = min_values_error_of(ordered, reqs);
    if (!mv.empty()) {
      return ice("truncating instance types based on the passed-in requirements, validating minValues, " + mv);
    }
  }
  for (const auto& c : ordered) {
    d.candidates.push_back(c.it);
  }
  // getCapacityType: reserved, then spot, then on-demand.
  std::string ct = std::string(model::k_capacity_on_demand);
  for (const std::string_view want : {model::k_capacity_reserved, model::k_capacity_spot}) {
    if (!req_allows(reqs, model::labels::k_capacity_type, want)) {
      continue;
    }
    const bool any = std::any_of(ordered.begin(), ordered.end(), [&](const Candidate& c) {
      return std::any_of(c.offerings.begin(), c.offerings.end(), [&](const catalog::Offering* o) {
        return o->capacity_type == want && gate.usable(*c.it, *o);
      });
    });
    if (any) {
      ct = std::string(want);
      break;
    }
  }
  // CreateFleet overrides: one per (type, zone) with a usable offering of that capacity type.
  struct Override
  {
    const catalog::InstanceType* it;
    const catalog::Offering* o;
  };
  std::vector<Override> overrides;
  std::set<std::pair<const catalog::InstanceType*, std::string>> seen;
  for (const auto& c : ordered) {
    for (const auto* o : c.offerings) {
      if (o->capacity_type != ct || !gate.usable(*c.it, *o)) {
        continue;
      }
      if (seen.emplace(c.it, o->zone).second) {
        overrides.push_back({c.it, o});
      }
    }
  }
  if (overrides.empty()) {
    return ice(fmt::format("no {} offering is available for the requested instance types", ct));
  }
  const auto band = [](const catalog::Offering* o) { return o->interruption_band ? *o->interruption_band : 1000; };
  const Override* best = &overrides.front();
  for (const auto& ov : overrides) {
    if (ct == model::k_capacity_spot) {
      if (band(ov.o) < band(best->o) || (band(ov.o) == band(best->o) && ov.o->price_per_hour < best->o->price_per_hour)) {
        best = &ov;
      }
    } else if (ov.o->price_per_hour < best->o->price_per_hour) {
      best = &ov;
    }
  }
  d.ok = true;
  d.instance_type = best->it;
  d.zone = best->o->zone;
  d.capacity_type = ct;
  d.price_per_hour = best->o->price_per_hour;
  return d;
}

} // namespace capsim::karpenter
