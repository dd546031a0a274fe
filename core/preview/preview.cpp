#include "core/preview/preview.hpp"

#include "core/base/quantity.hpp"
#include "core/cas/pod_groups.hpp"
#include "core/cas/predicates.hpp"
#include "core/cas/scale_down.hpp"
#include "core/cas/snapshot.hpp"
#include "core/catalog/load.hpp"
#include "core/karpenter/controller.hpp"
#include "core/karpenter/disruption_budget.hpp"
#include "core/karpenter/disruption_candidates.hpp"
#include "core/karpenter/disruption_consolidation.hpp"
#include "core/karpenter/launch.hpp"
#include "core/karpenter/static_capacity.hpp"
#include "core/sim/initial_node.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <ctime>
#include <map>

namespace capsim::preview {

namespace {

using cluster::k_none;
using cluster::NodeIndex;
using cluster::NodeLifecycle;
using cluster::NodeOwner;
using cluster::PodIndex;
using karpenter::Candidate;
using karpenter::Command;
using karpenter::Method;

// The preview launches and deletes nothing: every offering is available, decisions are not
// recorded (the preview builds its own verdicts).
class NoopActuator final : public sim::Actuator
{
public:
  cluster::NodeIndex launch(const sim::LaunchRequest& /*request*/) override { return k_none; }
  void delete_node(cluster::NodeIndex /*node*/, sim::DeleteReason /*reason*/) override {}
  [[nodiscard]] bool offering_available(std::string_view /*t*/, std::string_view /*z*/,
                                        std::string_view /*ct*/) const override
  {
    return true;
  }
  [[nodiscard]] std::uint64_t availability_version() const override { return 1; }
  void record(report::Decision /*decision*/) override {}
};

std::string label(const model::Labels& labels, std::string_view key)
{
  const auto it = labels.find(std::string(key));
  return it == labels.end() ? std::string() : it->second;
}

// How an engine sees the pods being deleted (metadata.deletionTimestamp) that are still on their
// nodes.
enum class TerminatingView : std::uint8_t {
  // model::Pod::terminating: they keep their room; only a StatefulSet's are moved, and none is
  // evicted, so none blocks.
  karpenter,
  // As any other pod, moved and counted in utilization, until they have been terminating longer
  // than their grace period plus 30 s (drain.IsPodLongTerminating): then they are left out.
  cluster_autoscaler,
};

// Cluster Autoscaler's PodLongTerminatingExtraThreshold.
constexpr Duration k_long_terminating_extra = 30 * k_second;

// The cluster as dumped: nodes in dump order with their real allocatable and timestamps,
// pods bound where kubectl says (in dump order), pending pods pending; deleted pods that are
// not on a node yet are left out.
cluster::Cluster build_cluster(const io::ClusterDump& dump, const catalog::Catalog& cat, SimTime now,
                               TerminatingView view, std::size_t* pending)
{
  const auto& sc = dump.scenario;
  cluster::Cluster c;
  std::map<std::string, NodeIndex> by_name;
  for (const auto& in : sc.nodes) {
    cluster::NodeState n = sim::node_from_initial(in, cat);
    const auto facts_it = dump.nodes.find(in.name);
    const io::DumpNodeFacts facts = facts_it != dump.nodes.end() ? facts_it->second : io::DumpNodeFacts{};
    n.created_at = facts.created >= 0 ? facts.created : now;
    n.registered_at = n.created_at;
    n.ready_at = facts.ready ? std::max(n.created_at, facts.ready_since) : -1;
    n.lifecycle = facts.deleting ? NodeLifecycle::deleting : facts.ready ? NodeLifecycle::ready : NodeLifecycle::registered;
    n.last_pod_event = n.created_at;
    if (!in.node_pool.empty()) {
      for (std::uint32_t i = 0; i < sc.node_pools.size(); ++i) {
        if (sc.node_pools[i].name == in.node_pool) {
          n.owner = NodeOwner::node_pool;
          n.pool = i;
          n.template_hash = sc.node_pools[i].template_hash;
          n.termination_grace_period = sc.node_pools[i].termination_grace_period;
          if (sc.node_pools[i].expire_after != k_never) {
            n.expire_at = n.created_at + sc.node_pools[i].expire_after;
          }
        }
      }
    } else if (!in.node_group.empty()) {
      for (std::uint32_t i = 0; i < sc.node_groups.size(); ++i) {
        if (sc.node_groups[i].name == in.node_group) {
          n.owner = NodeOwner::node_group;
          n.pool = i;
        }
      }
    }
    const std::string name = n.name;
    by_name[name] = c.add_node(std::move(n));
  }
  std::vector<SimTime> last_event(c.nodes().size(), -1);
  for (const auto& pod : sc.pods) {
    const std::string ns = pod.spec ? pod.spec->namespace_ : "default";
    const auto facts_it = dump.pods.find(io::pod_key(ns, pod.name));
    const io::DumpPodFacts facts = facts_it != dump.pods.end() ? facts_it->second : io::DumpPodFacts{};
    const auto node = pod.node_name.empty() ? by_name.end() : by_name.find(pod.node_name);
    const bool on_node = node != by_name.end() && c.node(node->second).alive();
    if (facts.deleting) {
      const Duration grace = pod.spec ? pod.spec->termination_grace_period : 30 * k_second;
      if (!on_node
          || (view == TerminatingView::cluster_autoscaler && facts.deletion + grace + k_long_terminating_extra < now)) {
        continue;
      }
    }
    model::Pod added = pod;
    added.terminating = facts.deleting && view == TerminatingView::karpenter;
    // Not healthy for its PDBs (the disruption controller's count): unready, or, in the CA view,
    // which moves it as any pod, being deleted.
    added.unready = facts.unready || (facts.deleting && view == TerminatingView::cluster_autoscaler);
    const PodIndex p = c.add_pod(std::move(added));
    const SimTime created = facts.created >= 0 ? facts.created : now;
    if (!on_node) {
      c.set_pending(p, created);
      ++*pending;
      continue;
    }
    const SimTime bound = facts.scheduled >= 0 ? facts.scheduled : facts.started >= 0 ? facts.started : created;
    c.bind(p, node->second, bound);
    auto& ps = c.pod_mut(p);
    ps.pending_since = created;
    ps.started_at = facts.started >= 0 ? facts.started : bound;
    last_event[node->second] = std::max(last_event[node->second], bound);
  }
  for (NodeIndex n = 0; n < c.nodes().size(); ++n) {
    c.node_mut(n).last_pod_event = std::max(c.node(n).created_at, last_event[n]);
  }
  return c;
}

double round6(double x)
{
  return std::round(x * 1e6) / 1e6;
}

// The stable code of a blocking sentence from the disruption module.
std::string classify(const std::string& why)
{
  if (why.find("do-not-disrupt") != std::string::npos) {
    return "do-not-disrupt";
  }
  if (why.find("PodDisruptionBudget") != std::string::npos || why.find("PDB") != std::string::npos
      || why.find("disruption budget of pod") != std::string::npos || why.find("pdb") != std::string::npos) {
    return "pdb";
  }
  if (why.find("fits nowhere") != std::string::npos || why.find("uninitialized node") != std::string::npos) {
    return "pod-fits-nowhere";
  }
  if (why.find("can't remove without creating") != std::string::npos) {
    return "needs-several-nodes";
  }
  if (why.find("SpotToSpot") != std::string::npos) {
    return "spot-to-spot";
  }
  if (why.find("minValues") != std::string::npos) {
    return "min-values";
  }
  if (why.find("price") != std::string::npos || why.find("cheaper") != std::string::npos) {
    return "price";
  }
  if (why.find("nominated") != std::string::npos) {
    return "nominated";
  }
  return "other";
}

Replacement describe_replacement(const karpenter::NewNodeClaim& claim, const model::KarpenterSettings& settings)
{
  Replacement r;
  for (const auto* t : claim.instance_types) {
    r.instance_types.push_back(t->name);
  }
  karpenter::LaunchOptions opts;
  opts.max_instance_types = settings.max_instance_types;
  opts.min_values_best_effort = settings.min_values_best_effort;
  const auto d = karpenter::choose_launch(claim, opts);
  if (d.ok) {
    r.instance_type = d.instance_type->name;
    r.zone = d.zone;
    r.capacity_type = d.capacity_type;
    r.price_per_hour = d.price_per_hour;
  }
  return r;
}

// The Karpenter pass.
class KarpenterPreview
{
public:
  KarpenterPreview(const io::ClusterDump& dump, const catalog::Catalog& cat, const cluster::Cluster& cluster, SimTime now)
    : m_dump(dump), m_sc(dump.scenario), m_cluster(cluster), m_now(now), m_ctl(m_sc, cat, m_sc.settings.seed),
      m_pdbs(m_sc.pdbs, cluster)
  {
  }

