// Properties on random scenarios: whatever the workload, the lower bound never exceeds the
// simulated cost, every pod is accounted for, and cost splits into on-demand plus spot.
#include "core/base/rng.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

using namespace capsim;

namespace {

// A small random scenario: one Karpenter NodePool and one CAS node group over a random set of
// categories and capacity types, and a few Deployments/Jobs with random requests and counts.
std::string random_scenario(std::uint64_t seed)
{
  Rng rng(seed);
  const auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1))); };
  const char* categories[] = {R"(["c"])", R"(["m"])", R"(["r"])", R"(["c", "m", "r"])"};
  const char* capacity[] = {R"(["on-demand"])", R"(["spot"])", R"(["spot", "on-demand"])"};
  const char* group_types[] = {"[m5.xlarge]", "[c5.2xlarge]", "[r5.large, r5a.large]", "[m5.large, m5.2xlarge]"};
  std::string out = fmt::format(R"(apiVersion: capsim/v1
kind: Scenario
metadata: {{name: random-{}}}
spec:
  region: us-east-1
  duration: 90m
  seed: {}
  spot: {{interruptionModel: {}}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: default}}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
      requirements:
        - {{key: kubernetes.io/arch, operator: In, values: ["amd64"]}}
        - {{key: karpenter.sh/capacity-type, operator: In, values: {}}}
        - {{key: karpenter.k8s.aws/instance-category, operator: In, values: {}}}
        - {{key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}}
  disruption: {{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: {}m}}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {{name: default}}
spec: {{amiSelectorTerms: [{{alias: al2023@latest}}]}}
---
apiVersion: capsim/v1
kind: NodeGroup
metadata: {{name: group}}
spec: {{instanceTypes: {}, minSize: 0, maxSize: 60}}
)",
                                seed, seed, pick(0, 1) == 0 ? "none" : "advisor", capacity[pick(0, 2)],
                                categories[pick(0, 3)], pick(0, 10), group_types[pick(0, 3)]);
  const int workloads = pick(1, 4);
  for (int w = 0; w < workloads; ++w) {
    const int cpu_m = 100 * pick(1, 30);
    const int mem_mi = 128 * pick(1, 48);
    if (pick(0, 1) == 0) {
      out += fmt::format(R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d{}}}
spec:
  replicas: {}
  selector: {{matchLabels: {{app: d{}}}}}
  template:
    metadata: {{labels: {{app: d{}}}}}
    spec:
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: {}m, memory: {}Mi}}}}}}]
)",
                         w, pick(1, 25), w, w, cpu_m, mem_mi);
    } else {
      out += fmt::format(R"(---
apiVersion: batch/v1
kind: Job
metadata: {{name: j{}, annotations: {{capsim.io/runtime: {}m}}}}
spec:
  parallelism: {}
  completions: {}
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: {}m, memory: {}Mi}}}}}}]
)",
                         w, pick(5, 60), pick(1, 8), pick(8, 20), cpu_m, mem_mi);
    }
  }
  return out;
}

} // namespace

TEST_CASE("random scenarios: lower bound <= cost, every pod accounted for, cost = on-demand + spot",
          "[scenario][property][lower_bound]")
{
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const std::string text = random_scenario(seed);
    CAPTURE(seed, text);
    const auto scenario = io::parse_scenario(text, fmt::format("random-{}.yaml", seed));
    sim::RunOptions options;
    options.engines = {"karpenter", "cluster-autoscaler"};
    const auto r = sim::run_scenario(scenario, options);
    REQUIRE(r.results.size() == 2);
    for (const auto& e : r.results) {
      CAPTURE(e.engine);
      CHECK(e.cost.total_usd > 0);
      CHECK(e.lower_bound.total_usd > 0);
      CHECK(e.lower_bound.total_usd <= e.cost.total_usd * (1 + 1e-9) + 1e-9);
      CHECK(e.cost.total_usd == Approx(e.cost.on_demand_usd + e.cost.spot_usd));
      CHECK(e.pods.total == e.pods.scheduled + e.pods.unschedulable + e.pods.lost);
    }
  }
}
