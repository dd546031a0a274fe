#include "core/karpenter/disruption_consolidation.hpp"

#include "core/base/diagnostics.hpp"
#include "core/karpenter/controller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace capsim::karpenter {

namespace {

using cluster::NodeIndex;
using cluster::NodeLifecycle;
using cluster::PodIndex;
using cluster::PodPhase;

constexpr double k_inf = std::numeric_limits<double>::infinity();

std::string pod_label(const cluster::PodState& p)
{
  return (p.pod().spec ? p.pod().spec->namespace_ : std::string("default")) + "/" + p.pod().name;
}

bool has_capacity_type(const model::Requirements& reqs, std::string_view ct)
{
  const auto* r = reqs.find(model::labels::k_capacity_type);
  return r == nullptr || r->has(ct);
}

void restrict_capacity_type(model::Requirements& reqs, std::string_view ct)
{
  reqs.add(model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in,
                                    {std::string(ct)}));
}

// The claim's instance-type requirement follows its (filtered) options, as ToNodeClaim writes it.
void sync_instance_type_requirement(NewNodeClaim& claim)
{
  std::vector<std::string> names;
  names.reserve(claim.instance_types.size());
  for (const auto* t : claim.instance_types) {
    names.push_back(t->name);
  }
  // The claim keeps its minValues (nodeclaimtemplate.go ToNodeClaim): the checks after the
  // price filter and the launch hold the narrowed options to it.
  std::optional<int> min_values;
  if (const auto* existing = claim.requirements.find(model::labels::k_instance_type)) {
    min_values = existing->min_values;
  }
  claim.requirements.erase(model::labels::k_instance_type);
  claim.requirements.add(model::Requirement::make(std::string(model::labels::k_instance_type), model::Operator::in,
                                                  std::move(names), min_values));
}

double sum_prices(std::span<const Candidate> candidates)
{
  double sum = 0;
  for (const auto& c : candidates) {
    sum += c.price;
  }
  return sum;
}

// Whether some option of the claim has an offering its requirements allow below `max_price`: a
// bound on what remove_options_by_price keeps (each option's worst launch price is at least this
// cheapest price, under these requirements or stricter ones).
bool launches_below(const NewNodeClaim& claim, double max_price, const OfferingAvailable& available)
{
  return std::any_of(claim.instance_types.begin(), claim.instance_types.end(), [&](const catalog::InstanceType* t) {
    return cheapest_price(*t, claim.requirements, available) < max_price;
  });
}

// Why no option of `options` (the claim's options before the price filter) is cheaper.
std::string price_rule_detail(const NewNodeClaim& claim, const std::vector<const catalog::InstanceType*>& options,
                              double candidate_price, const OfferingAvailable& available)
{
  double best = k_inf;
  const catalog::InstanceType* best_type = nullptr;
  for (const auto* t : options) {
    const double w = worst_launch_price(*t, claim.requirements, available);
    if (w < best) {
      best = w;
      best_type = t;
    }
  }
  if (best_type == nullptr) {
    return "can't replace with a cheaper node: no replacement option has an available offering";
  }
  return fmt::format("can't replace with a cheaper node: the best option {} launches at up to ${:.4f}/h, "
                     "not below the current ${:.4f}/h",
                     best_type->name, best, candidate_price);
}

} // namespace

std::string_view to_string(Method method)
{
  switch (method) {
  case Method::emptiness: return "emptiness";
  case Method::drift: return "drift";
  case Method::multi_node: return "multi-node";
  case Method::single_node: return "single-node";
  }
  return "?";
}

std::optional<std::size_t> min_values_needed(const std::vector<const catalog::InstanceType*>& options,
                                             const model::Requirements& reqs)
{
  std::vector<const model::Requirement*> keyed;
  for (const auto& r : reqs.items()) {
    if (r.min_values && *r.min_values > 0) {
      keyed.push_back(&r);
    }
  }
  if (keyed.empty()) {
    return std::size_t{0};
  }
  std::vector<std::set<std::string>> seen(keyed.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    bool all = true;
    for (std::size_t k = 0; k < keyed.size(); ++k) {
      const auto* r = options[i]->requirements.find(keyed[k]->key);
      if (r != nullptr && !r->complement) {
        seen[k].insert(r->values.begin(), r->values.end());
      }
      all = all && seen[k].size() >= static_cast<std::size_t>(*keyed[k]->min_values);
    }
    if (all) {
      return i + 1;
    }
  }
  return std::nullopt;
}