  void run(PreviewResult& out);

private:
  [[nodiscard]] karpenter::SimulationContext context()
  {
    karpenter::SimulationContext ctx;
    ctx.controller = &m_ctl;
    ctx.cluster = &m_cluster;
    ctx.actuator = &m_act;
    ctx.pdbs = &m_pdbs;
    ctx.now = m_now;
    ctx.version = m_sc.settings.karpenter.version;
    ctx.spot_to_spot = m_sc.settings.karpenter.spot_to_spot_consolidation;
    return ctx;
  }

  [[nodiscard]] const std::string& version() const { return m_sc.settings.karpenter.version; }

  void keep(NodeVerdict& v, std::string code, std::string reason)
  {
    v.decision = "keep";
    v.reason_code = std::move(code);
    v.reason = std::move(reason);
  }

  std::optional<Command> multi_node(std::vector<Candidate> cands);
  // Why the node is drifted, "" when it is not (see docs/preview.md for what is detectable).
  [[nodiscard]] std::string drift_reason(NodeIndex n) const;
  void drift(std::vector<Candidate> drifted, std::vector<NodeVerdict>& verdicts, const std::vector<std::size_t>& slot,
             std::optional<Command>& first);
  void apply(const Command& cmd, std::vector<NodeVerdict>& verdicts, const std::vector<std::size_t>& slot,
             PreviewResult& out);

