// Requirement sets built in one go against the same requirements added one at a time
// (Requirements.Add), the way a node's labels become its requirements.

#include "core/karpenter/reqs.hpp"
#include "core/model/kube.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
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
  CHECK(z->values == ValueList{a});
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
  CHECK(z->values == ValueList{in.value("us-east-1a")});

  const model::Labels differ{{"failure-domain.beta.kubernetes.io/zone", "us-east-1a"},
                             {std::string(model::labels::k_zone), "us-east-1b"}};
  const ReqSet none = labels_to_req_set(differ, in);
  REQUIRE(none.items().size() == 1);
  const Req* empty = none.find(in.key(model::labels::k_zone));
  REQUIRE(empty != nullptr);
  CHECK_FALSE(empty->complement);
  CHECK(empty->values.empty()); // In over no value: no node matches
}

TEST_CASE("ValueList answers as a std::vector through random edits, in place and past it", "[karpenter][reqs]")
{
  std::uint64_t state = 12345;
  const auto next = [&state](std::uint32_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>((state >> 33) % n);
  };
  const auto same = [](const ValueList& list, const std::vector<ValueId>& want) {
    return std::vector<ValueId>(list.begin(), list.end()) == want && list.size() == want.size()
           && list.empty() == want.empty();
  };
  std::size_t past_in_place = 0;
  for (int round = 0; round < 200; ++round) {
    ValueList list;
    std::vector<ValueId> want;
    for (int step = 0; step < 40; ++step) {
      switch (next(6)) {
      case 0:
      case 1: {
        const ValueId v = next(100);
        list.push_back(v);
        want.push_back(v);
        break;
      }
      case 2: {
        const auto at = next(static_cast<std::uint32_t>(want.size()) + 1);
        const std::vector<ValueId> more(next(6), next(100));
        list.insert(list.begin() + at, more.begin(), more.end());
        want.insert(want.begin() + at, more.begin(), more.end());
        break;
      }
      case 3:
        if (!want.empty()) {
          const auto at = next(static_cast<std::uint32_t>(want.size()));
          const auto n = next(static_cast<std::uint32_t>(want.size() - at) + 1);
          list.erase(list.begin() + at, list.begin() + at + n);
          want.erase(want.begin() + at, want.begin() + at + n);
        }
        break;
      case 4: { // copies and moves keep the values; a moved-from list is empty and usable
        ValueList copy = list;
        REQUIRE(same(copy, want));
        ValueList moved = std::move(copy);
        REQUIRE(same(moved, want));
        CHECK(copy.empty()); // NOLINT(bugprone-use-after-move): the moved-from state is specified
        copy.push_back(7);
        CHECK(copy.size() == 1);
        list = moved;
        break;
      }
      default: {
        std::sort(list.begin(), list.end());
        std::sort(want.begin(), want.end());
        break;
      }
      }
      REQUIRE(same(list, want));
      past_in_place += want.size() > ValueList::k_in_place ? 1 : 0;
    }
    ValueList other(list);
    CHECK(other == list);
    other.push_back(1000);
    CHECK_FALSE(other == list);
    list.clear();
    CHECK(list.empty());
  }
  CHECK(past_in_place > 1000); // both the in-place and the allocated forms were exercised
}
