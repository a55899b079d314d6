#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang + ASan + UBSan) in build/fuzz and
# runs each one for a bounded time from its seed corpus (docs/fuzzing.md).
#
#   scripts/run_fuzz.sh [seconds per target]      default 30
#   NORMRT_SKIP_DEPS=1 scripts/run_fuzz.sh        skip scripts/install_deps.sh
#   NORMRT_FUZZ_JOBS=1 scripts/run_fuzz.sh        targets run one at a time (default: nproc)
#   NORMRT_FUZZ_TARGETS="npy npz" scripts/run_fuzz.sh   only these targets
#
# Each run reads fuzz/corpus/<target>/ and fuzz/regressions/<target>/ but
# writes new inputs only to build/fuzz/runs/<target>/corpus/ (the repository
# is never written), crash inputs to build/fuzz/runs/<target>/, its log to
# build/fuzz/runs/<target>/log. Prints one line per target (executions,
# coverage, result) and "fuzz: N targets, M crashes"; exits non-zero on any
# crash, leak, timeout or out-of-memory, printing the input's path.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
seconds="${1:-30}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "run_fuzz: seconds per target must be a positive integer, found '$seconds'" >&2
  exit 2
fi

if [[ "${NORMRT_SKIP_DEPS:-0}" != 1 ]]; then
  scripts/install_deps.sh || exit 1
fi

build=build/fuzz
jobs="${NORMRT_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
# The target list lives in fuzz/fuzz_targets.cmake.
all_targets="$(sed -n 's/^set(NORMRT_FUZZ_TARGETS \(.*\))$/\1/p' fuzz/fuzz_targets.cmake)"
targets=(${NORMRT_FUZZ_TARGETS:-$all_targets})

# A tree configured with another generator or compiler cannot be reused.
if [[ -f "$build/CMakeCache.txt" ]] &&
  ! { grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$build/CMakeCache.txt" &&
    grep -q '^CMAKE_CXX_COMPILER:.*clang++' "$build/CMakeCache.txt"; }; then
  echo "run_fuzz: $build was configured with another generator or compiler; starting it afresh"
  rm -rf "$build"
fi

start=$SECONDS
echo "==== [fuzz] configure and build (clang, -fsanitize=fuzzer,address,undefined) ===="
# -O1 with line tables: fast enough to fuzz, readable stack traces, asserts on.
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DNORMRT_BUILD_FUZZERS=ON -DNORMRT_BUILD_TESTS=OFF -DNORMRT_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only" \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; echo "run_fuzz: configure failed" >&2; exit 1; }
cmake --build "$build" --target fuzzers -j "$jobs" || { echo "run_fuzz: build failed" >&2; exit 1; }
build_seconds=$((SECONDS - start))
echo "run_fuzz: built in ${build_seconds} s"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# Runs one target; its output goes to runs/<target>/log.
run_target() {
  local name="$1" run="$build/runs/$1"
  rm -rf "$run"
  mkdir -p "$run/corpus"
  local inputs=("fuzz/corpus/$name")
  [[ -d "fuzz/regressions/$name" ]] && inputs+=("fuzz/regressions/$name")
  local dict=()
  [[ -f "fuzz/$name.dict" ]] && dict=("-dict=fuzz/$name.dict")
  "$build/fuzz/fuzz_$name" "$run/corpus" "${inputs[@]}" "${dict[@]}" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$run/" >"$run/log" 2>&1
  echo $? >"$run/exit"
}

echo "==== [fuzz] ${#targets[@]} targets, ${seconds} s each, $jobs at a time ===="
fuzz_start=$SECONDS
running=0
for name in "${targets[@]}"; do
  if [[ ! -x "$build/fuzz/fuzz_$name" ]]; then
    echo "run_fuzz: unknown target '$name' (targets: $all_targets)" >&2
    exit 2
  fi
  run_target "$name" &
  running=$((running + 1))
  if [[ $running -ge $jobs ]]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

crashes=0
for name in "${targets[@]}"; do
  run="$build/runs/$name"
  log="$run/log"
  code="$(cat "$run/exit" 2>/dev/null || echo '?')"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  [[ -z "$execs" ]] && execs="$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')"
  stats="$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1)"
  if [[ "$code" == 0 ]]; then
    result=ok
  else
    crashes=$((crashes + 1))
    kind="$(grep -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)[^(]*' "$log" |
      head -n 1)"
    [[ -z "$kind" ]] && kind="$(grep -m1 -oE 'runtime error: .*|FUZZ_CHECK.*' "$log")"
    input="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
    result="CRASH (exit $code: ${kind:-see log}) input: ${input:-none written}, log: $log"
  fi
  printf 'fuzz_%-13s %10s execs  %-28s %s\n' "$name" "${execs:-?}" "${stats:-no stats}" "$result"
done
echo "run_fuzz: build ${build_seconds} s, runs $((SECONDS - fuzz_start)) s, total $((SECONDS - start)) s"
echo "fuzz: ${#targets[@]} targets, $crashes crashes"
[[ $crashes -eq 0 ]]
