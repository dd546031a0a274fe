// Behaviour cases ported from Karpenter's provisioning suites:
//  - kubernetes-sigs/karpenter pkg/controllers/provisioning/suite_test.go ("Provisioning":
//    Resource Limits, Daemonsets, Preferential Fallback, Multiple NodePools, MinValuesPolicy)
//  - pkg/controllers/provisioning/scheduling/suite_test.go ("In-Flight Nodes", "Existing Nodes")
//  - pkg/controllers/provisioning/scheduling/instance_selection_test.go ("Instance Type Selection")
// and unit checks of the AWS launch decision (aws/karpenter-provider-aws
// pkg/providers/instance/instance.go, filter/filter.go).

#include "tests/unit/karpenter/harness.hpp"

#include "core/base/rng.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <limits>
#include <set>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

PodOptions cpu_mem(std::int64_t cpu_milli, std::int64_t memory)
{
  PodOptions o;
  o.cpu_milli = cpu_milli;
  o.memory = memory;
  return o;
}

void set_limits(model::NodePool& np, std::initializer_list<std::pair<model::ResourceId, std::int64_t>> limits,
                std::optional<std::int64_t> nodes = std::nullopt)
{
  model::Resources l;
  l.v.fill(std::numeric_limits<std::int64_t>::max());
  for (const auto& [r, v] : limits) {
    l[r] = v;
  }
  np.limits = l;
  np.limit_nodes = nodes;
}

// instance_selection_test.go's NodePool and the cheapest price of the assorted catalog.
// Solves env's pending pods over env's cache and again without one: the two must agree
// (check_same). Returns the cached solve's result.
SolveResult solve_cached_and_fresh(const Env& env)
{
  SolveInput in = env.input();
  auto cached = solve(in);
  in.cache = nullptr;
  check_same(cached, solve(in));
  return cached;
}

model::NodePool& selection_pool(Env& env)
{
  auto& np = env.node_pool();
  np.requirements.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  np.requirements.add(req(k_arch, Operator::in, {"arm64", "amd64"}));
  return np;
}

double node_price(const Env& env, cluster::PodIndex p)
{
  return env.node_of(p).price_per_hour;
}

} // namespace

// --- Resource Limits (provisioning/suite_test.go) -----------------------------------------------

TEST_CASE("should not schedule when limits are exceeded", "[karpenter][provisioning][limits]")
{
  Env env;
  auto& np = env.node_pool();
  set_limits(np, {{model::k_cpu, 20000}});
  // an in-flight NodeClaim of the pool with 100 CPUs of capacity
  model::Resources cap;
  cap[model::k_cpu] = 100000;
  env.node("inflight", {}, cap, cluster::NodeLifecycle::launching, 0);
  const auto pod = env.pod();
  env.provision(pod);
  // the pod fits nowhere on the in-flight node (no pods capacity) and the pool is over its limit
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule if limits would be met", "[karpenter][provisioning][limits]")
{
  Env env;
  set_limits(env.node_pool(), {{model::k_cpu, 2000}});
  const auto pod = env.pod(cpu_mem(1750, 0));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_it) == "small-instance-type");
}

TEST_CASE("should partially schedule if limits would be exceeded", "[karpenter][provisioning][limits]")
{
  Env env;
  set_limits(env.node_pool(), {{model::k_cpu, 3000}});
  PodOptions o = cpu_mem(1500, 0);
  o.labels = {{"app", "foo"}};
  o.pod_anti_requirements = {affinity_term(k_host, {{"app", "foo"}})};
  const auto pods = env.pods(o, 2);
  env.provision(pods);
  CHECK(static_cast<int>(env.scheduled(pods[0])) + static_cast<int>(env.scheduled(pods[1])) == 1);
}

TEST_CASE("should not schedule if limits would be exceeded", "[karpenter][provisioning][limits]")
{
  Env env;
  set_limits(env.node_pool(), {{model::k_cpu, 2000}});
  const auto pod = env.pod(cpu_mem(2100, 0));
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  REQUIRE(round.result.errors.size() == 1);
  // only the 2-CPU type is within the limit, and it cannot hold the pod
  CHECK_THAT(round.result.errors[0].reason, Catch::Contains("no instance type has enough resources"));
}

TEST_CASE("should not schedule if limits would be exceeded (GPU)", "[karpenter][provisioning][limits]")
{
  Env env;
  set_limits(env.node_pool(), {{model::k_pods, 1}});
  PodOptions o;
  o.extended = {{std::string(testing::k_fake_vendor_a), 1}};
  const auto pod = env.pod(o);
  env.provision(pod);
  // the only type with the GPU has 5 pods of capacity, over the limit of 1
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should not schedule to a nodepool after a scheduling round if limits would be exceeded",
          "[karpenter][provisioning][limits]")
{
  Env env;
  set_limits(env.node_pool(), {{model::k_cpu, 2000}});
  const auto p1 = env.pod(cpu_mem(1750, 0));
  env.provision(p1);
  CHECK(env.scheduled(p1));
  const auto p2 = env.pod(cpu_mem(1750, 0));
  env.provision(p2);
  CHECK_FALSE(env.scheduled(p2));
}

TEST_CASE("should not schedule if limits would be exceeded (node)", "[karpenter][provisioning][limits]")
{
  Env env;
  auto& np = env.node_pool();
  model::Resources none;
  none.v.fill(std::numeric_limits<std::int64_t>::max());
  np.limits = none;
  np.limit_nodes = 2;
  PodOptions o = cpu_mem(1500, 0);
  o.labels = {{"app", "foo"}};
  o.pod_anti_requirements = {affinity_term(k_host, {{"app", "foo"}})};
  const auto p1 = env.pod(o);
  env.provision(p1);
  CHECK(env.scheduled(p1));
  const auto p2 = env.pod(o);
  env.provision(p2);
  CHECK(env.scheduled(p2));
  const auto p3 = env.pod(o);
  const auto round = env.provision(p3);
  CHECK_FALSE(env.scheduled(p3));
  REQUIRE(round.result.errors.size() == 1);
  CHECK_THAT(round.result.errors[0].reason, Catch::Contains("node limits have been exhausted"));
}

// --- Daemonsets (provisioning/suite_test.go) ----------------------------------------------------

