#include "core/scheduling/kube_scheduler.hpp"

#include "core/base/diagnostics.hpp"
#include "core/scheduling/score_memos.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <map>
#include <tuple>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace capsim::scheduling {

namespace {

using cluster::k_none;
using cluster::NodeIndex;
using cluster::PodIndex;

// The hypothetical node of a cycle (a Cluster Autoscaler template), in place of a node index.
constexpr NodeIndex k_extra = k_none - 1;
// Not looked up yet.
constexpr std::uint32_t k_unset = k_none - 1;
// Fixed topology key ids, interned first.
constexpr std::uint32_t k_hostname_key = 0;
constexpr std::uint32_t k_zone_key = 1;

const model::PodSpec& empty_spec()
{
  static const model::PodSpec spec;
  return spec;
}

// One LabelSelector plus the namespaces it applies to; a pod matches when both hold.
// `nothing` is a missing selector, which matches no pod.
struct Clause
{
  bool nothing = false;
  model::LabelSelector selector;
  bool all_namespaces = false;
  std::vector<std::string> namespaces; // sorted, unique
};

// A conjunction of clauses (one per term), interned by content. Counted matchers keep the
// number of bound pods matching them on every node, updated on each binding change.
struct Matcher
{
  std::vector<Clause> clauses;
  bool counted = false;
  std::vector<std::int32_t> node_count; // per node, when counted
};

// A label key used for topology, with each node's value interned as a domain id.
struct TopologyKey
{
  std::string key;
  std::vector<std::uint32_t> node_domain; // per node; k_none when the node lacks the label
  std::unordered_map<std::string, std::uint32_t> ids;
};

// nodeSelector + required node affinity shared by pods, with a per-node cache of the result
// (-1 unknown, 0 no, 1 yes), reset whenever the node changes.
struct AffinityClass
{
  model::PodSpec spec; // only node_selector and required_node_affinity are set
  std::vector<std::int8_t> eligible;
};

struct HardSpread
{
  std::uint32_t matcher = k_none;
  std::uint32_t key = k_none;
  std::int32_t max_skew = 1;
  std::int32_t min_domains = 1;
  bool affinity_honor = true;
  bool taints_honor = false;
  bool self_match = false;
};

struct SoftSpread
{
  std::uint32_t matcher = k_none; // k_none: pods of the same PodSpec (system defaults)
  std::uint32_t key = k_none;
  std::int32_t max_skew = 1;
  bool hostname = false;
  bool affinity_honor = true;
  bool taints_honor = false;
};

struct PodTerm
{
  std::uint32_t matcher = k_none;
  std::uint32_t key = k_none;
  std::int64_t weight = 0;
};

enum class OwnerKind : std::uint8_t { required_anti, required_affinity, preferred };

// A (anti-)affinity term of pods already bound, checked against incoming pods: required
// anti-affinity filters, the others score (required affinity with hardPodAffinityWeight 1).
struct OwnerTerm
{
  std::uint32_t group = k_none;
  OwnerKind kind = OwnerKind::preferred;
  std::vector<Clause> clauses;
  std::uint32_t key = k_none;
  std::int64_t weight = 0;
};

// Everything derived from one PodSpec (pods of one controller share it).
struct Group
{
  model::PodSpecPtr holder; // keeps the spec alive, so its address stays unique
  const model::PodSpec* spec = nullptr;
  std::uint32_t affinity_class = k_none;
  std::uint32_t volume_class = k_none; // the volumes' node affinity as a class of its own
  bool volume_error = false;           // PodSpec::volume_error: no node passes VolumeBinding
  // The group its pods are counted in (node_counts, live, owner terms): itself, or for a spec
  // pinned to a zone by its claim the group of the spec it came from, so a StatefulSet's pods
  // stay one workload.
  std::uint32_t count_gid = k_none;
  bool has_ports = false;
  bool tolerates_unschedulable = false;
  bool default_spread = false;
  bool owns_terms = false;
  bool tracked = false; // keeps node_counts
  bool retry_on_any_change = false;
  bool has_preferred_node_affinity = false;

  bool prepared = false;
  std::vector<HardSpread> hard;
  std::vector<SoftSpread> soft;
  std::uint32_t affinity_matcher = k_none;
  std::vector<std::uint32_t> affinity_keys;
  bool self_affinity = false;
  std::vector<PodTerm> anti;
  std::vector<PodTerm> preferred;

  std::vector<std::uint32_t> member_of; // counted matchers its pods match
  std::size_t member_checked = 0;
  std::vector<std::uint32_t> owner_matches; // owner terms that match its pods
  std::size_t owner_checked = 0;

  bool terms_registered = false;
  std::vector<std::pair<NodeIndex, std::uint32_t>> node_counts; // bound pods per node
  std::uint32_t live = 0;
};

// Hot per-node state, refreshed from the cluster when the node or its bindings change.
// The flags and the free cpu, memory and pods share the first cache line: filtering reads them
// for hundreds of nodes per pod and little else.
struct alignas(64) NodeView
{
  bool in_snapshot = false; // a Node object exists (registered, ready or deleting)
  bool ready = false;
  bool cordoned = false; // deleting or terminated
  bool disrupted = false;
  bool hard_taints = false;
  bool soft_taints = false;
  model::Resources free; // allocatable - requested
  std::int64_t alloc_cpu = 0;
  std::int64_t alloc_mem = 0;
  std::int64_t req_cpu = 0;
  std::int64_t req_mem = 0;
  std::int64_t nz_extra_cpu = 0; // default requests of pods that request no cpu
  std::int64_t nz_extra_mem = 0;
};

// What a scheduling cycle reads of a node, by its position in the snapshot node list, in
// contiguous arrays: filtering tests room over hundreds of nodes per pod in that order (the
// 32-bit room arrays, then QuickView for the uncertain ones and ScanTraits for those with room),
// and scoring reads the feasible ones (ScoreView); none touches the rest of each NodeView.
struct alignas(32) QuickView
{
  std::int64_t free_cpu = 0;
  std::int64_t free_mem = 0;
  std::int64_t free_pods = 0;
  bool ready = false;
};

// One bit per position of the snapshot node list, in 64-bit words with a zero word past the last:
// the scan reads them 64 positions at a time from any position (bits_at).
using PositionBits = std::vector<std::uint64_t>;

// Sized for `positions`: the bits of the positions kept stay, the others are zero.
void resize_bits(PositionBits& bits, std::size_t positions)
{
  bits.resize(positions / 64 + 2, 0);
  const std::size_t word = positions / 64;
  bits[word] &= positions % 64 == 0 ? 0 : ~std::uint64_t{0} >> (64 - positions % 64);
  std::fill(bits.begin() + static_cast<std::ptrdiff_t>(word) + 1, bits.end(), 0);
}

inline void set_bit(PositionBits& bits, std::size_t pos, bool value)
{
  const std::uint64_t bit = std::uint64_t{1} << (pos % 64);
  bits[pos / 64] = (bits[pos / 64] & ~bit) | (value ? bit : 0);
}

inline bool test_bit(const PositionBits& bits, std::size_t pos)
{
  return ((bits[pos / 64] >> (pos % 64)) & 1U) != 0;
}

// The 64 bits from position `base` on (zero past the last position).
std::uint64_t bits_at(const PositionBits& bits, std::size_t base)
{
  const std::size_t word = base / 64;
  const std::size_t shift = base % 64;
  const std::uint64_t low = bits[word] >> shift;
  return shift == 0 ? low : low | (bits[word + 1] << (64 - shift));
}

// Positions [pos, pos + count) (count 1..64) set to the low bits of `value`.
void write_bits(PositionBits& bits, std::size_t pos, std::uint64_t value, std::size_t count)
{
  const std::uint64_t mask = count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
  value &= mask;
  const std::size_t word = pos / 64;
  const std::size_t shift = pos % 64;
  bits[word] = (bits[word] & ~(mask << shift)) | (value << shift);
  if (shift + count > 64) {
    bits[word + 1] = (bits[word + 1] & ~(mask >> (64 - shift))) | (value >> (64 - shift));
  }
}

// Positions [to, to + n) take the bits of [from, from + n) (the ranges may overlap, as with
// memmove), 64 at a time.
void move_bits(PositionBits& bits, std::size_t to, std::size_t from, std::size_t n)
{
  if (from > to) {
    for (std::size_t i = 0; i < n; i += 64) {
      write_bits(bits, to + i, bits_at(bits, from + i), std::min<std::size_t>(64, n - i));
    }
  } else {
    for (std::size_t end = n; end > 0;) {
      const std::size_t count = std::min<std::size_t>(64, end);
      end -= count;
      write_bits(bits, to + end, bits_at(bits, from + end), count);
    }
  }
}

struct alignas(64) ScoreView
{
  std::int64_t alloc_cpu = 0;
  std::int64_t alloc_mem = 0;
  std::int64_t req_cpu = 0;
  std::int64_t req_mem = 0;
  std::int64_t nz_extra_cpu = 0;
  std::int64_t nz_extra_mem = 0;
  bool soft_taints = false;
};

// What the resource scores read of the pod: requests with and without the scheduler's defaults.
struct ScoreShape
{
  std::int64_t cpu = 0;
  std::int64_t mem = 0;
  std::int64_t nz_cpu = 0;
  std::int64_t nz_mem = 0;

  bool operator==(const ScoreShape&) const = default;
};

struct ScoreShapeHash
{
  std::size_t operator()(const ScoreShape& s) const
  {
    std::size_t h = std::hash<std::int64_t>{}(s.cpu);
    for (const auto x : {s.mem, s.nz_cpu, s.nz_mem}) {
      h = h * 1000003U ^ std::hash<std::int64_t>{}(x);
    }
    return h;
  }
};

struct NodePods
{
  std::vector<PodIndex> pods;        // bound pods, DaemonSet pods included
  std::vector<std::int32_t> ports;   // host ports in use
};

// Per-domain counts of one key for one cycle.
struct DomainTable
{
  std::uint32_t key = 0;
  std::vector<std::int64_t> count;
  std::vector<std::uint8_t> present;
  std::int64_t min = 0;
  std::uint32_t domains = 0;
};

enum class Verdict : std::uint8_t {
  ok,
  not_ready,
  unschedulable,
  node_name,
  taint,
  node_affinity,
  node_ports,
  resources,
  volume_error,    // VolumeBinding PreFilter: a claim no node can satisfy
  volume_affinity, // VolumeBinding: the volumes' node affinity excludes the node
  spread_label,
  spread_skew,
  pod_affinity,
  pod_anti_affinity,
  existing_anti_affinity,
};

FilterPlugin plugin_of(Verdict v)
{
  switch (v) {
  case Verdict::ok: return FilterPlugin::none;
  case Verdict::not_ready:
  case Verdict::unschedulable: return FilterPlugin::node_unschedulable;
  case Verdict::node_name: return FilterPlugin::node_name;
  case Verdict::taint: return FilterPlugin::taint_toleration;
  case Verdict::node_affinity: return FilterPlugin::node_affinity;
  case Verdict::node_ports: return FilterPlugin::node_ports;
  case Verdict::resources: return FilterPlugin::node_resources_fit;
  case Verdict::volume_error:
  case Verdict::volume_affinity: return FilterPlugin::volume_binding;
  case Verdict::spread_label:
  case Verdict::spread_skew: return FilterPlugin::pod_topology_spread;
  case Verdict::pod_affinity:
  case Verdict::pod_anti_affinity:
  case Verdict::existing_anti_affinity: return FilterPlugin::inter_pod_affinity;
  }
  return FilterPlugin::none;
}

// Unambiguous text of a selector, for interning.
void append_selector(std::string& out, const model::LabelSelector& s)
{
  for (const auto& [k, v] : s.match_labels) {
    out += k;
    out += '\x1f';
    out += v;
    out += '\x1e';
  }
  out += '\x1d';
  for (const auto& e : s.match_expressions) {
    out += e.key;
    out += '\x1f';
    out += std::to_string(static_cast<int>(e.op));
    for (const auto& v : e.values) {
      out += '\x1f';
      out += v;
    }
    out += '\x1e';
  }
}

std::string clauses_signature(const std::vector<Clause>& clauses)
{
  std::string out;
  for (const auto& c : clauses) {
    out += c.nothing ? 'N' : 'S';
    out += c.all_namespaces ? '*' : '=';
    for (const auto& ns : c.namespaces) {
      out += ns;
      out += '\x1f';
    }
    out += '\x1c';
    if (!c.nothing) {
      append_selector(out, c.selector);
    }
    out += '\x1b';
  }
  return out;
}

std::string requirement_signature(const model::Requirement& r)
{
  std::string out = r.key;
  out += r.complement ? "\x1f!" : "\x1f=";
  for (const auto& v : r.values) {
    out += '\x1f';
    out += v;
  }
  out += fmt::format("\x1f{}\x1f{}", r.greater_than ? std::to_string(*r.greater_than) : "-",
                     r.less_than ? std::to_string(*r.less_than) : "-");
  return out;
}

bool clause_matches(const Clause& c, const model::PodSpec& spec)
{
  if (c.nothing) {
    return false;
  }
  if (!c.all_namespaces && !std::binary_search(c.namespaces.begin(), c.namespaces.end(), spec.namespace_)) {
    return false;
  }
  return c.selector.matches(spec.labels);
}

bool clauses_match(const std::vector<Clause>& clauses, const model::PodSpec& spec)
{
  return std::all_of(clauses.begin(), clauses.end(), [&](const Clause& c) { return clause_matches(c, spec); });
}

// Adds `key In [value]` for each matchLabelKeys key the pod carries (merged with AND).
void merge_match_label_keys(model::LabelSelector& selector, const std::vector<std::string>& keys,
                            const model::Labels& labels)
{
  for (const auto& key : keys) {
    auto it = labels.find(key);
    if (it != labels.end()) {
      selector.match_expressions.push_back({key, model::Operator::in, {it->second}});
    }
  }
}

// The clause of a pod (anti-)affinity term of a pod in namespace `owner_ns` with labels `labels`.
Clause term_clause(const model::PodAffinityTerm& term, const std::string& owner_ns, const model::Labels& labels)
{
  Clause c;
  if (!term.selector) {
    c.nothing = true;
  } else {
    c.selector = *term.selector;
    merge_match_label_keys(c.selector, term.match_label_keys, labels);
  }
  if (term.all_namespaces) {
    c.all_namespaces = true;
  } else if (term.namespaces.empty()) {
    c.namespaces = {owner_ns};
  } else {
    c.namespaces = term.namespaces;
    std::sort(c.namespaces.begin(), c.namespaces.end());
    c.namespaces.erase(std::unique(c.namespaces.begin(), c.namespaces.end()), c.namespaces.end());
  }
  return c;
}

// The clause of a topology spread constraint: its selector (plus matchLabelKeys) in the pod's
// namespace. A missing selector matches nothing, unless matchLabelKeys supply labels (upstream
// then selects by those labels alone).
Clause spread_clause(const model::TopologySpreadConstraint& tsc, const model::PodSpec& spec)
{
  Clause c;
  c.namespaces = {spec.namespace_};
  if (tsc.selector) {
    c.selector = *tsc.selector;
    merge_match_label_keys(c.selector, tsc.match_label_keys, spec.labels);
  } else {
    merge_match_label_keys(c.selector, tsc.match_label_keys, spec.labels);
    c.nothing = c.selector.match_expressions.empty();
  }
  return c;
}

// Elements that never move once created (references stay valid while more are added), with O(1)
// indexing (std::deque's indexing is several times slower on the hot path).
template <typename T>
class Stable
{
public:
  T& operator[](std::size_t i) { return *m_items[i]; }

