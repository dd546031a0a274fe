// The kube-scheduler model's remembered resource scores: entries follow their positions through
// resizes and moves, and the block read of the best node agrees with a plain walk.

#include "core/base/rng.hpp"
#include "core/scheduling/score_memos.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <vector>

using capsim::Rng;
using capsim::scheduling::ScoreMemos;

namespace {

using Entry = ScoreMemos::Entry;

// The best (total << 32) | ~node of the marked positions, one by one.
std::uint64_t walked_best(const ScoreMemos& memos, std::uint32_t shape, std::size_t base, std::uint64_t nodes,
                          std::int64_t fw, std::int64_t bw, const std::vector<std::uint32_t>& order,
                          std::uint64_t above)
{
  std::uint64_t best = above;
  for (std::uint64_t left = nodes; left != 0; left &= left - 1) {
    const auto j = static_cast<std::size_t>(std::countr_zero(left));
    const Entry e = memos.get(ScoreMemos::slot_of(shape), base + j);
    const auto total = static_cast<std::uint64_t>(fw * e.fit + bw * e.balanced);
    best = std::max(best, (total << 32U) | static_cast<std::uint32_t>(~order[base + j]));
  }
  return best;
}

} // namespace

TEST_CASE("Remembered scores follow their positions through resizes and moves", "[scheduling][score-memos]")
{
  ScoreMemos memos;
  memos.resize(3);
  memos.set(ScoreMemos::slot_of(5), 0, {5, 10, 20});
  memos.set(ScoreMemos::slot_of(5), 2, {5, 30, 40});
  memos.set(ScoreMemos::slot_of(6), 2, {6, 50, 60});
  SECTION("growing past the stride keeps every entry, new positions are empty")
  {
    memos.resize(500);
    CHECK(memos.get(ScoreMemos::slot_of(5), 0) == Entry{5, 10, 20});
    CHECK(memos.get(ScoreMemos::slot_of(5), 2) == Entry{5, 30, 40});
    CHECK(memos.get(ScoreMemos::slot_of(6), 2) == Entry{6, 50, 60});
    CHECK(memos.get(ScoreMemos::slot_of(5), 3).shape == 0);
    CHECK(memos.get(ScoreMemos::slot_of(5), 499).shape == 0);
  }
  SECTION("shrinking empties the positions cut off, growing back does not bring them back")
  {
    memos.resize(2);
    memos.resize(3);
    CHECK(memos.get(ScoreMemos::slot_of(5), 0) == Entry{5, 10, 20});
    CHECK(memos.get(ScoreMemos::slot_of(5), 2).shape == 0);
    CHECK(memos.get(ScoreMemos::slot_of(6), 2).shape == 0);
    CHECK(memos.holding(5, 0) == 0b1);
  }
  SECTION("forget empties one position's slots, forget_all every one")
  {
    memos.forget(2);
    CHECK(memos.get(ScoreMemos::slot_of(5), 2).shape == 0);
    CHECK(memos.get(ScoreMemos::slot_of(6), 2).shape == 0);
    CHECK(memos.get(ScoreMemos::slot_of(5), 0) == Entry{5, 10, 20});
    memos.forget_all();
    CHECK(memos.get(ScoreMemos::slot_of(5), 0).shape == 0);
  }
  SECTION("a range set aside and copied back lands at the new positions")
  {
    ScoreMemos aside;
    aside.assign_range(memos, 1, 3);
    REQUIRE(aside.size() == 2);
    CHECK(aside.get(ScoreMemos::slot_of(5), 1) == Entry{5, 30, 40});
    memos.resize(5);
    memos.copy_range(3, aside, 0, 2);
    CHECK(memos.entries(3) == memos.entries(1));
    CHECK(memos.entries(4) == memos.entries(2));
    CHECK(memos.get(ScoreMemos::slot_of(6), 4) == Entry{6, 50, 60});
    memos.set_entries(0, aside.entries(0));
    CHECK(memos.get(ScoreMemos::slot_of(5), 0).shape == 0);
  }
  SECTION("a range set aside into a longer table leaves nothing past the range")
  {
    ScoreMemos aside;
    aside.resize(6);
    for (std::size_t pos = 0; pos < 6; ++pos) {
      aside.set(ScoreMemos::slot_of(5), pos, {5, 1, 1});
    }
    aside.assign_range(memos, 2, 3);
    REQUIRE(aside.size() == 1);
    CHECK(aside.holding(5, 0) == 0b1);
    CHECK(aside.get(ScoreMemos::slot_of(5), 0) == Entry{5, 30, 40});
  }
  SECTION("a range moved towards the end over itself lands whole, as with memmove")
  {
    memos.resize(6);
    memos.move_range(1, 0, 3); // positions 1..3 take 0..2
    CHECK(memos.get(ScoreMemos::slot_of(5), 1) == Entry{5, 10, 20});
    CHECK(memos.get(ScoreMemos::slot_of(5), 2).shape == 0);
    CHECK(memos.get(ScoreMemos::slot_of(5), 3) == Entry{5, 30, 40});
    CHECK(memos.get(ScoreMemos::slot_of(6), 3) == Entry{6, 50, 60});
    CHECK(memos.holding(5, 0) == 0b1011); // position 0 keeps its own
  }
  SECTION("a range moved towards the start over itself lands whole, as with memmove")
  {
    memos.resize(6);
    memos.set(ScoreMemos::slot_of(7), 4, {7, 1, 2});
    memos.move_range(0, 2, 3); // positions 0..2 take 2..4
    CHECK(memos.get(ScoreMemos::slot_of(5), 0) == Entry{5, 30, 40});
    CHECK(memos.get(ScoreMemos::slot_of(6), 0) == Entry{6, 50, 60});
    CHECK(memos.get(ScoreMemos::slot_of(5), 1).shape == 0);
    CHECK(memos.get(ScoreMemos::slot_of(7), 2) == Entry{7, 1, 2});
    memos.resize(3);
    CHECK(memos.holding(7, 0) == 0b100);
    CHECK(memos.holding(5, 0) == 0b1);
  }
  SECTION("holding marks the positions whose slot holds the shape, none past the end")
  {
    CHECK(memos.holding(5, 0) == 0b101);
    CHECK(memos.holding(6, 0) == 0b100);
    CHECK(memos.holding(22, 0) == 0); // same slot as 6, another shape
    CHECK(memos.holding(5, 1) == 0b10);
  }
}

