#include "core/base/rng.hpp"

#include <cmath>

namespace capsim {

namespace {

std::uint64_t splitmix64(std::uint64_t& x)
{
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

std::uint64_t rotl(std::uint64_t x, int k)
{
  return (x << static_cast<unsigned>(k)) | (x >> static_cast<unsigned>(64 - k));
}

} // namespace

std::uint64_t hash_name(std::string_view name)
{
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(std::uint64_t seed)
{
  std::uint64_t x = seed;
  for (auto& s : m_s) {
    s = splitmix64(x);
  }
}

Rng::Rng(std::uint64_t seed, std::string_view stream) : Rng(seed ^ (hash_name(stream) * 0x9e3779b97f4a7c15ULL)) {}

std::uint64_t Rng::next_u64()
{
  const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
  const std::uint64_t t = m_s[1] << 17U;
  m_s[2] ^= m_s[0];
  m_s[3] ^= m_s[1];
  m_s[1] ^= m_s[2];
  m_s[0] ^= m_s[3];
  m_s[2] ^= t;
  m_s[3] = rotl(m_s[3], 45);
  return result;
}

double Rng::uniform()
{
  return static_cast<double>(next_u64() >> 11U) * 0x1.0p-53;
}

std::uint64_t Rng::below(std::uint64_t n)
{
  // Lemire's method without the rejection step's bias is unimportant here; use rejection.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x = next_u64();
  while (x >= limit) {
    x = next_u64();
  }
  return x % n;
}

double Rng::exponential(double rate)
{
  return -std::log1p(-uniform()) / rate;
}

double Rng::normal(double mean, double stddev)
{
  // Box-Muller, one value per call so the stream position is easy to reason about.
  double u1 = uniform();
  while (u1 <= 0.0) {
    u1 = uniform();
  }
  const double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double Rng::lognormal_median_p95(double median, double p95)
{
  const double mu = std::log(median);
  const double sigma = p95 > median ? (std::log(p95) - mu) / 1.6448536269514722 : 0.0;
  return std::exp(normal(mu, sigma));
}

std::uint64_t Rng::poisson(double mean)
{
  if (mean <= 0) {
    return 0;
  }
  if (mean < 30) {
    const double l = std::exp(-mean);
    std::uint64_t k = 0;
    double p = 1.0;
    do {
      ++k;
      p *= uniform();
    } while (p > l);
    return k - 1;
  }
  const double x = std::round(normal(mean, std::sqrt(mean)));
  return x < 0 ? 0 : static_cast<std::uint64_t>(x);
}

} // namespace capsim
