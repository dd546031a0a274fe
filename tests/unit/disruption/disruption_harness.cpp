#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace capsim::karpenter::dtest {

Sim::Sim(std::vector<catalog::InstanceType> types, std::vector<std::string> zones)
  : catalog("test", std::move(zones), std::move(types))
{
  scenario.settings.spot.interruption_model = "none";
  scenario.settings.karpenter.spot_to_spot_consolidation = false;
}

Sim::Sim(catalog::Catalog cat) : catalog(std::move(cat))
{
  scenario.settings.spot.interruption_model = "none";
}

void Sim::label_node(const std::string& name, const model::Labels& labels)
{
  for (auto& n : scenario.nodes) {
    if (n.name == name) {
      for (const auto& [k, v] : labels) {
        n.labels[k] = v;
      }
    }
  }
}

model::NodePool& Sim::pool(const std::string& name)
{
  model::NodePool p;
  p.name = name;
  p.consolidation_policy = model::ConsolidationPolicy::when_empty_or_underutilized;
  p.consolidate_after = 0;
  p.budgets = {model::DisruptionBudget{"100%", std::nullopt, std::nullopt, {}}};
  p.expire_after = k_never;
  scenario.node_pools.push_back(std::move(p));
  return scenario.node_pools.back();
}

std::string Sim::node(const std::string& name, const std::string& pool, const std::string& type,
                      std::optional<model::Resources> allocatable, std::string zone, std::string capacity_type,
                      bool do_not_disrupt)
{
  const auto* t = catalog.find(type);
  CAPSIM_CHECK(t != nullptr, "unknown instance type " + type);
  if (zone.empty()) {
    zone = t->offerings.front().zone;
  }
  if (capacity_type.empty()) {
    capacity_type = t->offerings.front().capacity_type;
  }
  model::InitialNode n;
  n.name = name;
  n.labels[std::string(model::labels::k_instance_type)] = type;
  n.labels[std::string(model::labels::k_zone)] = zone;
  n.labels[std::string(model::labels::k_capacity_type)] = capacity_type;
  n.labels[std::string(model::labels::k_nodepool)] = pool;
  n.owner = model::InitialNode::Owner::node_pool;
  n.owner_pool = pool;
  n.allocatable = allocatable;
  n.do_not_disrupt = do_not_disrupt;
  scenario.nodes.push_back(std::move(n));
  return name;
}

model::PodSpecPtr Sim::spec(const PodOpts& o) const
{
  auto s = std::make_shared<model::PodSpec>();
  s->template_name = "app";
  s->namespace_ = o.ns;
  s->labels = o.labels;
  s->requests[model::k_cpu] = o.cpu_milli;
  s->requests[model::k_memory] = o.memory;
  s->owner = o.owner;
  s->do_not_disrupt = o.do_not_disrupt;
  s->priority = o.priority;
  s->deletion_cost = o.deletion_cost;
  s->tolerations = o.tolerations;
  s->node_selector = o.node_selector;
  s->pod_anti_affinity_required = o.anti_affinity;
  s->topology_spread = o.spread;
  s->termination_grace_period = o.termination_grace_period;
  return s;
}

void Sim::pods_on(const std::string& node, int n, const PodOpts& o)
{
  const auto s = spec(o);
  for (int i = 0; i < n; ++i) {
    model::Pod p;
    p.name = fmt::format("pod-{:04d}", m_pod_seq++);
    p.spec = s;
    p.requests = s->requests;
    p.arrival = 0;
    p.runtime = o.runtime;
    p.node_name = node;
    workload.push_back(std::move(p));
  }
}

void Sim::pending(SimTime at, int n, const PodOpts& o)
{
  const auto s = spec(o);
  for (int i = 0; i < n; ++i) {
    model::Pod p;
    p.name = fmt::format("pod-{:04d}", m_pod_seq++);
    p.spec = s;
    p.requests = s->requests;
    p.arrival = at;
    p.runtime = o.runtime;
    workload.push_back(std::move(p));
  }
}

report::EngineResult Sim::run(SimTime end, bool explain)
{
  std::stable_sort(workload.begin(), workload.end(),
                   [](const model::Pod& a, const model::Pod& b) { return a.arrival < b.arrival; });
  sim::EngineInput in;
  in.scenario = &scenario;
  in.catalog = &catalog;
  in.workload = &workload;
  in.end = end;
  in.seed = 1;
  in.explain = explain;
  m_controller = std::make_unique<KarpenterController>(scenario, catalog, 1);
  install_disruption(*m_controller);
  m_engine = std::make_unique<sim::Engine>(in);
  return m_engine->run(*m_controller);
}