bool remove_options_by_price(NewNodeClaim& claim, double max_price, const OfferingAvailable& available)
{
  std::vector<const catalog::InstanceType*> kept;
  for (const auto* t : claim.instance_types) {
    if (worst_launch_price(*t, claim.requirements, available) < max_price) {
      kept.push_back(t);
    }
  }
  claim.instance_types = std::move(kept);
  return min_values_needed(claim.instance_types, claim.requirements).has_value();
}

double estimated_savings(const Command& cmd, const OfferingAvailable& available)
{
  const double source = sum_prices(cmd.candidates);
  if (cmd.replacements.empty()) {
    return source;
  }
  double dest = 0;
  for (const auto& claim : cmd.replacements) {
    if (!claim.instance_types.empty()) {
      const double p = cheapest_price(*claim.instance_types.front(), claim.requirements, available);
      if (p != k_inf) {
        dest += p;
      }
    }
  }
  return source - dest;
}

#ifndef NDEBUG
// Debug builds solve a sample of the simulations that stopped early (SolveOptions::
// stop_on_delete_veto, answered by a remembered stop or by the solve) again without the early
// stop and with a fresh cache: consolidation must reject that result whatever else it holds (a
// bound pod fails, a moved pod goes to a node that is not Ready, more than one NodeClaim, or one
// that may launch spot). `in` lists every pod of the simulation.
// One in 256: the fresh cache rebuilds every NodePool's instance types, and at one in 64 these
// checks were most of the sanitized mid-size golden test, which came near its CTest timeout.
void check_stop_rejected(SolveInput in, std::span<const PodIndex> from_deleting)
{
  thread_local std::uint64_t stops = 0; // (sweeps run simulations on several threads)
  if (++stops % 256 != 0) {
    return;
  }
  in.options.stop_on_delete_veto = false;
  in.cache = nullptr;
  const SolveResult full = solve(in);
  const auto& cluster = *in.cluster;
  const bool bound_fails = std::any_of(full.errors.begin(), full.errors.end(), [&](const PodError& e) {
    return cluster.pod(e.pod).phase != PodPhase::pending;
  });
  const bool moved_to_not_ready = std::any_of(full.existing.begin(), full.existing.end(), [&](const Placement& pl) {
    return cluster.pod(pl.pod).phase != PodPhase::pending
           && cluster.node(pl.node).lifecycle != NodeLifecycle::ready
           && std::find(from_deleting.begin(), from_deleting.end(), pl.pod) == from_deleting.end();
  });
  const bool spot_claim = full.claims.size() > 1
                          || (full.claims.size() == 1
                              && has_capacity_type(full.claims.front().requirements, model::k_capacity_spot));
  CAPSIM_CHECK(bound_fails || moved_to_not_ready || spot_claim,
               "consolidation: a simulation stopped early that consolidation would not reject");
}
#endif

namespace {

// Whether the context's last stop on a pod (SolveResult::stop_pod) answers a simulation of
// `candidates`: they lead the stopped simulation's candidates, the pod's node among them, and
// the pod has no room on the others (each node's room as its record has it: at least the room a
// solve gives it).
bool stops_again(const SimulationContext& ctx, std::span<const Candidate> candidates)
{
  const auto& s = ctx.scratch;
  if (s.stop_pod == cluster::k_none || candidates.size() > s.stopped_candidates.size()) {
    return false;
  }
  const auto& cluster = *ctx.cluster;
  const NodeIndex home = cluster.pod(s.stop_pod).node;
  bool kept = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].node != s.stopped_candidates[i]) {
      return false;
    }
    kept = kept || candidates[i].node == home;
  }
  if (!kept) {
    return false;
  }
  const model::Resources want = pod_requests(cluster.pod(s.stop_pod).pod());
  for (std::size_t i = candidates.size(); i < s.stopped_candidates.size(); ++i) {
    const auto& node = cluster.node(s.stopped_candidates[i]);
    const model::Resources room = node.allocatable - node.requested;
    if (want.cpu() <= room.cpu() && want.memory() <= room.memory() && want[model::k_pods] <= room[model::k_pods]) {
      return false;
    }
  }
  return true;
}

} // namespace

