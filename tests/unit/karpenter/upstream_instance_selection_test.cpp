// Further cases ported from Karpenter's instance selection suite, kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/instance_selection_test.go (Describe "Instance Type
// Selection"): fake.InstanceTypesAssorted(), the suite's NodePool (spot/on-demand, arm64/amd64)
// and the upstream expectations. supportedInstanceTypes(CreateCalls[0]) is the NodeClaim's
// instance-type options (NewNodeClaim::instance_types). Each case names its Describe/Context
// path and It() text.

#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

// PriceFromResources of the smallest assorted type (1 CPU, 1Gi): the catalog's minimum price.
constexpr double k_min_price = 0.1 + 0.1 * 1.073741824;

// The suite's NodePool (BeforeEach), or, with `replace`, one whose requirements were replaced
// (nodePool.Spec.Template.Spec.Requirements = {...}).
model::NodePool& selection_pool(Env& env, const std::vector<Requirement>& replace = {})
{
  auto& np = env.node_pool();
  if (replace.empty()) {
    np.requirements.add(req(k_ct, Operator::in, {"spot", "on-demand"}));
    np.requirements.add(req(k_arch, Operator::in, {"arm64", "amd64"}));
  }
  for (const auto& r : replace) {
    np.requirements.add(r);
  }
  return np;
}

// The cheapest-instance cases: one pod with `pod_reqs`; it schedules at the catalog's minimum
// price on a single NodeClaim, whose options are returned.
std::vector<const catalog::InstanceType*> cheapest(Env& env, const std::vector<Requirement>& pod_reqs)
{
  PodOptions o;
  o.node_requirements = pod_reqs;
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.node_of(pod).price_per_hour == Approx(k_min_price));
  REQUIRE(round.result.claims.size() == 1);
  REQUIRE_FALSE(round.result.claims[0].instance_types.empty());
  return round.result.claims[0].instance_types;
}

// ExpectInstancesWithLabel for arch and OS (instance type requirements).
void expect_label(const std::vector<const catalog::InstanceType*>& types, const std::string& key,
                  const std::string& value)
{
  for (const auto* it : types) {
    const auto* r = it->requirements.find(key);
    INFO(it->name);
    REQUIRE(r != nullptr);
    CHECK(r->has(value));
  }
}

// ExpectInstancesWithLabel for the zone: an offering in that zone.
void expect_zone(const std::vector<const catalog::InstanceType*>& types, const std::string& zone)
{
  for (const auto* it : types) {
    INFO(it->name);
    CHECK(std::any_of(it->offerings.begin(), it->offerings.end(),
                      [&](const catalog::Offering& o) { return o.zone == zone; }));
  }
}

// ExpectInstancesWithLabel for the capacity type, ExpectInstancesWithOffering with a zone.
void expect_offering(const std::vector<const catalog::InstanceType*>& types, const std::string& ct,
                     const std::string& zone = "")
{
  for (const auto* it : types) {
    INFO(it->name);
    CHECK(std::any_of(it->offerings.begin(), it->offerings.end(), [&](const catalog::Offering& o) {
      return o.capacity_type == ct && (zone.empty() || o.zone == zone);
    }));
  }
}

PodOptions cpu_mem(std::int64_t cpu_milli, std::int64_t memory)
{
  PodOptions o;
  o.cpu_milli = cpu_milli;
  o.memory = memory;
  return o;
}

// 0.9 CPU / 0.9Gi, the MinValues cases' pods.
PodOptions mv_pod()
{
  return cpu_mem(900, 966367641);
}

// The MinValues cases' types: arm64/linux, cpu CPUs and Gi, one spot offering in test-zone-1-spot.
catalog::InstanceType mv_type(const std::string& name, std::int64_t cpu, double price,
                              std::vector<model::Requirement> extra = {}, const std::string& arch = "arm64")
{
  testing::FakeTypeOptions o;
  o.cpu_milli = cpu * 1000;
  o.memory = cpu * k_gi;
  o.arch = arch;
  o.os = {"linux"};
  o.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1-spot", "spot", price)};
  o.extra_requirements = std::move(extra);
  return testing::fake_instance_type(name, o);
}

const std::string k_generation = "karpenter/numerical-value";

catalog::InstanceType gen_type(const std::string& name, std::int64_t cpu, double price, const std::string& gen)
{
  return mv_type(name, cpu, price, {req(k_generation, Operator::in, {gen})});
}

// Two MinValues pods that only fit one node together on the larger type: they must land on
// different nodes, and the first NodeClaim keeps at least two options.
void expect_min_values_split(Env& env, const PodOptions& o)
{
  const auto pods = env.pods(o, 2);
  const auto round = env.provision(pods);
  REQUIRE(env.scheduled(pods[0]));
  REQUIRE(env.scheduled(pods[1]));
  CHECK(env.node_of(pods[0]).name != env.node_of(pods[1]).name);
  REQUIRE_FALSE(round.result.claims.empty());
  CHECK(round.result.claims[0].instance_types.size() >= 2);
}

} // namespace

