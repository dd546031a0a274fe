#pragma once

#include "core/io/json_items.hpp"
#include "core/model/scenario.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// Reads a scenario file: one YAML stream of Kubernetes-style documents (SPEC §2), with
// `--set PATH=VALUE` overrides applied to the documents before they are converted (see
// set_override.hpp). Paths inside the scenario (traces, catalog folder) are resolved against
// the scenario file's folder. Every problem is collected and thrown as one InputError, each line
// "FILE:LINE:COL: error: ..."; hostile input (binary, deep nesting, alias bombs, absurd numbers)
// is refused the same way. Traces are not read here (see workload.hpp).
[[nodiscard]] model::Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets = {});

// The same from text already in memory. `source_name` names the text in messages and is the
// base for relative paths (a file path, or e.g. "<stdin>").
[[nodiscard]] model::Scenario parse_scenario(std::string_view text, const std::string& source_name,
                                             const std::vector<std::string>& sets = {});

// Leniency for live-cluster dumps read by io::load_cluster_dump (`capsim preview`), never for
// scenario files: Nodes without instance-type or zone labels are accepted (static, price
// unknown); Node status resources with names capsim does not know (attachable-volumes-aws-ebs,
// ...) are ignored; a Node labelled with a NodePool or NodeGroup that is not in the stream is
// static; a Pod bound to a Node that is not in the stream is dropped; the YAML node budget
// applies to each item of a List rather than to the whole List.
struct ParseOptions
{
  bool cluster_dump = false;

  // A JSON List of the stream whose items are parsed one at a time, a Pod or Node only when it
  // is read, instead of as one YAML tree (~50 bytes of memory per byte of JSON). The stream holds
  // the List with its items blanked out (io::load_cluster_dump): an empty array at
  // `items_line`/`items_column` (0-based, in the stream), and `text` is the List's own text,
  // whose first line is the stream's `first_line`. Pods are not --set targets: no `sets` then.
  struct ItemList
  {
    std::string_view text;
    std::span<const JsonItem> items;
    int first_line = 0;
    int items_line = 0;
    int items_column = 0;
  };
  std::vector<ItemList> item_lists;

  // For messages that name another line ("first defined on line N"): the line of its own file
  // that a line of the stream is (a cluster dump's stream joins several files).
  std::function<std::uint32_t(std::uint32_t)> file_line;
};

[[nodiscard]] model::Scenario parse_scenario(std::string_view text, const std::string& source_name,
                                             const std::vector<std::string>& sets, const ParseOptions& options);

// Limits on what a scenario may ask for; beyond them the input is refused as absurd.
inline constexpr std::int64_t k_max_replicas = 10'000'000;
inline constexpr std::size_t k_max_yaml_nodes = 2'000'000; // after alias expansion, per document
inline constexpr int k_max_yaml_depth = 64;
inline constexpr Duration k_max_sim_duration = 3660 * k_day; // ten years

// The hash of the NodePool fields whose change makes Karpenter mark nodes drifted (template
// labels, annotations, taints, startupTaints, expireAfter, terminationGracePeriod,
// nodeClassRef; not requirements, disruption, limits or weight). FNV-1a over a canonical text.
[[nodiscard]] std::uint64_t node_pool_template_hash(const model::NodePool& pool);

} // namespace capsim::io
