#include "core/karpenter/reqs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

namespace capsim::karpenter {

namespace {

std::optional<std::int64_t> parse_int(std::string_view s)
{
  std::int64_t v = 0;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end || s.empty()) {
    return std::nullopt;
  }
  return v;
}

bool within(ValueId v, const std::optional<std::int64_t>& gte, const std::optional<std::int64_t>& lte,
            const Interner& in)
{
  if (!gte && !lte) {
    return true;
  }
  const auto x = in.value_int(v);
  if (!x) {
    return false;
  }
  return (!gte || *x >= *gte) && (!lte || *x <= *lte);
}

bool contains(const ValueList& sorted, ValueId v)
{
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

std::optional<std::int64_t> max_opt(const std::optional<std::int64_t>& a, const std::optional<std::int64_t>& b)
{
  if (a && b) {
    return std::max(*a, *b);
  }
  return a ? a : b;
}

std::optional<std::int64_t> min_opt(const std::optional<std::int64_t>& a, const std::optional<std::int64_t>& b)
{
  if (a && b) {
    return std::min(*a, *b);
  }
  return a ? a : b;
}

} // namespace

Interner::Interner()
{
  k_zone = key(model::labels::k_zone);
  k_capacity_type = key(model::labels::k_capacity_type);
  k_hostname = key(model::labels::k_hostname);
  k_instance_type = key(model::labels::k_instance_type);
  k_nodepool = key(model::labels::k_nodepool);
}

KeyId Interner::key(std::string_view name)
{
  if (auto it = m_key_ids.find(name); it != m_key_ids.end()) {
    return it->second;
  }
  const auto id = static_cast<KeyId>(m_keys.size());
  m_keys.emplace_back(name);
  m_well_known.push_back(model::is_well_known_label(name) ? 1 : 0);
  m_key_ids.emplace(std::string(name), id);
  return id;
}

ValueId Interner::value(std::string_view v)
{
  if (auto it = m_value_ids.find(v); it != m_value_ids.end()) {
    return it->second;
  }
  const auto id = static_cast<ValueId>(m_values.size());
  m_values.emplace_back(v);
  m_ints.push_back(parse_int(v));
  m_value_ids.emplace(std::string(v), id);
  return id;
}

std::optional<KeyId> Interner::find_key(std::string_view name) const
{
  if (auto it = m_key_ids.find(name); it != m_key_ids.end()) {
    return it->second;
  }
  return std::nullopt;
}

std::optional<ValueId> Interner::find_value(std::string_view v) const
{
  if (auto it = m_value_ids.find(v); it != m_value_ids.end()) {
    return it->second;
  }
  return std::nullopt;
}

std::string Interner::value_name(ValueId v) const
{
  if (v >= k_claim_host_base) {
    return fmt::format("hostname-placeholder-{:04d}", v - k_claim_host_base + 1);
  }
  return m_values[v];
}

Req make_exists(KeyId key)
{
  Req r;
  r.key = key;
  r.complement = true;
  return r;
}

Req make_in(KeyId key, ValueId value)
{
  Req r;
  r.key = key;
  r.values.push_back(value);
  return r;
}

Req make_does_not_exist(KeyId key)
{
  Req r;
  r.key = key;
  return r;
}

bool req_has(const Req& r, ValueId v, const Interner& in)
{
  if (r.complement) {
    return !contains(r.values, v) && within(v, r.gte, r.lte, in);
  }
  return contains(r.values, v) && within(v, r.gte, r.lte, in);
}

bool req_has_intersection(const Req& a, const Req& b, const Interner& in)
{
  const auto gte = max_opt(a.gte, b.gte);
  const auto lte = min_opt(a.lte, b.lte);
  if (gte && lte && *gte > *lte) {
    return false;
  }
  if (a.complement && b.complement) {
    return true;
  }
  if (a.complement) {
    for (const ValueId v : b.values) {
      if (!contains(a.values, v) && within(v, gte, lte, in)) {
        return true;
      }
    }
    return false;
  }
  if (b.complement) {
    for (const ValueId v : a.values) {
      if (!contains(b.values, v) && within(v, gte, lte, in)) {
        return true;
      }
    }
    return false;
  }
  // Both finite: merge.
  auto i = a.values.begin();
  auto j = b.values.begin();
  while (i != a.values.end() && j != b.values.end()) {
    if (*i < *j) {
      ++i;
    } else if (*j < *i) {
      ++j;
    } else {
      if (within(*i, gte, lte, in)) {
        return true;
      }
      ++i;
      ++j;
    }
  }
  return false;
}

Req req_intersection(const Req& a, const Req& b, const Interner& in)
{
  Req r;
  r.key = a.key;
  r.complement = a.complement && b.complement;
  auto gte = max_opt(a.gte, b.gte);
  auto lte = min_opt(a.lte, b.lte);
  if (a.min_values && b.min_values) {
    r.min_values = std::max(*a.min_values, *b.min_values);
  } else {
    r.min_values = a.min_values ? a.min_values : b.min_values;
  }
  if (gte && lte && *gte > *lte) {
    r.complement = false; // DoesNotExist
    return r;
  }
  if (a.complement && b.complement) {
    std::set_union(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(), std::back_inserter(r.values));
  } else if (a.complement) {
    std::set_difference(b.values.begin(), b.values.end(), a.values.begin(), a.values.end(),
                        std::back_inserter(r.values));
  } else if (b.complement) {
    std::set_difference(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                        std::back_inserter(r.values));
  } else {
    std::set_intersection(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                          std::back_inserter(r.values));
  }
  if (gte || lte) {
    const auto outside = [&](ValueId v) { return !within(v, gte, lte, in); };
    r.values.erase(std::remove_if(r.values.begin(), r.values.end(), outside), r.values.end());
  }
  if (r.complement) {
    r.gte = gte;
    r.lte = lte;
  }
  return r;
}

std::string req_to_string(const Req& r, const Interner& in)
{
  std::string s;
  switch (r.op()) {
  case ReqOp::exists: s = fmt::format("{} Exists", in.key_name(r.key)); break;
  case ReqOp::does_not_exist: s = fmt::format("{} DoesNotExist", in.key_name(r.key)); break;
  case ReqOp::in:
  case ReqOp::not_in: {
    std::vector<std::string> names;
    names.reserve(r.values.size());
    for (const ValueId v : r.values) {
      names.push_back(in.value_name(v));
    }
    std::sort(names.begin(), names.end());
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) {
      list += (i != 0 ? " " : "") + names[i];
    }
    if (names.size() > 5) {
      list += fmt::format(" and {} others", names.size() - 5);
    }
    s = fmt::format("{} {} [{}]", in.key_name(r.key), r.op() == ReqOp::in ? "In" : "NotIn", list);
    break;
  }
  }
  if (r.gte) {
    s += fmt::format(" >={}", *r.gte);
  }
  if (r.lte) {
    s += fmt::format(" <={}", *r.lte);
  }
  if (r.min_values) {
    s += fmt::format(" minValues {}", *r.min_values);
  }
  return s;
}