// --- Cheapest instances -------------------------------------------------------------------------

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (pod "
          "arch = amd64)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  expect_label(cheapest(env, {req(k_arch, Operator::in, {"amd64"})}), k_arch, "amd64");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "arch = amd64)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_arch, Operator::in, {"amd64"})});
  expect_label(cheapest(env, {}), k_arch, "amd64");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "arch = arm64)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_arch, Operator::in, {"arm64"})});
  expect_label(cheapest(env, {}), k_arch, "arm64");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (pod "
          "os = windows)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  expect_label(cheapest(env, {req(k_os, Operator::in, {"windows"})}), k_os, "windows");
}

// Upstream lists this It() twice with the same body.
TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (pod "
          "os = linux)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  expect_label(cheapest(env, {req(k_os, Operator::in, {"linux"})}), k_os, "linux");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "zone = test-zone-2)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_zone, Operator::in, {"test-zone-2"})});
  expect_zone(cheapest(env, {}), "test-zone-2");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (pod "
          "zone = test-zone-2)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  expect_zone(cheapest(env, {req(k_zone, Operator::in, {"test-zone-2"})}), "test-zone-2");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "ct = spot)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_ct, Operator::in, {"spot"})});
  expect_offering(cheapest(env, {}), "spot");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (pod "
          "ct = spot)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  expect_offering(cheapest(env, {req(k_ct, Operator::in, {"spot"})}), "spot");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "ct = ondemand, prov zone = test-zone-1)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_ct, Operator::in, {"on-demand"}), req(k_zone, Operator::in, {"test-zone-1"})});
  expect_offering(cheapest(env, {}), "on-demand", "test-zone-1");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "ct = spot, pod zone = test-zone-2)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_ct, Operator::in, {"spot"})});
  expect_offering(cheapest(env, {req(k_zone, Operator::in, {"test-zone-2"})}), "spot", "test-zone-2");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "ct = ondemand/test-zone-1/arm64/windows)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_arch, Operator::in, {"arm64"}), req(k_os, Operator::in, {"windows"}),
                       req(k_ct, Operator::in, {"on-demand"}), req(k_zone, Operator::in, {"test-zone-1"})});
  const auto types = cheapest(env, {});
  expect_offering(types, "on-demand", "test-zone-1");
  expect_label(types, k_os, "windows");
  expect_label(types, k_arch, "arm64");
}

// (The NodePool holds amd64/linux and the pod spot/test-zone-2, the reverse of the It() text.)
TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (prov "
          "= spot/test-zone-2, pod = amd64/linux)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env, {req(k_arch, Operator::in, {"amd64"}), req(k_os, Operator::in, {"linux"})});
  const auto types = cheapest(env, {req(k_ct, Operator::in, {"spot"}), req(k_zone, Operator::in, {"test-zone-2"})});
  expect_offering(types, "spot", "test-zone-2");
  expect_label(types, k_os, "linux");
  expect_label(types, k_arch, "amd64");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should schedule on one of the cheapest instances (pod "
          "ct = spot/test-zone-2/amd64/linux)",
          "[karpenter][upstream][instance-selection]")
{
  Env env(testing::fake_instance_types_assorted());
  selection_pool(env);
  const auto types = cheapest(env, {req(k_arch, Operator::in, {"amd64"}), req(k_os, Operator::in, {"linux"}),
                                    req(k_ct, Operator::in, {"spot"}), req(k_zone, Operator::in, {"test-zone-2"})});
  expect_offering(types, "spot", "test-zone-2");
  expect_label(types, k_os, "linux");
  expect_label(types, k_arch, "amd64");
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should not schedule if no instance type matches "
          "selector (pod arch = arm)",
          "[karpenter][upstream][instance-selection]")
{
  auto types = testing::fake_instance_types_assorted();
  std::erase_if(types, [](const catalog::InstanceType& it) { return it.labels.at(k_arch) == "arm64"; });
  REQUIRE_FALSE(types.empty());
  Env env(std::move(types));
  selection_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_arch, Operator::in, {"arm64"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("instance_selection_test.go Instance Type Selection: should not schedule if no instance type matches "
          "selector (pod arch = arm zone=test-zone-2)",
          "[karpenter][upstream][instance-selection]")
{
  auto types = testing::fake_instance_types_assorted();
  std::erase_if(types, [](const catalog::InstanceType& it) {
    return it.offerings[0].zone == "test-zone-2" && it.labels.at(k_arch) == "arm64";
  });
  REQUIRE_FALSE(types.empty());
  Env env(std::move(types));
  selection_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_arch, Operator::in, {"arm64"}), req(k_zone, Operator::in, {"test-zone-2"})};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

// --- MinValues ----------------------------------------------------------------------------------

namespace {

// "scheduler should fail if the minValues in Gt operator is not satisfied": only
// instance-type-2 is Gt 2, the NodePool wants two values of the key.
SolveResult gt_min_values_unsatisfied(Env& env)
{
  env.node_pool().requirements.add(req(k_generation, Operator::exists, {}, 2));
  PodOptions o = mv_pod();
  o.node_requirements = {req(k_generation, Operator::gt, {"2"})};
  const auto pods = env.pods(o, 2);
  const auto round = env.provision(pods);
  CHECK_FALSE(env.scheduled(pods[0]));
  CHECK_FALSE(env.scheduled(pods[1]));
  REQUIRE(round.result.errors.size() == 2);
  return round.result;
}

} // namespace

TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: scheduler should fail if the minValues in Gt "
          "operator is not satisfied",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({gen_type("instance-type-1", 1, 0.52, "2"), gen_type("instance-type-2", 4, 1.0, "3")});
  for (const auto& e : gt_min_values_unsatisfied(env).errors) {
    CHECK_THAT(e.reason, Catch::Contains("minValues requirement is not met for label(s)")
                             && Catch::Contains("karpenter/numerical-value"));
  }
}

// The error text as upstream prints it: serrors.Wrap(..., "label(s)", keys).
TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: scheduler should fail if the minValues in Gt "
          "operator is not satisfied (upstream error text)",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({gen_type("instance-type-1", 1, 0.52, "2"), gen_type("instance-type-2", 4, 1.0, "3")});
  for (const auto& e : gt_min_values_unsatisfied(env).errors) {
    CHECK_THAT(e.reason,
               Catch::Contains("minValues requirement is not met for label(s) (label(s)=[karpenter/numerical-value])"));
  }
}

TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: should schedule respecting the minValues in "
          "Lt operator",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({gen_type("instance-type-1", 1, 0.52, "2"), gen_type("instance-type-2", 2, 1.0, "3"),
           gen_type("instance-type-3", 4, 1.2, "4")});
  env.node_pool().requirements.add(req(k_generation, Operator::lt, {"4"}, 2));
  expect_min_values_split(env, mv_pod());
}

TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: scheduler should fail if the minValues in Lt "
          "operator is not satisfied",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({gen_type("instance-type-1", 2, 0.52, "2"), gen_type("instance-type-2", 4, 1.2, "4")});
  env.node_pool().requirements.add(req(k_generation, Operator::lt, {"4"}, 2));
  const auto pods = env.pods(mv_pod(), 2);
  env.provision(pods);
  CHECK_FALSE(env.scheduled(pods[0]));
  CHECK_FALSE(env.scheduled(pods[1]));
}

TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: should schedule considering the max of the "
          "minValues of In and NotIn operators in the instance-type requirements",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({mv_type("instance-type-1", 1, 0.52), mv_type("instance-type-2", 2, 1.0),
           mv_type("instance-type-3", 4, 1.2)});
  auto& np = env.node_pool();
  np.requirements.add(req(k_it, Operator::in, {"instance-type-1", "instance-type-2", "instance-type-3"}, 1));
  np.requirements.add(req(k_it, Operator::not_in, {"instance-type-3"}, 2));
  expect_min_values_split(env, mv_pod());
}

TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: should schedule considering the max of the "
          "minValues of Gt and Lt operators.",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({gen_type("instance-type-1", 1, 0.52, "2"), gen_type("instance-type-2", 1, 1.0, "3"),
           gen_type("instance-type-3", 4, 1.2, "4"), gen_type("instance-type-4", 4, 1.2, "5")});
  auto& np = env.node_pool();
  np.requirements.add(req(k_generation, Operator::gt, {"2"}, 1));
  np.requirements.add(req(k_generation, Operator::lt, {"5"}, 2));
  expect_min_values_split(env, mv_pod());
}

TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: should schedule and pick the max of minValues "
          "of InstanceTypes if multiple operators are used for the same requirement.",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({mv_type("instance-type-1", 1, 0.52), mv_type("instance-type-2", 4, 1.0)});
  auto& np = env.node_pool();
  np.requirements.add(req(k_it, Operator::exists, {}, 1));
  np.requirements.add(req(k_it, Operator::in, {"instance-type-1", "instance-type-2"}, 2));
  expect_min_values_split(env, mv_pod());
}

TEST_CASE("instance_selection_test.go Instance Type Selection/MinValues: should schedule and respect multiple "
          "requirement keys with minValues",
          "[karpenter][upstream][instance-selection][minvalues]")
{
  Env env({mv_type("instance-type-1", 1, 0.52), mv_type("instance-type-2", 4, 1.0, {}, "amd64")});
  auto& np = env.node_pool();
  np.requirements.add(req(k_arch, Operator::exists, {}, 2));
  np.requirements.add(req(k_it, Operator::in, {"instance-type-1", "instance-type-2"}, 1));
  expect_min_values_split(env, mv_pod());
}
