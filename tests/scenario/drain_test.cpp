// Karpenter's drains go through the Eviction API: PodDisruptionBudgets pace them, and the
// NodePool's terminationGracePeriod ends them (core:pkg/controllers/node/termination).
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace capsim;

namespace {

// Four web pods on one node of a NodePool that expires it after 30 minutes (forceful: no
// budgets), with an optional PDB and terminationGracePeriod.
std::string scenario(const std::string& pdb, const std::string& grace, const std::string& extra = "")
{
  std::string text = R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: drain}
spec: {region: us-east-1, duration: 2h, seed: 1}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 30m
)" + grace + R"(
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["m5.xlarge"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 1h}
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
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
)";
  text += extra;
  if (!pdb.empty()) {
    text += "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec: {selector: "
            "{matchLabels: {app: web}}, " +
            pdb + "}\n";
  }
  return text;
}

report::EngineResult run(const std::string& text)
{
  sim::RunOptions options;
  options.engines = {"karpenter"};
  options.timeline_step = 5 * k_second;
  const auto r = sim::run_scenario(io::parse_scenario(text, "drain.yaml"), options);
  REQUIRE(r.results.size() == 1);
  return r.results.front();
}

std::int64_t max_pending_after(const report::EngineResult& r, SimTime from)
{
  std::int64_t most = 0;
  for (const auto& row : r.timeline) {
    if (row.t >= from) {
      most = std::max(most, row.pending);
    }
  }
  return most;
}

} // namespace

TEST_CASE("drain: without a PDB every pod is evicted at once", "[scenario][drain]")
{
  const auto r = run(scenario("", ""));
  CHECK(r.pods.evicted >= 4);
  CHECK(max_pending_after(r, 25 * k_minute) == 4);
}

TEST_CASE("drain: a PDB with maxUnavailable 1 evicts one pod at a time", "[scenario][drain]")
{
  const auto r = run(scenario("maxUnavailable: 1", ""));
  CHECK(r.pods.evicted >= 4);
  CHECK(max_pending_after(r, 25 * k_minute) == 1);
  CHECK(r.pods.lost == 0);
  CHECK(r.pods.unschedulable == 0);
}

TEST_CASE("drain: a blocking PDB holds the expired node until terminationGracePeriod", "[scenario][drain]")
{
  // maxUnavailable 0 never allows an eviction: without a grace period the expired node stays
  // (draining) to the end; with 10m its pods are deleted at 30m + 10m.
  const auto held = run(scenario("maxUnavailable: 0", ""));
  CHECK(held.pods.evicted == 0);
  const auto forced = run(scenario("maxUnavailable: 0", "      terminationGracePeriod: 10m"));
  CHECK(forced.pods.evicted >= 4);
  CHECK(max_pending_after(forced, 25 * k_minute) >= 1);
  for (const auto& row : forced.timeline) {
    if (row.t > 31 * k_minute && row.t < 39 * k_minute) {
      CHECK(row.pending == 0); // still running on the expired node
    }
  }
  CHECK(held.nodes.terminated < forced.nodes.terminated);
}

TEST_CASE("drain: critical pods are evicted after the others have left", "[scenario][drain]")
{
  // The PDB holds the second web pod while the first restarts elsewhere; the critical agent
  // waits for both, so only one pod is pending in the first half minute of the drain.
  const std::string agent = R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: agent}
spec:
  replicas: 1
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      priorityClassName: system-cluster-critical
      containers: [{name: agent, image: agent, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
)";
  const auto r = run(scenario("maxUnavailable: 1", "", agent));
  SimTime first = -1;
  for (const auto& row : r.timeline) {
    if (row.t > 25 * k_minute && row.pending > 0) {
      first = row.t;
      break;
    }
  }
  REQUIRE(first > 0);
  for (const auto& row : r.timeline) {
    if (row.t >= first && row.t < first + 30 * k_second) {
      CHECK(row.pending == 1);
    }
  }
  CHECK(r.pods.evicted >= 5);
  CHECK(r.pods.unschedulable == 0);
}
