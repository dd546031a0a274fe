// Persistent volumes end to end: a StatefulSet's WaitForFirstConsumer EBS claims are provisioned
// where its pods first bind, and from then on consolidation keeps each pod in its volume's zone.
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace capsim;

namespace {

// Two m5.xlarge nodes of the NodePool, in us-east-1a and us-east-1b, and a two-replica
// StatefulSet pending at t=0: kube-scheduler spreads the replicas over the two nodes (its
// default spreading), and consolidation then packs the cluster.
const std::string k_scenario = R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: sts-pin}
spec:
  region: us-east-1
  zones: [us-east-1a, us-east-1b]
  duration: 2h
  seed: 1
  engines: [karpenter]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: ["m5"]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 30s
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-20.ec2.internal
  labels:
    node.kubernetes.io/instance-type: m5.xlarge
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: on-demand
    karpenter.sh/nodepool: default
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-2-20.ec2.internal
  labels:
    node.kubernetes.io/instance-type: m5.xlarge
    topology.kubernetes.io/zone: us-east-1b
    karpenter.sh/capacity-type: on-demand
    karpenter.sh/nodepool: default
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
        - name: db
          resources: {requests: {cpu: 250m, memory: 512Mi}}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 10Gi}}
)";

report::EngineResult run(const std::string& text)
{
  sim::RunOptions options;
  options.engines = {"karpenter"};
  const auto r = sim::run_scenario(io::parse_scenario(text, "volumes.yaml"), options);
  REQUIRE(r.results.size() == 1);
  return r.results.front();
}

} // namespace

TEST_CASE("volumes: consolidation keeps StatefulSet pods in the zones of their claims", "[scenario][volumes]")
{
  // Without the claims both replicas end on one m5.large; with them, each replica's volume was
  // made in its first node's zone, so the cluster ends with one m5.large per zone.
  const auto without = run(k_scenario.substr(0, k_scenario.find("  volumeClaimTemplates:")));
  REQUIRE(without.final_nodes.size() == 1);
  CHECK(without.final_nodes[0].pods == 2);
  const auto with = run(k_scenario);
  REQUIRE(with.final_nodes.size() == 2);
  CHECK(with.final_nodes[0].zone != with.final_nodes[1].zone);
  for (const auto& n : with.final_nodes) {
    CHECK(n.instance_type == "m5.large");
    CHECK(n.pods == 1);
  }
  CHECK(with.disruptions.consolidation_replace == 2);
}