namespace {

// A simulation's solve input as far as it is the same for every way the simulation goes: the
// candidates excluded, the pending pods listed, the options set (`base_options` to restore).
struct SimulationStart
{
  SolveInput* in = nullptr;
  SolveOptions base_options;
  bool stop_on_delete_veto = false;
  bool no_pdbs = false;
};

void end_simulation(const SimulationStart& start);

SimulationStart start_simulation(const SimulationContext& ctx, std::span<const Candidate> candidates,
                                 bool consolidation, bool sketch, bool stop_on_delete_veto)
{
  const auto& cluster = *ctx.cluster;
  if (auto& held = ctx.scratch.held_stop_check) {
    end_simulation({&*ctx.scratch.input, *held});
    held.reset();
  }
  if (!ctx.scratch.input_current) {
    ctx.controller->fill_solve_input(ctx.scratch.input ? *ctx.scratch.input : ctx.scratch.input.emplace(), cluster,
                                     *ctx.actuator);
    ctx.scratch.input->cluster = &cluster;
    ctx.scratch.input_current = true;
  }
  SolveInput& in = *ctx.scratch.input;
  SimulationStart out{&in, in.options};
  in.excluded_nodes.clear();
  for (const auto& c : candidates) {
    in.excluded_nodes.push_back(c.node);
  }
  const auto& pending = cluster.pending();
  if (!ctx.deleting_pods) {
    auto& list = ctx.deleting_pods.emplace();
    const auto& disrupted = ctx.controller->disrupted_nodes(cluster);
#ifndef NDEBUG
    {
      std::vector<NodeIndex> walked;
      for (const NodeIndex n : cluster.alive_node_indices()) {
        const auto& node = cluster.node(n);
        if (node.lifecycle == NodeLifecycle::deleting || node.disrupted_taint) {
          walked.push_back(n);
        }
      }
      CAPSIM_CHECK(walked == disrupted, "consolidation: the kept list of disrupted nodes differs from a walk");
    }
#endif
    for (const NodeIndex n : disrupted) {
      const auto& node = cluster.node(n);
      for (const PodIndex p : node.pods) {
        if (currently_reschedulable(cluster.pod(p), ctx.pdbs, ctx.now)) {
          list.emplace_back(n, p);
        }
      }
    }
  }
  std::size_t candidate_pods = 0;
  for (const auto& c : candidates) {
    candidate_pods += c.reschedulable.size();
  }
  in.pods.reserve(pending.size() + candidate_pods + ctx.deleting_pods->size());
  // The pending pods lead every simulation of the context (the cluster stands still): listed once.
  if (ctx.scratch.pods_begin_with_pending) {
#ifndef NDEBUG
    CAPSIM_CHECK(in.pods.size() >= pending.size() && std::equal(pending.begin(), pending.end(), in.pods.begin()),
                 "consolidation: the remembered pending pods changed");
#endif
    in.pods.resize(pending.size());
  } else {
    in.pods.assign(pending.begin(), pending.end());
    ctx.scratch.pods_begin_with_pending = true;
  }
  in.pods_start_with_pending = true;
  if (!ctx.scratch.v113) {
    ctx.scratch.v113 = is_v113(ctx.version);
  }
  in.options.consolidation_simulation = consolidation && !*ctx.scratch.v113;
  // Consolidation reads the options only and rebuilds the requirement from those it keeps.
  in.options.omit_instance_type_requirement = consolidation;
  in.options.sketch_claims = sketch;
  // (The early stops and their memo assume a NodeClaim that may launch spot does; one holding a
  // capacity reservation launches reserved.)
  out.stop_on_delete_veto = stop_on_delete_veto && !in.reservation_used;
  in.options.stop_on_delete_veto = out.stop_on_delete_veto;
  in.options.now = ctx.now;
  out.no_pdbs = ctx.pdbs == nullptr || ctx.pdbs->empty();
  return out;
}

} // namespace

