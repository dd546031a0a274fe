#include "tests/unit/karpenter/harness.hpp"

#include "core/io/pod_template.hpp"
#include "core/io/yaml_reader.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace capsim::karpenter::test {

Requirement req(const std::string& key, Operator op, std::vector<std::string> values, std::optional<int> min_values)
{
  return Requirement::make(key, op, std::move(values), min_values);
}

model::LabelSelector match_labels(model::Labels labels)
{
  model::LabelSelector s;
  s.match_labels = std::move(labels);
  return s;
}

model::TopologySpreadConstraint spread(const std::string& key, model::Labels selector, int max_skew,
                                       bool do_not_schedule)
{
  model::TopologySpreadConstraint t;
  t.topology_key = key;
  t.max_skew = max_skew;
  t.selector = match_labels(std::move(selector));
  t.when_unsatisfiable =
      do_not_schedule ? model::UnsatisfiableAction::do_not_schedule : model::UnsatisfiableAction::schedule_anyway;
  return t;
}

model::PodAffinityTerm affinity_term(const std::string& key, model::Labels selector)
{
  model::PodAffinityTerm t;
  t.topology_key = key;
  t.selector = match_labels(std::move(selector));
  return t;
}

Env::Env(std::vector<catalog::InstanceType> t) : types(std::move(t))
{
  options.max_instance_types = 60; // scheduling.MaxInstanceTypes in Karpenter's test suites
}

model::NodePool& Env::node_pool(const std::string& name)
{
  auto p = std::make_unique<model::NodePool>();
  p->name = name;
  model::Resources limits;
  limits.v.fill(std::numeric_limits<std::int64_t>::max());
  limits[model::k_cpu] = 2000 * 1000;
  p->limits = limits;
  pools.push_back(std::move(p));
  pool_types.emplace_back();
  return *pools.back();
}

model::PodSpecPtr Env::spec(const PodOptions& o) const
{
  auto s = std::make_shared<model::PodSpec>();
  s->template_name = o.name;
  s->namespace_ = o.ns;
  s->labels = o.labels;
  s->requests[model::k_cpu] = o.cpu_milli;
  s->requests[model::k_memory] = o.memory;
  for (const auto& [name, qty] : o.extended) {
    s->requests[*model::resource_id(name)] = qty;
  }
  s->node_selector = o.node_selector;
  if (!o.node_requirements.empty()) {
    s->required_node_affinity.push_back(model::NodeSelectorTerm{o.node_requirements});
  }
  for (const auto& term : o.node_requirement_terms) {
    s->required_node_affinity.push_back(model::NodeSelectorTerm{term});
  }
  if (!o.node_preferences.empty()) {
    s->preferred_node_affinity.push_back(model::PreferredNodeTerm{1, model::NodeSelectorTerm{o.node_preferences}});
  }
  for (const auto& t : o.preferred_terms) {
    s->preferred_node_affinity.push_back(t);
  }
  s->tolerations = o.tolerations;
  s->topology_spread = o.spread;
  s->pod_affinity_required = o.pod_requirements;
  s->pod_affinity_preferred = o.pod_preferences;
  s->pod_anti_affinity_required = o.pod_anti_requirements;
  s->pod_anti_affinity_preferred = o.pod_anti_preferences;
  s->host_ports = o.host_ports;
  for (const auto& term : o.volume_terms) {
    s->volume_affinity.push_back(model::NodeSelectorTerm{term});
  }
  s->volume_error = o.volume_error;
  s->volume_binds_on_schedule = o.volume_binds_on_schedule;
  return s;
}

cluster::PodIndex Env::pod(const PodOptions& o)
{
  return pods(o, 1).front();
}

std::vector<cluster::PodIndex> Env::pods(const PodOptions& o, int n)
{
  const auto s = spec(o);
  std::vector<cluster::PodIndex> out;
  for (int i = 0; i < n; ++i) {
    model::Pod p;
    p.name = fmt::format("pod-{:04d}", m_pod_seq++);
    p.spec = s;
    p.requests = s->requests;
    p.arrival = now;
    const auto idx = cluster.add_pod(std::move(p));
    cluster.set_pending(idx, now);
    out.push_back(idx);
  }
  return out;
}

void Env::daemon_set(const PodOptions& o)
{
  daemon_sets.push_back(spec(o));
}

cluster::PodIndex Env::daemon_pod(const PodOptions& o)
{
  model::Pod p;
  p.name = fmt::format("ds-pod-{:04d}", m_pod_seq++);
  p.spec = spec(o);
  p.requests = p.spec->requests;
  p.is_daemon = true;
  return cluster.add_pod(std::move(p));
}

