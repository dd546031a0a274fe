#!/usr/bin/env bash
# Two capsim binaries side by side on benchmark scenarios (issue #8). This machine is a shared VM
# whose speed drifts by tens of percent within minutes, so a change is timed by alternating the
# old and the new binary run by run, never from runs minutes apart.
#
#   ./scripts/bench-compare.sh OLD NEW [--runs N] [--engine ENGINE] SCENARIO...
#
# SCENARIO: a scenario file, e.g. build/bench/bench-work/week-100000/week.yaml as
# ./scripts/bench.sh writes it. ENGINE: karpenter, cluster-autoscaler or both (default).
# N: runs of each binary per scenario and engine (default 5). Prints the best and the median user
# CPU seconds of each binary, and exits 1 when their JSON outputs differ: an optimisation must not
# change a byte.
set -euo pipefail

usage() {
  sed -n '5,12p' "$0" >&2
  exit 2
}

[[ $# -ge 3 ]] || usage
old=$1
new=$2
shift 2
runs=5
engines=(karpenter cluster-autoscaler)
scenarios=()
while [[ $# -gt 0 ]]; do
  case $1 in
  --runs) runs=${2:?}; shift 2 ;;
  --engine)
    case ${2:?} in
    both) engines=(karpenter cluster-autoscaler) ;;
    karpenter | cluster-autoscaler) engines=("$2") ;;
    *) usage ;;
    esac
    shift 2
    ;;
  -*) usage ;;
  *) scenarios+=("$1"); shift ;;
  esac
done
[[ ${#scenarios[@]} -gt 0 && $runs =~ ^[1-9][0-9]*$ ]] || usage
for bin in "$old" "$new"; do
  [[ -x $bin ]] || { echo "bench-compare: $bin is not an executable" >&2; exit 2; }
done

"$(dirname "$0")/deps.sh" time
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# best and median of the numbers on stdin
summary() {
  sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "best %.2f s, median %.2f s", v[1], m }'
}

status=0
for scenario in "${scenarios[@]}"; do
  for engine in "${engines[@]}"; do
    : >"$work/old.times"
    : >"$work/new.times"
    for ((run = 1; run <= runs; run++)); do
      for side in old new; do
        bin=$old
        [[ $side == new ]] && bin=$new
        /usr/bin/time -f "%U" -o "$work/time" \
          "$bin" run "$scenario" -e "$engine" -o json --progress never --out "$work/$side.json"
        cat "$work/time" >>"$work/$side.times"
      done
    done
    echo "$scenario, $engine ($runs runs each, alternating):"
    echo "  old: $(summary <"$work/old.times")"
    echo "  new: $(summary <"$work/new.times")"
    if cmp -s "$work/old.json" "$work/new.json"; then
      echo "  outputs: identical"
    else
      echo "  outputs: DIFFERENT" >&2
      status=1
    fi
  done
done
exit "$status"
