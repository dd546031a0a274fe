#include "core/sim/engine.hpp"

#include "core/base/quantity.hpp"
#include "core/base/rng.hpp"
#include "core/model/pdb.hpp"
#include "core/sim/bound_problem.hpp"
#include "core/sim/initial_node.hpp"
#include "core/sim/placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace capsim::sim {

namespace {

using cluster::k_none;
using cluster::NodeIndex;
using cluster::NodeLifecycle;
using cluster::NodeOwner;
using cluster::PodIndex;
using cluster::PodPhase;

constexpr double k_ms_per_hour = 3'600'000.0;
constexpr Duration k_min_billing = k_minute;

// Monthly interruption frequency for each Spot Advisor band (<5%, 5-10%, 10-15%, 15-20%, >20%),
// taken at the middle of the band (25% for the open-ended top band).
constexpr double k_band_monthly_rate[] = {0.025, 0.075, 0.125, 0.175, 0.25};
constexpr double k_month_ms = 30.0 * 24 * 3'600'000.0;

bool selector_matches(const model::EventSelector& s, const cluster::NodeState& n)
{
  return (s.instance_type.empty() || (n.instance_type != nullptr && n.instance_type->name == s.instance_type))
         && (s.zone.empty() || s.zone == n.zone) && (s.capacity_type.empty() || s.capacity_type == n.capacity_type)
         && (s.node_name.empty() || s.node_name == n.name)
         && (s.node_pool.empty()
             || (n.labels.count(std::string(model::labels::k_nodepool)) != 0
                 && n.labels.at(std::string(model::labels::k_nodepool)) == s.node_pool));
}

} // namespace

Engine::Engine(const EngineInput& input) : m_input(input) {}

void Engine::find_reservations()
{
  const auto scan = [this](const catalog::InstanceType& t) {
    for (const auto& o : t.offerings) {
      m_has_reservations = m_has_reservations || !o.reservation_id.empty();
    }
  };
  if (m_input.catalog != nullptr) {
    for (const auto& t : m_input.catalog->instance_types()) {
      scan(t);
    }
  }
  const auto scan_pool = [&](const model::NodePool& pool) {
    if (const auto* types = m_controller != nullptr ? m_controller->pool_instance_types(pool) : nullptr) {
      for (const auto* t : *types) {
        scan(*t);
      }
    }
  };
  for (const auto& pool : m_input.scenario->node_pools) {
    scan_pool(pool);
  }
  for (const auto& update : m_input.scenario->node_pool_updates) {
    scan_pool(update.pool);
  }
}

void Engine::account_node(const cluster::NodeState& node, int sign)
{
  m_sums.nodes += sign;
  m_sums.cpu_alloc += sign * node.allocatable.cpu();
  m_sums.mem_alloc += sign * node.allocatable.memory();
  m_sums.cpu_req += sign * node.requested.cpu();
  m_sums.mem_req += sign * node.requested.memory();
  m_sums.price_rate += sign * node.price_per_hour;
  m_peak_nodes = std::max(m_peak_nodes, m_sums.nodes);
  if (node.capacity_type == model::k_capacity_reserved) {
    count_reservation(node, sign);
  }
}

void Engine::count_reservation(const cluster::NodeState& node, int sign)
{
  const auto label = node.labels.find(std::string(model::labels::k_capacity_reservation_id));
  if (label == node.labels.end()) {
    return;
  }
  m_reservation_used[label->second] += sign;
  // The reservation's offering may have changed availability (its capacity is the offering's,
  // which the NodePool's instance types carry, not necessarily the node's catalog type).
  ++m_unavailable_changes;
}

std::int32_t Engine::reservation_used(std::string_view reservation_id) const
{
  const auto it = m_reservation_used.find(reservation_id);
  return it == m_reservation_used.end() ? 0 : it->second;
}

std::string Engine::pool_name_for(cluster::NodeOwner owner, std::uint32_t pool) const
{
  const auto& sc = *m_input.scenario;
  if (owner == NodeOwner::node_pool && pool < sc.node_pools.size()) {
    return sc.node_pools[pool].name;
  }
  if (owner == NodeOwner::node_group && pool < sc.node_groups.size()) {
    return sc.node_groups[pool].name;
  }
  return "node";
}

std::string Engine::pool_name(const cluster::NodeState& node) const
{
  const auto& sc = *m_input.scenario;
  if (node.owner == NodeOwner::node_pool && node.pool < sc.node_pools.size()) {
    return sc.node_pools[node.pool].name;
  }
  if (node.owner == NodeOwner::node_group && node.pool < sc.node_groups.size()) {
    return sc.node_groups[node.pool].name;
  }
  return "static";
}

void Engine::apply_daemon_overhead(NodeIndex index)
{
  auto& node = m_cluster.node_mut(index);
  for (const auto& ds : m_input.scenario->daemon_sets) {
    if (!ds.spec || !daemon_runs_on(*ds.spec, node)) {
      continue;
    }
    model::Resources r = ds.spec->requests;
    r[model::k_pods] += 1;
    node.requested += r;
    node.daemon_requested += r;
  }
}