TEST_CASE("should account for daemonsets", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  env.daemon_set(cpu_mem(2000, 2 * k_gi));
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
  CHECK(env.type_of(pod).capacity.memory() == 4 * k_gi);
  // spec.resources.requests = pod + DaemonSet overhead (pods: 1 each)
  REQUIRE(round.result.claims.size() == 1);
  CHECK(round.result.claims[0].requests.cpu() == 3000);
  CHECK(round.result.claims[0].requests.pods() == 2);
}

TEST_CASE("A solve cache kept across changes of the DaemonSets answers as a fresh one",
          "[karpenter][provisioning][daemonsets]")
{
  // The cache keeps the DaemonSets' requirements for the last list it saw: a new list, a list
  // with one more, and the first list again must each be read anew.
  Env env;
  env.node_pool();
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  (void)pod;
  const auto claim_cpu = [&]() {
    const SolveResult kept = solve(env.input());
    SolveInput fresh_input = env.input();
    fresh_input.cache = nullptr;
    const SolveResult fresh = solve(fresh_input);
    check_same(kept, fresh);
    REQUIRE(kept.claims.size() == 1);
    return kept.claims[0].requests.cpu();
  };
  CHECK(claim_cpu() == 1000);
  env.daemon_set(cpu_mem(2000, 2 * k_gi));
  const auto first = env.daemon_sets;
  CHECK(claim_cpu() == 3000);
  PodOptions other = cpu_mem(500, 1 * k_gi);
  other.node_selector = {{"example.com/none", "x"}}; // no type of the pool has the label
  env.daemon_set(other);
  CHECK(claim_cpu() == 3000);
  env.daemon_sets = {env.spec(cpu_mem(700, 1 * k_gi))};
  CHECK(claim_cpu() == 1700);
  env.daemon_sets = first;
  CHECK(claim_cpu() == 3000);
}

TEST_CASE("should account for daemonset hostports", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  PodOptions ds = cpu_mem(2000, 2 * k_gi);
  ds.host_ports = {8080};
  env.daemon_set(ds);
  PodOptions o = cpu_mem(1000, 1 * k_gi);
  o.host_ports = {8080};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(env.node_count() == 0);
}

TEST_CASE("should account for daemonsets (with startup taint)", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool().startup_taints = {{"foo.com/taint", "", model::TaintEffect::no_schedule}};
  env.daemon_set(cpu_mem(2000, 2 * k_gi));
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
  CHECK(env.type_of(pod).capacity.memory() == 4 * k_gi);
}

TEST_CASE("should not schedule if daemonset overhead is too large", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  env.daemon_set(cpu_mem(10000 * 1000, 10000 * k_gi));
  const auto pod = env.pod();
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should ignore daemonsets without matching tolerations", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool().taints = {{"foo", "bar", model::TaintEffect::no_schedule}};
  env.daemon_set(cpu_mem(2000, 2 * k_gi));
  PodOptions o = cpu_mem(1000, 1 * k_gi);
  o.tolerations = {{"", true, "", std::nullopt}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 2000);
  CHECK(env.type_of(pod).capacity.memory() == 2 * k_gi);
}

TEST_CASE("should ignore daemonsets with an invalid selector", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  PodOptions ds = cpu_mem(2000, 2 * k_gi);
  ds.node_selector = {{"node", "invalid"}};
  env.daemon_set(ds);
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 2000);
}

TEST_CASE("should ignore daemonsets when no instance types meet the daemonset requirements",
          "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  PodOptions ds = cpu_mem(2000, 2 * k_gi);
  ds.node_requirements = {req(k_it, Operator::in, {"non-existent-instance-type"})};
  env.daemon_set(ds);
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 2000);
}

TEST_CASE("should account for daemonsets with a custom label nodeSelector that matches the nodepool",
          "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool().template_labels = {{"purpose", "monitoring"}};
  PodOptions ds = cpu_mem(2000, 2 * k_gi);
  ds.node_selector = {{"purpose", "monitoring"}};
  env.daemon_set(ds);
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
  CHECK(env.type_of(pod).capacity.memory() == 4 * k_gi);
}

TEST_CASE("should filter out daemonsets based on instance type requirements", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  PodOptions small = cpu_mem(1000, 0);
  small.node_requirements = {req("size", Operator::in, {"small"})};
  env.daemon_set(small);
  PodOptions large = cpu_mem(10000, 0);
  large.node_requirements = {req("size", Operator::in, {"large"})};
  env.daemon_set(large);
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
  CHECK(env.type_of(pod).capacity.memory() == 4 * k_gi);
}

TEST_CASE("should account daemonsets with NotIn operator and unspecified key", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  PodOptions ds = cpu_mem(2000, 2 * k_gi);
  ds.node_requirements = {req("foo", Operator::not_in, {"bar"})};
  env.daemon_set(ds);
  PodOptions o = cpu_mem(1000, 1 * k_gi);
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-2"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
  CHECK(env.type_of(pod).capacity.memory() == 4 * k_gi);
}

TEST_CASE("should consider a daemonset schedulable with multiple node affinity terms",
          "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool().template_labels = {{"purpose", "monitoring"}};
  PodOptions ds = cpu_mem(2000, 2 * k_gi);
  ds.node_requirement_terms = {{req("purpose", Operator::in, {"other"})}, {req("purpose", Operator::in, {"monitoring"})}};
  env.daemon_set(ds);
  const auto pod = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
}

TEST_CASE("should consider a daemonset schedulable with a PreferNoSchedule taint", "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool().taints = {{"foo", "bar", model::TaintEffect::prefer_no_schedule}};
  env.daemon_set(cpu_mem(2000, 2 * k_gi));
  PodOptions o = cpu_mem(1000, 1 * k_gi);
  o.tolerations = {{"", true, "", std::nullopt}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.type_of(pod).capacity.cpu() == 4000);
}

TEST_CASE("should not double-count daemon overhead when multiple pods are scheduled to the same nodeclaim",
          "[karpenter][provisioning][daemonsets]")
{
  Env env;
  env.node_pool();
  env.daemon_set(cpu_mem(1000, 1 * k_gi));
  const auto pods = env.pods(cpu_mem(500, 0), 2);
  const auto round = env.provision(pods);
  REQUIRE(round.result.claims.size() == 1);
  CHECK(round.result.claims[0].requests.cpu() == 2000);
  CHECK(round.result.claims[0].requests.memory() == 1 * k_gi);
  CHECK(round.result.claims[0].requests.pods() == 3);
}