  const T& operator[](std::size_t i) const { return *m_items[i]; }

  [[nodiscard]] std::size_t size() const { return m_items.size(); }

  T& emplace_back()
  {
    m_items.push_back(std::make_unique<T>());
    return *m_items.back();
  }

  T& back() { return *m_items.back(); }

  void clear() { m_items.clear(); }

private:
  std::vector<std::unique_ptr<T>> m_items;
};

struct Tried
{
  std::uint64_t gen = 0; // 0: never failed
  SimTime pending_since = -1;
};

struct EquivalenceKey
{
  std::uint32_t group = 0;
  model::Resources requests;

  bool operator==(const EquivalenceKey&) const = default;
};

// The scan's room test in 32 bits, so that it runs four or more nodes to an instruction: cpu in
// millicores and memory in MiB rounded down, both clamped. Pod and node go through the same
// monotone map, so a node with the room always passes; the quick view then decides exactly.
constexpr std::int32_t k_closed = std::numeric_limits<std::int32_t>::min(); // not Ready, or full
constexpr std::int64_t k_coarse_lo = std::int64_t{k_closed} + 1;
constexpr std::int64_t k_coarse_hi = std::numeric_limits<std::int32_t>::max();

std::int32_t coarse_cpu(std::int64_t millis)
{
  return static_cast<std::int32_t>(std::clamp(millis, k_coarse_lo, k_coarse_hi));
}

std::int32_t coarse_memory(std::int64_t bytes)
{
  return static_cast<std::int32_t>(std::clamp(bytes >> 20, k_coarse_lo, k_coarse_hi)); // floor, also below 0
}

struct RoomMask
{
  std::uint64_t maybe = 0; // may have room: the quick view decides
  std::uint64_t sure = 0;  // has room (a subset)
};

// Over n (at most 64) positions, which may have room for (lo_cpu, lo_mem) and which surely do:
// more MiB than the pod's rounded-down request means more bytes than it asks, and cpu below the
// clamp is exact. `exact`: the request is whole MiB (below the clamps), so as many MiB as it asks
// is room too, and every position that may have room has it.
RoomMask room_mask(const std::int32_t* cpu, const std::int32_t* mem, std::size_t n, std::int32_t lo_cpu,
                   std::int32_t lo_mem, bool exact)
{
  RoomMask out;
  std::size_t j = 0;
#if defined(__SSE2__)
  // Four positions to an instruction; each comparison's sign bits are the mask bits. The lower
  // bounds are above k_closed, so "at least lo" is "more than lo - 1".
  const __m128i cpu_above = _mm_set1_epi32(lo_cpu - 1);
  const __m128i mem_above = _mm_set1_epi32(lo_mem - 1);
  const __m128i mem_more = _mm_set1_epi32(lo_mem);
  const auto bits = [](__m128i m) {
    return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(m))));
  };
  for (; exact && j + 4 <= n; j += 4) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cpu + j));
    const __m128i m = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mem + j));
    out.maybe |= bits(_mm_and_si128(_mm_cmpgt_epi32(c, cpu_above), _mm_cmpgt_epi32(m, mem_above))) << j;
  }
  for (; !exact && j + 4 <= n; j += 4) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cpu + j));
    const __m128i m = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mem + j));
    const __m128i cpu_fits = _mm_cmpgt_epi32(c, cpu_above);
    out.maybe |= bits(_mm_and_si128(cpu_fits, _mm_cmpgt_epi32(m, mem_above))) << j;
    out.sure |= bits(_mm_and_si128(cpu_fits, _mm_cmpgt_epi32(m, mem_more))) << j;
  }
#endif
  if (exact) {
    for (; j < n; ++j) {
      out.maybe |= static_cast<std::uint64_t>(cpu[j] >= lo_cpu && mem[j] >= lo_mem) << j;
    }
    out.sure = out.maybe;
    return out;
  }
  for (; j < n; ++j) {
    const bool cpu_fits = cpu[j] >= lo_cpu;
    out.maybe |= static_cast<std::uint64_t>(cpu_fits && mem[j] >= lo_mem) << j;
    out.sure |= static_cast<std::uint64_t>(cpu_fits && mem[j] > lo_mem) << j;
  }
  if (lo_cpu == k_coarse_hi) {
    out.sure = 0; // asks as much as the clamp or more
  }
  return out;
}

struct EquivalenceHash
{
  std::size_t operator()(const EquivalenceKey& k) const
  {
    std::size_t h = k.group;
    for (const auto x : k.requests.v) {
      h = h * 1000003u ^ static_cast<std::size_t>(x);
    }
    return h;
  }
};

// The equivalence keys that found no node in one pass. Kept between passes with its buffers: a
// node-based set allocated and freed a node per failing key, a million times in a week.
class FailedKeys
{
public:
  void clear()
  {
    for (const auto slot : m_taken) {
      m_slots[slot] = 0;
    }
    m_taken.clear();
    m_keys.clear();
  }

  [[nodiscard]] bool contains(const EquivalenceKey& key) const
  {
    if (m_keys.empty()) {
      return false;
    }
    for (std::size_t slot = first_slot(key);; slot = (slot + 1) & (m_slots.size() - 1)) {
      const auto entry = m_slots[slot];
      if (entry == 0) {
        return false;
      }
      if (m_keys[entry - 1] == key) {
        return true;
      }
    }
  }

  void insert(const EquivalenceKey& key)
  {
    if (contains(key)) {
      return;
    }
    if (2 * (m_keys.size() + 1) > m_slots.size()) { // at most half full: probes stay short
      grow();
    }
    m_keys.push_back(key);
    place(m_keys.size() - 1);
  }

private:
  [[nodiscard]] std::size_t first_slot(const EquivalenceKey& key) const
  {
    return EquivalenceHash{}(key) & (m_slots.size() - 1);
  }

  void place(std::size_t index)
  {
    auto slot = first_slot(m_keys[index]);
    while (m_slots[slot] != 0) {
      slot = (slot + 1) & (m_slots.size() - 1);
    }
    m_slots[slot] = static_cast<std::uint32_t>(index + 1);
    m_taken.push_back(slot);
  }

  void grow()
  {
    m_slots.assign(std::max<std::size_t>(64, 2 * m_slots.size()), 0);
    m_taken.clear();
    for (std::size_t i = 0; i < m_keys.size(); ++i) {
      place(i);
    }
  }

  std::vector<EquivalenceKey> m_keys;
  std::vector<std::uint32_t> m_slots; // 1 + index in m_keys, 0 when free; a power of two long
  std::vector<std::size_t> m_taken;   // the slots in use, to clear
};

} // namespace

std::size_t num_feasible_nodes_to_find(std::int32_t percentage, std::size_t all_nodes)
{
  constexpr std::size_t k_min_feasible = 100;
  constexpr std::int64_t k_min_percentage = 5;
  if (all_nodes < k_min_feasible) {
    return all_nodes;
  }
  std::int64_t p = percentage;
  if (p <= 0) {
    p = 50 - static_cast<std::int64_t>(all_nodes) / 125;
    p = std::max(p, k_min_percentage);
  }
  const auto n = static_cast<std::size_t>(static_cast<std::int64_t>(all_nodes) * std::min<std::int64_t>(p, 100) / 100);
  return std::max(n, k_min_feasible);
}

// ---------------------------------------------------------------------------------------------
// State: the incremental index and one scheduling cycle's scratch.

struct KubeScheduler::State
{
  // Prepared data of the pod being scheduled (kube-scheduler's CycleState).
  struct Cycle
  {
    const model::Pod* pod = nullptr;
    std::uint32_t gid = k_none;
    model::Resources request; // without the pods entry
    std::array<model::ResourceId, model::k_max_resources> dims{};
    std::size_t n_dims = 0;
    // The filters reduce to room in cpu, memory and pods on a plain node (QuickView::plain): no
    // nodeName, node affinity, host ports, topology or other requested resource.
    bool resources_only = false;
    std::int64_t min_free_cpu = 0; // request when requested, else INT64_MIN (not checked)
    std::int64_t min_free_mem = 0;
    std::int64_t cpu = 0;
    std::int64_t mem = 0;
    std::int64_t nz_cpu = 0;
    std::int64_t nz_mem = 0;
    bool best_effort = false;
    std::uint32_t score_shape = 0; // id + 1 of (cpu, mem, nz_cpu, nz_mem) in score_shapes
    const cluster::NodeState* extra = nullptr;
    std::vector<std::uint32_t> extra_domain;
    std::vector<std::int32_t> extra_ports;
    std::vector<std::uint32_t> hard;     // table per hard spread constraint
    std::vector<std::uint32_t> affinity; // table per required affinity term
    bool affinity_any = false;           // some existing pod matches all affinity terms
    std::vector<std::uint32_t> anti;     // table per required anti-affinity term
    std::vector<std::pair<std::uint32_t, std::uint32_t>> blocked; // (key, table) of existing anti-affinity
    bool any_topology = false;
  };

  explicit State(SchedulerConfig c) : config(std::move(c)) {}

  SchedulerConfig config;

  const cluster::Cluster* cluster = nullptr;
  std::uint64_t cluster_id = 0;
  std::size_t log_pos = 0;
  std::uint64_t node_epoch = 0;
  std::size_t node_log_pos = 0;             // of cluster->node_log(), seen up to
  std::vector<NodeIndex> changed_nodes;     // sync_nodes' scratch
  std::uint64_t gen_capacity = 1;
  std::uint64_t gen_any = 1;

  std::vector<NodeView> views;
  std::vector<NodePods> node_pods;
  std::vector<std::string> tree_zones;           // NodeTree zones, in order of first node
  std::vector<std::vector<NodeIndex>> tree_nodes; // nodes of each zone, in order of arrival
  std::vector<NodeIndex> order;                   // snapshot node list (zones interleaved)
  std::vector<QuickView> quick;                   // by position in order
  // The scan's room test by position in order, as two plain arrays it reads 64 at a time: coarse
  // free cpu and memory of a Ready node with room for a pod; k_closed when it is not Ready or full.
  std::vector<std::int32_t> room_cpu;
  std::vector<std::int32_t> room_mem;
  // By position in order: Ready, no NoSchedule/NoExecute taint, not disrupted (only resources can
  // fail on such a node); a PreferNoSchedule taint (the scan's scoring then leaves it to score()).
  PositionBits plain_bits;
  PositionBits soft_bits;
  std::vector<ScoreView> score_views;             // by position in order
  ScoreMemos score_memo;                          // by position in order
  // rebuild_order's scratch: the last list and its entries, and each new position's old one.
  std::vector<NodeIndex> old_order;
  std::vector<QuickView> old_quick;
  std::vector<std::int32_t> old_room_cpu;
  std::vector<std::int32_t> old_room_mem;
  PositionBits old_plain_bits;
  PositionBits old_soft_bits;
  std::vector<ScoreView> old_score_views;
  ScoreMemos old_memo;
  std::vector<std::uint32_t> kept;
  std::unordered_map<ScoreShape, std::uint32_t, ScoreShapeHash> score_shapes;
  static constexpr std::size_t k_max_score_shapes = 4096;
  static_assert(k_max_score_shapes < 0xFFFF, "ScoreMemos keeps shape ids in 16 bits");
  // At least the most free coarse cpu and memory of any node open to a pod (room_cpu, room_mem;
  // k_closed when there is none): a pod asking more than one of them fits nowhere. Raised by every
  // node change that goes above it, made exact again by a scan that found no node.
  std::array<std::int32_t, 2> most_free{k_coarse_hi, k_coarse_hi};
  std::vector<std::uint32_t> position;            // by node: position in order, or k_none
  bool order_dirty = false;
  // The first position the tree's changes since the last order may have given another node
  // (tree_insert, tree_remove): the order is listed again from there only.
  static constexpr std::size_t k_order_unchanged = std::numeric_limits<std::size_t>::max();
  std::size_t order_from = k_order_unchanged;
  std::size_t next_start = 0;

  Stable<TopologyKey> keys;
  std::unordered_map<std::string, std::uint32_t> key_ids;
  Stable<AffinityClass> classes;
  std::unordered_map<std::string, std::uint32_t> class_ids;
  Stable<Matcher> matchers;
  std::unordered_map<std::string, std::uint32_t> matcher_ids;
  std::vector<std::uint32_t> counted; // counted matcher ids, in the order they became counted
  Stable<Group> groups;
  std::unordered_map<const model::PodSpec*, std::uint32_t> group_ids;
  std::vector<std::uint32_t> pod_group;
  std::vector<OwnerTerm> owner_terms;
  std::vector<Tried> tried;

