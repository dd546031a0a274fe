#!/usr/bin/env bash
# Installs missing packages, builds with AddressSanitizer + UndefinedBehaviorSanitizer and
# warnings as errors, and runs every test. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
# Headless Chromium renders the HTML report in an end-to-end test; best effort (the test says
# SKIPPED where it cannot be installed).
./scripts/deps.sh chromium || echo "capsim: chromium could not be installed; the HTML rendering test will skip" >&2

build=build/asan
# -O1: the sanitized tests run several times faster than at -O0 and stay debuggable.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DCAPSIM_SANITIZE=ON \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DCAPSIM_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$(nproc)"

# A short, deterministic libFuzzer pass over the scenario and trace readers (clang).
./scripts/deps.sh clang libclang-rt-dev
./scripts/fuzz.sh --runs 20000

# The README's quick start, second half: the demo builds its own release binary and must run.
./scripts/demo.sh >/dev/null