void SimulationContext::Scratch::recycle()
{
  input_current = false;
  pods_begin_with_pending = false;
  candidates.clear();
  from_deleting.clear();
  v113.reset();
  after_listed = false;
  after.clear();
  stopped_candidates.clear();
  stop_pod = cluster::k_none;
  held_stop_check.reset();
  hold = 0;
}

namespace {

void end_simulation(const SimulationStart& start)
{
  start.in->options = start.base_options;
  start.in->pods_start_with_pending = false;
  start.in->candidate_pod_counts.clear();
}

// A single candidate whose pods all move: its remembered stop is checked before its pods and the
// others are listed (a pass checks thousands of candidates, most answered so). True when the
// simulation stops so. `hold`: remembered_stop_holds' (0: none).
bool remembered_stop(const SimulationContext& ctx, const SimulationStart& start, std::span<const Candidate> candidates,
                     std::uint64_t hold = 0)
{
  if (!start.stop_on_delete_veto || candidates.size() != 1 || !candidates.front().plain_pods || !start.no_pdbs) {
    return false;
  }
  const SolveInput& in = *start.in;
  const auto& c = candidates.front();
#ifndef NDEBUG
  const auto& cluster = *ctx.cluster;
  CAPSIM_CHECK(cluster.node(c.node).lifecycle == NodeLifecycle::ready && !cluster.node(c.node).disrupted_taint,
               "consolidation: a candidate that is not Ready or is marked for deletion");
#endif
  auto& after = ctx.scratch.after;
  if (!ctx.scratch.after_listed) {
    after.clear();
    for (const auto& [n, p] : *ctx.deleting_pods) {
      after.push_back(p); // the candidate is not deleting: its pods are not among them
    }
    ctx.scratch.after_listed = true;
  }
  if (!remembered_stop_holds(in, c.pods_revision, c.reschedulable, after, hold)) {
    return false;
  }
#ifndef NDEBUG
  SolveInput all = in;
  all.pods.insert(all.pods.end(), c.reschedulable.begin(), c.reschedulable.end());
  all.pods.insert(all.pods.end(), after.begin(), after.end());
  check_stop_rejected(std::move(all), after);
#endif
  return true;
}

} // namespace

namespace {

// stops_on_remembered_veto past its quick answer: the set-up held or made, then remembered_stop.
// (Out of line: most candidates are answered without it.)
[[gnu::noinline]] bool remembered_stop_set_up(const SimulationContext& ctx, const Candidate& c, bool no_pdbs)
{
  auto& held = ctx.scratch.held_stop_check;
  SimulationStart start;
  if (held) {
    // Set up for the last candidate asked: only the node left out differs (start_simulation
    // ends the hold before any other simulation).
    start = {&*ctx.scratch.input, *held, ctx.scratch.input->options.stop_on_delete_veto, no_pdbs};
    start.in->excluded_nodes.front() = c.node;
  } else {
    start = start_simulation(ctx, std::span(&c, 1), true, true, true);
    held = start.base_options;
    ctx.scratch.hold = start.in->cache != nullptr ? start.in->cache->new_hold() : 0;
  }
#ifndef NDEBUG
  {
    // The same set-up as a fresh start would make.
    const SolveInput kept = *start.in;
    const SimulationStart fresh = start_simulation(ctx, std::span(&c, 1), true, true, true);
    CAPSIM_CHECK(fresh.stop_on_delete_veto == start.stop_on_delete_veto && fresh.no_pdbs == start.no_pdbs
                     && kept.excluded_nodes == fresh.in->excluded_nodes && kept.pods == fresh.in->pods
                     && kept.options.stop_on_delete_veto == fresh.in->options.stop_on_delete_veto
                     && kept.options.consolidation_simulation == fresh.in->options.consolidation_simulation
                     && kept.options.sketch_claims == fresh.in->options.sketch_claims
                     && kept.options.now == fresh.in->options.now,
                 "stops_on_remembered_veto: a held set-up differs from a fresh one");
    held = fresh.base_options;
  }
#endif
  return remembered_stop(ctx, start, std::span(&c, 1), ctx.scratch.hold);
}

} // namespace

