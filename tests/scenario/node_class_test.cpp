// An EC2NodeClass's kubelet settings reach the nodes: Karpenter builds its NodePools' instance
// types for their EC2NodeClass (pods, overhead), and nodes of the NodePool at t=0 are those
// types too. Fifty small pods need two m5.large at the ENI-limited 29 pods each, one at
// kubelet.maxPods 110.
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace capsim;

namespace {

std::string scenario(const std::string& kubelet, const std::string& nodes = "")
{
  return R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: node-class}
spec:
  region: us-east-1
  zones: [us-east-1a]
  duration: 30m
  seed: 1
  spot: {interruptionModel: none}
---
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
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
)" + kubelet + nodes
         + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: small}
spec:
  replicas: 50
  selector: {matchLabels: {app: small}}
  template:
    metadata: {labels: {app: small}}
    spec:
      containers: [{name: app, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
)";
}

report::EngineResult run(const std::string& text)
{
  sim::RunOptions options;
  options.engines = {"karpenter"};
  auto r = sim::run_scenario(io::parse_scenario(text, "node-class.yaml"), options);
  REQUIRE(r.results.size() == 1);
  return r.results.front();
}

const std::string k_max_pods = "  kubelet: {maxPods: 110}\n";

const std::string k_node = R"(---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-1.ec2.internal
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a,
           karpenter.sh/capacity-type: on-demand, karpenter.sh/nodepool: default}
)";

} // namespace

TEST_CASE("node class: kubelet.maxPods sets how many pods a NodePool's nodes take", "[scenario][node-class]")
{
  const auto eni = run(scenario(""));
  CHECK(eni.pods.scheduled == 50);
  CHECK(eni.nodes.peak == 2);
  const auto dense = run(scenario(k_max_pods));
  CHECK(dense.pods.scheduled == 50);
  CHECK(dense.nodes.peak == 1);
  REQUIRE(dense.final_nodes.size() == 1);
  CHECK(dense.final_nodes.front().pods == 50);
}

TEST_CASE("node class: a NodePool's node at t=0 is its EC2NodeClass's type", "[scenario][node-class]")
{
  // The existing m5.large takes all fifty pods at maxPods 110; at the default 29 Karpenter
  // launches a second node.
  CHECK(run(scenario(k_max_pods, k_node)).nodes.launched == 0);
  CHECK(run(scenario("", k_node)).nodes.launched == 1);
}

TEST_CASE("node class: a later EC2NodeClass version drifts the nodes and its NodePools launch by it",
          "[scenario][node-class]")
{
  // Two m5.large at the default 29 pods hold the fifty pods; at 10m the EC2NodeClass gets
  // kubelet.maxPods 110 (kubectl apply): both nodes drift (its hash changed) and one m5.large of
  // the new kind takes all fifty.
  const std::string later = R"(---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
  annotations: {capsim.io/apply-at: 10m}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  kubelet: {maxPods: 110}
)";
  const auto r = run(scenario("", later));
  CHECK(r.disruptions.drift == 2);
  CHECK(r.nodes.launched == 3);
  REQUIRE(r.final_nodes.size() == 1);
  CHECK(r.final_nodes.front().pods == 50);
  // A version that changes only what the hash ignores (subnets, security groups) drifts nothing.
  const std::string subnets = R"(---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
  annotations: {capsim.io/apply-at: 10m}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: other}}]
)";
  const auto same = run(scenario("", subnets));
  CHECK(same.disruptions.drift == 0);
  CHECK(same.nodes.launched == 2);
}