// --- Preferential Fallback / Multiple NodePools (provisioning/suite_test.go) --------------------

TEST_CASE("should tolerate PreferNoSchedule taint only after trying to relax Affinity terms",
          "[karpenter][provisioning][preferences]")
{
  Env env;
  env.node_pool().taints = {{"foo", "bar", model::TaintEffect::prefer_no_schedule}};
  PodOptions o;
  o.preferred_terms = {{1, model::NodeSelectorTerm{{req(k_zone, Operator::in, {"invalid"})}}},
                       {1, model::NodeSelectorTerm{{req(k_it, Operator::in, {"invalid"})}}}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  const auto& taints = env.node_of(pod).taints;
  REQUIRE(taints.size() == 1);
  CHECK(taints[0].effect == model::TaintEffect::prefer_no_schedule);
}

TEST_CASE("should schedule to an explicitly selected NodePool", "[karpenter][provisioning][nodepools]")
{
  Env env;
  env.node_pool("np-a");
  env.node_pool("np-b");
  PodOptions o;
  o.node_selector = {{k_np, "np-a"}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_np) == "np-a");
}

TEST_CASE("should schedule to a NodePool by labels", "[karpenter][provisioning][nodepools]")
{
  Env env;
  env.node_pool("np-a").template_labels = {{"foo", "bar"}};
  env.node_pool("np-b");
  PodOptions o;
  o.node_selector = {{"foo", "bar"}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_np) == "np-a");
}

TEST_CASE("should not match NodePool with PreferNoSchedule taint when other NodePool match",
          "[karpenter][provisioning][nodepools]")
{
  // Names chosen so the tainted pool would come first on a name tie (reverse lexicographic).
  Env env;
  env.node_pool("np-z").taints = {{"foo", "bar", model::TaintEffect::prefer_no_schedule}};
  env.node_pool("np-a");
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_np) == "np-a");
}

TEST_CASE("should schedule to the nodepool with the highest priority always", "[karpenter][provisioning][nodepools]")
{
  Env env;
  env.node_pool("np-a");
  env.node_pool("np-b").weight = 20;
  env.node_pool("np-c").weight = 100;
  const auto pods = std::vector<cluster::PodIndex>{env.pod(), env.pod(), env.pod()};
  env.provision(pods);
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    CHECK(env.label(p, k_np) == "np-c");
  }
}

TEST_CASE("should schedule to explicitly selected nodepool even if other nodePools are higher priority",
          "[karpenter][provisioning][nodepools]")
{
  Env env;
  env.node_pool("target");
  env.node_pool("np-b").weight = 20;
  env.node_pool("np-c").weight = 100;
  PodOptions o;
  o.node_selector = {{k_np, "target"}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_np) == "target");
}

TEST_CASE("NodePools of equal weight are tried in reverse name order (OrderByWeight)",
          "[karpenter][provisioning][nodepools]")
{
  Env env;
  env.node_pool("alpha");
  env.node_pool("beta");
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_np) == "beta");
}

// --- MinValuesPolicy (provisioning/suite_test.go) -----------------------------------------------

TEST_CASE("should not schedule when minValues requirement is not met (Strict)", "[karpenter][provisioning][minvalues]")
{
  Env env;
  env.node_pool().requirements.add(
      req(k_it, Operator::in, {"default-instance-type", "small-instance-type"}, 3));
  const auto pod = env.pod();
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule even when minValues requirement is not met (BestEffort)",
          "[karpenter][provisioning][minvalues]")
{
  Env env;
  env.options.min_values_best_effort = true;
  env.launch.min_values_best_effort = true;
  env.node_pool().requirements.add(
      req(k_it, Operator::in, {"default-instance-type", "small-instance-type"}, 3));
  const auto pod = env.pod();
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  REQUIRE(round.result.claims.size() == 1);
  CHECK(round.result.claims[0].min_values_relaxed);
  const auto* r = round.result.claims[0].requirements.find(k_it);
  REQUIRE(r != nullptr);
  CHECK(r->min_values == 2);
}

// capsim: the provisioner solves with SolveOptions::omit_instance_type_requirement (its launch reads
// the options, not their names); a NodeClaim launches as it would with the requirement.
TEST_CASE("capsim: a NodeClaim solved without its instance-type requirement keeps it only with minValues and "
          "launches the same",
          "[karpenter][provisioning][minvalues]")
{
  const auto launched_with_names = [](const Env& env, const NewNodeClaim& claim) {
    std::vector<std::string> names;
    for (const auto* t : claim.instance_types) {
      names.push_back(t->name);
    }
    model::Requirements full = claim.requirements;
    full.add(req(k_it, Operator::in, names));
    return choose_launch(full, claim.requests, claim.instance_types, env.launch, claim.options_compatible);
  };
  {
    Env env;
    env.options.omit_instance_type_requirement = true;
    env.node_pool();
    const auto pod = env.pod(cpu_mem(1, 0));
    const auto round = env.provision(pod);
    REQUIRE(env.scheduled(pod));
    REQUIRE(round.result.claims.size() == 1);
    const auto& claim = round.result.claims[0];
    CHECK(claim.requirements.find(k_it) == nullptr);
    CHECK(claim.instance_types.size() > 1);
    const auto with = launched_with_names(env, claim);
    REQUIRE(with.ok);
    REQUIRE(round.launches.size() == 1);
    CHECK(round.launches[0].instance_type == with.instance_type);
    CHECK(round.launches[0].zone == with.zone);
    CHECK(round.launches[0].capacity_type == with.capacity_type);
    CHECK(round.launches[0].candidates == with.candidates);
  }
  {
    Env env;
    env.options.omit_instance_type_requirement = true;
    env.node_pool().requirements.add(
        req(k_it, Operator::in, {"default-instance-type", "small-instance-type"}, 2));
    const auto pod = env.pod();
    const auto round = env.provision(pod);
    REQUIRE(env.scheduled(pod));
    REQUIRE(round.result.claims.size() == 1);
    const auto* r = round.result.claims[0].requirements.find(k_it);
    REQUIRE(r != nullptr);
    CHECK(r->min_values == 2);
    CHECK(r->values.size() == 2);
  }
}

// --- In-Flight Nodes (scheduling/suite_test.go) -------------------------------------------------

