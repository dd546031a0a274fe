#include "core/karpenter/disruption_candidates.hpp"

#include "core/base/diagnostics.hpp"
#include "core/base/quantity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>

namespace capsim::karpenter {

namespace {

using cluster::NodeIndex;
using cluster::NodeLifecycle;
using cluster::PodIndex;
using cluster::PodPhase;

// An intstr value: a count, or a percentage (percent = true). nullopt when malformed.
struct IntOrPercent
{
  std::int64_t value = 0;
  bool percent = false;
};

std::optional<IntOrPercent> parse_int_or_percent(std::string_view text)
{
  IntOrPercent out;
  if (!text.empty() && text.back() == '%') {
    out.percent = true;
    text.remove_suffix(1);
  }
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out.value);
  if (text.empty() || ec != std::errc() || ptr != end || out.value < 0) {
    return std::nullopt;
  }
  return out;
}

// intstr.GetScaledValueFromIntOrPercent(v, total, roundUp = true).
std::int64_t scaled(const IntOrPercent& v, std::int64_t total)
{
  return v.percent ? (v.value * total + 99) / 100 : v.value;
}

std::string pod_name(const cluster::PodState& p)
{
  const std::string ns = p.pod().spec ? p.pod().spec->namespace_ : std::string("default");
  return ns + "/" + p.pod().name;
}

} // namespace

double eviction_cost(const model::PodSpec& spec)
{
  double cost = 1.0;
  cost += static_cast<double>(spec.deletion_cost) / std::pow(2.0, 27.0);
  cost += static_cast<double>(spec.priority) / std::pow(2.0, 25.0);
  return std::clamp(cost, -10.0, 10.0);
}

bool currently_reschedulable(const cluster::PodState& p, const PdbLimits* pdbs, SimTime now)
{
  if (p.phase != cluster::PodPhase::bound || !model::listed_on_node(p.pod()) || !p.pod().spec) {
    return false;
  }
  if (cluster::do_not_disrupt_active(p, now)) {
    return false;
  }
  return pdbs == nullptr || p.pod().terminating || !pdbs->fully_blocked(p.pod());
}

bool tolerates_disrupted_taint(const model::PodSpec& spec)
{
  const model::Taint disrupted{"karpenter.sh/disrupted", "", model::TaintEffect::no_schedule};
  return std::any_of(spec.tolerations.begin(), spec.tolerations.end(),
                     [&](const model::Toleration& t) { return t.tolerates(disrupted); });
}

PdbLimits::PdbLimits(const std::vector<model::PodDisruptionBudget>& pdbs, const cluster::Cluster& cluster)
  : PdbLimits(pdbs)
{
  m_cluster = &cluster;
  count(cluster);
}

PdbLimits::PdbLimits(const std::vector<model::PodDisruptionBudget>& pdbs)
  : m_pdbs(&pdbs), m_fully_blocking(pdbs.size(), false)
{
  for (std::size_t i = 0; i < pdbs.size(); ++i) {
    const auto& pdb = pdbs[i];
    if (pdb.min_available) {
      m_fully_blocking[i] = *pdb.min_available == "100%";
    } else if (pdb.max_unavailable) {
      const auto v = parse_int_or_percent(*pdb.max_unavailable);
      m_fully_blocking[i] = v && v->value == 0;
    }
  }
}

void PdbLimits::count(const cluster::Cluster& cluster)
{
  const auto& pdbs = *m_pdbs;
  m_allowed.assign(pdbs.size(), 0);
  if (pdbs.empty()) {
    return;
  }
  std::vector<std::int64_t> expected(pdbs.size(), 0);
  std::vector<std::int64_t> healthy(pdbs.size(), 0);
  for (const auto& p : cluster.pods()) {
    // (The disruption controller counts no pod being deleted, and the controller's scale that
    // `expected` stands for leaves it out.)
    if (!p.pod().spec || p.pod().terminating || (p.phase != PodPhase::pending && p.phase != PodPhase::bound)) {
      continue;
    }
    for (const auto i : matching(*p.pod().spec)) {
      ++expected[i];
      if (p.phase == PodPhase::bound && p.started_at >= 0 && !p.pod().unready) {
        ++healthy[i];
      }
    }
  }
  for (std::size_t i = 0; i < pdbs.size(); ++i) {
    const auto& pdb = pdbs[i];
    std::int64_t desired = 0;
    if (pdb.min_available) {
      const auto v = parse_int_or_percent(*pdb.min_available);
      desired = v ? scaled(*v, expected[i]) : expected[i];
    } else if (pdb.max_unavailable) {
      const auto v = parse_int_or_percent(*pdb.max_unavailable);
      desired = std::max<std::int64_t>(expected[i] - (v ? scaled(*v, expected[i]) : 0), 0);
    }
    m_allowed[i] = std::max<std::int64_t>(healthy[i] - desired, 0);
  }
}

const std::vector<std::int64_t>& PdbLimits::allowed() const
{
  CAPSIM_CHECK(m_cluster != nullptr, "PdbLimits: disruptions allowed asked of limits made without a cluster");
  return m_allowed;
}

std::int64_t PdbLimits::disruptions_allowed(std::size_t pdb) const
{
  return allowed()[pdb];
}

const std::vector<std::uint32_t>& PdbLimits::matching(const model::PodSpec& spec) const
{
  auto it = m_matching.find(&spec);
  if (it != m_matching.end()) {
    return it->second;
  }
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; m_pdbs != nullptr && i < m_pdbs->size(); ++i) {
    const auto& pdb = (*m_pdbs)[i];
    if (pdb.namespace_ == spec.namespace_ && pdb.selector.matches(spec.labels)) {
      out.push_back(i);
    }
  }
  return m_matching.emplace(&spec, std::move(out)).first->second;
}

std::string PdbLimits::eviction_blocker(const model::Pod& pod) const
{
  if (empty()) {
    return {};
  }
  const auto& m = matching(*pod.spec);
  if (m.size() > 1) {
    std::string names;
    for (const auto i : m) {
      names += (names.empty() ? "" : ", ") + (*m_pdbs)[i].namespace_ + "/" + (*m_pdbs)[i].name;
    }
    return "eviction does not support multiple PDBs (" + names + ")";
  }
  if (m.size() == 1 && allowed()[m[0]] == 0 && !evicts_unready(m[0], pod)) {
    const auto& pdb = (*m_pdbs)[m[0]];
    return "PDB " + pdb.namespace_ + "/" + pdb.name + " allows no disruption now";
  }
  return {};
}

