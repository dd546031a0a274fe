// A NodePool or EC2NodeClass applied again during the run (model::NodePoolUpdate,
// NodeClassUpdate: `kubectl apply` of a new version). Upstream, the new spec reaches provisioning
// at once; nodes drift when the NodeClaim's karpenter.sh/nodepool-hash annotation differs from
// the NodePool's (core:pkg/controllers/nodeclaim/disruption/drift.go areStaticFieldsDrifted),
// when their labels no longer satisfy its requirements (areRequirementsDrifted), or when the
// cloud provider says so (aws:pkg/cloudprovider/drift.go: the ec2nodeclass-hash, the AMIs); a
// NodeClaim keeps the terminationGracePeriod and expireAfter it was created with.

#include "core/io/scenario_yaml.hpp"
#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

namespace capsim::karpenter::dtest {

namespace {

struct UpdateSuite
{
  Sim sim;

  UpdateSuite()
  {
    auto& p = sim.pool("default");
    p.consolidate_after = k_hour; // consolidation stays out of the way
    p.template_hash = io::node_pool_template_hash(p);
  }

  model::NodePool& pool() { return sim.scenario.node_pools[0]; }

  // The NodePool as it is now, for editing into a later version.
  [[nodiscard]] model::NodePool next() const { return sim.scenario.node_pools[0]; }

  void apply(SimTime at, model::NodePool version)
  {
    version.template_hash = io::node_pool_template_hash(version);
    model::NodePoolUpdate u;
    u.at = at;
    u.pool = std::move(version);
    sim.scenario.node_pool_updates.push_back(std::move(u));
  }