bool stops_on_remembered_veto(const SimulationContext& ctx, const Candidate& c)
{
  // (compute_consolidation's simulation for the candidate alone, sketched, as far as its
  // remembered stop.)
  const bool sketch = c.spot && !ctx.spot_to_spot;
  if (!sketch || ctx.reasons) {
    return false;
  }
  const bool no_pdbs = ctx.pdbs == nullptr || ctx.pdbs->empty();
  // While the set-up is held, as remembered_stop takes the candidate, without the pass's checks.
  if (ctx.scratch.held_stop_check && c.plain_pods && no_pdbs && ctx.scratch.after_listed
      && remembered_stop_holds_again(*ctx.scratch.input, c.node, c.pods_revision, c.reschedulable.span(),
                                     ctx.scratch.after, ctx.scratch.hold)) {
    return true;
  }
  return remembered_stop_set_up(ctx, c, no_pdbs);
}

Simulation simulate_scheduling(const SimulationContext& ctx, std::span<const Candidate> candidates, bool consolidation,
                               bool sketch, bool stop_on_delete_veto)
{
  Simulation out; // the one result every return gives (returned in place)
  const auto& cluster = *ctx.cluster;
  const SimulationStart start = start_simulation(ctx, candidates, consolidation, sketch, stop_on_delete_veto);
  SolveInput& in = *start.in;
  stop_on_delete_veto = start.stop_on_delete_veto;
  const bool no_pdbs = start.no_pdbs;
  if (remembered_stop(ctx, start, candidates)) {
    end_simulation(start);
    out.result.stopped = true;
    out.failure = k_reason_not_recorded;
    return out;
  }
  std::vector<PodIndex>& from_deleting = ctx.scratch.from_deleting;
  // The pods that move besides the pending ones: the candidates', then those of deleting nodes
  // and of nodes marked for deletion by a command in flight (sorted: a per-pod flag array would
  // cost the whole pod history on every simulation).
  const auto list_moving_pods = [&] {
    in.candidate_pod_counts.clear();
    for (const auto& c : candidates) {
      const std::size_t listed = in.pods.size();
      const auto count = [&] {
        if (candidates.size() > 1) {
          in.candidate_pod_counts.push_back(static_cast<std::uint32_t>(in.pods.size() - listed));
        }
      };
      if (c.plain_pods && no_pdbs) { // bound pods all (NodeState::pods): no pod is read
#ifndef NDEBUG
        for (const PodIndex p : c.reschedulable) {
          CAPSIM_CHECK(currently_reschedulable(cluster.pod(p), ctx.pdbs, ctx.now), "consolidation: a stale candidate");
        }
#endif
        in.pods.insert(in.pods.end(), c.reschedulable.begin(), c.reschedulable.end());
        count();
        continue;
      }
      for (const PodIndex p : c.reschedulable) {
        if (currently_reschedulable(cluster.pod(p), ctx.pdbs, ctx.now)) {
          in.pods.push_back(p);
        }
      }
      count();
    }
    std::vector<NodeIndex>& is_candidate = ctx.scratch.candidates;
    is_candidate.assign(in.excluded_nodes.begin(), in.excluded_nodes.end());
    std::sort(is_candidate.begin(), is_candidate.end());
    from_deleting.clear();
    for (const auto& [n, p] : *ctx.deleting_pods) {
      if (!std::binary_search(is_candidate.begin(), is_candidate.end(), n)) {
        in.pods.push_back(p);
        from_deleting.push_back(p);
      }
    }
    std::sort(from_deleting.begin(), from_deleting.end());
  };
  // A stop on a longer prefix of the candidates answers before the pods are listed (a multi-node
  // pass answers most of its probes so).
  if (stop_on_delete_veto && stops_again(ctx, candidates)) {
#ifndef NDEBUG
    list_moving_pods();
    CAPSIM_CHECK(solve(in).stopped, "consolidation: a remembered stop on fewer candidates does not hold");
    check_stop_rejected(in, from_deleting);
#endif
    end_simulation(start);
    if (in.cache != nullptr) {
      in.cache->count_prefix_stop_hit();
    }
    out.result.stopped = true;
    out.failure = k_reason_not_recorded;
    return out;
  }
  list_moving_pods();
  out.result = solve(in);
  if (stop_on_delete_veto && out.result.stopped && out.result.stop_pod != cluster::k_none) {
    auto& nodes = ctx.scratch.stopped_candidates;
    nodes.clear();
    for (const auto& c : candidates) {
      nodes.push_back(c.node);
    }
    ctx.scratch.stop_pod = out.result.stop_pod;
  }
#ifndef NDEBUG
  if (out.result.stopped) {
    check_stop_rejected(in, from_deleting);
  }
#endif
  end_simulation(start);
  if (out.result.stopped) {
    out.failure = k_reason_not_recorded;
    return out;
  }
  for (const auto& e : out.result.errors) {
    const auto& p = cluster.pod(e.pod);
    if (p.phase != PodPhase::pending) {
      out.failure = "pod " + pod_label(p) + " fits nowhere: " + e.reason;
      return out;
    }
  }
  for (const auto& pl : out.result.existing) {
    const auto& node = cluster.node(pl.node);
    const auto& p = cluster.pod(pl.pod);
    if (node.lifecycle != NodeLifecycle::ready && p.phase != PodPhase::pending
        && !std::binary_search(from_deleting.begin(), from_deleting.end(), pl.pod)) {
      out.failure = "pod " + pod_label(p) + " would schedule against uninitialized node " + node.name;
      return out;
    }
  }
  return out;
}

