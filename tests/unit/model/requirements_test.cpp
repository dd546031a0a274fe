#include "core/model/requirements.hpp"

#include <catch2/catch.hpp>

using namespace capsim::model;

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
