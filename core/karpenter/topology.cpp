#include "core/karpenter/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace capsim::karpenter {

bool NodeFilter::matches(const std::vector<model::Taint>& taints, const ReqSet& node, const Interner& in) const
{
  if (!active) {
    return true;
  }
  if (honor_affinity && !terms.empty()) {
    const bool any = std::any_of(terms.begin(), terms.end(),
                                 [&](const ReqSet& t) { return node.compatible(t, false, in); });
    if (!any) {
      return false;
    }
  }
  if (honor_taints && !model::tolerates_all(tolerations, taints, false)) {
    return false;
  }
  return true;
}

bool TopologyGroup::namespace_matches(const std::string& ns) const
{
  return all_namespaces || std::binary_search(namespaces.begin(), namespaces.end(), ns);
}

bool TopologyGroup::selects(const model::PodSpec& spec) const
{
  return !selector_nil && namespace_matches(spec.namespace_) && selector.matches(spec.labels);
}

bool TopologyGroup::counts_existing(const model::PodSpec& spec) const
{
  return namespace_matches(spec.namespace_) && (selector_nil || selector.matches(spec.labels));
}

bool TopologyGroup::has_empty_domain() const
{
  return std::any_of(domains.begin(), domains.end(), [](const auto& d) { return d.second == 0; });
}

std::int32_t TopologyGroup::count_slow(ValueId d) const
{
  const auto& list = hostname ? host_counts : domains;
  auto it = std::lower_bound(list.begin(), list.end(), d,
                             [](const std::pair<ValueId, std::int32_t>& a, ValueId v) { return a.first < v; });
  return it != list.end() && it->first == d ? it->second : 0;
}

bool TopologyGroup::registered(ValueId d) const
{
  if (hostname) {
    return count(d) > 0;
  }
  auto it = std::lower_bound(domains.begin(), domains.end(), d,
                             [](const std::pair<ValueId, std::int32_t>& a, ValueId v) { return a.first < v; });
  return it != domains.end() && it->first == d;
}

void TopologyGroup::register_domain(ValueId d)
{
  if (hostname) {
    return; // see host_counts
  }
  auto it = std::lower_bound(domains.begin(), domains.end(), d,
                             [](const std::pair<ValueId, std::int32_t>& a, ValueId v) { return a.first < v; });
  if (it == domains.end() || it->first != d) {
    domains.insert(it, {d, 0});
  }
}

void TopologyGroup::record(ValueId d, std::int32_t n)
{
  std::int32_t* c = nullptr;
  if (hostname && d >= k_claim_host_base) {
    const std::size_t i = d - k_claim_host_base;
    if (claim_counts.size() <= i) {
      claim_counts.resize(i + 1, 0);
    }
    c = &claim_counts[i];
  } else {
    auto& list = hostname ? host_counts : domains;
    if (list.empty() || list.back().first < d) {
      c = &list.emplace_back(d, 0).second; // in order: appended
    } else {
      auto it = std::lower_bound(list.begin(), list.end(), d,
                                 [](const std::pair<ValueId, std::int32_t>& a, ValueId v) { return a.first < v; });
      if (it == list.end() || it->first != d) {
        it = list.insert(it, {d, 0});
      }
      c = &it->second;
    }
  }
  if (*c == 0) {
    ++nonzero;
  }
  *c += n;
}