ConsolidationOutcome compute_consolidation(const SimulationContext& ctx, std::span<const Candidate> candidates,
                                           Method method)
{
  ConsolidationOutcome out;
  const bool all_spot = std::all_of(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.spot; });
  // Spot candidates without spot-to-spot: a replacement that may be spot is rejected on sight,
  // so sketched claims are enough for most simulations (the full one follows when needed).
  const bool sketch = all_spot && !ctx.spot_to_spot;
  Simulation sim = simulate_scheduling(ctx, candidates, true, sketch, sketch && !ctx.reasons);
  if (!sim.failure.empty()) {
    out.rejected = std::move(sim.failure);
    return out;
  }
  const OfferingAvailable available = [&ctx](const catalog::InstanceType& t, const catalog::Offering& o) {
    return ctx.actuator->offering_launchable(t, o);
  };
  Command cmd;
  cmd.method = method;
  const auto& claims = sim.result.claims;
  if (claims.empty()) {
    cmd.candidates.assign(candidates.begin(), candidates.end());
    cmd.existing = std::move(sim.result.existing);
    cmd.savings_per_hour = estimated_savings(cmd, available);
    out.command = std::move(cmd);
    return out;
  }
  if (claims.size() != 1) {
    out.rejected = fmt::format("can't remove without creating {} nodes", claims.size());
    return out;
  }
  const double candidate_price = sum_prices(candidates);
  const bool spot_to_spot = all_spot && has_capacity_type(claims.front().requirements, model::k_capacity_spot);
  if (spot_to_spot && !ctx.spot_to_spot) {
    out.rejected = "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node";
    return out;
  }
  if (sketch && !spot_to_spot && !ctx.reasons && !launches_below(claims.front(), candidate_price, available)) {
    // The price filter below leaves the full claim no option: it has the sketch's options, and
    // offerings of them that its requirements allow are among those the sketch's allow.
#ifndef NDEBUG
    Simulation full = simulate_scheduling(ctx, candidates, true, false);
    CAPSIM_CHECK(full.failure.empty() && full.result.claims.size() == 1
                     && full.result.claims.front().instance_types == claims.front().instance_types,
                 "consolidation: the full simulation differs");
    NewNodeClaim& c = full.result.claims.front();
    CAPSIM_CHECK(!remove_options_by_price(c, candidate_price, available) || c.instance_types.empty(),
                 "consolidation: a replacement the sketch's prices rule out keeps an option");
#endif
    if (SolveCache* cache = ctx.scratch.input->cache) {
      cache->count_sketch_price_rejection();
    }
    out.rejected = k_reason_not_recorded;
    return out;
  }
  if (sketch) {
    // The same simulation with the full claim (same input, same result).
    sim = simulate_scheduling(ctx, candidates, true, false);
    CAPSIM_CHECK(sim.failure.empty() && sim.result.claims.size() == 1, "consolidation: the full simulation differs");
  }
  // Solve already orders the options by price (OrderByPrice: cheapest available compatible
  // offering, ties in catalog order), as computeConsolidation re-sorts them upstream.
  NewNodeClaim claim = std::move(sim.result.claims.front());
  claim.options_compatible = false; // the requirements change below; the launch re-checks
  if (spot_to_spot) {
    // computeSpotToSpotConsolidation
    restrict_capacity_type(claim.requirements, model::k_capacity_spot);
    std::vector<const catalog::InstanceType*> compatible;
    for (const auto* t : claim.instance_types) {
      if (cheapest_price(*t, claim.requirements, available) != k_inf) {
        compatible.push_back(t);
      }
    }
    claim.instance_types = std::move(compatible);
    const auto before = claim.instance_types; // remove_options_by_price changes only the options
    if (!remove_options_by_price(claim, candidate_price, available)) {
      out.rejected = "filtering by price breaks the NodePool's minValues";
      return out;
    }
    if (claim.instance_types.empty()) {
      out.rejected = price_rule_detail(claim, before, candidate_price, available);
      return out;
    }
    if (candidates.size() == 1) {
      if (claim.instance_types.size() < k_min_spot_to_spot_types) {
        out.rejected = fmt::format("SpotToSpotConsolidation requires {} cheaper instance type options than the "
                                   "current candidate to consolidate, got {}",
                                   k_min_spot_to_spot_types, claim.instance_types.size());
        return out;
      }
      std::size_t keep = k_min_spot_to_spot_types;
      if (const auto needed = min_values_needed(claim.instance_types, claim.requirements)) {
        keep = std::max(keep, *needed);
      }
      if (claim.instance_types.size() > keep) {
        claim.instance_types.resize(keep);
      }
    }
  } else {
    const auto before = claim.instance_types; // remove_options_by_price changes only the options
    if (!remove_options_by_price(claim, candidate_price, available)) {
      out.rejected = "filtering by price breaks the NodePool's minValues";
      return out;
    }
    if (claim.instance_types.empty()) {
      out.rejected = price_rule_detail(claim, before, candidate_price, available);
      return out;
    }
    // OD -> [OD, spot]: the prices above assumed spot; launch spot or nothing.
    if (has_capacity_type(claim.requirements, model::k_capacity_spot)
        && has_capacity_type(claim.requirements, model::k_capacity_on_demand)) {
      restrict_capacity_type(claim.requirements, model::k_capacity_spot);
    }
  }
  sync_instance_type_requirement(claim);
  cmd.candidates.assign(candidates.begin(), candidates.end());
  cmd.existing = std::move(sim.result.existing);
  cmd.replacements.push_back(std::move(claim));
  cmd.savings_per_hour = estimated_savings(cmd, available);
  out.command = std::move(cmd);
  return out;
}