void Engine::add_initial_state()
{
  const auto& sc = *m_input.scenario;
  for (const auto& in : sc.nodes) {
    cluster::NodeState n = node_from_initial(in, *m_input.catalog);
    n.lifecycle = NodeLifecycle::ready;
    n.created_at = 0;
    n.age_at_creation = in.age;
    n.registered_at = 0;
    n.ready_at = 0;
    // A node belongs to the engine that manages its pool: a Karpenter run adopts nodes of its
    // NodePools, a Cluster Autoscaler run those of its NodeGroups; the rest are static.
    const bool karpenter = m_controller != nullptr && m_controller->name() == "karpenter";
    const std::string& pool_label = in.node_pool.empty() && in.owner == model::InitialNode::Owner::node_pool ? in.owner_pool : in.node_pool;
    const std::string& group_label = in.node_group.empty() && in.owner == model::InitialNode::Owner::node_group ? in.owner_pool : in.node_group;
    if (karpenter && !pool_label.empty()) {
      for (std::uint32_t i = 0; i < sc.node_pools.size(); ++i) {
        if (sc.node_pools[i].name == pool_label) {
          n.owner = NodeOwner::node_pool;
          n.pool = i;
          n.template_hash = sc.node_pools[i].template_hash;
          n.termination_grace_period = sc.node_pools[i].termination_grace_period;
          for (const auto& nc : sc.node_classes) {
            if (nc.name == sc.node_pools[i].node_class_ref) {
              n.node_class_hash = nc.hash;
              n.ami_hash = nc.ami_hash;
            }
          }
          if (sc.node_pools[i].expire_after != k_never) {
            // A node of a dump has lived `age` of its expireAfter already (at once if all).
            n.expire_at = std::max<SimTime>(0, sc.node_pools[i].expire_after - in.age);
          }
        }
      }
    } else if (!karpenter && !group_label.empty()) {
      for (std::uint32_t i = 0; i < sc.node_groups.size(); ++i) {
        if (sc.node_groups[i].name == group_label) {
          n.owner = NodeOwner::node_group;
          n.pool = i;
        }
      }
    }
    if (n.pool == k_none && n.owner != NodeOwner::static_node) {
      n.owner = NodeOwner::static_node;
    }
    // The type as its pool builds it (a NodePool's EC2NodeClass settings), unless the node says
    // what it has.
    if (const auto* t = m_controller != nullptr ? m_controller->instance_type_for(n) : nullptr; t != nullptr) {
      n.instance_type = t;
      if (!in.allocatable) {
        n.allocatable = t->allocatable();
      }
    }
    const NodeIndex idx = m_cluster.add_node(std::move(n));
    apply_daemon_overhead(idx);
    account_node(m_cluster.node(idx), +1);
    m_result.nodes.launched += 0; // initial nodes are not launches
    if (m_cluster.node(idx).capacity_type == model::k_capacity_spot) {
      schedule_spot_interruption(idx);
    }
  }
}

cluster::NodeIndex Engine::launch(const LaunchRequest& request)
{
  CAPSIM_CHECK(request.instance_type != nullptr, "launch without an instance type");
  if (!offering_available(request.instance_type->name, request.zone, request.capacity_type)) {
    return k_none;
  }
  // CreateFleet: an override without capacity comes back as an error (Karpenter caches the
  // offering as unavailable) and the fleet goes on to its next override; the launch fails only
  // when none has capacity.
  const catalog::InstanceType* chosen = request.instance_type;
  std::string_view zone = request.zone;
  double price = request.price_per_hour;
  std::string_view reservation = request.reservation_id;
  const auto no_capacity = [&](const catalog::InstanceType& type, std::string_view z) {
    if (!ice_active(type.name, z, request.capacity_type)) {
      return false;
    }
    mark_unavailable(type.name, z, request.capacity_type, k_unavailable_offering_ttl);
    record({m_now, "launch", type.name, "insufficient-capacity",
            fmt::format("{} {} {} unavailable for {}", type.name, z, request.capacity_type,
                        format_duration(k_unavailable_offering_ttl)),
            0});
    return true;
  };
  // A capacity reservation with no instance left refuses the launch (ReservationCapacityExceeded).
  const auto reservation_full = [&](const catalog::InstanceType& type, std::string_view id) {
    if (id.empty()) {
      return false;
    }
    const auto o = std::find_if(type.offerings.begin(), type.offerings.end(),
                                [&](const catalog::Offering& x) { return x.reservation_id == id; });
    return o == type.offerings.end() || reservation_used(id) >= o->reservation_capacity;
  };
  if (reservation_full(*chosen, reservation) || no_capacity(*chosen, zone)) {
    chosen = nullptr;
    for (const auto& ov : request.fallbacks) {
      if (!offering_available(ov.instance_type->name, ov.offering->zone, request.capacity_type)
          || reservation_full(*ov.instance_type, ov.offering->reservation_id)
          || no_capacity(*ov.instance_type, ov.offering->zone)) {
        continue;
      }
      chosen = ov.instance_type;
      zone = ov.offering->zone;
      price = ov.offering->price_per_hour;
      reservation = ov.offering->reservation_id;
      break;
    }
    if (chosen == nullptr) {
      return k_none;
    }
  }
  const auto& type = *chosen;
  cluster::NodeState n;
  ++m_node_counter;
  n.name = fmt::format("{}-{:06d}", pool_name_for(request.owner, request.pool), m_node_counter);
  n.instance_type = &type;
  n.zone = zone;
  n.capacity_type = request.capacity_type;
  n.price_per_hour = price;
  n.labels = type.labels;
  for (const auto& [k, v] : request.labels) {
    n.labels[k] = v;
  }
  n.labels[std::string(model::labels::k_zone)] = std::string(zone);
  n.labels[std::string(model::labels::k_capacity_type)] = request.capacity_type;
  if (!reservation.empty()) {
    n.labels[std::string(model::labels::k_capacity_reservation_id)] = std::string(reservation);
  }
  n.labels[std::string(model::labels::k_hostname)] = n.name;
  n.taints = request.taints;
  n.taints.insert(n.taints.end(), request.startup_taints.begin(), request.startup_taints.end());
  n.allocatable = type.allocatable();
  n.owner = request.owner;
  n.pool = request.pool;
  n.lifecycle = NodeLifecycle::launching;
  n.created_at = m_now;
  n.last_pod_event = m_now;
  n.expire_at = request.expire_at;
  n.template_hash = request.template_hash;
  n.node_class_hash = request.node_class_hash;
  n.ami_hash = request.ami_hash;
  n.termination_grace_period = request.termination_grace_period;
  n.do_not_disrupt = request.do_not_disrupt;
  const NodeIndex idx = m_cluster.add_node(std::move(n));
  m_startup_taints.resize(m_cluster.nodes().size());
  m_startup_taints[idx] = request.startup_taints;
  apply_daemon_overhead(idx);
  account_node(m_cluster.node(idx), +1);
  ++m_result.nodes.launched;
  for (const PodIndex p : request.nominated_pods) {
    m_cluster.pod_mut(p).nominated = idx;
  }
  m_queue.push(m_now + request.launch_latency, Phase::cloud, EventKind::node_registered, idx);
  m_queue.push(m_now + request.launch_latency + request.registration_latency, Phase::cloud, EventKind::node_ready, idx);
  if (request.capacity_type == model::k_capacity_spot) {
    schedule_spot_interruption(idx);
  }
  return idx;
}