const Req* ReqSet::find(KeyId key) const
{
  auto it = std::lower_bound(m_items.begin(), m_items.end(), key, [](const Req& r, KeyId k) { return r.key < k; });
  return it != m_items.end() && it->key == key ? &*it : nullptr;
}

Req* ReqSet::find(KeyId key)
{
  auto it = std::lower_bound(m_items.begin(), m_items.end(), key, [](const Req& r, KeyId k) { return r.key < k; });
  return it != m_items.end() && it->key == key ? &*it : nullptr;
}

void ReqSet::add(const Req& r, const Interner& in)
{
  auto it = std::lower_bound(m_items.begin(), m_items.end(), r.key, [](const Req& a, KeyId k) { return a.key < k; });
  if (it != m_items.end() && it->key == r.key) {
    *it = req_intersection(r, *it, in);
  } else {
    m_items.insert(it, r);
  }
}

void ReqSet::add(const ReqSet& other, const Interner& in)
{
  for (const auto& r : other.m_items) {
    add(r, in);
  }
}

ReqSet ReqSet::of(std::vector<Req> items, const Interner& in)
{
  // Stable: the items of one key meet in the order add() would take them.
  std::stable_sort(items.begin(), items.end(), [](const Req& a, const Req& b) { return a.key < b.key; });
  ReqSet out;
  out.m_items.reserve(items.size());
  for (auto& r : items) {
    if (!out.m_items.empty() && out.m_items.back().key == r.key) {
      out.m_items.back() = req_intersection(r, out.m_items.back(), in);
    } else {
      out.m_items.push_back(std::move(r));
    }
  }
  return out;
}

void ReqSet::set(Req r)
{
  auto it = std::lower_bound(m_items.begin(), m_items.end(), r.key, [](const Req& a, KeyId k) { return a.key < k; });
  if (it != m_items.end() && it->key == r.key) {
    *it = std::move(r);
  } else {
    m_items.insert(it, std::move(r));
  }
}

void ReqSet::erase(KeyId key)
{
  std::erase_if(m_items, [&](const Req& r) { return r.key == key; });
}

bool ReqSet::has_min_values() const
{
  return std::any_of(m_items.begin(), m_items.end(), [](const Req& r) { return r.min_values.has_value(); });
}

const Req* ReqSet::first_conflict(const ReqSet& incoming, const Interner& in) const
{
  auto a = m_items.begin();
  auto b = incoming.m_items.begin();
  while (a != m_items.end() && b != incoming.m_items.end()) {
    if (a->key < b->key) {
      ++a;
    } else if (b->key < a->key) {
      ++b;
    } else {
      if (!req_has_intersection(*a, *b, in) && !(b->negative() && a->negative())) {
        return &*b;
      }
      ++a;
      ++b;
    }
  }
  return nullptr;
}

