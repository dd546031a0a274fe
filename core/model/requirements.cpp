#include "core/model/requirements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

namespace capsim::model {

namespace {

std::optional<std::int64_t> as_int(std::string_view s)
{
  std::int64_t v = 0;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return v;
}

bool within_bounds(std::string_view value, const std::optional<std::int64_t>& gt, const std::optional<std::int64_t>& lt)
{
  if (!gt && !lt) {
    return true;
  }
  const auto v = as_int(value);
  if (!v) {
    return false;
  }
  return (!gt || *v > *gt) && (!lt || *v < *lt);
}

// Upstream's Operator() is NotIn or DoesNotExist (Gt/Lt bounds read as Exists, or NotIn when
// values are also excluded).
bool is_negative(const Requirement& r)
{
  return r.complement ? !r.values.empty() : r.values.empty();
}

void sort_unique(std::vector<std::string>& v)
{
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool contains(const std::vector<std::string>& sorted, std::string_view value)
{
  return std::binary_search(sorted.begin(), sorted.end(), value, std::less<>());
}

} // namespace

std::optional<Operator> parse_operator(std::string_view text)
{
  if (text == "In") {
    return Operator::in;
  }
  if (text == "NotIn") {
    return Operator::not_in;
  }
  if (text == "Exists") {
    return Operator::exists;
  }
  if (text == "DoesNotExist") {
    return Operator::does_not_exist;
  }
  if (text == "Gt") {
    return Operator::gt;
  }
  if (text == "Lt") {
    return Operator::lt;
  }
  if (text == "Gte") {
    return Operator::gte;
  }
  if (text == "Lte") {
    return Operator::lte;
  }
  return std::nullopt;
}

std::string_view to_string(Operator op)
{
  switch (op) {
  case Operator::in: return "In";
  case Operator::not_in: return "NotIn";
  case Operator::exists: return "Exists";
  case Operator::does_not_exist: return "DoesNotExist";
  case Operator::gt: return "Gt";
  case Operator::lt: return "Lt";
  case Operator::gte: return "Gte";
  case Operator::lte: return "Lte";
  }
  return "?";
}

Requirement Requirement::make(std::string key, Operator op, std::vector<std::string> values, std::optional<int> min_values)
{
  Requirement r;
  r.key = std::move(key);
  r.min_values = min_values;
  const auto bound = [&]() -> std::optional<std::int64_t> {
    return values.empty() ? std::nullopt : as_int(values.front());
  };
  switch (op) {
  case Operator::in:
    r.values = std::move(values);
    break;
  case Operator::not_in:
    r.complement = true;
    r.values = std::move(values);
    break;
  case Operator::exists:
    r.complement = true;
    break;
  case Operator::does_not_exist:
    break;
  case Operator::gt:
    r.complement = true;
    r.greater_than = bound();
    break;
  case Operator::gte:
    r.complement = true;
    if (auto b = bound()) {
      r.greater_than = *b - 1;
    }
    break;
  case Operator::lt:
    r.complement = true;
    r.less_than = bound();
    break;
  case Operator::lte:
    r.complement = true;
    if (auto b = bound()) {
      r.less_than = *b + 1;
    }
    break;
  }
  sort_unique(r.values);
  return r;
}

bool Requirement::has(std::string_view value) const
{
  if (complement) {
    return !contains(values, value) && within_bounds(value, greater_than, less_than);
  }
  return contains(values, value) && within_bounds(value, greater_than, less_than);
}

std::size_t Requirement::size() const
{
  if (complement) {
    return std::numeric_limits<std::size_t>::max() - values.size();
  }
  return values.size();
}

Operator Requirement::op() const
{
  if (complement) {
    if (greater_than) {
      return Operator::gt;
    }
    if (less_than) {
      return Operator::lt;
    }
    return values.empty() ? Operator::exists : Operator::not_in;
  }
  return values.empty() ? Operator::does_not_exist : Operator::in;
}

Requirement Requirement::intersection(const Requirement& other) const
{
  Requirement r;
  r.key = key;
  r.complement = complement && other.complement;
  if (greater_than && other.greater_than) {
    r.greater_than = std::max(*greater_than, *other.greater_than);
  } else {
    r.greater_than = greater_than ? greater_than : other.greater_than;
  }
  if (less_than && other.less_than) {
    r.less_than = std::min(*less_than, *other.less_than);
  } else {
    r.less_than = less_than ? less_than : other.less_than;
  }
  if (min_values && other.min_values) {
    r.min_values = std::max(*min_values, *other.min_values);
  } else {
    r.min_values = min_values ? min_values : other.min_values;
  }
  if (r.greater_than && r.less_than && (*r.greater_than >= *r.less_than || *r.greater_than + 1 == *r.less_than)) {
    // An empty numeric range (no integer strictly between the bounds): DoesNotExist.
    r.complement = false;
    r.greater_than.reset();
    r.less_than.reset();
    return r;
  }
  if (complement && other.complement) {
    std::set_union(values.begin(), values.end(), other.values.begin(), other.values.end(),
                   std::back_inserter(r.values));
  } else if (complement) {
    std::set_difference(other.values.begin(), other.values.end(), values.begin(), values.end(),
                        std::back_inserter(r.values));
  } else if (other.complement) {
    std::set_difference(values.begin(), values.end(), other.values.begin(), other.values.end(),
                        std::back_inserter(r.values));
  } else {
    std::set_intersection(values.begin(), values.end(), other.values.begin(), other.values.end(),
                          std::back_inserter(r.values));
  }
  std::erase_if(r.values, [&](const std::string& v) { return !within_bounds(v, r.greater_than, r.less_than); });
  if (!r.complement) {
    r.greater_than.reset();
    r.less_than.reset();
  }
  return r;
}

bool Requirement::intersection_empty(const Requirement& other) const
{
  std::optional<std::int64_t> gt = greater_than && other.greater_than ? std::max(*greater_than, *other.greater_than)
                                    : greater_than                    ? greater_than
                                                                      : other.greater_than;
  std::optional<std::int64_t> lt = less_than && other.less_than ? std::min(*less_than, *other.less_than)
                                   : less_than                  ? less_than
                                                                : other.less_than;
  if (gt && lt && (*gt >= *lt || *gt + 1 == *lt)) {
    return true;
  }
  if (complement && other.complement) {
    return false; // a complement is never empty
  }
  if (complement || other.complement) {
    const auto& listed = complement ? other.values : values;
    const auto& excluded = complement ? values : other.values;
    return std::none_of(listed.begin(), listed.end(), [&](const std::string& v) {
      return !contains(excluded, v) && within_bounds(v, gt, lt);
    });
  }
  const auto& small = values.size() <= other.values.size() ? values : other.values;
  const auto& large = values.size() <= other.values.size() ? other.values : values;
  return std::none_of(small.begin(), small.end(),
                      [&](const std::string& v) { return contains(large, v) && within_bounds(v, gt, lt); });
}

std::string Requirement::any() const
{
  if (!complement && !values.empty()) {
    return values.front();
  }
  return {};
}

Requirements Requirements::from_labels(const std::map<std::string, std::string>& labels)
{
  Requirements r;
  r.m_items.reserve(labels.size());
  for (const auto& [k, v] : labels) {
    Requirement req;
    req.key = k;
    req.values = {v};
    r.m_items.push_back(std::move(req)); // std::map iterates sorted, so m_items stays sorted
  }
  return r;
}

bool Requirements::labels_compatible(const std::map<std::string, std::string>& labels, const Requirements& incoming,
                                     bool allow_undefined_well_known)
{
  Requirements own;
  for (const auto& r : incoming.m_items) {
    if (const auto it = labels.find(r.key); it != labels.end()) {
      Requirement req;
      req.key = it->first;
      req.values = {it->second};
      own.m_items.push_back(std::move(req)); // in incoming's order: sorted by key
    }
  }
  return own.is_compatible(incoming, allow_undefined_well_known);
}

void Requirements::add(const Requirement& r)
{
  auto it = std::lower_bound(m_items.begin(), m_items.end(), r.key,
                             [](const Requirement& a, std::string_view k) { return a.key < k; });
  if (it != m_items.end() && it->key == r.key) {
    *it = it->intersection(r);
  } else {
    m_items.insert(it, r);
  }
}

void Requirements::add(Requirement&& r)
{
  auto it = std::lower_bound(m_items.begin(), m_items.end(), r.key,
                             [](const Requirement& a, std::string_view k) { return a.key < k; });
  if (it != m_items.end() && it->key == r.key) {
    *it = it->intersection(r);
  } else {
    m_items.insert(it, std::move(r));
  }
}

void Requirements::add(const Requirements& other)
{
  for (const auto& r : other.m_items) {
    add(r);
  }
}

const Requirement* Requirements::find(std::string_view key) const
{
  auto it = std::lower_bound(m_items.begin(), m_items.end(), key,
                             [](const Requirement& a, std::string_view k) { return a.key < k; });
  if (it != m_items.end() && it->key == key) {
    return &*it;
  }
  return nullptr;
}

bool Requirements::has(std::string_view key) const
{
  return find(key) != nullptr;
}

Requirement Requirements::get(std::string_view key) const
{
  if (const auto* r = find(key)) {
    return *r;
  }
  return Requirement::make(std::string(key), Operator::exists, {});
}

void Requirements::erase(std::string_view key)
{
  std::erase_if(m_items, [&](const Requirement& r) { return r.key == key; });
}

namespace {

// The first key whose values do not intersect (both lists are sorted by key: a merge).
template <typename Items>
std::pair<const Requirement*, const Requirement*> first_disjoint(const Items& mine, const Items& theirs)
{
  auto a = mine.begin();
  auto b = theirs.begin();
  while (a != mine.end() && b != theirs.end()) {
    const int order = a->key.compare(b->key);
    if (order < 0) {
      ++a;
    } else if (order > 0) {
      ++b;
    } else {
      if (a->intersection_empty(*b) && !(is_negative(*b) && is_negative(*a))) {
        return {&*a, &*b};
      }
      ++a;
      ++b;
    }
  }
  return {nullptr, nullptr};
}

} // namespace

std::string Requirements::intersects(const Requirements& other) const
{
  const auto [a, b] = first_disjoint(m_items, other.m_items);
  if (a == nullptr) {
    return {};
  }
  return fmt::format("key {}, {} not in {}", a->key, to_string(*b), to_string(*a));
}

bool Requirements::intersects_ok(const Requirements& other) const
{
  return first_disjoint(m_items, other.m_items).first == nullptr;
}

std::string Requirements::compatible(const Requirements& incoming, bool allow_undefined_well_known) const
{
  for (const auto& r : incoming.m_items) {
    if (allow_undefined_well_known && is_well_known_label(r.key)) {
      continue;
    }
    if (has(r.key) || is_negative(r)) {
      continue;
    }
    return fmt::format("label \"{}\" does not have known values", r.key);
  }
  return intersects(incoming);
}

std::map<std::string, std::string> Requirements::single_value_labels() const
{
  std::map<std::string, std::string> out;
  for (const auto& r : m_items) {
    if (!r.complement && r.values.size() == 1) {
      out.emplace(r.key, r.values.front());
    }
  }
  return out;
}

bool is_well_known_label(std::string_view key)
{
  static constexpr std::string_view k_known[] = {
      labels::k_nodepool,
      labels::k_zone,
      labels::k_region,
      labels::k_instance_type,
      labels::k_arch,
      labels::k_os,
      labels::k_capacity_type,
      labels::k_windows_build,
      "karpenter.k8s.aws/instance-hypervisor",
      "karpenter.k8s.aws/instance-encryption-in-transit-supported",
      labels::k_instance_category,
      "karpenter.k8s.aws/instance-family",
      labels::k_instance_generation,
      "karpenter.k8s.aws/instance-local-nvme",
      labels::k_instance_size,
      labels::k_instance_cpu,
      "karpenter.k8s.aws/instance-cpu-manufacturer",
      "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
      labels::k_instance_memory,
      "karpenter.k8s.aws/instance-ebs-bandwidth",
      "karpenter.k8s.aws/instance-network-bandwidth",
      labels::k_instance_gpu_name,
      "karpenter.k8s.aws/instance-gpu-manufacturer",
      labels::k_instance_gpu_count,
      "karpenter.k8s.aws/instance-gpu-memory",
      "karpenter.k8s.aws/instance-accelerator-name",
      "karpenter.k8s.aws/instance-accelerator-manufacturer",
      "karpenter.k8s.aws/instance-accelerator-count",
      "karpenter.k8s.aws/instance-capability-flex",
      "topology.k8s.aws/zone-id",
      labels::k_capacity_reservation_id,
      "karpenter.k8s.aws/capacity-reservation-type",
      "karpenter.k8s.aws/capacity-reservation-interruptible",
      "karpenter.k8s.aws/nitro-sandbox",
      labels::k_instance_tenancy,
      "karpenter.k8s.aws/placement-group-id",
      "karpenter.k8s.aws/placement-group-partition",
  };
  return std::find(std::begin(k_known), std::end(k_known), key) != std::end(k_known);
}

std::span<const std::string_view> well_known_values(std::string_view key)
{
  static constexpr std::string_view k_capacity_types[] = {k_capacity_on_demand, k_capacity_spot, k_capacity_reserved};
  static constexpr std::string_view k_tenancies[] = {"default", "dedicated"};
  if (key == labels::k_capacity_type) {
    return k_capacity_types;
  }
  if (key == labels::k_instance_tenancy) {
    return k_tenancies;
  }
  return {};
}

bool is_restricted_node_pool_key(std::string_view key)
{
  // The karpenter.k8s.aws keys the CRD allows (its list, not WellKnownLabels: it adds the
  // EC2NodeClass label and leaves out topology.k8s.aws/zone-id, which is outside the domain).
  static constexpr std::string_view k_aws_allowed[] = {
      "karpenter.k8s.aws/instance-tenancy",
      "karpenter.k8s.aws/capacity-reservation-type",
      "karpenter.k8s.aws/capacity-reservation-id",
      "karpenter.k8s.aws/capacity-reservation-interruptible",
      "karpenter.k8s.aws/ec2nodeclass",
      "karpenter.k8s.aws/instance-encryption-in-transit-supported",
      "karpenter.k8s.aws/nitro-sandbox",
      "karpenter.k8s.aws/instance-category",
      "karpenter.k8s.aws/instance-hypervisor",
      "karpenter.k8s.aws/instance-family",
      "karpenter.k8s.aws/instance-generation",
      "karpenter.k8s.aws/instance-local-nvme",
      "karpenter.k8s.aws/instance-size",
      "karpenter.k8s.aws/instance-cpu",
      "karpenter.k8s.aws/instance-cpu-manufacturer",
      "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
      "karpenter.k8s.aws/instance-memory",
      "karpenter.k8s.aws/instance-ebs-bandwidth",
      "karpenter.k8s.aws/instance-network-bandwidth",
      "karpenter.k8s.aws/instance-gpu-name",
      "karpenter.k8s.aws/instance-gpu-manufacturer",
      "karpenter.k8s.aws/instance-gpu-count",
      "karpenter.k8s.aws/instance-gpu-memory",
      "karpenter.k8s.aws/instance-accelerator-name",
      "karpenter.k8s.aws/instance-accelerator-manufacturer",
      "karpenter.k8s.aws/instance-accelerator-count",
      "karpenter.k8s.aws/instance-capability-flex",
      "karpenter.k8s.aws/placement-group-id",
      "karpenter.k8s.aws/placement-group-partition",
  };
  if (key == labels::k_hostname || key == labels::k_nodepool) {
    return true;
  }
  // The CEL rules take the domain as the text before the first '/' (the whole key without one)
  // and test it with endsWith.
  const std::string_view domain = key.substr(0, key.find('/'));
  if (domain.ends_with("karpenter.sh")) {
    return key != labels::k_capacity_type;
  }
  if (domain.ends_with("karpenter.k8s.aws")) {
    return std::find(std::begin(k_aws_allowed), std::end(k_aws_allowed), key) == std::end(k_aws_allowed);
  }
  return false;
}

std::string to_string(const Requirement& r)
{
  const Operator op = r.op();
  std::string out = fmt::format("{} {}", r.key, to_string(op));
  if (op == Operator::gt && r.greater_than) {
    out += fmt::format(" {}", *r.greater_than);
  } else if (op == Operator::lt && r.less_than) {
    out += fmt::format(" {}", *r.less_than);
  } else if (!r.values.empty()) {
    out += " [";
    for (std::size_t i = 0; i < r.values.size() && i < 8; ++i) {
      out += (i != 0 ? "," : "") + r.values[i];
    }
    if (r.values.size() > 8) {
      out += fmt::format(",... {} values", r.values.size());
    }
    out += "]";
  }
  return out;
}

} // namespace capsim::model