TEST_CASE("The block read of the best node agrees with a walk over random memos", "[scheduling][score-memos]")
{
  Rng rng(11);
  for (int round = 0; round < 300; ++round) {
    const std::size_t size = 1 + rng.below(300);
    ScoreMemos memos;
    memos.resize(size);
    const std::uint32_t shape = 1 + static_cast<std::uint32_t>(rng.below(40));
    const std::size_t slot = ScoreMemos::slot_of(shape);
    // Few distinct scores, so ties are common; nodes in any order.
    const std::uint64_t spread = 1 + rng.below(round % 2 == 0 ? 3 : 101);
    std::vector<std::uint32_t> order(size + 64);
    for (std::size_t pos = 0; pos < size; ++pos) {
      memos.set(slot, pos,
                {static_cast<std::uint16_t>(shape), static_cast<std::uint8_t>(rng.below(spread)),
                 static_cast<std::uint8_t>(rng.below(spread))});
      order[pos] = static_cast<std::uint32_t>(rng.below(100000));
    }
    const auto fw = static_cast<std::int64_t>(rng.below(ScoreMemos::k_max_weight + 1));
    const auto bw = static_cast<std::int64_t>(rng.below(ScoreMemos::k_max_weight + 1));
    for (std::size_t base = 0; base < size; base += 1 + rng.below(64)) {
      const std::size_t n = std::min<std::size_t>(64, size - base);
      std::uint64_t nodes = rng.next_u64() & rng.next_u64();
      if (rng.below(4) == 0) {
        nodes = ~std::uint64_t{0};
      }
      nodes &= n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
      REQUIRE((memos.holding(shape, base) & nodes) == nodes);
      const std::uint64_t above = rng.below(3) == 0 ? 0 : walked_best(memos, shape, 0, 1, fw, bw, order, 0);
      REQUIRE(memos.best_key(shape, base, nodes, fw, bw, order.data(), above)
              == walked_best(memos, shape, base, nodes, fw, bw, order, above));
    }
  }
}
