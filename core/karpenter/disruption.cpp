#include "core/karpenter/disruption.hpp"

#include "core/base/quantity.hpp"
#include "core/karpenter/controller.hpp"
#include "core/karpenter/disruption_budget.hpp"
#include "core/karpenter/disruption_candidates.hpp"
#include "core/karpenter/disruption_consolidation.hpp"
#include "core/karpenter/static_capacity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace capsim::karpenter {

namespace {

using cluster::k_none;
using cluster::NodeIndex;
using cluster::NodeLifecycle;
using cluster::PodIndex;

constexpr Duration k_poll = 10 * k_second; // pollingPeriod

// What one method did in a loop.
enum class Outcome : std::uint8_t { nothing, pending, started };

// The disruption controller's state between polls: consolidation state stamps, the command
// waiting for validation, the orchestration queue and the --explain dedupe.
class DisruptionController
{
public:
  explicit DisruptionController(KarpenterController& ctl) : m_ctl(ctl) {}

  // One call of KarpenterController's disruption hook. Returns true when a command started.
  bool step(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);

private:
  struct Pending
  {
    Command cmd;
    SimTime due = 0;
  };

  struct InFlight
  {
    Command cmd;
    std::vector<NodeIndex> replacements;
    SimTime started = 0;
  };

  // Per-step inputs.
  void begin(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator);
  void observe_changes();
  std::uint64_t consolidation_state();
  bool is_consolidated(Method m) { return m_marked[static_cast<std::size_t>(m)] == consolidation_state(); }
  void mark_consolidated(Method m) { m_marked[static_cast<std::size_t>(m)] = consolidation_state(); }

  // Methods, in upstream order, and the loop over them.
  bool run_methods(std::size_t first);
  Outcome run_method(Method m);
  Outcome emptiness();
  Outcome drift();
  // StaticDrift (disruption/staticdrift.go), which runs before Drift: the static candidates
  // among `cands` are removed from it and, budgets and limits.nodes allowing, each replaced by
  // a NodeClaim from its NodePool's template (no scheduling simulation).
  Outcome static_drift(std::vector<Candidate>& cands);
  Outcome multi_node();
  Outcome single_node();
  std::optional<Command> first_n_consolidation(std::span<const Candidate> candidates, std::size_t max);

  // GetCandidates for a graceful method (emptiness, consolidation): eligible nodes that pass its
  // ShouldDisrupt filter, into `out` as pointers into this step's graceful answers (valid until
  // they are refreshed: the next step, or a command started or abandoned). Records the reason a
  // node is kept when it says something useful about this method.
  void candidates(Method m, std::vector<const Candidate*>& out, bool record_keeps = true);
  // Drift's, made anew as the eventual class (few nodes drift).
  void drift_candidates(std::vector<Candidate>& out);
  // Whether a node's answer is one of method m's candidates; records why not, as candidates() does.
  bool admit(Method m, NodeIndex n, const CandidateCheck& check, bool record_keeps);
  // The same for a graceful method's kept answer, recording nothing: from when it admits the
  // candidate is kept in the entry (a poll asks it of every node, and few change between polls).
  bool admit_quietly(Method m, const CandidateChecks::Entry& e);
  // When the entry's candidate becomes one of method m's candidates (k_never: not while the
  // entry stands), as admit_quietly keeps it in the entry.
  SimTime admitted_from(Method m, const CandidateChecks::Entry& e);
  // This step's graceful answers, refreshed on first use.
  const std::vector<CandidateChecks::Entry>& graceful_entries();
#ifndef NDEBUG
  // Checks that `listed` is method m's candidates listed afresh and sorted.
  void check_sorted_listing(Method m, const std::vector<const Candidate*>& listed, const char* what);
#endif
  bool should_disrupt(Method m, const Candidate& c, std::string* why); // why: the reason, when not null
  // ShouldDisrupt for a graceful method apart from consolidateAfter: what the candidate and its
  // node's record (as its stamp has it) decide.
  bool may_disrupt(Method m, const Candidate& c, std::string* why);
  bool drifted(NodeIndex n);
  SimTime drift_time(NodeIndex n) const;
  template <typename Element>
  std::vector<PoolTotals> pool_totals(std::span<const Element> candidates) const;
  bool any_balanced() const;

  // Validation (validation.go) and orchestration (queue.go).
  bool validate(Command& cmd, std::string* why);
  bool start(Command cmd);
  void process_queue();
  void abandon(const InFlight& f, const std::string& why);
  [[nodiscard]] bool in_queue(NodeIndex n) const;
  [[nodiscard]] SimTime nominated_until(NodeIndex n) const;
  void request_wake();

  // --explain
  void record(Method m, const std::string& nodes, const std::string& action, const std::string& detail,
              double saving);
  void keep(Method m, NodeIndex n, const std::string& why);
  [[nodiscard]] std::string names(const std::vector<Candidate>& cs) const;
  [[nodiscard]] std::string describe(const Command& cmd) const;
  [[nodiscard]] sim::DeleteReason delete_reason(const Command& cmd) const;

  // A simulation context on the buffers the last one left (SimulationContext::Scratch), which
  // it hands back when it goes.
  class LentContext
  {
  public:
    LentContext(SimulationContext ctx, SimulationContext::Scratch& home) : context(std::move(ctx)), m_home(home)
    {
      context.scratch = std::move(home);
      context.scratch.recycle();
    }
    ~LentContext() { m_home = std::move(context.scratch); }
    LentContext(const LentContext&) = delete;
    LentContext& operator=(const LentContext&) = delete;
    LentContext(LentContext&&) = delete;
    LentContext& operator=(LentContext&&) = delete;

    SimulationContext context;

  private:
    SimulationContext::Scratch& m_home;
  };
  [[nodiscard]] LentContext sim_context();
  [[nodiscard]] CandidateContext candidate_context();
  // PodDisruptionBudget status, computed once per step when first needed.
  const PdbLimits* pdbs();
  [[nodiscard]] const model::Scenario& scenario() const { return m_ctl.scenario(); }
  // The NodePools as they are now (later versions applied), by NodePool index.
  [[nodiscard]] const std::vector<model::NodePool>& pools() const { return m_ctl.pool_specs(); }
  [[nodiscard]] const std::string& version() const { return scenario().settings.karpenter.version; }