cluster::NodeIndex Env::node(const std::string& name, model::Labels labels, model::Resources allocatable,
                             cluster::NodeLifecycle lifecycle, std::optional<std::uint32_t> pool)
{
  cluster::NodeState n;
  n.name = name;
  n.labels = std::move(labels);
  n.allocatable = allocatable;
  n.lifecycle = lifecycle;
  if (pool) {
    n.owner = cluster::NodeOwner::node_pool;
    n.pool = *pool;
    n.labels[std::string(model::labels::k_nodepool)] = pools[*pool]->name;
  }
  auto it = n.labels.find(std::string(model::labels::k_instance_type));
  if (it != n.labels.end()) {
    for (const auto& t : types) {
      if (t.name == it->second) {
        n.instance_type = &t;
      }
    }
  }
  return cluster.add_node(std::move(n));
}

void Env::bind(cluster::PodIndex pod, cluster::NodeIndex node)
{
  cluster.bind(pod, node, now);
}

void Env::remove(cluster::PodIndex pod)
{
  if (cluster.pod(pod).node != cluster::k_none) {
    cluster.unbind(pod, now);
  } else {
    cluster.clear_pending(pod);
  }
  cluster.pod_mut(pod).phase = cluster::PodPhase::finished;
}

void Env::delete_unscheduled()
{
  const std::vector<cluster::PodIndex> pending = cluster.pending();
  for (const auto p : pending) {
    remove(p);
  }
}

SolveInput Env::input() const
{
  SolveInput in;
  in.cluster = &cluster;
  in.pods = cluster.pending();
  for (std::uint32_t i = 0; i < pools.size(); ++i) {
    NodePoolInput np;
    np.pool = pools[i].get();
    np.index = i;
    std::vector<const catalog::InstanceType*> offered = pool_types[i];
    if (offered.empty()) {
      for (const auto& t : types) {
        offered.push_back(&t);
      }
    }
    np.instance_types = make_type_list(std::move(offered));
    in.node_pools.push_back(std::move(np));
  }
  in.daemon_sets = daemon_sets;
  in.offering_available = available;
  if (has_reservations()) {
    // The cloud provider's reserved offerings: available while their reservation has room.
    in.offering_available = [this](const catalog::InstanceType& t, const catalog::Offering& o) {
      return (!available || available(t, o))
             && (o.reservation_id.empty() || reservation_used(o.reservation_id) < o.reservation_capacity);
    };
    in.reservation_used = [this](std::string_view id) { return reservation_used(id); };
  }
  in.options = options;
  in.cache = const_cast<SolveCache*>(&cache);
  return in;
}

Env::Round Env::provision(const std::vector<cluster::PodIndex>& bind_pods)
{
  Round round;
  SolveInput in = input();
  in.options.strict_reservations = true; // the provisioner's DisableReservedCapacityFallback
  round.result = solve(in);
  LaunchOptions lo = launch;
  lo.offering_available = in.offering_available;
  lo.reservation_used = in.reservation_used;
  for (const auto& claim : round.result.claims) {
    auto d = choose_launch(claim, lo);
    cluster::NodeIndex created = cluster::k_none;
    if (d.ok) {
      cluster::NodeState n;
      n.name = fmt::format("node-{:04d}", m_node_seq++);
      n.instance_type = d.instance_type;
      n.labels = d.instance_type->labels;
      n.labels[std::string(model::labels::k_zone)] = d.zone;
      n.labels[std::string(model::labels::k_capacity_type)] = d.capacity_type;
      n.labels[std::string(model::labels::k_instance_tenancy)] = d.tenancy;
      for (const auto& [k, v] : claim.labels) {
        n.labels[k] = v;
      }
      if (!d.reservation_id.empty()) {
        n.labels[std::string(model::labels::k_capacity_reservation_id)] = d.reservation_id;
      }
      n.labels["karpenter.sh/registered"] = "true";
      n.zone = d.zone;
      n.capacity_type = d.capacity_type;
      n.price_per_hour = d.price_per_hour;
      n.taints = claim.taints;
      n.allocatable = d.instance_type->allocatable();
      n.owner = cluster::NodeOwner::node_pool;
      n.pool = claim.pool;
      n.lifecycle = cluster::NodeLifecycle::registered;
      created = cluster.add_node(std::move(n));
      for (const auto p : claim.pods) {
        if (std::find(bind_pods.begin(), bind_pods.end(), p) != bind_pods.end()) {
          cluster.bind(p, created, now);
        }
      }
    }
    round.launches.push_back(std::move(d));
    round.created.push_back(created);
  }
  for (const auto& pl : round.result.existing) {
    if (std::find(bind_pods.begin(), bind_pods.end(), pl.pod) != bind_pods.end()) {
      cluster.bind(pl.pod, pl.node, now);
    }
  }
  return round;
}

