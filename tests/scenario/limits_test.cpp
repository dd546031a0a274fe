// The capsim.io/limit-usd-per-hour NodePool annotation: a what-if spend cap Solve enforces
// like spec.limits.
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace capsim;

namespace {

report::EngineResult run(const std::string& annotations)
{
  const std::string text = R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: usd-limit}
spec: {region: us-east-1, duration: 1h, seed: 1}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default, annotations: {)" + annotations + R"(}}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["m5.xlarge"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {amiSelectorTerms: [{alias: al2023@latest}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 10
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}]
)";
  sim::RunOptions options;
  options.engines = {"karpenter"};
  const auto r = sim::run_scenario(io::parse_scenario(text, "usd-limit.yaml"), options);
  REQUIRE(r.results.size() == 1);
  return r.results.front();
}

} // namespace

TEST_CASE("capsim.io/limit-usd-per-hour caps a NodePool's spend like a resource limit", "[scenario][limits]")
{
  // Ten 1-CPU pods need four m5.xlarge ($0.192/h each, three such pods per node).
  const auto free = run("");
  CHECK(free.nodes.peak == 4);
  CHECK(free.pods.unschedulable == 0);
  // $0.50/h allows two of them; the rest of the pods stay pending.
  const auto capped = run("capsim.io/limit-usd-per-hour: \"0.5\"");
  CHECK(capped.nodes.peak == 2);
  CHECK(capped.pods.unschedulable == 4);
  CHECK(capped.cost.total_usd < free.cost.total_usd);
}