  KarpenterController& m_ctl;
  SimTime m_now = 0;
  const cluster::Cluster* m_cluster = nullptr;
  sim::Actuator* m_act = nullptr;
  std::unique_ptr<PdbLimits> m_pdbs;

  SimTime m_next_loop = 0;
  std::optional<Pending> m_pending;
  std::vector<InFlight> m_queue;
  std::vector<SimTime> m_nominated; // per node: nominated by a started command until
  SimTime m_nominations_end = -1;   // the latest of them
  std::vector<NodeIndex> m_nomination_log; // the node of each nomination, in order

  // ConsolidationState (state/cluster.go): a version bumped on cluster changes and every 5 min.
  std::size_t m_seen_bindings = 0;
  std::uint64_t m_seen_epoch = 0;
  SimTime m_state_time = 0;
  std::uint64_t m_state_version = 1;
  std::array<std::uint64_t, 4> m_marked{}; // per method: the state version it marked consolidated

  std::vector<SimTime> m_drift_seen;        // per node: when drift was first observed
  std::vector<std::int8_t> m_requirements_drift; // per node: -1 unknown, 0 no, 1 drifted
  std::uint64_t m_pool_revisions = 0;             // the NodePools' revisions m_requirements_drift is for
  // Per NodePool: its EC2NodeClass's hash and AMI hash now (0, 0: no class in the scenario).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> m_class_hashes;
  // What drifted() reads besides the node. While it stands, a node's answer changes only with
  // the node (Cluster::node_log): the answers are kept per node and only the changed nodes are
  // asked again, so a step whose cluster has no drifted node reads no node's record.
  struct DriftBasis
  {
    std::uint64_t cluster = 0;
    std::vector<std::uint64_t> revisions; // per NodePool
    std::vector<std::pair<std::uint64_t, std::uint64_t>> class_hashes;
    bool operator==(const DriftBasis&) const = default;
  };
  DriftBasis m_drift_basis;
  std::size_t m_drift_log_seen = 0;  // the node_log entries the kept answers follow
  std::vector<char> m_node_drifted;  // per node: an alive NodePool node that drifted() answers for
  std::size_t m_drifted_nodes = 0;   // how many
  std::vector<std::string> m_last_keep;     // per node: last recorded blocking reason
  CandidateMemos m_candidate_memo; // per node: make_candidate's pod-derived facts

