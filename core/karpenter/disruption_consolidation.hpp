#pragma once

#include "core/base/units.hpp"
#include "core/cluster/cluster.hpp"
#include "core/karpenter/disruption_candidates.hpp"
#include "core/karpenter/launch.hpp"
#include "core/karpenter/solve.hpp"
#include "core/model/requirements.hpp"
#include "core/sim/controller.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace capsim::karpenter {

class KarpenterController;

// Consolidation by re-simulation (core:pkg/controllers/disruption/consolidation.go
// computeConsolidation, helpers.go SimulateScheduling, multinodeconsolidation.go
// filterOutSameInstanceType, balanced.go): the provisioning scheduler re-run with the candidates
// removed, and the price rules that turn its result into Delete, Replace or nothing.

enum class Method : std::uint8_t { emptiness, drift, multi_node, single_node };

[[nodiscard]] std::string_view to_string(Method method);

// A disruption command: candidates to remove and the NodeClaims to launch first.
struct Command
{
  Method method = Method::emptiness;
  std::vector<Candidate> candidates;
  std::vector<NewNodeClaim> replacements; // instance-type options filtered by the price rules
  std::vector<Placement> existing;        // simulated placements on existing nodes (nominations)
  double savings_per_hour = 0;            // Command.EstimatedSavings

  [[nodiscard]] bool is_replace() const { return !replacements.empty(); }
};

// What a simulation reads besides the candidates.
struct SimulationContext
{
  KarpenterController* controller = nullptr;
  const cluster::Cluster* cluster = nullptr;
  const sim::Actuator* actuator = nullptr;
  const PdbLimits* pdbs = nullptr;
  SimTime now = 0;
  std::string version = "1.14"; // settings.karpenter.version
  bool spot_to_spot = false;    // feature gate SpotToSpotConsolidation
  // Whether rejections need their reasons (--explain). Without, a simulation that can only
  // delete stops at the first sign of a veto (SolveOptions::stop_on_delete_veto) and the
  // rejection reads k_reason_not_recorded.
  bool reasons = true;
  // The currently reschedulable pods of deleting and marked-for-deletion nodes, with their
  // node, in node order: worked out on the first simulation, since a context is used while
  // the cluster stands still (a pass simulates each candidate against the same cluster).
  mutable std::optional<std::vector<std::pair<cluster::NodeIndex, cluster::PodIndex>>> deleting_pods;
  // Buffers the simulations run with this context reuse (a pass runs thousands). A caller that
  // runs many contexts may hand one context's on to the next (recycle()): a poll makes two.
  struct Scratch
  {
    std::optional<SolveInput> input;      // the controller's solve input, made on first use
    bool input_current = false;           // `input` is this context's (not a recycled one's)
    bool pods_begin_with_pending = false; // input->pods still starts with the cluster's pending pods
    std::vector<cluster::NodeIndex> candidates;
    std::vector<cluster::PodIndex> from_deleting;
    std::optional<bool> v113;             // is_v113(version), once per context
    bool after_listed = false;            // `after` holds deleting_pods' pods
    std::vector<cluster::PodIndex> after; // for remembered_stop_holds
    // The last simulation that stopped on a pod (SolveResult::stop_pod) and its candidates, in
    // order: multi-node's binary search simulates shorter prefixes of one list after a stop.
    std::vector<cluster::NodeIndex> stopped_candidates;
    cluster::PodIndex stop_pod = cluster::k_none;
    // stops_on_remembered_veto leaves the input set up between its calls (a single-node pass
    // asks it of hundreds of candidates in a row, and they differ only in the node left out):
    // the options to restore before any other simulation starts, while it is held.
    std::optional<SolveOptions> held_stop_check;
    std::uint64_t hold = 0; // remembered_stop_holds' id of the hold (SolveCache::new_hold)

    // As made, keeping the buffers (the input is filled again on first use).
    void recycle();
  };
  mutable Scratch scratch;
};

inline constexpr const char* k_reason_not_recorded = "rejected";

// SimulateScheduling's outcome. `failure` names the first non-pending pod that would not be
// scheduled (or would land on an uninitialized node); "" when every non-pending pod fits.
struct Simulation
{
  SolveResult result;
  std::string failure;
};

