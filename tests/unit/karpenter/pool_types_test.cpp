// The scheduler's per-NodePool instance-type indexes against brute force: the binary search
// behind a NodeClaim's largest allocatable, and the remembered cheapest options of a claim
// (which must follow offering availability when it changes).

#include "core/catalog/instance_type.hpp"
#include "core/karpenter/instance_types.hpp"
#include "tests/support/fake_catalog_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace capsim;
using namespace capsim::karpenter;

namespace {

// Deterministic member sets: bit i of type set k is drawn from a xorshift stream.
class Draw
{
public:
  TypeSet subset(std::size_t n, unsigned one_in)
  {
    TypeSet s(n, false);
    for (std::size_t i = 0; i < n; ++i) {
      m_x ^= m_x << 13U;
      m_x ^= m_x >> 7U;
      m_x ^= m_x << 17U;
      if (m_x % one_in == 0) {
        s.set(i);
      }
    }
    return s;
  }

private:
  std::uint64_t m_x = 88172645463325252ULL;
};

std::vector<const catalog::InstanceType*> pointers(const std::vector<catalog::InstanceType>& types)
{
  std::vector<const catalog::InstanceType*> out;
  for (const auto& t : types) {
    out.push_back(&t);
  }
  return out;
}

// fake.InstanceTypes(90) interned as one NodePool's types.
struct FakePool
{
  std::vector<catalog::InstanceType> types = testing::fake_instance_types(90);
  Interner in;
  OfferingSpace space;
  PoolTypes pt{pointers(types), in, space};
};

std::vector<std::uint32_t> brute_cheapest(PoolTypes& pt, const OfferingFilter& f, const TypeSet& members,
                                          std::size_t max)
{
  std::vector<std::uint32_t> out;
  for (const auto i : pt.price_order(f)) {
    if (out.size() < max && members.test(i)) {
      out.push_back(i);
    }
  }
  return out;
}

} // namespace

TEST_CASE("TypeSet::intersects is true exactly when the sets share a member", "[karpenter][pool_types]")
{
  Draw draw;
  for (int trial = 0; trial < 100; ++trial) {
    const TypeSet a = draw.subset(130, 9);
    const TypeSet b = draw.subset(130, 9);
    bool shared = false;
    for (std::size_t i = 0; i < 130; ++i) {
      shared = shared || (a.test(i) && b.test(i));
    }
    CHECK(a.intersects(b) == shared);
  }
  CHECK_FALSE(TypeSet(70, true).intersects(TypeSet(70, false)));
}

TEST_CASE("PoolTypes::max_allocatable is the largest allocatable amount among the members",
          "[karpenter][pool_types]")
{
  FakePool pool;
  auto& pt = pool.pt;
  Draw draw;
  for (int trial = 0; trial < 200; ++trial) {
    const TypeSet members = draw.subset(pt.size(), trial % 2 == 0 ? 3U : 17U);
    for (const auto dim : {model::k_cpu, model::k_memory, model::k_pods}) {
      std::int64_t expected = 0;
      members.for_each([&](std::size_t i) { expected = std::max(expected, pt.types()[i].allocatable[dim]); });
      CHECK(pt.max_allocatable(dim, members) == expected);
    }
  }
  CHECK(pt.max_allocatable(model::k_cpu, TypeSet(pt.size(), false)) == 0);
  CHECK(pt.max_allocatable(model::k_cpu, TypeSet(pt.size(), true)) == pool.types.back().allocatable().cpu());
}

TEST_CASE("PoolTypes::cheapest_members follows the price order, the limit and offering availability",
          "[karpenter][pool_types]")
{
  FakePool pool;
  auto& pt = pool.pt;
  pt.refresh_availability(1, [](const catalog::InstanceType&, const catalog::Offering&) { return true; });
  const OfferingFilter all;
  Draw draw;
  for (int trial = 0; trial < 100; ++trial) {
    const TypeSet members = draw.subset(pt.size(), 2);
    const std::size_t max = trial % 3 == 0 ? 5 : 600;
    const auto expected = brute_cheapest(pt, all, members, max);
    const auto& first = pt.cheapest_members(all, members, max);
    CHECK(first.order == expected);
    REQUIRE(first.types.size() == expected.size());
    CHECK(first.set.count() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      CHECK(first.types[k] == pt.types()[expected[k]].it);
      CHECK(first.set.test(expected[k]));
    }
    CHECK(pt.cheapest_members(all, members, max).order == expected); // the remembered answer
  }
  // The cheapest types become unavailable: the remembered answers must not survive.
  const TypeSet everything(pt.size(), true);
  const auto before = pt.cheapest_members(all, everything, 10).order;
  REQUIRE(before.size() == 10);
  const catalog::InstanceType* cheapest = pt.types()[before.front()].it;
  pt.refresh_availability(2, [&](const catalog::InstanceType& it, const catalog::Offering&) { return &it != cheapest; });
  const auto after = pt.cheapest_members(all, everything, 10).order;
  CHECK(after == brute_cheapest(pt, all, everything, 10));
  CHECK(after.front() != before.front());
}

TEST_CASE("finalize_requirements marks a metal size exotic (Karpenter's exotic launch filter)", "[karpenter][pool_types]")
{
  auto types = testing::fake_instance_types(2);
  types[0].labels[std::string(model::labels::k_instance_size)] = "metal-24xl";
  types[1].labels[std::string(model::labels::k_instance_size)] = "24xlarge";
  for (auto& t : types) {
    t.exotic = false;
    catalog::finalize_requirements(t);
  }
  CHECK(types[0].exotic);
  CHECK_FALSE(types[1].exotic);
}
