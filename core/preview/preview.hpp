#pragma once

#include "core/base/units.hpp"
#include "core/io/cluster_dump.hpp"

#include <optional>
#include <string>
#include <vector>

namespace capsim::preview {

// `capsim preview` (docs/preview.md): what Karpenter and the Cluster Autoscaler baseline would
// do NOW to a live cluster rebuilt offline from kubectl dumps (io::load_cluster_dump).
//
// Karpenter: one disruption pass at `now` with the cluster as dumped, through the disruption
// module's own pieces (candidates, budgets, emptiness, multi-node first-N search, single-node
// computeConsolidation and the price rules). The pass yields
//  - `next_command`: the one command Karpenter would start first (emptiness, else multi-node,
//    else the first valid single-node candidate in Karpenter's order), and
//  - a verdict for every node: the next command's action for its nodes; for every other
//    candidate what single-node consolidation would conclude for it alone (each evaluated
//    against the cluster as dumped, so independent verdicts are not additive); for the rest
//    the reason it is not a candidate.
// Cluster Autoscaler: its scale-down simulation (utilization threshold, drainability rules,
// removal simulation with moves kept, node group min sizes) over nodes of EKS node groups and
// of NodePools (each NodePool taken as a node group of min size 0).

struct PreviewOptions
{
  SimTime now = -1;        // Unix ms; -1 = the newest timestamp in the dump
  std::string catalog_dir; // "" = the embedded catalog
};

// A node's replacement (one NodeClaim) as Karpenter would launch it.
struct Replacement
{
  std::vector<std::string> instance_types; // options after the price rules, cheapest first
  std::string instance_type;               // what the launch picks
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
};

struct KarpenterCommand
{
  std::string method; // emptiness | multi-node | single-node
  std::string action; // delete | replace
  std::vector<std::string> nodes;
  std::optional<Replacement> replacement;
  double saving_per_hour = 0;
  std::string detail;
};

struct NodeVerdict
{
  std::string name;
  std::string instance_type; // "" when the node has no instance-type label
  std::string zone;
  std::string capacity_type;
  std::string pool; // NodePool, EKS node group, or "" (static)
  double price_per_hour = 0;
  std::size_t pods = 0;   // bound pods that would move (DaemonSet and static pods excluded)
  std::string decision;   // delete | replace | keep (Karpenter); scale-down | keep (CA)
  std::string method;     // Karpenter: emptiness | multi-node | single-node | expiration | ""
  bool in_next_command = false;
  std::optional<Replacement> replacement;
  double saving_per_hour = 0;
  // Why the node is kept (or what the action does): a stable code and a sentence.
  std::string reason_code;
  std::string reason;
  // Cluster Autoscaler only.
  double utilization = 0; // max(cpu, memory) requests / allocatable, DaemonSets included
  double cpu_utilization = 0;
  double memory_utilization = 0;
};

struct PreviewResult
{
  SimTime now = 0;
  std::string region;
  std::string catalog; // "default" or the folder
  std::size_t pods = 0;
  std::size_t pending_pods = 0;
  std::optional<KarpenterCommand> next_command;
  std::vector<NodeVerdict> karpenter; // sorted by node name
  std::vector<NodeVerdict> cluster_autoscaler; // sorted by node name
  double ca_threshold = 0.5;
  Duration ca_unneeded_time = 0;
  std::vector<std::string> warnings;
};

// Runs both previews. Throws InputError for a bad catalog folder or region.
[[nodiscard]] PreviewResult run_preview(const io::ClusterDump& dump, const PreviewOptions& options);

// Hours in the "monthly" figures (AWS's 730-hour month).
inline constexpr double k_hours_per_month = 730.0;

// Renderers: a text report for the terminal and the stable JSON (docs/preview.md).
[[nodiscard]] std::string render_text(const PreviewResult& result);
[[nodiscard]] std::string render_json(const PreviewResult& result);

// Unix ms as RFC 3339 UTC ("2026-11-29T12:00:00Z").
[[nodiscard]] std::string format_utc(SimTime unix_ms);

} // namespace capsim::preview