bool PdbLimits::fully_blocked(const model::Pod& pod) const
{
  if (empty()) {
    return false;
  }
  const auto& m = matching(*pod.spec);
  // isEvictable returns at the first PDB when a pod has several (they block anyway).
  if (m.size() > 1) {
    return true;
  }
  return m.size() == 1 && m_fully_blocking[m[0]] && !evicts_unready(m[0], pod);
}

bool PdbLimits::evicts_unready(std::size_t pdb, const model::Pod& pod) const
{
  return pod.unready && (*m_pdbs)[pdb].always_allow_unhealthy;
}

const catalog::InstanceType* pool_instance_type(const NodePoolInput& pool, std::string_view name)
{
  for (const auto* t : pool.types()) {
    if (t->name == name) {
      return t;
    }
  }
  return nullptr;
}

const catalog::InstanceType* pool_instance_type(const NodePoolInput& pool, const catalog::InstanceType& type)
{
  // The pool lists the catalog's own types in catalog order, which is address order when they
  // come from one catalog: a binary search by address first (names are unique), then a scan.
  const auto& types = pool.types();
  const auto it = std::lower_bound(types.begin(), types.end(), &type, std::less<const catalog::InstanceType*>());
  if (it != types.end() && *it == &type) {
    return *it;
  }
  for (const auto* t : types) {
    if (t == &type) {
      return t;
    }
  }
  return pool_instance_type(pool, type.name);
}

double offering_price(const catalog::InstanceType& type, std::string_view zone, std::string_view capacity_type)
{
  for (const auto& o : type.offerings) {
    if (o.zone == zone && o.capacity_type == capacity_type) {
      return std::isnan(o.price_per_hour) ? 0 : o.price_per_hour;
    }
  }
  return 0;
}

bool is_v113(std::string_view version)
{
  return version == "1.13";
}

bool is_empty(const Candidate& c, std::string_view version)
{
  return is_empty(c, is_v113(version));
}

bool is_empty(const Candidate& c, bool v113)
{
  return v113 ? c.reschedulable.empty() : c.reschedule_cost <= 1.0;
}

SimTime consolidatable_at(const cluster::NodeState& node, const model::NodePool& pool)
{
  if (pool.consolidate_after == k_never || node.ready_at < 0) {
    return k_never;
  }
  return std::max(node.last_pod_event, node.ready_at) + pool.consolidate_after;
}

namespace {

// What a node's memo counts of one pod.
struct PodFacts
{
  double cost = 1.0; // eviction cost
  bool do_not_disrupt = false;
  bool plain = false; // has a spec that does not ask for do-not-disrupt
};

PodFacts facts_of(const cluster::PodState& ps)
{
  PodFacts f;
  if (ps.pod().spec) {
    f.cost = eviction_cost(*ps.pod().spec);
    f.do_not_disrupt = ps.pod().spec->do_not_disrupt > 0 && !ps.pod().terminating;
    f.plain = !f.do_not_disrupt;
  }
  return f;
}

void set_list(CandidateMemo& m, const cluster::NodeState& node)
{
  // Most lists change a pod at a time, and by then no candidate holds the last one: it is written
  // again in place, with room for a few more pods.
  const std::size_t n = node.pods.size();
  if (n <= m.list_room && m.reschedulable.sole_owner()) {
    m.reschedulable.rewrite_sorted(node.pods);
  } else {
    m.list_room = static_cast<std::uint32_t>(n + n / 2 + 4);
    m.reschedulable = PodList::sorted(node.pods, m.list_room);
  }
  m.list_current = true;
}

void set_type(CandidateMemo& m, const cluster::NodeState& node, const NodePoolInput& pool_input)
{
  m.instance_type = node.instance_type != nullptr ? pool_instance_type(pool_input, *node.instance_type) : nullptr;
  m.price = m.instance_type != nullptr ? offering_price(*m.instance_type, node.zone, node.capacity_type) : 0;
  m.pool_revision = pool_input.revision;
}

void derive(CandidateMemo& m, const cluster::Cluster& cluster, const cluster::NodeState& node,
            const NodePoolInput& pool_input)
{
  m.valid = true;
  m.cluster = cluster.instance_id();
  m.pods_revision = node.pods_revision;
  m.bindings = cluster.binding_log().size();
  set_type(m, node, pool_input);
  m.all_cost = 0;
  m.reschedule_cost = 1.0;
  m.do_not_disrupt_pods = 0;
  m.unplain_pods = 0;
  for (const PodIndex p : node.pods) {
    const PodFacts f = facts_of(cluster.pod(p));
    m.do_not_disrupt_pods += f.do_not_disrupt ? 1 : 0;
    m.unplain_pods += f.plain ? 0 : 1;
    m.all_cost += f.cost;
    m.reschedule_cost += std::max(0.0, f.cost);
  }
  set_list(m, node);
}

} // namespace

void CandidateMemos::apply_new_bindings(const cluster::Cluster& cluster)
{
  const auto& log = cluster.binding_log();
  if (m_cluster != cluster.instance_id() || m_bindings > log.size()) {
    m_memo.clear(); // another cluster's
    m_cluster = cluster.instance_id();
    m_bindings = log.size();
    return;
  }
  for (; m_bindings < log.size(); ++m_bindings) {
    const auto& e = log[m_bindings];
    if (e.node >= m_memo.size()) {
      continue;
    }
    CandidateMemo& m = m_memo[e.node];
    if (!m.valid || m.bindings > m_bindings) {
      continue; // derived after this binding (or never)
    }
    const PodFacts f = facts_of(cluster.pod(e.pod));
    const double sign = e.bound ? 1.0 : -1.0;
    const std::uint32_t one = e.bound ? 1U : static_cast<std::uint32_t>(-1);
    m.all_cost += sign * f.cost;
    m.reschedule_cost += sign * std::max(0.0, f.cost);
    m.do_not_disrupt_pods += f.do_not_disrupt ? one : 0U;
    m.unplain_pods += f.plain ? 0U : one;
    m.bindings = m_bindings + 1;
    m.pods_revision = cluster.node(e.node).pods_revision; // every later change is logged after this one
    m.list_current = false;
  }
}

