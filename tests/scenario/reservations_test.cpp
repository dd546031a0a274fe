// Capacity reservations end to end: reserved offerings of an inline Catalog, a NodePool that
// allows reserved and on-demand capacity, and a Deployment of one pod per node that grows,
// shrinks and grows again. Karpenter fills the reservation first, defers the pods that find it
// full by one round, then falls back to on-demand; nodes that terminate give their instance back.
#include "core/io/scenario_yaml.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace capsim;

namespace {

const std::string k_scenario = R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: reservations}
spec:
  region: us-east-1
  zones: [us-east-1a]
  duration: 3h
  seed: 1
  spot: {interruptionModel: none}
  events:
    - {at: 1h, kind: ScaleWorkload, workload: web, replicas: 1}
    - {at: 2h, kind: ScaleWorkload, workload: web, replicas: 3}
---
apiVersion: capsim/v1
kind: Catalog
spec:
  mode: replace
  zones: [us-east-1a]
  instanceTypes:
    - name: r5.large
      capacity: {cpu: "2", memory: 16Gi, pods: "29"}
      offerings:
        - {zone: us-east-1a, capacityType: on-demand, price: 0.126}
        - {zone: us-east-1a, capacityType: reserved, price: 0.0000000126, reservationId: cr-0a1b2c3d4e5f6a7b8,
           reservationCapacity: 2}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand", "reserved"]}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
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
      containers: [{name: app, resources: {requests: {cpu: 1500m}}}]
)";

} // namespace

TEST_CASE("capacity reservations: Karpenter fills the reservation, then falls back, and reuses freed instances",
          "[scenario][reserved]")
{
  sim::RunOptions options;
  options.engines = {"karpenter"};
  options.timeline_step = 5 * k_minute;
  options.explain = true;
  const auto r = sim::run_scenario(io::parse_scenario(k_scenario, "reservations.yaml"), options);
  REQUIRE(r.results.size() == 1);
  const auto& e = r.results.front();
  const auto nodes_at = [&](SimTime t) {
    for (const auto& row : e.timeline) {
      if (row.t == t) {
        return row.nodes;
      }
    }
    FAIL("no timeline row at " << t);
    return std::int64_t{-1};
  };
  const auto launches = [&](const std::string& capacity_type) {
    return std::count_if(e.decisions.begin(), e.decisions.end(), [&](const report::Decision& d) {
      return d.action == "launch" && d.detail.find(" " + capacity_type + " ") != std::string::npos;
    });
  };
  // Four pods, one per node: two reserved nodes, then (a round later) two on-demand ones.
  CHECK(nodes_at(30 * k_minute) == 4);
  // Scaled to one at 1h: the empty nodes go. At 2h two more pods: the reservation has one
  // instance free again (its node terminated), so one reserved and one on-demand launch.
  CHECK(nodes_at(115 * k_minute) == 1);
  CHECK(nodes_at(3 * k_hour) == 3);
  CHECK(launches("reserved") == 3);
  CHECK(launches("on-demand") == 3);
  std::int64_t reserved = 0;
  for (const auto& n : e.final_nodes) {
    reserved += n.capacity_type == "reserved" ? 1 : 0;
  }
  CHECK(reserved == 2);
  // The deferred pods waited one provisioning round longer than the first two.
  CHECK(e.pods.pending_max_s > e.pods.pending_p50_s);
}
