#!/usr/bin/env bash
# Checks the C and C++ sources against .clang-format (clang-format 14, Debian's
# clang-format package) and names each file that differs.
#
#   scripts/check_format.sh                 every tracked C/C++ file
#   scripts/check_format.sh --changed [REF] only the files changed since the merge
#                                           base with REF (default main), committed
#                                           or not
#   scripts/check_format.sh --fix [...]     rewrite the files instead of checking
#
# Exit status: 0 if every checked file is formatted, 1 if some differ, 2 on a
# usage error or a missing clang-format.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

fix=0
mode=all
ref=main
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fix) fix=1 ;;
    --changed)
      mode=changed
      if [[ $# -gt 1 && "$2" != --* ]]; then
        ref="$2"
        shift
      fi
      ;;
    *)
      echo "check_format: unknown argument '$1'" >&2
      exit 2
      ;;
  esac
  shift
done

if ! command -v clang-format >/dev/null; then
  echo "check_format: clang-format not found (scripts/install_deps.sh installs it)" >&2
  exit 2
fi

# tests/layers/violations is test input (include lines in the order
# test_layers_catches_violations expects them), not code: not formatted.
patterns=('*.c' '*.cc' '*.cpp' '*.h' '*.hpp' ':!tests/layers/violations')
if [[ "$mode" == changed ]]; then
  base="$(git merge-base HEAD "$ref")" || {
    echo "check_format: no merge base with '$ref'" >&2
    exit 2
  }
  mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- "${patterns[@]}")
else
  mapfile -t files < <(git ls-files -- "${patterns[@]}")
fi

if [[ ${#files[@]} -eq 0 ]]; then
  echo "check_format: no C/C++ file to check"
  exit 0
fi

if [[ $fix -eq 1 ]]; then
  clang-format -i -- "${files[@]}"
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi

differ=()
for file in "${files[@]}"; do
  if ! clang-format --dry-run --Werror -- "$file" >/dev/null 2>&1; then
    differ+=("$file")
  fi
done
if [[ ${#differ[@]} -gt 0 ]]; then
  printf '  %s\n' "${differ[@]}"
  echo "check_format: ${#differ[@]} of ${#files[@]} files differ from .clang-format" \
    "(scripts/check_format.sh --fix rewrites them)"
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
