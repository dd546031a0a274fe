// Ports of core:pkg/controllers/node/termination/suite_test.go (kubernetes-sigs/karpenter HEAD
// 2266468), the cases about which pods a drain evicts and when. Upstream deletes the Node
// directly; here a Drift event disrupts it at t=0 (the NodePool's consolidateAfter is 1h so
// consolidation stays away) and the drain starts with the command.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

namespace capsim::karpenter::dtest {

namespace {

constexpr std::int32_t k_node_critical = 2'000'001'000; // system-node-critical

// A NodePool with terminationGracePeriod `grace` (nullopt: none) and node-0, drifted at t=0.
Sim drifting_node(std::optional<Duration> grace)
{
  Sim sim;
  auto& pool = sim.pool("default");
  pool.consolidate_after = k_hour;
  pool.termination_grace_period = grace;
  sim.node("node-0", "default", sim.most_expensive("on-demand").name, resources(32000, 0, 100));
  model::ScenarioEvent drift;
  drift.kind = "Drift";
  drift.selector.node_name = "node-0";
  sim.scenario.events.push_back(drift);
  return sim;
}

} // namespace

TEST_CASE("Termination: should only delete pods when their terminationGracePeriodSeconds is less than the node's "
          "remaining terminationGracePeriod",
          "[disruption][termination]")
{
  // Node grace 300 s; a do-not-disrupt pod with a 60 s grace period is left alone until 60 s
  // before the node's deadline, then deleted.
  for (const SimTime end : {90 * k_second, 239 * k_second, 242 * k_second}) {
    auto sim = drifting_node(300 * k_second);
    PodOpts pod;
    pod.do_not_disrupt = k_never;
    pod.termination_grace_period = 60 * k_second;
    sim.pods_on("node-0", 1, pod);
    const auto result = sim.run(end);
    INFO(dump(result));
    REQUIRE(decisions(result, "drift", "delete").size() == 1);
    CHECK(result.pods.evicted == (end < 240 * k_second ? 0 : 1));
    CHECK(sim.alive(std::string("node-0")));
  }
}

TEST_CASE("Termination: should preemptively delete pods to satisfy their terminationGracePeriodSeconds",
          "[disruption][termination]")
{
  // The pod's grace period is as long as the node's: it is deleted when the drain starts,
  // do-not-disrupt or not.
  auto sim = drifting_node(300 * k_second);
  PodOpts pod;
  pod.do_not_disrupt = k_never;
  pod.termination_grace_period = 300 * k_second;
  sim.pods_on("node-0", 1, pod);
  const auto result = sim.run(2 * k_second);
  INFO(dump(result));
  CHECK(result.pods.evicted == 1);
}

TEST_CASE("Termination: should not gate past-deadline pods behind graceful eviction of earlier tiers",
          "[disruption][termination]")
{
  // A non-critical pod (30 s grace) that a PDB keeps from being evicted holds the critical pods'
  // eviction group back, but not a critical pod whose 600 s grace period runs past the node's
  // 300 s deadline: that one is deleted at once.
  auto sim = drifting_node(300 * k_second);
  PodOpts held;
  held.labels = {{"app", "held"}};
  sim.pods_on("node-0", 1, held);
  PodOpts critical;
  critical.priority = k_node_critical;
  critical.termination_grace_period = 600 * k_second;
  sim.pods_on("node-0", 1, critical);
  sim.scenario.pdbs.push_back(blocking_pdb(held.labels));
  // The critical pod needs a replacement: the drain starts once it is initialized at 75 s.
  const auto result = sim.run(77 * k_second);
  INFO(dump(result));
  const auto terminate = decisions(result, "drift", "terminate");
  REQUIRE(terminate.size() == 1);
  CHECK(terminate[0].t == 75 * k_second);
  CHECK(result.pods.evicted == 1); // the critical pod; the held one waits for its PDB
  CHECK(sim.alive(std::string("node-0")));
}

TEST_CASE("Termination: a do-not-disrupt pod holds the drain until it finishes when there is no grace period",
          "[disruption][termination]")
{
  // terminator/eviction.go: an active do-not-disrupt pod stays enqueued, not evicted; the node
  // goes once the pod has finished (without a terminationGracePeriod nothing forces it).
  for (const SimTime end : {9 * k_minute, 11 * k_minute}) {
    Sim sim;
    auto& pool = sim.pool("default");
    pool.consolidate_after = k_hour;
    pool.expire_after = k_minute; // expiration is forceful: it ignores the annotation
    sim.node("node-0", "default", sim.most_expensive("on-demand").name, resources(32000, 0, 100));
    PodOpts pod;
    pod.do_not_disrupt = k_never;
    pod.runtime = 10 * k_minute;
    sim.pods_on("node-0", 1, pod);
    const auto result = sim.run(end);
    INFO(dump(result));
    CHECK(result.pods.evicted == 0);
    CHECK(sim.alive(std::string("node-0")) == (end < 10 * k_minute));
  }
}

TEST_CASE("Termination: a duration-based do-not-disrupt pod is evicted once its annotation lapses",
          "[disruption][termination]")
{
  for (const SimTime end : {4 * k_minute, 6 * k_minute}) {
    Sim sim;
    auto& pool = sim.pool("default");
    pool.consolidate_after = k_hour;
    pool.expire_after = k_minute;
    sim.node("node-0", "default", sim.most_expensive("on-demand").name, resources(32000, 0, 100));
    PodOpts pod;
    pod.do_not_disrupt = 5 * k_minute;
    sim.pods_on("node-0", 1, pod);
    const auto result = sim.run(end);
    INFO(dump(result));
    CHECK(result.pods.evicted == (end < 5 * k_minute ? 0 : 1));
  }
}

TEST_CASE("Termination: should not finish draining until minDrainTime has passed", "[disruption][termination]")
{
  // An empty node deleted by emptiness at 15 s (after the command's validation) has nothing to
  // evict, yet counts as drained only 5 s later; its instance terminates then.
  Sim sim;
  sim.pool("default");
  sim.node("node-0", "default", sim.cheapest("on-demand").name, resources(32000, 0, 100));
  const auto result = sim.run(5 * k_minute);
  INFO(dump(result));
  const auto deletes = decisions(result, "emptiness", "delete");
  REQUIRE(deletes.size() == 1);
  CHECK(deletes[0].t == 15 * k_second);
  const auto& node = sim.cluster().nodes().front();
  CHECK(node.name == "node-0");
  CHECK(node.deleting_since == 15 * k_second);
  CHECK(node.terminated_at == 20 * k_second);
}

TEST_CASE("Termination: provisioning makes room for the pods that will leave a deleting node, not for those that "
          "stay",
          "[disruption][termination][provisioning]")
{
  // provisioner.Schedule adds nodes.Deleting().CurrentlyReschedulablePods: a do-not-disrupt pod
  // (or one under a fully blocking PDB) stays on the expired node, so the replacement is sized
  // for the 1-CPU pod that was evicted, as a lone 1-CPU pod's node would be.
  const auto launched_type = [](bool with_blocked_pods) {
    Sim sim;
    auto& pool = sim.pool("default");
    pool.consolidate_after = k_hour;
    if (with_blocked_pods) {
      pool.expire_after = k_minute;
      sim.node("node-0", "default", sim.most_expensive("on-demand").name, resources(32000, 0, 100));
      PodOpts blocked;
      blocked.cpu_milli = 3000;
      blocked.do_not_disrupt = k_never;
      sim.pods_on("node-0", 1, blocked);
      PodOpts guarded = rs_pod();
      guarded.cpu_milli = 3000;
      sim.pods_on("node-0", 1, guarded);
      sim.scenario.pdbs.push_back(blocking_pdb(guarded.labels));
      PodOpts moving;
      moving.cpu_milli = 1000;
      sim.pods_on("node-0", 1, moving);
    } else {
      PodOpts moving;
      moving.cpu_milli = 1000;
      sim.pending(k_minute, 1, moving);
    }
    const auto result = sim.run(110 * k_second); // (before the replacement expires in turn)
    INFO(dump(result));
    CHECK(result.nodes.launched == 1);
    std::string type;
    for (const auto& n : sim.cluster().nodes()) {
      if (n.name != "node-0" && n.instance_type != nullptr) {
        type = n.instance_type->name;
      }
    }
    return type;
  };
  const auto alone = launched_type(false);
  REQUIRE_FALSE(alone.empty());
  CHECK(launched_type(true) == alone);
}

} // namespace capsim::karpenter::dtest