  Cycle cycle;
  std::vector<DomainTable> tables;
  std::size_t tables_used = 0;
  std::vector<NodeIndex> found_buffer; // schedule_prepared's feasible nodes
  std::vector<std::pair<std::size_t, std::uint64_t>> found_blocks; // or their positions: (base, bits)
  std::vector<std::pair<std::size_t, std::int64_t>> soft_found; // best_with_soft_taints' (position, count)
  std::vector<std::int64_t> s_fit, s_bal, s_taint, s_naff, s_tsc, s_ipa;
  std::vector<std::uint8_t> s_ignored;
  std::vector<double> s_weights;
  std::vector<const std::uint32_t*> hard_domains;
  std::vector<const std::int32_t*> hard_counts;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ipa_tables; // (key, table)
  std::vector<std::int32_t> group_scratch;
  FailedKeys failed_equivalent;
  // Nodes whose view changed, in order (mirror()), and for pods that found no node (by
  // equivalence key, topology-free) the log's length then: such a pod fails again while none of
  // the nodes changed since is feasible for it (fails_again), without a scan of every node.
  std::vector<NodeIndex> view_log;
  std::unordered_map<EquivalenceKey, std::size_t, EquivalenceHash> failed_at;
  static constexpr std::size_t k_view_log_cap = std::size_t{1} << 15;

  // ---- sync with the cluster ----------------------------------------------------------------

  void reset(const cluster::Cluster& c)
  {
    cluster = &c;
    cluster_id = c.instance_id();
    log_pos = 0;
    node_log_pos = 0;
    node_epoch = 0;
    gen_capacity = 1;
    gen_any = 1;
    views.clear();
    node_pods.clear();
    tree_zones.clear();
    tree_nodes.clear();
    order.clear();
    quick.clear();
    room_cpu.clear();
    room_mem.clear();
    plain_bits.clear();
    soft_bits.clear();
    score_views.clear();
    score_memo.clear();
    old_order.clear();
    most_free.fill(k_closed);
    view_log.clear();
    failed_at.clear();
    position.clear();
    order_dirty = false;
    order_from = k_order_unchanged;
    next_start = 0;
    keys.clear();
    key_ids.clear();
    classes.clear();
    class_ids.clear();
    matchers.clear();
    matcher_ids.clear();
    counted.clear();
    groups.clear();
    group_ids.clear();
    pod_group.clear();
    owner_terms.clear();
    tried.clear();
    intern_key(std::string(model::labels::k_hostname));
    intern_key(std::string(model::labels::k_zone));
  }

  void sync(const cluster::Cluster& c)
  {
    if (cluster != &c || cluster_id != c.instance_id() || c.binding_log().size() < log_pos
        || c.node_log().size() < node_log_pos) {
      reset(c);
    }
    sync_nodes();
    const auto& log = c.binding_log();
    while (log_pos < log.size()) {
      apply(log[log_pos++]);
    }
    if (pod_group.size() < c.pods().size()) {
      pod_group.resize(c.pods().size(), k_none);
    }
    if (tried.size() < c.pods().size()) {
      tried.resize(c.pods().size());
    }
  }

  void grow_nodes(std::size_t n)
  {
    views.resize(n);
    node_pods.resize(n);
    for (const auto id : counted) {
      matchers[id].node_count.resize(n, 0);
    }
    for (std::size_t k = 0; k < keys.size(); ++k) {
      keys[k].node_domain.resize(n, k_none);
    }
    for (std::size_t k = 0; k < classes.size(); ++k) {
      classes[k].eligible.resize(n, -1);
    }
    group_scratch.resize(n, 0);
    position.resize(n, k_none);
  }

  void sync_nodes()
  {
    const std::size_t n = cluster->nodes().size();
    if (n > views.size()) {
      grow_nodes(n);
    }
    if (cluster->node_epoch() == node_epoch) {
      return;
    }
    // The nodes stamped since, in index order.
    const auto& log = cluster->node_log();
    changed_nodes.assign(log.begin() + static_cast<std::ptrdiff_t>(node_log_pos), log.end());
    std::sort(changed_nodes.begin(), changed_nodes.end());
    changed_nodes.erase(std::unique(changed_nodes.begin(), changed_nodes.end()), changed_nodes.end());
#ifndef NDEBUG
    for (NodeIndex i = 0; i < n; ++i) {
      CAPSIM_CHECK((cluster->node_stamp(i) > node_epoch)
                       == std::binary_search(changed_nodes.begin(), changed_nodes.end(), i),
                   "kube-scheduler: the node log and the node stamps disagree");
    }
#endif
    for (const NodeIndex i : changed_nodes) {
      refresh_node(i);
    }
    node_log_pos = log.size();
    node_epoch = cluster->node_epoch();
    ++gen_capacity;
    ++gen_any;
    if (order_dirty) {
      rebuild_order();
    }
  }

  void refresh_resources(NodeIndex i)
  {
    const auto& ns = cluster->node(i);
    auto& v = views[i];
    v.free = ns.allocatable - ns.requested;
    v.alloc_cpu = ns.allocatable.cpu();
    v.alloc_mem = ns.allocatable.memory();
    v.req_cpu = ns.requested.cpu();
    v.req_mem = ns.requested.memory();
    mirror(i);
  }

  void mirror(NodeIndex i)
  {
    note_view_change(i);
    const auto pos = position[i];
    if (pos == k_none || pos >= quick.size() || order[pos] != i) {
      return; // not in the list (rebuild_order mirrors the nodes it adds)
    }
    const NodeView& v = views[i];
    QuickView& q = quick[pos];
    q.free_cpu = v.free.cpu();
    q.free_mem = v.free.memory();
    q.free_pods = v.free[model::k_pods];
    q.ready = v.ready;
    set_bit(plain_bits, pos, v.ready && !v.hard_taints && !v.disrupted);
    set_bit(soft_bits, pos, v.soft_taints);
    const bool open = q.ready && q.free_pods >= 1;
    room_cpu[pos] = open ? coarse_cpu(q.free_cpu) : k_closed;
    room_mem[pos] = open ? coarse_memory(q.free_mem) : k_closed;
    ScoreView& sv = score_views[pos];
    sv.alloc_cpu = v.alloc_cpu;
    sv.alloc_mem = v.alloc_mem;
    sv.req_cpu = v.req_cpu;
    sv.req_mem = v.req_mem;
    sv.nz_extra_cpu = v.nz_extra_cpu;
    sv.nz_extra_mem = v.nz_extra_mem;
    sv.soft_taints = v.soft_taints;
    score_memo.forget(pos);
    most_free[0] = std::max(most_free[0], room_cpu[pos]);
    most_free[1] = std::max(most_free[1], room_mem[pos]);
  }