  // make_candidate's answers for the graceful class, per NodePool node in alive order: brought
  // up to date once per step and shared by emptiness, multi-node and single-node, between which
  // nothing they read changes (a started command has them brought up to date again).
  CandidateChecks m_graceful_checks;
  // Multi-node's and single-node's admitted candidates, in order, kept from step to step: read
  // when no reason is recorded and no pool is balanced, from v1.14 on (v1.13's key, the
  // disruption cost, moves with the clock).
  AdmittedOrder m_admitted;
  const std::vector<CandidateChecks::Entry>* m_graceful = nullptr; // this step's, when valid
  std::uint64_t m_queue_version = 0; // changes with m_queue (CandidateChecks::refresh)
  // The graceful methods' lists (pointers into m_graceful): consolidation's, emptiness's and
  // validate()'s. Drift's are its own.
  std::vector<const Candidate*> m_candidates;
  std::vector<const Candidate*> m_empty_candidates;
  std::vector<const Candidate*> m_validation_candidates;
  std::vector<Candidate> m_drift_candidates;
  bool m_v113 = false;                           // settings.karpenter.version is 1.13
  bool m_graceful_checks_valid = false;
  // m_candidates holds multi-node's list, sorted and in that order: single-node's list in the same
  // poll is the same (one ShouldDisrupt for both, the cluster unchanged), unless it records why
  // nodes are kept (under its own name).
  bool m_sorted_for_single = false;
  std::vector<Candidate> m_multi_batch; // multi-node's disruptable candidates then
  CandidateOrder m_order; // sort_candidates' last order
  std::vector<const Candidate*> m_ordered; // single_node's interleaved order (room kept)
  SimulationContext::Scratch m_scratch;     // the last simulation context's buffers (sim_context)
};

// ---------------------------------------------------------------------------------------------
// Step, state, wakeups

bool DisruptionController::step(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  begin(now, cluster, actuator);
  process_queue();
  bool acted = false;
  if (m_pending) {
    if (now >= m_pending->due) {
      Pending p = std::move(*m_pending);
      m_pending.reset();
      const Method method = p.cmd.method;
      std::string why;
      if (validate(p.cmd, &why)) {
        acted = start(std::move(p.cmd));
        if (!acted) {
          m_next_loop = now + k_poll; // StartCommand failed: the loop errors out and retries later
        }
      } else {
        // The method returns no command; the loop goes on with the next methods.
        record(method, names(p.cmd.candidates), "abandon",
               "command is no longer valid after the 15s validation wait: " + why, 0);
        acted = run_methods(static_cast<std::size_t>(method) + 1);
      }
    }
  } else if (now >= m_next_loop) {
    acted = run_methods(0);
  }
  if (acted) {
    m_next_loop = now; // requeue immediately
  }
  request_wake();
  return acted;
}

void DisruptionController::begin(SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator)
{
  m_now = now;
  m_cluster = &cluster;
  m_act = &actuator;
  m_pdbs.reset();
  m_graceful_checks_valid = false;
  m_sorted_for_single = false;
  const std::size_t n = cluster.nodes().size();
  m_nominated.resize(n, -1);
  m_drift_seen.resize(n, -1);
  m_requirements_drift.resize(n, -1);
  std::uint64_t revisions = 0;
  for (const auto& p : m_ctl.node_pools()) {
    revisions += p.revision;
  }
  if (revisions != m_pool_revisions) {
    // A NodePool's new version: its requirements drift nodes anew, and (as the NodePool
    // informer's MarkUnconsolidated) consolidation looks again.
    if (m_pool_revisions != 0) {
      std::fill(m_requirements_drift.begin(), m_requirements_drift.end(), std::int8_t{-1});
      m_state_time = now;
      ++m_state_version;
    }
    m_pool_revisions = revisions;
  }
  m_class_hashes.assign(pools().size(), {0, 0});
  for (std::size_t p = 0; p < pools().size(); ++p) {
    if (const auto* nc = m_ctl.node_class(pools()[p].node_class_ref)) {
      m_class_hashes[p] = {nc->hash, nc->ami_hash};
    }
  }
  m_last_keep.resize(n);
  m_v113 = is_v113(version());
  observe_changes();
}

void DisruptionController::observe_changes()
{
  const std::size_t bindings = m_cluster->binding_log().size();
  const std::uint64_t epoch = m_cluster->node_epoch();
  if (bindings != m_seen_bindings || epoch != m_seen_epoch) {
    m_seen_bindings = bindings;
    m_seen_epoch = epoch;
    m_state_time = m_now;
    ++m_state_version;
  }
}

std::uint64_t DisruptionController::consolidation_state()
{
  if (m_now - m_state_time >= k_consolidation_state_reset) {
    m_state_time = m_now;
    ++m_state_version;
  }
  return m_state_version;
}

void DisruptionController::request_wake()
{
  SimTime wake = -1;
  const auto consider = [&wake](SimTime t) {
    if (t >= 0 && (wake < 0 || t < wake)) {
      wake = t;
    }
  };
  if (m_pending) {
    consider(m_pending->due);
  } else {
    consider(m_next_loop > m_now ? m_next_loop : m_now + k_poll);
  }
  const auto& settings = scenario().settings.karpenter;
  for (const auto& f : m_queue) {
    for (const NodeIndex r : f.replacements) {
      const auto& node = m_cluster->node(r);
      if (node.lifecycle == NodeLifecycle::launching || node.lifecycle == NodeLifecycle::registered) {
        const SimTime expected = node.created_at + settings.launch_latency + settings.registration_latency;
        consider(expected > m_now ? expected : m_now + k_queue_poll);
      }
    }
  }
  if (wake > m_now) {
    m_ctl.request_disruption_wake(wake);
  }
}

SimTime DisruptionController::nominated_until(NodeIndex n) const
{
  const SimTime mine = n < m_nominated.size() ? m_nominated[n] : -1;
  return std::max(mine, m_ctl.nominated_until(n));
}

bool DisruptionController::in_queue(NodeIndex n) const
{
  for (const auto& f : m_queue) {
    for (const auto& c : f.cmd.candidates) {
      if (c.node == n) {
        return true;
      }
    }
  }
  return false;
}

const PdbLimits* DisruptionController::pdbs()
{
  if (!m_pdbs) {
    m_pdbs = std::make_unique<PdbLimits>(scenario().pdbs, *m_cluster);
  }
  return m_pdbs.get();
}

DisruptionController::LentContext DisruptionController::sim_context()
{
  SimulationContext ctx;
  ctx.controller = &m_ctl;
  ctx.cluster = m_cluster;
  ctx.actuator = m_act;
  ctx.pdbs = pdbs();
  ctx.now = m_now;
  ctx.version = version();
  ctx.spot_to_spot = scenario().settings.karpenter.spot_to_spot_consolidation;
  ctx.reasons = m_act->records_decisions();
  return {std::move(ctx), m_scratch};
}

// ---------------------------------------------------------------------------------------------
// Candidates

bool DisruptionController::drifted(NodeIndex n)
{
  const auto& node = m_cluster->node(n);
  const auto& specs = pools();
  if (node.pool >= specs.size()) {
    return false;
  }
  const auto& pool = specs[node.pool];
  bool d = node.drifted_at >= 0 || node.template_hash != pool.template_hash;
  if (const auto& [hash, ami] = m_class_hashes[node.pool]; !d && node.node_class_hash != 0 && hash != 0) {
    // The cloud provider's IsDrifted: NodeClassDrift (ec2nodeclass-hash) and AMIDrift.
    d = hash != node.node_class_hash || ami != node.ami_hash;
  }
  if (!d) {
    // RequirementsDrifted: the node's labels no longer satisfy the NodePool's requirements.
    if (m_requirements_drift[n] < 0) {
      m_requirements_drift[n] = model::Requirements::labels_compatible(node.labels, pool.requirements, false) ? 0 : 1;
    }
    d = m_requirements_drift[n] == 1;
  }
  if (d && m_drift_seen[n] < 0) {
    m_drift_seen[n] = node.drifted_at >= 0 ? node.drifted_at : m_now;
  } else if (!d) {
    m_drift_seen[n] = -1; // (a later NodePool version may undo the drift: the condition goes)
  }
  return d;
}

SimTime DisruptionController::drift_time(NodeIndex n) const
{
  const auto& node = m_cluster->node(n);
  return node.drifted_at >= 0 ? node.drifted_at : m_drift_seen[n];
}

bool DisruptionController::should_disrupt(Method m, const Candidate& c, std::string* why)
{
  if (m == Method::drift) {
    return drifted(c.node);
  }
  if (!may_disrupt(m, c, why)) {
    return false;
  }
  const auto& pool = pools()[c.pool];
  if (m_now >= consolidatable_at(m_cluster->node(c.node), pool)) {
    return true;
  }
  if (why != nullptr) {
    *why = fmt::format("consolidateAfter ({}) has not elapsed since the last pod event", format_duration(pool.consolidate_after));
  }
  return false;
}

bool DisruptionController::may_disrupt(Method m, const Candidate& c, std::string* why)
{
  const auto& node = m_cluster->node(c.node);
  const auto& pool = pools()[c.pool];
  const bool v113 = m_v113;
  if (pool.replicas) {
    if (why != nullptr) {
      *why = "NodePool " + pool.name + " is static (spec.replicas): its nodes are never consolidated";
    }
    return false;
  }
  switch (m) {
  case Method::emptiness:
    if (pool.consolidate_after == k_never) {
      if (why != nullptr) {
        *why = "NodePool " + pool.name + " has consolidation disabled (consolidateAfter: Never)";
      }
      return false;
    }
    return is_empty(c, v113);
  case Method::drift: return false;
  case Method::multi_node:
  case Method::single_node:
    if (c.instance_type == nullptr) {
      if (why != nullptr) {
        *why = "instance type "
               + (node.instance_type != nullptr ? node.instance_type->name : std::string("(unknown)"))
               + " is not offered by NodePool " + pool.name;
      }
      return false;
    }
    if (node.capacity_type.empty() || node.zone.empty()) {
      if (why != nullptr) {
        *why = "node has no capacity-type or zone label";
      }
      return false;
    }
    if (pool.consolidate_after == k_never) {
      if (why != nullptr) {
        *why = "NodePool " + pool.name + " has consolidation disabled (consolidateAfter: Never)";
      }
      return false;
    }
    if (!v113 && is_empty(c, v113)) {
      return false; // Emptiness's
    }
    if (pool.consolidation_policy == model::ConsolidationPolicy::when_empty) {
      if (!is_empty(c, v113)) {
        if (why != nullptr) {
          *why = "NodePool " + pool.name + " has consolidationPolicy WhenEmpty and the node is not empty";
        }
      }
      return false;
    }
    return true;
  }
  return false;
}

CandidateContext DisruptionController::candidate_context()
{
  CandidateContext ctx;
  ctx.cluster = m_cluster;
  ctx.pools = &m_ctl.node_pools();
  ctx.pdbs = pdbs();
  ctx.now = m_now;
  ctx.nominations = {std::span<const SimTime>(m_nominated), m_ctl.nominations()};
  ctx.nominations_end = std::max(m_nominations_end, m_ctl.nominations_end());
  ctx.nomination_logs = std::array<std::span<const NodeIndex>, 2>{m_nomination_log, m_ctl.nomination_log()};
  ctx.in_queue = [this](NodeIndex n) { return in_queue(n); };
  ctx.memo = &m_candidate_memo;
  ctx.disruption_costs = m_v113;
  return ctx;
}

bool DisruptionController::admit(Method m, NodeIndex n, const CandidateCheck& check, bool record_keeps)
{
  if (!check.candidate) {
    if (record_keeps && !check.blocked.empty()) {
      keep(m, n, check.blocked);
    }
    return false;
  }
  std::string why; // worked out only when it is recorded
  if (!should_disrupt(m, *check.candidate, record_keeps && m_act->records_decisions() ? &why : nullptr)) {
    if (record_keeps && !why.empty()) {
      keep(m, n, why);
    }
    return false;
  }
  return true;
}

SimTime DisruptionController::admitted_from(Method m, const CandidateChecks::Entry& e)
{
  // (Multi-node and single-node ask the same.)
  SimTime& due = e.due[m == Method::emptiness ? 0 : 1];
  if (due == CandidateChecks::Entry::k_unknown) {
    const Candidate& c = *e.check.candidate;
    due = may_disrupt(m, c, nullptr) ? consolidatable_at(m_cluster->node(c.node), pools()[c.pool]) : k_never;
  }
  return due;
}

bool DisruptionController::admit_quietly(Method m, const CandidateChecks::Entry& e)
{
  if (!e.check.candidate) {
    return false;
  }
  const SimTime due = admitted_from(m, e);
  const bool admitted = due != k_never && m_now >= due;
#ifndef NDEBUG
  CAPSIM_CHECK(admitted == should_disrupt(m, *e.check.candidate, nullptr),
               "disruption: a kept verdict differs from ShouldDisrupt");
#endif
  return admitted;
}

void DisruptionController::candidates(Method m, std::vector<const Candidate*>& out, bool record_keeps)
{
  CAPSIM_CHECK(m != Method::drift, "disruption: drift's candidates are not the graceful answers");
  const auto& entries = graceful_entries();
  out.clear();
  if (m == Method::emptiness && !(record_keeps && m_act->records_decisions())) {
    // Only an empty candidate can be admitted, and no reason is recorded for the others.
    for (const std::uint32_t i : m_graceful_checks.maybe_empty()) {
      const auto& e = entries[i];
      if (admit_quietly(m, e)) {
        out.push_back(&*e.check.candidate);
      }
    }
    return;
  }
  const bool quiet = !(record_keeps && m_act->records_decisions());
  constexpr std::size_t k_ahead = 8;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!quiet && i + k_ahead < entries.size()) {
      // (ShouldDisrupt reads the node's record, scattered over the run: loaded ahead.)
      const auto& ahead = m_cluster->node(entries[i + k_ahead].node);
      __builtin_prefetch(&ahead.zone);
      __builtin_prefetch(&ahead.capacity_type);
      __builtin_prefetch(&ahead.ready_at);
      __builtin_prefetch(&ahead.last_pod_event);
    }
    const auto& e = entries[i];
    if (quiet ? admit_quietly(m, e) : admit(m, e.node, e.check, record_keeps)) {
      out.push_back(&*e.check.candidate);
    }
  }
}