void Engine::schedule_spot_interruption(NodeIndex index)
{
  const auto& sc = *m_input.scenario;
  if (sc.settings.spot.interruption_model != "advisor") {
    return;
  }
  const auto& node = m_cluster.node(index);
  if (node.instance_type == nullptr) {
    return;
  }
  int band = -1;
  for (const auto& o : node.instance_type->offerings) {
    if (o.capacity_type == model::k_capacity_spot && o.zone == node.zone && o.interruption_band) {
      band = *o.interruption_band;
    }
  }
  if (band < 0 || band > 4) {
    return;
  }
  // Constant hazard from the band's monthly frequency: P(interrupted within a month) = rate.
  const double monthly = k_band_monthly_rate[band] * sc.settings.spot.hazard_multiplier;
  if (monthly <= 0) {
    return;
  }
  const double hazard_per_ms = -std::log1p(-std::min(monthly, 0.999)) / k_month_ms;
  // One stream per node name, so a draw for one node never shifts another's.
  Rng rng(m_input.seed, "spot-interruption/" + node.name);
  const double wait_ms = rng.exponential(hazard_per_ms);
  const SimTime reclaim = node.created_at + static_cast<SimTime>(std::min(wait_ms, 1e15));
  if (reclaim > m_input.end) {
    return;
  }
  // The controller hears of it `interruption_lead_time` ahead (at least the 2-minute notice).
  const Duration lead = std::max<Duration>(2 * k_minute, m_controller != nullptr ? m_controller->interruption_lead_time() : 0);
  m_reclaim_at.resize(m_cluster.nodes().size(), -1);
  m_reclaim_at[index] = reclaim;
  m_queue.push(std::max(m_now, reclaim - lead), Phase::cloud, EventKind::spot_notice, index);
}

void Engine::delete_node(NodeIndex index, DeleteReason reason)
{
  auto& node = m_cluster.node_mut(index);
  if (node.lifecycle == NodeLifecycle::deleting || node.lifecycle == NodeLifecycle::terminated) {
    return;
  }
  auto& d = m_result.disruptions;
  switch (reason) {
  case DeleteReason::emptiness: ++d.emptiness; break;
  case DeleteReason::consolidation_delete: ++d.consolidation_delete; break;
  case DeleteReason::consolidation_replace: ++d.consolidation_replace; break;
  case DeleteReason::drift: ++d.drift; break;
  case DeleteReason::expiration: ++d.expiration; break;
  case DeleteReason::spot_interruption: ++d.spot_interruption; break;
  case DeleteReason::scale_down: ++d.scale_down; break;
  case DeleteReason::launch_failed:
  case DeleteReason::overprovisioned:
  case DeleteReason::nodepool_deleted: break;
  }
  const bool was_running = node.lifecycle != NodeLifecycle::launching;
  node.lifecycle = NodeLifecycle::deleting;
  node.deleting_since = m_now;
  // Karpenter's terminator evicts through the Eviction API: PodDisruptionBudgets pace the drain
  // and critical pods go last (drain_step). Cluster Autoscaler's drains take the plain path.
  if (was_running && node.owner == cluster::NodeOwner::node_pool) {
    m_capacity_changed = true;
    m_controller_triggered = true;
    drain_step(index);
    return;
  }
  const std::vector<PodIndex> pods = node.pods;
  for (const PodIndex p : pods) {
    evict_pod(p);
  }
  m_capacity_changed = true;
  m_controller_triggered = true;
  m_queue.push(m_now + (was_running && !pods.empty() ? k_drain_time : 0), Phase::cloud, EventKind::node_terminate,
               index);
}

bool Engine::offering_available(std::string_view instance_type, std::string_view zone, std::string_view capacity_type) const
{
  for (const auto& u : m_unavailable) {
    if (u.until > m_now && u.instance_type == instance_type && u.zone == zone && u.capacity_type == capacity_type) {
      return false;
    }
  }
  return true;
}

bool Engine::all_offerings_available() const
{
  // With capacity reservations every launch asks offering_launchable (a reservation may be full).
  return !m_has_reservations
         && std::none_of(m_unavailable.begin(), m_unavailable.end(), [this](const Unavailable& u) { return u.until > m_now; });
}

std::uint64_t Engine::availability_version() const
{
  // +1 keeps the version away from 0 ("unknown").
  return m_unavailable_changes + 1;
}

bool Engine::ice_active(std::string_view instance_type, std::string_view zone, std::string_view capacity_type) const
{
  for (const auto& w : m_ice) {
    if (m_now < w.from || m_now >= w.to) {
      continue;
    }
    const auto& s = w.selector;
    if ((s.instance_type.empty() || s.instance_type == instance_type) && (s.zone.empty() || s.zone == zone)
        && (s.capacity_type.empty() || s.capacity_type == capacity_type)) {
      return true;
    }
  }
  return false;
}

void Engine::mark_unavailable(std::string_view instance_type, std::string_view zone, std::string_view capacity_type,
                              Duration ttl)
{
  ++m_unavailable_changes;
  for (auto& u : m_unavailable) {
    if (u.instance_type == instance_type && u.zone == zone && u.capacity_type == capacity_type) {
      u.until = m_now + ttl;
      return;
    }
  }
  m_unavailable.push_back({std::string(instance_type), std::string(zone), std::string(capacity_type), m_now + ttl});
}

