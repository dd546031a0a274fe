// Nodes and pods seeded from a live cluster keep their age: Karpenter expires each node when its
// own expireAfter runs out (creationTimestamp + expireAfter), not all at once after the run
// starts, and a bound pod's runtime and do-not-disrupt duration count from its status.startTime.
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <string>

using namespace capsim;

namespace {

std::string scenario(const std::string& start)
{
  std::string text = fmt::format(R"(apiVersion: capsim/v1
kind: Scenario
metadata: {{name: ages}}
spec: {{region: us-east-1, duration: 2d, seed: 1{}}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      expireAfter: 720h
      requirements:
        - {{key: node.kubernetes.io/instance-type, operator: In, values: ["m5.large"]}}
        - {{key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}}
  disruption: {{consolidationPolicy: WhenEmpty, consolidateAfter: 1h}}
)",
                                 start);
  // Created 29 days 12 hours, 29 days and 1 day before the newest creation (12:00 on Nov 30).
  for (const auto& [name, created] : {std::pair{"a", "2026-11-01T00:00:00Z"}, std::pair{"b", "2026-11-01T12:00:00Z"},
                                      std::pair{"c", "2026-11-29T12:00:00Z"}}) {
    text += fmt::format(R"(---
apiVersion: v1
kind: Node
metadata:
  name: {}
  creationTimestamp: "{}"
  labels: {{node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a,
           karpenter.sh/capacity-type: on-demand, karpenter.sh/nodepool: default}}
---
apiVersion: v1
kind: Pod
metadata: {{name: {}-pod, creationTimestamp: "2026-11-30T12:00:00Z"}}
spec:
  nodeName: {}
  containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]
)",
                        name, created, name, name);
  }
  return text;
}

report::EngineResult run(const std::string& text)
{
  sim::RunOptions options;
  options.engines = {"karpenter"};
  options.explain = true;
  const auto r = sim::run_scenario(io::parse_scenario(text, "ages.yaml"), options);
  REQUIRE(r.results.size() == 1);
  return r.results.front();
}

} // namespace

TEST_CASE("node ages: seeded nodes expire when their own expireAfter runs out", "[scenario][expiration]")
{
  // a and b (29.5 and 29 days old) expire within the two days, at 12h and 24h; c (1 day old) not.
  const auto r = run(scenario(""));
  CHECK(r.disruptions.expiration == 2);
  // Relative to an earlier start, only a is old enough.
  const auto earlier = run(scenario(", startTime: \"2026-11-29T06:00:00Z\""));
  CHECK(earlier.disruptions.expiration == 1);
  // Without timestamps every node is new at t=0: none expires in two days.
  std::string ageless = scenario("");
  for (const auto* t : {"2026-11-01T00:00:00Z", "2026-11-01T12:00:00Z", "2026-11-29T12:00:00Z", "2026-11-30T12:00:00Z"}) {
    for (auto at = ageless.find(t); at != std::string::npos; at = ageless.find(t)) {
      ageless.replace(at - 1, std::string(t).size() + 2, "null");
    }
  }
  CHECK(run(ageless).disruptions.expiration == 0);
}

namespace {

// One node of the NodePool (m5.large or m5.xlarge) at t=0 with a pod that started `started`
// (RFC 3339) and carries `annotations`; the stream's newest creation (the reference time) is 12:00.
std::string pod_on_node(const std::string& type, const std::string& started, const std::string& annotations)
{
  return fmt::format(R"(apiVersion: capsim/v1
kind: Scenario
metadata: {{name: pod-ages}}
spec: {{region: us-east-1, duration: 2h, seed: 1, spot: {{interruptionModel: none}}}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
        - {{key: node.kubernetes.io/instance-type, operator: In, values: ["m5.large", "m5.xlarge"]}}
        - {{key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}}
  disruption: {{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: default}}
spec:
  amiSelectorTerms: [{{alias: al2023@latest}}]
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  creationTimestamp: "2026-11-30T11:00:00Z"
  labels: {{node.kubernetes.io/instance-type: {}, topology.kubernetes.io/zone: us-east-1a,
           karpenter.sh/capacity-type: on-demand, karpenter.sh/nodepool: default}}
---
apiVersion: v1
kind: Pod
metadata: {{name: p, creationTimestamp: "2026-11-30T12:00:00Z", annotations: {{{}}}}}
spec:
  nodeName: n1
  containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]
status: {{startTime: "{}"}}
)",
                     type, annotations, started);
}

SimTime first_decision(const report::EngineResult& r, const std::string& method)
{
  for (const auto& d : r.decisions) {
    if (d.method == method && d.action != "keep") {
      return d.t;
    }
  }
  return -1;
}

} // namespace

TEST_CASE("pod ages: a pod bound at t=0 runs and is protected from its own start", "[scenario][expiration]")
{
  // capsim.io/runtime counts from status.startTime: 50 of its 60 minutes have run, so the pod
  // ends at 10m and its node (the cheapest type allowed) goes empty then.
  const auto runtime = run(pod_on_node("m5.large", "2026-11-30T11:10:00Z", "capsim.io/runtime: 1h"));
  const auto emptied = first_decision(runtime, "emptiness");
  CHECK(emptied >= 10 * k_minute);
  CHECK(emptied < 12 * k_minute);
  // Without a start time the pod starts at t=0 and runs the full hour.
  const auto fresh = run(pod_on_node("m5.large", "2026-11-30T12:00:00Z", "capsim.io/runtime: 1h"));
  CHECK(first_decision(fresh, "emptiness") >= 60 * k_minute);

  // A do-not-disrupt duration lapses 1h after the pod started: 10 minutes into the run, the node
  // (a 100m pod on an m5.xlarge: an m5.large would do) can be replaced.
  const auto protected_pod = run(pod_on_node("m5.xlarge", "2026-11-30T11:10:00Z", "karpenter.sh/do-not-disrupt: 1h"));
  const auto replaced = first_decision(protected_pod, "single-node");
  CHECK(replaced >= 10 * k_minute);
  CHECK(replaced < 12 * k_minute);
}
