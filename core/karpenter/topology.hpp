#pragma once

#include "core/karpenter/reqs.hpp"
#include "core/model/kube.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace capsim::karpenter {

// Karpenter's topology tracking (topology.go, topologygroup.go, topologynodefilter.go):
// one group per distinct (type, key, namespaces, selector, maxSkew, node filter) counts the
// pods matching its selector per domain. Spread and affinity groups constrain the pods that
// own them; inverse anti-affinity groups (one per required anti-affinity term of a pod)
// constrain the pods their selector matches.
//
// Go map iteration order is replaced by deterministic choices: when several domains are
// equally good, the lexicographically smallest domain name wins.

enum class TopologyType : std::uint8_t { spread, affinity, anti_affinity };

// Which nodes count for a topology spread constraint (nodeAffinityPolicy / nodeTaintsPolicy).
// Inactive (affinity groups) matches every node.
struct NodeFilter
{
  bool active = false;
  std::vector<ReqSet> terms; // nodeSelector ∧ each required term (ORed); empty = any node
  bool honor_taints = false;
  bool honor_affinity = true;
  std::vector<model::Toleration> tolerations;

  [[nodiscard]] bool matches(const std::vector<model::Taint>& taints, const ReqSet& node, const Interner& in) const;
};

struct TopologyGroup
{
  TopologyType type = TopologyType::spread;
  KeyId key = 0;
  bool hostname = false; // key is kubernetes.io/hostname
  std::vector<std::string> namespaces; // sorted
  bool all_namespaces = false;
  bool selector_nil = false; // a term without labelSelector selects no pod (but counts all existing ones)
  model::LabelSelector selector;
  std::int32_t max_skew = 0;
  std::optional<std::int32_t> min_domains;
  NodeFilter filter;

  // Registered domains and their counts (non-hostname keys); sorted by value id.
  std::vector<std::pair<ValueId, std::int32_t>> domains;
  // Hostname keys: counts of hostnames with matching pods, sorted by value id (registered empty
  // hostnames are not stored; nothing upstream distinguishes them from unknown ones for the
  // hostname key). A solve starts from the kept counts in order, so filling it is appending.
  // In-round NodeClaims (ids from k_claim_host_base) are counted in a dense vector.
  std::vector<std::pair<ValueId, std::int32_t>> host_counts;
  std::vector<std::int32_t> claim_counts;
  std::int32_t nonzero = 0; // domains with a count > 0

  [[nodiscard]] bool namespace_matches(const std::string& ns) const;
  // selects(pod): namespace and selector match (a nil selector selects nothing).
  [[nodiscard]] bool selects(const model::PodSpec& spec) const;
  // Existing pods counted by countDomains (a nil selector lists every pod of the namespaces).
  [[nodiscard]] bool counts_existing(const model::PodSpec& spec) const;

  [[nodiscard]] std::int32_t count(ValueId d) const
  {
    if (hostname && d >= k_claim_host_base) {
      const std::size_t i = d - k_claim_host_base;
      return i < claim_counts.size() ? claim_counts[i] : 0;
    }
    return count_slow(d);
  }
  [[nodiscard]] std::int32_t count_slow(ValueId d) const;
  // Domains with a count of 0 among the registered ones (non-hostname keys).
  [[nodiscard]] bool has_empty_domain() const;
  [[nodiscard]] bool registered(ValueId d) const;
  void register_domain(ValueId d);
  void record(ValueId d, std::int32_t n = 1); // n > 0 more pods in domain d
};

// A deterministic, comparable key for deduplicating groups (upstream's TopologyGroup.Hash).
[[nodiscard]] std::string group_identity(const TopologyGroup& g, const Interner& in);

// The domains a pod may use for group g on a node whose requirement for g.key is
// node_domains (Get in topologygroup.go). DoesNotExist when none.
[[nodiscard]] Req next_domain(const TopologyGroup& g, bool self_selecting, const Req& pod_domains,
                              const Req& node_domains, const Interner& in);

} // namespace capsim::karpenter
