// ScaleWorkload events change a Deployment's replica count during the run: both autoscalers
// follow it, adding nodes when it grows and giving them back when it shrinks.
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace capsim;

namespace {

// An on-demand m5.large NodePool and its EC2NodeClass.
std::string node_pool(const std::string& policy)
{
  return R"(---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["m5.large"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
  disruption: {consolidationPolicy: )"
         + policy + R"(, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
)";
}

// 1-CPU pods on m5.large (2 vCPU, 1930m allocatable): one pod per node.
const std::string k_scenario = R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: scale}
spec:
  region: us-east-1
  duration: 3h
  seed: 1
  spot: {interruptionModel: none}
  events:
    - {at: 1h, kind: ScaleWorkload, workload: web, replicas: 4}
    - {at: 2h, kind: ScaleWorkload, workload: web, replicas: 1}
)" + node_pool("WhenEmptyOrUnderutilized") + R"(---
apiVersion: capsim/v1
kind: NodeGroup
metadata: {name: general}
spec: {instanceTypes: [m5.large], minSize: 0, maxSize: 10}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, resources: {requests: {cpu: "1"}}}]
)";

} // namespace

TEST_CASE("ScaleWorkload: nodes follow a Deployment's replica count", "[scenario][events]")
{
  sim::RunOptions options;
  options.engines = {"karpenter", "cluster-autoscaler"};
  options.timeline_step = 5 * k_minute;
  const auto r = sim::run_scenario(io::parse_scenario(k_scenario, "scale.yaml"), options);
  REQUIRE(r.results.size() == 2);
  for (const auto& e : r.results) {
    INFO(e.engine);
    const auto nodes_at = [&](SimTime t) {
      for (const auto& row : e.timeline) {
        if (row.t == t) {
          return row.nodes;
        }
      }
      FAIL("no timeline row at " << t);
      return std::int64_t{-1};
    };
    CHECK(e.pods.total == 4); // 2 at the start, 2 more at 1h; 3 of them deleted at 2h
    CHECK(nodes_at(55 * k_minute) == 2);
    CHECK(nodes_at(115 * k_minute) == 4);
    CHECK(e.nodes.peak == 4);
    CHECK(nodes_at(3 * k_hour) == 1);
  }
}

TEST_CASE("ScaleWorkload: a pasted pod bound to its node leaves when its Deployment shrinks", "[scenario][events]")
{
  const std::string text = R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: adopted}
spec:
  region: us-east-1
  duration: 2h
  seed: 1
  spot: {interruptionModel: none}
  events:
    - {at: 30m, kind: ScaleWorkload, workload: web, replicas: 0}
)" + node_pool("WhenEmpty") + R"(---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-1.ec2.internal
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a,
           karpenter.sh/capacity-type: on-demand, karpenter.sh/nodepool: default}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-6d4b9c-x1
  labels: {app: web, pod-template-hash: 6d4b9c}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-6d4b9c, controller: true}]
spec:
  nodeName: ip-10-0-1-1.ec2.internal
  containers: [{name: app, resources: {requests: {cpu: "1"}}}]
)";
  sim::RunOptions options;
  options.engines = {"karpenter"};
  const auto r = sim::run_scenario(io::parse_scenario(text, "adopted.yaml"), options);
  REQUIRE(r.results.size() == 1);
  const auto& e = r.results.front();
  CHECK(e.pods.total == 1);        // the pasted pod is the Deployment's one replica
  CHECK(e.nodes.launched == 0);    // nothing more to place
  CHECK(e.disruptions.emptiness == 1); // deleted at 30m, the node is empty and goes
  CHECK(e.nodes.final_count == 0);
}