#ifndef NDEBUG
void DisruptionController::check_sorted_listing(Method m, const std::vector<const Candidate*>& listed,
                                                const char* what)
{
  std::vector<const Candidate*> fresh;
  candidates(m, fresh, false);
  sort_candidates(fresh, version(), *m_cluster, nullptr);
  CAPSIM_CHECK(fresh == listed, what);
}
#endif

const std::vector<CandidateChecks::Entry>& DisruptionController::graceful_entries()
{
  if (!m_graceful_checks_valid) {
    m_graceful = &m_graceful_checks.refresh(candidate_context(), m_queue_version);
    m_graceful_checks_valid = true;
  }
  return *m_graceful;
}

void DisruptionController::drift_candidates(std::vector<Candidate>& out)
{
  out.clear();
  const auto& inputs = m_ctl.node_pools();
  auto& basis = m_drift_basis;
  const bool same = basis.cluster == m_cluster->instance_id() && basis.class_hashes == m_class_hashes
                    && basis.revisions.size() == inputs.size()
                    && std::equal(basis.revisions.begin(), basis.revisions.end(), inputs.begin(),
                                  [](std::uint64_t r, const NodePoolInput& p) { return r == p.revision; });
  const auto& log = m_cluster->node_log();
  const auto ask = [this](NodeIndex n) {
    const auto& node = m_cluster->node(n);
    const bool d = node.alive() && node.owner == cluster::NodeOwner::node_pool && drifted(n);
    if (m_node_drifted.size() <= n) {
      m_node_drifted.resize(static_cast<std::size_t>(n) + 1, 0);
    }
    m_drifted_nodes = m_drifted_nodes - static_cast<std::size_t>(m_node_drifted[n]) + (d ? 1 : 0);
    m_node_drifted[n] = d ? 1 : 0;
  };
  if (same) {
    for (std::size_t i = m_drift_log_seen; i < log.size(); ++i) {
      ask(log[i]);
    }
  } else {
    basis.cluster = m_cluster->instance_id();
    basis.class_hashes = m_class_hashes;
    basis.revisions.clear();
    for (const auto& p : inputs) {
      basis.revisions.push_back(p.revision);
    }
    m_node_drifted.assign(m_cluster->nodes().size(), 0);
    m_drifted_nodes = 0;
    for (const NodeIndex n : m_cluster->alive_node_indices()) {
      ask(n);
    }
  }
  m_drift_log_seen = log.size();
#ifndef NDEBUG
  {
    std::size_t walked = 0;
    for (const NodeIndex n : m_cluster->alive_node_indices()) {
      walked += m_cluster->node(n).owner == cluster::NodeOwner::node_pool && drifted(n) ? 1 : 0;
    }
    CAPSIM_CHECK(walked == m_drifted_nodes, "disruption: the kept count of drifted nodes differs from a walk");
  }
#endif
  if (m_drifted_nodes == 0) {
    return;
  }
  const CandidateContext ctx = candidate_context();
  for (const NodeIndex n : m_cluster->alive_node_indices()) {
    // cheap filter first: most nodes are not drifted
    if (m_cluster->node(n).owner == cluster::NodeOwner::node_pool && drifted(n)) {
      CandidateCheck check = make_candidate(ctx, n, DisruptionClass::eventual);
      if (admit(Method::drift, n, check, true)) {
        out.push_back(std::move(*check.candidate));
      }
    }
  }
}