TEST_CASE("should not launch a second node if there is an in-flight node that can support the pod",
          "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  const auto p1 = env.pod(cpu_mem(10, 0));
  env.provision(p1);
  const auto p2 = env.pod(cpu_mem(10, 0));
  const auto round = env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.node_of(p1).name == env.node_of(p2).name);
  CHECK(round.result.claims.empty());
}

TEST_CASE("should not launch a second node if there is an in-flight node that can support the pod (node selectors)",
          "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  PodOptions a = cpu_mem(10, 0);
  a.node_requirements = {req(k_zone, Operator::in, {"test-zone-2"})};
  const auto p1 = env.pod(a);
  env.provision(p1);
  PodOptions b = cpu_mem(10, 0);
  b.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"})};
  const auto p2 = env.pod(b);
  env.provision(p2);
  CHECK(env.node_of(p1).name == env.node_of(p2).name);
  PodOptions c = cpu_mem(10, 0);
  c.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-3"})};
  const auto p3 = env.pod(c);
  env.provision(p3);
  REQUIRE(env.scheduled(p3));
  CHECK(env.node_of(p1).name != env.node_of(p3).name);
}

TEST_CASE("should launch a second node if a pod won't fit on the existingNodes node", "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  const auto p1 = env.pod(cpu_mem(1001, 0));
  env.provision(p1);
  const auto p2 = env.pod(cpu_mem(1000, 0));
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.node_of(p1).name != env.node_of(p2).name);
}

TEST_CASE("should launch a second node if a pod isn't compatible with the existingNodes node (node selector)",
          "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  const auto p1 = env.pod(cpu_mem(10, 0));
  env.provision(p1);
  PodOptions o;
  o.node_selector = {{k_arch, "arm64"}};
  const auto p2 = env.pod(o);
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.node_of(p1).name != env.node_of(p2).name);
}

TEST_CASE("should launch a second node if an in-flight node is terminating", "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  const auto p1 = env.pod(cpu_mem(10, 0));
  env.provision(p1);
  const auto n1 = env.cluster.pod(p1).node;
  env.cluster.node_mut(n1).lifecycle = cluster::NodeLifecycle::deleting;
  const auto p2 = env.pod(cpu_mem(10, 0));
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node != n1);
}

TEST_CASE("should balance pods across zones with in-flight nodes", "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  PodOptions o;
  o.labels = {{"foo", "bar"}};
  o.spread = {spread(k_zone, {{"foo", "bar"}})};
  env.provision(env.pods(o, 4));
  CHECK(env.skew(k_zone, match_labels({{"foo", "bar"}})) == std::vector<int>{1, 1, 2});
  const auto nodes = env.node_count();
  env.provision(env.pods(o, 5));
  CHECK(env.skew(k_zone, match_labels({{"foo", "bar"}})) == std::vector<int>{3, 3, 3});
  CHECK(env.node_count() == nodes);
}

TEST_CASE("should assume pod will schedule to a tainted node with a custom startup taint",
          "[karpenter][scheduling][inflight]")
{
  Env env;
  const model::Taint startup{"foo.com/taint", "tainted", model::TaintEffect::no_schedule};
  env.node_pool().startup_taints = {startup};
  const auto p1 = env.pod(cpu_mem(8000, 0));
  env.provision(p1);
  const auto n1 = env.cluster.pod(p1).node;
  env.remove(p1);
  env.cluster.node_mut(n1).taints.push_back(startup); // the node still carries its startup taint
  const auto p2 = env.pod();
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node == n1);
}

TEST_CASE("should not assume pod will schedule to a tainted node", "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  const auto p1 = env.pod(cpu_mem(8000, 0));
  env.provision(p1);
  const auto n1 = env.cluster.pod(p1).node;
  env.remove(p1);
  auto& n = env.cluster.node_mut(n1);
  n.lifecycle = cluster::NodeLifecycle::ready; // initialized: taints are real
  n.taints.push_back({"foo.com/taint", "tainted", model::TaintEffect::no_schedule});
  const auto p2 = env.pod();
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node != n1);
}

TEST_CASE("should assume pod will schedule to a node with ephemeral taint node.kubernetes.io/not-ready:NoExecute when "
          "the node is uninitialized",
          "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  const auto p1 = env.pod();
  env.provision(p1);
  const auto n1 = env.cluster.pod(p1).node;
  env.remove(p1);
  env.cluster.node_mut(n1).taints = {{"node.kubernetes.io/not-ready", "", model::TaintEffect::no_execute}};
  const auto p2 = env.pod();
  env.provision(p2);
  CHECK(env.cluster.pod(p2).node == n1);
  env.remove(p2);
  env.cluster.node_mut(n1).lifecycle = cluster::NodeLifecycle::ready;
  const auto p3 = env.pod();
  env.provision(p3);
  REQUIRE(env.scheduled(p3));
  CHECK(env.cluster.pod(p3).node != n1);
}

TEST_CASE("should track daemonset usage separately so we know how many DS resources are remaining to be scheduled",
          "[karpenter][scheduling][inflight][daemonsets]")
{
  Env env;
  env.node_pool();
  env.daemon_set(cpu_mem(1000, 1 * k_gi));
  const auto p1 = env.pod(cpu_mem(8000, 0));
  env.provision(p1);
  const auto n1 = env.cluster.pod(p1).node;
  REQUIRE(env.label(p1, k_it) == "arm-instance-type");
  env.remove(p1);
  // the DaemonSet pod binds with more memory than the DaemonSet spec asks for
  const auto ds = env.daemon_pod(cpu_mem(1000, 2 * k_gi));
  env.bind(ds, n1);
  const auto p2 = env.pod(cpu_mem(14900, 0));
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.cluster.pod(p2).node == n1);
}

TEST_CASE("should pack in-flight nodes before launching new nodes", "[karpenter][scheduling][inflight]")
{
  Env env(testing::fake_instance_types(5));
  env.node_pool();
  const auto p1 = env.pod(cpu_mem(4500, 0)); // fake-it-4 (5 CPU)
  env.provision(p1);
  const auto p2 = env.pod(cpu_mem(100, 0));
  const auto round = env.provision(p2);
  CHECK(env.cluster.pod(p2).node == env.cluster.pod(p1).node);
  CHECK(round.result.claims.empty());
}

TEST_CASE("should schedule pods with the same host port to different nodes", "[karpenter][scheduling][inflight]")
{
  Env env;
  env.node_pool();
  PodOptions o;
  o.host_ports = {8080};
  const auto pods = env.pods(o, 2);
  env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(env.node_of(pods[0]).name != env.node_of(pods[1]).name);
}