double lifetime_left(const cluster::NodeState& node, SimTime now)
{
  const SimTime born = node.created_at - node.age_at_creation;
  if (node.expire_at >= 0 && node.expire_at > born) {
    const auto total = static_cast<double>(node.expire_at - born);
    const auto age = static_cast<double>(now - born);
    return std::clamp((total - age) / total, 0.0, 1.0);
  }
  return 1.0;
}

CandidateCheck make_candidate(const CandidateContext& ctx, NodeIndex index, DisruptionClass disruption_class)
{
  CandidateCheck out;
  make_candidate(ctx, index, disruption_class, out);
  return out;
}

void make_candidate(const CandidateContext& ctx, NodeIndex index, DisruptionClass disruption_class,
                    CandidateCheck& out)
{
  out.candidate.reset();
  out.blocked.clear();
  out.lasting = false;
  out.all_cost = 0;
  const auto& cluster = *ctx.cluster;
  const auto& node = cluster.node(index);
  if (node.owner != cluster::NodeOwner::node_pool || !node.alive() || node.lifecycle != NodeLifecycle::ready
      || node.disrupted_taint || (ctx.in_queue && ctx.in_queue(index))) {
    out.lasting = true;
    return; // unmanaged, not initialized, deleting / marked for deletion, or in a command
  }
  if (ctx.pools == nullptr || node.pool >= ctx.pools->size()) {
    out.blocked = "NodePool not found";
    out.lasting = true;
    return;
  }
  if (ctx.nominated_until(index) > ctx.now) {
    out.blocked = "node is nominated for a pending pod";
    return;
  }
  if (node.do_not_disrupt) {
    out.blocked = "disruption is blocked through the \"karpenter.sh/do-not-disrupt\" annotation on the node";
    out.lasting = true;
    return;
  }
  const auto& pool_input = (*ctx.pools)[node.pool];
  std::unique_ptr<CandidateMemo> local; // made only without a memo table (a pointer: cheap to skip)
  if (ctx.memo != nullptr) {
    ctx.memo->catch_up(cluster);
  } else {
    local = std::make_unique<CandidateMemo>();
  }
  CandidateMemo& memo = ctx.memo != nullptr ? ctx.memo->slot(index) : *local;
  if (!memo.valid || memo.cluster != cluster.instance_id() || memo.pods_revision != node.pods_revision) {
    derive(memo, cluster, node, pool_input);
  } else {
    if (!memo.list_current) {
      set_list(memo, node);
    }
    if (pool_input.revision == 0 || memo.pool_revision != pool_input.revision) {
      set_type(memo, node, pool_input);
    }
  }
#ifndef NDEBUG
  if (ctx.memo != nullptr) {
    CandidateMemo fresh;
    derive(fresh, cluster, node, pool_input);
    CAPSIM_CHECK(fresh.all_cost == memo.all_cost && fresh.reschedule_cost == memo.reschedule_cost
                     && fresh.do_not_disrupt_pods == memo.do_not_disrupt_pods && fresh.unplain_pods == memo.unplain_pods
                     && fresh.reschedulable == memo.reschedulable && fresh.instance_type == memo.instance_type
                     && fresh.price == memo.price,
                 "make_candidate: a node's memo differs from its pods");
  }
#endif
  // (The NodeClaim's own terminationGracePeriod, which a later NodePool version does not change.)
  const bool ignore_pod_blockers = disruption_class == DisruptionClass::eventual && node.termination_grace_period;
  if (!ignore_pod_blockers && memo.any_do_not_disrupt()) {
    for (const PodIndex p : node.pods) {
      const auto& ps = cluster.pod(p);
      if (do_not_disrupt_active(ps, ctx.now)) {
        out.blocked = "pod " + pod_name(ps) + " has the \"karpenter.sh/do-not-disrupt\" annotation";
        const auto& pod = ps.pod();
        if (pod.spec->do_not_disrupt != k_never && ps.started_at >= 0) {
          const SimTime until = ps.started_at - pod.started_before + pod.spec->do_not_disrupt;
          out.blocked += " (until t=" + format_duration(until) + ")";
        }
        return;
      }
    }
  }
  if (!ignore_pod_blockers) {
    if (ctx.pdbs != nullptr && !ctx.pdbs->empty()) {
      for (const PodIndex p : node.pods) {
        const auto& ps = cluster.pod(p);
        if (!ps.pod().spec || ps.pod().terminating || tolerates_disrupted_taint(*ps.pod().spec)) {
          continue; // not evicted by the drain, so PDBs do not matter
        }
        const std::string why = ctx.pdbs->eviction_blocker(ps.pod());
        if (!why.empty()) {
          out.blocked = "pod " + pod_name(ps) + ": " + why;
          return;
        }
      }
    }
  }
  Candidate c;
  c.node = index;
  c.pool = node.pool;
  c.instance_type = memo.instance_type;
  c.price = memo.price;
  c.reschedulable = memo.reschedulable;
  c.plain_pods = memo.plain_pods();
  c.spot = node.capacity_type == model::k_capacity_spot;
  c.pods_revision = node.pods_revision;
  c.reschedule_cost = memo.reschedule_cost;
  c.disruption_cost = ctx.disruption_costs ? memo.all_cost * lifetime_left(node, ctx.now) : 0;
  out.candidate = std::move(c);
  out.all_cost = memo.all_cost;
  // (PDBs answer by every pod's state. A do-not-disrupt pod that does not block now never will:
  // its duration runs from its start, and it has started.)
  out.lasting = ctx.pdbs == nullptr || ctx.pdbs->empty();
}

