#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::model {

// Resource dimensions are interned: the first five are fixed, others (extended resources such
// as fake.com/vendor-a or aws.amazon.com/neuron) get the next free slot when first named.
// cpu is in millicores, memory and ephemeral-storage in bytes, everything else in units.
using ResourceId = std::uint8_t;
inline constexpr ResourceId k_cpu = 0;
inline constexpr ResourceId k_memory = 1;
inline constexpr ResourceId k_pods = 2;
inline constexpr ResourceId k_ephemeral_storage = 3;
inline constexpr ResourceId k_nvidia_gpu = 4;
inline constexpr std::size_t k_max_resources = 16;

// The id for a resource name, registering it if new; nullopt when the table is full.
[[nodiscard]] std::optional<ResourceId> resource_id(std::string_view name);
// The id of an already-known name only.
[[nodiscard]] std::optional<ResourceId> find_resource_id(std::string_view name);
[[nodiscard]] std::string resource_name(ResourceId id);
[[nodiscard]] std::size_t resource_count();

// A fixed vector of quantities, one per interned resource dimension.
struct Resources
{
  std::array<std::int64_t, k_max_resources> v{};

  [[nodiscard]] std::int64_t operator[](ResourceId id) const { return v[id]; }

  std::int64_t& operator[](ResourceId id) { return v[id]; }

  [[nodiscard]] std::int64_t cpu() const { return v[k_cpu]; }

  [[nodiscard]] std::int64_t memory() const { return v[k_memory]; }

  [[nodiscard]] std::int64_t pods() const { return v[k_pods]; }

  Resources& operator+=(const Resources& o)
  {
    for (std::size_t i = 0; i < k_max_resources; ++i) {
      v[i] += o.v[i];
    }
    return *this;
  }

  Resources& operator-=(const Resources& o)
  {
    for (std::size_t i = 0; i < k_max_resources; ++i) {
      v[i] -= o.v[i];
    }
    return *this;
  }

  friend Resources operator+(Resources a, const Resources& b) { return a += b; }

  friend Resources operator-(Resources a, const Resources& b) { return a -= b; }

  // (Inline: schedulers compare requests millions of times, and the defaulted operator calls
  // memcmp. Requests that differ mostly differ in cpu or memory; the rest are compared at once.)
  bool operator==(const Resources& o) const
  {
    if (v[k_cpu] != o.v[k_cpu] || v[k_memory] != o.v[k_memory]) {
      return false;
    }
    std::uint64_t diff = 0;
    for (std::size_t i = 0; i < k_max_resources; ++i) {
      diff |= static_cast<std::uint64_t>(v[i] ^ o.v[i]);
    }
    return diff == 0;
  }

  // Every dimension of *this is <= the same dimension of `capacity`.
  [[nodiscard]] bool fits_in(const Resources& capacity) const
  {
    for (std::size_t i = 0; i < k_max_resources; ++i) {
      if (v[i] > capacity.v[i]) {
        return false;
      }
    }
    return true;
  }

  [[nodiscard]] bool is_zero() const
  {
    for (const auto x : v) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  [[nodiscard]] static Resources max_of(const Resources& a, const Resources& b)
  {
    Resources r;
    for (std::size_t i = 0; i < k_max_resources; ++i) {
      r.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
    }
    return r;
  }

  // Negative entries become 0.
  [[nodiscard]] Resources floored() const
  {
    Resources r = *this;
    for (auto& x : r.v) {
      x = x < 0 ? 0 : x;
    }
    return r;
  }
};

// Parse a Kubernetes resource name/quantity pair into r (cpu as milli, others as units).
// Returns an error message or "".
[[nodiscard]] std::string set_resource(Resources& r, std::string_view name, std::string_view quantity);

// "cpu=500m memory=1Gi pods=1"-like text, for logs and error messages.
[[nodiscard]] std::string to_string(const Resources& r);

} // namespace capsim::model