// --- Existing Nodes (scheduling/suite_test.go) --------------------------------------------------

TEST_CASE("should schedule multiple pods to an existing node unowned by Karpenter", "[karpenter][scheduling][existing]")
{
  Env env;
  model::Resources alloc;
  alloc[model::k_cpu] = 10000;
  alloc[model::k_memory] = 100 * k_gi;
  alloc[model::k_pods] = 110;
  const auto n = env.node("static-node", {}, alloc);
  env.node_pool();
  const auto pods = env.pods(cpu_mem(10, 0), 100);
  const auto round = env.provision(pods);
  for (const auto p : pods) {
    CHECK(env.cluster.pod(p).node == n);
  }
  CHECK(round.result.claims.empty());
}

TEST_CASE("should order initialized nodes for scheduling uninitialized nodes", "[karpenter][scheduling][existing]")
{
  Env env;
  env.node_pool();
  model::Resources alloc = env.types[0].allocatable();
  std::vector<cluster::NodeIndex> nodes;
  for (int i = 0; i < 100; ++i) {
    nodes.push_back(env.node(fmt::format("node-{:03d}", i), {{k_it, "default-instance-type"}}, alloc,
                             cluster::NodeLifecycle::registered, 0));
  }
  const auto elem = nodes[57];
  env.cluster.node_mut(elem).lifecycle = cluster::NodeLifecycle::ready;
  const auto pod = env.pod();
  env.provision(pod);
  CHECK(env.cluster.pod(pod).node == elem);
}

TEST_CASE("should consider a pod incompatible with an existing node but compatible with NodePool",
          "[karpenter][scheduling][existing]")
{
  Env env;
  model::Resources alloc;
  alloc[model::k_cpu] = 10000;
  alloc[model::k_memory] = 10 * k_gi;
  alloc[model::k_pods] = 110;
  const auto n = env.node("existing", {}, alloc);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  // the node has no zone label: a pod requiring a zone cannot land on it (no well-known allowance)
  CHECK_FALSE(env.scheduled(pod));
  env.node_pool();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.cluster.pod(pod).node != n);
  CHECK(env.label(pod, k_zone) == "test-zone-1");
}

TEST_CASE("should not subtract daemonset overhead that is not strictly compatible with an existing node",
          "[karpenter][scheduling][existing][daemonsets]")
{
  Env env;
  env.node_pool();
  model::Resources alloc;
  alloc[model::k_cpu] = 1000;
  alloc[model::k_memory] = 1 * k_gi;
  alloc[model::k_pods] = 110;
  const auto n = env.node("existing", {}, alloc);
  PodOptions ds = cpu_mem(100 * 1000, 100 * k_gi);
  ds.node_requirements = {req(k_zone, Operator::in, {"test-zone-1"})};
  env.daemon_set(ds);
  const auto p1 = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(p1);
  CHECK(env.cluster.pod(p1).node == n);
  const auto p2 = env.pod(cpu_mem(1000, 1 * k_gi));
  env.provision(p2);
  CHECK_FALSE(env.scheduled(p2));
}

// --- Instance Type Selection (instance_selection_test.go) ---------------------------------------

TEST_CASE("should schedule on one of the cheapest instances", "[karpenter][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(node_price(env, pod) == Approx(0.2073741824));
}

TEST_CASE("should schedule on one of the cheapest instances (pod arch = arm64)", "[karpenter][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_arch, Operator::in, {"arm64"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(node_price(env, pod) == Approx(0.2073741824));
  for (const auto* it : round.launches[0].candidates) {
    CHECK(it->labels.at(k_arch) == "arm64");
  }
}

TEST_CASE("should schedule on one of the cheapest instances (prov os = windows)", "[karpenter][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  env.node_pool().requirements.add(req(k_os, Operator::in, {"windows"}));
  const auto pod = env.pod();
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(node_price(env, pod) == Approx(0.2073741824));
  for (const auto* it : round.launches[0].candidates) {
    CHECK(it->requirements.find(k_os)->values == std::vector<std::string>{"windows"});
  }
}

TEST_CASE("should schedule on one of the cheapest instances (pod ct = spot, pod zone = test-zone-1)",
          "[karpenter][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_ct, Operator::in, {"spot"}), req(k_zone, Operator::in, {"test-zone-1"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(node_price(env, pod) == Approx(0.2073741824));
  CHECK(env.label(pod, k_ct) == "spot");
  CHECK(env.label(pod, k_zone) == "test-zone-1");
  for (const auto* it : round.launches[0].candidates) {
    CHECK(it->offerings[0].capacity_type == "spot");
    CHECK(it->offerings[0].zone == "test-zone-1");
  }
}