const std::vector<CandidateChecks::Entry>& CandidateChecks::refresh(const CandidateContext& ctx,
                                                                    std::uint64_t queue_version)
{
  std::uint64_t revisions = 0; // (a NodePool's new version has a new revision: the kept answers go)
  if (ctx.pools != nullptr) {
    for (const auto& p : *ctx.pools) {
      revisions += p.revision;
    }
  }
  const Basis basis{ctx.cluster->instance_id(),
                    queue_version,
                    ctx.pools,
                    ctx.pools != nullptr ? ctx.pools->size() : 0,
                    revisions,
                    ctx.disruption_costs};
  if (m_basis != basis) {
    m_basis = basis;
    m_entries.clear();
    m_settled = false;
  }
  if (!m_settled || !update_changed(ctx)) {
    ++m_walks;
    m_all_changed = true;
    m_changed.clear();
    if (!update(ctx)) {
      m_entries.clear();
      const bool listed = update(ctx); // (nothing kept: every node is listed at the end)
      CAPSIM_CHECK(listed, "candidate checks: a node listed out of order");
    }
    settle(ctx);
  }
#ifndef NDEBUG
  std::size_t at = 0;
  for (const NodeIndex n : ctx.cluster->alive_node_indices()) {
    if (ctx.cluster->node(n).owner != cluster::NodeOwner::node_pool) {
      continue;
    }
    CAPSIM_CHECK(at < m_entries.size() && m_entries[at].node == n, "candidate checks: a node missing or out of order");
    const CandidateCheck fresh = make_candidate(ctx, n, DisruptionClass::graceful);
    const auto& kept = m_entries[at].check;
    const auto same_candidate = [](const Candidate& a, const Candidate& b) {
      return a.node == b.node && a.pool == b.pool && a.instance_type == b.instance_type && a.price == b.price
             && a.reschedulable == b.reschedulable && a.plain_pods == b.plain_pods && a.spot == b.spot
             && a.pods_revision == b.pods_revision && a.reschedule_cost == b.reschedule_cost
             && a.disruption_cost == b.disruption_cost;
    };
    CAPSIM_CHECK(fresh.blocked == kept.blocked && fresh.lasting == kept.lasting
                     && fresh.candidate.has_value() == kept.candidate.has_value()
                     && (!fresh.candidate || same_candidate(*fresh.candidate, *kept.candidate)),
                 "candidate checks: a kept answer differs from make_candidate's");
    ++at;
  }
  CAPSIM_CHECK(at == m_entries.size(), "candidate checks: a node listed that is not a NodePool's");
  std::vector<std::uint32_t> empty;
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    const auto& c = m_entries[i].check.candidate;
    if (c && (is_empty(*c, true) || is_empty(*c, false))) {
      empty.push_back(static_cast<std::uint32_t>(i));
    }
  }
  CAPSIM_CHECK(empty == m_maybe_empty, "candidate checks: the list of empty candidates differs from a walk");
#endif
  return m_entries;
}

bool CandidateChecks::update(const CandidateContext& ctx)
{
  // Both lists are sorted by node index and nodes join with the highest index: one walk drops the
  // entries of nodes gone and appends the new ones.
  const auto& cluster = *ctx.cluster;
  const auto& alive = cluster.alive_node_indices();
  const std::size_t old = m_entries.size();
  // A list made anew waits on every node's memo: those are loaded ahead too.
  const bool anew = old == 0 && ctx.memo != nullptr;
  std::size_t read = 0;
  std::size_t write = 0;
  constexpr std::size_t k_ahead = 8;
  for (std::size_t i = 0; i < alive.size(); ++i) {
    if (i + 2 * k_ahead < alive.size()) {
      const auto& ahead = cluster.node(alive[i + 2 * k_ahead]);
      __builtin_prefetch(&ahead.owner);
      __builtin_prefetch(&ahead.pods_revision);
      if (anew) {
        ctx.memo->prefetch(alive[i + 2 * k_ahead]);
      }
    }
    if (anew && i + k_ahead < alive.size()) {
      ctx.memo->prefetch_list(alive[i + k_ahead]);
    }
    const NodeIndex n = alive[i];
    const auto& node = cluster.node(n);
    if (node.owner != cluster::NodeOwner::node_pool) {
      continue;
    }
    while (read < old && m_entries[read].node < n) {
      ++read; // the node left
    }
    if (read < old && m_entries[read].node == n) {
      if (write != read) {
        m_entries[write] = std::move(m_entries[read]);
      }
      ++read;
    } else if (read < old) {
      return false;
    } else {
      if (write == m_entries.size()) {
        m_entries.emplace_back();
      }
      m_entries[write].node = n;
      m_entries[write].check.lasting = false; // worked out below
    }
    Entry& e = m_entries[write++];
    e.due = {Entry::k_unknown, Entry::k_unknown};
#ifndef NDEBUG
    CAPSIM_CHECK(ctx.nominations_end > ctx.now || ctx.nominated_until(n) <= ctx.now,
                 "candidate checks: a node nominated past the end of every nomination");
#endif
    const bool stands = e.check.lasting && e.stamp == cluster.node_stamp(n) && e.pods_revision == node.pods_revision
                        && !(ctx.nominations_end > ctx.now && ctx.nominated_until(n) > ctx.now);
    if (!stands) {
      recheck(ctx, e);
    } else if (e.check.candidate && ctx.disruption_costs) {
      e.check.candidate->disruption_cost = e.check.all_cost * lifetime_left(node, ctx.now);
    }
  }
  m_entries.resize(write);
  return true;
}

void CandidateChecks::recheck(const CandidateContext& ctx, Entry& e)
{
  const auto& cluster = *ctx.cluster;
  e.stamp = cluster.node_stamp(e.node);
  e.pods_revision = cluster.node(e.node).pods_revision;
  // (In place: the node's reason keeps its buffer, and its memo's pod list, no longer shared with
  // the last candidate, may be written again.)
  make_candidate(ctx, e.node, DisruptionClass::graceful, e.check);
  e.due = {Entry::k_unknown, Entry::k_unknown};
  const auto& c = e.check.candidate;
  e.maybe_empty = c && (is_empty(*c, true) || is_empty(*c, false));
}

void CandidateChecks::settle(const CandidateContext& ctx)
{
  const auto& cluster = *ctx.cluster;
  m_node_log_seen = cluster.node_log().size();
  m_bindings_seen = cluster.binding_log().size();
  m_nominations_logged = ctx.nomination_logs.has_value();
  if (ctx.nomination_logs) {
    m_nominations_seen = {(*ctx.nomination_logs)[0].size(), (*ctx.nomination_logs)[1].size()};
  }
  std::fill(m_position.begin(), m_position.end(), 0U);
  m_unsettled.clear();
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    const auto& e = m_entries[i];
    if (m_position.size() <= e.node) {
      m_position.resize(static_cast<std::size_t>(e.node) + 1, 0U);
    }
    m_position[e.node] = static_cast<std::uint32_t>(i + 1);
    if (!e.check.lasting) {
      m_unsettled.push_back(e.node);
    }
  }
  list_maybe_empty();
  m_settled = true;
}