void Engine::record(report::Decision decision)
{
  if (m_input.explain) {
    m_result.decisions.push_back(std::move(decision));
  }
}

void Engine::set_disrupted(NodeIndex index, bool disrupted)
{
  const auto& current = m_cluster.node(index);
  if (!current.alive() || current.disrupted_taint == disrupted) {
    return;
  }
  m_cluster.node_mut(index).disrupted_taint = disrupted;
  if (!disrupted) {
    m_capacity_changed = true; // pending pods may bind there again
  }
}

void Engine::set_deletion_candidate(NodeIndex index, bool candidate)
{
  const auto& taints = m_cluster.node(index).taints;
  const auto it = std::find_if(taints.begin(), taints.end(), [](const model::Taint& t) {
    return t.key == model::k_deletion_candidate_taint_key && t.effect == model::TaintEffect::prefer_no_schedule;
  });
  if (!m_cluster.node(index).alive() || (it != taints.end()) == candidate) {
    return;
  }
  auto& node = m_cluster.node_mut(index);
  if (candidate) {
    node.taints.push_back({std::string(model::k_deletion_candidate_taint_key),
                           std::to_string(m_now / k_second), model::TaintEffect::prefer_no_schedule});
  } else {
    node.taints.erase(node.taints.begin() + (it - taints.begin()));
  }
}

void Engine::arrive(PodIndex index)
{
  auto& p = m_cluster.pod_mut(index);
  if (p.pod().departure >= 0) {
    m_queue.push(std::max(m_now, p.pod().departure), Phase::workload, EventKind::pod_departure, index,
                 p.generation);
  }
  if (!p.pod().node_name.empty()) {
    // Bound at t=0 through spec.nodeName: the first live node of that name.
    if (m_nodes_by_name_count != m_cluster.nodes().size()) {
      for (NodeIndex n = static_cast<NodeIndex>(m_nodes_by_name_count); n < m_cluster.nodes().size(); ++n) {
        m_nodes_by_name[m_cluster.node(n).name].push_back(n);
      }
      m_nodes_by_name_count = m_cluster.nodes().size();
    }
    if (auto it = m_nodes_by_name.find(p.pod().node_name); it != m_nodes_by_name.end()) {
      for (const NodeIndex n : it->second) {
        if (m_cluster.node(n).alive()) {
          m_cluster.bind(index, n, m_now);
          account_bound(n, index, +1);
          start_pod(index);
          return;
        }
      }
    }
  }
  p.pod().started_before = 0; // not running after all: it starts when it binds
  m_cluster.set_pending(index, m_now);
  m_to_try.push_back(index);
  m_controller_triggered = true;
}

void Engine::start_pod(PodIndex index)
{
  auto& p = m_cluster.pod_mut(index);
  p.started_at = m_now;
  if (p.pod().runtime >= 0) {
    p.finish_at = m_now + std::max<Duration>(0, p.pod().runtime - p.pod().started_before);
    m_queue.push(p.finish_at, Phase::workload, EventKind::pod_finish, index, p.generation);
  }
}

void Engine::finish_pod(PodIndex index, bool deleted)
{
  auto& p = m_cluster.pod_mut(index);
  if (p.phase == PodPhase::finished || p.phase == PodPhase::lost) {
    return;
  }
  if (p.phase == PodPhase::pending) {
    m_cluster.clear_pending(index);
    m_pending_durations.push_back(m_now - p.pending_since);
  }
  if (p.node != k_none) {
    const NodeIndex n = p.node;
    account_bound(n, index, -1);
    m_cluster.unbind(index, m_now);
    m_capacity_changed = true;
  }
  (void)deleted;
  p.phase = PodPhase::finished;
  ++p.generation;
}

void Engine::evict_pod(PodIndex index)
{
  auto& p = m_cluster.pod_mut(index);
  if (p.node == k_none) {
    return;
  }
  const NodeIndex n = p.node;
  account_bound(n, index, -1);
  m_cluster.unbind(index, m_now);
  ++p.generation;
  ++p.evictions;
  ++m_result.pods.evicted;
  const auto owner = p.pod().spec ? p.pod().spec->owner : model::OwnerKind::none;
  if (owner == model::OwnerKind::none) {
    p.phase = PodPhase::lost;
    ++m_result.pods.lost;
    return;
  }
  // The controller recreates it: pending again, running time starts over when it restarts. The
  // new pod has no spec.nodeName (a t=0 binding does not follow it).
  p.pod().node_name.clear();
  p.pod().started_before = 0;
  m_cluster.set_pending(index, m_now);
  if (p.pod().departure >= 0) {
    m_queue.push(std::max(m_now, p.pod().departure), Phase::workload, EventKind::pod_departure, index,
                 p.generation);
  }
  p.nominated = k_none;
  m_to_try.push_back(index);
  m_controller_triggered = true;
}

void Engine::account_bound(NodeIndex node, PodIndex pod, int sign)
{
  const auto& n = m_cluster.node(node);
  if (!n.alive()) {
    return;
  }
  const auto& r = m_cluster.pod(pod).pod().requests;
  m_sums.cpu_req += sign * r.cpu();
  m_sums.mem_req += sign * r.memory();
  // Pods on static nodes are not demand the autoscaler could cover: leaving them out keeps the
  // bound below the cost (static nodes are billed but are no LP column).
  const std::uint32_t slot = m_cluster.pod(pod).bound_slot;
  if (slot != cluster::PodState::k_no_bound_slot && n.owner != NodeOwner::static_node) {
    auto& demand = m_bound_demand[slot];
    if (m_slot_touched[slot] == 0) {
      m_slot_touched[slot] = 1;
      m_bound_touched.push_back(slot);
      m_bound_min[slot] = demand;
    }
    model::Resources with_pod = r;
    with_pod[model::k_pods] += 1;
    auto& class_demand = m_class_demand[m_slot_class[slot]];
    if (sign > 0) {
      demand += with_pod;
      class_demand += with_pod;
    } else {
      demand -= with_pod;
      class_demand -= with_pod;
    }
    for (std::size_t i = 0; i < model::k_max_resources; ++i) {
      m_bound_min[slot].v[i] = std::min(m_bound_min[slot].v[i], demand.v[i]);
    }
  }
}