std::string group_identity(const TopologyGroup& g, const Interner& in)
{
  std::string s = fmt::format("{}|{}|{}|", static_cast<int>(g.type), in.key_name(g.key), g.max_skew);
  if (g.all_namespaces) {
    s += "*";
  }
  for (const auto& ns : g.namespaces) {
    s += ns + ",";
  }
  s += "|";
  if (g.selector_nil) {
    s += "nil";
  } else {
    for (const auto& [k, v] : g.selector.match_labels) {
      s += k + "=" + v + ";";
    }
    std::vector<std::string> exprs;
    for (const auto& e : g.selector.match_expressions) {
      auto values = e.values;
      std::sort(values.begin(), values.end());
      std::string x = fmt::format("{}:{}:", e.key, static_cast<int>(e.op));
      for (const auto& v : values) {
        x += v + ",";
      }
      exprs.push_back(std::move(x));
    }
    std::sort(exprs.begin(), exprs.end());
    exprs.erase(std::unique(exprs.begin(), exprs.end()), exprs.end());
    for (const auto& x : exprs) {
      s += x + ";";
    }
  }
  s += "|";
  if (g.filter.active) {
    s += fmt::format("{}{}", g.filter.honor_taints ? "T" : "t", g.filter.honor_affinity ? "A" : "a");
    for (const auto& term : g.filter.terms) {
      s += fmt::format("[{}]", term.to_string(in));
    }
    for (const auto& t : g.filter.tolerations) {
      s += fmt::format("{}:{}:{}:{};", t.key, t.op_exists ? 1 : 0, t.value,
                       t.effect ? static_cast<int>(*t.effect) : -1);
    }
  }
  return s;
}

namespace {

// Deterministic replacement for "the first domain Go's map iteration yields".
struct Pick
{
  const Interner* in = nullptr;
  std::optional<ValueId> best;
  std::string best_name;

