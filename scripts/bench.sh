#!/usr/bin/env bash
# Release benchmarks (issue #8). Never part of the tests: numbers go to bench/RESULTS.md by hand.
#   ./scripts/bench.sh            B1 scheduling, kube-scheduler binding, B3 disruption pass,
#                                 B2/B4 at 10k and 100k pods, a 5,000-pod kubectl dump's week
#   ./scripts/bench.sh --full     also the 1,000,000-pod week, a 50,000-pod dump and a
#                                 ~4,000-node day (minutes)
# Times are wall and CPU seconds from /usr/bin/time, with peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh time
build=build/bench
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCAPSIM_BUILD_TESTS=OFF -DCAPSIM_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
capsim="$build/cli/capsim"
work="$build/bench-work"
mkdir -p "$work"

echo "== machine"
nproc
lscpu | sed -n '1,12p'
g++ --version | head -1

echo "== B1 scheduling (Karpenter solve)"
"$build/bench/scheduling_bench"
echo "== kube-scheduler binding"
"$build/bench/kube_scheduler_bench"
echo "== B3 disruption pass"
"$build/bench/disruption_bench" 1000 5000

# Both engines on DIR/week.yaml: time, peak RSS, nodes, pods and cost.
run_engines() {
  local dir=$1 label=$2
  for engine in karpenter cluster-autoscaler; do
    echo "== $label: $engine"
    /usr/bin/time -f "$engine: %e s wall, %U s user, %M KB peak RSS" \
      "$capsim" run "$dir/week.yaml" -e "$engine" -o json --progress never --out "$dir/$engine.json"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print('  nodes', r['nodes'], 'pods', r['pods']['total'], 'cost', r['cost']['total_usd'])" "$dir/$engine.json"
  done
}

sizes=(10000 100000)
if [[ "${1:-}" == "--full" ]]; then
  sizes+=(1000000)
fi
for pods in "${sizes[@]}"; do
  # Mean rate over the week = pods / 168 h; the cycle's trough is 2/(1+3.96) of it.
  rate=$(awk -v n="$pods" 'BEGIN { printf "%.3f", n / 168 * 2 / 4.96 }')
  peak=$(awk -v r="$rate" 'BEGIN { printf "%.3f", r * 3.96 }')
  dir="$work/week-$pods"
  mkdir -p "$dir"
  cp bench/scenarios/week.yaml "$dir/week.yaml"
  "$capsim" trace generate --pattern poisson --rate-per-hour "$rate" --peak-rate-per-hour "$peak" \
    --period 24h --duration 168h --runtime lognormal:median=30m,p95=2h \
    --shapes 250m/512Mi,500m/1Gi,1/2Gi,1/4Gi,2/4Gi,2/8Gi,4/8Gi,4/16Gi,8/16Gi,8/32Gi \
    --template generated --seed 1 --out "$dir/week.csv"
  echo "== week, $pods pods: trace stats"
  /usr/bin/time -f "trace stats: %e s wall, %U s user, %M KB peak RSS" "$capsim" trace stats "$dir/week.csv" >/dev/null
  run_engines "$dir" "week, $pods pods"
  if [[ "$pods" == 100000 ]]; then
    # The same trace with every pod in one zonal topology spread.
    spread="$work/week-zonal-spread"
    mkdir -p "$spread"
    cp bench/scenarios/week-zonal-spread.yaml "$spread/week.yaml"
    cp "$dir/week.csv" "$spread/week.csv"
    run_engines "$spread" "week, $pods pods, zonal spread"
  fi
done

# Weeks replayed from kubectl dumps: a template per controller, topology groups per Deployment.
dump_sizes=(5000)
if [[ "${1:-}" == "--full" ]]; then
  dump_sizes+=(50000)
fi
for pods in "${dump_sizes[@]}"; do
  dir="$work/kubectl-$pods"
  mkdir -p "$dir"
  cp bench/scenarios/kubectl-week.yaml "$dir/week.yaml"
  python3 bench/kubectl_dump.py "$pods" 300 "$dir/pods.json"
  echo "== kubectl dump, $pods pods: trace stats"
  /usr/bin/time -f "trace stats: %e s wall, %U s user, %M KB peak RSS" \
    "$capsim" trace stats "$dir/pods.json" --format kubectl >/dev/null
  run_engines "$dir" "kubectl dump, $pods pods"
done

if [[ "${1:-}" == "--full" ]]; then
  # A large cluster's day: ~4,000 nodes, thousands of consolidation candidates per poll.
  dir="$work/day"
  mkdir -p "$dir"
  cp bench/scenarios/day.yaml "$dir/week.yaml"
  "$capsim" trace generate --pattern poisson --rate-per-hour 241 --peak-rate-per-hour 955 \
    --period 24h --duration 36h --runtime lognormal:median=40h,p95=100h \
    --shapes 250m/512Mi,500m/1Gi,1/2Gi,1/4Gi,2/4Gi,2/8Gi,4/8Gi,4/16Gi,8/16Gi,8/32Gi \
    --template generated --seed 1 --out "$dir/week.csv"
  run_engines "$dir" "large cluster day"
fi