// Existing nodes = active nodes minus the candidates; pods = pending pods + the candidates'
// currently reschedulable pods (no active do-not-disrupt, no fully blocking PDB) + those of
// deleting and marked-for-deletion nodes. `consolidation` sets IsConsolidationSimulation
// (v1.14+ consolidateAfter destination rule) and leaves the instance-type requirement out of
// new claims (consolidation reads their options and rebuilds it from the ones it keeps).
// `sketch`: new claims as SolveOptions::sketch_claims describes; `stop_on_delete_veto`: as
// SolveOptions describes (a stopped solve is a failure reading k_reason_not_recorded).
[[nodiscard]] Simulation simulate_scheduling(const SimulationContext& ctx, std::span<const Candidate> candidates,
                                             bool consolidation, bool sketch = false, bool stop_on_delete_veto = false);

// Whether compute_consolidation would reject the candidate alone at its simulation's remembered
// stop (remembered_stop_holds), before a solve and reading k_reason_not_recorded; false when that
// takes more. A single-node pass asks it of every candidate first: most are answered so, without a
// simulation result or an outcome made for them.
[[nodiscard]] bool stops_on_remembered_veto(const SimulationContext& ctx, const Candidate& c);

// Offering prices (worst_launch_price, cheapest_price) come from core/karpenter/launch.hpp.

// InstanceTypes.SatisfiesMinValues over the options in order: how many of the first options
// are needed to satisfy every minValues requirement (0 without minValues); nullopt when the
// whole list does not.
[[nodiscard]] std::optional<std::size_t> min_values_needed(const std::vector<const catalog::InstanceType*>& options,
                                                           const model::Requirements& reqs);

// RemoveInstanceTypeOptionsByPriceAndMinValues: keeps options whose worst launch price is
// strictly below max_price. Returns false when minValues are no longer satisfied.
[[nodiscard]] bool remove_options_by_price(NewNodeClaim& claim, double max_price, const OfferingAvailable& available);

// Command.EstimatedSavings: candidates' price minus, per replacement, the cheapest available
// compatible offering of its first option.
[[nodiscard]] double estimated_savings(const Command& cmd, const OfferingAvailable& available);

// A consolidation decision, or why there is none.
struct ConsolidationOutcome
{
  std::optional<Command> command;
  std::string rejected;
};

// computeConsolidation for a set of candidates (single- or multi-node).
[[nodiscard]] ConsolidationOutcome compute_consolidation(const SimulationContext& ctx,
                                                         std::span<const Candidate> candidates, Method method);

// firstNConsolidationOption (multinodeconsolidation.go): binary search for the largest prefix
// [0, mid] of the sorted candidates (mid < max) that consolidates into a delete or one cheaper
// replacement; `approve` (optional) can veto a command (the Balanced policy).
[[nodiscard]] std::optional<Command> first_n_consolidation(const SimulationContext& ctx,
                                                           std::span<const Candidate> candidates, std::size_t max,
                                                           const OfferingAvailable& available,
                                                           const std::function<bool(const Command&)>& approve = {});

// filterOutSameInstanceType (multi-node): when the replacement options include a candidate's
// instance type, keep only options cheaper than the cheapest such candidate. Returns false when
// minValues break or nothing is left.
[[nodiscard]] bool filter_out_same_instance_type(const SimulationContext& ctx, NewNodeClaim& replacement,
                                                 std::span<const Candidate> candidates, const OfferingAvailable& available);

// Balanced consolidation (v1.14, balanced.go): per-pool totals of price and disruption cost.
struct PoolTotals
{
  double total_cost = 0;
  double total_disruption = 0;
};

// Balanced k: approve when (savings / pool cost) / (disruption / pool disruption) >= 1/k.
inline constexpr int k_balanced_k = 2;

// ScoreMove: (savings / total cost) / (disruption / total disruption); 0 when savings <= 0 or a
// total is not positive, +infinity when the move's disruption is 0.
[[nodiscard]] double balanced_score(double savings, double disruption, const PoolTotals& totals);

// Every Balanced pool of the command approves the move (others pass through). `why` gets the
// score of a rejection.
[[nodiscard]] bool balanced_approves(const Command& cmd, const std::vector<model::NodePool>& pools,
                                     const std::vector<PoolTotals>& totals, std::string* why);

// CanPassThreshold: a Delete of the candidate (the best case) would pass the Balanced score.
[[nodiscard]] bool balanced_can_pass(const Candidate& c, const std::vector<model::NodePool>& pools,
                                     const std::vector<PoolTotals>& totals);

// Names of the first options ("a, b, c and 4 other(s)"), as upstream's InstanceTypeList.
[[nodiscard]] std::string instance_type_list(const std::vector<const catalog::InstanceType*>& options);

inline constexpr std::size_t k_min_spot_to_spot_types = 15; // MinInstanceTypesForSpotToSpotConsolidation
inline constexpr std::size_t k_multi_node_max_candidates = 100;

} // namespace capsim::karpenter