bool DisruptionController::any_balanced() const
{
  if (is_v113(version())) {
    return false;
  }
  for (const auto& p : pools()) {
    if (p.consolidation_policy == model::ConsolidationPolicy::balanced) {
      return true;
    }
  }
  return false;
}

template <typename Element>
std::vector<PoolTotals> DisruptionController::pool_totals(std::span<const Element> candidates) const
{
  // computeNodePoolTotals: cost of every node of the pool (ClusterCost) and disruption cost of
  // every node (candidates' RescheduleDisruptionCost, 1 + positive eviction costs otherwise).
  std::vector<PoolTotals> totals(pools().size());
  std::vector<double> candidate_cost(m_cluster->nodes().size(), -1);
  for (const auto& e : candidates) {
    const Candidate& c = candidate_of(e);
    candidate_cost[c.node] = c.reschedule_cost;
  }
  for (const NodeIndex n : m_cluster->alive_node_indices()) {
    const auto& node = m_cluster->node(n);
    if (node.owner != cluster::NodeOwner::node_pool || node.pool >= totals.size()) {
      continue;
    }
    totals[node.pool].total_cost += node.price_per_hour;
    if (candidate_cost[n] >= 0) {
      totals[node.pool].total_disruption += candidate_cost[n];
    } else {
      double cost = 1.0;
      for (const PodIndex p : node.pods) {
        const auto& spec = m_cluster->pod(p).pod().spec;
        cost += spec ? std::max(0.0, eviction_cost(*spec)) : 1.0;
      }
      totals[node.pool].total_disruption += cost;
    }
  }
  return totals;
}

// ---------------------------------------------------------------------------------------------
// Methods

bool DisruptionController::run_methods(std::size_t first)
{
  static constexpr Method k_order[] = {Method::emptiness, Method::drift, Method::multi_node, Method::single_node};
  for (std::size_t i = first; i < std::size(k_order); ++i) {
    const Outcome o = run_method(k_order[i]);
    if (o == Outcome::started) {
      return true;
    }
    if (o == Outcome::pending) {
      return false; // blocked on the validation wait
    }
  }
  m_next_loop = m_now + k_poll;
  return false;
}

Outcome DisruptionController::run_method(Method m)
{
  switch (m) {
  case Method::emptiness: return emptiness();
  case Method::drift: return drift();
  case Method::multi_node: return multi_node();
  case Method::single_node: return single_node();
  }
  return Outcome::nothing;
}

Outcome DisruptionController::emptiness()
{
  auto& cands = m_empty_candidates;
  candidates(Method::emptiness, cands);
  if (cands.empty() || is_consolidated(Method::emptiness)) {
    return Outcome::nothing;
  }
  auto budget = budget_mapping(pools(), *m_cluster, model::DisruptionReason::empty, m_now);
  sort_candidates(cands, version(), *m_cluster, &m_order);
  std::vector<Candidate> empty;
  bool constrained = false;
  for (const Candidate* e : cands) {
    const Candidate& c = *e;
    if (budget[c.pool] == 0) {
      constrained = true;
      keep(Method::emptiness, c.node,
           "the disruption budget of NodePool " + pools()[c.pool].name + " allows no more Empty disruptions now");
      continue;
    }
    --budget[c.pool];
    empty.push_back(c);
  }
  if (empty.empty()) {
    if (!constrained) {
      mark_consolidated(Method::emptiness);
    }
    return Outcome::nothing;
  }
  Command cmd;
  cmd.method = Method::emptiness;
  cmd.candidates = std::move(empty);
  cmd.savings_per_hour = estimated_savings(cmd, nullptr);
  m_pending = Pending{std::move(cmd), m_now + k_command_validation_delay};
  return Outcome::pending;
}

Outcome DisruptionController::drift()
{
  auto& cands = m_drift_candidates;
  drift_candidates(cands);
  if (static_drift(cands) == Outcome::started) {
    return Outcome::started;
  }
  if (cands.empty()) {
    return Outcome::nothing;
  }
  std::sort(cands.begin(), cands.end(), [&](const Candidate& a, const Candidate& b) {
    const SimTime ta = drift_time(a.node);
    const SimTime tb = drift_time(b.node);
    if (ta != tb) {
      return ta < tb;
    }
    const auto& na = m_cluster->node(a.node).name;
    const auto& nb = m_cluster->node(b.node).name;
    return na != nb ? na < nb : a.node < b.node;
  });
  // Empty candidates first: fewer pods move twice.
  std::stable_partition(cands.begin(), cands.end(), [](const Candidate& c) { return c.reschedulable.empty(); });
  const auto budget = budget_mapping(pools(), *m_cluster, model::DisruptionReason::drifted, m_now);
  const LentContext lent = sim_context();
  const SimulationContext& ctx = lent.context;
  for (auto& c : cands) {
    if (budget[c.pool] == 0) {
      keep(Method::drift, c.node,
           "drifted, but the disruption budget of NodePool " + pools()[c.pool].name
               + " allows no more Drifted disruptions now");
      continue;
    }
    Simulation sim = simulate_scheduling(ctx, std::span(&c, 1), false);
    if (!sim.failure.empty()) {
      keep(Method::drift, c.node, "drifted, but " + sim.failure);
      continue;
    }
    Command cmd;
    cmd.method = Method::drift;
    cmd.candidates.push_back(c);
    cmd.replacements = std::move(sim.result.claims);
    cmd.existing = std::move(sim.result.existing);
    cmd.savings_per_hour = estimated_savings(
        cmd, [this](const catalog::InstanceType& t, const catalog::Offering& o) { return m_act->offering_launchable(t, o); });
    if (start(std::move(cmd))) {
      return Outcome::started;
    }
    return Outcome::nothing;
  }
  return Outcome::nothing;
}

