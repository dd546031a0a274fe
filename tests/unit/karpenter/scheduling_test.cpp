// Behaviour cases ported from Karpenter's scheduling suite:
// kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/suite_test.go
// (Describe "Scheduling"), with the fake default catalog and the upstream expectations.

#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

// The suite's NodePool: capacity types spot, on-demand and reserved.
model::NodePool& scheduling_pool(Env& env, const std::string& name = "default")
{
  auto& np = env.node_pool(name);
  np.requirements.add(req(k_ct, Operator::in, {"spot", "on-demand", "reserved"}));
  return np;
}

} // namespace

// --- Custom Constraints / NodePool with Labels --------------------------------------------------

TEST_CASE("should schedule unconstrained pods that don't have matching node selectors (NodePool with Labels)",
          "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).template_labels = {{"test-key", "test-value"}};
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "test-key") == "test-value");
}

TEST_CASE("should not schedule pods that have conflicting node selectors", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).template_labels = {{"test-key", "test-value"}};
  PodOptions o;
  o.node_selector = {{"test-key", "different-value"}};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  REQUIRE(round.result.errors.size() == 1);
  CHECK_THAT(round.result.errors[0].reason, Catch::Contains("incompatible with nodepool \"default\""));
}

TEST_CASE("should not schedule pods that have node selectors with undefined key", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_selector = {{"test-key", "test-value"}};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  REQUIRE(round.result.errors.size() == 1);
  CHECK_THAT(round.result.errors[0].reason, Catch::Contains("label \"test-key\" does not have known values"));
}

TEST_CASE("should schedule pods that have matching requirements", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).template_labels = {{"test-key", "test-value"}};
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::in, {"test-value", "another-value"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "test-key") == "test-value");
}

