#include "core/sim/bound_problem.hpp"

#include "core/cluster/cluster.hpp"
#include "core/scheduling/filters.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace capsim::sim {

namespace {

// A node as a pool could launch it: the type's labels, the pool's labels, zone and capacity type.
cluster::NodeState hypothetical_node(const catalog::InstanceType& type, const model::Labels& pool_labels,
                                     const std::vector<model::Taint>& taints, const catalog::Offering& offering)
{
  cluster::NodeState n;
  n.name = "bound";
  n.instance_type = &type;
  n.labels = type.labels;
  for (const auto& [k, v] : pool_labels) {
    n.labels[k] = v;
  }
  n.labels[std::string(model::labels::k_zone)] = offering.zone;
  n.labels[std::string(model::labels::k_capacity_type)] = offering.capacity_type;
  n.zone = offering.zone;
  n.capacity_type = offering.capacity_type;
  n.taints = taints;
  n.allocatable = type.allocatable();
  n.lifecycle = cluster::NodeLifecycle::ready;
  return n;
}

bool pod_accepts(const model::PodSpec& spec, const cluster::NodeState& node)
{
  return scheduling::node_affinity_matches(spec, node) && !scheduling::untolerated_taint(spec.tolerations, node);
}

bool requirements_allow(const model::Requirements& reqs, const catalog::Offering& o)
{
  const auto* zone = reqs.find(model::labels::k_zone);
  const auto* ct = reqs.find(model::labels::k_capacity_type);
  return (zone == nullptr || zone->has(o.zone)) && (ct == nullptr || ct->has(o.capacity_type));
}

} // namespace

std::vector<model::PodSpecPtr> distinct_specs(const std::vector<model::Pod>& workload)
{
  std::vector<model::PodSpecPtr> out;
  std::set<const model::PodSpec*> seen;
  for (const auto& p : workload) {
    if (p.spec && seen.insert(p.spec.get()).second) {
      out.push_back(p.spec);
    }
  }
  return out;
}

BoundModel build_bound_model(const model::Scenario& scenario, const catalog::Catalog& catalog, std::string_view engine,
                             const std::vector<model::PodSpecPtr>& specs, const PoolTypes& pool_types)
{
  BoundModel m;
  // Candidate (type, offering, pool labels, taints) tuples.
  struct Candidate
  {
    const catalog::InstanceType* type;
    const catalog::Offering* offering;
    model::Labels labels;
    std::vector<model::Taint> taints;
  };
  std::vector<Candidate> candidates;
  if (engine == "karpenter") {
    std::vector<const catalog::InstanceType*> all;
    for (const auto& type : catalog.instance_types()) {
      all.push_back(&type);
    }
    std::vector<const model::NodePool*> versions;
    for (const auto& pool : scenario.node_pools) {
      versions.push_back(&pool);
    }
    for (const auto& update : scenario.node_pool_updates) {
      versions.push_back(&update.pool);
    }
    for (const model::NodePool* version : versions) {
      const auto& pool = *version;
      model::Requirements reqs = pool.requirements;
      for (const auto& [k, v] : pool.template_labels) {
        reqs.add(model::Requirement::make(k, model::Operator::in, {v}));
      }
      const auto* types = pool_types ? pool_types(pool) : nullptr;
      for (const auto* type : types != nullptr ? *types : all) {
        if (!type->requirements.intersects(reqs).empty()) {
          continue;
        }
        model::Labels labels = pool.template_labels;
        labels[std::string(model::labels::k_nodepool)] = pool.name;
        for (const auto& o : type->offerings) {
          if (o.available && requirements_allow(reqs, o)) {
            candidates.push_back({type, &o, labels, pool.taints});
          }
        }
      }
    }
  } else {
    for (const auto& group : scenario.node_groups) {
      for (const auto& name : group.instance_types) {
        const auto* type = catalog.find(name);
        if (type == nullptr) {
          continue;
        }
        for (const auto& o : type->offerings) {
          const bool zone_ok = group.zones.empty()
                               || std::find(group.zones.begin(), group.zones.end(), o.zone) != group.zones.end();
          const bool ct_ok = group.capacity_type == "mixed" || group.mixed || group.capacity_type == o.capacity_type;
          if (zone_ok && ct_ok) {
            candidates.push_back({type, &o, group.labels, group.taints});
          }
        }
      }
    }
  }
  // One column per (type, price): the cheapest offering each class may use decides which. A type
  // is its name and allocatable (NodePools of different EC2NodeClasses build one name apart).
  using TypeKey = std::pair<std::string, std::array<std::int64_t, model::k_max_resources>>;
  const auto key_of = [](const catalog::InstanceType& t) { return TypeKey{t.name, t.allocatable().v}; };
  std::map<std::pair<TypeKey, double>, std::size_t> column_of;
  std::vector<cluster::NodeState> nodes;
  nodes.reserve(candidates.size());
  for (const auto& c : candidates) {
    nodes.push_back(hypothetical_node(*c.type, c.labels, c.taints, *c.offering));
  }
  // The columns of the specs placed alike (what pod_accepts reads), by node selector first.
  std::map<model::Labels, std::vector<std::pair<const model::PodSpec*, std::size_t>>> placed;
  std::map<std::vector<std::size_t>, std::size_t> class_of_columns;
  m.class_of_spec.reserve(specs.size());
  for (const auto& spec : specs) {
    auto& alike = placed[spec->node_selector];
    const auto same = std::find_if(alike.begin(), alike.end(), [&](const auto& a) {
      return a.first->required_node_affinity == spec->required_node_affinity
             && a.first->tolerations == spec->tolerations;
    });
    if (same != alike.end()) {
      m.class_of_spec.push_back(same->second);
      continue;
    }
    // Per type, the cheapest offering this spec accepts.
    std::map<TypeKey, std::pair<double, const catalog::InstanceType*>> best;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto& c = candidates[i];
      if (!pod_accepts(*spec, nodes[i])) {
        continue;
      }
      const auto key = key_of(*c.type);
      auto it = best.find(key);
      if (it == best.end() || c.offering->price_per_hour < it->second.first) {
        best[key] = {c.offering->price_per_hour, c.type};
      }
    }
    std::vector<std::size_t> columns;
    for (const auto& [type_key, price_type] : best) {
      const auto key = std::make_pair(type_key, price_type.first);
      auto it = column_of.find(key);
      if (it == column_of.end()) {
        it = column_of.emplace(key, m.problem.columns.size()).first;
        m.problem.columns.push_back({type_key.first, price_type.first, price_type.second->allocatable()});
      }
      columns.push_back(it->second);
    }
    std::sort(columns.begin(), columns.end());
    auto [cls, added] = class_of_columns.emplace(columns, m.problem.classes.size());
    if (added) {
      m.problem.classes.push_back(report::DemandClass{spec->template_name, std::move(columns)});
    }
    alike.emplace_back(spec.get(), cls->second);
    m.class_of_spec.push_back(cls->second);
  }
  return m;
}

} // namespace capsim::sim
