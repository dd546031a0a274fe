#!/usr/bin/env bash
# Installs missing packages, builds capsim (release) and runs the demo comparison:
# Karpenter vs Cluster Autoscaler on scenarios/quickstart.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh

build=build/release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCAPSIM_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target capsim

"$build/cli/capsim" run scenarios/quickstart.yaml -e all -o table