TEST_CASE("should not schedule pods that have conflicting requirements", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).template_labels = {{"test-key", "test-value"}};
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::in, {"another-value"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

// --- Well Known Labels --------------------------------------------------------------------------

TEST_CASE("should use NodePool constraints", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req(k_zone, Operator::in, {"test-zone-2"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-2");
}

TEST_CASE("should use node selectors", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"}));
  PodOptions o;
  o.node_selector = {{k_zone, "test-zone-2"}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-2");
}

TEST_CASE("should not schedule nodes with a hostname selector", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_selector = {{k_host, "red-node"}};
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("should not schedule if node selector outside of NodePool constraints", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req(k_zone, Operator::in, {"test-zone-1"}));
  PodOptions o;
  o.node_selector = {{k_zone, "test-zone-2"}};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule compatible requirements with Operator=Gt", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("integer", Operator::gt, {"8"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "integer") == "16");
}

TEST_CASE("should schedule compatible requirements with Operator=Lt", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("integer", Operator::lt, {"8"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "integer") == "2");
}

TEST_CASE("should schedule compatible requirements with Operator=Gte", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("integer", Operator::gte, {"16"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "integer") == "16");
}

TEST_CASE("should schedule compatible requirements with Operator=Lte", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("integer", Operator::lte, {"2"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "integer") == "2");
}

TEST_CASE("should schedule compatible requirements with Operator=NotIn", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::not_in, {"test-zone-1", "test-zone-2", "unknown"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
}

TEST_CASE("should not schedule incompatible preferences and requirements with Operator=NotIn",
          "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::not_in, {"test-zone-1", "test-zone-2", "test-zone-3", "unknown"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule compatible preferences and requirements with Operator=In", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2", "test-zone-3", "unknown"})};
  o.node_preferences = {req(k_zone, Operator::in, {"test-zone-2", "unknown"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-2");
}

TEST_CASE("should schedule incompatible preferences and requirements with Operator=In", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2", "test-zone-3", "unknown"})};
  o.node_preferences = {req(k_zone, Operator::in, {"unknown"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK(env.scheduled(pod));
}

TEST_CASE("should schedule compatible preferences and requirements with Operator=NotIn", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2", "test-zone-3", "unknown"})};
  o.node_preferences = {req(k_zone, Operator::not_in, {"test-zone-1", "test-zone-3"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-2");
}

TEST_CASE("should combine multidimensional node selectors, preferences and requirements", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_selector = {{k_zone, "test-zone-3"}, {k_it, "arm-instance-type"}};
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-3"}),
                         req(k_it, Operator::in, {"default-instance-type", "arm-instance-type"})};
  o.node_preferences = {req(k_zone, Operator::not_in, {"unknown"}), req(k_it, Operator::not_in, {"unknown"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
  CHECK(env.label(pod, k_it) == "arm-instance-type");
}

TEST_CASE("should not schedule pods that have node selectors with restricted domains", "[karpenter][scheduling]")
{
  // RestrictedLabelDomains: karpenter.sh and, with the AWS provider, karpenter.k8s.aws (and
  // their subdomains); the AWS provider's well-known labels in that domain stay allowed.
  for (const std::string key : {"karpenter.sh/test", "karpenter.k8s.aws/test", "sub.karpenter.k8s.aws/test",
                                "karpenter.k8s.aws/ec2nodeclass"}) {
    CAPTURE(key);
    Env env;
    scheduling_pool(env);
    PodOptions o;
    o.node_requirements = {req(key, Operator::in, {"test"})};
    const auto pod = env.pod(o);
    const auto round = env.provision(pod);
    CHECK_FALSE(env.scheduled(pod));
    REQUIRE(round.result.errors.size() == 1);
    CHECK_THAT(round.result.errors[0].reason, Catch::Contains("not allowed"));
  }
}

TEST_CASE("instance tenancy: a well-known label no instance type defines, set on every launched node",
          "[karpenter][scheduling]")
{
  // aws:pkg/apis/v1/labels.go registers karpenter.k8s.aws/instance-tenancy as well known with the
  // values default and dedicated; the instance provider launches default tenancy unless the
  // claim allows only dedicated (getTenancyType), and the cloud provider labels the node with it.
  const std::string k_tenancy(model::labels::k_instance_tenancy);
  struct Case
  {
    std::vector<std::string> values; // empty: the pod does not ask
    std::string label;               // the node's tenancy; empty: not scheduled
  };
  for (const auto& c : std::vector<Case>{{{}, "default"},
                                         {{"dedicated"}, "dedicated"},
                                         {{"default", "dedicated"}, "default"},
                                         {{"shared"}, ""}}) {
    CAPTURE(c.values);
    Env env;
    scheduling_pool(env);
    PodOptions o;
    if (!c.values.empty()) {
      o.node_requirements = {req(k_tenancy, Operator::in, c.values)};
    }
    const auto pod = env.pod(o);
    const auto round = env.provision(pod);
    if (c.label.empty()) {
      CHECK_FALSE(env.scheduled(pod));
      REQUIRE(round.result.errors.size() == 1);
      CHECK_THAT(round.result.errors[0].reason, Catch::Contains("no valid values found for " + k_tenancy));
    } else {
      REQUIRE(env.scheduled(pod));
      CHECK(env.label(pod, k_tenancy) == c.label);
    }
  }
}

TEST_CASE("should schedule pods that have node selectors with label in the kubernetes domains",
          "[karpenter][scheduling]")
{
  Env env;
  auto& np = scheduling_pool(env);
  np.requirements.add(req("kubernetes.io/test", Operator::in, {"test-value"}));
  np.requirements.add(req("k8s.io/test", Operator::in, {"test-value"}));
  const auto pod = env.pod();
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "kubernetes.io/test") == "test-value");
  CHECK(env.label(pod, "k8s.io/test") == "test-value");
}

TEST_CASE("should schedule pods that have node selectors with label in wellknown label list", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  std::vector<cluster::PodIndex> pods;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{k_zone, "test-zone-1"},
                                                                            {k_it, "default-instance-type"},
                                                                            {k_arch, "arm64"},
                                                                            {std::string(model::labels::k_os), "linux"},
                                                                            {k_ct, "spot"}}) {
    PodOptions o;
    o.node_selector = {{k, v}};
    pods.push_back(env.pod(o));
  }
  env.provision(pods);
  for (const auto p : pods) {
    CHECK(env.scheduled(p));
  }
}

// --- Scheduling Logic ---------------------------------------------------------------------------

TEST_CASE("should not schedule pods that have node selectors with In operator and undefined key",
          "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::in, {"test-value"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule pods that have node selectors with NotIn operator and undefined key",
          "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::not_in, {"test-value"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "test-key") != "test-value");
}

TEST_CASE("should not schedule pods that have node selectors with Exists operator and undefined key",
          "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::exists)};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule pods that with DoesNotExists operator and undefined key", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::does_not_exist)};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.node_of(pod).labels.count("test-key") == 0);
}

TEST_CASE("should schedule the pod with Exists operator and defined key", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("test-key", Operator::in, {"test-value"}));
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::exists)};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK(env.scheduled(pod));
}

TEST_CASE("should not schedule the pod with DoesNotExists operator and defined key", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("test-key", Operator::in, {"test-value"}));
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::does_not_exist)};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should schedule pods that have node selectors with different value and NotIn operator",
          "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("test-key", Operator::in, {"test-value"}));
  PodOptions o;
  o.node_requirements = {req("test-key", Operator::not_in, {"another-value"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, "test-key") == "test-value");
}

TEST_CASE("should schedule compatible pods to the same node", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("test-key", Operator::in, {"test-value", "another-value"}));
  PodOptions a;
  a.node_requirements = {req("test-key", Operator::in, {"test-value"})};
  PodOptions b;
  b.node_requirements = {req("test-key", Operator::not_in, {"another-value"})};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.label(p1, "test-key") == "test-value");
  CHECK(env.label(p2, "test-key") == "test-value");
  CHECK(env.node_of(p1).name == env.node_of(p2).name);
}

TEST_CASE("should schedule incompatible pods to the different node", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req("test-key", Operator::in, {"test-value", "another-value"}));
  PodOptions a;
  a.node_requirements = {req("test-key", Operator::in, {"test-value"})};
  PodOptions b;
  b.node_requirements = {req("test-key", Operator::in, {"another-value"})};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.label(p1, "test-key") == "test-value");
  CHECK(env.label(p2, "test-key") == "another-value");
  CHECK(env.node_of(p1).name != env.node_of(p2).name);
}