void Engine::bound_advance(SimTime t)
{
  if (!m_bound_solver) {
    return;
  }
  while (m_bound_step_start < t) {
    const SimTime step_end = std::min(m_bound_step_start + k_bound_step, m_input.end);
    if (step_end > t) {
      return; // the current step is still open
    }
    // A class's minimum is the sum of its slots' (exact in integers): a slot that did not change
    // in the step had its demand throughout.
    m_class_min = m_class_demand;
    for (const std::uint32_t slot : m_bound_touched) {
      m_class_min[m_slot_class[slot]] += m_bound_min[slot];
      m_class_min[m_slot_class[slot]] -= m_bound_demand[slot];
      m_slot_touched[slot] = 0;
    }
    m_bound_touched.clear();
    const bool any = std::any_of(m_class_min.begin(), m_class_min.end(), [](const model::Resources& d) { return !d.is_zero(); });
    if (any) {
      const auto& sol = m_bound_solver->solve(m_class_min);
      m_bound_usd += sol.cost_per_hour * static_cast<double>(step_end - m_bound_step_start) / k_ms_per_hour;
      m_bound_covered = m_bound_covered && sol.covered;
    }
    m_bound_step_start = step_end;
    if (step_end >= m_input.end) {
      return;
    }
  }
}

void Engine::node_ready(NodeIndex index)
{
  auto& n = m_cluster.node_mut(index);
  if (n.lifecycle != NodeLifecycle::launching && n.lifecycle != NodeLifecycle::registered) {
    return;
  }
  n.lifecycle = NodeLifecycle::ready;
  n.ready_at = m_now;
  n.last_pod_event = m_now;
  if (index < m_startup_taints.size()) {
    for (const auto& t : m_startup_taints[index]) {
      auto it = std::find(n.taints.begin(), n.taints.end(), t);
      if (it != n.taints.end()) {
        n.taints.erase(it);
      }
    }
  }
  m_capacity_changed = true;
  m_controller_triggered = true;
}

void Engine::drain_step(NodeIndex index)
{
  const auto& n = m_cluster.node(index);
  if (!n.alive() || n.lifecycle != NodeLifecycle::deleting) {
    return;
  }
  const auto& sc = *m_input.scenario;
  const std::optional<Duration> grace = n.termination_grace_period;
  // terminator.needsForceDelete: with a terminationGracePeriod, a pod is deleted without
  // eviction once its own terminationGracePeriodSeconds would run past the node's deadline, so
  // a pod with a long grace period goes first (at once if it exceeds the node's).
  const auto force_at = [&](const cluster::PodState& p) {
    const Duration pod_grace = p.pod().spec ? p.pod().spec->termination_grace_period : 0;
    return n.deleting_since + *grace - pod_grace;
  };
  const auto forced = [&](PodIndex p) { return grace && m_now >= force_at(m_cluster.pod(p)); };
  // DisruptionsAllowed per PDB now: pods not finished are expected, bound ones that started
  // are healthy (an evicted pod counts again once it runs elsewhere).
  std::vector<std::int64_t> allowed(sc.pdbs.size(), model::k_unlimited_disruptions);
  if (!sc.pdbs.empty()) {
    std::vector<std::int64_t> expected(sc.pdbs.size(), 0);
    std::vector<std::int64_t> healthy(sc.pdbs.size(), 0);
    // Pending and bound pods only: the pod list also holds every future and finished pod.
    const auto count = [&](PodIndex pi) {
      const auto& p = m_cluster.pod(pi);
      for (std::size_t i = 0; p.pod().spec && i < sc.pdbs.size(); ++i) {
        if (model::pdb_selects(sc.pdbs[i], *p.pod().spec)) {
          ++expected[i];
          healthy[i] += p.phase == PodPhase::bound && p.started_at >= 0 ? 1 : 0;
        }
      }
    };
    for (const PodIndex pi : m_cluster.pending()) {
      count(pi);
    }
    for (const NodeIndex ni : m_cluster.alive_node_indices()) {
      for (const PodIndex pi : m_cluster.node(ni).pods) {
        count(pi);
      }
    }
    for (std::size_t i = 0; i < sc.pdbs.size(); ++i) {
      allowed[i] = model::pdb_disruptions_allowed(sc.pdbs[i], expected[i], healthy[i]);
    }
  }
  // Eviction groups (terminator.Drain): pods past their deadline are deleted whatever their
  // group; of the others, non-critical pods first, critical ones once those are gone. Pods
  // tolerating karpenter.sh/disrupted:NoSchedule are not drained: they end with the node.
  const model::Taint disrupted{"karpenter.sh/disrupted", "", model::TaintEffect::no_schedule};
  const auto ignored = [&](const model::PodSpecPtr& spec) {
    return spec && std::any_of(spec->tolerations.begin(), spec->tolerations.end(),
                               [&](const model::Toleration& t) { return t.tolerates(disrupted); });
  };
  constexpr std::int32_t k_critical_priority = 2'000'000'000; // system-cluster/node-critical
  const auto critical = [&](const model::PodSpecPtr& spec) { return spec && spec->priority >= k_critical_priority; };
  const std::vector<PodIndex> pods = n.pods;
  const bool non_critical_left = std::any_of(pods.begin(), pods.end(), [&](PodIndex p) {
    const auto& spec = m_cluster.pod(p).pod().spec;
    return !forced(p) && !ignored(spec) && !critical(spec);
  });
  std::size_t left = 0;
  SimTime next = m_now + k_drain_retry;
  std::vector<std::size_t> covering;
  for (const PodIndex p : pods) {
    const auto& pod = m_cluster.pod(p);
    const auto& spec = pod.pod().spec;
    if (ignored(spec)) {
      continue;
    }
    if (forced(p)) {
      evict_pod(p);
      continue;
    }
    if (grace) {
      next = std::min(next, std::max(m_now + 1, force_at(pod)));
    }
    if (critical(spec) && non_critical_left) {
      ++left;
      continue;
    }
    // The eviction queue leaves a pod with an active do-not-disrupt annotation alone
    // (terminator/eviction.go): the drain waits for it to finish, for its annotation to lapse,
    // or for its deadline.
    if (cluster::do_not_disrupt_active(pod, m_now)) {
      ++left;
      continue;
    }
    covering.clear();
    for (std::size_t i = 0; spec && i < sc.pdbs.size(); ++i) {
      if (model::pdb_selects(sc.pdbs[i], *spec)) {
        covering.push_back(i);
      }
    }
    // The Eviction API refuses a pod covered by more than one PDB, or whose PDB allows no
    // disruption now (429: retried).
    if (covering.size() > 1 || (covering.size() == 1 && allowed[covering[0]] <= 0)) {
      ++left;
      continue;
    }
    if (covering.size() == 1) {
      --allowed[covering[0]];
    }
    evict_pod(p);
  }
  if (left == 0) {
    const SimTime drained = std::max(m_now + (pods.empty() ? 0 : k_drain_time), n.deleting_since + k_min_drain_time);
    m_queue.push(drained, Phase::cloud, EventKind::node_terminate, index);
    return;
  }
  m_queue.push(next, Phase::cloud, EventKind::drain_step, index);
}