Outcome DisruptionController::static_drift(std::vector<Candidate>& cands)
{
  const auto dynamic = std::stable_partition(cands.begin(), cands.end(),
                                             [&](const Candidate& c) { return !pools()[c.pool].replicas; });
  if (dynamic == cands.end()) {
    return Outcome::nothing;
  }
  std::vector<Candidate> statics(std::make_move_iterator(dynamic), std::make_move_iterator(cands.end()));
  cands.erase(dynamic, cands.end());
  const auto budget = budget_mapping(pools(), *m_cluster, model::DisruptionReason::drifted, m_now);
  bool started = false;
  for (std::uint32_t p = 0; p < pools().size(); ++p) {
    const model::NodePool& pool = pools()[p];
    std::vector<const Candidate*> mine;
    for (const auto& c : statics) {
      if (c.pool == p) {
        mine.push_back(&c);
      }
    }
    if (mine.empty()) {
      continue;
    }
    const auto keep_all = [&](const std::string& why) {
      for (const Candidate* c : mine) {
        keep(Method::drift, c->node, "drifted, but " + why);
      }
    };
    if (budget[p] == 0) {
      keep_all("the disruption budget of NodePool " + pool.name + " allows no more Drifted disruptions now");
      continue;
    }
    const StaticNodeCounts counts = static_node_counts(*m_cluster, p);
    if (counts.active + counts.pending_disruption > *pool.replicas) {
      keep_all("static NodePool " + pool.name + " has more nodes than its replicas: it scales down first");
      continue;
    }
    const std::int64_t wanted = std::min<std::int64_t>(budget[p], static_cast<std::int64_t>(mine.size()));
    const std::int64_t allowed = static_room(counts, pool, wanted);
    if (allowed == 0) {
      keep_all("static NodePool " + pool.name + " has no room under limits.nodes for a replacement");
      continue;
    }
    for (std::int64_t i = 0; i < allowed; ++i) {
      Command cmd;
      cmd.method = Method::drift;
      cmd.candidates.push_back(*mine[static_cast<std::size_t>(i)]);
      cmd.replacements.push_back(static_node_claim(m_ctl.node_pools()[p]));
      started = start(std::move(cmd)) || started;
    }
  }
  return started ? Outcome::started : Outcome::nothing;
}

std::optional<Command> DisruptionController::first_n_consolidation(std::span<const Candidate> cands,
                                                                    std::size_t max)
{
  const OfferingAvailable available = [this](const catalog::InstanceType& t, const catalog::Offering& o) {
    return m_act->offering_launchable(t, o);
  };
  std::function<bool(const Command&)> approve;
  if (any_balanced()) {
    approve = [this, totals = pool_totals<Candidate>(cands)](const Command& cmd) {
      return balanced_approves(cmd, pools(), totals, nullptr);
    };
  }
  return karpenter::first_n_consolidation(sim_context().context, cands, max, available, approve);
}

Outcome DisruptionController::multi_node()
{
  auto& cands = m_candidates;
  m_sorted_for_single = false;
  // The disruptable candidates, in order, copied out: the first of them only (the search reads no
  // more than one past its maximum), unless the balanced policy's totals read them all or
  // single-node records why nodes are kept (it then lists its own candidates).
  const bool keep_sorted = !m_act->records_decisions() && !any_balanced();
  bool ordered = false; // listed in order already (m_admitted)
  if (keep_sorted && !m_v113) {
    graceful_entries();
    ordered = m_admitted.list(m_graceful_checks, *m_cluster, m_now,
                              [this](const CandidateChecks::Entry& e) { return admitted_from(Method::multi_node, e); },
                              cands);
  }
  if (!ordered) {
    candidates(Method::multi_node, cands);
  }
#ifndef NDEBUG
  if (ordered) {
    check_sorted_listing(Method::multi_node, cands, "multi-node: the kept admitted order differs from a sorted listing");
  }
#endif
  if (cands.empty() || is_consolidated(Method::multi_node)) {
    return Outcome::nothing;
  }
  auto budget = budget_mapping(pools(), *m_cluster, model::DisruptionReason::underutilized, m_now);
  if (!ordered) {
    sort_candidates(cands, version(), *m_cluster, &m_order);
  }
  auto& batch = m_multi_batch;
  std::size_t kept = 0;
  bool constrained = false;
  for (const Candidate* c : cands) {
    if (budget[c->pool] == 0) {
      constrained = true;
      continue;
    }
    --budget[c->pool];
    if (!keep_sorted || kept <= k_multi_node_max_candidates) {
      if (kept < batch.size()) {
        batch[kept] = *c; // copy-assigned: the element keeps its buffers
      } else {
        batch.push_back(*c);
      }
    }
    ++kept;
  }
  const std::size_t max_parallel = std::min(kept, k_multi_node_max_candidates);
  batch.resize(keep_sorted ? std::min(kept, k_multi_node_max_candidates + 1) : kept);
  m_sorted_for_single = keep_sorted;
  auto cmd = first_n_consolidation(batch, max_parallel);
  if (!cmd) {
    if (!constrained) {
      mark_consolidated(Method::multi_node);
    }
    return Outcome::nothing;
  }
  m_pending = Pending{std::move(*cmd), m_now + k_command_validation_delay};
  return Outcome::pending;
}

