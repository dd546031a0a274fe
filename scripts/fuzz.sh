#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each one for SECONDS (default 10).
#   ./scripts/fuzz.sh             # a short smoke run
#   ./scripts/fuzz.sh 600         # ten minutes per target
#   ./scripts/fuzz.sh --runs N    # N inputs per target from the seeds alone, seed 1: the same
#                                 # inputs on every machine (what scripts/test.sh runs in CI)
# Seeds come from scenarios/ and tests/fuzz/seeds/; the growing corpora and any crash files stay
# in build/fuzz/ (never committed). Exits non-zero when a target finds a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-10}"
runs=""
if [[ "${1:-}" == "--runs" ]]; then
  runs="${2:?--runs needs a count}"
fi
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ is required (apt-get install clang libclang-rt-dev)" >&2
  exit 2
fi
build=build/fuzz
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DCAPSIM_FUZZ=ON -DCAPSIM_BUILD_BENCH=OFF >/dev/null
targets=(fuzz_scenario fuzz_trace_csv fuzz_trace_jsonl fuzz_trace_openb fuzz_trace_kubectl fuzz_capacity_reservations)
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

status=0
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  budget=(-max_total_time="$seconds")
  if [[ -n "$runs" ]]; then
    # A fresh corpus each time, so the run depends only on the seeds and the binary.
    corpus="$build/corpus-runs/$target"
    rm -rf "$corpus"
    budget=(-runs="$runs" -seed=1)
  fi
  artifacts="$build/artifacts/$target/"
  mkdir -p "$corpus" "$artifacts"
  case "$target" in
    fuzz_scenario) seeds=(scenarios tests/fuzz/seeds/scenario); extra=(-dict=tests/fuzz/scenario.dict) ;;
    fuzz_trace_csv) seeds=(tests/fuzz/seeds/csv scenarios/traces); extra=() ;;
    fuzz_trace_jsonl) seeds=(tests/fuzz/seeds/jsonl); extra=() ;;
    fuzz_trace_openb) seeds=(tests/fuzz/seeds/openb); extra=() ;;
    fuzz_trace_kubectl) seeds=(tests/fuzz/seeds/kubectl); extra=() ;;
    fuzz_capacity_reservations) seeds=(tests/fuzz/seeds/capacity-reservations); extra=() ;;
  esac
  log="$build/$target.log"
  if "$build/tests/fuzz/$target" "${budget[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
      -artifact_prefix="$artifacts" -print_final_stats=1 "${extra[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    done_runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || echo '?')
    done_secs=$(grep -o 'in [0-9]* second' "$log" | grep -o '[0-9]*' | tail -1 || echo '?')
    echo "$target: ok, $done_runs runs in ${done_secs}s"
  else
    status=1
    echo "$target: FINDING (see $log and $artifacts)"
    tail -n 40 "$log"
  fi
done
exit "$status"