  void refresh_node(NodeIndex i)
  {
    using cluster::NodeLifecycle;
    const auto& ns = cluster->node(i);
    auto& v = views[i];
    const bool was = v.in_snapshot;
    v.in_snapshot = ns.lifecycle == NodeLifecycle::registered || ns.lifecycle == NodeLifecycle::ready
                    || ns.lifecycle == NodeLifecycle::deleting;
    v.ready = ns.lifecycle == NodeLifecycle::ready;
    v.cordoned = ns.lifecycle == NodeLifecycle::deleting || ns.lifecycle == NodeLifecycle::terminated;
    v.disrupted = ns.disrupted_taint;
    v.hard_taints = false;
    v.soft_taints = false;
    for (const auto& t : ns.taints) {
      (t.effect == model::TaintEffect::prefer_no_schedule ? v.soft_taints : v.hard_taints) = true;
    }
    refresh_resources(i);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      keys[k].node_domain[i] = domain_value(keys[k], ns);
    }
    for (std::size_t k = 0; k < classes.size(); ++k) {
      classes[k].eligible[i] = -1;
    }
    if (was != v.in_snapshot) {
      if (v.in_snapshot) {
        tree_insert(i);
      } else {
        tree_remove(i);
      }
      order_dirty = true;
    }
  }

  void tree_insert(NodeIndex i)
  {
    const std::string* zone = node_label(cluster->node(i), keys[k_zone_key].key);
    const std::string z = zone != nullptr ? *zone : std::string();
    auto it = std::find(tree_zones.begin(), tree_zones.end(), z);
    if (it == tree_zones.end()) {
      tree_zones.push_back(z);
      tree_nodes.emplace_back();
      it = tree_zones.end() - 1;
    }
    const auto zone_at = static_cast<std::size_t>(it - tree_zones.begin());
    // The node joins round r, its zone's next, after the r nodes of every zone in the rounds
    // before (fewer of a smaller zone) and the zones before its own that have a node in round r.
    const std::size_t r = tree_nodes[zone_at].size();
    std::size_t at = 0;
    for (std::size_t w = 0; w < tree_nodes.size(); ++w) {
      at += std::min(tree_nodes[w].size(), r) + (w < zone_at && tree_nodes[w].size() > r ? 1 : 0);
    }
    order_from = std::min(order_from, at);
    tree_nodes[zone_at].push_back(i);
  }

  // A node that leaves changes the order from its own position on: the rounds before its own
  // keep its zone's earlier nodes, and its round the zones before its zone. (A position of the
  // last order: a node that joined since has moved the order from its own place already.)
  void tree_remove(NodeIndex i)
  {
    if (position[i] != k_none) {
      order_from = std::min<std::size_t>(order_from, position[i]);
    }
    for (std::size_t z = 0; z < tree_nodes.size(); ++z) {
      auto it = std::find(tree_nodes[z].begin(), tree_nodes[z].end(), i);
      if (it == tree_nodes[z].end()) {
        continue;
      }
      tree_nodes[z].erase(it);
      if (tree_nodes[z].empty()) {
        tree_nodes.erase(tree_nodes.begin() + static_cast<std::ptrdiff_t>(z));
        tree_zones.erase(tree_zones.begin() + static_cast<std::ptrdiff_t>(z));
      }
      return;
    }
  }

  // Appends NodeTree.list()'s nodes from position `from` on (order holds those before it).
  void list_order_from(std::size_t from)
  {
    std::size_t rounds = 0; // the largest zone's node count
    for (const auto& nodes : tree_nodes) {
      rounds = std::max(rounds, nodes.size());
    }
    // The nodes in the rounds before round r: every zone's first r, or all of a smaller zone.
    const auto listed_before = [&](std::size_t r) {
      std::size_t n = 0;
      for (const auto& nodes : tree_nodes) {
        n += std::min(nodes.size(), r);
      }
      return n;
    };
    // The last round starting at or before `from` (binary search: listed_before only grows).
    std::size_t r = 0;
    std::size_t hi = rounds;
    while (r < hi) {
      const std::size_t mid = (r + hi + 1) / 2;
      if (listed_before(mid) <= from) {
        r = mid;
      } else {
        hi = mid - 1;
      }
    }
    std::size_t skip = from - listed_before(r); // round r's nodes before `from`
    for (; r < rounds; ++r) {
      for (const auto& nodes : tree_nodes) {
        if (r < nodes.size()) {
          if (skip > 0) {
            --skip;
          } else {
            order.push_back(nodes[r]);
          }
        }
      }
    }
  }

  // NodeTree.list(): the first node of every zone, then the second of every zone, ...
  void rebuild_order()
  {
    // A node that stays keeps its entries: they are rewritten whenever its view changes
    // (mirror()), so they still hold at its old position, remembered scores included.
    std::swap(order, old_order);
    const std::size_t before = old_order.size();
    std::size_t lo = std::min(order_from, before);
    order_from = k_order_unchanged;
    order.assign(old_order.begin(), old_order.begin() + static_cast<std::ptrdiff_t>(lo));
    list_order_from(lo);
#ifndef NDEBUG
    {
      std::vector<NodeIndex> full;
      std::swap(full, order);
      list_order_from(0);
      CAPSIM_CHECK(full == order, "kube-scheduler: the order listed from a position differs from the whole list");
    }
#endif
    order_dirty = false;
    const std::size_t listed = order.size();
    // The positions before the first that lists another node keep their entries where they are:
    // a node joins in its zone's next round, near the end of a list of balanced zones, and a node
    // that leaves moves the later ones of its zone only. (A week rebuilds the order tens of
    // thousands of times.)
    while (lo < std::min(listed, before) && order[lo] == old_order[lo]) {
      ++lo;
    }
    kept.resize(listed);
    for (std::size_t pos = 0; pos < lo; ++pos) {
      kept[pos] = static_cast<std::uint32_t>(pos);
    }
    for (std::size_t pos = lo; pos < listed; ++pos) {
      const auto old = position[order[pos]];
      kept[pos] = old < before && old_order[old] == order[pos] ? old : k_none;
    }
    for (std::size_t pos = lo; pos < before; ++pos) { // only listed nodes have a position
      position[old_order[pos]] = k_none;
    }
    carry_entries(lo, before);
    for (std::size_t pos = lo; pos < listed; ++pos) {
      position[order[pos]] = static_cast<std::uint32_t>(pos);
    }
    most_free.fill(k_closed);
    for (std::size_t pos = 0; pos < listed; ++pos) {
      most_free[0] = std::max(most_free[0], room_cpu[pos]);
      most_free[1] = std::max(most_free[1], room_mem[pos]);
    }
    for (std::size_t pos = lo; pos < listed; ++pos) {
      if (kept[pos] == k_none) {
        mirror(order[pos]);
      }
    }
#ifndef NDEBUG
    for (NodeIndex n = 0; n < position.size(); ++n) {
      CAPSIM_CHECK(position[n] == k_none || (position[n] < order.size() && order[position[n]] == n),
                   "kube-scheduler: a node off the list has a position");
    }
    for (std::uint32_t pos = 0; pos < order.size(); ++pos) {
      if (kept[pos] == k_none) {
        continue;
      }
      const QuickView q = quick[pos];
      const bool plain_then = test_bit(plain_bits, pos);
      const bool soft_then = test_bit(soft_bits, pos);
      const auto cpu = room_cpu[pos];
      const auto mem = room_mem[pos];
      const ScoreView v = score_views[pos];
      const ScoreMemos::Entries memo = score_memo.entries(pos);
      const auto most = most_free;
      mirror(order[pos]);
      const QuickView& f = quick[pos];
      const ScoreView& w = score_views[pos];
      CAPSIM_CHECK(std::tie(q.free_cpu, q.free_mem, q.free_pods, q.ready)
                           == std::tie(f.free_cpu, f.free_mem, f.free_pods, f.ready)
                       && plain_then == test_bit(plain_bits, pos) && soft_then == test_bit(soft_bits, pos)
                       && cpu == room_cpu[pos] && mem == room_mem[pos]
                       && std::tie(v.alloc_cpu, v.alloc_mem, v.req_cpu, v.req_mem, v.nz_extra_cpu, v.nz_extra_mem,
                                   v.soft_taints)
                              == std::tie(w.alloc_cpu, w.alloc_mem, w.req_cpu, w.req_mem, w.nz_extra_cpu,
                                          w.nz_extra_mem, w.soft_taints)
                       && most == most_free,
                   "kube-scheduler: a node's carried-over entries differ from its view");
      score_memo.set_entries(pos, memo);
    }
#endif
  }

  // rebuild_order's entries from `lo` on: each position takes those of its node's old position
  // (kept), fresh ones for a node not listed before (mirror() fills them in). When every node
  // moves the same way, towards the start or towards the end (one node joining or leaving, the
  // usual change), the entries move in place, in the order that reads each before it is
  // overwritten; otherwise those from `lo` are set aside first.
  void carry_entries(std::size_t lo, std::size_t before)
  {
    const std::size_t listed = order.size();
    bool earlier = true; // every kept node at or before its old position
    bool later = true;
    for (std::size_t pos = lo; pos < listed; ++pos) {
      const auto k = kept[pos];
      if (k != k_none && k != pos) {
        (k > pos ? later : earlier) = false;
      }
    }
    // The runs of positions whose nodes were listed one after another before and still (a zone
    // listed alone at the end, when it has more nodes than the others): their entries move as
    // one range. (pos, k, run); k == k_none: a fresh position.
    runs.clear();
    for (std::size_t pos = lo; pos < listed;) {
      const auto k = kept[pos];
      if (k == pos) {
        ++pos; // the same node as before: its entries stand (other zones' nodes, mostly)
        continue;
      }
      std::size_t run = 1;
      while (k != k_none && pos + run < listed && kept[pos + run] == k + run) {
        ++run;
      }
      runs.push_back({pos, k, run});
      pos += run;
    }
    if (earlier || later) {
      const std::size_t most = std::max(listed, before);
      grown_for(quick, most);
      grown_for(room_cpu, most);
      grown_for(room_mem, most);
      grown_for(score_views, most);
      score_memo.resize(std::max(most, score_memo.size()));
      resize_bits(plain_bits, most);
      resize_bits(soft_bits, most);
      if (earlier) {
        for (const auto& r : runs) {
          move_entries(r);
        }
      } else {
        for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
          move_entries(*it);
        }
      }
      quick.resize(listed);
      room_cpu.resize(listed);
      room_mem.resize(listed);
      score_views.resize(listed);
      score_memo.resize(listed);
      resize_bits(plain_bits, listed);
      resize_bits(soft_bits, listed);
      return;
    }
    const auto set_aside = [lo](auto& entries, auto& aside) {
      aside.assign(entries.begin() + static_cast<std::ptrdiff_t>(std::min(lo, entries.size())), entries.end());
    };
    set_aside(quick, old_quick);
    set_aside(room_cpu, old_room_cpu);
    set_aside(room_mem, old_room_mem);
    set_aside(score_views, old_score_views);
    old_memo.assign_range(score_memo, std::min(lo, score_memo.size()), score_memo.size());
    old_plain_bits = plain_bits;
    old_soft_bits = soft_bits;
    sized_for_order(quick);
    sized_for_order(room_cpu);
    sized_for_order(room_mem);
    sized_for_order(score_views);
    score_memo.resize(listed);
    resize_bits(plain_bits, listed);
    resize_bits(soft_bits, listed);
    for (const auto& [pos, k, run] : runs) {
      if (k == k_none) {
        fresh_entries(pos);
        continue;
      }
      const std::size_t a = k - lo;
      if (run == 1) { // (most runs: a call to memmove per list would cost more than the entries)
        quick[pos] = old_quick[a];
        room_cpu[pos] = old_room_cpu[a];
        room_mem[pos] = old_room_mem[a];
        score_views[pos] = old_score_views[a];
      } else {
        std::copy_n(old_quick.data() + a, run, quick.data() + pos);
        std::copy_n(old_room_cpu.data() + a, run, room_cpu.data() + pos);
        std::copy_n(old_room_mem.data() + a, run, room_mem.data() + pos);
        std::copy_n(old_score_views.data() + a, run, score_views.data() + pos);
      }
      score_memo.copy_range(pos, old_memo, a, run);
      for (std::size_t i = 0; i < run; ++i) {
        set_bit(plain_bits, pos + i, test_bit(old_plain_bits, k + i));
        set_bit(soft_bits, pos + i, test_bit(old_soft_bits, k + i));
      }
    }
  }

  struct Run
  {
    std::size_t pos;
    std::uint32_t k;
    std::size_t run;
  };
  std::vector<Run> runs; // carry_entries' scratch

  void fresh_entries(std::size_t pos)
  {
    set_bit(plain_bits, pos, false);
    set_bit(soft_bits, pos, false);
    quick[pos] = QuickView{};
    room_cpu[pos] = k_closed;
    room_mem[pos] = k_closed;
    score_views[pos] = ScoreView{};
    score_memo.forget(pos);
  }

  // One run of carry_entries in place: positions [pos, pos + run) take the entries of
  // [k, k + run) of the same lists (overlapping ranges move as memmove would).
  void move_entries(const Run& r)
  {
    const auto [pos, k, run] = r;
    if (k == k_none) {
      fresh_entries(pos);
      return;
    }
    const auto move = [&](auto& entries) {
      if (run == 1) { // (see carry_entries)
        entries[pos] = entries[k];
        return;
      }
      const auto from = entries.begin() + static_cast<std::ptrdiff_t>(k);
      const auto to = entries.begin() + static_cast<std::ptrdiff_t>(pos);
      const auto n = static_cast<std::ptrdiff_t>(run);
      if (k > pos) {
        std::copy(from, from + n, to);
      } else {
        std::copy_backward(from, from + n, to + n);
      }
    };
    move(quick);
    move(room_cpu);
    move(room_mem);
    move(score_views);
    score_memo.move_range(pos, k, run);
    if (run == 1) {
      set_bit(plain_bits, pos, test_bit(plain_bits, k));
      set_bit(soft_bits, pos, test_bit(soft_bits, k));
      return;
    }
    move_bits(plain_bits, pos, k, run);
    move_bits(soft_bits, pos, k, run);
  }

  // `entries` holding at least `n` (grown by doubling, as sized_for_order).
  template <typename T>
  static void grown_for(std::vector<T>& entries, std::size_t n)
  {
    if (entries.size() < n) {
      if (entries.capacity() < n) {
        entries.reserve(std::max(n, 2 * entries.capacity()));
      }
      entries.resize(n);
    }
  }

  // `entries` holding one per position of the order, every one to be written.
  template <typename T>
  void sized_for_order(std::vector<T>& entries)
  {
    // (Grown by doubling: a list growing by a node at a time would be allocated afresh on every
    // rebuild, above the mmap threshold mapped and faulted in anew.)
    if (entries.capacity() < order.size()) {
      entries.reserve(std::max(order.size(), 2 * entries.capacity()));
    }
    entries.resize(order.size());
  }

  void apply(const cluster::Cluster::BindingChange& e)
  {
    if (e.node >= views.size()) {
      grow_nodes(cluster->nodes().size());
    }
    if (e.bound) {
      forget_changed_spec(e.pod);
    }
    const std::uint32_t gid = groups[group_of_pod(e.pod)].count_gid;
    const model::Pod& pod = cluster->pod(e.pod).pod();
    const std::int32_t delta = e.bound ? 1 : -1;
    auto& np = node_pods[e.node];
    if (e.bound) {
      np.pods.push_back(e.pod);
    } else {
      auto it = std::find(np.pods.begin(), np.pods.end(), e.pod);
      if (it != np.pods.end()) {
        *it = np.pods.back();
        np.pods.pop_back();
      }
    }
    Group& g = groups[gid];
    if (g.has_ports) {
      for (const auto port : g.spec->host_ports) {
        if (port <= 0) {
          continue;
        }
        if (e.bound) {
          np.ports.push_back(port);
        } else if (auto it = std::find(np.ports.begin(), np.ports.end(), port); it != np.ports.end()) {
          np.ports.erase(it);
        }
      }
    }
    auto& v = views[e.node];
    v.nz_extra_cpu += delta * (pod.requests.cpu() == 0 ? k_default_milli_cpu_request : 0);
    v.nz_extra_mem += delta * (pod.requests.memory() == 0 ? k_default_memory_request : 0);
    update_membership(gid);
    for (const auto m : g.member_of) {
      matchers[m].node_count[e.node] += delta;
    }
    if (g.tracked) {
      auto it = std::find_if(g.node_counts.begin(), g.node_counts.end(),
                             [&](const auto& p) { return p.first == e.node; });
      if (e.bound) {
        if (it == g.node_counts.end()) {
          g.node_counts.emplace_back(e.node, 1);
        } else {
          ++it->second;
        }
      } else if (it != g.node_counts.end()) {
        if (--it->second == 0) {
          *it = g.node_counts.back();
          g.node_counts.pop_back();
        }
      }
    }
    g.live = static_cast<std::uint32_t>(static_cast<std::int64_t>(g.live) + delta);
    if (e.bound && g.owns_terms && !g.terms_registered) {
      register_owner_terms(gid);
    }
    refresh_resources(e.node);
    ++gen_any;
    if (!e.bound) {
      ++gen_capacity;
    }
  }

  // ---- interning ----------------------------------------------------------------------------

  static std::uint32_t domain_value(TopologyKey& k, const cluster::NodeState& node)
  {
    const std::string* v = node_label(node, k.key);
    if (v == nullptr) {
      return k_none;
    }
    const auto next = static_cast<std::uint32_t>(k.ids.size());
    return k.ids.try_emplace(*v, next).first->second;
  }

  std::uint32_t intern_key(const std::string& key)
  {
    if (auto it = key_ids.find(key); it != key_ids.end()) {
      return it->second;
    }
    const auto id = static_cast<std::uint32_t>(keys.size());
    keys.emplace_back();
    auto& k = keys.back();
    k.key = key;
    k.node_domain.assign(views.size(), k_none);
    for (NodeIndex i = 0; i < views.size(); ++i) {
      k.node_domain[i] = domain_value(k, cluster->node(i));
    }
    key_ids.emplace(key, id);
    return id;
  }

  std::uint32_t intern_class(const model::PodSpec& spec)
  {
    std::string sig;
    for (const auto& [k, v] : spec.node_selector) {
      sig += k;
      sig += '\x1f';
      sig += v;
      sig += '\x1e';
    }
    for (const auto& term : spec.required_node_affinity) {
      sig += '\x1d';
      for (const auto& r : term.requirements) {
        sig += requirement_signature(r);
        sig += '\x1e';
      }
    }
    if (auto it = class_ids.find(sig); it != class_ids.end()) {
      return it->second;
    }
    const auto id = static_cast<std::uint32_t>(classes.size());
    classes.emplace_back();
    auto& cls = classes.back();
    cls.spec.node_selector = spec.node_selector;
    cls.spec.required_node_affinity = spec.required_node_affinity;
    cls.eligible.assign(views.size(), -1);
    class_ids.emplace(std::move(sig), id);
    return id;
  }

  bool eligible(std::uint32_t cls_id, NodeIndex i)
  {
    auto& cls = classes[cls_id];
    auto& e = cls.eligible[i];
    if (e < 0) {
      e = node_affinity_matches(cls.spec, cluster->node(i)) ? 1 : 0;
    }
    return e != 0;
  }

  std::uint32_t intern_matcher(std::vector<Clause> clauses)
  {
    std::string sig = clauses_signature(clauses);
    std::uint32_t id = 0;
    if (auto it = matcher_ids.find(sig); it != matcher_ids.end()) {
      id = it->second;
    } else {
      id = static_cast<std::uint32_t>(matchers.size());
      matchers.emplace_back();
      matchers.back().clauses = std::move(clauses);
      matcher_ids.emplace(std::move(sig), id);
    }
    Matcher& m = matchers[id];
    if (!m.counted) {
      // Count the pods already bound (as the change log has them so far).
      m.counted = true;
      m.node_count.assign(views.size(), 0);
      counted.push_back(id);
      for (NodeIndex i = 0; i < node_pods.size(); ++i) {
        for (const auto p : node_pods[i].pods) {
          const auto gid = group_of_pod(p);
          update_membership(gid);
          const auto& member_of = groups[gid].member_of;
          if (!member_of.empty() && member_of.back() == id) {
            ++m.node_count[i];
          }
        }
      }
    }
    return id;
  }

  std::uint32_t group_of_spec(const model::PodSpecPtr& ptr)
  {
    const model::PodSpec* key = ptr.get();
    if (auto it = group_ids.find(key); it != group_ids.end()) {
      return it->second;
    }
    const auto id = static_cast<std::uint32_t>(groups.size());
    groups.emplace_back();
    Group& g = groups.back();
    g.holder = ptr;
    g.spec = ptr ? ptr.get() : &empty_spec();
    const model::PodSpec& s = *g.spec;
    if (!s.node_selector.empty() || !s.required_node_affinity.empty()) {
      g.affinity_class = intern_class(s);
    }
    g.volume_error = !s.volume_error.empty();
    if (!s.volume_affinity.empty()) {
      model::PodSpec volumes;
      volumes.required_node_affinity = s.volume_affinity;
      g.volume_class = intern_class(volumes);
    }
    g.has_ports = std::any_of(s.host_ports.begin(), s.host_ports.end(), [](std::int32_t p) { return p > 0; });
    g.tolerates_unschedulable = tolerates_unschedulable(s.tolerations);
    g.default_spread = s.topology_spread.empty()
                       && (s.owner == model::OwnerKind::replica_set || s.owner == model::OwnerKind::stateful_set);
    g.owns_terms = !s.pod_anti_affinity_required.empty() || !s.pod_affinity_required.empty()
                   || !s.pod_affinity_preferred.empty() || !s.pod_anti_affinity_preferred.empty();
    g.tracked = g.owns_terms || g.default_spread;
    g.retry_on_any_change =
        !s.pod_affinity_required.empty()
        || std::any_of(s.topology_spread.begin(), s.topology_spread.end(), [](const auto& c) {
             return c.when_unsatisfiable == model::UnsatisfiableAction::do_not_schedule;
           });
    g.has_preferred_node_affinity = !s.preferred_node_affinity.empty();
    group_ids.emplace(key, id);
    g.count_gid = id;
    if (s.counted_with) {
      const auto base = group_of_spec(s.counted_with); // (groups keeps its elements in place)
      groups[id].count_gid = groups[base].count_gid;
    }
    return id;
  }

  // Binding may give a pod a new spec (a claim provisioned in the node's zone pins it there):
  // from then on the pod belongs to the group of that spec.
  void forget_changed_spec(PodIndex p)
  {
    if (p < pod_group.size() && pod_group[p] != k_none
        && groups[pod_group[p]].holder.get() != cluster->pod(p).pod().spec.get()) {
      pod_group[p] = k_none;
    }
  }

  std::uint32_t group_of_pod(PodIndex p)
  {
    if (p >= pod_group.size()) {
      pod_group.resize(cluster->pods().size(), k_none);
    }
    auto& gid = pod_group[p];
    if (gid == k_none) {
      gid = group_of_spec(cluster->pod(p).pod().spec);
    }
    return gid;
  }

  void update_membership(std::uint32_t gid)
  {
    Group& g = groups[gid];
    while (g.member_checked < counted.size()) {
      const auto id = counted[g.member_checked++];
      if (clauses_match(matchers[id].clauses, *g.spec)) {
        g.member_of.push_back(id);
      }
    }
  }

  void update_owner_matches(std::uint32_t gid)
  {
    Group& g = groups[gid];
    while (g.owner_checked < owner_terms.size()) {
      const auto idx = g.owner_checked++;
      if (clauses_match(owner_terms[idx].clauses, *g.spec)) {
        g.owner_matches.push_back(static_cast<std::uint32_t>(idx));
      }
    }
  }

  void register_owner_terms(std::uint32_t gid)
  {
    Group& g = groups[gid];
    g.terms_registered = true;
    const model::PodSpec& s = *g.spec;
    const auto add = [&](const model::PodAffinityTerm& t, OwnerKind kind, std::int64_t weight) {
      OwnerTerm o;
      o.group = gid;
      o.kind = kind;
      o.clauses = {term_clause(t, s.namespace_, s.labels)};
      o.key = intern_key(t.topology_key);
      o.weight = weight;
      owner_terms.push_back(std::move(o));
    };
    for (const auto& t : s.pod_anti_affinity_required) {
      add(t, OwnerKind::required_anti, 0);
    }
    for (const auto& t : s.pod_affinity_required) {
      add(t, OwnerKind::required_affinity, 1); // hardPodAffinityWeight
    }
    for (const auto& t : s.pod_affinity_preferred) {
      add(t.term, OwnerKind::preferred, t.weight);
    }
    for (const auto& t : s.pod_anti_affinity_preferred) {
      add(t.term, OwnerKind::preferred, -static_cast<std::int64_t>(t.weight));
    }
  }

  // Builds the group's constraints (matchers, keys) the first time one of its pods is scheduled.
  void ensure_prepared(std::uint32_t gid)
  {
    if (groups[gid].prepared) {
      return;
    }
    groups[gid].prepared = true;
    const model::PodSpec& s = *groups[gid].spec;
    std::vector<HardSpread> hard;
    std::vector<SoftSpread> soft;
    for (const auto& tsc : s.topology_spread) {
      Clause clause = spread_clause(tsc, s);
      const bool self = clause_matches(clause, s);
      const auto matcher = intern_matcher({std::move(clause)});
      const auto key = intern_key(tsc.topology_key);
      if (tsc.when_unsatisfiable == model::UnsatisfiableAction::do_not_schedule) {
        hard.push_back({matcher, key, tsc.max_skew, tsc.min_domains.value_or(1), tsc.node_affinity_policy_honor,
                        tsc.node_taints_policy_honor, self});
      } else {
        soft.push_back({matcher, key, tsc.max_skew, tsc.topology_key == model::labels::k_hostname,
                        tsc.node_affinity_policy_honor, tsc.node_taints_policy_honor});
      }
    }
    std::uint32_t affinity_matcher = k_none;
    std::vector<std::uint32_t> affinity_keys;
    bool self_affinity = false;
    if (!s.pod_affinity_required.empty()) {
      std::vector<Clause> clauses;
      for (const auto& t : s.pod_affinity_required) {
        clauses.push_back(term_clause(t, s.namespace_, s.labels));
        affinity_keys.push_back(intern_key(t.topology_key));
      }
      self_affinity = clauses_match(clauses, s);
      affinity_matcher = intern_matcher(std::move(clauses));
    }
    std::vector<PodTerm> anti;
    for (const auto& t : s.pod_anti_affinity_required) {
      const auto key = intern_key(t.topology_key);
      anti.push_back({intern_matcher({term_clause(t, s.namespace_, s.labels)}), key, 0});
    }
    std::vector<PodTerm> preferred;
    for (const auto& t : s.pod_affinity_preferred) {
      const auto key = intern_key(t.term.topology_key);
      preferred.push_back({intern_matcher({term_clause(t.term, s.namespace_, s.labels)}), key, t.weight});
    }
    for (const auto& t : s.pod_anti_affinity_preferred) {
      const auto key = intern_key(t.term.topology_key);
      preferred.push_back(
          {intern_matcher({term_clause(t.term, s.namespace_, s.labels)}), key, -static_cast<std::int64_t>(t.weight)});
    }
    Group& g = groups[gid];
    g.hard = std::move(hard);
    g.soft = std::move(soft);
    g.affinity_matcher = affinity_matcher;
    g.affinity_keys = std::move(affinity_keys);
    g.self_affinity = self_affinity;
    g.anti = std::move(anti);
    g.preferred = std::move(preferred);
  }

  // ---- one cycle ----------------------------------------------------------------------------

  std::uint32_t acquire(std::uint32_t key)
  {
    if (tables_used == tables.size()) {
      tables.emplace_back();
    }
    const auto idx = static_cast<std::uint32_t>(tables_used++);
    auto& t = tables[idx];
    t.key = key;
    const std::size_t size = keys[key].ids.size() + 1; // + the hypothetical node's own domain
    t.count.assign(size, 0);
    t.present.assign(size, 0);
    t.min = 0;
    t.domains = 0;
    return idx;
  }

  std::uint32_t dom(std::uint32_t key, NodeIndex n)
  {
    if (n != k_extra) [[likely]] {
      return keys[key].node_domain[n];
    }
    return extra_dom(key);
  }

  // Domain of the cycle's hypothetical node for a key (its own virtual domain when the value is
  // new to the cluster).
  std::uint32_t extra_dom(std::uint32_t key)
  {
    auto& d = cycle.extra_domain[key];
    if (d == k_unset) {
      const auto& k = keys[key];
      const std::string* v = node_label(*cycle.extra, k.key);
      if (v == nullptr) {
        d = k_none;
      } else if (auto it = k.ids.find(*v); it != k.ids.end()) {
        d = it->second;
      } else {
        d = static_cast<std::uint32_t>(k.ids.size());
      }
    }
    return d;
  }

  const cluster::NodeState& node_state(NodeIndex n) const { return n == k_extra ? *cycle.extra : cluster->node(n); }

  // Pods on node n matching counted matcher m.
  std::int64_t count_on(std::uint32_t m, NodeIndex n)
  {
    if (n != k_extra) {
      return matchers[m].node_count[n];
    }
    std::int64_t count = 0;
    for (const auto p : cycle.extra->pods) {
      const auto gid = group_of_pod(p);
      update_membership(gid);
      const auto& member_of = groups[gid].member_of;
      if (std::find(member_of.begin(), member_of.end(), m) != member_of.end()) {
        ++count;
      }
    }
    return count;
  }

  // nodeAffinityPolicy / nodeTaintsPolicy of a spread constraint for the cycle's pod on node n.
  bool included(bool affinity_honor, bool taints_honor, NodeIndex n)
  {
    const Group& g = groups[cycle.gid];
    if (affinity_honor && g.affinity_class != k_none) {
      const bool ok = n == k_extra ? node_affinity_matches(*g.spec, *cycle.extra) : eligible(g.affinity_class, n);
      if (!ok) {
        return false;
      }
    }
    if (taints_honor && untolerated_taint(g.spec->tolerations, node_state(n))) {
      return false;
    }
    return true;
  }

  void prepare(const model::Pod& pod, const cluster::NodeState* extra)
  {
    Cycle& c = cycle;
    c.pod = &pod;
    c.gid = group_of_spec(pod.spec);
    ensure_prepared(c.gid);
    update_owner_matches(c.gid);
    c.request = pod.requests;
    c.request[model::k_pods] = 0;
    c.n_dims = 0;
    for (std::size_t i = 0; i < model::k_max_resources; ++i) {
      if (c.request.v[i] > 0) {
        c.dims[c.n_dims++] = static_cast<model::ResourceId>(i);
      }
    }
    c.cpu = pod.requests.cpu();
    c.mem = pod.requests.memory();
    c.nz_cpu = c.cpu == 0 ? k_default_milli_cpu_request : c.cpu;
    c.nz_mem = c.mem == 0 ? k_default_memory_request : c.mem;
    c.best_effort = c.cpu == 0 && c.mem == 0;
    // Traces with ever new request sizes would grow the table without end: past a bound it
    // starts again, and with it every node's remembered scores (they name shapes by id).
    if (score_shapes.size() >= k_max_score_shapes) {
      score_shapes.clear();
      score_memo.forget_all();
    }
    c.score_shape = score_shapes.try_emplace(ScoreShape{c.cpu, c.mem, c.nz_cpu, c.nz_mem},
                                             static_cast<std::uint32_t>(score_shapes.size() + 1))
                        .first->second;
    c.min_free_cpu = c.request.cpu() > 0 ? c.request.cpu() : std::numeric_limits<std::int64_t>::min();
    c.min_free_mem = c.request.memory() > 0 ? c.request.memory() : std::numeric_limits<std::int64_t>::min();
    c.extra = extra;
    c.extra_domain.assign(keys.size(), k_unset);
    c.extra_ports.clear();
    c.hard.clear();
    c.affinity.clear();
    c.affinity_any = false;
    c.anti.clear();
    c.blocked.clear();
    tables_used = 0;
    if (extra != nullptr) {
      for (const auto p : extra->pods) {
        const auto& spec = *groups[group_of_pod(p)].spec;
        for (const auto port : spec.host_ports) {
          if (port > 0) {
            c.extra_ports.push_back(port);
          }
        }
      }
    }
    const Group& g = groups[c.gid];
    if (!g.hard.empty()) {
      prepare_hard();
    }
    if (g.affinity_matcher != k_none) {
      prepare_affinity();
    }
    if (!g.anti.empty()) {
      prepare_anti();
    }
    prepare_existing_anti();
    c.any_topology = !c.hard.empty() || !c.affinity.empty() || !c.anti.empty() || !c.blocked.empty();
    c.resources_only = !c.any_topology && pod.node_name.empty() && g.affinity_class == k_none && !g.has_ports
                       && g.volume_class == k_none && !g.volume_error
                       && std::all_of(c.dims.begin(), c.dims.begin() + static_cast<std::ptrdiff_t>(c.n_dims),
                                      [](model::ResourceId d) { return d == model::k_cpu || d == model::k_memory; });
  }

  template <typename F>
  void for_snapshot_nodes(F&& f)
  {
    for (const auto n : order) {
      f(n);
    }
    if (cycle.extra != nullptr) {
      f(k_extra);
    }
  }

  // PodTopologySpread PreFilter: matching pods per domain over the nodes that carry every
  // constraint's key and pass each constraint's inclusion policies.
  void prepare_hard()
  {
    const Group& g = groups[cycle.gid];
    const std::size_t nc = g.hard.size();
    hard_domains.clear();
    hard_counts.clear();
    for (const auto& c : g.hard) {
      cycle.hard.push_back(acquire(c.key));
      hard_domains.push_back(keys[c.key].node_domain.data());
      hard_counts.push_back(matchers[c.matcher].node_count.data());
    }
    const auto count_node = [&](NodeIndex n) {
      for (std::size_t i = 0; i < nc; ++i) {
        if (dom(g.hard[i].key, n) == k_none) {
          return;
        }
      }
      for (std::size_t i = 0; i < nc; ++i) {
        const auto& c = g.hard[i];
        if (!included(c.affinity_honor, c.taints_honor, n)) {
          continue;
        }
        auto& t = tables[cycle.hard[i]];
        const auto d = dom(c.key, n);
        t.present[d] = 1;
        t.count[d] += n == k_extra ? count_on(c.matcher, n) : hard_counts[i][n];
      }
    };
    const bool simple = nc == 1 && !(g.hard[0].affinity_honor && g.affinity_class != k_none) && !g.hard[0].taints_honor;
    if (simple) {
      // The common case, without per-node policy checks.
      const std::uint32_t* domains = hard_domains[0];
      const std::int32_t* counts = hard_counts[0];
      auto& t = tables[cycle.hard[0]];
      for (const auto n : order) {
        const auto d = domains[n];
        if (d != k_none) {
          t.present[d] = 1;
          t.count[d] += counts[n];
        }
      }
      if (cycle.extra != nullptr) {
        count_node(k_extra);
      }
    } else {
      for_snapshot_nodes(count_node);
    }
    for (const auto idx : cycle.hard) {
      auto& t = tables[idx];
      bool first = true;
      for (std::size_t d = 0; d < t.count.size(); ++d) {
        if (t.present[d] == 0) {
          continue;
        }
        ++t.domains;
        t.min = first ? t.count[d] : std::min(t.min, t.count[d]);
        first = false;
      }
    }
  }

  // InterPodAffinity PreFilter, incoming required affinity: per term, pods matching ALL terms
  // per domain of that term's key.
  void prepare_affinity()
  {
    const Group& g = groups[cycle.gid];
    for (const auto key : g.affinity_keys) {
      cycle.affinity.push_back(acquire(key));
    }
    for_snapshot_nodes([&](NodeIndex n) {
      const auto cnt = count_on(g.affinity_matcher, n);
      if (cnt == 0) {
        return;
      }
      for (std::size_t i = 0; i < g.affinity_keys.size(); ++i) {
        const auto d = dom(g.affinity_keys[i], n);
        if (d != k_none) {
          tables[cycle.affinity[i]].count[d] += cnt;
          cycle.affinity_any = true;
        }
      }
    });
  }

  // Incoming required anti-affinity: pods matching each term per domain.
  void prepare_anti()
  {
    const Group& g = groups[cycle.gid];
    for (const auto& t : g.anti) {
      cycle.anti.push_back(acquire(t.key));
    }
    for_snapshot_nodes([&](NodeIndex n) {
      for (std::size_t i = 0; i < g.anti.size(); ++i) {
        const auto cnt = count_on(g.anti[i].matcher, n);
        if (cnt == 0) {
          continue;
        }
        const auto d = dom(g.anti[i].key, n);
        if (d != k_none) {
          tables[cycle.anti[i]].count[d] += cnt;
        }
      }
    });
  }

  std::uint32_t blocked_table(std::uint32_t key)
  {
    for (const auto& [k, t] : cycle.blocked) {
      if (k == key) {
        return t;
      }
    }
    const auto t = acquire(key);
    cycle.blocked.emplace_back(key, t);
    return t;
  }

  // Existing pods' required anti-affinity terms that the incoming pod matches: the domains
  // (of the term's key) of the nodes running such pods are forbidden.
  void prepare_existing_anti()
  {
    const auto gid = cycle.gid;
    for (std::size_t i = 0; i < groups[gid].owner_matches.size(); ++i) {
      const OwnerTerm& o = owner_terms[groups[gid].owner_matches[i]];
      if (o.kind != OwnerKind::required_anti || groups[o.group].node_counts.empty()) {
        continue;
      }
      const auto t = blocked_table(o.key);
      for (const auto& [n, cnt] : groups[o.group].node_counts) {
        if (!views[n].in_snapshot) {
          continue;
        }
        const auto d = dom(o.key, n);
        if (d != k_none) {
          tables[t].present[d] = 1;
        }
      }
    }
    if (cycle.extra == nullptr) {
      return;
    }
    const model::PodSpec& incoming = *groups[gid].spec;
    for (const auto p : cycle.extra->pods) {
      const model::PodSpec& s = *groups[group_of_pod(p)].spec;
      for (const auto& term : s.pod_anti_affinity_required) {
        if (!clause_matches(term_clause(term, s.namespace_, s.labels), incoming)) {
          continue;
        }
        const auto key = intern_key_for_cycle(term.topology_key);
        if (key == k_none) {
          continue;
        }
        const auto d = dom(key, k_extra);
        if (d != k_none) {
          tables[blocked_table(key)].present[d] = 1;
        }
      }
    }
  }

  // A key id usable inside a cycle: keys interned now also extend the cycle's lookups.
  std::uint32_t intern_key_for_cycle(const std::string& key)
  {
    const auto id = intern_key(key);
    if (cycle.extra_domain.size() < keys.size()) {
      cycle.extra_domain.resize(keys.size(), k_unset);
    }
    return id;
  }

  Verdict topology_verdict(NodeIndex n)
  {
    const Group& g = groups[cycle.gid];
    for (std::size_t i = 0; i < g.hard.size(); ++i) {
      const auto& c = g.hard[i];
      const auto d = dom(c.key, n);
      if (d == k_none) {
        return Verdict::spread_label;
      }
      const auto& t = tables[cycle.hard[i]];
      const std::int64_t min = static_cast<std::int64_t>(t.domains) < c.min_domains ? 0 : t.min;
      const std::int64_t skew = t.count[d] + (c.self_match ? 1 : 0) - min;
      if (skew > c.max_skew) {
        return Verdict::spread_skew;
      }
    }
    if (g.affinity_matcher != k_none) {
      bool pods_exist = true;
      for (std::size_t i = 0; i < g.affinity_keys.size(); ++i) {
        const auto d = dom(g.affinity_keys[i], n);
        if (d == k_none) {
          return Verdict::pod_affinity;
        }
        if (tables[cycle.affinity[i]].count[d] <= 0) {
          pods_exist = false;
        }
      }
      // The first pod of a group with affinity to itself may go anywhere.
      if (!pods_exist && (cycle.affinity_any || !g.self_affinity)) {
        return Verdict::pod_affinity;
      }
    }
    for (std::size_t i = 0; i < g.anti.size(); ++i) {
      const auto d = dom(g.anti[i].key, n);
      if (d != k_none && tables[cycle.anti[i]].count[d] > 0) {
        return Verdict::pod_anti_affinity;
      }
    }
    for (const auto& [key, t] : cycle.blocked) {
      const auto d = dom(key, n);
      if (d != k_none && tables[t].present[d] != 0) {
        return Verdict::existing_anti_affinity;
      }
    }
    return Verdict::ok;
  }

  // Every filter of the default profile on cluster node n, in plugin order.
  Verdict filter(NodeIndex n)
  {
    const NodeView& v = views[n];
    const Group& g = groups[cycle.gid];
    if (g.volume_error) {
      return Verdict::volume_error;
    }
    if (!v.ready) {
      return v.cordoned ? Verdict::unschedulable : Verdict::not_ready;
    }
    if (!cycle.pod->node_name.empty() && cluster->node(n).name != cycle.pod->node_name) {
      return Verdict::node_name;
    }
    if ((v.hard_taints || v.disrupted) && untolerated_taint(g.spec->tolerations, cluster->node(n))) {
      return Verdict::taint;
    }
    if (g.affinity_class != k_none && !eligible(g.affinity_class, n)) {
      return Verdict::node_affinity;
    }
    if (g.has_ports && !ports_free(g.spec->host_ports, node_pods[n].ports)) {
      return Verdict::node_ports;
    }
    if (v.free[model::k_pods] < 1) {
      return Verdict::resources;
    }
    for (std::size_t i = 0; i < cycle.n_dims; ++i) {
      const auto d = cycle.dims[i];
      if (cycle.request[d] > v.free[d]) {
        return Verdict::resources;
      }
    }
    if (const auto vv = volume_verdict(g, n); vv != Verdict::ok) {
      return vv;
    }
    if (cycle.any_topology) {
      return topology_verdict(n);
    }
    return Verdict::ok;
  }

  // VolumeBinding's filter (after NodeResourcesFit, before PodTopologySpread in the default
  // profile); its PreFilter, which rejects a pod with an unsatisfiable claim outright, is the
  // first check of filter().
  Verdict volume_verdict(const Group& g, NodeIndex n)
  {
    if (g.volume_class != k_none && !eligible(g.volume_class, n)) {
      return Verdict::volume_affinity;
    }
    return Verdict::ok;
  }

  // The same filters on the cycle's hypothetical node.
  Verdict filter_extra()
  {
    using cluster::NodeLifecycle;
    const cluster::NodeState& x = *cycle.extra;
    const Group& g = groups[cycle.gid];
    if (g.volume_error) {
      return Verdict::volume_error;
    }
    if (x.lifecycle == NodeLifecycle::deleting || x.lifecycle == NodeLifecycle::terminated) {
      return Verdict::unschedulable;
    }
    if (!cycle.pod->node_name.empty() && x.name != cycle.pod->node_name) {
      return Verdict::node_name;
    }
    if (untolerated_taint(g.spec->tolerations, x)) {
      return Verdict::taint;
    }
    if (g.affinity_class != k_none && !node_affinity_matches(*g.spec, x)) {
      return Verdict::node_affinity;
    }
    if (g.has_ports && !ports_free(g.spec->host_ports, cycle.extra_ports)) {
      return Verdict::node_ports;
    }
    if (!fits_resources(cycle.request, x.allocatable, x.requested)) {
      return Verdict::resources;
    }
    if (g.volume_class != k_none && !volume_affinity_matches(*g.spec, x)) {
      return Verdict::volume_affinity;
    }
    if (cycle.any_topology) {
      return topology_verdict(k_extra);
    }
    return Verdict::ok;
  }

  // Reason texts of a verdict on node n (NodeResourcesFit may give several).
  std::vector<std::string> reasons(Verdict v, NodeIndex n)
  {
    const Group& g = groups[cycle.gid];
    switch (v) {
    case Verdict::ok: return {};
    case Verdict::not_ready: return {std::string(reason::k_not_ready)};
    case Verdict::unschedulable: return {std::string(reason::k_unschedulable)};
    case Verdict::node_name: return {std::string(reason::k_node_name)};
    case Verdict::taint: {
      const auto t = untolerated_taint(g.spec->tolerations, node_state(n));
      return {fmt::format("node(s) had untolerated taint {{{}: {}}}", t ? t->key : "", t ? t->value : "")};
    }
    case Verdict::node_affinity: return {std::string(reason::k_node_affinity)};
    case Verdict::node_ports: return {std::string(reason::k_node_ports)};
    case Verdict::resources: {
      const auto& ns = node_state(n);
      return insufficient_resources(cycle.request, ns.allocatable - ns.requested);
    }
    case Verdict::spread_label: return {std::string(reason::k_spread_label)};
    case Verdict::spread_skew: return {std::string(reason::k_spread)};
    case Verdict::pod_affinity: return {std::string(reason::k_affinity)};
    case Verdict::pod_anti_affinity: return {std::string(reason::k_anti_affinity)};
    case Verdict::existing_anti_affinity: return {std::string(reason::k_existing_anti_affinity)};
    case Verdict::volume_error: return {g.spec->volume_error};
    case Verdict::volume_affinity: return {std::string(reason::k_volume_node_affinity)};
    }
    return {};
  }

  FilterResult result_of(Verdict v, NodeIndex n)
  {
    FilterResult r;
    r.plugin = plugin_of(v);
    const auto texts = reasons(v, n);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      r.reason += (i == 0 ? "" : ", ") + texts[i];
    }
    return r;
  }

  // ---- scoring ------------------------------------------------------------------------------

  // PodTopologySpread score (ScheduleAnyway constraints, or the system defaults).
  void score_spread(std::span<const NodeIndex> nodes)
  {
    const Group& g = groups[cycle.gid];
    const std::size_t m = nodes.size();
    s_tsc.assign(m, 0);
    s_ignored.assign(m, 0);
    std::array<SoftSpread, 2> defaults{};
    std::span<const SoftSpread> constraints;
    const bool explicit_soft = !g.soft.empty();
    if (explicit_soft) {
      constraints = g.soft;
    } else if (g.default_spread && config.system_default_spreading) {
      defaults[0] = {k_none, k_hostname_key, 3, true, true, false};
      defaults[1] = {k_none, k_zone_key, 5, false, true, false};
      constraints = defaults;
    } else {
      return;
    }
    const bool require_all = explicit_soft;
    const auto missing_key = [&](NodeIndex n) {
      return std::any_of(constraints.begin(), constraints.end(),
                         [&](const SoftSpread& c) { return dom(c.key, n) == k_none; });
    };
    std::size_t ignored = 0;
    for (std::size_t i = 0; i < m; ++i) {
      if (require_all && missing_key(nodes[i])) {
        s_ignored[i] = 1;
        ++ignored;
      }
    }
    // Domains of the scored nodes, per non-hostname constraint.
    std::array<std::uint32_t, 16> table_of{};
    auto& weights = s_weights;
    weights.assign(constraints.size(), 0.0);
    for (std::size_t ci = 0; ci < constraints.size() && ci < table_of.size(); ++ci) {
      const auto& c = constraints[ci];
      if (c.hostname) {
        weights[ci] = topology_normalizing_weight(m - ignored);
        continue;
      }
      table_of[ci] = acquire(c.key);
      auto& t = tables[table_of[ci]];
      std::size_t size = 0;
      for (std::size_t i = 0; i < m; ++i) {
        if (s_ignored[i] != 0) {
          continue;
        }
        const auto d = dom(c.key, nodes[i]);
        if (d != k_none && t.present[d] == 0) {
          t.present[d] = 1;
          ++size;
        }
      }
      weights[ci] = topology_normalizing_weight(size);
    }
    const std::size_t n_constraints = std::min(constraints.size(), table_of.size());
    // Matching pods per domain over every node of the snapshot.
    const auto count_node = [&](NodeIndex n, std::size_t ci, std::int64_t cnt) {
      const auto& c = constraints[ci];
      if (c.hostname || cnt == 0 || !included(c.affinity_honor, c.taints_honor, n)) {
        return;
      }
      const auto d = dom(c.key, n);
      auto& t = tables[table_of[ci]];
      if (d != k_none && t.present[d] != 0) {
        t.count[d] += cnt;
      }
    };
    if (explicit_soft) {
      for (const auto n : order) {
        if (require_all && missing_key(n)) {
          continue;
        }
        for (std::size_t ci = 0; ci < n_constraints; ++ci) {
          if (!constraints[ci].hostname) {
            count_node(n, ci, matchers[constraints[ci].matcher].node_count[n]);
          }
        }
      }
    } else {
      for (const auto& [n, cnt] : groups[g.count_gid].node_counts) {
        group_scratch[n] = static_cast<std::int32_t>(cnt);
        if (!views[n].in_snapshot) {
          continue;
        }
        for (std::size_t ci = 0; ci < n_constraints; ++ci) {
          count_node(n, ci, cnt);
        }
      }
    }
    // Per constraint: the nodes' domains, and where its counts come from.
    struct Term
    {
      const std::uint32_t* domains;
      const std::int32_t* node_counts;     // hostname constraints: per node
      const std::int64_t* domain_counts;   // other constraints: per domain
      double weight;
      double skew;
    };
    std::array<Term, 16> terms{};
    for (std::size_t ci = 0; ci < n_constraints; ++ci) {
      const auto& c = constraints[ci];
      auto& t = terms[ci];
      t.domains = keys[c.key].node_domain.data();
      if (c.hostname) {
        t.node_counts = c.matcher != k_none ? matchers[c.matcher].node_count.data() : group_scratch.data();
      } else {
        t.domain_counts = tables[table_of[ci]].count.data();
      }
      t.weight = weights[ci];
      t.skew = static_cast<double>(c.max_skew - 1);
    }
    for (std::size_t i = 0; i < m; ++i) {
      if (s_ignored[i] != 0) {
        continue;
      }
      const auto n = nodes[i];
      double score = 0;
      for (std::size_t ci = 0; ci < n_constraints; ++ci) {
        const auto& t = terms[ci];
        const auto d = t.domains[n];
        if (d == k_none) {
          continue;
        }
        const std::int64_t cnt = t.node_counts != nullptr ? t.node_counts[n] : t.domain_counts[d];
        score += static_cast<double>(cnt) * t.weight + t.skew;
      }
      // math.Round of a non-negative score.
      s_tsc[i] = static_cast<std::int64_t>(score + 0.5);
    }
    if (!explicit_soft) {
      for (const auto& [n, cnt] : groups[g.count_gid].node_counts) {
        group_scratch[n] = 0;
      }
    }
    topology_spread_normalize(s_tsc, s_ignored);
  }

  // InterPodAffinity score: the incoming pod's preferred terms against bound pods, and bound
  // pods' terms (required affinity with weight 1, preferred ones) against the incoming pod.
  void score_inter_pod_affinity(std::span<const NodeIndex> nodes)
  {
    const Group& g = groups[cycle.gid];
    s_ipa.assign(nodes.size(), 0);
    auto& by_key = ipa_tables;
    by_key.clear();
    const auto table_for = [&](std::uint32_t key) {
      for (const auto& [k, t] : by_key) {
        if (k == key) {
          return t;
        }
      }
      const auto t = acquire(key);
      by_key.emplace_back(key, t);
      return t;
    };
    bool any = false;
    for (const auto& term : g.preferred) {
      const auto t = table_for(term.key);
      const auto& counts = matchers[term.matcher].node_count;
      for (const auto n : order) {
        if (counts[n] == 0) {
          continue;
        }
        const auto d = dom(term.key, n);
        if (d != k_none) {
          tables[t].count[d] += term.weight * counts[n];
          any = true;
        }
      }
    }
    for (const auto idx : g.owner_matches) {
      const OwnerTerm& o = owner_terms[idx];
      if (o.kind == OwnerKind::required_anti || groups[o.group].node_counts.empty()) {
        continue;
      }
      const auto t = table_for(o.key);
      for (const auto& [n, cnt] : groups[o.group].node_counts) {
        if (!views[n].in_snapshot) {
          continue;
        }
        const auto d = dom(o.key, n);
        if (d != k_none) {
          tables[t].count[d] += o.weight * cnt;
          any = true;
        }
      }
    }
    if (!any) {
      return;
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      std::int64_t score = 0;
      for (const auto& [key, t] : by_key) {
        const auto d = dom(key, nodes[i]);
        if (d != k_none) {
          score += tables[t].count[d];
        }
      }
      s_ipa[i] = score;
    }
    inter_pod_affinity_normalize(s_ipa);
  }

  // NodeResourcesFit and NodeResourcesBalancedAllocation of the cycle's pod on the node at
  // position `pos`, remembered per request shape.
  std::pair<std::int64_t, std::int64_t> resource_scores(std::size_t pos)
  {
    const std::size_t slot = ScoreMemos::slot_of(cycle.score_shape);
    const ScoreMemos::Entry memo = score_memo.get(slot, pos);
    if (memo.shape == cycle.score_shape) {
#ifndef NDEBUG
      const auto fresh = compute_resource_scores(score_views[pos]);
      CAPSIM_CHECK(memo.fit == fresh.first && memo.balanced == fresh.second,
                   "kube-scheduler: a remembered resource score differs");
#endif
      return {memo.fit, memo.balanced};
    }
    return remember_resource_scores(pos, slot);
  }

  // Out of line: the scan inlines the lookup above for every feasible node, and most find it.
  [[gnu::noinline]] std::pair<std::int64_t, std::int64_t> remember_resource_scores(std::size_t pos, std::size_t slot)
  {
    const auto [fit, balanced] = compute_resource_scores(score_views[pos]);
    CAPSIM_CHECK(fit >= 0 && fit <= k_max_node_score && balanced >= 0 && balanced <= k_max_node_score,
                 "kube-scheduler: a resource score out of 0..100");
    score_memo.set(slot, pos,
                   {static_cast<std::uint16_t>(cycle.score_shape), static_cast<std::uint8_t>(fit),
                    static_cast<std::uint8_t>(balanced)});
    return {fit, balanced};
  }

  [[nodiscard]] std::pair<std::int64_t, std::int64_t> compute_resource_scores(const ScoreView& v) const
  {
    const std::int64_t fit = resource_fit_score(config.strategy, v.req_cpu + v.nz_extra_cpu + cycle.nz_cpu, v.alloc_cpu,
                                                v.req_mem + v.nz_extra_mem + cycle.nz_mem, v.alloc_mem);
    const std::int64_t balanced =
        cycle.best_effort ? 0
                          : balanced_allocation_score(v.req_cpu + cycle.cpu, v.alloc_cpu, v.req_mem + cycle.mem, v.alloc_mem);
    return {fit, balanced};
  }

  // Whether the cycle's scores other than the resource ones are the same on every node without
  // PreferNoSchedule taints: no preferred node affinity, no soft spreading (explicit or the
  // system default), no preferred pod (anti-)affinity of its own or of bound pods.
  [[nodiscard]] bool resource_scores_decide() const
  {
    const Group& g = groups[cycle.gid];
    return !g.has_preferred_node_affinity && g.soft.empty() && !(g.default_spread && config.system_default_spreading)
           && g.preferred.empty() && g.owner_matches.empty();
  }

  // Scores `nodes` (feasible cluster nodes); returns the position of the best (ties: lowest node
  // index). Per-plugin scores stay in s_* for score_nodes().
  std::size_t score(std::span<const NodeIndex> nodes)
  {
    const Group& g = groups[cycle.gid];
    const std::size_t m = nodes.size();
    s_fit.resize(m);
    s_bal.resize(m);
    s_taint.assign(m, 0);
    s_naff.assign(m, 0);
    bool any_soft_taint = false;
    for (std::size_t i = 0; i < m; ++i) {
      const auto pos = position[nodes[i]];
      const ScoreView& v = score_views[pos];
      std::tie(s_fit[i], s_bal[i]) = resource_scores(pos);
      if (v.soft_taints) {
        s_taint[i] = intolerable_prefer_no_schedule(g.spec->tolerations, cluster->node(nodes[i]));
        any_soft_taint = any_soft_taint || s_taint[i] != 0;
      }
      if (g.has_preferred_node_affinity) {
        s_naff[i] = preferred_node_affinity_score(*g.spec, cluster->node(nodes[i]));
      }
    }
    if (any_soft_taint) {
      default_normalize(s_taint, true);
    } else {
      std::fill(s_taint.begin(), s_taint.end(), k_max_node_score);
    }
    if (g.has_preferred_node_affinity) {
      default_normalize(s_naff, false);
    }
    score_spread(nodes);
    score_inter_pod_affinity(nodes);
    const auto& w = config.weights;
    std::size_t best = 0;
    std::int64_t best_total = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const std::int64_t total = w.node_resources_fit * s_fit[i] + w.balanced_allocation * s_bal[i]
                                 + w.taint_toleration * s_taint[i] + w.node_affinity * s_naff[i]
                                 + w.pod_topology_spread * s_tsc[i] + w.inter_pod_affinity * s_ipa[i];
      if (i == 0 || total > best_total || (total == best_total && nodes[i] < nodes[best])) {
        best = i;
        best_total = total;
      }
    }
    return best;
  }

  // The fused scan's choice when nodes with PreferNoSchedule taints are among the feasible ones
  // (found_blocks): TaintToleration, reverse-normalized over the feasible nodes, is the only other
  // score that differs. Every node without such taints scores the most on it, so the best of those
  // is the scan's `plain_key` (0: none); the tainted ones are weighed one by one. (Cluster
  // Autoscaler soft-taints the nodes it finds unneeded: most of its cycles see some.)
  NodeIndex best_with_soft_taints(std::uint64_t plain_key)
  {
    const Group& g = groups[cycle.gid];
    soft_found.clear();
    std::int64_t most = 0; // the most intolerable taints of a node
    for (const auto& [base, nodes] : found_blocks) {
      for (std::uint64_t left = nodes & bits_at(soft_bits, base); left != 0; left &= left - 1) {
        const std::size_t pos = base + static_cast<std::size_t>(std::countr_zero(left));
        const std::int64_t count = intolerable_prefer_no_schedule(g.spec->tolerations, cluster->node(order[pos]));
        soft_found.emplace_back(pos, count);
        most = std::max(most, count);
      }
    }
    const auto& w = config.weights;
    const auto taint_score = [most](std::int64_t count) {
      return most == 0 ? k_max_node_score : k_max_node_score - k_max_node_score * count / most; // default_normalize
    };
    bool any = plain_key != 0;
    std::int64_t best_total = 0;
    if (any) {
      best_total = static_cast<std::int64_t>(plain_key >> 32U) + w.taint_toleration * k_max_node_score;
    }
    NodeIndex best = static_cast<NodeIndex>(~static_cast<std::uint32_t>(plain_key));
    for (const auto& [pos, count] : soft_found) {
      const auto [fit, balanced] = resource_scores(pos);
      const std::int64_t total =
          w.node_resources_fit * fit + w.balanced_allocation * balanced + w.taint_toleration * taint_score(count);
      const NodeIndex n = order[pos];
      if (!any || total > best_total || (total == best_total && n < best)) {
        any = true;
        best_total = total;
        best = n;
      }
    }
    return best;
  }

  void note_view_change(NodeIndex i)
  {
    if (view_log.size() >= k_view_log_cap) { // forgotten: those pods are scanned for again
      view_log.clear();
      failed_at.clear();
    }
    view_log.push_back(i);
  }

  // Whether the cycle's pod (prepared, topology-free, of equivalence key `key`) surely finds no
  // node: it found none before, and no listed node changed since is feasible for it (its filters
  // read its own node's view only, and a node that did not change still fails). False when the
  // nodes changed since are many: the scan is then as quick.
  bool fails_again(const EquivalenceKey& key)
  {
    const auto it = failed_at.find(key);
    if (it == failed_at.end() || view_log.size() - it->second > order.size() / 4 + 16) {
      return false;
    }
    for (std::size_t k = it->second; k < view_log.size(); ++k) {
      const NodeIndex n = view_log[k];
      const auto pos = position[n];
      if (pos != k_none && pos < order.size() && order[pos] == n && filter(n) == Verdict::ok) {
        return false;
      }
    }
    it->second = view_log.size();
    return true;
  }

  // One scheduling cycle for `pod` (already prepared): nominated node, sampled filtering from the
  // rotating start, scoring. Returns k_none when no node is feasible. `key`: the pod's equivalence
  // key, when its equivalence class may be remembered as failing (fails_again).
  NodeIndex schedule_prepared(NodeIndex nominated, bool advance, const EquivalenceKey* key = nullptr)
  {
    if (config.prefer_nominated && nominated < views.size() && views[nominated].in_snapshot
        && filter(nominated) == Verdict::ok) {
      return nominated;
    }
    const std::size_t all = order.size();
    if (all == 0) {
      return k_none;
    }
    const std::size_t to_find = num_feasible_nodes_to_find(config.percentage_of_nodes_to_score, all);
    const std::size_t start = next_start % all;
    const std::int32_t lo_cpu = coarse_cpu(cycle.min_free_cpu); // above k_closed
    const std::int32_t lo_mem = coarse_memory(cycle.min_free_mem);
    // A request of whole MiB reads exactly from the coarse room (CPU is exact below the clamp).
    constexpr std::int64_t k_mib = std::int64_t{1} << 20;
    const bool exact_room = cycle.min_free_mem >= 0 && cycle.min_free_mem % k_mib == 0 && lo_mem < k_coarse_hi
                            && lo_cpu < k_coarse_hi;
    // No open node has the room: the scan would pass over every node, back to the start.
    if (lo_cpu > most_free[0] || lo_mem > most_free[1]) {
#ifndef NDEBUG
      for (const auto n : order) {
        CAPSIM_CHECK(filter(n) != Verdict::ok, "kube-scheduler: a node with room beyond the most free is feasible");
      }
#endif
      if (advance) {
        next_start = start;
      }
      return k_none;
    }
    const bool remember = key != nullptr && !cycle.any_topology;
    if (remember && fails_again(*key)) {
#ifndef NDEBUG
      for (const auto n : order) {
        CAPSIM_CHECK(filter(n) != Verdict::ok, "kube-scheduler: a pod that fails again has a feasible node");
      }
#endif
      if (advance) {
        next_start = start; // as a scan that finds no node: it passes over every node, back to the start
      }
      return k_none;
    }
    std::size_t processed = 0;
    // When only the resource scores can differ, the best node is kept as the scan finds them
    // (no second pass over the feasible nodes); nodes with PreferNoSchedule taints among them are
    // weighed at the end (best_with_soft_taints).
    const auto& w = config.weights;
    // (Only weights the memo's block reads take, whose totals fit in 16 bits; a total and its node
    // are compared as one 64-bit key, the higher total then the lower node index winning.)
    constexpr std::int64_t k_max_weight = ScoreMemos::k_max_weight;
    const bool fused = resource_scores_decide() && w.node_resources_fit >= 0 && w.node_resources_fit <= k_max_weight
                       && w.balanced_allocation >= 0 && w.balanced_allocation <= k_max_weight;
    const bool resources_only = cycle.resources_only;
    bool soft_tainted = false;
    std::uint64_t best_key = 0; // (total << 32) | ~node; 0: none yet (a node's ~index is never 0 bits)
    // The feasible nodes in scan order, written into a buffer kept between cycles (it only
    // grows). When the scan keeps the best node, only their number is needed, and each block's
    // feasible positions (for the nodes with PreferNoSchedule taints among them).
    if (found_buffer.size() < to_find) {
      found_buffer.resize(to_find);
    }
    NodeIndex* const found = found_buffer.data();
    std::size_t found_count = 0;
#ifdef NDEBUG
    const bool list_found = !fused;
#else
    const bool list_found = true; // (the scan's best node is checked against score()'s)
#endif
    found_blocks.clear();
    // The list from `start`, wrapping once; a node without room or not Ready fails whatever the
    // other filters say, and on a plain node nothing else can fail a resources-only cycle. The
    // room test runs over 64 positions at a time into a bit mask (no branch per node); only the
    // nodes it passes are looked at one by one, in list order.
    bool done = false;
    for (const auto& [from, to] : {std::pair{start, all}, std::pair{std::size_t{0}, start}}) {
      for (std::size_t base = from; base < to && !done; base += 64) {
        const std::size_t n = std::min<std::size_t>(64, to - base);
        const RoomMask mask = room_mask(room_cpu.data() + base, room_mem.data() + base, n, lo_cpu, lo_mem, exact_room);
        std::uint64_t room = mask.maybe;
#ifndef NDEBUG
        for (std::size_t j = 0; j < n; ++j) {
          const QuickView& q = quick[base + j];
          const bool fits = q.ready && q.free_pods >= 1 && cycle.min_free_cpu <= q.free_cpu
                            && cycle.min_free_mem <= q.free_mem;
          CAPSIM_CHECK(!fits || ((room >> j) & 1U) != 0, "kube-scheduler: the room mask rules out a node with room");
          CAPSIM_CHECK(fits || ((mask.sure >> j) & 1U) == 0, "kube-scheduler: the room mask is sure of a node without room");
          CAPSIM_CHECK(fits || filter(order[base + j]) != Verdict::ok,
                       "kube-scheduler: a node the quick view rules out is feasible");
        }
#endif
        // Only coarsely in the mask: the quick view decides.
        for (std::uint64_t unsure = room & ~mask.sure; unsure != 0; unsure &= unsure - 1) {
          const auto j = static_cast<std::size_t>(std::countr_zero(unsure));
          const QuickView& q = quick[base + j];
          if (!q.ready || q.free_pods < 1 || cycle.min_free_cpu > q.free_cpu || cycle.min_free_mem > q.free_mem) {
            room &= ~(std::uint64_t{1} << j);
          }
        }
        // The nodes with room that pass the other filters: on a plain node nothing else can fail a
        // resources-only cycle; the others are filtered one by one.
        const std::uint64_t in_range = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
        const std::uint64_t plain = resources_only ? bits_at(plain_bits, base) & in_range : 0;
#ifndef NDEBUG
        for (std::uint64_t b = room & plain; b != 0; b &= b - 1) {
          CAPSIM_CHECK(filter(order[base + static_cast<std::size_t>(std::countr_zero(b))]) == Verdict::ok,
                       "kube-scheduler: a node the quick view passes is not feasible");
        }
#endif
        std::uint64_t feasible = room & plain;
        if ((room & ~plain) != 0) {
          // In list order, and no further than the scan goes: none filtered past the last node
          // it needs.
          feasible = 0;
          std::size_t need = to_find - found_count;
          for (std::uint64_t left = room; left != 0 && need > 0; left &= left - 1) {
            const auto j = static_cast<std::size_t>(std::countr_zero(left));
            const std::uint64_t bit = std::uint64_t{1} << j;
            if ((plain & bit) != 0 || filter(order[base + j]) == Verdict::ok) {
              feasible |= bit;
              --need;
            }
          }
        }
        // The feasible nodes the scan takes: up to the one that makes to_find.
        std::size_t looked = n;
        if (const std::size_t need = to_find - found_count; static_cast<std::size_t>(std::popcount(feasible)) >= need) {
          std::uint64_t last = feasible;
          for (std::size_t i = 1; i < need; ++i) {
            last &= last - 1;
          }
          looked = static_cast<std::size_t>(std::countr_zero(last)) + 1;
          feasible &= looked == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << looked) - 1;
          done = true;
        }
        const std::uint64_t soft = bits_at(soft_bits, base);
        if (list_found) {
          for (std::uint64_t left = feasible; left != 0; left &= left - 1) {
            found[found_count++] = order[base + static_cast<std::size_t>(std::countr_zero(left))];
          }
        } else {
          found_count += static_cast<std::size_t>(std::popcount(feasible));
        }
        if (fused) {
          found_blocks.emplace_back(base, feasible);
          // Most scores are remembered: the others are worked out first, then the block's best is
          // read from the memo's arrays 64 positions at a time.
          const std::size_t slot = ScoreMemos::slot_of(cycle.score_shape);
          for (std::uint64_t miss = feasible & ~score_memo.holding(cycle.score_shape, base); miss != 0;
               miss &= miss - 1) {
            (void)remember_resource_scores(base + static_cast<std::size_t>(std::countr_zero(miss)), slot);
          }
#ifndef NDEBUG
          for (std::uint64_t left = feasible; left != 0; left &= left - 1) {
            (void)resource_scores(base + static_cast<std::size_t>(std::countr_zero(left))); // checks the memo
          }
#endif
          // (Over the nodes without PreferNoSchedule taints: best_with_soft_taints weighs the others.)
          best_key = score_memo.best_key(cycle.score_shape, base, feasible & ~soft, w.node_resources_fit,
                                         w.balanced_allocation, order.data(), best_key);
        }
        // (The positions looked at: those before the last found node's, and its own.)
        const std::uint64_t seen = looked == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << looked) - 1;
        soft_tainted = soft_tainted || (feasible & soft & seen) != 0;
        processed += looked;
      }
    }
    if (found_count == 0) {
      // A scan that finds no node has passed over every node: the most free room is found exact
      // (for the pods after this one that ask as much; worked out here, not during every scan).
      most_free = {*std::max_element(room_cpu.begin(), room_cpu.end()),
                   *std::max_element(room_mem.begin(), room_mem.end())};
      if (remember) {
        failed_at[*key] = view_log.size();
      }
    }
    if (advance) {
      next_start = (start + processed) % all;
    }
    if (found_count == 0) {
      return k_none;
    }
