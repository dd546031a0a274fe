// Forceful disruption alongside the disruption controller: expiration (ports of
// core:pkg/controllers/nodeclaim/expiration/suite_test.go, kubernetes-sigs/karpenter HEAD
// 2266468) and spot interruption (aws:pkg/controllers/interruption: 2-minute notice, cordon and
// drain, the offering unavailable for 3 minutes, replacement capacity provisioned at once).

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

namespace capsim::karpenter::dtest {

namespace {

Sim expiring(Duration expire_after)
{
  Sim sim(testing::fake_default_catalog());
  auto& pool = sim.pool("default");
  pool.expire_after = expire_after;
  pool.consolidate_after = k_never; // keep emptiness and consolidation out of the way
  sim.node("node-0", "default", "default-instance-type", std::nullopt, "test-zone-1", "on-demand");
  PodOpts o;
  o.cpu_milli = 1000;
  sim.pods_on("node-0", 1, o);
  return sim;
}

} // namespace

TEST_CASE("Expiration: should remove nodeclaims that are expired", "[disruption][expiration]")
{
  Sim sim = expiring(30 * k_second);
  const auto result = sim.run(60 * k_second);
  INFO(dump(result));
  CHECK(!sim.alive(std::string("node-0")));
  // "shouldn't expire the same NodeClaim multiple times"
  CHECK(result.disruptions.expiration == 1);
  CHECK(decisions(result, "expiration", "delete").size() == 1);
  // Forceful: no pre-spun replacement, the evicted pod is provisioned afterwards.
  CHECK(result.nodes.launched == 1);
  CHECK(result.pods.lost == 0);
}

TEST_CASE("Expiration: should not remove non-expired NodeClaims", "[disruption][expiration]")
{
  Sim sim = expiring(200 * k_second);
  const auto result = sim.run(100 * k_second);
  CHECK(sim.alive(std::string("node-0")));
  CHECK(result.disruptions.expiration == 0);
}

TEST_CASE("Expiration: should not remove the NodeClaims when expiration is disabled", "[disruption][expiration]")
{
  Sim sim = expiring(k_never);
  const auto result = sim.run(2 * k_hour);
  CHECK(sim.alive(std::string("node-0")));
  CHECK(result.disruptions.expiration == 0);
}

TEST_CASE("Interruption: a spot interruption drains the node, marks the offering unavailable and reprovisions",
          "[disruption][interruption]")
{
  Sim sim(testing::fake_default_catalog());
  auto& pool = sim.pool("default");
  pool.consolidate_after = k_never;
  sim.node("spot-node", "default", "default-instance-type", std::nullopt, "test-zone-1", "spot");
  PodOpts rs;
  rs.cpu_milli = 3000; // needs a 4-CPU type
  sim.pods_on("spot-node", 1, rs);
  PodOpts bare = rs;
  bare.cpu_milli = 100;
  bare.owner = model::OwnerKind::none; // nothing recreates it
  sim.pods_on("spot-node", 1, bare);
  model::ScenarioEvent e;
  e.kind = "SpotInterruption";
  e.at = k_minute;
  e.selector.node_name = "spot-node";
  sim.scenario.events.push_back(e);
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.spot_interruption == 1);
  CHECK(!sim.alive(std::string("spot-node")));
  CHECK(result.pods.lost == 1);
  // The replacement avoids the interrupted offering (unavailable for 3 minutes).
  const cluster::NodeState* replacement = nullptr;
  for (const auto& n : sim.cluster().nodes()) {
    if (n.alive()) {
      replacement = &n;
    }
  }
  REQUIRE(replacement != nullptr);
  CHECK(replacement->created_at >= k_minute); // provisioned right after the drain, not pre-spun
  CHECK(replacement->created_at <= k_minute + 10 * k_second);
  CHECK(!(replacement->instance_type->name == "default-instance-type" && replacement->zone == "test-zone-1"
          && replacement->capacity_type == "spot"));
  CHECK(replacement->pods.size() == 1);
}

namespace {

// A spot node of the default NodePool ("spot-node") or a static one ("static-spot") with a
// ReplicaSet pod, interrupted at one minute (reclaimed at three).
Sim interrupted_spot_node(bool static_node)
{
  Sim sim(testing::fake_default_catalog());
  sim.pool("default").consolidate_after = k_never;
  const std::string name = static_node ? "static-spot" : "spot-node";
  sim.node(name, "default", "default-instance-type", std::nullopt, "test-zone-1", "spot");
  if (static_node) {
    auto& n = sim.scenario.nodes.back();
    n.owner = model::InitialNode::Owner::static_node;
    n.owner_pool.clear();
    n.labels.erase(std::string(model::labels::k_nodepool));
  }
  PodOpts rs;
  rs.cpu_milli = 3000;
  sim.pods_on(name, 1, rs);
  model::ScenarioEvent e;
  e.kind = "SpotInterruption";
  e.at = k_minute;
  e.selector.node_name = name;
  sim.scenario.events.push_back(e);
  return sim;
}

} // namespace

TEST_CASE("Interruption: without an interruption queue Karpenter does not drain on the notice, the pods die with the "
          "instance",
          "[disruption][interruption]")
{
  // aws: pkg/controllers/controllers.go starts the interruption controller only when
  // settings.interruptionQueue is set.
  auto sim = interrupted_spot_node(false);
  sim.scenario.settings.karpenter.interruption_queue = false;
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.spot_interruption == 1);
  CHECK(result.pods.evicted == 1); // at the reclaim, not at the notice
  const auto& nodes = sim.cluster().nodes();
  REQUIRE_FALSE(nodes.empty());
  CHECK(nodes.front().terminated_at == 3 * k_minute);
  CHECK(nodes.front().deleting_since < 0); // never drained
  const cluster::NodeState* replacement = nullptr;
  for (const auto& n : nodes) {
    if (n.alive()) {
      replacement = &n;
    }
  }
  REQUIRE(replacement != nullptr);
  CHECK(replacement->created_at >= 3 * k_minute); // provisioned once the pod is pending again
}

TEST_CASE("Interruption: Karpenter's interruption controller leaves nodes it does not manage alone",
          "[disruption][interruption]")
{
  // aws: pkg/controllers/interruption handles messages for its NodeClaims only; a static spot
  // node runs until it is reclaimed.
  auto sim = interrupted_spot_node(true);
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  const auto& nodes = sim.cluster().nodes();
  REQUIRE_FALSE(nodes.empty());
  CHECK(nodes.front().name == "static-spot");
  CHECK(nodes.front().deleting_since < 0);
  CHECK(nodes.front().terminated_at == 3 * k_minute);
  CHECK(result.pods.evicted == 1);
}

} // namespace capsim::karpenter::dtest