const CandidateChecks::Entry* CandidateChecks::entry_of(cluster::NodeIndex n) const
{
  const std::uint32_t at = n < m_position.size() ? m_position[n] : 0U;
  return at != 0 ? &m_entries[at - 1] : nullptr;
}

bool CandidateChecks::take_changes(std::vector<cluster::NodeIndex>& out)
{
  out.clear();
  const bool known = !m_all_changed;
  if (known) {
    out.swap(m_changed);
  }
  m_changed.clear();
  m_all_changed = false;
  return known;
}

void CandidateChecks::list_maybe_empty()
{
  m_maybe_empty.clear();
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    if (m_entries[i].maybe_empty) {
      m_maybe_empty.push_back(static_cast<std::uint32_t>(i));
    }
  }
}

bool CandidateChecks::update_changed(const CandidateContext& ctx)
{
  const auto& cluster = *ctx.cluster;
  const auto& log = cluster.node_log();
  const auto& bindings = cluster.binding_log();
  if (log.size() < m_node_log_seen || bindings.size() < m_bindings_seen) {
    return false;
  }
  const auto& nominations = ctx.nomination_logs;
  if (nominations.has_value() != m_nominations_logged
      || (nominations
          && ((*nominations)[0].size() < m_nominations_seen[0] || (*nominations)[1].size() < m_nominations_seen[1]))) {
    return false;
  }
  // The nodes whose answer may have changed: stamped (joined, left, changed), bound to or unbound
  // from, not lasting, or nominated now.
  auto& dirty = m_dirty;
  dirty.clear();
  for (std::size_t i = m_node_log_seen; i < log.size(); ++i) {
    dirty.push_back(log[i]);
  }
  for (std::size_t i = m_bindings_seen; i < bindings.size(); ++i) {
    dirty.push_back(bindings[i].node);
  }
  // (A node nominated at the last refresh and still is was blocked then, and is unsettled.)
  dirty.insert(dirty.end(), m_unsettled.begin(), m_unsettled.end());
  if (nominations) {
    for (std::size_t l = 0; l < 2; ++l) {
      const auto& list = (*nominations)[l];
      dirty.insert(dirty.end(), list.begin() + static_cast<std::ptrdiff_t>(m_nominations_seen[l]), list.end());
    }
  } else if (ctx.nominations_end > ctx.now) {
    for (const auto& e : m_entries) {
      if (ctx.nominated_until(e.node) > ctx.now) {
        dirty.push_back(e.node);
      }
    }
  }
  std::sort(dirty.begin(), dirty.end());
  dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
  const auto listed = [&cluster](cluster::NodeIndex n) {
    const auto& node = cluster.node(n);
    return node.alive() && node.owner == cluster::NodeOwner::node_pool;
  };
  const auto position = [this](cluster::NodeIndex n) -> std::uint32_t {
    return n < m_position.size() ? m_position[n] : 0U;
  };
  // Nodes join the list at its end only (a node listed between kept ones takes the walk).
  const cluster::NodeIndex last = m_entries.empty() ? 0 : m_entries.back().node;
  for (const cluster::NodeIndex n : dirty) {
    if (position(n) == 0 && listed(n) && !m_entries.empty() && n < last) {
      return false;
    }
  }
  bool moved = false;     // an entry left: positions close up
  bool emptiness = false; // the list of empty candidates changes
  m_unsettled.clear();
  if (!m_all_changed) {
    // (Not taken for long, the record would outgrow a walk: every entry counts as changed then.)
    if (m_changed.size() + dirty.size() > 2 * m_entries.size() + 64) {
      m_all_changed = true;
      m_changed.clear();
    } else {
      m_changed.insert(m_changed.end(), dirty.begin(), dirty.end());
    }
  }
  for (const cluster::NodeIndex n : dirty) {
    std::uint32_t at = position(n);
    if (!listed(n)) {
      if (at != 0) {
        m_entries[at - 1].node = cluster::k_none; // (closed up below)
        m_position[n] = 0;
        moved = true;
      }
      continue;
    }
    if (at == 0) {
      m_entries.emplace_back();
      m_entries.back().node = n;
      at = static_cast<std::uint32_t>(m_entries.size());
      if (m_position.size() <= n) {
        m_position.resize(static_cast<std::size_t>(n) + 1, 0U);
      }
      m_position[n] = at;
      emptiness = true;
    }
    Entry& e = m_entries[at - 1];
    const bool was_empty = e.maybe_empty;
    recheck(ctx, e);
    emptiness = emptiness || e.maybe_empty != was_empty;
    if (!e.check.lasting) {
      m_unsettled.push_back(n);
    }
  }
  if (moved) {
    std::erase_if(m_entries, [](const Entry& e) { return e.node == cluster::k_none; });
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
      m_position[m_entries[i].node] = static_cast<std::uint32_t>(i + 1);
    }
  }
  if (moved || emptiness) {
    list_maybe_empty();
  }
  if (ctx.disruption_costs) {
    for (auto& e : m_entries) {
      if (e.check.candidate) {
        e.check.candidate->disruption_cost = e.check.all_cost * lifetime_left(cluster.node(e.node), ctx.now);
      }
    }
  }
  m_node_log_seen = log.size();
  m_bindings_seen = bindings.size();
  if (nominations) {
    m_nominations_seen = {(*nominations)[0].size(), (*nominations)[1].size()};
  }
  return true;
}

