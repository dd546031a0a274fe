#pragma once

#include "core/base/units.hpp"

namespace capsim::karpenter {

class KarpenterController;

// Karpenter's disruption controller (core:pkg/controllers/disruption) on top of the
// provisioning engine: every 10 s one method may act, in upstream order — emptiness, drift,
// multi-node consolidation, single-node consolidation. Consolidation and emptiness commands are
// re-validated 15 s after they are computed (the loop is blocked meanwhile, as upstream's
// synchronous wait), then started: candidates get the karpenter.sh/disrupted taint,
// replacements are launched, and the candidates are deleted once every replacement is
// initialized (a command that cannot finish within 10 min, or whose replacement fails, is
// abandoned and its candidates un-tainted). Each pass is recorded as report::Decision rows for
// --explain: actions with their saving per hour, and for nodes kept, the blocking reason
// (deduplicated per node until it changes).
//
// Expiration (forceful) is the KarpenterController's; spot interruption is the engine's.
// Simplifications: wall-clock compute timeouts (1 min multi-node, 3 min single-node) are not
// modelled. Drains (PDB-paced evictions) are the engine's (sim::Engine::drain_step).

// Installs the disruption controller into `controller` (KarpenterController::set_disruption).
void install_disruption(KarpenterController& controller);

// Disruption timing constants (upstream values).
inline constexpr Duration k_command_validation_delay = 15 * k_second; // commandValidationDelay
inline constexpr Duration k_consolidation_state_reset = 5 * k_minute; // ConsolidationState refresh
inline constexpr Duration k_min_command_retry = 10 * k_minute;        // minRetryDuration
inline constexpr Duration k_max_command_retry = k_hour;               // maxRetryDuration
inline constexpr Duration k_command_retry_scale = 80;                 // retryDurationScale, per queued candidate
inline constexpr Duration k_queue_poll = k_second;                    // queueBaseDelay

} // namespace capsim::karpenter
