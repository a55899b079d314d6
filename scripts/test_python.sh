#!/usr/bin/env bash
# Builds the Python package's wheel in a clean venv and runs its tests
# (python/tests, pytest):
#   1. a fresh venv build/python-venv with numpy, pytest, scikit-build-core,
#      nanobind and mypy (the stubs' check) from PyPI;
#   2. the wheel, built with that venv's scikit-build-core and nanobind (no
#      build isolation; build tree build/python/<tag>, kept between runs) into
#      build/python-dist, then installed into the venv;
#   3. what the tests use from the C++ build (build/release, configured if
#      absent): normrt-convert (fixtures → model files) and libnormrt.so (the
#      C API reference), and all-MiniLM-L6-v2 (scripts/fetch_minilm.sh; its
#      tests skip, saying so, without it);
#   4. pytest from outside python/, so that `import normrt` is the installed
#      wheel. Its summary line is the last line but one.
# The live sentence-transformers comparison runs when an interpreter with
# sentence-transformers is found: $NORMRT_ST_PYTHON, else /work/venv/bin/python
# (the machine's helper venv) if it has it; the committed reference is always
# compared. Arguments go to pytest. NORMRT_PYTHON_BUILD_ONLY=1: stop after
# installing the wheel (scripts/test_ray.sh uses the venv).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root="$PWD"
jobs="${NORMRT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
venv="$root/build/python-venv"
dist="$root/build/python-dist"
start=$SECONDS

step() { echo "==== [python] $* ($((SECONDS - start)) s)"; }
fail() { echo "test_python: $*" >&2; exit 1; }

if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi
export CMAKE_BUILD_PARALLEL_LEVEL="$jobs"

step "clean venv: numpy pytest scikit-build-core nanobind mypy"
rm -rf "$venv" "$dist"
python3 -m venv "$venv" || fail "python3 -m venv failed (apt-get install python3-venv)"
"$venv/bin/python" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
"$venv/bin/python" -m pip install --quiet numpy pytest scikit-build-core nanobind mypy ||
  fail "could not install numpy, pytest, scikit-build-core, nanobind, mypy from PyPI"

step "build the wheel (pip wheel --no-build-isolation .)"
"$venv/bin/python" -m pip wheel --quiet --no-build-isolation --no-deps -w "$dist" . ||
  fail "building the wheel failed"
wheel="$(ls "$dist"/normrt-*.whl 2>/dev/null | head -n 1)"
[[ -n "$wheel" ]] || fail "no wheel in $dist"
echo "wheel: ${wheel#"$root/"} ($(du -k "$wheel" | cut -f1) kB)"
"$venv/bin/python" -m pip install --quiet "$wheel" || fail "installing $wheel failed"
(cd / && "$venv/bin/python" -c "import normrt; print('import normrt', normrt.__version__, 'from', normrt.__file__)") ||
  fail "import normrt failed after installing the wheel"
[[ "${NORMRT_PYTHON_BUILD_ONLY:-0}" == 1 ]] && exit 0

step "C++ tools for the fixtures (build/release: normrt-convert, libnormrt.so)"
if [[ ! -f build/release/CMakeCache.txt ]]; then
  cmake --preset release >/dev/null || fail "cmake --preset release failed"
fi
cmake --build build/release --target normrt-convert normrt -j "$jobs" >/dev/null ||
  fail "building normrt-convert and normrt failed"
export NORMRT_BUILD_DIR="$root/build/release"
if minilm_dir="$(scripts/fetch_minilm.sh)"; then
  export NORMRT_MINILM_DIR="$minilm_dir"
else
  echo "test_python: all-MiniLM-L6-v2 could not be fetched: its tests will skip"
fi
if [[ -z "${NORMRT_ST_PYTHON:-}" && -x /work/venv/bin/python ]] &&
  /work/venv/bin/python -c "import sentence_transformers" >/dev/null 2>&1; then
  export NORMRT_ST_PYTHON=/work/venv/bin/python
fi
echo "live sentence-transformers comparison: ${NORMRT_ST_PYTHON:-not run (no interpreter with sentence-transformers)}"

step "pytest python/tests"
"$venv/bin/python" -m pytest -p no:cacheprovider -rs python/tests "$@"
rc=$?
echo "test_python: $((SECONDS - start)) s in all"
exit $rc