TEST_CASE("should not schedule if no instance type matches selector (prov arch = arm / pod zone=test-zone-2)",
          "[karpenter][instance-selection]")
{
  // every type is arm64 except in test-zone-2, where there are only amd64 types
  auto types = testing::fake_instance_types_assorted();
  std::erase_if(types, [](const catalog::InstanceType& it) {
    return it.offerings[0].zone == "test-zone-2" && it.labels.at("kubernetes.io/arch") == "arm64";
  });
  Env env(std::move(types));
  env.node_pool().requirements.add(req(k_arch, Operator::in, {"arm64"}));
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-2"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule on an instance with enough resources", "[karpenter][instance-selection]")
{
  for (const double cpu : {0.1, 1.0, 2.0, 2.5, 4.0, 8.0, 16.0}) {
    for (const double mem : {0.1, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
      Env env(testing::fake_instance_types_assorted());
      selection_pool(env);
      const auto opts = cpu_mem(static_cast<std::int64_t>(cpu * 1000), static_cast<std::int64_t>(mem * k_gi));
      const auto pods = env.pods(opts, 3);
      const auto round = env.provision(pods);
      std::set<std::string> names;
      for (const auto p : pods) {
        REQUIRE(env.scheduled(p));
        names.insert(env.node_of(p).name);
      }
      CHECK(names.size() == 1);
      for (const auto* it : round.launches[0].candidates) {
        CHECK(3 * opts.cpu_milli + it->overhead.cpu() < it->capacity.cpu());
        CHECK(3 * opts.memory + it->overhead.memory() < it->capacity.memory());
      }
    }
  }
}

TEST_CASE("should schedule on cheaper on-demand instance even when spot price ordering would place other instance "
          "types first",
          "[karpenter][instance-selection]")
{
  const auto type = [](const std::string& name, double od, double spot) {
    testing::FakeTypeOptions o;
    o.cpu_milli = 1000;
    o.memory = 1 * k_gi;
    o.os = {"linux"};
    o.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", od),
                                                 testing::fake_offering("test-zone-1a", "spot", spot)};
    return testing::fake_instance_type(name, o);
  };
  Env env({type("test-instance1", 1.0, 0.2), type("test-instance2", 1.3, 0.1)});
  env.node_pool().requirements.add(req(k_ct, Operator::in, {"on-demand"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_it) == "test-instance1");
}

namespace {

catalog::InstanceType mv_type(const std::string& name, std::int64_t cpu, double price,
                              std::vector<model::Requirement> extra = {})
{
  testing::FakeTypeOptions o;
  o.cpu_milli = cpu * 1000;
  o.memory = cpu * k_gi;
  o.arch = "arm64";
  o.os = {"linux"};
  o.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1-spot", "spot", price)};
  o.extra_requirements = std::move(extra);
  return testing::fake_instance_type(name, o);
}

} // namespace

TEST_CASE("should schedule respecting the minValues from instance-type requirements",
          "[karpenter][instance-selection][minvalues]")
{
  Env env({mv_type("instance-type-1", 1, 0.52), mv_type("instance-type-2", 4, 1.0)});
  env.node_pool().requirements.add(req(k_it, Operator::in, {"instance-type-1", "instance-type-2"}, 2));
  const auto pods = env.pods(cpu_mem(900, 966367641), 2); // 0.9 CPU, 0.9Gi
  const auto round = env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(env.node_of(pods[0]).name != env.node_of(pods[1]).name);
  CHECK(round.launches[0].candidates.size() >= 2);
}

TEST_CASE("should schedule respecting the minValues in Gt operator", "[karpenter][instance-selection][minvalues]")
{
  const std::string key = "karpenter/numerical-value";
  Env env({mv_type("instance-type-1", 1, 0.52, {req(key, Operator::in, {"2"})}),
           mv_type("instance-type-2", 1, 1.0, {req(key, Operator::in, {"3"})}),
           mv_type("instance-type-3", 4, 1.2, {req(key, Operator::in, {"4"})})});
  env.node_pool().requirements.add(req(key, Operator::gt, {"2"}, 2));
  const auto pods = env.pods(cpu_mem(900, 966367641), 2);
  const auto round = env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(env.node_of(pods[0]).name != env.node_of(pods[1]).name);
  CHECK(round.launches[0].candidates.size() >= 2);
}

TEST_CASE("schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the requirement",
          "[karpenter][instance-selection][minvalues]")
{
  auto types = testing::fake_instance_types_assorted();
  types.resize(10);
  Env env(std::move(types));
  env.node_pool().requirements.add(req(k_it, Operator::exists, {}, 11));
  const auto pod = env.pod();
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the requirement "
          "after truncation",
          "[karpenter][instance-selection][minvalues]")
{
  Env env({mv_type("instance-type-1", 1, 0.52), mv_type("instance-type-2", 4, 1.0)});
  env.options.max_instance_types = 1;
  env.node_pool().requirements.add(req(k_it, Operator::in, {"instance-type-1", "instance-type-2"}, 2));
  const auto pods = env.pods(cpu_mem(900, 966367641), 2);
  const auto round = env.provision(pods);
  CHECK_FALSE(env.scheduled(pods[0]));
  CHECK_FALSE(env.scheduled(pods[1]));
  REQUIRE(round.result.errors.size() == 2);
  CHECK_THAT(round.result.errors[0].reason, Catch::Contains("minValues"));
}

// --- Launch decision (aws provider instance.go / filter.go) -------------------------------------

TEST_CASE("launch prefers spot, then the lowest interruption band, then the lowest price", "[karpenter][launch]")
{
  auto a = testing::fake_instance_type("a");
  a.offerings = {testing::fake_offering("z1", "spot", 0.30), testing::fake_offering("z2", "spot", 0.20),
                 testing::fake_offering("z1", "on-demand", 0.80)};
  a.offerings[0].interruption_band = 0;
  a.offerings[1].interruption_band = 3;
  catalog::finalize_requirements(a);
  auto b = testing::fake_instance_type("b");
  b.offerings = {testing::fake_offering("z2", "spot", 0.25), testing::fake_offering("z2", "on-demand", 0.50)};
  b.offerings[0].interruption_band = 0;
  catalog::finalize_requirements(b);
  model::Requirements reqs;
  reqs.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  const auto d = choose_launch(reqs, {}, {&a, &b}, LaunchOptions{});
  REQUIRE(d.ok);
  CHECK(d.capacity_type == "spot");
  // band 0 pools: a/z1 at 0.30 and b/z2 at 0.25 -> b/z2
  CHECK(d.instance_type->name == "b");
  CHECK(d.zone == "z2");
  CHECK(d.price_per_hour == Approx(0.25));
}

TEST_CASE("launch drops spot offerings pricier than the cheapest on-demand one", "[karpenter][launch]")
{
  auto a = testing::fake_instance_type("a");
  a.offerings = {testing::fake_offering("z1", "spot", 0.90), testing::fake_offering("z1", "on-demand", 0.50)};
  catalog::finalize_requirements(a);
  model::Requirements reqs;
  reqs.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  const auto d = choose_launch(reqs, {}, {&a}, LaunchOptions{});
  REQUIRE(d.ok);
  CHECK(d.capacity_type == "on-demand");
  CHECK(d.price_per_hour == Approx(0.50));
}

TEST_CASE("launch falls back to on-demand when spot offerings are unavailable (ICE)", "[karpenter][launch]")
{
  auto a = testing::fake_instance_type("a");
  catalog::finalize_requirements(a);
  model::Requirements reqs;
  reqs.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  reqs.add(req(k_zone, Operator::in, {"test-zone-2", "test-zone-3"}));
  LaunchOptions opts;
  opts.offering_available = [](const catalog::InstanceType&, const catalog::Offering& o) { return o.capacity_type != "spot"; };
  const auto d = choose_launch(reqs, {}, {&a}, opts);
  REQUIRE(d.ok);
  CHECK(d.capacity_type == "on-demand");
  CHECK(d.zone == "test-zone-2");
  opts.offering_available = [](const catalog::InstanceType&, const catalog::Offering&) { return false; };
  const auto none = choose_launch(reqs, {}, {&a}, opts);
  CHECK_FALSE(none.ok);
  CHECK_THAT(none.error, Catch::Contains("insufficient capacity"));
}

TEST_CASE("launch drops exotic instance types while a generic one remains", "[karpenter][launch]")
{
  auto gpu = testing::fake_instance_type("gpu");
  gpu.exotic = true;
  for (auto& o : gpu.offerings) {
    o.price_per_hour = 0.1;
  }
  auto plain = testing::fake_instance_type("plain");
  model::Requirements reqs;
  const auto d = choose_launch(reqs, {}, {&gpu, &plain}, LaunchOptions{});
  REQUIRE(d.ok);
  CHECK(d.instance_type->name == "plain");
  const auto only = choose_launch(reqs, {}, {&gpu}, LaunchOptions{});
  REQUIRE(only.ok);
  CHECK(only.instance_type->name == "gpu");
}

TEST_CASE("a LaunchMemo answers exactly as a fresh launch decision", "[karpenter][launch]")
{
  // fake.InstanceTypes(12) with a spot and an on-demand offering per zone, prices and
  // interruption bands varied, and one exotic type.
  auto types = testing::fake_instance_types(12);
  for (std::size_t i = 0; i < types.size(); ++i) {
    auto& t = types[i];
    t.exotic = i == 5;
    t.offerings.clear();
    for (const char* zone : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
      const double base = 0.1 * static_cast<double>(i + 1) + (zone[10] - '1') * 0.01;
      t.offerings.push_back(testing::fake_offering(zone, "on-demand", base));
      auto spot = testing::fake_offering(zone, "spot", base * (i % 4 == 0 ? 1.5 : 0.4));
      spot.interruption_band = static_cast<int>((i + static_cast<std::size_t>(zone[10])) % 3);
      t.offerings.push_back(spot);
    }
    catalog::finalize_requirements(t);
  }
  std::vector<model::Requirements> reqs(3);
  reqs[0].add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  reqs[1].add(req(k_ct, Operator::in, {"on-demand"}));
  reqs[2].add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  reqs[2].add(req(k_zone, Operator::in, {"test-zone-2"}));
  // Availability changes with its version: version v makes spot in zone (v % 3) unavailable.
  std::uint64_t version = 1;
  const auto available = [&version](const catalog::InstanceType&, const catalog::Offering& o) {
    return !(o.capacity_type == "spot" && static_cast<std::uint64_t>(o.zone.back() - '1') == version % 3);
  };
  LaunchMemo memo;
  Rng rng(7);
  int compared = 0;
  for (int step = 0; step < 2000; ++step) {
    // A cheapest-first suffix or a random subset of the types.
    std::vector<const catalog::InstanceType*> options;
    const auto first = rng.below(types.size());
    for (std::size_t i = first; i < types.size(); ++i) {
      if (rng.below(4) != 0 || step % 2 == 0) {
        options.push_back(&types[i]);
      }
    }
    if (options.empty()) {
      continue;
    }
    model::Resources requests;
    requests[model::k_cpu] = static_cast<std::int64_t>(rng.below(6000));
    requests[model::k_memory] = static_cast<std::int64_t>(rng.below(8)) * k_gi;
    if (rng.below(50) == 0) {
      ++version;
    }
    LaunchOptions opts;
    opts.max_instance_types = rng.below(5) == 0 ? 3 : 60;
    if (rng.below(3) == 0) {
      opts.offering_available = available;
      opts.availability_version = version;
    }
    const auto& r = reqs[rng.below(reqs.size())];
    const bool compatible = rng.below(2) == 0;
    const LaunchDecision fresh = choose_launch(r, requests, options, opts, compatible);
    opts.memo = &memo;
    const LaunchDecision remembered = choose_launch(r, requests, options, opts, compatible);
    REQUIRE(remembered.ok == fresh.ok);
    REQUIRE(remembered.instance_type == fresh.instance_type);
    REQUIRE(remembered.zone == fresh.zone);
    REQUIRE(remembered.capacity_type == fresh.capacity_type);
    REQUIRE(remembered.price_per_hour == fresh.price_per_hour);
    REQUIRE(remembered.candidates == fresh.candidates);
    REQUIRE(remembered.error == fresh.error);
    ++compared;
  }
  CHECK(compared > 1900);
  // Decisions repeat (few requirement sets, suffix option lists); many requests leave types out.
  CHECK(memo.hits() > 300);
}

TEST_CASE("solve skips offerings the ICE cache marks unavailable", "[karpenter][launch]")
{
  Env env;
  env.node_pool().requirements.add(req(k_ct, Operator::in, {"spot"}));
  env.available = [](const catalog::InstanceType&, const catalog::Offering& o) { return o.zone != "test-zone-1"; };
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-2");
  CHECK(env.label(pod, k_ct) == "spot");
}

TEST_CASE("solve is deterministic and identical with or without a cache", "[karpenter][solve]")
{
  Env env(testing::fake_instance_types(20));
  env.node_pool();
  PodOptions o = cpu_mem(700, 900 * 1024 * 1024);
  o.labels = {{"app", "x"}};
  o.spread = {spread(k_zone, {{"app", "x"}})};
  env.pods(o, 30);
  PodOptions anti = cpu_mem(300, 0);
  anti.labels = {{"app", "y"}};
  anti.pod_anti_requirements = {affinity_term(k_host, {{"app", "y"}})};
  env.pods(anti, 7);
  const auto a = solve_cached_and_fresh(env);
  CHECK(a.errors.empty());
  CHECK(a.claims.size() >= 7);
}

TEST_CASE("a cached solve follows nodes that change where they stand in the node order", "[karpenter][solve]")
{
  // A node that is not Ready gains a taint, a Ready one loses room, a deleting one goes: none
  // joins, leaves or moves in the existing-node order, so the cache redoes their entries in place.
  Env env(testing::fake_instance_types(20));
  env.node_pool();
  model::Resources alloc = env.types[3].allocatable();
  const auto registered = env.node("a-registered", {}, alloc, cluster::NodeLifecycle::registered);
  const auto ready = env.node("b-ready", {}, alloc);
  const auto deleting = env.node("c-deleting", {}, alloc, cluster::NodeLifecycle::deleting);
  const auto pod = env.pod(cpu_mem(500, 0));
  const auto placed = [&env, pod](cluster::NodeIndex expected) {
    const auto cached = solve_cached_and_fresh(env);
    if (expected == cluster::k_none) {
      CHECK(cached.existing.empty());
      CHECK(cached.claims.size() == 1);
      return;
    }
    REQUIRE(cached.existing.size() == 1);
    CHECK(cached.existing.front().pod == pod);
    CHECK(cached.existing.front().node == expected);
  };
  placed(ready); // initialized nodes first
  env.cluster.node_mut(ready).allocatable = model::Resources{};
  placed(registered);
  env.cluster.node_mut(registered).taints.push_back({"dedicated", "x", model::TaintEffect::no_schedule});
  placed(cluster::k_none);
  env.cluster.node_mut(deleting).lifecycle = cluster::NodeLifecycle::terminated;
  env.cluster.node_mut(ready).allocatable = alloc;
  placed(ready);
}

TEST_CASE("a cached solve's topology counts follow bindings and new and gone nodes, not DaemonSet pods",
          "[karpenter][solve]")
{
  // The cache keeps a spread group's counts per node between solves and brings them up to date
  // from the cluster's binding and node logs; the fresh solve (solve_cached_and_fresh) counts
  // every running pod. DaemonSet pods are bound (and logged) but are not a node's pods.
  Env env(testing::fake_instance_types(20));
  env.node_pool();
  const model::Labels app{{"app", "x"}};
  PodOptions member = cpu_mem(100, 0);
  member.labels = app;
  PodOptions spreading = member;
  spreading.spread = {spread(k_zone, app)};
  const model::Resources alloc = env.types[3].allocatable();
  const auto n1 = env.node("n1", {{k_zone, "test-zone-1"}}, alloc);
  const auto n2 = env.node("n2", {{k_zone, "test-zone-2"}}, alloc);
  const auto n3 = env.node("n3", {{k_zone, "test-zone-3"}}, alloc);
  const auto n5 = env.node("n5", {{k_zone, "test-zone-1"}}, alloc);
  env.bind(env.pod(member), n1);
  env.bind(env.pod(member), n2);
  const auto on_n3 = env.pod(member);
  env.bind(on_n3, n3);
  env.bind(env.pod(member), n5);
  const auto pending = env.pod(spreading);
  // Counts (2, 1, 1): the pod goes to zone 2 or 3.
  const auto first = solve_cached_and_fresh(env);
  REQUIRE(first.existing.size() == 1);
  CHECK(first.existing.front().node != n1);
  CHECK(first.existing.front().node != n5);
  // A new node in zone 2 with a member, and n5 terminated with its member still bound: counts
  // (1, 2, 1), zone 1 ((2, 2, 1) with n5's member: zone 3).
  const auto n4 = env.node("n4", {{k_zone, "test-zone-2"}}, alloc);
  env.bind(env.pod(member), n4);
  env.cluster.mark_terminated(n5, env.now);
  const auto second = solve_cached_and_fresh(env);
  REQUIRE(second.existing.size() == 1);
  CHECK(second.existing.front().pod == pending);
  CHECK(second.existing.front().node == n1);
  // A DaemonSet pod of the app on n3 and n3's member gone: counts (1, 2, 0), zone 3 ((1, 2, 1)
  // with the DaemonSet pod: zone 1).
  env.bind(env.daemon_pod(member), n3);
  env.remove(on_n3);
  const auto third = solve_cached_and_fresh(env);
  REQUIRE(third.existing.size() == 1);
  CHECK(third.existing.front().node == n3);
}

TEST_CASE("a cached solve counts a NodePool's node without an instance type at its allocatable now",
          "[karpenter][solve]")
{
  // Such a node counts against its pool's limits at its allocatable; a change to it in place
  // (the node keeps its place in the order) shows in the next solve over the cached snapshot.
  Env env(testing::fake_instance_types(20));
  auto& pool = env.node_pool();
  (*pool.limits)[model::k_cpu] = 12000;
  model::Resources alloc;
  alloc[model::k_cpu] = 4000;
  alloc[model::k_memory] = 16LL * 1024 * 1024 * 1024;
  alloc[model::k_pods] = 110;
  const auto owned = env.node("owned", {}, alloc, cluster::NodeLifecycle::registered, 0);
  env.cluster.node_mut(owned).taints.push_back({"dedicated", "x", model::TaintEffect::no_schedule});
  env.pods(cpu_mem(1000, 0), 6);
  CHECK(solve_cached_and_fresh(env).errors.empty());
  env.cluster.node_mut(owned).allocatable[model::k_cpu] = 11500; // half a CPU of the limit left
  const auto limited = solve_cached_and_fresh(env);
  CHECK_FALSE(limited.errors.empty());
}

TEST_CASE("sketched NodeClaims carry the full claims' options, pods and capacity-type requirement only",
          "[karpenter][solve]")
{
  Env env(testing::fake_instance_types(20));
  env.node_pool().requirements.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
  // Two zones, so at least two NodeClaims.
  PodOptions big = cpu_mem(3000, 0);
  big.node_requirements = {req(k_zone, Operator::in, {"test-zone-1"})};
  env.pods(big, 5);
  PodOptions small = cpu_mem(200, 64 * 1024 * 1024);
  small.node_requirements = {req(k_zone, Operator::in, {"test-zone-2"})};
  env.pods(small, 9);
  SolveInput in = env.input();
  const auto full = solve(in);
  in.options.sketch_claims = true;
  const auto sketch = solve(in);
  REQUIRE(full.claims.size() >= 2);
  REQUIRE(sketch.claims.size() == full.claims.size());
  CHECK(sketch.errors.size() == full.errors.size());
  for (std::size_t i = 0; i < full.claims.size(); ++i) {
    const auto& f = full.claims[i];
    const auto& s = sketch.claims[i];
    CHECK_FALSE(f.sketch);
    CHECK(s.sketch);
    CHECK(s.pods == f.pods);
    CHECK(s.instance_types == f.instance_types);
    CHECK(s.requests == f.requests);
    CHECK(s.labels.empty());
    REQUIRE(s.requirements.items().size() == 1);
    const auto* ct = f.requirements.find(k_ct);
    REQUIRE(ct != nullptr);
    CHECK(s.requirements.items().front() == *ct);
    CHECK(f.requirements.items().size() > 1);
  }
}