  const io::ClusterDump& m_dump;
  const model::Scenario& m_sc;
  const cluster::Cluster& m_cluster;
  SimTime m_now;
  karpenter::KarpenterController m_ctl;
  NoopActuator m_act;
  karpenter::PdbLimits m_pdbs;
};

// Multi-node consolidation over the budget-filtered, sorted candidates (at most 100), as the
// disruption controller runs it (karpenter::first_n_consolidation).
std::optional<Command> KarpenterPreview::multi_node(std::vector<Candidate> cands)
{
  auto budget = karpenter::budget_mapping(m_sc.node_pools, m_cluster, model::DisruptionReason::underutilized, m_now);
  karpenter::sort_candidates(cands, version(), m_cluster);
  std::vector<Candidate> disruptable;
  for (auto& c : cands) {
    if (budget[c.pool] > 0) {
      --budget[c.pool];
      disruptable.push_back(std::move(c));
    }
  }
  const std::size_t max = std::min(disruptable.size(), karpenter::k_multi_node_max_candidates);
  const karpenter::OfferingAvailable available = [](const catalog::InstanceType&, const catalog::Offering&) {
    return true;
  };
  return karpenter::first_n_consolidation(context(), disruptable, max, available);
}

std::string KarpenterPreview::drift_reason(NodeIndex n) const
{
  const auto& node = m_cluster.node(n);
  const auto& pool = m_sc.node_pools[node.pool];
  // RequirementsDrifted: the node's labels no longer satisfy the NodePool's requirements.
  if (!model::Requirements::labels_compatible(node.labels, pool.requirements, false)) {
    return "its labels no longer satisfy the requirements of NodePool " + pool.name;
  }
  const auto facts = m_dump.nodes.find(node.name);
  if (facts == m_dump.nodes.end()) {
    return {};
  }
  const auto& f = facts->second;
  // Static drift: the NodeClaim's hash (copied to the node at registration) differs from the
  // owner's current hash, compared only under the same hash version, as upstream.
  const auto differs = [](const std::string& mine, const std::string& mine_version, const io::DumpHash* now) {
    return now != nullptr && !mine.empty() && !now->hash.empty() && mine_version == now->version && mine != now->hash;
  };
  const auto pool_hash = m_dump.node_pool_hashes.find(pool.name);
  if (differs(f.node_pool_hash, f.node_pool_hash_version,
              pool_hash == m_dump.node_pool_hashes.end() ? nullptr : &pool_hash->second)) {
    return fmt::format("NodePool {} changed since the node was created (karpenter.sh/nodepool-hash {} on the node, {} "
                       "on the NodePool)",
                       pool.name, f.node_pool_hash, pool_hash->second.hash);
  }
  const auto class_hash = m_dump.node_class_hashes.find(f.node_class);
  if (differs(f.node_class_hash, f.node_class_hash_version,
              class_hash == m_dump.node_class_hashes.end() ? nullptr : &class_hash->second)) {
    return fmt::format("EC2NodeClass {} changed since the node was created (karpenter.k8s.aws/ec2nodeclass-hash {} on "
                       "the node, {} on the EC2NodeClass)",
                       f.node_class, f.node_class_hash, class_hash->second.hash);
  }
  return {};
}

// Drift (drift.go): empty candidates first, then by name (the Drifted condition's time is on
// the NodeClaim, which the dumps do not have); one candidate per command, budgeted, replaced by
// whatever scheduling needs (any number of NodeClaims, whatever the price).
void KarpenterPreview::drift(std::vector<Candidate> drifted, std::vector<NodeVerdict>& verdicts,
                             const std::vector<std::size_t>& slot, std::optional<Command>& first)
{
  std::sort(drifted.begin(), drifted.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.reschedulable.empty() != b.reschedulable.empty()) {
      return a.reschedulable.empty();
    }
    return m_cluster.node(a.node).name < m_cluster.node(b.node).name;
  });
  const auto budget = karpenter::budget_mapping(m_sc.node_pools, m_cluster, model::DisruptionReason::drifted, m_now);
  const auto ctx = context();
  for (auto& c : drifted) {
    auto& v = verdicts[slot[c.node]];
    const std::string why = drift_reason(c.node);
    if (budget[c.pool] == 0) {
      keep(v, "budget",
           "drifted (" + why + "), but the disruption budget of NodePool " + m_sc.node_pools[c.pool].name
               + " allows no more Drifted disruptions now");
      continue;
    }
    auto sim = karpenter::simulate_scheduling(ctx, std::span(&c, 1), false);
    if (!sim.failure.empty()) {
      keep(v, classify(sim.failure), "drifted (" + why + "), but " + sim.failure);
      continue;
    }
    Command cmd;
    cmd.method = Method::drift;
    cmd.candidates.push_back(c);
    cmd.replacements = std::move(sim.result.claims);
    cmd.existing = std::move(sim.result.existing);
    cmd.savings_per_hour = karpenter::estimated_savings(cmd, nullptr);
    v.decision = cmd.is_replace() ? "replace" : "delete";
    v.method = "drift";
    v.saving_per_hour = cmd.savings_per_hour;
    v.reason_code = "drift";
    if (cmd.is_replace()) {
      v.replacement = describe_replacement(cmd.replacements.front(), m_sc.settings.karpenter);
    }
    v.reason = fmt::format("drifted: {}; {}", why,
                           cmd.is_replace() ? fmt::format("replaced by {} new node(s) first", cmd.replacements.size())
                                            : std::string("its pods fit on other nodes"));
    if (!first) {
      first = std::move(cmd);
    }
  }
}

