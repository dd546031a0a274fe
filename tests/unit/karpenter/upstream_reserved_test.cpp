// Karpenter's reserved-capacity cases, ported from kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/suite_test.go (Describe "Reserved Instance Types")
// with the upstream expectations. Each ExpectProvisioned is one provisioning round
// (Env::provision: strict reservations, the launch, the node in its reservation); a reservation's
// available count goes down with each node launched into it, as the provider's does.

#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

const std::string k_reservation{model::labels::k_capacity_reservation_id};

// fake.NewInstanceType(name, cpu, memory) with its five default offerings, and, when
// `reservation` is set, a reserved offering in test-zone-1 with that reservation and capacity,
// priced PriceFromResources / 100,000.
catalog::InstanceType sized_type(const std::string& name, int cpus, const std::string& reservation = "",
                                 std::int32_t capacity = 1)
{
  testing::FakeTypeOptions o;
  o.cpu_milli = cpus * 1000LL;
  o.memory = cpus * k_gi;
  const double price = testing::fake_price(o.cpu_milli, o.memory);
  std::vector<catalog::Offering> offerings = {
      testing::fake_offering("test-zone-1", "spot", price),      testing::fake_offering("test-zone-2", "spot", price),
      testing::fake_offering("test-zone-1", "on-demand", price), testing::fake_offering("test-zone-2", "on-demand", price),
      testing::fake_offering("test-zone-3", "on-demand", price),
  };
  if (!reservation.empty()) {
    auto r = testing::fake_offering("test-zone-1", "reserved", price / 100'000.0);
    r.reservation_id = reservation;
    r.reservation_capacity = capacity;
    offerings.push_back(r);
  }
  o.offerings = offerings;
  return testing::fake_instance_type(name, o);
}

// The Describe's BeforeEach: large (6 CPU), medium (3) and small (2); medium and small have one
// instance reserved each (r-medium-instance-type, r-small-instance-type).
std::vector<catalog::InstanceType> reserved_catalog()
{
  return {sized_type("large-instance-type", 6), sized_type("medium-instance-type", 3, "r-medium-instance-type"),
          sized_type("small-instance-type", 2, "r-small-instance-type")};
}

model::NodePool& scheduling_pool(Env& env, const std::string& name)
{
  auto& np = env.node_pool(name);
  np.requirements.add(req(k_ct, Operator::in, {"spot", "on-demand", "reserved"}));
  return np;
}

// cloudProvider.InstanceTypesForNodePool for the second NodePool: only its own
// small-instance-type, in reservation `reservation`; the first keeps the Describe's catalog.
void second_pool_small_type(Env& env, const std::string& reservation)
{
  env.types.push_back(sized_type("small-instance-type", 2, reservation));
  env.pool_types.resize(2);
  for (std::size_t i = 0; i + 1 < env.types.size(); ++i) {
    env.pool_types[0].push_back(&env.types[i]);
  }
  env.pool_types[1] = {&env.types.back()};
}

// Pods with hostname anti-affinity among themselves (app=test), one per node.
PodOptions spread_pod(std::vector<Requirement> node_requirements)
{
  PodOptions o;
  o.labels = {{"app", "test"}};
  o.pod_anti_requirements = {affinity_term(k_host, {{"app", "test"}})};
  o.node_requirements = std::move(node_requirements);
  return o;
}

std::vector<cluster::PodIndex> unscheduled(const Env& env, const std::vector<cluster::PodIndex>& pods)
{
  std::vector<cluster::PodIndex> out;
  for (const auto p : pods) {
    if (!env.scheduled(p)) {
      out.push_back(p);
    }
  }
  return out;
}

std::vector<cluster::PodIndex> scheduled(const Env& env, const std::vector<cluster::PodIndex>& pods)
{
  std::vector<cluster::PodIndex> out;
  for (const auto p : pods) {
    if (env.scheduled(p)) {
      out.push_back(p);
    }
  }
  return out;
}

// What one ExpectProvisioned round over some pods must bind: how many, on which type ("" any),
// in which reservation ("*" any, "" none: then not reserved) and NodePool ("" any).
struct Bound
{
  std::size_t pods = 1;
  std::string type;
  std::string reservation;
  std::string pool;
};

// One provisioning round over `pods`, checked against `expect`; returns the pods left pending.
std::vector<cluster::PodIndex> provision_round(Env& env, const std::vector<cluster::PodIndex>& pods, const Bound& expect)
{
  env.provision(pods);
  const auto bound = scheduled(env, pods);
  REQUIRE(bound.size() == expect.pods);
  for (const auto p : bound) {
    if (expect.reservation.empty()) {
      CHECK(env.label(p, k_reservation).empty());
      CHECK(env.label(p, k_ct) != "reserved");
    } else {
      if (expect.reservation == "*") {
        CHECK_FALSE(env.label(p, k_reservation).empty());
      } else {
        CHECK(env.label(p, k_reservation) == expect.reservation);
      }
      CHECK(env.label(p, k_ct) == "reserved");
    }
    if (!expect.type.empty()) {
      CHECK(env.type_of(p).name == expect.type);
    }
    if (!expect.pool.empty()) {
      CHECK(env.label(p, k_np) == expect.pool);
    }
  }
  return unscheduled(env, pods);
}

} // namespace