  void offer(ValueId d)
  {
    std::string name = in->value_name(d);
    if (!best || name < best_name) {
      best = d;
      best_name = std::move(name);
    }
  }
};

template <typename F>
void for_each_domain(const TopologyGroup& g, F&& f)
{
  if (g.hostname) {
    for (const auto& [d, c] : g.host_counts) {
      f(d, c);
    }
    for (std::size_t i = 0; i < g.claim_counts.size(); ++i) {
      if (g.claim_counts[i] > 0) {
        f(static_cast<ValueId>(k_claim_host_base + i), g.claim_counts[i]);
      }
    }
  } else {
    for (const auto& [d, c] : g.domains) {
      f(d, c);
    }
  }
}

std::int64_t domain_min_count(const TopologyGroup& g, const Req& pod_domains, const Interner& in)
{
  if (g.hostname) {
    return 0; // a new hostname can always be created
  }
  std::int64_t min = std::numeric_limits<std::int32_t>::max();
  std::int32_t supported = 0;
  for (const auto& [d, c] : g.domains) {
    if (req_has(pod_domains, d, in)) {
      ++supported;
      min = std::min<std::int64_t>(min, c);
    }
  }
  if (g.min_domains && supported < *g.min_domains) {
    min = 0;
  }
  return min;
}

Req next_spread(const TopologyGroup& g, bool self, const Req& pod_domains, const Req& node_domains, const Interner& in)
{
  const std::int64_t self_count = self ? 1 : 0;
  if (g.hostname && node_domains.single()) {
    const ValueId h = node_domains.values.front();
    if (g.count(h) + self_count <= g.max_skew) {
      return make_in(g.key, h);
    }
    return make_does_not_exist(g.key);
  }
  const std::int64_t min = domain_min_count(g, pod_domains, in);
  std::optional<ValueId> best;
  std::string best_name;
  std::int64_t best_count = std::numeric_limits<std::int64_t>::max();
  const auto consider = [&](ValueId d, std::int64_t c) {
    c += self_count;
    if (c - min > g.max_skew) {
      return;
    }
    if (c < best_count) {
      best = d;
      best_count = c;
      best_name = in.value_name(d);
    } else if (c == best_count) {
      std::string name = in.value_name(d);
      if (name < best_name) {
        best = d;
        best_name = std::move(name);
      }
    }
  };
  if (node_domains.op() == ReqOp::in) {
    for (const ValueId d : node_domains.values) {
      if (g.registered(d)) {
        consider(d, g.count(d));
      }
    }
  } else {
    for_each_domain(g, [&](ValueId d, std::int32_t c) {
      if (req_has(node_domains, d, in)) {
        consider(d, c);
      }
    });
  }
  return best ? make_in(g.key, *best) : make_does_not_exist(g.key);
}

bool any_compatible_pod_domain(const TopologyGroup& g, const Req& pod_domains, const Interner& in)
{
  bool any = false;
  for_each_domain(g, [&](ValueId d, std::int32_t c) {
    if (!any && c > 0 && req_has(pod_domains, d, in)) {
      any = true;
    }
  });
  return any;
}

void insert_value(Req& r, ValueId v)
{
  auto it = std::lower_bound(r.values.begin(), r.values.end(), v);
  if (it == r.values.end() || *it != v) {
    r.values.insert(it, v);
  }
}

Req next_affinity(const TopologyGroup& g, bool self, const Req& pod_domains, const Req& node_domains, const Interner& in)
{
  Req options = make_does_not_exist(g.key);
  if (g.hostname && node_domains.single()) {
    const ValueId h = node_domains.values.front();
    if (!req_has(pod_domains, h, in)) {
      return options;
    }
    if (g.count(h) > 0) {
      insert_value(options, h);
      return options;
    }
    if (self && (g.nonzero == 0 || !any_compatible_pod_domain(g, pod_domains, in))) {
      insert_value(options, h);
    }
    return options;
  }
  if (node_domains.op() == ReqOp::in) {
    for (const ValueId d : node_domains.values) {
      if (req_has(pod_domains, d, in) && g.count(d) > 0) {
        insert_value(options, d);
      }
    }
  } else {
    for_each_domain(g, [&](ValueId d, std::int32_t c) {
      if (c > 0 && req_has(pod_domains, d, in) && req_has(node_domains, d, in)) {
        insert_value(options, d);
      }
    });
  }
  if (!options.values.empty()) {
    return options;
  }
  // Bootstrap: a self-selecting pod with no matching pod yet (or none compatible) may open a
  // domain: one in podDomains ∩ nodeDomains, and one in podDomains.
  if (self && (g.nonzero == 0 || !any_compatible_pod_domain(g, pod_domains, in))) {
    const Req both = req_intersection(pod_domains, node_domains, in);
    Pick a{&in, {}, {}};
    Pick b{&in, {}, {}};
    for_each_domain(g, [&](ValueId d, std::int32_t) {
      if (req_has(both, d, in)) {
        a.offer(d);
      }
      if (req_has(pod_domains, d, in)) {
        b.offer(d);
      }
    });
    if (a.best) {
      insert_value(options, *a.best);
    }
    if (b.best) {
      insert_value(options, *b.best);
    }
  }
  return options;
}

Req next_anti_affinity(const TopologyGroup& g, const Req& pod_domains, const Req& node_domains, const Interner& in)
{
  Req options = make_does_not_exist(g.key);
  if (g.hostname && node_domains.single()) {
    const ValueId h = node_domains.values.front();
    if (g.count(h) == 0) {
      insert_value(options, h);
    }
    return options;
  }
  for_each_domain(g, [&](ValueId d, std::int32_t c) {
    if (c == 0 && req_has(node_domains, d, in) && req_has(pod_domains, d, in)) {
      insert_value(options, d);
    }
  });
  return options;
}

} // namespace

Req next_domain(const TopologyGroup& g, bool self_selecting, const Req& pod_domains, const Req& node_domains,
                const Interner& in)
{
  switch (g.type) {
  case TopologyType::spread: return next_spread(g, self_selecting, pod_domains, node_domains, in);
  case TopologyType::affinity: return next_affinity(g, self_selecting, pod_domains, node_domains, in);
  case TopologyType::anti_affinity: return next_anti_affinity(g, pod_domains, node_domains, in);
  }
  return make_does_not_exist(g.key);
}

} // namespace capsim::karpenter