TEST_CASE("Exists operator should not overwrite the existing value", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"non-existent-zone"}), req(k_zone, Operator::exists)};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

// --- Preferential Fallback ----------------------------------------------------------------------

TEST_CASE("should not relax the final term", "[karpenter][scheduling][preferences]")
{
  Env env;
  scheduling_pool(env).requirements.add(req(k_zone, Operator::in, {"test-zone-1"}));
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"invalid"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should relax multiple terms", "[karpenter][scheduling][preferences]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirement_terms = {{req(k_zone, Operator::in, {"invalid"})},
                              {req(k_zone, Operator::in, {"invalid"})},
                              {req(k_zone, Operator::in, {"test-zone-1"})},
                              {req(k_zone, Operator::in, {"test-zone-2"})}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-1");
}

TEST_CASE("should relax all terms", "[karpenter][scheduling][preferences]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.preferred_terms = {{1, model::NodeSelectorTerm{{req(k_zone, Operator::in, {"invalid"})}}},
                       {1, model::NodeSelectorTerm{{req(k_it, Operator::in, {"invalid"})}}}};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK(env.scheduled(pod));
}

TEST_CASE("should relax to use lighter weights", "[karpenter][scheduling][preferences]")
{
  Env env;
  scheduling_pool(env).requirements.add(req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"}));
  PodOptions o;
  o.preferred_terms = {{100, model::NodeSelectorTerm{{req(k_it, Operator::in, {"test-zone-3"})}}},
                       {50, model::NodeSelectorTerm{{req(k_zone, Operator::in, {"test-zone-2"})}}},
                       {1, model::NodeSelectorTerm{{req(k_zone, Operator::in, {"test-zone-1"})}}}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-2");
}

TEST_CASE("should schedule even if preference is conflicting with requirement", "[karpenter][scheduling][preferences]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-3"})};
  o.preferred_terms = {{1, model::NodeSelectorTerm{{req(k_zone, Operator::not_in, {"test-zone-3"})}}}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
}

// --- Instance Type Compatibility ----------------------------------------------------------------

TEST_CASE("should not schedule if requesting more resources than any instance type has", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.cpu_milli = 512000;
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  REQUIRE(round.result.errors.size() == 1);
  CHECK_THAT(round.result.errors[0].reason, Catch::Contains("no instance type has enough resources"));
}