void KarpenterPreview::apply(const Command& cmd, std::vector<NodeVerdict>& verdicts, const std::vector<std::size_t>& slot,
                             PreviewResult& out)
{
  KarpenterCommand kc;
  kc.method = std::string(karpenter::to_string(cmd.method));
  kc.action = cmd.is_replace() ? "replace" : "delete";
  double total_price = 0;
  for (const auto& c : cmd.candidates) {
    kc.nodes.push_back(m_cluster.node(c.node).name);
    total_price += c.price;
  }
  if (cmd.is_replace()) {
    kc.replacement = describe_replacement(cmd.replacements.front(), m_sc.settings.karpenter);
  }
  kc.saving_per_hour = cmd.savings_per_hour;
  std::size_t moved = 0;
  for (const auto& c : cmd.candidates) {
    moved += c.reschedulable.size();
  }
  kc.detail = cmd.method == Method::emptiness ? fmt::format("delete {} empty node(s)", cmd.candidates.size())
              : cmd.method == Method::drift
                  ? fmt::format("drifted: {}; {}", drift_reason(cmd.candidates.front().node),
                                cmd.is_replace() ? fmt::format("replace with {} new node(s); {} pod(s) move",
                                                               cmd.replacements.size(), moved)
                                                 : fmt::format("delete; {} pod(s) fit on other nodes", moved))
                  : cmd.is_replace() ? fmt::format("replace {} node(s) with one {}; {} pod(s) move", cmd.candidates.size(),
                                                   kc.replacement->instance_type, moved)
                                     : fmt::format("delete {} node(s); {} pod(s) fit on other nodes", cmd.candidates.size(), moved);
  for (const auto& c : cmd.candidates) {
    auto& v = verdicts[slot[c.node]];
    v.decision = kc.action;
    v.method = kc.method;
    v.in_next_command = true;
    v.replacement = kc.replacement;
    // Each node's share of the command's saving, by price.
    v.saving_per_hour = total_price > 0 ? cmd.savings_per_hour * c.price / total_price : 0;
    v.reason_code = kc.method;
    v.reason = "next command: " + kc.detail;
  }
  out.next_command = std::move(kc);
}