Outcome DisruptionController::single_node()
{
  auto& cands = m_candidates;
  const bool sorted = m_sorted_for_single;
  m_sorted_for_single = false;
#ifndef NDEBUG
  if (sorted) {
    check_sorted_listing(Method::single_node, cands, "single-node: multi-node's sorted list differs from its own");
  }
#endif
  if (!sorted) {
    candidates(Method::single_node, cands);
  }
  if (cands.empty() || is_consolidated(Method::single_node)) {
    return Outcome::nothing;
  }
  const auto budget = budget_mapping(pools(), *m_cluster, model::DisruptionReason::underutilized, m_now);
  if (!sorted) {
    sort_candidates(cands, version(), *m_cluster, &m_order);
  }
  auto& ordered = m_ordered;
  if (pools().size() == 1) {
    ordered.assign(cands.begin(), cands.end()); // one NodePool: the sorted order, no candidate read
  } else {
    interleave_pools(cands, ordered);
  }
  const bool balanced = any_balanced();
  const auto totals = balanced ? pool_totals<const Candidate*>(cands) : std::vector<PoolTotals>{};
  const LentContext lent = sim_context();
  const SimulationContext& ctx = lent.context;
  bool constrained = false;
  // Most candidates are answered by their remembered stop in well under a microsecond, mostly
  // spent waiting for memory: what the next ones read is loaded ahead.
  const auto& cache = m_ctl.cache();
  constexpr std::size_t k_ahead = 8;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    if (i + 2 * k_ahead < ordered.size()) {
      __builtin_prefetch(ordered[i + 2 * k_ahead]);
      __builtin_prefetch(reinterpret_cast<const char*>(ordered[i + 2 * k_ahead]) + 64);
    }
    if (i + k_ahead < ordered.size()) {
      cache.prefetch_remembered_stop(ordered[i + k_ahead]->node);
    }
    if (i + k_ahead / 2 < ordered.size()) {
      const Candidate& ahead = *ordered[i + k_ahead / 2];
      if (cache.prefetch_changed_stop(ahead.node, ahead.pods_revision)) {
        ahead.reschedulable.prefetch();
      }
    }
    const Candidate& c = *ordered[i];
    if (budget[c.pool] == 0) {
      constrained = true;
      keep(Method::single_node, c.node,
           "the disruption budget of NodePool " + pools()[c.pool].name
               + " allows no more Underutilized disruptions now");
      continue;
    }
    if (balanced && !balanced_can_pass(c, pools(), totals)) {
      keep(Method::single_node, c.node, "Balanced policy: even deleting the node would not score 1/k");
      continue;
    }
    if (stops_on_remembered_veto(ctx, c)) {
      continue; // (rejected without its reason: no decisions are recorded)
    }
    auto outcome = compute_consolidation(ctx, std::span(&c, 1), Method::single_node);
    if (!outcome.command) {
      keep(Method::single_node, c.node, outcome.rejected);
      continue;
    }
    std::string why;
    if (balanced && !balanced_approves(*outcome.command, pools(), totals, &why)) {
      keep(Method::single_node, c.node, why);
      continue;
    }
    m_pending = Pending{std::move(*outcome.command), m_now + k_command_validation_delay};
    return Outcome::pending;
  }
  if (!constrained) {
    mark_consolidated(Method::single_node);
  }
  return Outcome::nothing;
}

// ---------------------------------------------------------------------------------------------
// Validation and orchestration

bool DisruptionController::validate(Command& cmd, std::string* why)
{
  auto& current = m_validation_candidates;
  candidates(cmd.method, current, false);
  const auto find = [&current](NodeIndex n) -> const Candidate* {
    for (const Candidate* c : current) {
      if (c->node == n) {
        return c;
      }
    }
    return nullptr;
  };
  const model::DisruptionReason reason =
      cmd.method == Method::emptiness ? model::DisruptionReason::empty : model::DisruptionReason::underutilized;
  auto budget = budget_mapping(pools(), *m_cluster, reason, m_now);
  if (cmd.method == Method::emptiness) {
    // EmptinessValidator: keep the candidates that are still empty, not nominated, within budget.
    std::vector<Candidate> valid;
    for (const auto& c : cmd.candidates) {
      const Candidate* now = find(c.node);
      if (now == nullptr || nominated_until(c.node) > m_now || budget[now->pool] == 0) {
        continue;
      }
      --budget[now->pool];
      valid.push_back(*now);
    }
    if (valid.empty()) {
      *why = "no candidate is still empty and within its budget (pod churn)";
      return false;
    }
    cmd.candidates = std::move(valid);
    cmd.savings_per_hour = estimated_savings(cmd, nullptr);
    return true;
  }
  std::vector<Candidate> updated;
  for (const auto& c : cmd.candidates) {
    const Candidate* now = find(c.node);
    if (now == nullptr) {
      *why = m_cluster->node(c.node).name + " is no longer a consolidation candidate (pod churn)";
      return false;
    }
    if (nominated_until(c.node) > m_now) {
      *why = m_cluster->node(c.node).name + " was nominated for a pending pod";
      return false;
    }
    if (budget[now->pool] == 0) {
      *why = "a candidate can no longer be disrupted without violating budgets";
      return false;
    }
    --budget[now->pool];
    updated.push_back(*now);
  }
  const Simulation sim = simulate_scheduling(sim_context().context, updated, true);
  if (!sim.failure.empty()) {
    *why = sim.failure;
    return false;
  }
  const auto& claims = sim.result.claims;
  if (claims.empty()) {
    if (cmd.is_replace()) {
      *why = "scheduling simulation produced new results (no replacement needed any more)";
      return false;
    }
    return true;
  }
  if (claims.size() > 1 || !cmd.is_replace()) {
    *why = "scheduling simulation produced new results";
    return false;
  }
  // The command's options must be a subset of what scheduling would launch now.
  std::vector<std::string> allowed;
  for (const auto* t : claims.front().instance_types) {
    allowed.push_back(t->name);
  }
  std::sort(allowed.begin(), allowed.end());
  for (const auto* t : cmd.replacements.front().instance_types) {
    if (!std::binary_search(allowed.begin(), allowed.end(), t->name)) {
      *why = "scheduling simulation produced new results (replacement options changed)";
      return false;
    }
  }
  return true;
}

sim::DeleteReason DisruptionController::delete_reason(const Command& cmd) const
{
  switch (cmd.method) {
  case Method::emptiness: return sim::DeleteReason::emptiness;
  case Method::drift: return sim::DeleteReason::drift;
  case Method::multi_node:
  case Method::single_node:
    return cmd.is_replace() ? sim::DeleteReason::consolidation_replace : sim::DeleteReason::consolidation_delete;
  }
  return sim::DeleteReason::consolidation_delete;
}