std::optional<Command> first_n_consolidation(const SimulationContext& ctx, std::span<const Candidate> candidates,
                                             std::size_t max, const OfferingAvailable& available,
                                             const std::function<bool(const Command&)>& approve)
{
  if (candidates.size() < 2) {
    return std::nullopt;
  }
  std::size_t lo = 1;
  std::size_t hi = candidates.size() <= max ? candidates.size() - 1 : max;
  std::optional<Command> best;
  while (lo <= hi) {
    const std::size_t mid = (lo + hi) / 2;
    const auto batch = candidates.first(mid + 1);
    auto outcome = compute_consolidation(ctx, batch, Method::multi_node);
    bool valid = false;
    if (outcome.command) {
      auto& cmd = *outcome.command;
      if (!cmd.is_replace()) {
        valid = true;
      } else if (filter_out_same_instance_type(ctx, cmd.replacements.front(), batch, available)) {
        cmd.savings_per_hour = estimated_savings(cmd, available);
        valid = true;
      }
      if (valid && approve) {
        valid = approve(cmd);
      }
    }
    if (valid) {
      best = std::move(outcome.command);
      lo = mid + 1;
    } else {
      if (mid == 0) {
        break;
      }
      hi = mid - 1;
    }
  }
  return best;
}

bool filter_out_same_instance_type(const SimulationContext& ctx, NewNodeClaim& replacement,
                                   std::span<const Candidate> candidates, const OfferingAvailable& available)
{
  std::map<std::string, double, std::less<>> price_by_type; // cheapest candidate per type
  for (const auto& c : candidates) {
    if (c.instance_type == nullptr) {
      continue;
    }
    const auto& node = ctx.cluster->node(c.node);
    auto [it, inserted] = price_by_type.emplace(c.instance_type->name, k_inf);
    bool found = false;
    double cheapest = k_inf;
    for (const auto& o : c.instance_type->offerings) {
      if (o.zone == node.zone && o.capacity_type == node.capacity_type) {
        found = true;
        cheapest = std::min(cheapest, o.price_per_hour);
      }
    }
    if (!found) {
      if (inserted) {
        it->second = 0; // upstream reads a missing map entry as 0
      }
      continue;
    }
    it->second = std::min(it->second, cheapest);
  }
  double max_price = k_inf;
  for (const auto* t : replacement.instance_types) {
    auto it = price_by_type.find(t->name);
    if (it != price_by_type.end()) {
      max_price = std::min(max_price, it->second == k_inf ? 0.0 : it->second);
    }
  }
  if (max_price == k_inf) {
    max_price = std::numeric_limits<double>::max();
  }
  if (!remove_options_by_price(replacement, max_price, available)) {
    return false;
  }
  sync_instance_type_requirement(replacement);
  return !replacement.instance_types.empty();
}

