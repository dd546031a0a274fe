#include "core/cas/cluster_autoscaler.hpp"

#include "core/base/quantity.hpp"
#include "core/base/text.hpp"
#include "core/cas/scale_down.hpp"
#include "core/cas/templates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>

namespace capsim::cas {

namespace {

using cluster::k_none;
using cluster::NodeIndex;
using cluster::NodeLifecycle;
using cluster::PodIndex;

constexpr std::size_t k_none_position = SIZE_MAX; // reuse_base: not in the kept snapshot
// The AWS cloud provider refreshes its ASG cache (and sees failed scaling activities) once
// a minute (aws_manager.go refreshInterval).
constexpr Duration k_asg_refresh_interval = k_minute;
// A node is a good template once Ready for longer than this (stabilizationDelay).
constexpr Duration k_template_stabilization = k_minute;
// allPodsAreNew: unschedulablePodTimeBuffer and unschedulablePodWithGpuTimeBuffer.
constexpr Duration k_new_pod_buffer = 2 * k_second;
constexpr Duration k_new_gpu_pod_buffer = 30 * k_second;
// IsCloudProviderNodeInfoSimilar ratios (--memory-difference-ratio, --max-allocatable-
// difference-ratio, --max-free-difference-ratio).
constexpr double k_memory_difference_ratio = 0.015;
constexpr double k_allocatable_difference_ratio = 0.05;
constexpr double k_free_difference_ratio = 0.05;

// A new NodeTemplate::id, unique in the process: no two templates a snapshot copies share one.
std::uint64_t new_template_id()
{
  static std::atomic<std::uint64_t> last{0};
  return ++last;
}

// Labels the AWS node group comparator ignores (BasicIgnoredLabels + aws_nodegroups.go).
bool ignored_for_similarity(const std::string& key)
{
  static const std::set<std::string, std::less<>> k_ignored = {
      "kubernetes.io/hostname",
      "failure-domain.beta.kubernetes.io/zone",
      "failure-domain.beta.kubernetes.io/region",
      "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region",
      "beta.kubernetes.io/fluentd-ds-ready",
      "kops.k8s.io/instancegroup",
      "alpha.eksctl.io/instance-id",
      "alpha.eksctl.io/nodegroup-name",
      "eks.amazonaws.com/nodegroup",
      "k8s.amazonaws.com/eniConfig",
      "lifecycle",
      "topology.ebs.csi.aws.com/zone",
      "topology.k8s.aws/zone-id",
  };
  return k_ignored.count(key) != 0;
}

bool within_tolerance(std::int64_t a, std::int64_t b, double ratio)
{
  const auto larger = static_cast<double>(std::max(a, b));
  const auto smaller = static_cast<double>(std::min(a, b));
  return larger - smaller <= larger * ratio;
}

// IsCloudProviderNodeInfoSimilar with the AWS ignored labels.
bool templates_similar(const NodeTemplate& a, const NodeTemplate& b)
{
  for (std::size_t i = 0; i < model::k_max_resources; ++i) {
    const auto id = static_cast<model::ResourceId>(i);
    if (id == model::k_memory) {
      if (!within_tolerance(a.capacity[id], b.capacity[id], k_memory_difference_ratio)) {
        return false;
      }
    } else if (a.capacity[id] != b.capacity[id]) {
      return false;
    }
    const auto& aa = a.node.allocatable;
    const auto& ba = b.node.allocatable;
    if (!within_tolerance(aa[id], ba[id], k_allocatable_difference_ratio)) {
      return false;
    }
    if (!within_tolerance(aa[id] - a.daemon_requested[id], ba[id] - b.daemon_requested[id], k_free_difference_ratio)) {
      return false;
    }
  }
  std::map<std::string, std::vector<const std::string*>> labels;
  for (const auto* t : {&a, &b}) {
    for (const auto& [k, v] : t->node.labels) {
      if (!ignored_for_similarity(k)) {
        labels[k].push_back(&v);
      }
    }
  }
  return std::all_of(labels.begin(), labels.end(),
                     [](const auto& kv) { return kv.second.size() == 2 && *kv.second[0] == *kv.second[1]; });
}

bool requests_gpu(const model::Pod& pod)
{
  return pod.requests[model::k_nvidia_gpu] > 0;
}

double template_price(const NodeTemplate& t)
{
  if (t.from_real_node) {
    return t.node.price_per_hour;
  }
  if (t.node.instance_type == nullptr) {
    return 0;
  }
  const std::string ct = t.node.capacity_type.empty() ? std::string(model::k_capacity_on_demand) : t.node.capacity_type;
  const catalog::Offering* any = nullptr;
  for (const auto& o : t.node.instance_type->offerings) {
    if (o.capacity_type != ct) {
      continue;
    }
    if (o.zone == t.node.zone) {
      return o.price_per_hour;
    }
    if (any == nullptr) {
      any = &o;
    }
  }
  return any != nullptr ? any->price_per_hour : 0;
}

} // namespace

ClusterAutoscaler::ClusterAutoscaler(const model::Scenario& scenario, const catalog::Catalog& catalog,
                                     std::uint64_t seed)
    : m_scenario(scenario), m_catalog(catalog), m_settings(scenario.settings.cluster_autoscaler),
      m_expander(scenario.settings.cluster_autoscaler.expander, seed,
                 scenario.location_of(scenario.settings.cluster_autoscaler.expander_location))
{
  const SourceLocation where = scenario.location_of(scenario.settings.location);
  if (m_settings.scan_interval <= 0) {
    throw InputError(where, "clusterAutoscaler.scanInterval must be positive (expected e.g. 10s)");
  }
  m_groups.resize(scenario.node_groups.size());
  for (std::size_t g = 0; g < scenario.node_groups.size(); ++g) {
    const auto& group = scenario.node_groups[g];
    const SourceLocation group_at = scenario.location_of(group.location);
    if (group.instance_types.empty()) {
      throw InputError(group_at, "NodeGroup/" + group.name + ": spec.instanceTypes is empty (expected at least one type)");
    }
    for (std::size_t i = 0; i < group.instance_types.size(); ++i) {
      const auto& t = group.instance_types[i];
      if (m_catalog.find(t) == nullptr) {
        const SourceLocation at =
            i < group.instance_type_locations.size() ? scenario.location_of(group.instance_type_locations[i]) : group_at;
        throw InputError(at, "NodeGroup/" + group.name + ": instance type '" + t + "' is not in the catalog"
                                 + did_you_mean(t, m_catalog.names()));
      }
    }
    if (group.min_size < 0 || group.max_size < group.min_size) {
      throw InputError(group_at, fmt::format("NodeGroup/{}: minSize {} and maxSize {} (expected 0 <= minSize <= maxSize)",
                                          group.name, group.min_size, group.max_size));
    }
    m_groups[g].zones = group_zones(group, scenario, catalog);
  }
  const auto& names = m_expander.names();
  if (std::find(names.begin(), names.end(), "price") != names.end()) {
    m_warnings.emplace_back("cluster-autoscaler: the price expander is not available on AWS (CA exits at start-up "
                            "without a pricing model); simulated with the catalog's node prices and GCE's "
                            "per-resource pod prices");
  }
}

Duration ClusterAutoscaler::interruption_lead_time() const
{
  return m_settings.rebalance_recommendation ? std::max(m_settings.rebalance_lead_time, Duration{0}) : 0;
}

bool ClusterAutoscaler::backed_off(std::size_t group, SimTime now) const
{
  const auto& g = m_groups[group];
  return g.backoff_until >= 0 && now <= g.backoff_until;
}

void ClusterAutoscaler::finish(report::EngineResult& result)
{
  for (const auto& w : m_warnings) {
    result.warnings.push_back(w);
  }
}

std::optional<SimTime> ClusterAutoscaler::reconcile(SimTime now, const cluster::Cluster& cluster,
                                                    sim::Actuator& actuator)
{
  // LoopTrigger: the scan interval, a productive previous loop, or a new unschedulable pod.
  bool pod_event = false;
  for (const PodIndex p : cluster.pending()) {
    if (cluster.pod(p).pending_since > m_last_loop) {
      pod_event = true;
      break;
    }
  }
  if (!m_run_now && now < m_next_loop && !pod_event) {
    return m_next_loop;
  }
  m_run_now = false;
  run_loop(now, cluster, actuator);
  m_last_loop = now;
  m_next_loop = now + m_settings.scan_interval;
  return m_run_now ? now : m_next_loop;
}

std::uint32_t ClusterAutoscaler::observed_slot(const cluster::NodeState& n) const
{
  if (n.owner != cluster::NodeOwner::node_group || n.pool >= m_groups.size() || !n.alive()
      || n.lifecycle == NodeLifecycle::deleting) {
    return k_unobserved;
  }
  return 2 * n.pool + (n.lifecycle == NodeLifecycle::ready ? 0 : 1);
}

void ClusterAutoscaler::observe(const cluster::Cluster& cluster, std::vector<GroupView>& views)
{
  auto& o = m_observed;
  const auto& log = cluster.node_log();
  const auto list = [&o](std::uint32_t slot) -> std::vector<NodeIndex>& {
    auto& v = o.views[slot / 2];
    return slot % 2 == 0 ? v.ready : v.launching;
  };
  if (o.cluster != cluster.instance_id() || log.size() < o.node_log) {
    o.cluster = cluster.instance_id();
    o.views.assign(m_groups.size(), GroupView{});
    o.slot.assign(cluster.nodes().size(), k_unobserved);
    for (const NodeIndex i : cluster.alive_node_indices()) { // in node order
      o.slot[i] = observed_slot(cluster.node(i));
      if (o.slot[i] != k_unobserved) {
        list(o.slot[i]).push_back(i);
      }
    }
  } else {
    o.slot.resize(cluster.nodes().size(), k_unobserved);
    for (std::size_t k = o.node_log; k < log.size(); ++k) {
      const NodeIndex i = log[k];
      const std::uint32_t now = observed_slot(cluster.node(i));
      if (now == o.slot[i]) {
        continue;
      }
      if (o.slot[i] != k_unobserved) {
        auto& from = list(o.slot[i]);
        from.erase(std::lower_bound(from.begin(), from.end(), i));
      }
      if (now != k_unobserved) {
        auto& to = list(now);
        to.insert(std::lower_bound(to.begin(), to.end(), i), i);
      }
      o.slot[i] = now;
    }
  }
  o.node_log = log.size();
  views.resize(m_groups.size());
  for (std::size_t g = 0; g < views.size(); ++g) {
    views[g].ready = o.views[g].ready;
    views[g].launching = o.views[g].launching;
    views[g].instances = static_cast<std::int32_t>(views[g].ready.size() + views[g].launching.size());
  }
#ifndef NDEBUG
  // The same as reading every alive node.
  std::vector<GroupView> fresh(m_groups.size());
  for (const NodeIndex i : cluster.alive_node_indices()) {
    const std::uint32_t slot = observed_slot(cluster.node(i));
    if (slot != k_unobserved) {
      (slot % 2 == 0 ? fresh[slot / 2].ready : fresh[slot / 2].launching).push_back(i);
    }
  }
  for (std::size_t g = 0; g < views.size(); ++g) {
    CAPSIM_CHECK(fresh[g].ready == views[g].ready && fresh[g].launching == views[g].launching,
                 "cluster-autoscaler: the kept view of a group's nodes differs from the cluster's");
  }
#endif
}

void ClusterAutoscaler::fulfil(std::size_t g, SimTime now, const cluster::Cluster& cluster, GroupView& view,
                               sim::Actuator& actuator)
{
  const auto& group = m_scenario.node_groups[g];
  auto& state = m_groups[g];
  const std::int32_t deficit = state.target - view.instances;
  if (deficit <= 0) {
    return;
  }
  // The group's running instances, as the ASG sees them when it picks capacity type and pool:
  // counted by pool first (a group of thousands of nodes has a few pools; the maps are keyed by
  // names).
  struct PoolCount
  {
    const catalog::InstanceType* type;
    const std::string* zone;
    const std::string* capacity_type;
    std::int32_t count;
  };
  std::vector<PoolCount> pools;
  for (const auto* list : {&view.ready, &view.launching}) {
    for (const NodeIndex i : *list) {
      const auto& n = cluster.node(i);
      const auto same = [&n](const PoolCount& c) {
        return c.type == n.instance_type && *c.zone == n.zone && *c.capacity_type == n.capacity_type;
      };
      if (auto it = std::find_if(pools.begin(), pools.end(), same); it != pools.end()) {
        ++it->count;
      } else {
        pools.push_back({n.instance_type, &n.zone, &n.capacity_type, 1});
      }
    }
  }
  GroupInstances asg;
  for (const auto& c : pools) {
    asg.add(c.type != nullptr ? c.type->name : std::string(), *c.zone, *c.capacity_type, c.count);
  }
  for (std::int32_t k = 0; k < deficit; ++k) {
    const std::string ct = next_capacity_type(group, asg);
    bool launched = false;
    for (const auto& pool : launch_preferences(group, m_catalog, state.zones, ct, asg)) {
      if (!actuator.offering_available(pool.type->name, pool.zone, pool.capacity_type)) {
        continue;
      }
      sim::LaunchRequest req;
      req.instance_type = pool.type;
      req.zone = pool.zone;
      req.capacity_type = pool.capacity_type;
      req.price_per_hour = pool.price_per_hour;
      req.labels = group.labels;
      req.taints = group.taints;
      req.owner = cluster::NodeOwner::node_group;
      req.pool = static_cast<std::uint32_t>(g);
      req.launch_latency = m_settings.launch_latency;
      req.registration_latency = m_settings.registration_latency;
      const NodeIndex idx = actuator.launch(req);
      if (idx == k_none) {
        continue; // insufficient capacity: the ASG tries its next pool
      }
      asg.add(pool.type->name, pool.zone, pool.capacity_type);
      view.launching.push_back(idx);
      ++view.instances;
      launched = true;
      break;
    }
    if (!launched) {
      if (!state.launch_failed) {
        actuator.record({now, "scale-up", group.name, "launch-failed",
                         fmt::format("no {} capacity in any pool of the group", ct), 0});
      }
      state.launch_failed = true; // the scaling activity failed; the rest stay placeholders
      break;
    }
  }
}

void ClusterAutoscaler::register_failed_scale_up(std::size_t g, SimTime now)
{
  auto& s = m_groups[g];
  if (s.last_failure >= 0 && s.last_failure + m_settings.node_group_backoff_reset_timeout < now) {
    s.backoff_duration = 0; // RemoveStaleBackoffData
    s.backoff_until = -1;
  }
  Duration d = m_settings.initial_node_group_backoff_duration;
  if (s.backoff_duration > 0) {
    d = s.backoff_duration;
    if (s.backoff_until < now) {
      d = std::min(2 * d, m_settings.max_node_group_backoff_duration);
    }
  }
  s.backoff_duration = d;
  s.backoff_until = now + d;
  s.last_failure = now;
}

void ClusterAutoscaler::handle_failures(SimTime now, const cluster::Cluster& cluster, std::vector<GroupView>& views,
                                        sim::Actuator& actuator)
{
  // Failed ASG scaling activities become visible at the cloud provider's refresh: the
  // placeholders are deleted (desired capacity goes back down) and the group backs off.
  if (m_last_refresh < 0 || now - m_last_refresh >= k_asg_refresh_interval) {
    m_last_refresh = now;
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
      auto& s = m_groups[g];
      if (!s.launch_failed) {
        continue;
      }
      s.launch_failed = false;
      const std::int32_t placeholders = s.target - views[g].instances;
      if (placeholders <= 0) {
        continue;
      }
      register_failed_scale_up(g, now);
      const auto& group = m_scenario.node_groups[g];
      s.target = std::max(group.min_size, s.target - placeholders);
      s.request.reset();
      actuator.record({now, "scale-up", group.name, "backoff",
                       fmt::format("{} instance(s) could not be launched; group backed off until {}", placeholders,
                                   format_duration(s.backoff_until)),
                       0});
    }
  }
  // Scale-up requests: done when nothing is upcoming; timed out after max-node-provision-time.
  for (std::size_t g = 0; g < m_groups.size(); ++g) {
    auto& s = m_groups[g];
    if (!s.request) {
      continue;
    }
    auto& v = views[g];
    const std::int32_t upcoming = s.target - static_cast<std::int32_t>(v.ready.size());
    if (upcoming <= 0) {
      // Done. The group's backoff stays: current CA never calls RemoveBackoff, the backoff
      // data only goes stale node-group-backoff-reset-timeout after the last failure.
      s.request.reset();
      continue;
    }
    if (now <= s.request->expected_add) {
      continue;
    }
    register_failed_scale_up(g, now);
    const auto& group = m_scenario.node_groups[g];
    std::int32_t removed = 0;
    for (const NodeIndex i : v.launching) {
      if (cluster.node(i).created_at + m_settings.max_node_provision_time <= now) {
        actuator.delete_node(i, sim::DeleteReason::launch_failed);
        ++removed;
      }
    }
    v.instances -= removed;
    s.target -= removed;
    s.target = std::max(group.min_size, std::min(s.target, v.instances));
    s.request.reset();
    actuator.record({now, "scale-up", group.name, "timeout",
                     fmt::format("nodes not ready within {}; group backed off until {}",
                                 format_duration(m_settings.max_node_provision_time), format_duration(s.backoff_until)),
                     0});
  }
}