namespace capsim::karpenter::dtest {

TEST_CASE("Termination: a deleting node triggers provisioning for its pods before they are evicted",
          "[disruption][termination][provisioning]")
{
  // provisioning/controller.go NodeController: a node carrying karpenter.sh/disrupted triggers
  // the provisioner (and re-queues every 10 s), whose Schedule adds the node's reschedulable
  // pods: all three get room at once, though the PDB lets the drain evict one at a time.
  Sim sim;
  auto& pool = sim.pool("default");
  pool.consolidate_after = k_hour;
  pool.expire_after = k_minute;
  sim.node("node-0", "default", sim.most_expensive("on-demand").name, resources(32000, 0, 100));
  PodOpts guarded = rs_pod();
  guarded.cpu_milli = 1000;
  sim.pods_on("node-0", 3, guarded);
  model::PodDisruptionBudget pdb;
  pdb.name = "pdb";
  pdb.selector.match_labels = guarded.labels;
  pdb.max_unavailable = "1";
  sim.scenario.pdbs.push_back(pdb);
  // (Before the replacement is ready, 75 s after its launch, and before it expires in turn.)
  const auto result = sim.run(100 * k_second);
  INFO(dump(result));
  const auto launches = decisions(result, "provisioning", "launch");
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].t <= k_minute + 2 * k_second); // the expiry at 1 m, then the 1 s batch window
  CHECK(launches[0].detail.find("for 3 pod(s)") != std::string::npos);
  CHECK(result.pods.evicted == 1); // the PDB's one disruption: the others wait for it to run again
  CHECK(sim.alive(std::string("node-0")));
}

} // namespace capsim::karpenter::dtest

namespace capsim::karpenter::dtest {

TEST_CASE("Launch: each node Karpenter launches is labelled with its instance tenancy",
          "[disruption][provisioning]")
{
  // aws:pkg/cloudprovider labels the NodeClaim with the instance's tenancy, which getTenancyType
  // chose: default unless the claim allows only dedicated.
  for (const std::string asked : {"", "dedicated", "default"}) {
    Sim sim;
    sim.pool("default");
    PodOpts pod;
    pod.cpu_milli = 1000;
    if (!asked.empty()) {
      pod.node_selector = {{std::string(model::labels::k_instance_tenancy), asked}};
    }
    sim.pending(0, 1, pod);
    const auto result = sim.run(5 * k_minute);
    INFO(asked << "\n" << dump(result));
    CHECK(result.nodes.launched == 1);
    CHECK(bound_pods(sim) == 1);
    const auto& node = only_alive(sim);
    CHECK(node.labels.at(std::string(model::labels::k_instance_tenancy)) == (asked.empty() ? "default" : asked));
  }
}

} // namespace capsim::karpenter::dtest