namespace {

// A candidate's place in the consolidation order, worked out once (a comparison would divide and
// read two nodes' names).
struct OrderKey
{
  double first = 0; // lower first
  // The name's first 16 bytes, big-endian and zero-padded: compared as the name is (ties on
  // the savings ratio are common, and most names share a long NodePool prefix).
  std::array<std::uint64_t, 2> head{};
  std::uint32_t name_size = 0;
  cluster::NodeIndex node = cluster::k_none;
  std::uint32_t at = 0;
};

// A node's name as the consolidation order compares it first.
CandidateOrder::Name packed_name(const std::string& name)
{
  const auto pack = [&name](std::size_t from) {
    std::uint64_t x = 0;
    for (std::size_t i = from; i < from + 8; ++i) {
      x = (x << 8U) | (i < name.size() ? static_cast<unsigned char>(name[i]) : 0U);
    }
    return x;
  };
  return CandidateOrder::Name{{pack(0), pack(8)}, static_cast<std::uint32_t>(name.size()), true};
}

// key_before for keys of equal first parts and name heads: the whole names, then the indexes.
[[gnu::noinline]] bool names_before(std::uint32_t a_size, cluster::NodeIndex a, std::uint32_t b_size,
                                    cluster::NodeIndex b, const cluster::Cluster& cluster)
{
  // Equal heads: equal names unless longer than the heads or of other lengths.
  if (a_size != b_size || a_size > 16) {
    if (const int c = cluster.node(a).name.compare(cluster.node(b).name); c != 0) {
      return c < 0;
    }
  }
  return a < b;
}

// The consolidation order over keys (OrderKey, AdmittedOrder::Key): the first part, then the
// node's name, then its index. (Inlined: a sort or a merge compares most keys on the first part.)
template <typename Key>
[[gnu::always_inline]] inline bool key_before(const Key& a, const Key& b, const cluster::Cluster& cluster)
{
  if (a.first != b.first) {
    return a.first < b.first;
  }
  if (a.head[0] != b.head[0]) { // (element by element: the arrays' operators call memcmp)
    return a.head[0] < b.head[0];
  }
  if (a.head[1] != b.head[1]) {
    return a.head[1] < b.head[1];
  }
  return names_before(a.name_size, a.node, b.name_size, b.node, cluster);
}

// sort_candidates_of over pointers with a remembered order: the candidates whose node was in it
// with the same key are taken in that order, the others keyed, sorted and merged in, without
// keying every candidate (a poll changes a few). False, with `candidates` as they were, when a
// node is listed twice or a key is NaN: the caller sorts them its own way.
template <typename NameOf, typename Less>
bool sort_from_memo(std::vector<const Candidate*>& candidates, bool v113, CandidateOrder& memo, const NameOf& name_of,
                    const Less& less)
{
  const auto call = ++memo.calls;
  const auto key_of = [v113](const Candidate& c) { return v113 ? c.disruption_cost : -c.savings_ratio(); };
  for (const Candidate* c : candidates) {
    if (memo.listed.size() <= c->node) {
      memo.listed.resize(static_cast<std::size_t>(c->node) + 1);
    }
    auto& l = memo.listed[c->node];
    if (l.call == call) {
      return false;
    }
    l = {call, 0, c};
  }
  struct Kept
  {
    double first;
    const Candidate* candidate;
  };
  thread_local std::vector<Kept> kept;
  kept.clear();
  for (const auto& [first, node] : memo.sorted) {
    if (node < memo.listed.size()) {
      auto& l = memo.listed[node];
      if (l.call == call && l.kept != call && key_of(*l.candidate) == first) {
        kept.push_back({first, l.candidate});
        l.kept = call;
      }
    }
  }
  thread_local std::vector<OrderKey> moved;
  thread_local std::vector<const Candidate*> moved_candidates;
  moved.clear();
  moved_candidates.clear();
  for (const Candidate* c : candidates) {
    if (memo.listed[c->node].kept == call) {
      continue;
    }
    OrderKey k;
    k.first = key_of(*c);
    if (std::isnan(k.first)) {
      return false;
    }
    if (memo.names.size() <= c->node) {
      memo.names.resize(static_cast<std::size_t>(c->node) + 1);
    }
    if (!memo.names[c->node].known) {
      memo.names[c->node] = name_of(c->node);
    }
    const auto& name = memo.names[c->node];
    k.head = name.head;
    k.name_size = name.size;
    k.node = c->node;
    k.at = static_cast<std::uint32_t>(moved.size());
    moved.push_back(k);
    moved_candidates.push_back(c);
  }
  std::sort(moved.begin(), moved.end(), less);
  // The merge: a kept candidate's whole key is made only when a moved one ties with it on the
  // first part.
  memo.keys.clear(); // (the other way's remembered input: not this one)
  memo.order.clear();
  memo.sorted.clear();
  const auto goes_before = [&](const OrderKey& m, const Kept& k) {
    if (m.first != k.first) {
      return m.first < k.first;
    }
    OrderKey here;
    here.first = k.first;
    const auto& name = memo.names[k.candidate->node];
    here.head = name.head;
    here.name_size = name.size;
    here.node = k.candidate->node;
    return less(m, here);
  };
  std::size_t out = 0;
  std::size_t j = 0;
  for (const auto& k : kept) {
    while (j < moved.size() && goes_before(moved[j], k)) {
      candidates[out++] = moved_candidates[moved[j].at];
      memo.sorted.emplace_back(moved[j].first, moved[j].node);
      ++j;
    }
    candidates[out++] = k.candidate;
    memo.sorted.emplace_back(k.first, k.candidate->node);
  }
  for (; j < moved.size(); ++j) {
    candidates[out++] = moved_candidates[moved[j].at];
    memo.sorted.emplace_back(moved[j].first, moved[j].node);
  }
#ifndef NDEBUG
  std::vector<OrderKey> all;
  for (const Candidate* c : candidates) {
    const auto& name = memo.names[c->node];
    CAPSIM_CHECK(name.known, "sort_candidates: a remembered candidate without its name");
    all.push_back({key_of(*c), name.head, name.size, c->node, 0});
  }
  CAPSIM_CHECK(out == candidates.size() && std::is_sorted(all.begin(), all.end(), less),
               "sort_candidates: the order from the remembered one is not sorted");
#endif
  return true;
}

// sort_candidates and interleave_pools over candidates or pointers to them.
template <typename Element>
void sort_candidates_of(std::vector<Element>& candidates, std::string_view version, const cluster::Cluster& cluster,
                        CandidateOrder* memo)
{
  // Sorted by keys worked out once, then the candidates are permuted into that order.
  using Key = OrderKey;
  const auto name_of = [&](cluster::NodeIndex n) { return packed_name(cluster.node(n).name); };
  if (memo != nullptr && memo->cluster != cluster.instance_id()) {
    *memo = CandidateOrder{};
    memo->cluster = cluster.instance_id();
  }
  const bool v113 = is_v113(version);
  const auto less = [&cluster](const Key& a, const Key& b) { return key_before(a, b, cluster); };
  if constexpr (std::is_pointer_v<Element>) {
    if (memo != nullptr && !memo->sorted.empty() && sort_from_memo(candidates, v113, *memo, name_of, less)) {
      return;
    }
  }
  // Kept between calls: a large allocation per poll has glibc consolidate its free lists.
  thread_local std::vector<Key> keys;
  keys.resize(candidates.size());
  constexpr std::size_t k_ahead = 8;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if constexpr (std::is_pointer_v<Element>) {
      // (Candidates are scattered: the fields read here are loaded well ahead, the node's name
      // entry a few candidates ahead, once the candidate's node index is in.)
      if (i + 4 * k_ahead < candidates.size()) {
        const Candidate* ahead = candidates[i + 4 * k_ahead];
        __builtin_prefetch(&ahead->node);
        __builtin_prefetch(&ahead->disruption_cost);
      }
    }
    const Candidate& c = candidate_of(candidates[i]);
    // A node's name never changes: its packed head is kept by node (the node's record is far
    // from the candidate's).
    CandidateOrder::Name name;
    if (memo != nullptr) {
      if (i + k_ahead < candidates.size() && candidate_of(candidates[i + k_ahead]).node < memo->names.size()) {
        __builtin_prefetch(&memo->names[candidate_of(candidates[i + k_ahead]).node]);
      }
      if (memo->names.size() <= c.node) {
        memo->names.resize(static_cast<std::size_t>(c.node) + 1);
      }
      if (!memo->names[c.node].known) {
        memo->names[c.node] = name_of(c.node);
      }
      name = memo->names[c.node];
    } else {
      name = name_of(c.node);
    }
    // (Field by field: a whole Key built on the stack and copied stalled on store forwarding.)
    Key& k = keys[i];
    k.first = v113 ? c.disruption_cost : -c.savings_ratio();
    k.head = name.head;
    k.name_size = name.size;
    k.node = c.node;
    k.at = static_cast<std::uint32_t>(i);
  }
  // A NaN key orders nothing: no remembered order is trusted with one.
  const bool ordered = std::none_of(keys.begin(), keys.end(), [](const Key& k) { return std::isnan(k.first); });
  const bool same = memo != nullptr && memo->keys.size() == keys.size()
                    && std::equal(keys.begin(), keys.end(), memo->keys.begin(), [](const Key& k, const auto& m) {
                         return k.first == m.first && k.node == m.second;
                       });
  if (same) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      keys[i].at = memo->order[i];
    }
  } else {
    if (memo != nullptr) {
      memo->keys.clear();
      for (const auto& k : keys) {
        memo->keys.emplace_back(k.first, k.node);
      }
    }
    if (memo == nullptr || !ordered || memo->sorted.empty()) {
      std::sort(keys.begin(), keys.end(), less);
    } else {
      // The comparison is a strict total order (the node index decides last), so the candidates
      // whose key stands keep their last sorted relative order (a node keeps its name): those
      // are taken in that order, the others sorted and merged in. A poll changes a few keys.
      auto& at = memo->at;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (at.size() <= keys[i].node) {
          at.resize(static_cast<std::size_t>(keys[i].node) + 1, 0);
        }
        at[keys[i].node] = static_cast<std::uint32_t>(i + 1);
      }
      thread_local std::vector<Key> kept;
      thread_local std::vector<Key> moved;
      thread_local std::vector<char> taken;
      kept.clear();
      moved.clear();
      taken.assign(keys.size(), 0);
      for (const auto& [first, node] : memo->sorted) {
        // (A node listed twice is taken once; the other entry is sorted in with the changed ones.)
        if (node < at.size() && at[node] != 0 && taken[at[node] - 1] == 0 && keys[at[node] - 1].first == first) {
          kept.push_back(keys[at[node] - 1]);
          taken[at[node] - 1] = 1;
        }
      }
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (taken[i] == 0) {
          moved.push_back(keys[i]);
        }
        at[keys[i].node] = 0;
      }
      std::sort(moved.begin(), moved.end(), less);
      std::merge(kept.begin(), kept.end(), moved.begin(), moved.end(), keys.begin(), less);
