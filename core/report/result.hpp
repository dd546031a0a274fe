#pragma once

#include "core/base/units.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace capsim::report {

// One row of `--timeline STEP`: the cluster at time t.
struct TimelineRow
{
  SimTime t = 0;
  std::int64_t nodes = 0;
  double cost_rate_per_hour = 0; // USD/h of the nodes alive at t
  double cost_cumulative = 0;    // USD billed up to t
  std::int64_t pending = 0;
  std::int64_t cpu_requested_m = 0;
  std::int64_t cpu_allocatable_m = 0;
  std::int64_t memory_requested = 0; // bytes
  std::int64_t memory_allocatable = 0;
  std::map<std::string, std::int64_t> nodes_by_type; // instance-type mix
};

// A disruption or scaling decision, for --explain and the HTML report.
struct Decision
{
  SimTime t = 0;
  // provisioning | emptiness | drift | multi-node | single-node | expiration | interruption | static
  // | nodepool | nodeclass (Karpenter); scale-up | scale-down (Cluster Autoscaler)
  std::string method;
  std::string candidate; // node name(s), comma separated
  std::string action;    // delete | replace | keep | launch | ...
  std::string detail;    // replacement types, blocking reason, ...
  double saving_per_hour = 0;
};

struct FinalNode
{
  std::string name;
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  std::string pool; // NodePool, NodeGroup or "static"
  double price_per_hour = 0;
  std::int64_t pods = 0; // bound pods, DaemonSet pods not counted
};

// The result of one engine over one scenario: the SPEC §7 JSON "results" entry.
struct EngineResult
{
  std::string engine; // karpenter | cluster-autoscaler

  struct Cost
  {
    double total_usd = 0;
    double on_demand_usd = 0;
    double spot_usd = 0;
    std::map<std::string, double> by_pool;
    double effective_total_usd = 0; // after spec.pricing adjustments (== total when none)
  } cost;

  struct Nodes
  {
    std::int64_t launched = 0;
    std::int64_t terminated = 0;
    std::int64_t peak = 0;
    double average = 0;
    std::int64_t final_count = 0;
    double node_hours = 0;
  } nodes;

  struct Pods
  {
    std::int64_t total = 0;
    std::int64_t scheduled = 0;
    std::int64_t unschedulable = 0;
    std::int64_t evicted = 0;
    std::int64_t lost = 0;
    double pending_p50_s = 0;
    double pending_p95_s = 0;
    double pending_max_s = 0;
  } pods;

  struct Utilization
  {
    double cpu = 0;
    double memory = 0;
  } utilization;

  struct Disruptions
  {
    std::int64_t emptiness = 0;
    std::int64_t consolidation_delete = 0;
    std::int64_t consolidation_replace = 0;
    std::int64_t expiration = 0;
    std::int64_t drift = 0;
    std::int64_t spot_interruption = 0;
    std::int64_t scale_down = 0; // Cluster Autoscaler scale-down
  } disruptions;

  struct LowerBound
  {
    double total_usd = 0;
    double efficiency = 0;
  } lower_bound;

  std::vector<FinalNode> final_nodes; // sorted by name
  std::vector<TimelineRow> timeline;  // only with --timeline
  std::vector<Decision> decisions;    // only with --explain
  std::vector<std::string> warnings;
};

// The whole run: SPEC §7's top-level object.
struct RunResult
{
  std::string version;
  std::string scenario;
  std::uint64_t seed = 0;
  std::string region;
  Duration duration = 0;
  std::vector<EngineResult> results;
};

} // namespace capsim::report
