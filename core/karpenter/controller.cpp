#include "core/karpenter/controller.hpp"

#include "core/base/diagnostics.hpp"
#include "core/karpenter/disruption_candidates.hpp"
#include "core/karpenter/launch.hpp"
#include "core/karpenter/static_capacity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

namespace capsim::karpenter {

using cluster::k_none;
using cluster::NodeIndex;
using cluster::NodeLifecycle;
using cluster::NodeOwner;
using cluster::PodIndex;

Duration nomination_window(const model::KarpenterSettings& settings)
{
  return std::max<Duration>(2 * settings.batch_max_duration, 10 * k_second);
}

KarpenterController::KarpenterController(const model::Scenario& scenario, const catalog::Catalog& catalog,
                                         std::uint64_t seed)
  : m_scenario(scenario), m_catalog(catalog), m_node_class_types(scenario, catalog), m_seed(seed),
    m_pool_specs(scenario.node_pools), m_pools(scenario.node_pools.size()), m_cache(std::make_unique<SolveCache>())
{
  for (const auto& nc : scenario.node_classes) {
    m_classes.try_emplace(nc.name, nc, nc.name);
  }
  m_present.assign(m_pools.size(), true);
  for (std::uint32_t i = 0; i < m_pools.size(); ++i) {
    m_pools[i].index = i;
    set_pool(i, scenario.node_pools[i]);
    const auto& pool = scenario.node_pools[i];
    if (pool.created_at > 0) {
      m_present[i] = false;
      m_all_present = false;
      m_lifecycle.push_back({pool.created_at, i, true});
    }
    if (pool.deleted_at >= 0) {
      m_lifecycle.push_back({pool.deleted_at, i, false});
    }
  }
  std::stable_sort(m_lifecycle.begin(), m_lifecycle.end(), [](const LifecycleChange& a, const LifecycleChange& b) {
    return a.at != b.at ? a.at < b.at : a.create && !b.create;
  });
  const auto is_static = [](const model::NodePool& p) { return p.replicas.has_value(); };
  m_static_pools = std::any_of(scenario.node_pools.begin(), scenario.node_pools.end(), is_static);
  for (const auto& ds : scenario.daemon_sets) {
    if (ds.spec) {
      m_daemon_sets.push_back(ds.spec);
    }
  }
}

KarpenterController::~KarpenterController() = default;

void KarpenterController::set_pool(std::uint32_t index, const model::NodePool& pool)
{
  m_pool_specs[index] = pool;
  NodePoolInput& in = m_pools[index];
  in.pool = &m_pool_specs[index];
  in.revision = ++m_pool_revisions; // (non-zero: the cache trusts it until the next version)
  const auto cls = m_classes.find(pool.node_class_ref);
  in.instance_types =
      make_type_list(m_node_class_types.types_for(cls == m_classes.end() ? pool.node_class_ref : cls->second.second));
  for (const auto* t : *in.instance_types) {
    for (const auto& o : t->offerings) {
      m_reservations = m_reservations || !o.reservation_id.empty();
    }
  }
}

void KarpenterController::apply_updates(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  const auto& pools = m_scenario.node_pool_updates;
  const auto& classes = m_scenario.node_class_updates;
  enum class Kind : std::uint8_t { node_class, creation, version, deletion, none };
  for (;;) {
    // The earliest change due; at one time in Kind's order.
    std::pair<SimTime, Kind> next{now + 1, Kind::none};
    const auto consider = [&next](SimTime at, Kind kind) { next = std::min(next, std::pair{at, kind}); };
    if (m_next_class_update < classes.size()) {
      consider(classes[m_next_class_update].at, Kind::node_class);
    }
    if (m_next_update < pools.size()) {
      consider(pools[m_next_update].at, Kind::version);
    }
    if (m_next_lifecycle < m_lifecycle.size()) {
      const auto& c = m_lifecycle[m_next_lifecycle];
      consider(c.at, c.create ? Kind::creation : Kind::deletion);
    }
    switch (next.second) {
    case Kind::node_class: apply_class_update(m_next_class_update++, now, actuator); break;
    case Kind::version: apply_pool_update(pools[m_next_update++], now, actuator); break;
    case Kind::creation:
    case Kind::deletion: apply_lifecycle(m_next_lifecycle++, now, cluster, actuator); break;
    case Kind::none: return;
    }
  }
}

void KarpenterController::apply_lifecycle(std::size_t index, SimTime now, const cluster::Cluster& cluster,
                                          sim::Actuator& actuator)
{
  const LifecycleChange change = m_lifecycle[index];
  m_present[change.pool] = change.create;
  m_all_present = std::all_of(m_present.begin(), m_present.end(), [](bool p) { return p; });
  const model::NodePool pool = m_pool_specs[change.pool];
  set_pool(change.pool, pool); // (a new revision: caches and consolidation look again)
  if (change.create) {
    actuator.record({now, "nodepool", pool.name, "create", "NodePool created (its first version applied)", 0});
    return;
  }
  actuator.record({now, "nodepool", pool.name, "delete", "NodePool deleted: its NodeClaims are deleted with it", 0});
  const std::vector<NodeIndex> alive = cluster.alive_node_indices(); // a copy: deleting changes it
  for (const NodeIndex n : alive) {
    const auto& node = cluster.node(n);
    if (node.owner != NodeOwner::node_pool || node.pool != change.pool || node.lifecycle == NodeLifecycle::deleting) {
      continue;
    }
    actuator.record({now, "nodepool", node.name, "delete", fmt::format("its NodePool {} was deleted", pool.name), 0});
    actuator.delete_node(n, sim::DeleteReason::nodepool_deleted);
  }
}

void KarpenterController::apply_pool_update(const model::NodePoolUpdate& update, SimTime now,
                                            sim::Actuator& actuator)
{
  const auto it = std::find_if(m_pool_specs.begin(), m_pool_specs.end(),
                               [&](const model::NodePool& p) { return p.name == update.pool.name; });
  if (it == m_pool_specs.end()) {
    return; // (the parser refuses a version of a NodePool the scenario does not have)
  }
  const bool drifts = it->template_hash != update.pool.template_hash;
  const bool requirements = !(it->requirements == update.pool.requirements);
  set_pool(static_cast<std::uint32_t>(it - m_pool_specs.begin()), update.pool);
  if (actuator.records_decisions()) {
    std::string what = drifts ? "template changed: its nodes drift" : "template unchanged";
    if (requirements) {
      what += "; requirements changed: nodes they no longer allow drift";
    }
    actuator.record({now, "nodepool", update.pool.name, "update",
                     fmt::format("version of line {} applied ({})", update.location.line, what), 0});
  }
}

void KarpenterController::apply_class_update(std::size_t index, SimTime now, sim::Actuator& actuator)
{
  const auto& update = m_scenario.node_class_updates[index];
  const auto it = m_classes.find(update.node_class.name);
  if (it == m_classes.end()) {
    return; // (the parser refuses a version of an EC2NodeClass the scenario does not have)
  }
  const bool hash = it->second.first.hash != update.node_class.hash;
  const bool ami = it->second.first.ami_hash != update.node_class.ami_hash;
  it->second = {update.node_class, sim::NodeClassTypes::version_key(m_scenario, index)};
  // Its NodePools get the instance types the new settings build.
  for (std::uint32_t i = 0; i < m_pool_specs.size(); ++i) {
    if (m_pool_specs[i].node_class_ref == update.node_class.name) {
      const model::NodePool pool = m_pool_specs[i];
      set_pool(i, pool);
    }
  }
  if (actuator.records_decisions()) {
    std::string what = hash ? "hash changed: its nodes drift (NodeClassDrift)" : "hash unchanged";
    if (ami) {
      what += "; AMI selector changed: its nodes drift (AMIDrift)";
    }
    actuator.record({now, "nodeclass", update.node_class.name, "update",
                     fmt::format("version of line {} applied ({})", update.location.line, what), 0});
  }
}

const model::NodeClass* KarpenterController::node_class(std::string_view name) const
{
  const auto it = m_classes.find(name);
  return it == m_classes.end() ? nullptr : &it->second.first;
}

// (Only nodes at t=0 ask, before any later NodePool version: the scenario's is theirs.)
const catalog::InstanceType* KarpenterController::instance_type_for(const cluster::NodeState& node) const
{
  if (node.owner != NodeOwner::node_pool || node.pool >= m_scenario.node_pools.size() || node.instance_type == nullptr) {
    return nullptr;
  }
  return m_node_class_types.find(m_scenario.node_pools[node.pool].node_class_ref, node.instance_type->name);
}

const std::vector<const catalog::InstanceType*>* KarpenterController::pool_instance_types(
    const model::NodePool& pool) const
{
  return &m_node_class_types.types_for(pool.node_class_ref);
}

SimTime KarpenterController::nominated_until(NodeIndex node) const
{
  return node < m_nominated_until.size() ? m_nominated_until[node] : -1;
}

SolveInput KarpenterController::solve_input(const cluster::Cluster& cluster, const sim::Actuator& actuator) const
{
  SolveInput in;
  fill_solve_input(in, cluster, actuator);
  return in;
}

void KarpenterController::fill_solve_input(SolveInput& in, const cluster::Cluster& /*cluster*/,
                                           const sim::Actuator& actuator) const
{
  in.cluster = nullptr;
  in.pods.clear();
  in.pods_start_with_pending = false;
  in.candidate_pod_counts.clear();
  in.excluded_nodes.clear();
  in.node_pools.clear();
  if (m_static_pools || !m_all_present) {
    // The provisioner's scheduler skips static NodePools (nodepoolutils.IsStatic), and sees
    // only the NodePools that exist now.
    for (const auto& p : m_pools) {
      if (!p.pool->replicas && m_present[p.index]) {
        in.node_pools.push_back(p);
      }
    }
  } else {
    in.node_pools = m_pools;
  }
  in.daemon_sets = m_daemon_sets;
  in.remaining_limits.clear();
  in.offering_available = [&actuator](const catalog::InstanceType& type, const catalog::Offering& o) {
    return actuator.offering_launchable(type, o);
  };
  in.availability_version = actuator.availability_version();
  in.reservation_used = nullptr;
  if (m_reservations) {
    in.reservation_used = [&actuator](std::string_view id) { return actuator.reservation_used(id); };
  }
  in.options = SolveOptions{};
  in.options.ignore_preferences = m_scenario.settings.karpenter.preference_policy_ignore;
  in.options.min_values_best_effort = m_scenario.settings.karpenter.min_values_best_effort;
  in.options.max_instance_types = 600;
  in.cache = m_cache.get();
}

#ifndef NDEBUG
namespace {

// A NodeClaim without the instance-type requirement (SolveOptions::omit_instance_type_requirement)
// launches as it would with it: node.kubernetes.io/instance-type In [its options' names].
void check_launch_without_type_names(const NewNodeClaim& claim, LaunchOptions opts, const LaunchDecision& decision)
{
  if (claim.requirements.find(model::labels::k_instance_type) != nullptr) {
    return;
  }
  std::vector<std::string> names;
  for (const auto* t : claim.instance_types) {
    names.push_back(t->name);
  }
  std::sort(names.begin(), names.end());
  model::Requirements full = claim.requirements;
  full.add(model::Requirement::make(std::string(model::labels::k_instance_type), model::Operator::in, names));
  opts.memo = nullptr;
  const LaunchDecision with = choose_launch(full, claim.requests, claim.instance_types, opts, claim.options_compatible);
  const auto same_fallbacks = std::equal(
      with.fallbacks.begin(), with.fallbacks.end(), decision.fallbacks.begin(), decision.fallbacks.end(),
      [](const auto& a, const auto& b) { return a.instance_type == b.instance_type && a.offering == b.offering; });
  CAPSIM_CHECK(with.ok == decision.ok && with.instance_type == decision.instance_type && with.zone == decision.zone
                   && with.capacity_type == decision.capacity_type && with.price_per_hour == decision.price_per_hour
                   && with.reservation_id == decision.reservation_id && with.tenancy == decision.tenancy
                   && with.candidates == decision.candidates && with.error == decision.error && same_fallbacks,
               "launch: the instance-type requirement changes a NodeClaim's launch");
}

} // namespace
#endif

std::vector<NodeIndex> KarpenterController::launch_claims(SimTime now, const SolveResult& result,
                                                          sim::Actuator& actuator, const cluster::Cluster& cluster)
{
  const auto& settings = m_scenario.settings.karpenter;
  std::vector<NodeIndex> launched;
  for (const auto& claim : result.claims) {
    CAPSIM_CHECK(!claim.sketch, "launch: a sketched NodeClaim (SolveOptions::sketch_claims) cannot be launched");
    const auto& pool = *m_pools[claim.pool].pool;
    LaunchOptions opts;
    opts.max_instance_types = settings.max_instance_types;
    opts.min_values_best_effort = settings.min_values_best_effort;
    if (!actuator.all_offerings_available()) {
      opts.offering_available = [&actuator](const catalog::InstanceType& type, const catalog::Offering& o) {
        return actuator.offering_launchable(type, o);
      };
      opts.availability_version = actuator.availability_version();
    }
    if (m_reservations) {
      opts.reservation_used = [&actuator](std::string_view id) { return actuator.reservation_used(id); };
    } else {
      opts.memo = &m_launch_memo; // (a reservation's count changes its choice without a version)
    }
    const LaunchDecision decision = choose_launch(claim, opts);
#ifndef NDEBUG
    check_launch_without_type_names(claim, opts, decision);
#endif
    const LaunchDecision* choice = decision.ok ? &decision : nullptr;
    NodeIndex node = k_none;
    if (choice != nullptr) {
      sim::LaunchRequest req;
      req.instance_type = choice->instance_type;
      req.zone = choice->zone;
      req.capacity_type = choice->capacity_type;
      req.price_per_hour = choice->price_per_hour;
      req.reservation_id = choice->reservation_id;
      req.labels = claim.labels;
      req.labels[std::string(model::labels::k_instance_tenancy)] = choice->tenancy;
      req.taints = claim.taints;
      req.startup_taints = claim.startup_taints;
      req.owner = NodeOwner::node_pool;
      req.pool = claim.pool;
      req.launch_latency = settings.launch_latency;
      req.registration_latency = settings.registration_latency;
      req.expire_at = pool.expire_after == k_never ? -1 : now + pool.expire_after;
      req.template_hash = pool.template_hash;
      if (const auto* nc = node_class(pool.node_class_ref)) {
        req.node_class_hash = nc->hash;
        req.ami_hash = nc->ami_hash;
      }
      req.termination_grace_period = pool.termination_grace_period;
      // The template's annotations reach the NodeClaim and then the Node (registration syncs
      // them), so a NodePool can mark every node it launches as not to be disrupted.
      const auto dnd = pool.template_annotations.find(std::string(model::labels::k_do_not_disrupt));
      req.do_not_disrupt = dnd != pool.template_annotations.end() && dnd->second == "true";
      req.nominated_pods = claim.pods;
      req.fallbacks = choice->fallbacks;
      node = actuator.launch(req);
      if (node != k_none && actuator.records_decisions()) { // (a week launches tens of thousands)
        const auto& launched_node = cluster.node(node); // (a fallback override when the first had no capacity)
        actuator.record({now, "provisioning", launched_node.name, "launch",
                         fmt::format("{} {} {} ${:.4f}/h for {} pod(s) ({} option(s))", launched_node.instance_type->name,
                                     launched_node.zone, launched_node.capacity_type, launched_node.price_per_hour,
                                     claim.pods.size(), claim.instance_types.size()),
                         0});
      }
    }
    if (node == k_none) {
      ++m_launch_failures;
    }
    launched.push_back(node);
  }
  return launched;
}

void KarpenterController::provision(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  const auto& pending = cluster.pending();
  if (m_pools.empty() || (pending.empty() && m_disrupted.nodes.empty())) {
    return;
  }
  SolveInput& in = m_provision_input;
  fill_solve_input(in, cluster, actuator);
  in.cluster = &cluster;
  in.options.strict_reservations = true; // the provisioner's DisableReservedCapacityFallback
  in.pods.assign(pending.begin(), pending.end());
  // Pods of deleting nodes are re-simulated too (they will need somewhere to go), and of nodes
  // marked for deletion by a disruption command (disrupted taint), whose replacements must keep
  // room for them (nodes.Deleting() includes MarkedForDeletion). Only those that will leave:
  // CurrentlyReschedulablePods skips DaemonSet pods, active do-not-disrupt pods and pods under a
  // fully blocking PDB.
  std::optional<PdbLimits> pdbs;
  for (const NodeIndex n : m_disrupted.nodes) {
    const auto& node = cluster.node(n);
    if (!node.pods.empty() && !pdbs && !m_scenario.pdbs.empty()) {
      pdbs.emplace(m_scenario.pdbs); // (fully_blocked() needs no count of the cluster's pods)
    }
    for (const PodIndex p : node.pods) {
      if (currently_reschedulable(cluster.pod(p), pdbs ? &*pdbs : nullptr, now)) {
        in.pods.push_back(p);
      }
    }
  }
  if (in.pods.empty()) {
    return; // nothing to schedule
  }
  // The launch reads a NodeClaim's options from its instance types: the instance-type requirement
  // would only restate them as names, hundreds per NodeClaim, hashed and compared by the launch
  // memo (one with minValues keeps it; debug builds launch with it too and compare).
  in.options.omit_instance_type_requirement = true;
  ++m_solves;
  const SolveResult result = solve(in);
  m_nominated_until.resize(cluster.nodes().size(), -1);
  const Duration window = nomination_window(m_scenario.settings.karpenter);
  for (const auto& p : result.existing) {
    m_nominated_until[p.node] = now + window;
    m_nomination_log.push_back(p.node);
    m_nominations_end = std::max(m_nominations_end, now + window);
  }
  launch_claims(now, result, actuator, cluster);
  m_nominated_until.resize(cluster.nodes().size(), -1);
  // (Only live nodes are ever disruption candidates, the one reader.)
  m_created.update(cluster, now);
#ifndef NDEBUG
  std::vector<NodeIndex> live;
  std::copy_if(m_created.nodes.begin(), m_created.nodes.end(), std::back_inserter(live),
               [&cluster](NodeIndex n) { return cluster.node(n).alive(); });
  std::vector<NodeIndex> walked;
  std::copy_if(cluster.alive_node_indices().begin(), cluster.alive_node_indices().end(), std::back_inserter(walked),
               [&cluster, now](NodeIndex n) { return cluster.node(n).created_at == now; });
  CAPSIM_CHECK(live == walked, "provisioning: the nodes created now differ from a walk over the live nodes");
#endif
  for (const NodeIndex n : m_created.nodes) {
    if (cluster.node(n).alive()) {
      m_nominated_until[n] = now + window;
      m_nomination_log.push_back(n);
      m_nominations_end = std::max(m_nominations_end, now + window);
    }
  }
}

void NodesCreatedAt::update(const cluster::Cluster& c, SimTime at)
{
  if (cluster != c.instance_id()) {
    *this = NodesCreatedAt{};
    cluster = c.instance_id();
  }
  if (at != now) {
    nodes.clear();
    now = at;
    if (latest >= at) { // (a node looked at may have been created at `at`)
      for (NodeIndex n = 0; n < scanned; ++n) {
        if (c.node(n).created_at == at) {
          nodes.push_back(n);
        }
      }
    }
  }
  const std::size_t all = c.nodes().size();
  for (; scanned < all; ++scanned) {
    const SimTime created = c.node(static_cast<NodeIndex>(scanned)).created_at;
    latest = std::max(latest, created);
    if (created == at) {
      nodes.push_back(static_cast<NodeIndex>(scanned));
    }
  }
}

bool KarpenterController::DisruptedNodes::update(const cluster::Cluster& c)
{
  if (cluster != c.instance_id()) {
    cluster = c.instance_id();
    log_seen = 0;
    nodes.clear();
  }
  bool joined = false;
  const auto& log = c.node_log();
  for (; log_seen < log.size(); ++log_seen) {
    const NodeIndex n = log[log_seen];
    const auto& node = c.node(n);
    const bool disrupted = node.alive() && (node.lifecycle == NodeLifecycle::deleting || node.disrupted_taint);
    const auto it = std::lower_bound(nodes.begin(), nodes.end(), n);
    const bool known = it != nodes.end() && *it == n;
    if (disrupted && !known) {
      nodes.insert(it, n);
      joined = true;
    } else if (!disrupted && known) {
      nodes.erase(it);
    }
  }
  return joined;
}

void KarpenterController::Expiries::update(const cluster::Cluster& c)
{
  if (cluster != c.instance_id()) {
    cluster = c.instance_id();
    log_seen = 0;
    order.clear();
    at.clear();
  }
  const auto& log = c.node_log();
  for (; log_seen < log.size(); ++log_seen) {
    const NodeIndex n = log[log_seen];
    const auto& node = c.node(n);
    const SimTime now_at =
        node.alive() && node.expire_at >= 0 && node.lifecycle != NodeLifecycle::deleting ? node.expire_at : -1;
    if (at.size() <= n) {
      at.resize(static_cast<std::size_t>(n) + 1, -1);
    }
    if (at[n] == now_at) {
      continue;
    }
    if (at[n] >= 0) {
      order.erase({at[n], n});
    }
    if (now_at >= 0) {
      order.emplace(now_at, n);
    }
    at[n] = now_at;
  }
}

SimTime KarpenterController::earliest_expiry(const cluster::Cluster& cluster)
{
  m_expiries.update(cluster);
  const SimTime earliest = m_expiries.order.empty() ? -1 : m_expiries.order.begin()->first;
#ifndef NDEBUG
  SimTime walked = -1;
  for (const NodeIndex n : cluster.alive_node_indices()) {
    const auto& node = cluster.node(n);
    if (node.expire_at >= 0 && node.lifecycle != NodeLifecycle::deleting && (walked < 0 || node.expire_at < walked)) {
      walked = node.expire_at;
    }
  }
  CAPSIM_CHECK(walked == earliest, "expiration: the kept earliest expiry differs from a walk");
#endif
  return earliest;
}

void KarpenterController::expire(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  const SimTime earliest = earliest_expiry(cluster);
  if (earliest < 0 || earliest > now) {
    return; // no node has expired
  }
  const std::vector<NodeIndex> alive = cluster.alive_node_indices(); // a copy: deleting changes it
  for (const NodeIndex n : alive) {
    const auto& node = cluster.node(n);
    if (node.owner != NodeOwner::node_pool || node.expire_at < 0 || node.expire_at > now || !node.alive()
        || node.lifecycle == NodeLifecycle::deleting) {
      continue;
    }
    actuator.record({now, "expiration", node.name, "delete", "expireAfter elapsed", 0});
    actuator.delete_node(n, sim::DeleteReason::expiration);
  }
}

std::optional<SimTime> KarpenterController::reconcile(SimTime now, const cluster::Cluster& cluster,
                                                      sim::Actuator& actuator)
{
  const auto& settings = m_scenario.settings.karpenter;
  apply_updates(now, cluster, actuator);
  expire(now, cluster, actuator);

  // Batching: any pod that became pending since the last look is a trigger.
  bool new_trigger = false;
  for (const PodIndex p : cluster.pending()) {
    if (cluster.pod(p).pending_since > m_last_scan || m_last_scan < 0) {
      new_trigger = true;
      break;
    }
  }
  m_last_scan = now;
  // A node taking the disrupted taint (a disruption command's candidate, or a node being
  // deleted) triggers a run too: its pods' new room is launched before they are evicted.
  new_trigger = m_disrupted.update(cluster) || new_trigger;
  const bool requeued = !cluster.pending().empty() || !m_disrupted.nodes.empty();
  if (requeued && m_batch_start < 0 && m_last_solve >= 0 && now >= m_last_solve + k_pending_requeue) {
    new_trigger = true; // the pod and node controllers re-queue every 10 s
  }
  if (new_trigger) {
    if (m_batch_start < 0) {
      m_batch_start = now;
    }
    m_batch_last = now;
  }
  if (m_batch_start >= 0
      && (now >= m_batch_last + settings.batch_idle_duration || now >= m_batch_start + settings.batch_max_duration)) {
    m_batch_start = -1;
    m_batch_last = -1;
    m_last_solve = now;
    provision(now, cluster, actuator);
  }
  if (m_static_pools && settings.static_capacity) {
    static_capacity(now, cluster, actuator);
  }

  if (m_disruption && now >= m_next_disruption) {
    const bool acted = m_disruption(now, cluster, actuator);
    m_next_disruption = acted ? now + 1 : now + k_disruption_poll;
    if (m_disruption_wake > now) {
      m_next_disruption = std::min(m_next_disruption, m_disruption_wake);
    }
    m_disruption_wake = -1;
  }

  SimTime next = -1;
  const auto consider = [&next](SimTime t) {
    if (t >= 0 && (next < 0 || t < next)) {
      next = t;
    }
  };
  if (m_batch_start >= 0) {
    consider(std::min(m_batch_last + settings.batch_idle_duration, m_batch_start + settings.batch_max_duration));
  } else if ((!cluster.pending().empty() || !m_disrupted.nodes.empty()) && m_last_solve >= 0) {
    consider(m_last_solve + k_pending_requeue);
  }
  if (m_disruption) {
    consider(m_next_disruption);
  }
  consider(earliest_expiry(cluster));
  if (m_static_retry > now) {
    consider(m_static_retry);
  }
  if (m_next_update < m_scenario.node_pool_updates.size()) {
    consider(m_scenario.node_pool_updates[m_next_update].at);
  }
  if (m_next_class_update < m_scenario.node_class_updates.size()) {
    consider(m_scenario.node_class_updates[m_next_class_update].at);
  }
  if (m_next_lifecycle < m_lifecycle.size()) {
    consider(m_lifecycle[m_next_lifecycle].at);
  }
  if (next < 0) {
    return std::nullopt;
  }
  return next;
}

void KarpenterController::static_capacity(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  if (cluster.node_epoch() == m_static_epoch && m_pool_revisions == m_static_revisions
      && (m_static_retry < 0 || now < m_static_retry)) {
    return;
  }
  m_static_retry = -1;
  for (const auto& in : m_pools) {
    const model::NodePool& pool = *in.pool;
    if (!pool.replicas || !m_present[in.index]) {
      continue;
    }
    const std::int64_t desired = *pool.replicas;
    const StaticNodeCounts counts = static_node_counts(cluster, in.index);
    // Deprovisioning counts active NodeClaims only: replacements of drifting ones would
    // otherwise look like a surplus.
    if (counts.active > desired) {
      for (const NodeIndex n : static_deprovisioning_candidates(cluster, in.index, counts.active - desired, now)) {
        actuator.record({now, "static", cluster.node(n).name, "delete",
                         fmt::format("NodePool {} has {} active node(s) for {} replica(s): overprovisioned", pool.name,
                                     counts.active, desired),
                         0});
        actuator.delete_node(n, sim::DeleteReason::overprovisioned);
      }
      continue;
    }
    // Provisioning counts the NodeClaims a disruption command is replacing as active.
    if (counts.active + counts.pending_disruption >= desired) {
      continue;
    }
    const std::int64_t room = static_room(counts, pool, desired - counts.active);
    if (room <= 0) {
      actuator.record({now, "static", pool.name, "keep",
                       fmt::format("nodepool node limit reached ({} of {} replica(s) active)", counts.active, desired),
                       0});
      continue;
    }
    SolveResult claims;
    claims.claims.assign(static_cast<std::size_t>(room), static_node_claim(in));
    const auto launched = launch_claims(now, claims, actuator, cluster);
    if (std::find(launched.begin(), launched.end(), k_none) != launched.end()) {
      m_static_retry = now + k_minute;
    }
  }
  m_static_epoch = cluster.node_epoch();
  m_static_revisions = m_pool_revisions;
}

void KarpenterController::finish(report::EngineResult& /*result*/) {}

Duration KarpenterController::interruption_lead_time() const
{
  return m_scenario.settings.karpenter.interruption_queue ? 2 * k_minute : 0;
}

bool KarpenterController::handles_interruption(const cluster::NodeState& node) const
{
  return m_scenario.settings.karpenter.interruption_queue && node.owner == NodeOwner::node_pool;
}

std::unique_ptr<KarpenterController> make_karpenter(const model::Scenario& scenario, const catalog::Catalog& catalog,
                                                    std::uint64_t seed)
{
  return std::make_unique<KarpenterController>(scenario, catalog, seed);
}

} // namespace capsim::karpenter