#ifndef NDEBUG
      CAPSIM_CHECK(std::is_sorted(keys.begin(), keys.end(), less), "sort_candidates: a merged order is not sorted");
#endif
    }
    if (memo != nullptr) {
      memo->order.clear();
      memo->sorted.clear();
      for (const auto& k : keys) {
        memo->order.push_back(k.at);
        if (ordered) {
          memo->sorted.emplace_back(k.first, k.node);
        }
      }
    }
  }
  // Position i takes the candidate at keys[i].at: pointers are gathered into a new list,
  // candidates themselves moved along each cycle of the permutation.
  if constexpr (std::is_pointer_v<Element>) {
    thread_local std::vector<Element> gathered;
    gathered.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      gathered[i] = candidates[keys[i].at];
    }
    candidates.swap(gathered);
  } else {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      std::size_t j = i;
      while (keys[j].at != i) {
        std::swap(candidates[j], candidates[keys[j].at]);
        const auto next = keys[j].at;
        keys[j].at = static_cast<std::uint32_t>(j);
        j = next;
      }
      keys[j].at = static_cast<std::uint32_t>(j);
    }
  }
}

template <typename Element>
void interleave_pools_of(const std::vector<Element>& sorted, std::vector<const Candidate*>& out)
{
  out.clear();
  out.reserve(sorted.size());
  const auto pool_of = [](const Element& e) { return candidate_of(e).pool; };
  if (std::all_of(sorted.begin(), sorted.end(), [&](const Element& e) { return pool_of(e) == pool_of(sorted.front()); })) {
    for (const auto& e : sorted) { // one NodePool: the sorted order
      out.push_back(&candidate_of(e));
    }
    return;
  }
  std::vector<std::uint32_t> pool_ids;
  for (const auto& e : sorted) {
    pool_ids.push_back(pool_of(e));
  }
  std::sort(pool_ids.begin(), pool_ids.end());
  pool_ids.erase(std::unique(pool_ids.begin(), pool_ids.end()), pool_ids.end());
  std::vector<std::vector<const Candidate*>> by_pool(pool_ids.size());
  for (const auto& e : sorted) {
    const auto pos = std::lower_bound(pool_ids.begin(), pool_ids.end(), pool_of(e)) - pool_ids.begin();
    by_pool[static_cast<std::size_t>(pos)].push_back(&candidate_of(e));
  }
  std::size_t longest = 0;
  for (const auto& v : by_pool) {
    longest = std::max(longest, v.size());
  }
  for (std::size_t i = 0; i < longest; ++i) {
    for (const auto& v : by_pool) {
      if (i < v.size()) {
        out.push_back(v[i]);
      }
    }
  }
}

} // namespace