const NodeTemplate* ClusterAutoscaler::group_template(std::size_t g, SimTime now, const cluster::Cluster& cluster)
{
  auto& s = m_groups[g];
  const auto& group = m_scenario.node_groups[g];
  // A good real node: Ready for over a minute, schedulable, not being deleted. The first one
  // in node order is the template (re-copied only when that node changes).
  for (const NodeIndex i : cluster.alive_node_indices()) {
    const auto& n = cluster.node(i);
    if (n.owner == cluster::NodeOwner::node_group && n.pool == g && n.lifecycle == NodeLifecycle::ready
        && !n.disrupted_taint && n.ready_at >= 0 && n.ready_at + k_template_stabilization < now) {
      if (!s.cached_template || s.template_node != i) {
        s.cached_template = template_from_node(n, g, group.name);
        s.cached_template->id = new_template_id();
        s.template_node = i;
      }
      return &*s.cached_template;
    }
  }
  if (s.cached_template) {
    return &*s.cached_template;
  }
  if (!s.catalog_template) {
    s.catalog_template = template_from_catalog(group, g, m_scenario, m_catalog, m_settings.use_real_allocatable);
    if (s.catalog_template) {
      s.catalog_template->id = new_template_id();
    }
  }
  return s.catalog_template ? &*s.catalog_template : nullptr;
}

