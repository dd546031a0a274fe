#pragma once

#include "core/sweep/sweep.hpp"

#include <string>
#include <string_view>
#include <vector>

// `capsim sweep --emit-k8s-job`: a Kubernetes Indexed Job (batch/v1) that runs the shards of a
// sweep, one completion index per shard, with the scenario and its files in a ConfigMap.
namespace capsim::sweep {

// A file the pods need: its path relative to the scenario's folder (where it is mounted under
// /scenario) and its bytes.
struct JobFile
{
  std::string path;
  std::string content;
};

struct K8sJobOptions
{
  std::string name;               // the Job's metadata.name (DNS-1123 label); ConfigMap: name + "-scenario"
  std::string image;              // a container image with `capsim` on its PATH
  std::size_t shards = 1;         // spec.completions: one shard per completion index
  std::size_t parallelism = 0;    // spec.parallelism; 0 = every shard at once
  unsigned cpu = 1;               // CPU request per pod, and its --jobs
  std::string memory = "1Gi";     // memory request and limit per pod (a Kubernetes quantity)
  std::string pvc;                // a PersistentVolumeClaim for the outputs; "" = stdout (kubectl logs)
  int backoff_limit = 3;          // spec.backoffLimit (pod failures over all indexes)
  SweepSpec spec;                 // the sweep the pods run (scenario_file is the mounted file's name)
  std::vector<JobFile> files;     // the scenario file first, then traces and catalog files
};

// Largest ConfigMap payload Kubernetes accepts (1 MiB).
inline constexpr std::size_t k_max_configmap_bytes = 1U << 20U;

// The arguments after `capsim sweep SCENARIO` that define `spec` (--set, --vary, --seeds,
// --seed, -e), so that a pod runs exactly the same grid.
[[nodiscard]] std::vector<std::string> sweep_arguments(const SweepSpec& spec);

// "capsim-sweep-<scenario name>" as a DNS-1123 label of at most 52 characters.
[[nodiscard]] std::string default_job_name(std::string_view scenario_name);

// InputError at `option` when `name` is not a DNS-1123 label (lowercase letters, digits and
// '-', starting and ending with a letter or digit, at most 63 characters).
void check_job_name(const std::string& name, const std::string& option);

// The manifest: a ConfigMap, then the Job, "---" separated. Each pod runs
// `capsim sweep /scenario/<file> <sweep_arguments> --shard $(JOB_COMPLETION_INDEX)/N --jobs CPU
// --progress never -o json`, printing the shard JSON (or writing it to the PVC as
// /results/<name>-shard-<index>.json). restartPolicy Never; exit codes 2 (bad input) and 3
// (internal error) fail the Job at once (podFailurePolicy); evictions are not counted.
// Strings are double-quoted YAML; file contents are literal blocks when that keeps them
// byte-exact, else quoted (binaryData base64 when not UTF-8). InputError when the files exceed
// k_max_configmap_bytes.
[[nodiscard]] std::string render_k8s_job(const K8sJobOptions& options);

// YAML double-quoted scalar for any UTF-8 text (escapes \, ", controls and YAML line breaks).
[[nodiscard]] std::string yaml_quote(std::string_view text);

} // namespace capsim::sweep
