#include "core/io/scenario_yaml.hpp"
#include "core/io/set_override.hpp"
#include "tests/unit/io/io_test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace capsim;
using capsim::iotest::errors_of;

namespace {

const std::string k_stream = R"(apiVersion: capsim/v1
kind: Scenario
spec:
  duration: 1h
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
  disruption:
    consolidateAfter: 1m
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu.pool}
spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}}}
---
apiVersion: capsim/v1
kind: NodeGroup
metadata: {name: ng}
spec: {instanceTypes: [m5.large], maxSize: 3}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}}
)";

model::Scenario with(const std::vector<std::string>& sets)
{
  return io::parse_scenario(k_stream, "t.yaml", sets);
}

} // namespace

TEST_CASE("capsim --set overrides existing and new fields of any document", "[io][set]")
{
  const auto s = with({"Scenario.spec.duration=2h", "NodePool/default.spec.disruption.consolidateAfter=5m",
                       "NodeGroup/ng.spec.maxSize=20", "Deployment/web.spec.replicas=30",
                       "Scenario.spec.seed=7", "NodePool/default.spec.weight=40",
                       "NodePool/default.spec.template.spec.requirements[0].values=[arm64, amd64]",
                       "NodePool/gpu.pool.spec.limits={cpu: 8}",
                       "NodePool/default.spec.template.metadata.labels[example.com/team]=a",
                       "Deployment/web.spec.template.spec.containers.0.resources.requests.cpu=2"});
  CHECK(s.settings.duration == 2 * k_hour);
  CHECK(s.settings.seed == 7);
  CHECK(s.node_pools.at(0).consolidate_after == 5 * k_minute);
  CHECK(s.node_pools.at(0).weight == 40);
  CHECK(s.node_pools.at(0).requirements.get("kubernetes.io/arch").values == std::vector<std::string>{"amd64", "arm64"});
  CHECK(s.node_pools.at(0).template_labels.at("example.com/team") == "a");
  CHECK(s.node_pools.at(1).name == "gpu.pool");
  CHECK(s.node_pools.at(1).limits->cpu() == 8000);
  CHECK(s.node_groups.at(0).max_size == 20);
  CHECK(s.workloads.at(0).replicas == 30);
  CHECK(s.workloads.at(0).spec->requests.cpu() == 2000);
  // The file itself is unchanged by an earlier parse with overrides.
  CHECK(with({}).workloads.at(0).replicas == 2);
}

TEST_CASE("capsim --set: a NodePool's path names its version at t=0, not those applied later", "[io][set]")
{
  // The later version comes first in the stream; the override still goes to the base document.
  const std::string later = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu.pool
  annotations: {capsim.io/apply-at: 30m}
spec: {weight: 3, template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}}}
---
)";
  const std::string stream = k_stream.substr(0, k_stream.find("apiVersion: karpenter.sh/v1")) + later +
                             k_stream.substr(k_stream.find("apiVersion: karpenter.sh/v1"));
  const auto s = io::parse_scenario(stream, "t.yaml", {"NodePool/gpu.pool.spec.weight=40"});
  CHECK(s.node_pools.at(1).name == "gpu.pool");
  CHECK(s.node_pools.at(1).weight == 40);
  REQUIRE(s.node_pool_updates.size() == 1);
  CHECK(s.node_pool_updates[0].pool.weight == 3);
  // With one NodePool and its later versions, the name may be left out.
  const std::string one = k_stream.substr(0, k_stream.find("---\napiVersion: karpenter.sh/v1\nkind: NodePool\n"
                                                           "metadata: {name: gpu.pool}")) +
                          "---\n" + later.substr(0, later.size() - 4);
  std::string renamed = one;
  renamed.replace(renamed.rfind("name: gpu.pool"), 14, "name: default");
  const auto t = io::parse_scenario(renamed, "t.yaml", {"NodePool.spec.weight=9"});
  REQUIRE(t.node_pools.size() == 1);
  CHECK(t.node_pools[0].weight == 9);
  CHECK(t.node_pool_updates.at(0).pool.weight == 3);
}

