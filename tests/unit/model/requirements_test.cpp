#include "core/base/rng.hpp"
#include "core/model/requirements.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace capsim::model;
using capsim::Rng;

namespace {

Requirements reqs(std::initializer_list<Requirement> items)
{
  Requirements r;
  for (const auto& i : items) {
    r.add(i);
  }
  return r;
}

} // namespace

TEST_CASE("requirement intersection follows Karpenter's set algebra", "[model][requirements]")
{
  const auto in_ab = Requirement::make("k", Operator::in, {"a", "b"});
  const auto in_bc = Requirement::make("k", Operator::in, {"b", "c"});
  const auto not_in_a = Requirement::make("k", Operator::not_in, {"a"});
  const auto exists = Requirement::make("k", Operator::exists, {});
  const auto dne = Requirement::make("k", Operator::does_not_exist, {});

  CHECK(in_ab.intersection(in_bc).values == std::vector<std::string>{"b"});
  CHECK(in_ab.intersection(not_in_a).values == std::vector<std::string>{"b"});
  CHECK(not_in_a.intersection(in_ab).values == std::vector<std::string>{"b"});
  CHECK(in_ab.intersection(exists).values == std::vector<std::string>{"a", "b"});
  CHECK(in_ab.intersection(dne).empty());
  CHECK(exists.intersection(not_in_a).op() == Operator::not_in);
}

TEST_CASE("Gt and Lt bound integer values", "[model][requirements]")
{
  const auto gt4 = Requirement::make("cpu", Operator::gt, {"4"});
  const auto lt16 = Requirement::make("cpu", Operator::lt, {"16"});
  CHECK(gt4.has("8"));
  CHECK_FALSE(gt4.has("4"));
  CHECK_FALSE(gt4.has("x"));
  const auto both = gt4.intersection(lt16);
  CHECK(both.has("8"));
  CHECK_FALSE(both.has("16"));
  const auto in = Requirement::make("cpu", Operator::in, {"2", "8", "32"});
  CHECK(in.intersection(both).values == std::vector<std::string>{"8"});
  CHECK(Requirement::make("cpu", Operator::gt, {"10"}).intersection(Requirement::make("cpu", Operator::lt, {"5"})).empty());
}

TEST_CASE("compatibility allows undefined well-known labels only", "[model][requirements]")
{
  const auto node_pool = reqs({Requirement::make("team", Operator::in, {"a"})});
  const auto pod_zone = reqs({Requirement::make(std::string(labels::k_zone), Operator::in, {"z1"})});
  CHECK(node_pool.is_compatible(pod_zone, true));
  CHECK_FALSE(node_pool.is_compatible(pod_zone, false));
  const auto pod_custom = reqs({Requirement::make("custom", Operator::in, {"x"})});
  CHECK_FALSE(node_pool.is_compatible(pod_custom, true));
  const auto pod_custom_notin = reqs({Requirement::make("custom", Operator::not_in, {"x"})});
  CHECK(node_pool.is_compatible(pod_custom_notin, true));
  const auto pod_team_b = reqs({Requirement::make("team", Operator::in, {"b"})});
  CHECK_FALSE(node_pool.is_compatible(pod_team_b, true));
}

