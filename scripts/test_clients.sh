#!/usr/bin/env bash
# The real clients from PyPI against the real normrt-serve on loopback
# (tests/tools/serve/clients, pytest; docs/serve.md "Clients tested"):
#   1. a fresh venv build/clients-venv with openai, langchain-openai,
#      tritonclient[http], prometheus-client, numpy and pytest from PyPI;
#   2. normrt-serve and normrt-convert from the release build (build/release,
#      configured if absent);
#   3. all-MiniLM-L6-v2 (scripts/fetch_minilm.sh): served, and compared with
#      PyTorch's embeddings; without it the tiny BERT fixture is served and
#      the comparisons skip, saying so;
#   4. pytest. Its summary line is the last line but one.
# Every request goes to 127.0.0.1; nothing else is contacted. Arguments go to pytest.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
root="$PWD"
jobs="${NORMRT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
venv="$root/build/clients-venv"
start=$SECONDS

step() { echo "==== [clients] $* ($((SECONDS - start)) s)"; }
fail() { echo "test_clients: $*" >&2; exit 1; }

step "clean venv: openai langchain-openai tritonclient[http] prometheus-client numpy pytest"
rm -rf "$venv"
python3 -m venv "$venv" || fail "python3 -m venv failed (apt-get install python3-venv)"
"$venv/bin/python" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
"$venv/bin/python" -m pip install --quiet openai langchain-openai "tritonclient[http]" \
  prometheus-client numpy pytest ||
  fail "could not install the clients from PyPI"
"$venv/bin/python" -m pip list 2>/dev/null |
  grep -iE '^(openai|langchain-openai|langchain-core|tritonclient|tiktoken|prometheus.client|numpy) ' |
  sed 's/^/  /'

step "normrt-serve and normrt-convert (build/release)"
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi
if [[ ! -f build/release/CMakeCache.txt ]]; then
  cmake --preset release >/dev/null || fail "cmake --preset release failed"
fi
cmake --build build/release --target normrt-serve normrt-convert -j "$jobs" >/dev/null ||
  fail "building normrt-serve and normrt-convert failed"
export NORMRT_BUILD_DIR="$root/build/release"
if minilm_dir="$(scripts/fetch_minilm.sh)"; then
  export NORMRT_MINILM_DIR="$minilm_dir"
else
  echo "test_clients: all-MiniLM-L6-v2 could not be fetched: the tiny model is served instead"
fi

step "pytest tests/tools/serve/clients"
# No proxy, no tracing, no key from the environment: the clients talk to loopback only.
env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u LANGCHAIN_TRACING_V2 -u LANGSMITH_TRACING \
  NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
  "$venv/bin/python" -m pytest -p no:cacheprovider -rs tests/tools/serve/clients "$@"
rc=$?
echo "test_clients: $((SECONDS - start)) s in all"
exit $rc