TEST_CASE("suite_test.go Reserved Instance Types: shouldn't fallback to on-demand or spot when compatible reserved "
          "offerings are available",
          "[karpenter][upstream][scheduling][reserved]")
{
  Env env(reserved_catalog());
  scheduling_pool(env, "default");
  PodOptions o;
  o.cpu_milli = 1800; // fits small and medium, but two do not fit medium
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 3; ++i) {
    pods.push_back(env.pod(o));
  }
  // One NodeClaim holds both reservations (it may launch small or medium), so one pod per round.
  auto left = provision_round(env, pods, {1, "small-instance-type", "r-small-instance-type", ""});
  left = provision_round(env, left, {1, "medium-instance-type", "r-medium-instance-type", ""});
  // Both reservations are used up: the last pod falls back to spot or on-demand.
  (void)provision_round(env, left, {1, "small-instance-type", "", ""});
}

TEST_CASE("suite_test.go Reserved Instance Types: should correctly track reservations shared across nodepools",
          "[karpenter][upstream][scheduling][reserved]")
{
  Env env(reserved_catalog());
  scheduling_pool(env, "np-1");
  scheduling_pool(env, "np-2");
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 2; ++i) {
    pods.push_back(env.pod(spread_pod({req(k_it, Operator::in, {"small-instance-type"}),
                                       req(k_np, Operator::in, {fmt::format("np-{}", i + 1)})})));
  }
  // The NodePools share the small type's reservation: one reserved node, and no fallback.
  const auto left = provision_round(env, pods, {1, "small-instance-type", "r-small-instance-type", ""});
  (void)provision_round(env, left, {1, "small-instance-type", "", ""});
}

TEST_CASE("suite_test.go Reserved Instance Types: should correctly track reservations for multiple nodepools with "
          "distinct reservations for the same instance pool",
          "[karpenter][upstream][scheduling][reserved]")
{
  Env env(reserved_catalog());
  scheduling_pool(env, "np-1");
  scheduling_pool(env, "np-2");
  // np-2's instance types: its own small-instance-type, in reservation r-distinct.
  second_pool_small_type(env, "r-distinct");
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 2; ++i) {
    pods.push_back(env.pod(spread_pod({req(k_it, Operator::in, {"small-instance-type"}),
                                       req(k_np, Operator::in, {fmt::format("np-{}", i + 1)})})));
  }
  (void)provision_round(env, pods, {2, "small-instance-type", "*", ""});
  CHECK(env.label(pods[0], k_reservation) != env.label(pods[1], k_reservation));
}

TEST_CASE("suite_test.go Reserved Instance Types: should correctly track multiple reservations for the same instance "
          "pool",
          "[karpenter][upstream][scheduling][reserved]")
{
  auto types = reserved_catalog();
  auto& small = types[2];
  auto second = testing::fake_offering("test-zone-1", "reserved", small.offerings.back().price_per_hour);
  second.reservation_id = "r-small-instance-type-2";
  second.reservation_capacity = 2;
  small.offerings.push_back(second);
  Env env(types);
  scheduling_pool(env, "default");
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 4; ++i) {
    pods.push_back(env.pod(spread_pod({req(k_it, Operator::in, {"small-instance-type"})})));
  }
  // Three instances in two reservations, reserved pessimistically: two pods this round.
  auto left = provision_round(env, pods, {2, "small-instance-type", "*", ""});
  // One instance is left in some reservation: one pod.
  left = provision_round(env, left, {1, "", "*", ""});
  // None left: the last pod falls back.
  (void)provision_round(env, left, {1, "small-instance-type", "", ""});
  CHECK(env.reservation_used("r-small-instance-type") == 1);
  CHECK(env.reservation_used("r-small-instance-type-2") == 2);
}