#ifndef NDEBUG
    if (fused) { // the blocks kept list the feasible nodes in scan order
      std::vector<NodeIndex> again;
      for (const auto& [base, nodes] : found_blocks) {
        for (std::uint64_t left = nodes; left != 0; left &= left - 1) {
          again.push_back(order[base + static_cast<std::size_t>(std::countr_zero(left))]);
        }
      }
      CAPSIM_CHECK(std::equal(again.begin(), again.end(), found, found + found_count),
                   "kube-scheduler: the kept blocks list other nodes");
    }
#endif
    if (fused) {
      const NodeIndex chosen = soft_tainted ? best_with_soft_taints(best_key)
                                            : static_cast<NodeIndex>(~static_cast<std::uint32_t>(best_key));
#ifndef NDEBUG
      const std::span<const NodeIndex> feasible(found, found_count);
      CAPSIM_CHECK(chosen == feasible[score(feasible)], "kube-scheduler: the scan's best node differs from score()'s");
#endif
      return chosen;
    }
    if (found_count == 1) {
      return found[0];
    }
    const std::span<const NodeIndex> feasible(found, found_count);
    return feasible[score(feasible)];
  }

  // ---- passes -------------------------------------------------------------------------------

  bool should_try(PodIndex p)
  {
    const auto& ps = cluster->pod(p);
    if (ps.phase != cluster::PodPhase::pending || ps.node != k_none) {
      return false;
    }
    const Tried& t = tried[p];
    if (t.gen == 0 || t.pending_since != ps.pending_since) {
      return true;
    }
    const Group& g = groups[group_of_pod(p)];
    return t.gen != (g.retry_on_any_change ? gen_any : gen_capacity);
  }

  void mark_failed(PodIndex p)
  {
    const Group& g = groups[group_of_pod(p)];
    tried[p] = {g.retry_on_any_change ? gen_any : gen_capacity, cluster->pod(p).pending_since};
  }

  using PassKey = std::tuple<std::int32_t, SimTime, PodIndex>; // (-priority, pending_since, index)
  // Buffers a pass borrows (a week runs hundreds of thousands of passes; a pass that binds
  // through a callback that places again finds them taken and makes its own).
  std::vector<PassKey> spare_queue;
  std::vector<PodIndex> spare_pods; // KubeScheduler::place's and bind_pending's copy of the pods

  void pass(const cluster::Cluster& c, std::span<const PodIndex> candidates, const BindFn& bind)
  {
    sync(c);
    std::vector<PassKey> queue = std::move(spare_queue);
    queue.clear();
    queue.reserve(candidates.size());
    for (const auto p : candidates) {
      if (p < c.pods().size() && should_try(p)) {
        const auto& ps = c.pod(p);
        const std::int32_t priority = ps.pod().spec ? ps.pod().spec->priority : 0;
        queue.emplace_back(-priority, ps.pending_since, p);
      }
    }
    std::sort(queue.begin(), queue.end());
    queue.erase(std::unique(queue.begin(), queue.end()), queue.end());
    failed_equivalent.clear();
    for (const auto& [neg_priority, since, p] : queue) {
      const auto& ps = c.pod(p);
      if (ps.phase != cluster::PodPhase::pending || ps.node != k_none) {
        continue;
      }
      const auto gid = group_of_pod(p);
      // A pod identical to one that found no node in this pass cannot find one either: since then
      // there were only bindings, which never help pods without hard spread / required affinity.
      const bool equivalence = !groups[gid].retry_on_any_change && ps.pod().node_name.empty();
      EquivalenceKey key{gid, ps.pod().requests};
      if (equivalence && failed_equivalent.contains(key)) {
        mark_failed(p);
        continue;
      }
      prepare(ps.pod(), nullptr);
      const NodeIndex node = schedule_prepared(ps.nominated, true, equivalence ? &key : nullptr);
      if (node == k_none) {
        mark_failed(p);
        if (equivalence) {
          failed_equivalent.insert(key);
        }
        continue;
      }
      bind(p, node);
      sync(c);
    }
    spare_queue = std::move(queue);
  }

  // pass() over a copy of `pods` (they may be the cluster's pending list, which binding changes).
  void pass_over_copy(const cluster::Cluster& c, std::span<const PodIndex> pods, const BindFn& bind)
  {
    std::vector<PodIndex> copy = std::move(spare_pods);
    copy.assign(pods.begin(), pods.end());
    pass(c, copy, bind);
    spare_pods = std::move(copy);
  }
};

