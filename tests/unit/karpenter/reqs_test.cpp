// Requirement sets built in one go against the same requirements added one at a time
// (Requirements.Add), the way a node's labels become its requirements.

#include "core/karpenter/reqs.hpp"
#include "core/model/kube.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace capsim;
using namespace capsim::karpenter;

TEST_CASE("ReqSet::of equals adding its requirements in turn", "[karpenter][reqs]")
{
  Interner in;
  const KeyId zone = in.key(model::labels::k_zone);
  const KeyId arch = in.key(model::labels::k_arch);
  const KeyId team = in.key("example.com/team");
  const ValueId a = in.value("us-east-1a");
  const ValueId b = in.value("us-east-1b");
  Req both;
  both.key = zone;
  both.values = {a, b};
  Req not_b;
  not_b.key = zone;
  not_b.values = {b};
  not_b.complement = true;
  // Two of one key (In us-east-1a/b narrowed to us-east-1a by NotIn us-east-1b), keys out of order.
  const std::vector<Req> items{make_in(team, in.value("web")), both, make_in(arch, in.value("arm64")), not_b};
  ReqSet added;
  for (const auto& r : items) {
    added.add(r, in);
  }
  const ReqSet made = ReqSet::of(items, in);
  CHECK(made == added);
  REQUIRE(made.items().size() == 3);
  const Req* z = made.find(zone);
  REQUIRE(z != nullptr);
  CHECK_FALSE(z->complement);
  CHECK(z->values == std::vector<ValueId>{a});
}

TEST_CASE("labels_to_req_set meets labels whose keys normalise alike", "[karpenter][reqs]")
{
  Interner in;
  // The beta zone label and the well-known one name the same key: their values meet.
  const model::Labels agree{{"failure-domain.beta.kubernetes.io/zone", "us-east-1a"},
                            {std::string(model::labels::k_zone), "us-east-1a"},
                            {"example.com/team", "web"}};
  const ReqSet same = labels_to_req_set(agree, in);
  REQUIRE(same.items().size() == 2);
  const Req* z = same.find(in.key(model::labels::k_zone));
  REQUIRE(z != nullptr);
  CHECK(z->values == std::vector<ValueId>{in.value("us-east-1a")});

  const model::Labels differ{{"failure-domain.beta.kubernetes.io/zone", "us-east-1a"},
                             {std::string(model::labels::k_zone), "us-east-1b"}};
  const ReqSet none = labels_to_req_set(differ, in);
  REQUIRE(none.items().size() == 1);
  const Req* empty = none.find(in.key(model::labels::k_zone));
  REQUIRE(empty != nullptr);
  CHECK_FALSE(empty->complement);
  CHECK(empty->values.empty()); // In over no value: no node matches
}
