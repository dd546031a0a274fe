#pragma once

// Builders for kube-scheduler tests: clusters made directly with Cluster::add_node/add_pod/bind.

#include "core/cluster/cluster.hpp"
#include "core/model/pod.hpp"
#include "core/scheduling/kube_scheduler.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace capsim::test {

using cluster::Cluster;
using cluster::NodeIndex;
using cluster::PodIndex;

inline constexpr std::int64_t k_gi = 1024LL * 1024 * 1024;

// A Ready node with allocatable cpu (millicores), memory (bytes) and pods; its hostname label
// is its name unless `labels` says otherwise.
inline NodeIndex add_node(Cluster& c, const std::string& name, std::int64_t cpu, std::int64_t memory,
                          model::Labels labels = {}, std::int64_t pods = 110, std::vector<model::Taint> taints = {},
                          cluster::NodeLifecycle lifecycle = cluster::NodeLifecycle::ready)
{
  cluster::NodeState n;
  n.name = name;
  labels.emplace(std::string(model::labels::k_hostname), name);
  auto zone = labels.find(std::string(model::labels::k_zone));
  if (zone != labels.end()) {
    n.zone = zone->second;
  }
  n.labels = std::move(labels);
  n.allocatable[model::k_cpu] = cpu;
  n.allocatable[model::k_memory] = memory;
  n.allocatable[model::k_pods] = pods;
  n.taints = std::move(taints);
  n.lifecycle = lifecycle;
  return c.add_node(std::move(n));
}

// A PodSpec built by `edit` from a default one.
inline model::PodSpecPtr make_spec(const std::function<void(model::PodSpec&)>& edit = {})
{
  auto s = std::make_shared<model::PodSpec>();
  if (edit) {
    edit(*s);
  }
  return s;
}

inline model::PodSpecPtr labelled(model::Labels labels, const std::function<void(model::PodSpec&)>& edit = {})
{
  return make_spec([&](model::PodSpec& s) {
    s.labels = labels;
    if (edit) {
      edit(s);
    }
  });
}

inline model::Pod make_pod(const std::string& name, model::PodSpecPtr spec, std::int64_t cpu = 0, std::int64_t memory = 0)
{
  model::Pod p;
  p.name = name;
  p.spec = std::move(spec);
  p.requests[model::k_cpu] = cpu;
  p.requests[model::k_memory] = memory;
  return p;
}

// A pod bound to `node` (as if scheduled earlier).
inline PodIndex bind_pod(Cluster& c, const std::string& name, model::PodSpecPtr spec, NodeIndex node,
                         std::int64_t cpu = 0, std::int64_t memory = 0)
{
  const auto p = c.add_pod(make_pod(name, std::move(spec), cpu, memory));
  c.set_pending(p, 0);
  c.bind(p, node, 0);
  return p;
}

// A pending pod, pending since `since`.
inline PodIndex pending_pod(Cluster& c, const std::string& name, model::PodSpecPtr spec, std::int64_t cpu = 0,
                            std::int64_t memory = 0, SimTime since = 0)
{
  const auto p = c.add_pod(make_pod(name, std::move(spec), cpu, memory));
  c.set_pending(p, since);
  return p;
}

inline model::LabelSelector match_labels(model::Labels labels)
{
  model::LabelSelector s;
  s.match_labels = std::move(labels);
  return s;
}

// A selector with `key Exists` (upstream tests' fooSelector / barSelector).
inline model::LabelSelector key_exists(const std::string& key)
{
  model::LabelSelector s;
  s.match_expressions.push_back({key, model::Operator::exists, {}});
  return s;
}

inline model::TopologySpreadConstraint spread(std::int32_t max_skew, const std::string& key, bool hard,
                                              std::optional<model::LabelSelector> selector,
                                              std::optional<std::int32_t> min_domains = std::nullopt)
{
  model::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = key;
  c.when_unsatisfiable =
      hard ? model::UnsatisfiableAction::do_not_schedule : model::UnsatisfiableAction::schedule_anyway;
  c.selector = std::move(selector);
  c.min_domains = min_domains;
  return c;
}

inline model::PodAffinityTerm affinity_term(model::LabelSelector selector, const std::string& key,
                                            std::vector<std::string> namespaces = {})
{
  model::PodAffinityTerm t;
  t.selector = std::move(selector);
  t.topology_key = key;
  t.namespaces = std::move(namespaces);
  return t;
}

inline model::Requirement req(const std::string& key, model::Operator op, std::vector<std::string> values = {})
{
  return model::Requirement::make(key, op, std::move(values));
}

inline model::Toleration toleration(const std::string& key, const std::string& value,
                                    std::optional<model::TaintEffect> effect, bool exists = false)
{
  model::Toleration t;
  t.key = key;
  t.value = value;
  t.effect = effect;
  t.op_exists = exists;
  return t;
}

// The MostAllocated (bin-packing) configuration.
inline scheduling::SchedulerConfig most_allocated()
{
  scheduling::SchedulerConfig cfg;
  cfg.strategy = scheduling::ScoringStrategy::most_allocated;
  return cfg;
}

// Filter outcome of `pod` on every node, by node name.
inline std::map<std::string, scheduling::FilterPlugin> filter_all(scheduling::KubeScheduler& s, const Cluster& c,
                                                                   const model::Pod& pod)
{
  std::map<std::string, scheduling::FilterPlugin> out;
  for (NodeIndex n = 0; n < c.nodes().size(); ++n) {
    out[c.node(n).name] = s.check(c, pod, n).plugin;
  }
  return out;
}

// Normalized score of one plugin, by node name, over the feasible nodes.
inline std::map<std::string, std::int64_t> plugin_scores(scheduling::KubeScheduler& s, const Cluster& c,
                                                         const model::Pod& pod,
                                                         std::int64_t scheduling::NodeScore::*field)
{
  std::map<std::string, std::int64_t> out;
  for (const auto& ns : s.score_nodes(c, pod)) {
    out[c.node(ns.node).name] = ns.*field;
  }
  return out;
}

} // namespace capsim::test
