#pragma once

#include "core/base/diagnostics.hpp"
#include "core/model/pod.hpp"
#include "core/model/scenario.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capsim::io {

// Pod trace formats (SPEC §3).
//  csv     header row; columns arrival, duration | departure, cpu, memory, gpu, template, name,
//          priority. arrival/departure: seconds from the start (decimals allowed) or RFC 3339
//          (then the earliest arrival is t = 0). duration: seconds or a Go duration ("90s").
//          cpu: a bare number is millicores ("250"), anything with a unit is a Kubernetes
//          quantity ("250m", "2" is NOT two cores: write "2000" or "2000m"). memory: a bare
//          number is MiB ("512"), else a quantity ("512Mi", "1G"). Empty cells: the template's
//          value (requests), runs to the end (duration/departure).
//  jsonl   one JSON object per line with the same keys; JSON numbers read like bare numbers.
//  openb   Alibaba cluster-trace-gpu-v2023 pod lists (name, cpu_milli, memory_mib, num_gpu,
//          gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time).
//  kubectl `kubectl get pods -A -o json` (or -o yaml): creationTimestamp, deletionTimestamp and
//          each pod's own requests and scheduling constraints.
enum class TraceFormat : std::uint8_t { csv, jsonl, openb, kubectl };

[[nodiscard]] std::optional<TraceFormat> parse_trace_format(std::string_view text);
[[nodiscard]] std::string_view to_string(TraceFormat format);
// By file extension: .jsonl -> jsonl, .json/.yaml/.yml -> kubectl, otherwise csv.
[[nodiscard]] TraceFormat guess_trace_format(std::string_view path);

// How trace rows become pods.
struct TraceOptions
{
  // Templates named by rows (and default_template) are looked up here; without a scenario,
  // a template is just a name carried on an otherwise default PodSpec (stats, convert).
  const model::Scenario* scenario = nullptr;
  std::string default_template; // for rows without a template column/value
  std::string name_prefix;      // names of unnamed rows: <prefix>-<row>; default: template or "trace"
  SourceLocation referenced_from; // the scenario line naming the trace (for a missing file)
};

// Reads a trace as a stream (rows are converted one at a time; kubectl dumps are parsed whole)
// into pods sorted by arrival, ties kept in row order. Row requests override the template's
// per resource; the spec is the template's PodSpecPtr (shared), or one default PodSpec.
// Errors are FILE:ROW:COL (several per file, up to Diagnostics::k_max_errors) in an InputError.
[[nodiscard]] std::vector<model::Pod> read_trace(const std::string& path, TraceFormat format,
                                                 const TraceOptions& options = {});
[[nodiscard]] std::vector<model::Pod> read_trace(std::istream& in, TraceFormat format, const std::string& source_name,
                                                 const TraceOptions& options = {});

// Writes pods as a csv or jsonl trace (columns arrival, duration, departure, cpu, memory, gpu,
// template, name, priority; absent values left empty). Reading it back gives the same pods.
void write_trace(std::ostream& out, const std::vector<model::Pod>& pods, TraceFormat format);

// Sorts pods by arrival; ties keep their current order. Uses an index permutation, so the
// extra memory is a few bytes per pod rather than a second copy of the vector.
void sort_by_arrival(std::vector<model::Pod>& pods);

// Seconds with millisecond precision, shortest form: 1500 -> "1.5", 60000 -> "60".
[[nodiscard]] std::string format_seconds(SimTime ms);

// RFC 3339 ("2024-05-01T12:00:00Z", "2024-05-01T14:00:00.5+02:00") to Unix milliseconds.
[[nodiscard]] std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text);

// Limits on trace values; beyond them a row is refused as absurd.
inline constexpr SimTime k_max_trace_time = 100LL * 366 * k_day;
inline constexpr std::size_t k_max_trace_line = std::size_t{1} << 20U;

} // namespace capsim::io