void Engine::terminate_node(NodeIndex index)
{
  auto& n = m_cluster.node_mut(index);
  if (!n.alive()) {
    return;
  }
  // Pods still bound die with the instance (an interruption the controller did not drain).
  const std::vector<PodIndex> pods = n.pods;
  for (const PodIndex p : pods) {
    evict_pod(p);
  }
  account_node(n, -1);
  bill(n, m_now);
  m_cluster.mark_terminated(index, m_now);
  ++m_result.nodes.terminated;
  m_capacity_changed = true;
  m_controller_triggered = true;
}

void Engine::bill(const cluster::NodeState& node, SimTime until)
{
  const Duration alive = std::max<Duration>(until - node.created_at, k_min_billing);
  const double cost = node.price_per_hour * static_cast<double>(alive) / k_ms_per_hour;
  if (node.capacity_type == model::k_capacity_spot) {
    m_cost_spot += cost;
  } else {
    m_cost_od += cost;
  }
  m_cost_by_pool[pool_name(node)] += cost;
  m_cost_billed += cost;
  BilledInterval b{node.created_at, node.created_at + alive, node.price_per_hour,
                   node.capacity_type == model::k_capacity_spot, 0.0};
  if (b.spot && node.instance_type != nullptr) {
    for (const auto& o : node.instance_type->offerings) {
      if (o.zone == node.zone && o.capacity_type == model::k_capacity_on_demand) {
        b.on_demand_list_per_hour = o.price_per_hour;
      }
    }
  }
  m_billed.push_back(b);
}

void Engine::spot_notice(NodeIndex index)
{
  auto& n = m_cluster.node_mut(index);
  if (!n.alive()) {
    return;
  }
  // Reclaimed when drawn (random model), or 2 minutes after a scenario event's notice.
  m_reclaim_at.resize(m_cluster.nodes().size(), -1);
  const SimTime reclaim = m_reclaim_at[index] > m_now ? m_reclaim_at[index] : m_now + 2 * k_minute;
  if (n.instance_type != nullptr) {
    mark_unavailable(n.instance_type->name, n.zone, n.capacity_type, k_unavailable_offering_ttl);
  }
  if (records_decisions()) {
    record({m_now, "interruption", n.name, "notice",
            fmt::format("spot instance reclaimed at {}", format_duration(reclaim)), 0});
  }
  if (m_controller != nullptr && m_controller->handles_interruption(n)) {
    delete_node(index, DeleteReason::spot_interruption);
  } else {
    ++m_result.disruptions.spot_interruption;
  }
  m_queue.push(reclaim, Phase::cloud, EventKind::node_terminate, index);
}

void Engine::apply_scenario_event(std::uint32_t index)
{
  const auto& ev = m_input.scenario->events[index];
  if (ev.kind == "SpotInterruption") {
    std::int32_t left = ev.count;
    for (NodeIndex i = 0; i < m_cluster.nodes().size() && left > 0; ++i) {
      const auto& n = m_cluster.node(i);
      if (!n.alive() || n.lifecycle == NodeLifecycle::deleting || n.capacity_type != model::k_capacity_spot
          || !selector_matches(ev.selector, n)) {
        continue;
      }
      m_reclaim_at.resize(m_cluster.nodes().size(), -1);
      m_reclaim_at[i] = -1; // the event's 2-minute notice replaces any drawn reclaim time
      spot_notice(i);
      --left;
    }
  } else if (ev.kind == "Drift") {
    for (NodeIndex i = 0; i < m_cluster.nodes().size(); ++i) {
      auto& n = m_cluster.node_mut(i);
      if (!n.alive() || n.owner != NodeOwner::node_pool || n.drifted_at >= 0) {
        continue;
      }
      const bool pool_matches = ev.node_pool.empty() || pool_name(n) == ev.node_pool;
      if (pool_matches && selector_matches(ev.selector, n)) {
        n.drifted_at = m_now;
      }
    }
    m_controller_triggered = true;
  } else if (ev.kind == "InsufficientCapacity") {
    m_ice.push_back({ev.selector, m_now, ev.duration > 0 ? m_now + ev.duration : m_input.end + 1});
  }
}

