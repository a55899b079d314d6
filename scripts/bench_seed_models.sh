#!/usr/bin/env bash
# normrt-bench over the seeds' systems (docs/bench.md, "The seeds' systems"):
# random-weight models at the experiments' sizes (bench/make_seed_models.py),
# each timed with LayerNorm, RMSNorm and pRMSNorm (p = 1/8) swapped in, fused
# and unfused, pinned to core 1, plus the built-in MiniLM-shaped encoder.
# JSON per model in build/seed_models/. Usage: scripts/bench_seed_models.sh [build dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/release}"
out="$root/build/seed_models"
python="${PYTHON:-/work/venv/bin/python}"
"$python" "$root/bench/make_seed_models.py" "$out" "$build/tools/convert/normrt-convert" >/dev/null
bench="$build/tools/bench/normrt-bench"
norms="layer_norm,rms_norm,prms_norm:0.125"
run() {  # name, extra args
  local name="$1"; shift
  taskset -c 1 "$bench" "$@" --norms "$norms" --runs 300 --max-seconds 90 \
    --json "$out/$name.bench.json"
}
run reader "$out/reader.nrmt" --seq-len 100
run order "$out/order.nrmt" --seq-len 12
run handwriting "$out/handwriting.nrmt" --seq-len 1
run cnn "$out/cnn.nrmt"
run ln_gru "$out/ln_gru.nrmt" --seq-len 32
run minilm --widths 384 --seq-len 32