bool DisruptionController::start(Command cmd)
{
  m_graceful_checks_valid = false; // taints, nominations and the queue change below
  m_sorted_for_single = false;
  const std::string nodes = names(cmd.candidates);
  record(cmd.method, nodes, cmd.is_replace() ? "replace" : "delete", describe(cmd), cmd.savings_per_hour);
  for (const auto& c : cmd.candidates) {
    m_last_keep[c.node].clear();
    m_act->set_disrupted(c.node, true);
  }
  std::vector<NodeIndex> launched;
  if (cmd.is_replace()) {
    SolveResult replacements;
    replacements.claims = cmd.replacements;
    launched = m_ctl.launch_claims(m_now, replacements, *m_act, *m_cluster);
    if (std::find(launched.begin(), launched.end(), k_none) != launched.end() || launched.size() != cmd.replacements.size()) {
      for (const auto& c : cmd.candidates) {
        m_act->set_disrupted(c.node, false);
      }
      record(cmd.method, nodes, "abandon", "launching the replacement failed (insufficient capacity); candidates un-tainted",
             0);
      return false;
    }
  }
  // Results.Record: nodes receiving simulated pods are nominated.
  const Duration window = nomination_window(scenario().settings.karpenter);
  m_nominated.resize(m_cluster->nodes().size(), -1);
  for (const auto& pl : cmd.existing) {
    m_nominated[pl.node] = std::max(m_nominated[pl.node], m_now + window);
    m_nomination_log.push_back(pl.node);
    m_nominations_end = std::max(m_nominations_end, m_now + window);
  }
  if (!cmd.is_replace()) {
    const auto reason = delete_reason(cmd);
    for (const auto& c : cmd.candidates) {
      m_act->delete_node(c.node, reason);
    }
    return true;
  }
  InFlight f;
  f.replacements = std::move(launched);
  f.started = m_now;
  f.cmd = std::move(cmd);
  m_queue.push_back(std::move(f));
  ++m_queue_version;
  return true;
}

void DisruptionController::abandon(const InFlight& f, const std::string& why)
{
  m_graceful_checks_valid = false;
  m_sorted_for_single = false;
  for (const auto& c : f.cmd.candidates) {
    const auto& node = m_cluster->node(c.node);
    if (node.alive() && node.lifecycle != NodeLifecycle::deleting) {
      m_act->set_disrupted(c.node, false);
    }
  }
  record(f.cmd.method, names(f.cmd.candidates), "abandon", why + "; candidates un-tainted", 0);
}

void DisruptionController::process_queue()
{
  std::size_t queued = 0;
  for (const auto& f : m_queue) {
    queued += f.cmd.candidates.size();
  }
  const Duration retry = std::clamp<Duration>(k_command_retry_scale * static_cast<Duration>(queued), k_min_command_retry,
                                              k_max_command_retry);
  std::vector<InFlight> still;
  for (auto& f : m_queue) {
    bool failed = false;
    bool ready = true;
    std::string failed_name;
    for (const NodeIndex r : f.replacements) {
      const auto& node = m_cluster->node(r);
      if (!node.alive() || node.lifecycle == NodeLifecycle::deleting) {
        failed = true;
        failed_name = node.name;
        break;
      }
      ready = ready && node.lifecycle == NodeLifecycle::ready;
    }
    if (failed) {
      abandon(f, "replacement " + failed_name + " was deleted before it initialized");
      continue;
    }
    if (ready) {
      const auto reason = delete_reason(f.cmd);
      std::string repl;
      for (const NodeIndex r : f.replacements) {
        repl += (repl.empty() ? "" : ", ") + m_cluster->node(r).name;
      }
      for (const auto& c : f.cmd.candidates) {
        m_act->delete_node(c.node, reason);
      }
      record(f.cmd.method, names(f.cmd.candidates), "terminate",
             "replacement(s) " + repl + " initialized; draining the candidates", 0);
      continue;
    }
    if (m_now - f.started > retry) {
      abandon(f, "command timed out after " + format_duration(m_now - f.started)
                     + " waiting for the replacement(s) to initialize");
      continue;
    }
    still.push_back(std::move(f));
  }
  if (still.size() != m_queue.size()) {
    ++m_queue_version; // (commands only leave: the same size is the same queue)
  }
  m_queue = std::move(still);
}

// ---------------------------------------------------------------------------------------------
// --explain

void DisruptionController::record(Method m, const std::string& nodes, const std::string& action,
                                  const std::string& detail, double saving)
{
  m_act->record({m_now, std::string(to_string(m)), nodes, action, detail, saving});
}

void DisruptionController::keep(Method m, NodeIndex n, const std::string& why)
{
  if (!m_act->records_decisions() || m_last_keep[n] == why) {
    return;
  }
  m_last_keep[n] = why;
  record(m, m_cluster->node(n).name, "keep", why, 0);
}

std::string DisruptionController::names(const std::vector<Candidate>& cs) const
{
  std::string out;
  for (const auto& c : cs) {
    out += (out.empty() ? "" : ",") + m_cluster->node(c.node).name;
  }
  return out;
}

std::string DisruptionController::describe(const Command& cmd) const
{
  std::string pods;
  std::size_t moved = 0;
  for (const auto& c : cmd.candidates) {
    moved += c.reschedulable.size();
  }
  pods = fmt::format("{} pod(s) to reschedule", moved);
  if (!cmd.is_replace()) {
    if (cmd.method == Method::emptiness) {
      return fmt::format("delete {} empty node(s)", cmd.candidates.size());
    }
    return "delete; " + pods + " fit on existing nodes";
  }
  std::string out = fmt::format("replace with {} node(s), {}:", cmd.replacements.size(), pods);
  for (const auto& claim : cmd.replacements) {
    const auto* ct = claim.requirements.find(model::labels::k_capacity_type);
    std::string cts = "any capacity type";
    if (ct != nullptr && !ct->complement) {
      cts.clear();
      for (const auto& v : ct->values) {
        cts += (cts.empty() ? "" : "/") + v;
      }
    }
    out += fmt::format(" [{} ({} option(s), {})]", instance_type_list(claim.instance_types), claim.instance_types.size(), cts);
  }
  return out;
}

} // namespace

void install_disruption(KarpenterController& controller)
{
  auto state = std::make_shared<DisruptionController>(controller);
  controller.set_disruption([state](SimTime now, const cluster::Cluster& cluster, sim::Actuator& actuator) {
    return state->step(now, cluster, actuator);
  });
}

} // namespace capsim::karpenter