void Engine::bind_pending()
{
  // (Both lists keep their room from call to call: a week binds hundreds of thousands of times.)
  std::vector<PodIndex> candidates = std::move(m_spare_candidates);
  candidates.clear();
  if (m_capacity_changed) {
    candidates.assign(m_cluster.pending().begin(), m_cluster.pending().end());
  } else {
    candidates.swap(m_to_try);
  }
  m_to_try.clear();
  m_capacity_changed = false;
  if (!candidates.empty()) {
    place_pods(m_cluster, candidates, m_now, m_placer_state, [&](PodIndex pod, NodeIndex node) {
      const auto& p = m_cluster.pod(pod);
      m_pending_durations.push_back(m_now - p.pending_since);
      m_cluster.bind(pod, node, m_now);
      account_bound(node, pod, +1);
      start_pod(pod);
    });
  }
  m_spare_candidates = std::move(candidates);
}

void Engine::handle(const Event& e)
{
  switch (e.kind) {
  case EventKind::node_registered: {
    auto& n = m_cluster.node_mut(e.subject);
    if (n.lifecycle == NodeLifecycle::launching) {
      n.lifecycle = NodeLifecycle::registered;
      n.registered_at = m_now;
    }
    break;
  }
  case EventKind::node_ready: node_ready(e.subject); break;
  case EventKind::node_terminate: terminate_node(e.subject); break;
  case EventKind::drain_step: drain_step(e.subject); break;
  case EventKind::spot_notice: spot_notice(e.subject); break;
  case EventKind::pod_finish:
  case EventKind::pod_departure:
    if (e.kind == EventKind::pod_departure || e.generation == m_cluster.pod(e.subject).generation) {
      finish_pod(e.subject, e.kind == EventKind::pod_departure);
    }
    break;
  case EventKind::scenario_event: apply_scenario_event(e.subject); break;
  case EventKind::controller_wakeup: break; // handled by the loop
  case EventKind::timeline_sample: sample_timeline(); break;
  }
}

void Engine::advance_to(SimTime t)
{
  if (t <= m_now) {
    return;
  }
  bound_advance(t);
  const auto dt = static_cast<long double>(t - m_now);
  m_node_ms += dt * static_cast<long double>(m_sums.nodes);
  m_cpu_alloc_ms += dt * static_cast<long double>(m_sums.cpu_alloc);
  m_cpu_req_ms += dt * static_cast<long double>(m_sums.cpu_req);
  m_mem_alloc_ms += dt * static_cast<long double>(m_sums.mem_alloc);
  m_mem_req_ms += dt * static_cast<long double>(m_sums.mem_req);
  m_now = t;
  const auto expired = std::remove_if(m_unavailable.begin(), m_unavailable.end(),
                                      [&](const Unavailable& u) { return u.until <= m_now; });
  if (expired != m_unavailable.end()) {
    m_unavailable.erase(expired, m_unavailable.end());
    ++m_unavailable_changes;
  }
}

void Engine::sample_timeline()
{
  report::TimelineRow row;
  row.t = m_now;
  row.pending = static_cast<std::int64_t>(m_cluster.pending().size());
  double billed_alive = 0;
  for (const auto& n : m_cluster.nodes()) {
    if (!n.alive()) {
      continue;
    }
    ++row.nodes;
    row.cost_rate_per_hour += n.price_per_hour;
    row.cpu_requested_m += n.requested.cpu();
    row.cpu_allocatable_m += n.allocatable.cpu();
    row.memory_requested += n.requested.memory();
    row.memory_allocatable += n.allocatable.memory();
    if (n.instance_type != nullptr) {
      ++row.nodes_by_type[n.instance_type->name];
    }
    billed_alive += n.price_per_hour * static_cast<double>(std::max<Duration>(m_now - n.created_at, k_min_billing))
                    / k_ms_per_hour;
  }
  row.cost_cumulative = m_cost_billed + billed_alive;
  m_result.timeline.push_back(std::move(row));
  if (m_now + m_input.timeline_step <= m_input.end) {
    m_queue.push(m_now + m_input.timeline_step, Phase::sample, EventKind::timeline_sample, 0);
  }
}