void KarpenterPreview::run(PreviewResult& out)
{
  std::vector<NodeVerdict>& verdicts = out.karpenter;
  std::vector<std::size_t> slot(m_cluster.nodes().size(), 0);
  karpenter::CandidateContext cctx;
  cctx.cluster = &m_cluster;
  cctx.pools = &m_ctl.node_pools();
  cctx.pdbs = &m_pdbs;
  cctx.now = m_now;
  cctx.in_queue = [](NodeIndex) { return false; };

  std::vector<Candidate> empty;
  std::vector<Candidate> consolidatable;
  std::vector<Candidate> drifted;
  for (NodeIndex n = 0; n < m_cluster.nodes().size(); ++n) {
    const auto& node = m_cluster.node(n);
    NodeVerdict v;
    v.name = node.name;
    v.instance_type = label(node.labels, model::labels::k_instance_type);
    v.zone = node.zone;
    v.capacity_type = node.capacity_type;
    v.price_per_hour = node.price_per_hour;
    v.pods = node.pods.size();
    slot[n] = verdicts.size();
    if (node.owner == NodeOwner::node_pool) {
      v.pool = m_sc.node_pools[node.pool].name;
    } else if (node.owner == NodeOwner::node_group) {
      v.pool = m_sc.node_groups[node.pool].name;
    }
    verdicts.push_back(v);
    auto& vv = verdicts.back();
    if (const auto np = node.labels.find(std::string(model::labels::k_nodepool));
        node.owner != NodeOwner::node_pool && np != node.labels.end()) {
      keep(vv, "nodepool-not-found", "labelled karpenter.sh/nodepool=" + np->second + ", a NodePool that is not in the dump");
      continue;
    }
    if (node.owner != NodeOwner::node_pool) {
      keep(vv, "not-karpenter",
           node.owner == NodeOwner::node_group
               ? "not a Karpenter node: it belongs to EKS node group " + v.pool + " (no karpenter.sh/nodepool label)"
               : "not a Karpenter node (no karpenter.sh/nodepool label)");
      continue;
    }
    const auto& pool = m_sc.node_pools[node.pool];
    if (node.lifecycle == NodeLifecycle::deleting) {
      keep(vv, "deleting", "already being deleted (metadata.deletionTimestamp is set)");
      continue;
    }
    if (node.lifecycle != NodeLifecycle::ready) {
      keep(vv, "not-initialized", "not initialized (the node is not Ready)");
      continue;
    }
    if (node.expire_at >= 0 && node.expire_at <= m_now) {
      vv.decision = "delete";
      vv.method = "expiration";
      vv.reason_code = "expired";
      vv.reason = fmt::format("expireAfter ({}) has elapsed: Karpenter deletes the node at once (forceful, not "
                              "budgeted) and provisions capacity for its pods; saving not estimated",
                              format_duration(pool.expire_after));
      continue;
    }
    if (node.instance_type == nullptr) {
      keep(vv, "unknown-instance-type",
           "instance type '" + v.instance_type + "' is not in the catalog (price and capacity unknown)");
      continue;
    }
    const std::string drift_why = drift_reason(n);
    auto check = karpenter::make_candidate(
        cctx, n, drift_why.empty() ? karpenter::DisruptionClass::graceful : karpenter::DisruptionClass::eventual);
    if (!check.candidate) {
      std::string why = check.blocked.empty() ? "not a disruption candidate" : check.blocked;
      // The disruption module states a do-not-disrupt deadline in simulated time; ours is UTC.
      if (const auto until = why.find(" (until t="); until != std::string::npos) {
        why.resize(until);
        for (const PodIndex p : node.pods) {
          const auto& ps = m_cluster.pod(p);
          if (cluster::do_not_disrupt_active(ps, m_now)) {
            why += " (until " + format_utc(ps.started_at + ps.pod().spec->do_not_disrupt) + ")";
            break;
          }
        }
      }
      keep(vv, classify(why), drift_why.empty() ? why : "drifted (" + drift_why + "), but " + why);
      continue;
    }
    auto& c = *check.candidate;
    if (pool.replicas) {
      // A static NodePool: never consolidated; a drifted node is replaced by a node from the
      // template (StaticDrift), budgets allowing, with no scheduling simulation.
      vv.pods = c.reschedulable.size();
      if (drift_why.empty()) {
        keep(vv, "static", "NodePool " + pool.name + " is static (spec.replicas): Karpenter never consolidates its nodes");
      } else if (karpenter::budget_mapping(m_sc.node_pools, m_cluster, model::DisruptionReason::drifted, m_now)[c.pool]
                 == 0) {
        keep(vv, "budget",
             "drifted (" + drift_why + "), but the disruption budget of NodePool " + pool.name
                 + " allows no more Drifted disruptions now");
      } else {
        vv.decision = "replace";
        vv.method = "drift";
        vv.reason_code = "drift";
        vv.replacement = describe_replacement(karpenter::static_node_claim(m_ctl.node_pools()[c.pool]),
                                              m_sc.settings.karpenter);
        vv.reason = fmt::format("drifted: {}; static NodePool {}: replaced by a node from its template first",
                                drift_why, pool.name);
      }
      continue;
    }
    if (!drift_why.empty()) {
      // Emptiness runs before drift: an empty, consolidatable drifted node is deleted as empty.
      const bool empty_now = pool.consolidate_after != k_never && karpenter::is_empty(c, version())
                             && m_now >= karpenter::consolidatable_at(node, pool);
      if (!empty_now) {
        vv.pods = c.reschedulable.size();
        drifted.push_back(std::move(c));
        continue;
      }
    }
    vv.pods = c.reschedulable.size();
    if (pool.consolidate_after == k_never) {
      keep(vv, "consolidation-disabled", "NodePool " + pool.name + " has consolidateAfter: Never");
      continue;
    }
    const bool is_empty = karpenter::is_empty(c, version());
    const SimTime at = karpenter::consolidatable_at(node, pool);
    const bool due = m_now >= at;
    if (!is_empty && c.instance_type == nullptr) {
      keep(vv, "unknown-instance-type", "instance type " + v.instance_type + " is not offered by NodePool " + pool.name);
      continue;
    }
    if (!is_empty && pool.consolidation_policy == model::ConsolidationPolicy::when_empty) {
      keep(vv, "when-empty", "NodePool " + pool.name + " has consolidationPolicy WhenEmpty and the node is not empty");
      continue;
    }
    if (!due) {
      keep(vv, "consolidate-after",
           fmt::format("consolidateAfter ({}) has not elapsed since the last pod event ({}): consolidatable in {}",
                       format_duration(pool.consolidate_after), format_utc(std::max(node.last_pod_event, node.ready_at)),
                       format_duration(at - m_now)));
      continue;
    }
    (is_empty ? empty : consolidatable).push_back(std::move(c));
  }

  // Emptiness: every empty candidate within the Empty budgets, in one command.
  std::optional<Command> first;
  if (!empty.empty()) {
    auto budget = karpenter::budget_mapping(m_sc.node_pools, m_cluster, model::DisruptionReason::empty, m_now);
    karpenter::sort_candidates(empty, version(), m_cluster);
    Command cmd;
    cmd.method = Method::emptiness;
    for (auto& c : empty) {
      if (budget[c.pool] == 0) {
        keep(verdicts[slot[c.node]], "budget",
             "empty, but the disruption budget of NodePool " + m_sc.node_pools[c.pool].name
                 + " allows no more Empty disruptions now");
        continue;
      }
      --budget[c.pool];
      cmd.candidates.push_back(c);
    }
    if (!cmd.candidates.empty()) {
      cmd.savings_per_hour = karpenter::estimated_savings(cmd, nullptr);
      first = std::move(cmd);
    }
  }
  // Drift next (every drifted node gets its verdict), then multi-node.
  drift(std::move(drifted), verdicts, slot, first);
  if (!first) {
    first = multi_node(consolidatable);
  }
  std::vector<bool> in_first(m_cluster.nodes().size(), false);
  if (first) {
    for (const auto& c : first->candidates) {
      in_first[c.node] = true;
    }
  }

  // Single-node consolidation for every other candidate, in Karpenter's order; the first valid
  // one is the next command when neither emptiness nor multi-node produced one.
  const auto budget = karpenter::budget_mapping(m_sc.node_pools, m_cluster, model::DisruptionReason::underutilized, m_now);
  karpenter::sort_candidates(consolidatable, version(), m_cluster);
  const auto ordered = karpenter::interleave_pools(consolidatable);
  const auto ctx = context();
  std::optional<Command> first_single;
  for (const Candidate* next : ordered) {
    const Candidate& c = *next;
    if (in_first[c.node]) {
      continue;
    }
    auto& v = verdicts[slot[c.node]];
    if (budget[c.pool] == 0) {
      keep(v, "budget",
           "the disruption budget of NodePool " + m_sc.node_pools[c.pool].name
               + " allows no more Underutilized disruptions now");
      continue;
    }
    auto outcome = karpenter::compute_consolidation(ctx, std::span(&c, 1), Method::single_node);
    if (!outcome.command) {
      keep(v, classify(outcome.rejected), outcome.rejected);
      continue;
    }
    auto& cmd = *outcome.command;
    cmd.savings_per_hour = karpenter::estimated_savings(cmd, nullptr);
    v.decision = cmd.is_replace() ? "replace" : "delete";
    v.method = "single-node";
    v.saving_per_hour = cmd.savings_per_hour;
    v.reason_code = "single-node";
    if (cmd.is_replace()) {
      v.replacement = describe_replacement(cmd.replacements.front(), m_sc.settings.karpenter);
      v.reason = fmt::format("single-node consolidation: replace with {} ({} option(s) cheaper than ${:.4f}/h); {} "
                             "pod(s) move",
                             v.replacement->instance_type, v.replacement->instance_types.size(), c.price,
                             c.reschedulable.size());
    } else {
      v.reason = fmt::format("single-node consolidation: delete; its {} pod(s) fit on other nodes", c.reschedulable.size());
    }
    if (!first && !first_single) {
      first_single = std::move(cmd);
    }
  }
  if (!first && first_single) {
    first = std::move(first_single);
  }
  if (first) {
    apply(*first, verdicts, slot, out);
  }
  for (auto& v : verdicts) {
    v.saving_per_hour = round6(v.saving_per_hour);
  }
  if (out.next_command) {
    out.next_command->saving_per_hour = round6(out.next_command->saving_per_hour);
  }
  for (const auto& p : m_sc.node_pools) {
    if (p.consolidation_policy == model::ConsolidationPolicy::balanced) {
      out.warnings.push_back("NodePool " + p.name
                             + " has consolidationPolicy Balanced: the preview applies WhenEmptyOrUnderutilized's rules "
                               "(Balanced's score is not previewed)");
    }
  }
}