// ---------------------------------------------------------------------------------------------

KubeScheduler::KubeScheduler(SchedulerConfig config) : m_state(std::make_unique<State>(std::move(config))) {}

KubeScheduler::~KubeScheduler() = default;
KubeScheduler::KubeScheduler(KubeScheduler&&) noexcept = default;
KubeScheduler& KubeScheduler::operator=(KubeScheduler&&) noexcept = default;

const SchedulerConfig& KubeScheduler::config() const
{
  return m_state->config;
}

std::vector<Binding> KubeScheduler::bind_pending(cluster::Cluster& cluster, SimTime now, const BindFn& on_bound)
{
  std::vector<Binding> out;
  m_state->pass_over_copy(cluster, cluster.pending(), [&](PodIndex pod, NodeIndex node) {
    cluster.bind(pod, node, now);
    out.push_back({pod, node});
    if (on_bound) {
      on_bound(pod, node);
    }
  });
  return out;
}

void KubeScheduler::place(const cluster::Cluster& cluster, std::span<const cluster::PodIndex> candidates,
                          const BindFn& bind)
{
  m_state->pass_over_copy(cluster, candidates, bind);
}

bool KubeScheduler::feasible(const cluster::Cluster& cluster, const model::Pod& pod, cluster::NodeIndex node)
{
  auto& s = *m_state;
  s.sync(cluster);
  CAPSIM_CHECK(node < cluster.nodes().size(), "feasible: node index out of range");
  s.prepare(pod, nullptr);
  return s.filter(node) == Verdict::ok;
}