report::EngineResult Engine::run(Controller& controller)
{
  m_controller = &controller;
  m_result.engine = std::string(controller.name());
  find_reservations();
  const auto& workload = *m_input.workload;
  std::unordered_map<const model::PodSpec*, std::uint32_t> slot_of; // the lower bound's, by template
  {
    const auto specs = distinct_specs(workload);
    auto bound = build_bound_model(*m_input.scenario, *m_input.catalog, controller.name(), specs,
                                   [&](const model::NodePool& pool) { return controller.pool_instance_types(pool); });
    for (std::size_t i = 0; i < specs.size(); ++i) {
      slot_of.emplace(specs[i].get(), static_cast<std::uint32_t>(i));
      m_slot_class.push_back(static_cast<std::uint32_t>(bound.class_of_spec[i]));
    }
    m_bound_demand.assign(specs.size(), model::Resources{});
    m_bound_min.assign(specs.size(), model::Resources{});
    m_slot_touched.assign(specs.size(), 0);
    m_class_demand.assign(bound.problem.classes.size(), model::Resources{});
    m_bound_solver = std::make_unique<report::LowerBoundSolver>(bound.problem);
  }
  add_initial_state();
  const std::size_t pod_count = workload.size();
  m_cluster.reserve_pods(pod_count);
  if (m_input.release_workload != nullptr) {
    CAPSIM_CHECK(m_input.release_workload == m_input.workload, "engine: release_workload is not the workload");
    m_cluster.adopt_pods(std::move(*m_input.release_workload));
    m_input.release_workload->clear(); // (a moved-from vector is valid but unspecified)
  } else {
    for (const auto& pod : workload) {
      m_cluster.add_pod(pod);
    }
  }
  for (std::size_t i = 0; i < pod_count; ++i) {
    auto& p = m_cluster.pod_mut(static_cast<PodIndex>(i));
    if (const auto it = p.pod().spec ? slot_of.find(p.pod().spec.get()) : slot_of.end(); it != slot_of.end()) {
      p.bound_slot = it->second;
    }
  }
  const auto& events = m_input.scenario->events;
  for (std::uint32_t i = 0; i < events.size(); ++i) {
    if (events[i].at <= m_input.end) {
      m_queue.push(events[i].at, Phase::workload, EventKind::scenario_event, i);
    }
  }
  if (m_input.timeline_step > 0) {
    m_queue.push(0, Phase::sample, EventKind::timeline_sample, 0);
  }
  m_controller_triggered = true;
  m_controller_next = 0; // the controller's first look is at t=0, even with no event then
  double last_progress = -1;
  while (true) {
    SimTime next = m_input.end + 1;
    if (!m_queue.empty()) {
      next = std::min(next, m_queue.top().time);
    }
    if (m_next_arrival < pod_count) {
      next = std::min(next, m_cluster.pod(static_cast<PodIndex>(m_next_arrival)).pod().arrival);
    }
    if (m_controller_next >= 0) {
      next = std::min(next, m_controller_next);
    }
    if (next > m_input.end) {
      break;
    }
    advance_to(next);
    while (!m_queue.empty() && m_queue.top().time == m_now && m_queue.top().phase == Phase::cloud) {
      handle(m_queue.pop());
    }
    while (m_next_arrival < pod_count && m_cluster.pod(static_cast<PodIndex>(m_next_arrival)).pod().arrival <= m_now) {
      arrive(static_cast<PodIndex>(m_next_arrival));
      ++m_next_arrival;
    }
    while (!m_queue.empty() && m_queue.top().time == m_now && m_queue.top().phase != Phase::sample) {
      handle(m_queue.pop());
    }
    bind_pending();
    if (m_controller_triggered || (m_controller_next >= 0 && m_controller_next <= m_now)) {
      m_controller_triggered = false;
      const auto wake = controller.reconcile(m_now, m_cluster, *this);
      m_controller_next = wake && *wake > m_now ? *wake : -1;
      if (wake && *wake <= m_now) {
        m_controller_next = m_now + 1;
      }
      bind_pending();
    }
    while (!m_queue.empty() && m_queue.top().time == m_now) {
      handle(m_queue.pop());
    }
    if (m_input.progress && m_input.end > 0) {
      const double f = static_cast<double>(m_now) / static_cast<double>(m_input.end);
      if (f - last_progress >= 0.01) {
        m_input.progress(f);
        last_progress = f;
      }
    }
  }
  advance_to(m_input.end);
  return finish_result(controller);
}

report::EngineResult Engine::finish_result(Controller& controller)
{
  auto& r = m_result;
  for (const auto& n : m_cluster.nodes()) {
    if (n.alive()) {
      bill(n, m_input.end);
      r.final_nodes.push_back({n.name, n.instance_type != nullptr ? n.instance_type->name : std::string(), n.zone,
                               n.capacity_type, pool_name(n), n.price_per_hour,
                               static_cast<std::int64_t>(n.pods.size())});
    }
  }
  std::sort(r.final_nodes.begin(), r.final_nodes.end(),
            [](const report::FinalNode& a, const report::FinalNode& b) { return a.name < b.name; });
  r.cost.on_demand_usd = m_cost_od;
  r.cost.spot_usd = m_cost_spot;
  r.cost.total_usd = m_cost_od + m_cost_spot;
  r.cost.by_pool = m_cost_by_pool;
  const auto& pricing = m_input.scenario->settings.pricing;
  const bool adjusted = pricing.on_demand_discount > 0 || pricing.savings_plan_usd_per_hour > 0
                        || pricing.node_overhead_usd_per_hour > 0 || pricing.min_spot_discount > 0;
  r.cost.effective_total_usd = adjusted ? effective_cost(m_billed, pricing, m_input.end) : r.cost.total_usd;
  r.lower_bound.total_usd = m_bound_usd;
  r.lower_bound.efficiency = report::efficiency(m_bound_usd, r.cost.total_usd);
  if (!m_bound_covered) {
    r.warnings.emplace_back("lower bound: some pods fit no instance type their pools allow; their demand is left out");
  }
  r.nodes.final_count = static_cast<std::int64_t>(r.final_nodes.size());
  const auto end = static_cast<long double>(std::max<SimTime>(m_input.end, 1));
  r.nodes.average = static_cast<double>(m_node_ms / end);
  r.nodes.node_hours = static_cast<double>(m_node_ms / k_ms_per_hour);
  r.nodes.peak = m_peak_nodes;
  r.utilization.cpu = m_cpu_alloc_ms > 0 ? static_cast<double>(m_cpu_req_ms / m_cpu_alloc_ms) : 0;
  r.utilization.memory = m_mem_alloc_ms > 0 ? static_cast<double>(m_mem_req_ms / m_mem_alloc_ms) : 0;
  std::int64_t total = 0;
  std::int64_t unschedulable = 0;
  for (const auto& p : m_cluster.pods()) {
    if (p.phase == PodPhase::future) {
      continue;
    }
    ++total;
    if (p.phase == PodPhase::pending) {
      ++unschedulable;
      m_pending_durations.push_back(m_input.end - p.pending_since);
    }
  }
  r.pods.total = total;
  r.pods.unschedulable = unschedulable;
  r.pods.scheduled = total - unschedulable - r.pods.lost;
  if (!m_pending_durations.empty()) {
    auto& v = m_pending_durations;
    const auto pct = [&](double q) {
      const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
      return static_cast<double>(v[k]) / 1000.0;
    };
    r.pods.pending_p50_s = pct(0.50);
    r.pods.pending_p95_s = pct(0.95);
    r.pods.pending_max_s = static_cast<double>(*std::max_element(v.begin(), v.end())) / 1000.0;
  }
  for (const auto& w : m_input.catalog->warnings()) {
    // Only warnings that change the numbers (stale prices); "types left out for lack of a
    // price" is catalog housekeeping that `capsim catalog` shows.
    if (w.find("stale") != std::string::npos || w.find("2020") != std::string::npos) {
      r.warnings.push_back(w);
    }
  }
  controller.finish(r);
  return r;
}

} // namespace capsim::sim