std::string block_code(cas::BlockReason b)
{
  switch (b) {
  case cas::BlockReason::none: return "movable";
  case cas::BlockReason::not_replicated: return "not-replicated";
  case cas::BlockReason::kube_system: return "kube-system";
  case cas::BlockReason::not_safe_to_evict: return "not-safe-to-evict";
  case cas::BlockReason::local_storage: return "local-storage";
  case cas::BlockReason::pdb: return "pdb";
  }
  return "other";
}

// The Cluster Autoscaler pass: ClusterAutoscaler::scale_down's eligibility and removal
// simulation over one snapshot, without the unneeded-time wait.
void cluster_autoscaler(const model::Scenario& sc, const cluster::Cluster& cluster, const io::ClusterDump& dump,
                        SimTime now, PreviewResult& out)
{
  const auto& settings = sc.settings.cluster_autoscaler;
  out.ca_threshold = settings.scale_down_utilization_threshold;
  out.ca_unneeded_time = settings.scale_down_unneeded_time;
  cas::Snapshot snapshot;
  for (NodeIndex i = 0; i < cluster.nodes().size(); ++i) {
    const auto& n = cluster.node(i);
    cas::SnapNode sn;
    sn.state = &n;
    sn.requested = n.requested;
    for (const PodIndex p : n.pods) {
      sn.pods.push_back(&cluster.pod(p).pod());
    }
    sn.group = n.owner != NodeOwner::static_node ? static_cast<std::int32_t>(n.pool) : -1;
    sn.cluster_node = i;
    sn.real = true;
    sn.blocked = n.lifecycle == NodeLifecycle::deleting || n.lifecycle != NodeLifecycle::ready;
    snapshot.add_node(std::move(sn));
  }
  cas::PdbTracker pdbs(sc.pdbs, cluster);
  const cas::DrainOptions drain{settings.skip_nodes_with_local_storage, settings.skip_nodes_with_system_pods,
                                settings.blocking_system_pod_disruption_timeout};
  cas::HintingSimulator sim;
  cas::NodeOrdering ordering;
  // Node group sizes (NodePools have no minimum).
  std::map<std::uint32_t, std::int32_t> group_size;
  for (const auto& n : cluster.nodes()) {
    if (n.owner == NodeOwner::node_group && n.alive()) {
      ++group_size[n.pool];
    }
  }
  const auto pod_label = [](const model::Pod& p) {
    return (p.spec ? p.spec->namespace_ + "/" : std::string()) + p.name;
  };
  const auto created = [&](const model::Pod& p) {
    const auto it = dump.pods.find(io::pod_key(p.spec ? p.spec->namespace_ : "default", p.name));
    return it != dump.pods.end() && it->second.created >= 0 ? it->second.created : now;
  };
  for (std::size_t i = 0; i < snapshot.size(); ++i) {
    const auto& sn = snapshot.node(i);
    const auto& n = *sn.state;
    NodeVerdict v;
    v.name = n.name;
    v.instance_type = label(n.labels, model::labels::k_instance_type);
    v.zone = n.zone;
    v.capacity_type = n.capacity_type;
    v.price_per_hour = n.price_per_hour;
    v.pods = sn.pods.size();
    if (n.owner == NodeOwner::node_pool) {
      v.pool = sc.node_pools[n.pool].name;
    } else if (n.owner == NodeOwner::node_group) {
      v.pool = sc.node_groups[n.pool].name;
    }
    const cas::Utilization u = cas::node_utilization(n.requested, n.allocatable);
    v.utilization = round6(u.value);
    v.cpu_utilization = round6(u.cpu);
    v.memory_utilization = round6(u.memory);
    v.decision = "keep";
    const auto done = [&](std::string code, std::string reason) {
      v.reason_code = std::move(code);
      v.reason = std::move(reason);
      out.cluster_autoscaler.push_back(v);
    };
    if (n.owner == NodeOwner::static_node) {
      done("not-autoscaled", "not in a node group (no eks.amazonaws.com/nodegroup or karpenter.sh/nodepool label)");
      continue;
    }
    if (sn.blocked) {
      done("not-ready", "not Ready or already being deleted");
      continue;
    }
    const double threshold = u.gpu_node ? settings.scale_down_gpu_utilization_threshold : settings.scale_down_utilization_threshold;
    if (!u.valid || u.value > threshold) {
      done("above-threshold", fmt::format("utilization {:.0f}% (cpu {:.0f}%, memory {:.0f}%) is above the scale-down "
                                          "threshold {:.0f}%",
                                          100 * u.value, 100 * u.cpu, 100 * u.memory, 100 * threshold));
      continue;
    }
    if (n.owner == NodeOwner::node_group && group_size[n.pool] <= sc.node_groups[n.pool].min_size) {
      done("min-size", fmt::format("node group {} is at its minSize ({})", v.pool, sc.node_groups[n.pool].min_size));
      continue;
    }
    const std::vector<const model::Pod*> to_move = sn.pods.list();
    std::string blocked;
    std::string blocked_code;
    for (const auto* p : to_move) {
      const auto b = cas::drainability(*p, created(*p), now, drain, pdbs);
      if (b != cas::BlockReason::none) {
        blocked_code = block_code(b);
        blocked = fmt::format("pod {} blocks the drain: {}", pod_label(*p), cas::to_string(b));
        break;
      }
    }
    if (!blocked.empty()) {
      done(blocked_code, blocked);
      continue;
    }
    const std::size_t mark = snapshot.mark();
    for (const auto* p : to_move) {
      snapshot.remove_pod(i, *p);
    }
    snapshot.set_blocked(i, true);
    snapshot.set_ignore_node_name(true);
    const auto dest = sim.try_schedule_pods(
        snapshot, to_move, true,
        [&](std::size_t j) { return j != i && snapshot.node(j).real && !snapshot.node(j).blocked; }, ordering);
    snapshot.set_ignore_node_name(false);
    std::size_t failed = to_move.size();
    for (std::size_t k = 0; k < to_move.size(); ++k) {
      if (k >= dest.size() || !dest[k]) {
        failed = k;
        break;
      }
    }
    if (failed < to_move.size()) {
      snapshot.revert(mark);
      done("no-place-to-move", fmt::format("pod {} fits on no other node", pod_label(*to_move[failed])));
      continue;
    }
    snapshot.set_removed(i, true);
    pdbs.remove_pods(to_move);
    if (n.owner == NodeOwner::node_group) {
      --group_size[n.pool];
    }
    v.decision = "scale-down";
    v.saving_per_hour = round6(n.price_per_hour);
    std::vector<std::string> moves;
    for (std::size_t k = 0; k < to_move.size(); ++k) {
      moves.push_back(pod_label(*to_move[k]) + " -> " + snapshot.node(*dest[k]).state->name);
    }
    done(to_move.empty() ? "empty" : "underutilized",
         to_move.empty() ? fmt::format("empty (utilization {:.0f}%)", 100 * u.value)
                         : fmt::format("utilization {:.0f}% <= {:.0f}%; pods move: {}", 100 * u.value, 100 * threshold,
                                       fmt::join(moves, ", ")));
  }
}

} // namespace