double balanced_score(double savings, double disruption, const PoolTotals& totals)
{
  if (totals.total_cost <= 0 || totals.total_disruption <= 0) {
    return 0;
  }
  const double sf = savings / totals.total_cost;
  const double df = disruption / totals.total_disruption;
  if (sf <= 0) {
    return 0;
  }
  return df == 0 ? k_inf : sf / df;
}

bool balanced_can_pass(const Candidate& c, const std::vector<model::NodePool>& pools,
                       const std::vector<PoolTotals>& totals)
{
  if (c.pool >= pools.size() || pools[c.pool].consolidation_policy != model::ConsolidationPolicy::balanced) {
    return true;
  }
  const auto& t = totals[c.pool];
  if (t.total_cost <= 0) {
    return true;
  }
  return balanced_score(c.price, c.reschedule_cost, t) >= 1.0 / k_balanced_k;
}

bool balanced_approves(const Command& cmd, const std::vector<model::NodePool>& node_pools,
                       const std::vector<PoolTotals>& totals,
                       std::string* why)
{
  if (cmd.candidates.empty()) {
    return false;
  }
  std::set<std::uint32_t> pools;
  double source = 0;
  for (const auto& c : cmd.candidates) {
    pools.insert(c.pool);
    source += c.price;
  }
  bool approved = true;
  for (const auto pool : pools) {
    if (pool >= node_pools.size() || node_pools[pool].consolidation_policy != model::ConsolidationPolicy::balanced) {
      continue;
    }
    double pool_cost = 0;
    double disruption = 0;
    for (const auto& c : cmd.candidates) {
      if (c.pool == pool) {
        pool_cost += c.price;
        disruption += c.reschedule_cost;
      }
    }
    double savings = cmd.savings_per_hour;
    if (source > 0 && pools.size() > 1) {
      savings = savings * (pool_cost / source);
    }
    const auto& t = totals[pool];
    const double score = balanced_score(savings, disruption, t);
    if (score < 1.0 / k_balanced_k) {
      approved = false;
      if (why != nullptr && why->empty()) {
        *why = fmt::format("Balanced policy of NodePool {}: score {:.3f} below 1/k = {:.3f} (savings ${:.4f}/h of "
                           "${:.4f}/h, disruption {:.2f} of {:.2f})",
                           node_pools[pool].name, score, 1.0 / k_balanced_k, savings, t.total_cost,
                           disruption, t.total_disruption);
      }
    }
  }
  return approved;
}

std::string instance_type_list(const std::vector<const catalog::InstanceType*>& options)
{
  std::string out;
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (i > 4) {
      out += fmt::format(" and {} other(s)", options.size() - i);
      break;
    }
    if (i > 0) {
      out += ", ";
    }
    out += options[i]->name;
  }
  return out;
}

} // namespace capsim::karpenter
