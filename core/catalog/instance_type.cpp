#include "core/catalog/instance_type.hpp"

#include <algorithm>

namespace capsim::catalog {

namespace {

model::Requirements offering_requirements(const Offering& o)
{
  model::Requirements r;
  r.add(model::Requirement::make(std::string(model::labels::k_zone), model::Operator::in, {o.zone}));
  r.add(model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in, {o.capacity_type}));
  return r;
}

} // namespace

const Offering* InstanceType::cheapest_offering(const model::Requirements& reqs, bool available_only) const
{
  const Offering* best = nullptr;
  for (const auto& o : offerings) {
    if (available_only && !o.available) {
      continue;
    }
    if (!reqs.is_compatible(offering_requirements(o), true)) {
      continue;
    }
    if (best == nullptr || o.price_per_hour < best->price_per_hour) {
      best = &o;
    }
  }
  return best;
}

void finalize_requirements(InstanceType& it, const std::vector<std::string>& extra_os)
{
  // Karpenter's exotic filter: a metal size, however the type was given.
  const auto size = it.labels.find(std::string(model::labels::k_instance_size));
  if (size != it.labels.end() && size->second.find("metal") != std::string::npos) {
    it.exotic = true;
  }
  it.requirements = model::Requirements::from_labels(it.labels);
  for (const auto& key : it.absent_labels) {
    if (!it.labels.contains(key)) {
      it.requirements.add(model::Requirement::make(key, model::Operator::does_not_exist, {}));
    }
  }
  std::vector<std::string> zones;
  std::vector<std::string> capacity_types;
  for (const auto& o : it.offerings) {
    zones.push_back(o.zone);
    capacity_types.push_back(o.capacity_type);
  }
  it.requirements.erase(model::labels::k_zone);
  it.requirements.erase(model::labels::k_capacity_type);
  it.requirements.add(model::Requirement::make(std::string(model::labels::k_zone), model::Operator::in, zones));
  it.requirements.add(
      model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in, capacity_types));
  if (!extra_os.empty()) {
    it.requirements.erase(model::labels::k_os);
    it.requirements.add(model::Requirement::make(std::string(model::labels::k_os), model::Operator::in, extra_os));
  }
}

} // namespace capsim::catalog