bool ClusterAutoscaler::listed(const cluster::NodeState& n)
{
  return n.alive() && (n.lifecycle == NodeLifecycle::ready || n.lifecycle == NodeLifecycle::deleting);
}

SnapNode ClusterAutoscaler::snap_node(const cluster::Cluster& cluster, NodeIndex i)
{
  const auto& n = cluster.node(i);
  SnapNode sn;
  sn.state = &n;
  sn.basis.ready = n.lifecycle == NodeLifecycle::ready;
  sn.basis.allocatable = {n.allocatable.cpu(), n.allocatable.memory(), n.allocatable[model::k_nvidia_gpu]};
  sn.basis.daemons = {n.daemon_requested.cpu(), n.daemon_requested.memory(), n.daemon_requested[model::k_nvidia_gpu]};
  sn.requested = n.requested;
  sn.pods.refer(cluster, n.pods, m_snapshot.spare_pod_list());
  sn.group = n.owner == cluster::NodeOwner::node_group && n.pool < m_groups.size() ? static_cast<std::int32_t>(n.pool)
                                                                                   : -1;
  sn.cluster_node = i;
  sn.real = true;
  sn.blocked = n.lifecycle == NodeLifecycle::deleting || n.disrupted_taint;
  return sn;
}

bool ClusterAutoscaler::reuse_base(const cluster::Cluster& cluster, bool any_anti_affinity)
{
  auto& b = m_base;
  const auto& node_log = cluster.node_log();
  const auto& bindings = cluster.binding_log();
  if (!b.valid || b.cluster != cluster.instance_id() || b.nodes != cluster.nodes().data()
      || b.pods != cluster.pods().data() || b.any_anti_affinity != any_anti_affinity || node_log.size() < b.node_log
      || bindings.size() < b.bindings || m_snapshot.mark() < b.mark) {
    return false;
  }
  auto& changed = b.changed;
  changed.assign(node_log.begin() + static_cast<std::ptrdiff_t>(b.node_log), node_log.end());
  for (std::size_t k = b.bindings; k < bindings.size(); ++k) {
    changed.push_back(bindings[k].node);
  }
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  // The snapshot lists the nodes in index order: a node that leaves is taken out and one that
  // joins is put in at its place, as a snapshot built anew would have them (nodes join or leave in
  // a tenth of a week's loops, and building it anew read every node again). Those that leave go
  // first, from the back; the changed nodes that stay are refreshed before any joins.
  const bool moves = std::any_of(changed.begin(), changed.end(), [&](NodeIndex i) {
    return listed(cluster.node(i)) != std::binary_search(b.listed.begin(), b.listed.end(), i);
  });
  m_snapshot.revert(b.mark);
  m_snapshot.set_ignore_node_name(false);
  const auto position = [&b](NodeIndex i) {
    const auto at = std::lower_bound(b.listed.begin(), b.listed.end(), i);
    return at != b.listed.end() && *at == i ? static_cast<std::size_t>(at - b.listed.begin()) : k_none_position;
  };
  for (auto it = changed.rbegin(); moves && it != changed.rend(); ++it) {
    if (const auto at = position(*it); at != k_none_position && !listed(cluster.node(*it))) {
      m_snapshot.erase_node(at, any_anti_affinity);
      b.listed.erase(b.listed.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  for (const NodeIndex i : changed) {
    if (const auto at = position(i); at != k_none_position) {
      m_snapshot.refresh_node(at, snap_node(cluster, i), any_anti_affinity);
    }
  }
  for (auto it = changed.begin(); moves && it != changed.end(); ++it) {
    if (listed(cluster.node(*it)) && position(*it) == k_none_position) {
      const auto at = std::lower_bound(b.listed.begin(), b.listed.end(), *it);
      m_snapshot.insert_node(static_cast<std::size_t>(at - b.listed.begin()), snap_node(cluster, *it),
                             any_anti_affinity);
      b.listed.insert(at, *it);
    }
  }
  return true;
}

void ClusterAutoscaler::snapshot_nodes(const cluster::Cluster& cluster, bool any_anti_affinity)
{
  Snapshot& snapshot = m_snapshot;
  auto& b = m_base;
  if (!reuse_base(cluster, any_anti_affinity)) {
    snapshot.clear();
    snapshot.use_cluster(cluster.instance_id());
    snapshot.reserve(cluster.alive_node_indices().size());
    b.listed.clear();
    for (const NodeIndex i : cluster.alive_node_indices()) {
      if (listed(cluster.node(i))) {
        snapshot.add_node(snap_node(cluster, i), any_anti_affinity);
        b.listed.push_back(i);
      }
    }
  }
  b.valid = true;
  b.mark = snapshot.mark();
  b.cluster = cluster.instance_id();
  b.nodes = cluster.nodes().data();
  b.pods = cluster.pods().data();
  b.node_log = cluster.node_log().size();
  b.bindings = cluster.binding_log().size();
  b.any_anti_affinity = any_anti_affinity;
#ifndef NDEBUG
  // The same as a snapshot built anew.
  {
    std::vector<NodeIndex> fresh;
    for (const NodeIndex i : cluster.alive_node_indices()) {
      if (listed(cluster.node(i))) {
        fresh.push_back(i);
      }
    }
    CAPSIM_CHECK(fresh == b.listed && snapshot.size() == b.listed.size() && snapshot.names_consistent(),
                 "cluster-autoscaler: the kept snapshot has other nodes");
  }
  std::size_t anti = 0;
  for (std::size_t k = 0; k < b.listed.size(); ++k) {
    const SnapNode fresh = snap_node(cluster, b.listed[k]);
    const SnapNode& kept = snapshot.node(k);
    CAPSIM_CHECK(kept.state == fresh.state && kept.basis == fresh.basis && kept.requested == fresh.requested
                     && kept.group == fresh.group
                     && kept.cluster_node == fresh.cluster_node && kept.real && !kept.removed
                     && kept.blocked == fresh.blocked && kept.pods.list() == fresh.pods.list(),
                 "cluster-autoscaler: a kept snapshot node differs from the cluster's");
    for (const auto* p : fresh.pods) {
      anti += any_anti_affinity && p->spec && !p->spec->pod_anti_affinity_required.empty() ? 1 : 0;
    }
  }
  CAPSIM_CHECK(anti == snapshot.anti_affinity_pods() && !snapshot.ignore_node_name(),
               "cluster-autoscaler: the kept snapshot's counts differ");
#endif
}

void ClusterAutoscaler::run_loop(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  ++m_loops;
  for (auto it = m_deleting.begin(); it != m_deleting.end();) {
    it = cluster.node(it->first).alive() ? std::next(it) : m_deleting.erase(it);
  }
  auto& views = m_views;
  observe(cluster, views);
  for (std::size_t g = 0; g < m_groups.size(); ++g) {
    auto& s = m_groups[g];
    if (!s.initialized) {
      // The ASG's desired capacity at t=0 (minSize when not given), never below the group's
      // existing nodes.
      const auto& group = m_scenario.node_groups[g];
      const std::int32_t desired =
          std::clamp(group.desired_capacity.value_or(group.min_size), group.min_size, group.max_size);
      s.target = std::max(views[g].instances, desired);
      s.initialized = true;
    }
    fulfil(g, now, cluster, views[g], actuator);
  }
  handle_failures(now, cluster, views, actuator);

  std::vector<const NodeTemplate*> templates(m_groups.size());
  for (std::size_t g = 0; g < m_groups.size(); ++g) {
    templates[g] = group_template(g, now, cluster);
  }

  // The snapshot: registered nodes (being-deleted ones blocked), then upcoming nodes as
  // copies of their group's template.
  Snapshot& snapshot = m_snapshot;
  // Snapshot pods are bound pods: none has anti-affinity when the cluster counts none.
  const bool any_anti_affinity = cluster.bound_with_anti_affinity() != 0;
  snapshot_nodes(cluster, any_anti_affinity);
  for (std::size_t g = 0; g < m_groups.size(); ++g) {
    const std::int32_t upcoming = m_groups[g].target - static_cast<std::int32_t>(views[g].ready.size());
    if (templates[g] == nullptr) {
      continue;
    }
    for (std::int32_t k = 0; k < upcoming; ++k) {
      snapshot.add_copy(templates[g]->node, fmt::format("{}-upcoming-{}", m_scenario.node_groups[g].name, k),
                        templates[g]->daemon_requested, static_cast<std::int32_t>(g), templates[g]->id);
    }
  }

  // Unschedulable pods: not expendable, not DaemonSet pods, then filter-out-schedulable.
  std::vector<const model::Pod*> candidates;
  std::vector<PodIndex> candidate_index;
  for (const PodIndex p : cluster.pending()) {
    const auto& ps = cluster.pod(p);
    if (ps.pod().is_daemon || (ps.pod().spec && ps.pod().spec->owner == model::OwnerKind::daemon_set)) {
      continue;
    }
    const std::int32_t prio = ps.pod().spec ? ps.pod().spec->priority : 0;
    if (prio < m_settings.expendable_pods_priority_cutoff) {
      continue;
    }
    candidates.push_back(&ps.pod());
    candidate_index.push_back(p);
  }
  const auto placed = m_filter_sim.try_schedule_pods(snapshot, candidates, false, {}, m_ordering);
  m_filter_sim.drop_old_hints();
  std::vector<const model::Pod*> unschedulable;
  SimTime oldest = k_never;
  SimTime oldest_gpu = k_never;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (placed[i]) {
      continue;
    }
    const SimTime since = cluster.pod(candidate_index[i]).pending_since;
    if (since + m_settings.new_pod_scale_up_delay > now) {
      continue; // filterOutYoungPods
    }
    unschedulable.push_back(candidates[i]);
    oldest = std::min(oldest, since);
    if (requests_gpu(*candidates[i])) {
      oldest_gpu = std::min(oldest_gpu, since);
    }
  }

  std::vector<std::size_t> grown;
  bool scale_down_disabled = false;
  if (!unschedulable.empty()) {
    std::size_t ready_nodes = 0;
    for (const auto ni : cluster.alive_node_indices()) {
      ready_nodes += cluster.node(ni).lifecycle == NodeLifecycle::ready ? 1 : 0;
    }
    const bool all_new = oldest + k_new_pod_buffer > now || (oldest_gpu != k_never && oldest_gpu + k_new_gpu_pod_buffer > now);
    if (m_settings.max_nodes_total > 0 && ready_nodes >= static_cast<std::size_t>(m_settings.max_nodes_total)) {
      note(now, actuator, "skip",
           fmt::format("max-nodes-total {} reached ({} ready nodes)", m_settings.max_nodes_total, ready_nodes));
    } else if (all_new) {
      scale_down_disabled = true; // wait one loop for more pods
    } else {
      grown = scale_up(now, actuator, snapshot, unschedulable, templates);
    }
  }
  const bool scaled_up = !grown.empty();
  if (scaled_up) {
    m_last_scale_up = now;
    m_run_now = true;
  }

  const auto in_cooldown = [&](SimTime last, Duration delay) { return last >= 0 && last + delay > now; };
  const bool cooldown = scale_down_disabled || scaled_up
                        || in_cooldown(m_last_scale_up, m_settings.scale_down_delay_after_add)
                        || in_cooldown(m_last_delete, m_settings.scale_down_delay_after_delete);
  if (scale_down(now, cluster, actuator, snapshot, cooldown)) {
    m_last_delete = now;
    m_run_now = true;
  }
  // The ASGs launch the new desired capacity (after the snapshot, which points into the
  // cluster's node list, is no longer used).
  for (const std::size_t g : grown) {
    fulfil(g, now, cluster, views[g], actuator);
  }
}

void ClusterAutoscaler::note(SimTime now, sim::Actuator& actuator, const std::string& action, const std::string& detail)
{
  const std::string key = action + ":" + detail;
  if (key == m_last_note) {
    return;
  }
  m_last_note = key;
  actuator.record({now, "scale-up", "", action, detail, 0});
}

std::vector<std::size_t> ClusterAutoscaler::similar_groups(std::size_t g, const std::vector<std::size_t>& valid,
                                                           const std::vector<std::vector<PodGroup>>& schedulable,
                                                           const std::vector<const NodeTemplate*>& templates,
                                                           SimTime now) const
{
  std::vector<std::size_t> out;
  if (!m_settings.balance_similar_node_groups || schedulable[g].empty()) {
    return out;
  }
  for (const std::size_t h : valid) {
    if (h == g || templates[h] == nullptr || backed_off(h, now) || !templates_similar(*templates[g], *templates[h])) {
      continue;
    }
    // matchingSchedulablePodGroups: h schedules every pod group g schedules.
    const bool matching = std::all_of(schedulable[g].begin(), schedulable[g].end(), [&](const PodGroup& pg) {
      return std::any_of(schedulable[h].begin(), schedulable[h].end(),
                         [&](const PodGroup& other) { return other.pods.front() == pg.pods.front(); });
    });
    if (matching) {
      out.push_back(h);
    }
  }
  return out;
}

std::vector<std::size_t> ClusterAutoscaler::scale_up(SimTime now, sim::Actuator& actuator, Snapshot& snapshot,
                                                     const std::vector<const model::Pod*>& pods,
                                                     const std::vector<const NodeTemplate*>& templates)
{
  const auto groups = build_pod_groups(pods, m_controllers);
  const auto n = m_groups.size();
  const auto current_nodes = static_cast<std::int32_t>(snapshot.size());
  // filterValidScaleUpNodeGroups
  std::vector<std::size_t> valid;
  for (std::size_t g = 0; g < n; ++g) {
    if (backed_off(g, now) || m_groups[g].target >= m_scenario.node_groups[g].max_size || templates[g] == nullptr) {
      continue;
    }
    valid.push_back(g);
  }
  // SchedulablePodGroups: the first pod of each group against one template node.
  std::vector<std::vector<PodGroup>> schedulable(n);
  for (const std::size_t g : valid) {
    const std::size_t mark = snapshot.mark();
    const std::size_t t = snapshot.add_copy(templates[g]->node, templates[g]->node.name, templates[g]->daemon_requested,
                                            static_cast<std::int32_t>(g), templates[g]->id);
    for (const auto& pg : groups) {
      if (check_predicates(snapshot, t, *pg.pods.front()) == Filter::none) {
        schedulable[g].push_back(pg);
      }
    }
    snapshot.revert(mark);
  }
  // ComputeExpansionOption for each valid group.
  std::vector<Option> options;
  for (const std::size_t g : valid) {
    if (schedulable[g].empty()) {
      continue;
    }
    const auto& group = m_scenario.node_groups[g];
    Option o;
    o.group = g;
    o.group_id = group.name;
    o.similar_groups = similar_groups(g, valid, schedulable, templates, now);
    std::int32_t sng = std::max(0, group.max_size - m_groups[g].target);
    for (const std::size_t h : o.similar_groups) {
      sng += std::max(0, m_scenario.node_groups[h].max_size - m_groups[h].target);
    }
    std::int32_t limit = min_node_limit(k_max_nodes_per_scale_up, sng > 0 ? sng : -1);
    if (m_settings.max_nodes_total > 0) {
      limit = min_node_limit(limit, m_settings.max_nodes_total <= current_nodes ? -1
                                                                                : m_settings.max_nodes_total - current_nodes);
    }
    auto est = estimate(snapshot, schedulable[g], *templates[g], static_cast<std::int32_t>(g), limit, m_ordering);
    if (est.pods.empty() || est.node_count == 0) {
      continue;
    }
    o.node_count = est.node_count;
    o.pods = std::move(est.pods);
    o.capacity_cpu_milli = templates[g]->capacity.cpu();
    o.capacity_memory = templates[g]->capacity.memory();
    o.has_gpu = templates[g]->capacity[model::k_nvidia_gpu] > 0;
    o.node_price_per_hour = template_price(*templates[g]);
    o.priority = group.priority;
    options.push_back(std::move(o));
  }
  if (options.empty()) {
    note(now, actuator, "none", fmt::format("no node group can schedule any of {} unschedulable pod(s)", pods.size()));
    return {};
  }
  std::size_t real_nodes = 0;
  for (const auto& sn : snapshot.nodes()) {
    real_nodes += sn.real ? 1 : 0;
  }
  const std::size_t best_index = m_expander.best_option(options, PriceContext{real_nodes});
  if (best_index >= options.size() || options[best_index].node_count <= 0) {
    return {};
  }
  const Option& best = options[best_index];
  std::int32_t new_nodes = best.node_count;
  if (m_settings.max_nodes_total > 0 && new_nodes + current_nodes > m_settings.max_nodes_total) {
    new_nodes = m_settings.max_nodes_total - current_nodes; // GetCappedNewNodeCount
    if (new_nodes < 1) {
      return {};
    }
  }
  std::vector<ScaleUpInfo> set;
  for (const std::size_t g : std::vector<std::size_t>{best.group}) {
    set.push_back({g, m_groups[g].target, m_groups[g].target, m_scenario.node_groups[g].max_size});
  }
  for (const std::size_t h : best.similar_groups) {
    set.push_back({h, m_groups[h].target, m_groups[h].target, m_scenario.node_groups[h].max_size});
  }
  const auto infos = balance_scale_up(set, new_nodes);
  std::vector<std::size_t> grown;
  for (const auto& info : infos) {
    auto& s = m_groups[info.group];
    const std::int32_t increase = info.new_size - s.target;
    s.target = info.new_size;
    if (s.request) {
      s.request->increase += increase;
      s.request->expected_add = now + m_settings.max_node_provision_time;
    } else {
      s.request = ScaleUpRequest{now, increase, now + m_settings.max_node_provision_time};
    }
    const auto& group = m_scenario.node_groups[info.group];
    if (actuator.records_decisions()) {
      actuator.record({now, "scale-up", group.name, "launch",
                       fmt::format("+{} node(s) ({} -> {}) for {} pod(s); planned as {} (expander {})", increase,
                                   info.current_size, info.new_size, best.pods.size(),
                                   templates[info.group]->node.instance_type != nullptr
                                       ? templates[info.group]->node.instance_type->name
                                       : std::string("?"),
                                   m_settings.expander),
                       0});
    }
    grown.push_back(info.group);
  }
  m_last_note.clear();
  return grown;
}

namespace {

// Whether a node without GPUs is surely above a utilization threshold: its cpu or memory request
// exceeds the threshold's share of the allocatable by a margin far beyond the rounding of the
// division (so node_utilization would say so). Most nodes are, on every loop, and the two
// divisions cost more than the rest of their checks. False when unsure.
bool busier_than(const std::array<std::int64_t, 3>& requested, const std::array<std::int64_t, 3>& allocatable,
                 double threshold)
{
  if (allocatable[2] > 0 || allocatable[0] <= 0 || allocatable[1] <= 0 || !(threshold > 0)) {
    return false;
  }
  const double share = threshold * (1 + 1e-9);
  return static_cast<double>(requested[0]) > static_cast<double>(allocatable[0]) * share
         || static_cast<double>(requested[1]) > static_cast<double>(allocatable[1]) * share;
}

} // namespace

bool ClusterAutoscaler::scale_down(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator,
                                   Snapshot& snapshot, bool cooldown)
{
  // Forget state of nodes that are gone.
  for (auto* m : {&m_unneeded_since, &m_unremovable_until}) {
    for (auto it = m->begin(); it != m->end();) {
      it = cluster.node(it->first).alive() ? std::next(it) : m->erase(it);
    }
  }
  const PdbTracker initial_pdbs(m_scenario.pdbs, cluster);
  PdbTracker pdbs = initial_pdbs;
  const DrainOptions drain_options{m_settings.skip_nodes_with_local_storage, m_settings.skip_nodes_with_system_pods,
                                   m_settings.blocking_system_pod_disruption_timeout};
  // When a pod was created: when it last became pending (a recreated pod is a new pod).
  // `k`: the pod's position in the snapshot node, which lists the node's pods in their order
  // (then any it simulated there).
  const auto created = [&](const model::Pod* pod, NodeIndex node, std::size_t k) -> SimTime {
    const auto& on_node = cluster.node(node).pods;
    if (k < on_node.size() && &cluster.pod(on_node[k]).pod() == pod) {
      return cluster.pod(on_node[k]).pending_since;
    }
    for (const PodIndex p : on_node) {
      if (&cluster.pod(p).pod() == pod) {
        return cluster.pod(p).pending_since;
      }
    }
    for (const PodIndex p : cluster.pending()) {
      if (&cluster.pod(p).pod() == pod) {
        return cluster.pod(p).pending_since;
      }
    }
    return now;
  };

  // Scale-down candidates (PreFilteringScaleDownNodeProcessor: registered nodes of a group
  // above its min size; not being deleted) that FilterOutUnremovable keeps, judged on the
  // snapshot before any removal is simulated. `rank` orders them as the
  // ScaleDownCandidatesSortingProcessor does: nodes with no pods to move first, then those
  // unneeded in the previous loop (a stable sort: ties keep the snapshot's order, which
  // upstream's unstable sort leaves open).
  struct Candidate
  {
    std::size_t index = 0;
    int rank = 0;
  };
  std::vector<Candidate> candidates;
  // Read for every node below (thousands, every loop): which groups are above their min size, and
  // the settings, in locals the loop's stores cannot alias.
  std::vector<char> shrinkable(m_groups.size());
  for (std::size_t g = 0; g < m_groups.size(); ++g) {
    shrinkable[g] = m_groups[g].target > m_scenario.node_groups[g].min_size ? 1 : 0;
  }
  const bool ignore_daemons = m_settings.ignore_daemonsets_utilization;
  const double utilization_threshold = m_settings.scale_down_utilization_threshold;
  const auto snapshot_size = snapshot.size();
  for (std::size_t i = 0; i < snapshot_size; ++i) {
    const auto& sn = snapshot.node(i);
    if (!sn.real || sn.group < 0 || sn.blocked || !sn.basis.ready) {
      continue;
    }
    const auto g = static_cast<std::size_t>(sn.group);
    if (shrinkable[g] == 0) {
      continue;
    }
    // Utilization at or below the threshold. (First of the checks that skip a node, which
    // may come in any order: most nodes fail it, and the others look up maps.)
    std::array<std::int64_t, 3> requested{sn.requested.cpu(), sn.requested.memory(), sn.requested[model::k_nvidia_gpu]};
    std::array<std::int64_t, 3> allocatable = sn.basis.allocatable;
    if (ignore_daemons) {
      for (std::size_t d = 0; d < 3; ++d) {
        requested[d] -= sn.basis.daemons[d];
        allocatable[d] -= sn.basis.daemons[d];
      }
    }
    if (busier_than(requested, allocatable, utilization_threshold)) {
      continue;
    }
    const Utilization u = node_utilization(requested, allocatable);
    const double threshold =
        u.gpu_node ? m_settings.scale_down_gpu_utilization_threshold : m_settings.scale_down_utilization_threshold;
    if (!u.valid || u.value > threshold) {
      continue;
    }
    if (m_deleting.count(sn.cluster_node) != 0) {
      continue;
    }
    auto unremovable = m_unremovable_until.find(sn.cluster_node);
    if (unremovable != m_unremovable_until.end() && unremovable->second > now) {
      continue; // recently found unremovable
    }
    candidates.push_back({i, (sn.pods.empty() ? 0 : 2) + (m_unneeded_since.count(sn.cluster_node) != 0 ? 0 : 1)});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });

  struct Removable
  {
    NodeIndex node = k_none;
    std::size_t group = 0;
    bool empty = true;
  };
  std::vector<Removable> removable;
  for (const auto& candidate : candidates) {
    const std::size_t i = candidate.index;
    const auto& sn = snapshot.node(i);
    const auto g = static_cast<std::size_t>(sn.group);
    // RemovalSimulator.SimulateNodeRemoval.
    const std::vector<const model::Pod*> to_move = sn.pods.list();
    BlockReason blocked = BlockReason::none;
    for (std::size_t k = 0; k < to_move.size(); ++k) {
      const auto* p = to_move[k];
      blocked = drainability(*p, created(p, sn.cluster_node, k), now, drain_options, pdbs);
      if (blocked != BlockReason::none) {
        break;
      }
    }
    if (blocked != BlockReason::none) {
      m_unremovable_until[sn.cluster_node] = now + m_settings.unremovable_node_recheck_timeout;
      continue;
    }
    const std::size_t mark = snapshot.mark();
    for (const auto* p : to_move) {
      snapshot.remove_pod(i, *p);
    }
    snapshot.set_blocked(i, true); // the tainted ghost
    // findPlaceFor reschedules the pods with spec.nodeName cleared.
    snapshot.set_ignore_node_name(true);
    const auto dest = m_removal_sim.try_schedule_pods(
        snapshot, to_move, true,
        [&](std::size_t j) {
          const auto& d = snapshot.node(j);
          return j != i && d.real && (d.cluster_node == k_none || m_deleting.count(d.cluster_node) == 0);
        },
        m_ordering);
    snapshot.set_ignore_node_name(false);
    const bool all = std::all_of(dest.begin(), dest.end(), [](const auto& d) { return d.has_value(); });
    if (!all) {
      snapshot.revert(mark);
      m_unremovable_until[sn.cluster_node] = now + m_settings.unremovable_node_recheck_timeout;
      continue;
    }
    snapshot.set_removed(i, true);
    pdbs.remove_pods(to_move);
    removable.push_back({sn.cluster_node, g, to_move.empty()});
  }
  m_removal_sim.drop_old_hints();

  // Unneeded nodes keep their first-seen time while they stay unneeded; the others are forgotten.
  // (In place: most stay unneeded from loop to loop.)
  auto& still = m_still_unneeded;
  still.clear();
  for (const auto& r : removable) {
    still.push_back(r.node);
  }
  std::sort(still.begin(), still.end());
  for (auto it = m_unneeded_since.begin(); it != m_unneeded_since.end();) {
    it = std::binary_search(still.begin(), still.end(), it->first) ? std::next(it) : m_unneeded_since.erase(it);
  }
  for (const auto& r : removable) {
    m_unneeded_since.try_emplace(r.node, now);
  }
  if (cooldown || removable.empty()) {
    update_soft_taints(cluster, actuator);
    return false;
  }

  // NodesToDelete: unneeded long enough, group above its min size. Upstream compares
  // TargetSize - DeletionsInProgress; the target here dropped at each delete already (the ASG's
  // desired capacity drops when the instance is terminated, as the deletion tracker ends).
  std::vector<std::int32_t> size(m_groups.size());
  for (std::size_t g = 0; g < m_groups.size(); ++g) {
    size[g] = m_groups[g].target;
  }
  std::size_t empty_in_flight = 0;
  std::size_t drain_in_flight = 0;
  for (const auto& entry : m_deleting) {
    (entry.second ? drain_in_flight : empty_in_flight) += 1;
  }
  std::vector<Removable> empty;
  std::vector<Removable> drain;
  for (const bool want_empty : {true, false}) {
    for (const auto& r : removable) {
      if (r.empty != want_empty) {
        continue;
      }
      if (!(m_unneeded_since[r.node] + m_settings.scale_down_unneeded_time < now)) {
        continue;
      }
      if (size[r.group] <= m_scenario.node_groups[r.group].min_size) {
        continue;
      }
      --size[r.group];
      (want_empty ? empty : drain).push_back(r);
    }
  }
  const auto budget = crop_deletions(empty.size(), drain.size(), empty_in_flight, drain_in_flight,
                                     m_settings.max_scale_down_parallelism, m_settings.max_drain_parallelism);
  empty.resize(budget.empty);
  drain.resize(budget.drain);
  bool deleted = false;
  for (const auto* list : {&empty, &drain}) {
    for (const auto& r : *list) {
      const auto& n = cluster.node(r.node);
      const SimTime since = m_unneeded_since[r.node];
      const double price = n.price_per_hour;
      const std::string name = n.name;
      const std::size_t pods = n.pods.size();
      actuator.delete_node(r.node, sim::DeleteReason::scale_down);
      m_deleting[r.node] = !r.empty;
      m_unneeded_since.erase(r.node);
      --m_groups[r.group].target;
      actuator.record({now, "scale-down", name, "delete",
                       fmt::format("{} node of {}, unneeded since {}{}", r.empty ? "empty" : "underutilized",
                                   m_scenario.node_groups[r.group].name, format_duration(since),
                                   r.empty ? std::string() : fmt::format(", {} pod(s) drained", pods)),
                       price});
      deleted = true;
    }
  }
  update_soft_taints(cluster, actuator);
  return deleted;
}

void ClusterAutoscaler::update_soft_taints(const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  // UpdateSoftDeletionTaints: nodes no longer unneeded lose DeletionCandidateOfClusterAutoscaler
  // first, then unneeded nodes gain it, at most max-bulk-soft-taint-count changes a loop (the
  // rest wait for the next). Nodes being deleted are left alone. The taint only steers
  // kube-scheduler's scoring (PreferNoSchedule); CA's own simulations filter, so ignore it.
  std::int32_t budget = m_settings.max_bulk_soft_taint_count;
  if (budget == 0) {
    return;
  }
  auto& tainted = m_soft_tainted;
  if (!m_soft_taints_seen) {
    // Nodes of a dump may carry the taint from the cluster's own autoscaler.
    m_soft_taints_seen = true;
    for (const NodeIndex i : cluster.alive_node_indices()) {
      const auto& taints = cluster.node(i).taints;
      if (std::any_of(taints.begin(), taints.end(),
                      [](const model::Taint& t) { return t.key == model::k_deletion_candidate_taint_key; })) {
        tainted.push_back(i);
      }
    }
    std::sort(tainted.begin(), tainted.end());
  }
  std::size_t kept = 0;
  for (const NodeIndex n : tainted) {
    if (!cluster.node(n).alive()) {
      continue; // gone
    }
    if (budget == 0 || m_unneeded_since.count(n) != 0 || m_deleting.count(n) != 0) {
      tainted[kept++] = n;
      continue;
    }
    actuator.set_deletion_candidate(n, false);
    --budget;
  }
  tainted.resize(kept);
  for (const auto& entry : m_unneeded_since) {
    const NodeIndex n = entry.first;
    if (budget == 0) {
      break;
    }
    const auto kept_end = tainted.begin() + static_cast<std::ptrdiff_t>(kept);
    if (m_deleting.count(n) != 0 || std::binary_search(tainted.begin(), kept_end, n)) {
      continue;
    }
    actuator.set_deletion_candidate(n, true);
    --budget;
    tainted.push_back(n);
  }
  std::inplace_merge(tainted.begin(), tainted.begin() + static_cast<std::ptrdiff_t>(kept), tainted.end());
}

std::unique_ptr<sim::Controller> make_cluster_autoscaler(const model::Scenario& scenario,
                                                         const catalog::Catalog& catalog, std::uint64_t seed)
{
  return std::make_unique<ClusterAutoscaler>(scenario, catalog, seed);
}

} // namespace capsim::cas