TEST_CASE("should launch pods with different archs on different instances", "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env);
  PodOptions a;
  a.node_requirements = {req(k_arch, Operator::in, {"amd64"})};
  PodOptions b;
  b.node_requirements = {req(k_arch, Operator::in, {"arm64"})};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.node_of(p1).name != env.node_of(p2).name);
  CHECK(env.label(p1, k_arch) == "amd64");
  CHECK(env.label(p2, k_arch) == "arm64");
}

TEST_CASE("should exclude instance types that are not supported by the provider constraints (arch)",
          "[karpenter][scheduling]")
{
  Env env;
  scheduling_pool(env).requirements.add(req(k_arch, Operator::in, {"amd64"}));
  PodOptions o;
  o.cpu_milli = 14000;
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should launch pods with resources that aren't on any single instance type on different instances",
          "[karpenter][scheduling]")
{
  auto types = testing::fake_instance_types(5);
  types[0].capacity[*model::resource_id("karpenter.sh/super-great-gpu")] = 25;
  types[1].capacity[*model::resource_id("karpenter.sh/even-better-gpu")] = 25;
  Env env(std::move(types));
  scheduling_pool(env);
  PodOptions a;
  a.extended = {{"karpenter.sh/super-great-gpu", 1}};
  PodOptions b;
  b.extended = {{"karpenter.sh/even-better-gpu", 1}};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.node_of(p1).name != env.node_of(p2).name);
}

TEST_CASE("should fail to schedule a pod with resources requests that aren't on a single instance type",
          "[karpenter][scheduling]")
{
  auto types = testing::fake_instance_types(5);
  types[0].capacity[*model::resource_id("karpenter.sh/super-great-gpu")] = 25;
  types[1].capacity[*model::resource_id("karpenter.sh/even-better-gpu")] = 25;
  Env env(std::move(types));
  scheduling_pool(env);
  PodOptions o;
  o.extended = {{"karpenter.sh/super-great-gpu", 1}, {"karpenter.sh/even-better-gpu", 1}};
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should filter instance types that match labels (Provider Specific Labels)", "[karpenter][scheduling]")
{
  Env env(testing::fake_instance_types(5));
  scheduling_pool(env);
  PodOptions large;
  large.node_selector = {{"size", "large"}};
  PodOptions small;
  small.node_selector = {{"size", "small"}};
  const auto p1 = env.pod(large);
  const auto p2 = env.pod(small);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.label(p1, k_it) == "fake-it-4");
  CHECK(env.label(p2, k_it) == "fake-it-0");
}

TEST_CASE("should not schedule with incompatible labels (Provider Specific Labels)", "[karpenter][scheduling]")
{
  Env env(testing::fake_instance_types(5));
  scheduling_pool(env);
  PodOptions a;
  a.node_selector = {{"size", "large"}, {k_it, "fake-it-0"}};
  PodOptions b;
  b.node_selector = {{"size", "small"}, {k_it, "fake-it-4"}};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision({p1, p2});
  CHECK_FALSE(env.scheduled(p1));
  CHECK_FALSE(env.scheduled(p2));
}

TEST_CASE("should schedule optional labels (Provider Specific Labels)", "[karpenter][scheduling]")
{
  Env env(testing::fake_instance_types(5));
  scheduling_pool(env);
  PodOptions o;
  o.node_requirements = {req("special", Operator::exists)};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.node_of(pod).labels.count("special") == 1);
  CHECK(env.label(pod, k_it) == "fake-it-4");
}

TEST_CASE("should schedule without optional labels if disallowed (Provider Specific Labels)", "[karpenter][scheduling]")
{
  Env env(testing::fake_instance_types(5));
  env.node_pool();
  PodOptions o;
  o.node_requirements = {req("special", Operator::does_not_exist)};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.node_of(pod).labels.count("special") == 0);
}

// --- Binpacking ---------------------------------------------------------------------------------

TEST_CASE("should schedule a small pod on the smallest instance", "[karpenter][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.memory = 100'000'000; // 100M
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_it) == "small-instance-type");
}