TEST_CASE("intersection_empty agrees with intersection().empty() on random pairs", "[model][requirements]")
{
  Rng rng(11);
  const std::vector<std::string> pool{"1", "2", "4", "8", "16", "a", "b", "m5", "m5.large", "c6g"};
  const Operator ops[] = {Operator::in, Operator::not_in, Operator::exists, Operator::does_not_exist,
                          Operator::gt, Operator::lt};
  const auto random_requirement = [&] {
    const Operator op = ops[rng.below(6)];
    std::vector<std::string> values;
    if (op == Operator::gt || op == Operator::lt) {
      values.push_back(std::to_string(rng.below(20)));
    } else if (op == Operator::in || op == Operator::not_in) {
      const auto n = 1 + rng.below(4);
      for (std::uint64_t i = 0; i < n; ++i) {
        values.push_back(pool[rng.below(pool.size())]);
      }
    }
    return Requirement::make("k", op, values);
  };
  int empty = 0;
  for (int i = 0; i < 5000; ++i) {
    auto a = random_requirement();
    const auto b = random_requirement();
    // Combined numeric bounds with value lists, as instance-type requirements meet Gt/Lt ones.
    if (rng.below(3) == 0) {
      a = a.intersection(random_requirement());
    }
    CAPTURE(to_string(a), to_string(b));
    const bool expected = a.intersection(b).empty();
    CHECK(a.intersection_empty(b) == expected);
    CHECK(b.intersection_empty(a) == b.intersection(a).empty());
    empty += expected ? 1 : 0;
  }
  // Both outcomes are exercised.
  CHECK(empty > 500);
  CHECK(empty < 4500);
}

TEST_CASE("labels_compatible agrees with from_labels(labels).is_compatible on random labels and requirements",
          "[model][requirements]")
{
  Rng rng(29);
  const std::vector<std::string> keys{"a", "b", "team", std::string(labels::k_zone), "cpu"};
  const std::vector<std::string> values{"1", "4", "16", "x", "y"};
  const Operator ops[] = {Operator::in, Operator::not_in, Operator::exists, Operator::does_not_exist,
                          Operator::gt, Operator::lt};
  int compatible = 0;
  for (int i = 0; i < 4000; ++i) {
    std::map<std::string, std::string> node_labels;
    for (const auto& k : keys) {
      if (rng.below(2) == 0) {
        node_labels[k] = values[rng.below(values.size())];
      }
    }
    Requirements incoming;
    for (const auto& k : keys) {
      if (rng.below(3) != 0) {
        continue;
      }
      const Operator op = ops[rng.below(6)];
      std::vector<std::string> vs;
      if (op == Operator::gt || op == Operator::lt) {
        vs.push_back(std::to_string(rng.below(20)));
      } else if (op == Operator::in || op == Operator::not_in) {
        vs.push_back(values[rng.below(values.size())]);
      }
      incoming.add(Requirement::make(k, op, vs));
    }
    for (const bool allow : {false, true}) {
      const bool expected = Requirements::from_labels(node_labels).is_compatible(incoming, allow);
      CHECK(Requirements::labels_compatible(node_labels, incoming, allow) == expected);
      compatible += expected ? 1 : 0;
    }
  }
  // Both outcomes are exercised.
  CHECK(compatible > 1000);
  CHECK(compatible < 7000);
}

TEST_CASE("well-known labels include the AWS provider's additions and their known values", "[model][requirements]")
{
  // aws:pkg/apis/v1/labels.go init(): WellKnownLabels.Insert(...) and WellKnownValuesForRequirements.
  for (const std::string_view key :
       {"karpenter.k8s.aws/capacity-reservation-type", "karpenter.k8s.aws/capacity-reservation-interruptible",
        "karpenter.k8s.aws/nitro-sandbox", "karpenter.k8s.aws/instance-tenancy", "karpenter.k8s.aws/placement-group-id",
        "karpenter.k8s.aws/placement-group-partition", "topology.k8s.aws/zone-id", "karpenter.sh/nodepool"}) {
    CAPTURE(key);
    CHECK(is_well_known_label(key));
  }
  CHECK_FALSE(is_well_known_label("karpenter.k8s.aws/ec2nodeclass")); // the CRD allows it on NodePools only
  CHECK_FALSE(is_well_known_label("team"));
  const auto tenancy = well_known_values(labels::k_instance_tenancy);
  CHECK(std::vector<std::string_view>(tenancy.begin(), tenancy.end())
        == std::vector<std::string_view>{"default", "dedicated"});
  CHECK(well_known_values(labels::k_capacity_type).size() == 3);
  CHECK(well_known_values(labels::k_zone).empty());
}
