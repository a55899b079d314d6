#!/usr/bin/env bash
# The main job: builds normrt (Release, preset `release`, tree build/release) and
# runs the per-normalization benchmark bench_norm on this CPU, pinned to one core.
# bench_norm ends with a summary table of ratios. Extra arguments go to bench_norm,
# e.g. scripts/run_main.sh --benchmark_filter=rms
#
#   NORMRT_ISA=avx2 scripts/run_main.sh   force one ISA (scalar|avx2|avx512|neon)
#   NORMRT_SKIP_DEPS=1                    skip scripts/install_deps.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ "${NORMRT_SKIP_DEPS:-0}" != 1 ]]; then
  scripts/install_deps.sh
fi

jobs="$(nproc 2>/dev/null || echo 2)"
if [[ -f build/release/CMakeCache.txt ]] &&
  ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' build/release/CMakeCache.txt; then
  echo "run_main: build/release was configured with another generator; starting it afresh"
  rm -rf build/release
fi
cmake --preset release
cmake --build --preset release -j "$jobs" --target bench_norm

bench="build/release/bench/bench_norm"
[[ -x "$bench" ]] || bench="$(find build/release -type f -name bench_norm -perm -u+x | head -n 1)"
if [[ -z "$bench" ]]; then
  echo "run_main: bench_norm was not built" >&2
  exit 1
fi

# Pin to the last core (core 0 tends to take the interrupts), if taskset works here.
pin=()
core=$((jobs - 1))
if command -v taskset >/dev/null 2>&1 && taskset -c "$core" true 2>/dev/null; then
  pin=(taskset -c "$core")
  echo "run_main: running $bench pinned to core $core"
else
  echo "run_main: running $bench (taskset unavailable: not pinned)"
fi
exec "${pin[@]}" "$bench" "$@"
