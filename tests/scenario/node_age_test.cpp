// Nodes seeded from a live cluster keep their age: Karpenter expires each when its own
// expireAfter runs out (creationTimestamp + expireAfter), not all at once after the run starts.
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