bool ReqSet::compatible(const ReqSet& incoming, bool allow_undefined_well_known, const Interner& in) const
{
  for (const auto& r : incoming.m_items) {
    if (allow_undefined_well_known && in.well_known(r.key)) {
      continue;
    }
    if (!r.negative() && !has(r.key)) {
      return false;
    }
  }
  return first_conflict(incoming, in) == nullptr;
}

std::string ReqSet::compatible_error(const ReqSet& incoming, bool allow_undefined_well_known, const Interner& in) const
{
  for (const auto& r : incoming.m_items) {
    if (allow_undefined_well_known && in.well_known(r.key)) {
      continue;
    }
    if (!r.negative() && !has(r.key)) {
      return fmt::format("label \"{}\" does not have known values", in.key_name(r.key));
    }
  }
  if (const Req* bad = first_conflict(incoming, in)) {
    const Req* existing = find(bad->key);
    return fmt::format("key {}, {} not in {}", in.key_name(bad->key), req_to_string(*bad, in),
                       existing != nullptr ? req_to_string(*existing, in) : "");
  }
  return {};
}

std::string ReqSet::to_string(const Interner& in) const
{
  std::vector<std::string> parts;
  for (const auto& r : m_items) {
    if (r.key == in.k_hostname) {
      continue; // restricted labels are not printed upstream
    }
    parts.push_back(req_to_string(r, in));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i != 0 ? ", " : "") + parts[i];
  }
  return out;
}

std::string_view normalized_label(std::string_view key)
{
  if (key == "failure-domain.beta.kubernetes.io/zone" || key == model::labels::k_ebs_csi_zone) {
    return model::labels::k_zone; // the second: the AWS provider's addition (operator.go)
  }
  if (key == "failure-domain.beta.kubernetes.io/region") {
    return model::labels::k_region;
  }
  if (key == "beta.kubernetes.io/arch") {
    return model::labels::k_arch;
  }
  if (key == "beta.kubernetes.io/os") {
    return model::labels::k_os;
  }
  if (key == "beta.kubernetes.io/instance-type") {
    return model::labels::k_instance_type;
  }
  return key;
}

Req to_req(const model::Requirement& r, Interner& in)
{
  Req out;
  // NewRequirementWithFlexibility normalizes every key, for pods, NodePools and nodes alike.
  out.key = in.key(normalized_label(r.key));
  out.complement = r.complement;
  out.values.reserve(r.values.size());
  for (const auto& v : r.values) {
    out.values.push_back(in.value(v));
  }
  std::sort(out.values.begin(), out.values.end());
  out.values.erase(std::unique(out.values.begin(), out.values.end()), out.values.end());
  if (r.greater_than) {
    if (*r.greater_than == std::numeric_limits<std::int64_t>::max()) {
      return make_does_not_exist(out.key); // Gt MaxInt matches nothing
    }
    out.gte = *r.greater_than + 1;
  }
  if (r.less_than) {
    if (*r.less_than == std::numeric_limits<std::int64_t>::min()) {
      return make_does_not_exist(out.key);
    }
    out.lte = *r.less_than - 1;
  }
  out.min_values = r.min_values;
  if (out.gte && out.lte && *out.gte > *out.lte) {
    Req empty = make_does_not_exist(out.key);
    empty.min_values = out.min_values;
    return empty;
  }
  return out;
}

ReqSet to_req_set(const model::Requirements& r, Interner& in)
{
  ReqSet out;
  for (const auto& item : r.items()) {
    out.add(to_req(item, in), in);
  }
  return out;
}

ReqSet labels_to_req_set(const model::Labels& labels, Interner& in)
{
  std::vector<Req> items;
  items.reserve(labels.size());
  for (const auto& [k, v] : labels) {
    items.push_back(make_in(in.key(normalized_label(k)), in.value(v)));
  }
  return ReqSet::of(std::move(items), in);
}

model::Requirement to_model(const Req& r, const Interner& in)
{
  model::Requirement m;
  m.key = in.key_name(r.key);
  m.complement = r.complement;
  for (const ValueId v : r.values) {
    m.values.push_back(in.value_name(v));
  }
  std::sort(m.values.begin(), m.values.end());
  if (r.gte) {
    m.greater_than = *r.gte - 1;
  }
  if (r.lte) {
    m.less_than = *r.lte + 1;
  }
  m.min_values = r.min_values;
  return m;
}

model::Requirements to_model(const ReqSet& r, const Interner& in)
{
  model::Requirements out;
  out.items().reserve(r.items().size());
  for (const auto& item : r.items()) {
    out.items().push_back(to_model(item, in));
  }
  std::sort(out.items().begin(), out.items().end(),
            [](const model::Requirement& a, const model::Requirement& b) { return a.key < b.key; });
  return out;
}

} // namespace capsim::karpenter