bool Env::has_reservations() const
{
  return std::any_of(types.begin(), types.end(), [](const catalog::InstanceType& t) {
    return std::any_of(t.offerings.begin(), t.offerings.end(),
                       [](const catalog::Offering& o) { return !o.reservation_id.empty(); });
  });
}

std::int32_t Env::reservation_used(std::string_view id) const
{
  std::int32_t used = 0;
  for (const auto n : cluster.alive_node_indices()) {
    const auto& labels = cluster.node(n).labels;
    const auto it = labels.find(std::string(model::labels::k_capacity_reservation_id));
    used += it != labels.end() && it->second == id ? 1 : 0;
  }
  return used;
}

const cluster::NodeState& Env::node_of(cluster::PodIndex p) const
{
  return cluster.node(cluster.pod(p).node);
}

std::string Env::label(cluster::PodIndex p, const std::string& key) const
{
  const auto& labels = node_of(p).labels;
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

const catalog::InstanceType& Env::type_of(cluster::PodIndex p) const
{
  return *node_of(p).instance_type;
}

std::vector<int> Env::skew(const std::string& key, const model::LabelSelector& selector, const std::string& ns) const
{
  std::map<std::string, int> counts;
  for (const auto& ps : cluster.pods()) {
    if (ps.node == cluster::k_none || ps.pod().spec->namespace_ != ns || !selector.matches(ps.pod().spec->labels)) {
      continue;
    }
    const auto& n = cluster.node(ps.node);
    if (key == model::labels::k_hostname) {
      ++counts[n.name];
    } else if (auto it = n.labels.find(key); it != n.labels.end()) {
      ++counts[it->second];
    }
  }
  std::vector<int> out;
  for (const auto& [k, c] : counts) {
    out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void check_same(const SolveResult& a, const SolveResult& b)
{
  CHECK(a.stopped == b.stopped);
  REQUIRE(a.errors.size() == b.errors.size());
  for (std::size_t i = 0; i < a.errors.size(); ++i) {
    CHECK(a.errors[i].pod == b.errors[i].pod);
    CHECK(a.errors[i].reason == b.errors[i].reason);
  }
  REQUIRE(a.existing.size() == b.existing.size());
  for (std::size_t i = 0; i < a.existing.size(); ++i) {
    CHECK(a.existing[i].pod == b.existing[i].pod);
    CHECK(a.existing[i].node == b.existing[i].node);
  }
  REQUIRE(a.claims.size() == b.claims.size());
  for (std::size_t i = 0; i < a.claims.size(); ++i) {
    CHECK(a.claims[i].pods == b.claims[i].pods);
    CHECK(a.claims[i].instance_types == b.claims[i].instance_types);
    CHECK(a.claims[i].requirements == b.claims[i].requirements);
  }
}

} // namespace capsim::karpenter::test

// --- Helpers of the upstream_*_test.cpp ports --------------------------------------------------

namespace capsim::karpenter::test {

model::PodSpecPtr spec_from_yaml(const std::string& spec_yaml, const std::string& name)
{
  const std::string doc = "metadata:\n  name: " + name + "\nspec:\n" + spec_yaml;
  Diagnostics diagnostics;
  io::YamlReader reader("pod.yaml", diagnostics);
  const YAML::Node root = YAML::Load(doc);
  io::PodContext context;
  auto pod = io::read_pod_template(reader, root, root["metadata"], root["spec"], "Pod/" + name, context);
  for (const auto& d : diagnostics.items()) {
    UNSCOPED_INFO(d.message);
  }
  REQUIRE(diagnostics.empty());
  pod.spec.template_name = name;
  return std::make_shared<model::PodSpec>(std::move(pod.spec));
}

cluster::PodIndex pending_pod(Env& env, const model::PodSpecPtr& spec, const std::string& name)
{
  model::Pod p;
  p.name = name;
  p.spec = spec;
  p.requests = spec->requests;
  p.arrival = env.now;
  const auto idx = env.cluster.add_pod(std::move(p));
  env.cluster.set_pending(idx, env.now);
  return idx;
}

} // namespace capsim::karpenter::test
