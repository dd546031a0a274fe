#pragma once

#include "core/karpenter/value_list.hpp"
#include "core/model/kube.hpp"
#include "core/model/requirements.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace capsim::karpenter {

// Karpenter's requirement algebra (core:pkg/scheduling/requirement(s).go) over interned ids:
// the scheduler's hot path compares integers, never strings. model::Requirements is the
// readable form used at the API boundary; conversions are below.

using KeyId = std::uint32_t;
using ValueId = std::uint32_t;

// Value ids from here up name in-round NodeClaims' placeholder hostnames (claim i has id
// k_claim_host_base + i); they are not stored in the interner.
inline constexpr ValueId k_claim_host_base = 0x80000000U;

// Interns label keys and values. Ids are stable for the interner's lifetime. A key is "well
// known" (a pod may require it although a NodePool leaves it undefined) when
// model::is_well_known_label says so or when an instance type of the catalog defines it (the
// cloud provider registers its labels, as Karpenter's providers do).
class Interner
{
public:
  Interner();

  [[nodiscard]] KeyId key(std::string_view name);
  [[nodiscard]] ValueId value(std::string_view v);
  [[nodiscard]] std::optional<KeyId> find_key(std::string_view name) const;
  [[nodiscard]] std::optional<ValueId> find_value(std::string_view v) const;

  [[nodiscard]] const std::string& key_name(KeyId k) const { return m_keys[k]; }

  // The text of a value (placeholder hostnames are generated).
  [[nodiscard]] std::string value_name(ValueId v) const;

  // The value as an integer, for Gt/Lt; nullopt when it is not one.
  [[nodiscard]] std::optional<std::int64_t> value_int(ValueId v) const
  {
    return v < m_ints.size() ? m_ints[v] : std::nullopt;
  }

  [[nodiscard]] bool well_known(KeyId k) const { return m_well_known[k] != 0; }

  void mark_well_known(KeyId k) { m_well_known[k] = 1; }

  [[nodiscard]] std::size_t key_count() const { return m_keys.size(); }

  // Frequently used keys, interned at construction.
  KeyId k_zone = 0;
  KeyId k_capacity_type = 0;
  KeyId k_hostname = 0;
  KeyId k_instance_type = 0;
  KeyId k_nodepool = 0;

private:
  struct Hash
  {
    using is_transparent = void;

    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };

  std::vector<std::string> m_keys;
  std::vector<std::uint8_t> m_well_known;
  std::unordered_map<std::string, KeyId, Hash, std::equal_to<>> m_key_ids;
  std::vector<std::string> m_values;
  std::vector<std::optional<std::int64_t>> m_ints;
  std::unordered_map<std::string, ValueId, Hash, std::equal_to<>> m_value_ids;
};

// Upstream's Operator(): Gt/Lt bounds read as Exists (or NotIn when values are excluded).
enum class ReqOp : std::uint8_t { in, not_in, exists, does_not_exist };

// One key's allowed values: a finite set, or all but a set (complement), optionally bounded
// by inclusive integer bounds (Gt N is stored as gte N+1, as upstream canonicalises it).
struct Req
{
  KeyId key = 0;
  bool complement = false;
  ValueList values; // sorted, unique
  std::optional<std::int64_t> gte;
  std::optional<std::int64_t> lte;
  std::optional<int> min_values;

  [[nodiscard]] ReqOp op() const
  {
    if (complement) {
      return values.empty() ? ReqOp::exists : ReqOp::not_in;
    }
    return values.empty() ? ReqOp::does_not_exist : ReqOp::in;
  }

  [[nodiscard]] bool negative() const
  {
    const ReqOp o = op();
    return o == ReqOp::not_in || o == ReqOp::does_not_exist;
  }

  // Exactly one allowed value (Len() == 1 upstream).
  [[nodiscard]] bool single() const { return !complement && values.size() == 1; }

  bool operator==(const Req&) const = default;
};

[[nodiscard]] Req make_exists(KeyId key);
[[nodiscard]] Req make_in(KeyId key, ValueId value);
[[nodiscard]] Req make_does_not_exist(KeyId key);

[[nodiscard]] bool req_has(const Req& r, ValueId v, const Interner& in);
[[nodiscard]] bool req_has_intersection(const Req& a, const Req& b, const Interner& in);
[[nodiscard]] Req req_intersection(const Req& a, const Req& b, const Interner& in);
[[nodiscard]] std::string req_to_string(const Req& r, const Interner& in);

// A set of requirements keyed by label (a missing key behaves as Exists), sorted by key id.
class ReqSet
{
public:
  [[nodiscard]] const Req* find(KeyId key) const;
  [[nodiscard]] Req* find(KeyId key);

  [[nodiscard]] bool has(KeyId key) const { return find(key) != nullptr; }

  // Intersect r into the set (Requirements.Add).
  void add(const Req& r, const Interner& in);
  void add(const ReqSet& other, const Interner& in);
  // The set of `items` added in turn (one sort instead of an insertion each).
  [[nodiscard]] static ReqSet of(std::vector<Req> items, const Interner& in);
  // Replace (not intersect) the requirement for r.key.
  void set(Req r);
  void erase(KeyId key);

  [[nodiscard]] const std::vector<Req>& items() const { return m_items; }

  [[nodiscard]] bool empty() const { return m_items.empty(); }

  [[nodiscard]] bool has_min_values() const;

  // Karpenter's Intersects: the first shared key whose values do not intersect (unless both
  // sides are NotIn/DoesNotExist), or nullptr.
  [[nodiscard]] const Req* first_conflict(const ReqSet& incoming, const Interner& in) const;
  [[nodiscard]] bool intersects(const ReqSet& incoming, const Interner& in) const
  {
    return first_conflict(incoming, in) == nullptr;
  }

  // Karpenter's Compatible: every key `incoming` constrains positively must be defined here
  // (unless allow_undefined_well_known and the key is well known), then Intersects. Returns ""
  // when compatible, else upstream's message.
  [[nodiscard]] std::string compatible_error(const ReqSet& incoming, bool allow_undefined_well_known,
                                             const Interner& in) const;
  [[nodiscard]] bool compatible(const ReqSet& incoming, bool allow_undefined_well_known, const Interner& in) const;

  [[nodiscard]] std::string to_string(const Interner& in) const;

  bool operator==(const ReqSet&) const = default;

private:
  std::vector<Req> m_items;
};

// Conversions to and from the readable model. Deprecated key aliases
// (failure-domain.beta.kubernetes.io/zone, beta.kubernetes.io/arch, ...) become the stable
// keys, as upstream's NewRequirement does for every requirement and label.
[[nodiscard]] Req to_req(const model::Requirement& r, Interner& in);
[[nodiscard]] ReqSet to_req_set(const model::Requirements& r, Interner& in);
[[nodiscard]] ReqSet labels_to_req_set(const model::Labels& labels, Interner& in);
[[nodiscard]] model::Requirement to_model(const Req& r, const Interner& in);
[[nodiscard]] model::Requirements to_model(const ReqSet& r, const Interner& in);

// The stable key for a deprecated alias, or the key itself.
[[nodiscard]] std::string_view normalized_label(std::string_view key);

} // namespace capsim::karpenter
