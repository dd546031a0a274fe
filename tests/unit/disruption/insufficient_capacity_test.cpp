// Insufficient capacity at launch, as the AWS provider meets it (aws/karpenter-provider-aws
// pkg/providers/instance: one CreateFleet request carries every override of the chosen capacity
// type; the overrides without capacity come back as errors, each cached as unavailable for 3
// minutes, and the fleet launches from the next one). Scenario InsufficientCapacity events say
// which offerings have no capacity.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

namespace capsim::karpenter::dtest {

namespace {

// Two types with spot and on-demand offerings in two zones: small (cheaper) and large.
Sim two_type_sim()
{
  testing::FakeTypeOptions small;
  small.cpu_milli = 4000;
  small.pods = 100;
  small.offerings = std::vector<catalog::Offering>{
      testing::fake_offering("zone-a", "spot", 0.05), testing::fake_offering("zone-b", "spot", 0.06),
      testing::fake_offering("zone-a", "on-demand", 0.20), testing::fake_offering("zone-b", "on-demand", 0.20)};
  testing::FakeTypeOptions large = small;
  large.cpu_milli = 8000;
  large.offerings = std::vector<catalog::Offering>{
      testing::fake_offering("zone-a", "spot", 0.10), testing::fake_offering("zone-b", "spot", 0.11),
      testing::fake_offering("zone-a", "on-demand", 0.40), testing::fake_offering("zone-b", "on-demand", 0.40)};
  Sim sim({testing::fake_instance_type("small", small), testing::fake_instance_type("large", large)},
          {"zone-a", "zone-b"});
  sim.pool("default").consolidate_after = k_hour;
  PodOpts pod;
  pod.cpu_milli = 1000;
  sim.pending(0, 1, pod);
  return sim;
}

void no_capacity(Sim& sim, const std::string& type, const std::string& zone, const std::string& capacity_type)
{
  model::ScenarioEvent ice;
  ice.kind = "InsufficientCapacity";
  ice.duration = k_hour;
  ice.selector.instance_type = type;
  ice.selector.zone = zone;
  ice.selector.capacity_type = capacity_type;
  sim.scenario.events.push_back(ice);
}

} // namespace

TEST_CASE("Insufficient capacity: the fleet launches from its next override when the first has no capacity",
          "[disruption][launch][ice]")
{
  auto sim = two_type_sim();
  no_capacity(sim, "small", "zone-a", "spot");
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // One launch request: small/zone-a/spot fails, small/zone-b/spot (next by price) launches.
  CHECK(result.nodes.launched == 1);
  const auto& node = only_alive(sim);
  REQUIRE(node.instance_type != nullptr);
  CHECK(node.instance_type->name == "small");
  CHECK(node.zone == "zone-b");
  CHECK(node.capacity_type == "spot");
  CHECK(node.price_per_hour == Approx(0.06));
  CHECK(decisions(result, "launch", "insufficient-capacity").size() == 1);
  const auto launches = decisions(result, "provisioning", "launch");
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].detail.rfind("small zone-b spot $0.0600/h", 0) == 0);
  CHECK(result.pods.pending_max_s < 80); // the first request's latency, no retry
}

TEST_CASE("Insufficient capacity: when no spot override has capacity the next request launches on-demand",
          "[disruption][launch][ice]")
{
  auto sim = two_type_sim();
  no_capacity(sim, "", "", "spot");
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  // The first request fails on all four spot overrides, each now cached as unavailable; the
  // pod's next provisioning round asks for on-demand.
  CHECK(decisions(result, "launch", "insufficient-capacity").size() == 4);
  CHECK(result.nodes.launched == 1);
  const auto& node = only_alive(sim);
  CHECK(node.capacity_type == "on-demand");
  REQUIRE(node.instance_type != nullptr);
  CHECK(node.instance_type->name == "small");
  CHECK(result.pods.unschedulable == 0);
  CHECK(result.pods.pending_max_s < 100);
}

} // namespace capsim::karpenter::dtest