TEST_CASE("capsim --set: a NodePool created during the run is set in its first version", "[io][set]")
{
  // No version at t=0: the earliest version (which creates the NodePool) takes the override,
  // wherever it stands in the stream.
  const auto version = [](const std::string& at, int weight) {
    return "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: late\n  annotations: "
           "{capsim.io/apply-at: " + at + "}\nspec: {weight: " + std::to_string(weight) +
           ", template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}}}\n";
  };
  const auto s =
      io::parse_scenario(k_stream + version("2h", 3) + version("90m", 2), "t.yaml", {"NodePool/late.spec.weight=40"});
  const auto late = std::find_if(s.node_pools.begin(), s.node_pools.end(),
                                 [](const model::NodePool& p) { return p.name == "late"; });
  REQUIRE(late != s.node_pools.end());
  CHECK(late->created_at == 90 * k_minute);
  CHECK(late->weight == 40);
  REQUIRE(s.node_pool_updates.size() == 1);
  CHECK(s.node_pool_updates[0].pool.weight == 3);
}

TEST_CASE("capsim --set: an empty value resets a field to its default", "[io][set]")
{
  const auto s = with({"NodePool/default.spec.disruption.consolidateAfter="});
  CHECK(s.node_pools.at(0).consolidate_after == 0);
}

TEST_CASE("capsim --set: a path that does not exist names the nearest valid one", "[io][set]")
{
  const auto errors = errors_of(k_stream, {"NodePool/default.spec.disruption.consolidateAftr=5m",
                                           "Scenario.spec.duraton=2h", "Deployment/web.spec.replicaz=3",
                                           "NodePool/defualt.spec.weight=3", "NodeGrup/ng.spec.maxSize=2",
                                           "NodePool.spec.weight=3", "Scenario.spec.duration.x=1",
                                           "NodePool/default.spec.template.spec.requirements[4].key=x",
                                           "Scenario.spec.duration=2x", "no-equals-sign"});
  CAPTURE(errors);
  using iotest::has_line;
  CHECK(has_line(errors, "--set NodePool/default.spec.disruption.consolidateAftr=5m: error: path "
                         "'NodePool/default.spec.disruption.consolidateAftr' does not exist (did you mean "
                         "'NodePool/default.spec.disruption.consolidateAfter'?)"));
  CHECK(has_line(errors, "--set Scenario.spec.duraton=2h: error: path 'Scenario.spec.duraton' does not exist (did you "
                         "mean 'Scenario.spec.duration'?)"));
  CHECK(has_line(errors, "--set Deployment/web.spec.replicaz=3: error: path 'Deployment/web.spec.replicaz' does not "
                         "exist (did you mean 'Deployment/web.spec.replicas'?)"));
  CHECK(has_line(errors, "--set NodePool/defualt.spec.weight=3: error: path 'NodePool/defualt.spec.weight' does not "
                         "exist: no NodePool named 'defualt' (did you mean 'default'?) (names: default, gpu.pool)"));
  CHECK(has_line(errors, "--set NodeGrup/ng.spec.maxSize=2: error: path 'NodeGrup/ng.spec.maxSize' does not exist: the "
                         "scenario has no NodeGrup document (did you mean 'NodeGroup'?) (kinds present: Deployment, "
                         "NodeGroup, NodePool, Scenario)"));
  CHECK(has_line(errors, "--set NodePool.spec.weight=3: error: the scenario has 2 NodePool documents: name one "
                         "(NodePool/default, NodePool/gpu.pool)"));
  CHECK(has_line(errors, "--set Scenario.spec.duration.x=1: error: 'Scenario.spec.duration' is a single value, so it "
                         "has no field 'x'"));
  CHECK(has_line(errors, "--set NodePool/default.spec.template.spec.requirements[4].key=x: error: index 4 is out of "
                         "range: 'NodePool/default.spec.template.spec.requirements' has 1 entry"));
  CHECK(has_line(errors, "--set Scenario.spec.duration=2x: error: 'spec.duration': '2x' is not a duration (expected e.g. "
                         "90s, 10m, 1h30m, 7d)"));
  CHECK(has_line(errors, "--set no-equals-sign: error: expected PATH=VALUE, e.g. "
                         "NodePool/default.spec.disruption.consolidateAfter=5m"));
}

TEST_CASE("capsim --set: values are validated like the file", "[io][set]")
{
  const auto errors = errors_of(k_stream, {"NodeGroup/ng.spec.maxSize=-1", "Deployment/web.spec.replicas=[1"});
  CAPTURE(errors);
  CHECK(iotest::has_line(errors, "--set NodeGroup/ng.spec.maxSize=-1: error: '-1' is out of range for "
                                 "'NodeGroup/ng.spec.maxSize' (expected 0..10000000)"));
  CHECK(iotest::has_line(errors, "--set Deployment/web.spec.replicas=[1: error: the value is not valid YAML: end of "
                                 "sequence flow not found"));
  CHECK(io::parse_set_override("a.b=c=d").value == "c=d");
  CHECK_THROWS_AS(io::parse_set_override("=x"), InputError);
}