TEST_CASE("should schedule a small pod on the smallest possible instance type", "[karpenter][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.memory = 2'000'000'000; // 2000M
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_it) == "small-instance-type");
}

TEST_CASE("should schedule multiple small pods on the smallest possible instance type",
          "[karpenter][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.memory = 10'000'000; // 10M
  const auto pods = env.pods(o, 5);
  env.provision(pods);
  std::set<std::string> nodes;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    nodes.insert(env.node_of(p).name);
    CHECK(env.label(p, k_it) == "small-instance-type");
  }
  CHECK(nodes.size() == 1);
}

TEST_CASE("should create new nodes when a node is at capacity", "[karpenter][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_selector = {{k_arch, "amd64"}};
  o.memory = 1'800'000'000; // 1.8G
  const auto pods = env.pods(o, 40);
  env.provision(pods);
  std::set<std::string> nodes;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    nodes.insert(env.node_of(p).name);
    CHECK(env.label(p, k_it) == "default-instance-type");
  }
  CHECK(nodes.size() == 20);
}

TEST_CASE("should pack small and large pods together", "[karpenter][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  PodOptions large;
  large.node_selector = {{k_arch, "amd64"}};
  large.memory = 1'800'000'000; // 1.8G
  PodOptions small;
  small.node_selector = {{k_arch, "amd64"}};
  small.memory = 400'000'000; // 400M
  auto pods = env.pods(large, 40);
  const auto smalls = env.pods(small, 20);
  pods.insert(pods.end(), smalls.begin(), smalls.end());
  env.provision(pods);
  std::set<std::string> nodes;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    nodes.insert(env.node_of(p).name);
    CHECK(env.label(p, k_it) == "default-instance-type");
  }
  CHECK(nodes.size() == 20);
}

TEST_CASE("should pack nodes tightly", "[karpenter][scheduling][binpacking]")
{
  Env env(testing::fake_instance_types(5));
  scheduling_pool(env);
  PodOptions big;
  big.cpu_milli = 4500;
  PodOptions small;
  small.cpu_milli = 1000;
  const auto p_big = env.pod(big);
  const auto p_small = env.pod(small);
  env.provision({p_big, p_small});
  REQUIRE(env.scheduled(p_big));
  REQUIRE(env.scheduled(p_small));
  CHECK(env.label(p_big, k_it) != env.label(p_small, k_it));
  CHECK(env.label(p_big, k_it) == "fake-it-4");
  CHECK(env.label(p_small, k_it) == "fake-it-1");
}

TEST_CASE("should not schedule pods that exceed every instance type's capacity", "[karpenter][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.memory = 2 * 1024 * k_gi;
  const auto pod = env.pod(o);
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("should create new nodes when a node is at capacity due to pod limits per node",
          "[karpenter][scheduling][binpacking]")
{
  Env env;
  scheduling_pool(env);
  PodOptions o;
  o.node_selector = {{k_arch, "amd64"}};
  o.memory = 1;
  o.cpu_milli = 1;
  const auto pods = env.pods(o, 25);
  env.provision(pods);
  std::set<std::string> nodes;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    nodes.insert(env.node_of(p).name);
    CHECK(env.label(p, k_it) == "small-instance-type");
  }
  // 5 pods per node (the fake types' pod capacity)
  CHECK(nodes.size() == 5);
}

TEST_CASE("should select for valid instance types, regardless of price", "[karpenter][scheduling][binpacking]")
{
  const auto one = [](const std::string& name, std::int64_t cpu, double price) {
    testing::FakeTypeOptions o;
    o.cpu_milli = cpu * 1000;
    o.memory = cpu * k_gi;
    o.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", price)};
    return testing::fake_instance_type(name, o);
  };
  Env env({one("medium", 2, 3.0), one("small", 1, 2.0), one("large", 4, 1.0)});
  scheduling_pool(env);
  PodOptions o;
  o.cpu_milli = 1;
  o.memory = 1024 * 1024;
  const auto pod = env.pod(o);
  const auto round = env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_it) == "large");
  REQUIRE(round.result.claims.size() == 1);
  const auto* it_req = round.result.claims[0].requirements.find(k_it);
  REQUIRE(it_req != nullptr);
  CHECK(it_req->values == std::vector<std::string>{"large", "medium", "small"});
}
