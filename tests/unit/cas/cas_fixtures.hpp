#pragma once

// Small builders for the Cluster Autoscaler tests: instance types with AWS-like capacity and
// offerings, pods of a ReplicaSet, node groups and scenarios.

#include "core/catalog/catalog.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/scenario.hpp"
#include "core/sim/engine.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace capsim::cas::testing {

inline const std::vector<std::string> k_zones = {"us-east-1a", "us-east-1b", "us-east-1c"};

// Spot offering parameters per zone: (price, interruption band).
struct SpotPool
{
  std::string zone;
  double price = 0;
  int band = 0;
};

// An instance type with `vcpu` CPUs and `mem_gib` GiB, on-demand in every zone at `od_price`,
// spot as listed (or at 30% of on-demand, band 1, in every zone when `spot` is empty).
// Overhead: 100m CPU and 512Mi memory (so allocatable < capacity); real max pods `pods`.
inline catalog::InstanceType make_type(const std::string& name, std::int32_t vcpu, std::int64_t mem_gib, double od_price,
                                       std::vector<SpotPool> spot = {}, std::int64_t pods = 29, std::int32_t gpus = 0)
{
  catalog::InstanceType t;
  t.name = name;
  t.vcpu = vcpu;
  t.memory_mib = mem_gib * 1024;
  t.arch = "amd64";
  t.gpu_count = gpus;
  t.labels = {{std::string(model::labels::k_instance_type), name},
              {std::string(model::labels::k_arch), "amd64"},
              {std::string(model::labels::k_os), "linux"}};
  t.capacity[model::k_cpu] = vcpu * 1000LL;
  t.capacity[model::k_memory] = mem_gib * k_gib;
  t.capacity[model::k_pods] = pods;
  t.capacity[model::k_ephemeral_storage] = 20 * k_gib;
  t.capacity[model::k_nvidia_gpu] = gpus;
  t.overhead[model::k_cpu] = 100;
  t.overhead[model::k_memory] = 512 * k_mib;
  for (const auto& z : k_zones) {
    t.offerings.push_back({z, "on-demand", od_price, std::nullopt, true, false, {}, 0});
  }
  if (spot.empty()) {
    for (const auto& z : k_zones) {
      spot.push_back({z, od_price * 0.3, 1});
    }
  }
  for (const auto& s : spot) {
    t.offerings.push_back({s.zone, "spot", s.price, s.band, true, false, {}, 0});
  }
  catalog::finalize_requirements(t);
  return t;
}

inline catalog::Catalog make_catalog(std::vector<catalog::InstanceType> types)
{
  return catalog::Catalog("us-east-1", k_zones, std::move(types));
}

// The default catalog of these tests: m5.large (2/8, 0.096), m5.xlarge (4/16, 0.192),
// m5a.large (2/8, 0.086), c5.xlarge (4/8, 0.17), r5.large (2/16, 0.126).
inline catalog::Catalog default_catalog()
{
  return make_catalog({make_type("m5.large", 2, 8, 0.096), make_type("m5.xlarge", 4, 16, 0.192),
                       make_type("m5a.large", 2, 8, 0.086), make_type("c5.xlarge", 4, 8, 0.17),
                       make_type("r5.large", 2, 16, 0.126)});
}

inline model::NodeGroup make_group(const std::string& name, std::vector<std::string> types, std::int32_t min_size,
                                   std::int32_t max_size, std::vector<std::string> zones = {"us-east-1a"})
{
  model::NodeGroup g;
  g.name = name;
  g.instance_types = std::move(types);
  g.min_size = min_size;
  g.max_size = max_size;
  g.zones = std::move(zones);
  return g;
}

// A pod template (ReplicaSet-owned unless `owner` says otherwise).
inline std::shared_ptr<model::PodSpec> make_spec(const std::string& name, std::int64_t cpu_milli, std::int64_t mem_mib,
                                                 model::OwnerKind owner = model::OwnerKind::replica_set)
{
  auto spec = std::make_shared<model::PodSpec>();
  spec->template_name = name;
  spec->labels = {{"app", name}};
  spec->requests[model::k_cpu] = cpu_milli;
  spec->requests[model::k_memory] = mem_mib * k_mib;
  spec->owner = owner;
  return spec;
}

inline model::Pod make_pod(const std::string& name, const model::PodSpecPtr& spec, SimTime arrival = 0,
                           Duration runtime = -1)
{
  model::Pod p;
  p.name = name;
  p.spec = spec;
  p.requests = spec->requests;
  p.arrival = arrival;
  p.runtime = runtime;
  return p;
}

// `count` pods of `spec` arriving at `arrival`, named prefix-0, prefix-1, ...
inline void add_pods(std::vector<model::Pod>& out, const std::string& prefix, const model::PodSpecPtr& spec,
                     int count, SimTime arrival = 0, Duration runtime = -1)
{
  for (int i = 0; i < count; ++i) {
    out.push_back(make_pod(prefix + "-" + std::to_string(i), spec, arrival, runtime));
  }
}

// Runs the engine with `controller` over `workload` (sorted by arrival here) until `end`.
struct RunResult
{
  report::EngineResult result;
  std::unique_ptr<sim::Engine> engine;
};

inline RunResult run(const model::Scenario& scenario, const catalog::Catalog& catalog, std::vector<model::Pod>& workload,
                     SimTime end, sim::Controller& controller, std::uint64_t seed = 1)
{
  std::stable_sort(workload.begin(), workload.end(),
                   [](const model::Pod& a, const model::Pod& b) { return a.arrival < b.arrival; });
  sim::EngineInput in;
  in.scenario = &scenario;
  in.catalog = &catalog;
  in.workload = &workload;
  in.end = end;
  in.seed = seed;
  in.explain = true;
  RunResult r;
  r.engine = std::make_unique<sim::Engine>(in);
  r.result = r.engine->run(controller);
  return r;
}

// Alive nodes of node group `pool` in the engine's cluster.
inline std::vector<const cluster::NodeState*> group_nodes(const cluster::Cluster& c, std::uint32_t pool)
{
  std::vector<const cluster::NodeState*> out;
  for (const auto& n : c.nodes()) {
    if (n.alive() && n.owner == cluster::NodeOwner::node_group && n.pool == pool) {
      out.push_back(&n);
    }
  }
  return out;
}

inline std::size_t pending_count(const cluster::Cluster& c)
{
  return c.pending().size();
}

} // namespace capsim::cas::testing