std::vector<std::string> Sim::alive() const
{
  std::vector<std::string> out;
  for (const auto& n : cluster().nodes()) {
    if (n.alive()) {
      out.push_back(n.name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool Sim::alive(const std::string& name) const
{
  const auto names = alive();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> Sim::alive_types() const
{
  std::vector<std::string> out;
  for (const auto& n : cluster().nodes()) {
    if (n.alive() && n.instance_type != nullptr) {
      out.push_back(n.instance_type->name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const catalog::InstanceType& Sim::cheapest(const std::string& capacity_type) const
{
  const catalog::InstanceType* best = nullptr;
  double price = std::numeric_limits<double>::infinity();
  for (const auto& t : catalog.instance_types()) {
    for (const auto& o : t.offerings) {
      if (o.capacity_type == capacity_type && o.price_per_hour < price) {
        price = o.price_per_hour;
        best = &t;
      }
    }
  }
  CAPSIM_CHECK(best != nullptr, "no type");
  return *best;
}

const catalog::InstanceType& Sim::most_expensive(const std::string& capacity_type) const
{
  const catalog::InstanceType* best = nullptr;
  double price = -1;
  for (const auto& t : catalog.instance_types()) {
    for (const auto& o : t.offerings) {
      if (o.capacity_type == capacity_type && o.price_per_hour > price) {
        price = o.price_per_hour;
        best = &t;
      }
    }
  }
  CAPSIM_CHECK(best != nullptr, "no type");
  return *best;
}

std::vector<report::Decision> decisions(const report::EngineResult& result, const std::string& method,
                                        const std::string& action)
{
  std::vector<report::Decision> out;
  for (const auto& d : result.decisions) {
    if ((method.empty() || d.method == method) && (action.empty() || d.action == action)) {
      out.push_back(d);
    }
  }
  return out;
}

bool has_decision(const report::EngineResult& result, const std::string& node, const std::string& action,
                  const std::string& text)
{
  return std::any_of(result.decisions.begin(), result.decisions.end(), [&](const report::Decision& d) {
    return d.action == action && d.candidate.find(node) != std::string::npos && d.detail.find(text) != std::string::npos;
  });
}

std::string dump(const report::EngineResult& result)
{
  std::string out;
  for (const auto& d : result.decisions) {
    out += fmt::format("{:>8} {:<12} {:<30} {:<10} {} (${:.4f}/h)\n", d.t, d.method, d.candidate, d.action, d.detail,
                       d.saving_per_hour);
  }
  return out;
}

model::Resources resources(std::int64_t cpu_milli, std::int64_t memory, std::int64_t pods)
{
  model::Resources r;
  r[model::k_cpu] = cpu_milli;
  r[model::k_memory] = memory;
  r[model::k_pods] = pods;
  return r;
}

ConsolidationSuite::ConsolidationSuite(std::vector<catalog::InstanceType> types, std::vector<std::string> zones)
  : sim(std::move(types), std::move(zones))
{
  sim.pool("default");
  sim.scenario.settings.karpenter.spot_to_spot_consolidation = true;
}

void ConsolidationSuite::two_cheap_nodes()
{
  const auto& t = sim.cheapest("on-demand");
  sim.node("node-0", "default", t.name, resources(32000, 0, 100));
  sim.node("node-1", "default", t.name, resources(32000, 0, 100));
}

void spot_node_with_pod(Sim& sim, const std::string& name, std::int64_t cpu_milli, std::int64_t pod_milli)
{
  auto& pool = sim.pool("default");
  const std::string ct(model::labels::k_capacity_type);
  if (pool.requirements.find(ct) == nullptr) {
    pool.requirements.add(model::Requirement::make(ct, model::Operator::in, {"spot"}));
  }
  sim.node(name, "default", sim.most_expensive("spot").name, resources(cpu_milli, 0, 100), {}, "spot");
  PodOpts o = rs_pod();
  o.cpu_milli = pod_milli;
  sim.pods_on(name, 1, o);
}

PodOpts rs_pod()
{
  PodOpts o;
  o.labels = {{"app", "test"}};
  return o;
}

model::PodDisruptionBudget blocking_pdb(const model::Labels& labels)
{
  model::PodDisruptionBudget pdb;
  pdb.name = "pdb";
  pdb.selector.match_labels = labels;
  pdb.max_unavailable = "0";
  return pdb;
}

const cluster::NodeState& only_alive(const Sim& sim)
{
  const cluster::NodeState* out = nullptr;
  for (const auto& n : sim.cluster().nodes()) {
    if (n.alive()) {
      REQUIRE(out == nullptr);
      out = &n;
    }
  }
  REQUIRE(out != nullptr);
  return *out;
}

int bound_pods(const Sim& sim)
{
  int bound = 0;
  for (const auto& n : sim.cluster().nodes()) {
    if (n.alive()) {
      bound += static_cast<int>(n.pods.size());
    }
  }
  return bound;
}

} // namespace capsim::karpenter::dtest
