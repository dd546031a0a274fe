#pragma once

#include "core/model/kube.hpp"
#include "core/model/requirements.hpp"
#include "core/model/resources.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace capsim::catalog {

// One (zone, capacity type) where an instance type can be bought, and at what price.
struct Offering
{
  std::string zone;
  std::string capacity_type; // "on-demand" | "spot" | "reserved"
  double price_per_hour = 0; // USD
  std::optional<int> interruption_band; // Spot Advisor band 0..4 (spot only)
  bool available = true;
  bool stale_price = false; // price taken from the 2020 multi-region table
  // Reserved offerings: the capacity reservation (On-Demand Capacity Reservation or Capacity
  // Block) and how many instances it has available at the start. Karpenter never places more
  // NodeClaims into a reservation than it has available (its ReservationManager).
  std::string reservation_id;
  std::int32_t reservation_capacity = 0;

  bool operator==(const Offering&) const = default;
};

// An instance type as Karpenter's cloud provider describes it: labels (its requirements),
// capacity, overhead (kube-reserved + system-reserved + eviction threshold) and offerings.
struct InstanceType
{
  std::string name;
  model::Labels labels; // well-known labels incl. node.kubernetes.io/instance-type, arch, os
  model::Resources capacity;
  model::Resources overhead;
  std::vector<Offering> offerings; // listed order is kept (it breaks launch ties)
  // Spec facts for `capsim catalog` (0 / "" when unknown).
  std::int32_t vcpu = 0;
  std::int64_t memory_mib = 0;
  std::string arch;
  std::int32_t gpu_count = 0;
  bool exotic = false; // metal size or GPU/accelerator: Karpenter's exotic filter
  // Capacity and overhead follow the AWS formulas with the AL2023 defaults (the embedded and
  // imported catalogs, inline types without `overhead`): an EC2NodeClass's kubelet settings
  // apply to it (catalog::apply_node_class).
  bool aws_model = false;
  // Well-known label keys this type does not have, which Karpenter's instance type
  // requirements state as DoesNotExist (e.g. instance-gpu-name on a CPU-only type), so that
  // `instance-gpu-count Gt 0` excludes it. Sorted.
  std::vector<std::string> absent_labels{};

  [[nodiscard]] model::Resources allocatable() const { return (capacity - overhead).floored(); }

  // Labels as requirements (each key In [value]); `os` may list several operating systems.
  model::Requirements requirements;

  // Cheapest available offering compatible with `reqs` (zone/capacity type), if any.
  [[nodiscard]] const Offering* cheapest_offering(const model::Requirements& reqs, bool available_only = true) const;
};

// Fills `requirements` from `labels` plus the offerings' zones and capacity types, as
// Karpenter's instance type requirements do (zone In [zones of offerings], ...), and a
// DoesNotExist requirement for each key of `absent_labels`. Marks a metal size (by its size
// label) exotic.
void finalize_requirements(InstanceType& it, const std::vector<std::string>& extra_os = {});

} // namespace capsim::catalog