bool KubeScheduler::feasible(const cluster::Cluster& cluster, const model::Pod& pod, const cluster::NodeState& node)
{
  auto& s = *m_state;
  s.sync(cluster);
  s.prepare(pod, &node);
  return s.filter_extra() == Verdict::ok;
}

FilterResult KubeScheduler::check(const cluster::Cluster& cluster, const model::Pod& pod, cluster::NodeIndex node)
{
  auto& s = *m_state;
  s.sync(cluster);
  CAPSIM_CHECK(node < cluster.nodes().size(), "check: node index out of range");
  s.prepare(pod, nullptr);
  return s.result_of(s.filter(node), node);
}

FilterResult KubeScheduler::check(const cluster::Cluster& cluster, const model::Pod& pod,
                                  const cluster::NodeState& node)
{
  auto& s = *m_state;
  s.sync(cluster);
  s.prepare(pod, &node);
  return s.result_of(s.filter_extra(), k_extra);
}

cluster::NodeIndex KubeScheduler::select_node(const cluster::Cluster& cluster, const model::Pod& pod)
{
  auto& s = *m_state;
  s.sync(cluster);
  s.prepare(pod, nullptr);
  return s.schedule_prepared(k_none, false);
}

std::vector<NodeScore> KubeScheduler::score_nodes(const cluster::Cluster& cluster, const model::Pod& pod)
{
  auto& s = *m_state;
  s.sync(cluster);
  s.prepare(pod, nullptr);
  std::vector<NodeIndex> nodes;
  for (const auto n : s.order) {
    if (s.filter(n) == Verdict::ok) {
      nodes.push_back(n);
    }
  }
  std::sort(nodes.begin(), nodes.end());
  std::vector<NodeScore> out;
  if (nodes.empty()) {
    return out;
  }
  s.score(nodes);
  const auto& w = s.config.weights;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    NodeScore ns;
    ns.node = nodes[i];
    ns.node_resources_fit = s.s_fit[i];
    ns.balanced_allocation = s.s_bal[i];
    ns.taint_toleration = s.s_taint[i];
    ns.node_affinity = s.s_naff[i];
    ns.pod_topology_spread = s.s_tsc[i];
    ns.inter_pod_affinity = s.s_ipa[i];
    ns.total = w.node_resources_fit * ns.node_resources_fit + w.balanced_allocation * ns.balanced_allocation
               + w.taint_toleration * ns.taint_toleration + w.node_affinity * ns.node_affinity
               + w.pod_topology_spread * ns.pod_topology_spread + w.inter_pod_affinity * ns.inter_pod_affinity;
    out.push_back(ns);
  }
  return out;
}

std::string KubeScheduler::explain(const cluster::Cluster& cluster, const model::Pod& pod)
{
  auto& s = *m_state;
  s.sync(cluster);
  s.prepare(pod, nullptr);
  std::map<std::string, std::size_t> histogram;
  std::size_t feasible = 0;
  for (const auto n : s.order) {
    const Verdict v = s.filter(n);
    if (v == Verdict::ok) {
      ++feasible;
      continue;
    }
    for (auto& r : s.reasons(v, n)) {
      ++histogram[std::move(r)];
    }
  }
  const std::size_t all = s.order.size();
  if (feasible > 0) {
    return fmt::format("{}/{} nodes are available", feasible, all);
  }
  std::vector<std::string> parts;
  for (const auto& [text, count] : histogram) {
    parts.push_back(fmt::format("{} {}", count, text));
  }
  std::sort(parts.begin(), parts.end());
  std::string out = fmt::format("0/{} nodes are available", all);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? ": " : ", ") + parts[i];
  }
  return out + ".";
}

} // namespace capsim::scheduling