TEST_CASE("suite_test.go Reserved Instance Types: shouldn't fallback to a lower weight NodePool if a reserved offering "
          "is available",
          "[karpenter][upstream][scheduling][reserved]")
{
  Env env(reserved_catalog());
  auto& primary = scheduling_pool(env, "np-primary");
  primary.weight = 100;
  auto& fallback = scheduling_pool(env, "np-fallback");
  fallback.weight = 50;
  second_pool_small_type(env, "r-fallback");
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 2; ++i) {
    pods.push_back(env.pod(spread_pod({req(k_it, Operator::in, {"small-instance-type"})})));
  }
  // The primary's reservation takes one pod; the other fails on it rather than going to the
  // fallback NodePool's reservation.
  const auto left = provision_round(env, pods, {1, "small-instance-type", "*", "np-primary"});
  // The primary's reservation is used up: the pod falls back to spot or on-demand in the primary.
  (void)provision_round(env, left, {1, "small-instance-type", "", "np-primary"});
}

TEST_CASE("suite_test.go Reserved Instance Types: shouldn't relax preferences when a pod fails to schedule due to a "
          "reserved offering error",
          "[karpenter][upstream][scheduling][reserved]")
{
  Env env(reserved_catalog());
  scheduling_pool(env, "np-1");
  scheduling_pool(env, "np-2");
  second_pool_small_type(env, "r-distinct");
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 2; ++i) {
    auto o = spread_pod({req(k_it, Operator::in, {"small-instance-type"})});
    o.node_preferences = {req(k_np, Operator::in, {"np-1"})};
    pods.push_back(env.pod(o));
  }
  // The second pod fails on np-1's used-up reservation and is not relaxed onto np-2's.
  const auto left = provision_round(env, pods, {1, "small-instance-type", "*", "np-1"});
  // Next round it keeps its preference for np-1, where it falls back to spot or on-demand.
  (void)provision_round(env, left, {1, "small-instance-type", "", "np-1"});
}

TEST_CASE("suite_test.go Reserved Instance Types: should handle multiple pods on reserved nodes",
          "[karpenter][upstream][scheduling][reserved]")
{
  Env env(reserved_catalog());
  scheduling_pool(env, "np-1");
  std::vector<cluster::PodIndex> pods;
  for (int i = 0; i < 2; ++i) {
    PodOptions o;
    o.labels = {{"app", "test"}};
    o.node_requirements = {req(k_it, Operator::in, {"small-instance-type"}), req(k_np, Operator::in, {"np-1"}),
                           req(k_ct, Operator::in, {"reserved"}), req(k_zone, Operator::in, {"test-zone-1"})};
    o.pod_requirements = {affinity_term(k_zone, {{"app", "test"}})};
    pods.push_back(env.pod(o));
  }
  env.provision(pods);
  REQUIRE(scheduled(env, pods).size() == 2);
  CHECK(env.node_of(pods[0]).name == env.node_of(pods[1]).name);
  CHECK(env.label(pods[0], k_reservation) == "r-small-instance-type");
  CHECK(env.label(pods[0], k_ct) == "reserved");
  CHECK(env.type_of(pods[0]).name == "small-instance-type");
}

TEST_CASE("reserved capacity: without a reservation left to hold, a pod is deferred, not failed, and no NodeClaim is "
          "made for it",
          "[karpenter][scheduling][reserved]")
{
  // The first case's first round, by the solve's result: one NodeClaim pinned to both
  // reservations, the other two pods with reserved-offering errors.
  Env env(reserved_catalog());
  scheduling_pool(env, "default");
  PodOptions o;
  o.cpu_milli = 1800;
  for (int i = 0; i < 3; ++i) {
    (void)env.pod(o);
  }
  SolveInput in = env.input();
  in.options.strict_reservations = true;
  const auto result = solve(in);
  REQUIRE(result.claims.size() == 1);
  const auto* ct = result.claims[0].requirements.find(k_ct);
  REQUIRE(ct != nullptr);
  CHECK(ct->values == std::vector<std::string>{"reserved"});
  const auto* ids = result.claims[0].requirements.find(k_reservation);
  REQUIRE(ids != nullptr);
  CHECK(ids->values == std::vector<std::string>{"r-medium-instance-type", "r-small-instance-type"});
  REQUIRE(result.errors.size() == 2);
  CHECK_THAT(result.errors[0].reason, Catch::Contains("compatible reserved offerings are available, but could not be "
                                                      "reserved"));
  // Falling back (consolidation's simulations), the second pod joins the first one's NodeClaim
  // on the large type, which has no reserved offering: the NodeClaim releases its reservations
  // and all three pods go to one spot or on-demand NodeClaim.
  in.options.strict_reservations = false;
  const auto fallback = solve(in);
  CHECK(fallback.errors.empty());
  REQUIRE(fallback.claims.size() == 1);
  CHECK(fallback.claims[0].pods.size() == 3);
  CHECK(fallback.claims[0].requirements.find(k_reservation) == nullptr);
  const auto* fallback_ct = fallback.claims[0].requirements.find(k_ct);
  REQUIRE(fallback_ct != nullptr);
  CHECK(fallback_ct->values == std::vector<std::string>{"on-demand", "spot"});
}