std::string format_utc(SimTime unix_ms)
{
  const std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string out = fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                                tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (unix_ms % 1000 != 0) {
    out += fmt::format(".{:03d}", static_cast<int>(unix_ms % 1000));
  }
  return out + "Z";
}

PreviewResult run_preview(const io::ClusterDump& dump, const PreviewOptions& options)
{
  const auto& sc = dump.scenario;
  PreviewResult out;
  out.now = options.now >= 0 ? options.now : std::max<SimTime>(dump.newest, 0);
  out.region = sc.settings.region;
  out.catalog = options.catalog_dir.empty() ? "default" : options.catalog_dir;
  out.warnings = dump.warnings;
  const catalog::Catalog cat =
      catalog::load_catalog(sc.settings.region, options.catalog_dir, sc.location_of(sc.settings.region_location));
  const cluster::Cluster cluster = build_cluster(dump, cat, out.now, TerminatingView::karpenter, &out.pending_pods);
  for (const auto& p : cluster.pods()) {
    out.pods += p.pod().is_daemon || p.pod().terminating ? 0 : 1;
  }
  for (const auto& n : cluster.nodes()) {
    if (n.instance_type == nullptr && !label(n.labels, model::labels::k_instance_type).empty()) {
      out.warnings.push_back(fmt::format("node {}: instance type '{}' is not in the {} catalog for {} (price 0)", n.name,
                                         label(n.labels, model::labels::k_instance_type), out.catalog, out.region));
    }
  }
  if (out.pending_pods > 0) {
    out.warnings.push_back(fmt::format("{} pod(s) are pending: Karpenter's simulations place them too", out.pending_pods));
  }
  KarpenterPreview(dump, cat, cluster, out.now).run(out);
  // (Built again only when it differs: some pod on a node is being deleted.)
  const bool terminating = std::any_of(cluster.pods().begin(), cluster.pods().end(),
                                       [](const cluster::PodState& p) { return p.pod().terminating; });
  if (terminating) {
    std::size_t pending = 0;
    cluster_autoscaler(sc, build_cluster(dump, cat, out.now, TerminatingView::cluster_autoscaler, &pending), dump,
                       out.now, out);
  } else {
    cluster_autoscaler(sc, cluster, dump, out.now, out);
  }
  const auto by_name = [](const NodeVerdict& a, const NodeVerdict& b) { return a.name < b.name; };
  std::sort(out.karpenter.begin(), out.karpenter.end(), by_name);
  std::sort(out.cluster_autoscaler.begin(), out.cluster_autoscaler.end(), by_name);
  return out;
}

} // namespace capsim::preview
