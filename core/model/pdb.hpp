#pragma once

#include "core/model/kube.hpp"
#include "core/model/pod.hpp"

#include <cstdint>
#include <limits>

namespace capsim::model {

// DisruptionsAllowed of a PodDisruptionBudget (the disruption controller's arithmetic): with
// `expected` matching pods that have not finished and `healthy` of them running, minAvailable
// or maxUnavailable as a count or a percentage of `expected` (percentages round up).
// k_unlimited_disruptions when the PDB has neither field or an unparsable one.
inline constexpr std::int64_t k_unlimited_disruptions = std::numeric_limits<std::int64_t>::max();
[[nodiscard]] std::int64_t pdb_disruptions_allowed(const PodDisruptionBudget& pdb, std::int64_t expected,
                                                   std::int64_t healthy);

// The PDB covers pods of this spec: same namespace, selector matches the labels.
[[nodiscard]] bool pdb_selects(const PodDisruptionBudget& pdb, const PodSpec& spec);

} // namespace capsim::model