  std::string add_node(const std::string& name, const std::string& capacity_type = "on-demand")
  {
    return sim.node(name, "default", sim.most_expensive(capacity_type).name, resources(32000, 0, 100));
  }
};

PodOpts app_pod(std::int64_t cpu_milli = 0)
{
  PodOpts o;
  o.labels = {{"app", "test"}};
  o.cpu_milli = cpu_milli;
  return o;
}

// The value of label `key` on each node alive at the end (sorted).
std::vector<std::string> alive_label(const Sim& sim, std::string_view key)
{
  std::vector<std::string> out;
  for (const auto& n : sim.cluster().nodes()) {
    if (n.alive()) {
      const auto it = n.labels.find(std::string(key));
      out.push_back(it == n.labels.end() ? "" : it->second);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("NodePool update: new requirements drift the nodes they no longer allow, from the time they apply",
          "[disruption][drift][nodepool-update]")
{
  UpdateSuite s;
  s.add_node("node-0", "spot");
  s.add_node("node-1");
  s.sim.pods_on("node-0", 1, app_pod(30000));
  s.sim.pods_on("node-1", 1, app_pod(30000));
  auto on_demand = s.next();
  on_demand.requirements.add(model::Requirement::make(std::string(model::labels::k_capacity_type),
                                                      model::Operator::in, {"on-demand"}));
  s.apply(10 * k_minute, on_demand);
  // A pod arriving later gets a node of the new version.
  s.sim.pending(20 * k_minute, 1, app_pod(30000));
  const auto result = s.sim.run(30 * k_minute);
  INFO(dump(result));

  const auto updates = decisions(result, "nodepool", "update");
  REQUIRE(updates.size() == 1);
  CHECK(updates[0].t == 10 * k_minute);
  CHECK(updates[0].candidate == "default");
  const auto replaces = decisions(result, "drift", "replace");
  REQUIRE(replaces.size() == 1);
  CHECK(replaces[0].candidate == "node-0");
  CHECK(replaces[0].t == 10 * k_minute);
  CHECK(result.disruptions.drift == 1);
  CHECK(!s.sim.alive(std::string("node-0")));
  CHECK(s.sim.alive(std::string("node-1")));
  CHECK(alive_label(s.sim, model::labels::k_capacity_type) ==
        std::vector<std::string>{"on-demand", "on-demand", "on-demand"});
  CHECK(bound_pods(s.sim) == 3);
}

TEST_CASE("NodePool update: a changed template drifts each of the NodePool's nodes once",
          "[disruption][drift][nodepool-update]")
{
  UpdateSuite s;
  s.add_node("node-0");
  s.add_node("node-1");
  s.sim.pods_on("node-0", 1, app_pod(30000));
  s.sim.pods_on("node-1", 1, app_pod(30000));
  auto labelled = s.next();
  labelled.template_labels["team"] = "checkout";
  s.apply(5 * k_minute, labelled);
  const auto result = s.sim.run(k_hour - k_minute);
  INFO(dump(result));

  CHECK(result.disruptions.drift == 2); // the replacements carry the new hash: no second round
  for (const auto& d : decisions(result, "drift", "replace")) {
    CHECK(d.t >= 5 * k_minute);
  }
  CHECK(!s.sim.alive(std::string("node-0")));
  CHECK(!s.sim.alive(std::string("node-1")));
  CHECK(alive_label(s.sim, "team") == std::vector<std::string>{"checkout", "checkout"});
  CHECK(bound_pods(s.sim) == 2);
}

TEST_CASE("NodePool update: a version whose template is unchanged drifts nothing",
          "[disruption][drift][nodepool-update]")
{
  // Weight, limits, budgets and consolidateAfter are not in the hash (hash:"ignore" upstream).
  UpdateSuite s;
  s.add_node("node-0");
  s.sim.pods_on("node-0", 1, app_pod(30000));
  auto tuned = s.next();
  tuned.weight = 50;
  tuned.limit_nodes = 10;
  tuned.consolidate_after = 2 * k_hour;
  s.apply(5 * k_minute, tuned);
  const auto result = s.sim.run(k_hour);
  INFO(dump(result));
  REQUIRE(decisions(result, "nodepool", "update").size() == 1);
  CHECK(has_decision(result, "default", "update", "template unchanged"));
  CHECK(result.disruptions.drift == 0);
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
}

TEST_CASE("NodePool update: the new version's disruption budgets govern the drift it causes",
          "[disruption][drift][budgets][nodepool-update]")
{
  UpdateSuite s;
  s.add_node("node-0");
  s.sim.pods_on("node-0", 1, app_pod(30000));
  auto frozen = s.next();
  frozen.template_labels["team"] = "checkout";
  frozen.budgets = {model::DisruptionBudget{"0", std::nullopt, std::nullopt, {model::DisruptionReason::drifted}}};
  s.apply(5 * k_minute, frozen);
  // Then a third version lifts the freeze.
  auto thawed = frozen;
  thawed.budgets = {model::DisruptionBudget{"100%", std::nullopt, std::nullopt, {}}};
  s.apply(20 * k_minute, thawed);
  const auto result = s.sim.run(40 * k_minute);
  INFO(dump(result));
  CHECK(has_decision(result, "node-0", "keep", "allows no more Drifted disruptions"));
  const auto replaces = decisions(result, "drift", "replace");
  REQUIRE(replaces.size() == 1);
  CHECK(replaces[0].t == 20 * k_minute);
  CHECK(decisions(result, "nodepool", "update").size() == 2);
}

TEST_CASE("NodePool update: a draining node keeps the terminationGracePeriod it was launched with",
          "[disruption][termination][nodepool-update]")
{
  // Node grace 300 s; the do-not-disrupt pod (grace 60 s) is deleted 60 s before the node's
  // deadline even though the NodePool, from 10 s on, has no terminationGracePeriod.
  for (const SimTime end : {239 * k_second, 242 * k_second}) {
    UpdateSuite s;
    s.pool().termination_grace_period = 300 * k_second;
    s.pool().template_hash = io::node_pool_template_hash(s.pool());
    s.add_node("node-0");
    model::ScenarioEvent drift;
    drift.kind = "Drift";
    drift.selector.node_name = "node-0";
    s.sim.scenario.events.push_back(drift);
    PodOpts pod;
    pod.do_not_disrupt = k_never;
    pod.termination_grace_period = 60 * k_second;
    s.sim.pods_on("node-0", 1, pod);
    auto unbounded = s.next();
    unbounded.termination_grace_period = std::nullopt;
    s.apply(10 * k_second, unbounded);
    const auto result = s.sim.run(end);
    INFO(dump(result));
    CHECK(result.pods.evicted == (end < 240 * k_second ? 0 : 1));
  }
}

namespace {

// An EC2NodeClass "default" with the given hashes, referenced by the suite's NodePool.
model::NodeClass node_class(std::uint64_t hash, std::uint64_t ami_hash)
{
  model::NodeClass nc;
  nc.name = "default";
  nc.hash = hash;
  nc.ami_hash = ami_hash;
  return nc;
}

} // namespace

TEST_CASE("EC2NodeClass update: a new hash or new AMIs drift the nodes of its NodePools, once",
          "[disruption][drift][nodepool-update]")
{
  struct Case
  {
    std::uint64_t hash;
    std::uint64_t ami_hash;
    int drifted;
  };
  // Hash changed (NodeClassDrift), AMI selector changed (AMIDrift), neither.
  for (const Case c : {Case{2, 10, 2}, Case{1, 11, 2}, Case{1, 10, 0}}) {
    UpdateSuite s;
    s.pool().node_class_ref = "default";
    s.sim.scenario.node_classes.push_back(node_class(1, 10));
    s.add_node("node-0");
    s.add_node("node-1");
    s.sim.pods_on("node-0", 1, app_pod(30000));
    s.sim.pods_on("node-1", 1, app_pod(30000));
    model::NodeClassUpdate u;
    u.at = 5 * k_minute;
    u.node_class = node_class(c.hash, c.ami_hash);
    s.sim.scenario.node_class_updates.push_back(u);
    const auto result = s.sim.run(k_hour - k_minute);
    INFO(dump(result));
    REQUIRE(decisions(result, "nodeclass", "update").size() == 1);
    CHECK(result.disruptions.drift == c.drifted); // replacements carry the new hashes
    for (const auto& d : decisions(result, "drift", "replace")) {
      CHECK(d.t >= 5 * k_minute);
    }
    CHECK(s.sim.alive(std::string("node-0")) == (c.drifted == 0));
  }
}

// NodePools created and deleted during the run (NodePool::created_at, deleted_at: kubectl apply
// of a new NodePool, kubectl delete). The provisioner's scheduler sees only the NodePools that
// exist (provisioner.go filters out those being deleted); a deleted NodePool's NodeClaims go
// with it (their owner reference to it, BlockOwnerDeletion) and drain as any deleted NodeClaim,
// outside disruption budgets.
TEST_CASE("NodePool lifecycle: a NodePool created during the run takes pods from then on",
          "[disruption][nodepool-update]")
{
  UpdateSuite s;
  s.pool().requirements.add(
      model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in, {"on-demand"}));
  auto& green = s.sim.pool("green");
  green.consolidate_after = k_hour;
  green.weight = 10; // preferred once it exists
  green.requirements.add(
      model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in, {"spot"}));
  green.created_at = 20 * k_minute;
  green.template_hash = io::node_pool_template_hash(green);
  s.sim.pending(5 * k_minute, 1, app_pod(30000));
  s.sim.pending(30 * k_minute, 1, app_pod(30000));
  const auto result = s.sim.run(45 * k_minute);
  INFO(dump(result));

  const auto created = decisions(result, "nodepool", "create");
  REQUIRE(created.size() == 1);
  CHECK(created[0].t == 20 * k_minute);
  CHECK(created[0].candidate == "green");
  CHECK(alive_label(s.sim, model::labels::k_nodepool) == std::vector<std::string>{"default", "green"});
  CHECK(alive_label(s.sim, model::labels::k_capacity_type) == std::vector<std::string>{"on-demand", "spot"});
  for (const auto& n : s.sim.cluster().nodes()) {
    if (n.labels.at(std::string(model::labels::k_nodepool)) == "green") {
      CHECK(n.created_at >= 30 * k_minute);
    }
  }
  CHECK(bound_pods(s.sim) == 2);
}

TEST_CASE("NodePool lifecycle: deleting a NodePool deletes its nodes, other NodePools take the pods",
          "[disruption][nodepool-update]")
{
  UpdateSuite s;
  s.pool().deleted_at = 10 * k_minute;
  s.pool().budgets = {model::DisruptionBudget{"0", std::nullopt, std::nullopt, {}}}; // budgets do not apply
  auto& green = s.sim.pool("green");
  green.consolidate_after = k_hour;
  green.template_hash = io::node_pool_template_hash(green);
  s.add_node("node-0");
  s.add_node("node-1");
  s.sim.pods_on("node-0", 1, app_pod(30000));
  s.sim.pods_on("node-1", 1, app_pod(30000));
  s.sim.pending(20 * k_minute, 1, app_pod(30000));
  const auto result = s.sim.run(40 * k_minute);
  INFO(dump(result));

  REQUIRE(decisions(result, "nodepool", "delete").size() == 3); // the NodePool, then each of its nodes
  CHECK(has_decision(result, "default", "delete", "NodePool deleted"));
  CHECK(has_decision(result, "node-0", "delete", "its NodePool default was deleted"));
  CHECK(has_decision(result, "node-1", "delete", "its NodePool default was deleted"));
  for (const auto& d : decisions(result, "nodepool", "delete")) {
    CHECK(d.t == 10 * k_minute);
  }
  CHECK(!s.sim.alive(std::string("node-0")));
  CHECK(!s.sim.alive(std::string("node-1")));
  // (A 64-CPU type takes both evicted pods; the pod at 20m gets a node of its own.)
  CHECK(alive_label(s.sim, model::labels::k_nodepool) == std::vector<std::string>{"green", "green"});
  CHECK(bound_pods(s.sim) == 3);
  CHECK(result.pods.evicted == 2);
  // Not a disruption: no method of the disruption controller deleted them.
  CHECK(result.disruptions.drift == 0);
  CHECK(result.disruptions.expiration == 0);
  CHECK(result.disruptions.emptiness + result.disruptions.consolidation_delete
            + result.disruptions.consolidation_replace
        == 0);
}

TEST_CASE("NodePool lifecycle: with its only NodePool deleted, Karpenter launches nothing",
          "[disruption][nodepool-update]")
{
  UpdateSuite s;
  s.pool().deleted_at = 10 * k_minute;
  s.add_node("node-0");
  s.sim.pods_on("node-0", 1, app_pod(30000));
  s.sim.pending(20 * k_minute, 1, app_pod(30000));
  const auto result = s.sim.run(40 * k_minute);
  INFO(dump(result));
  CHECK(s.sim.alive().empty());
  CHECK(result.nodes.launched == 0);
  CHECK(bound_pods(s.sim) == 0);
  CHECK(result.pods.evicted == 1);
  CHECK(result.pods.unschedulable == 2); // the evicted pod and the one at 20m
}

} // namespace capsim::karpenter::dtest
