#pragma once

#include "core/base/diagnostics.hpp"
#include "core/model/scenario.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// The capacity reservations of `aws ec2 describe-capacity-reservations` output (JSON, or the
// same as YAML): {"CapacityReservations": [{CapacityReservationId, InstanceType,
// AvailabilityZone, AvailableInstanceCount, State, OwnerId, InstanceMatchCriteria,
// ReservationType, Tags: [{Key, Value}], ...}]}. Other fields are ignored. Throws InputError
// (FILE:LINE:COL) on malformed input; `source` names the text in messages.
[[nodiscard]] std::vector<model::CapacityReservation> parse_capacity_reservations(std::string_view text,
                                                                                const std::string& source);

} // namespace capsim::io