void sort_candidates(std::vector<Candidate>& candidates, std::string_view version, const cluster::Cluster& cluster,
                     CandidateOrder* memo)
{
  sort_candidates_of(candidates, version, cluster, memo);
}

void sort_candidates(std::vector<const Candidate*>& candidates, std::string_view version,
                     const cluster::Cluster& cluster, CandidateOrder* memo)
{
  sort_candidates_of(candidates, version, cluster, memo);
}

void interleave_pools(const std::vector<Candidate>& sorted, std::vector<const Candidate*>& out)
{
  interleave_pools_of(sorted, out);
}

void interleave_pools(const std::vector<const Candidate*>& sorted, std::vector<const Candidate*>& out)
{
  interleave_pools_of(sorted, out);
}

std::vector<const Candidate*> interleave_pools(const std::vector<Candidate>& sorted)
{
  std::vector<const Candidate*> out;
  interleave_pools(sorted, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// AdmittedOrder

bool AdmittedOrder::list(CandidateChecks& checks, const cluster::Cluster& cluster, SimTime now, const DueFn& due,
                         std::vector<const Candidate*>& out)
{
  out.clear();
  const bool changes_known = checks.take_changes(m_changes);
  m_fresh.clear();
  if (!m_valid || m_cluster != cluster.instance_id() || !changes_known) {
    rebuild(checks, cluster, now, due);
  } else {
    // The changed nodes' keys leave the order (dropped below, in one pass); those admitted now
    // come back with the others that join, sorted and merged in in one pass too.
    ++m_call;
    bool dropped = false;
    std::sort(m_changes.begin(), m_changes.end());
    m_changes.erase(std::unique(m_changes.begin(), m_changes.end()), m_changes.end());
    for (const cluster::NodeIndex n : m_changes) {
      Slot& s = slot(n);
      ++s.generation;
      if (s.listed) {
        s.listed = false;
        s.dropped = m_call;
        dropped = true;
      }
      if (const auto* e = checks.entry_of(n)) {
        put_in(*e, cluster, now, due);
      }
    }
    if (dropped) {
      std::erase_if(m_order, [this](const Key& k) { return m_slots[k.node].dropped == m_call; });
    }
  }
  const auto later = [](const Waiting& a, const Waiting& b) { return a.due > b.due; };
  if (m_waiting.size() > 2 * checks.entries().size() + 16) {
    // Waits made void by later changes leave only as their time comes: with a long
    // consolidateAfter they would pile up, so they are swept out now and then (an entry has at
    // most one that stands).
    std::erase_if(m_waiting, [this](const Waiting& w) { return m_slots[w.node].generation != w.generation; });
    std::make_heap(m_waiting.begin(), m_waiting.end(), later);
  }
  while (m_valid && !m_waiting.empty() && m_waiting.front().due <= now) {
    std::pop_heap(m_waiting.begin(), m_waiting.end(), later);
    const Waiting w = m_waiting.back();
    m_waiting.pop_back();
    Slot& s = m_slots[w.node];
    if (s.generation == w.generation && !s.listed) {
      s.listed = true;
      m_fresh.push_back(s.key);
    }
  }
  if (!m_valid) {
    return false;
  }
  if (!m_fresh.empty()) {
    const auto before = [&cluster](const Key& a, const Key& b) { return key_before(a, b, cluster); };
    std::sort(m_fresh.begin(), m_fresh.end(), before);
    m_merged.resize(m_order.size() + m_fresh.size());
    std::merge(m_order.begin(), m_order.end(), m_fresh.begin(), m_fresh.end(), m_merged.begin(), before);
    m_order.swap(m_merged);
  }
  out.reserve(m_order.size());
  for (const Key& k : m_order) {
    out.push_back(&*checks.entry_of(k.node)->check.candidate);
  }
  return true;
}

void AdmittedOrder::rebuild(const CandidateChecks& checks, const cluster::Cluster& cluster, SimTime now,
                            const DueFn& due)
{
  if (m_cluster != cluster.instance_id()) {
    m_slots.clear(); // (another cluster's nodes, names and all)
  }
  m_cluster = cluster.instance_id();
  m_valid = true;
  for (const Key& k : m_order) {
    if (k.node < m_slots.size()) {
      m_slots[k.node].listed = false;
    }
  }
  m_order.clear();
  m_waiting.clear(); // (every wait is void: the generations need not move)
  for (const auto& e : checks.entries()) {
    put_in(e, cluster, now, due);
  }
}

void AdmittedOrder::put_in(const CandidateChecks::Entry& e, const cluster::Cluster& cluster, SimTime now,
                           const DueFn& due)
{
  if (!e.check.candidate) {
    return;
  }
  const SimTime at = due(e);
  if (at == k_never) {
    return;
  }
  const Candidate& c = *e.check.candidate;
  Slot& s = slot(c.node);
  if (!s.named) { // (a node's name never changes)
    const auto name = packed_name(cluster.node(c.node).name);
    s.key.head = name.head;
    s.key.name_size = name.size;
    s.key.node = c.node;
    s.named = true;
  }
  s.key.first = -c.savings_ratio();
  if (std::isnan(s.key.first)) {
    m_valid = false; // (no order is trusted with one: the caller sorts its own way)
    return;
  }
  if (now < at) {
    m_waiting.push_back({at, c.node, s.generation});
    std::push_heap(m_waiting.begin(), m_waiting.end(), [](const Waiting& a, const Waiting& b) { return a.due > b.due; });
    return;
  }
  s.listed = true;
  m_fresh.push_back(s.key);
}

AdmittedOrder::Slot& AdmittedOrder::slot(cluster::NodeIndex n)
{
  if (m_slots.size() <= n) {
    m_slots.resize(std::max<std::size_t>(static_cast<std::size_t>(n) + 1, 2 * m_slots.size()));
  }
  return m_slots[n];
}

} // namespace capsim::karpenter
