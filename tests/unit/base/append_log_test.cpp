// AppendLog: entries read back by position across its chunks, in a copy as in the original.

#include "core/base/append_log.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

using namespace capsim;

TEST_CASE("An append log reads back each entry by position across chunks", "[base]")
{
  AppendLog<std::uint64_t, 3> log; // chunks of 8
  CHECK(log.empty());
  for (std::uint64_t i = 0; i < 21; ++i) {
    log.push_back(i * i);
  }
  REQUIRE(log.size() == 21);
  const std::uint64_t* first = &log[0];
  const std::uint64_t* ninth = &log[8];
  AppendLog<std::uint64_t, 3> copy = log; // its last chunk part full
  for (std::uint64_t i = 21; i < 40; ++i) {
    log.push_back(i * i);
    copy.push_back(i * i + 1);
  }
  CHECK(&log[0] == first); // growing moved nothing
  CHECK(&log[8] == ninth);
  REQUIRE(log.size() == 40);
  REQUIRE(copy.size() == 40);
  for (std::uint64_t i = 0; i < 40; ++i) {
    INFO("entry " << i);
    CHECK(log[i] == i * i);
    CHECK(copy[i] == (i < 21 ? i * i : i * i + 1));
  }
}
