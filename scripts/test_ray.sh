#!/usr/bin/env bash
# The Ray Serve scale-out test (deploy/ray, docs/deploy.md): a local Ray
# cluster on loopback (a head node and a second node, 1 CPU each), normrt's
# deployment with 2 replicas, >= 500 requests through Serve's HTTP proxy
# checked bit for bit against one process, then 1 replica for the
# throughput ratio (build/ray/throughput.json).
#   1. the venv of scripts/test_python.sh with the wheel installed (built
#      here if absent), plus ray[serve] and requests from PyPI;
#   2. all-MiniLM-L6-v2 (scripts/fetch_minilm.sh) converted with mean pooling
#      and --max-seq 256 by build/release's normrt-convert;
#   3. pytest deploy/ray, bounded by NORMRT_RAY_TIMEOUT seconds (default 900).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root="$PWD"
venv="$root/build/python-venv"
out="$root/build/ray"
jobs="${NORMRT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
start=$SECONDS
step() { echo "==== [ray] $* ($((SECONDS - start)) s)"; }
fail() { echo "test_ray: $*" >&2; exit 1; }

if ! (cd / && "$venv/bin/python" -c "import normrt" >/dev/null 2>&1); then
  step "no venv with normrt: building it (scripts/test_python.sh)"
  NORMRT_PYTHON_BUILD_ONLY=1 scripts/test_python.sh || fail "building the wheel failed"
fi
step "ray[serve] and requests from PyPI"
"$venv/bin/python" -m pip install --quiet "ray[serve]" requests ||
  fail "could not install ray[serve] from PyPI"
"$venv/bin/python" -c "import ray; print('ray', ray.__version__)"

step "the model: all-MiniLM-L6-v2, --pooling mean --max-seq 256"
minilm_dir="$(scripts/fetch_minilm.sh)" || fail "all-MiniLM-L6-v2 could not be fetched"
if [[ ! -f build/release/CMakeCache.txt ]]; then
  cmake --preset release >/dev/null || fail "cmake --preset release failed"
fi
cmake --build build/release --target normrt-convert -j "$jobs" >/dev/null ||
  fail "building normrt-convert failed"
mkdir -p "$out"
build/release/tools/convert/normrt-convert --config "$minilm_dir/config.json" \
  --weights "$minilm_dir/model.safetensors" --output "$out/minilm.nrmt" \
  --pooling mean --max-seq 256 --quiet || fail "normrt-convert failed"

step "pytest deploy/ray (2 nodes, 2 replicas, then 1)"
export NORMRT_RAY_MODEL="$out/minilm.nrmt" NORMRT_RAY_TOKENIZER="$minilm_dir"
export NORMRT_RAY_RESULTS="$out/throughput.json"
rm -f "$NORMRT_RAY_RESULTS"
timeout --signal=INT --kill-after=60 "${NORMRT_RAY_TIMEOUT:-900}" \
  "$venv/bin/python" -m pytest -p no:cacheprovider -s -rs -W ignore::DeprecationWarning \
  deploy/ray "$@"
rc=$?
[[ -f "$NORMRT_RAY_RESULTS" ]] && echo "throughput: $(tr -d '\n ' <"$NORMRT_RAY_RESULTS")"
echo "test_ray: $((SECONDS - start)) s in all"
exit $rc
