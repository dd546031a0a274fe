#pragma once

#include <cstdint>
#include <string_view>

namespace capsim {

// Seeded PRNG (xoshiro256**) with in-house distributions, so results are identical on every
// platform and standard library. Each purpose gets its own stream, derived from the scenario
// seed and a name, so a new draw in one place never shifts another.
class Rng
{
public:
  explicit Rng(std::uint64_t seed);
  Rng(std::uint64_t seed, std::string_view stream);

  std::uint64_t next_u64();

  // Uniform in [0, 1).
  double uniform();

  // Uniform integer in [0, n); n > 0.
  std::uint64_t below(std::uint64_t n);

  double exponential(double rate);

  double normal(double mean, double stddev);

  // Lognormal given its median and 95th percentile (both > 0, p95 >= median).
  double lognormal_median_p95(double median, double p95);

  std::uint64_t poisson(double mean);

private:
  std::uint64_t m_s[4]{};
};

// FNV-1a, for deriving stream seeds from names.
[[nodiscard]] std::uint64_t hash_name(std::string_view name);

} // namespace capsim
