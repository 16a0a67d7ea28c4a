#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build/fuzzers and runs
# each for SECONDS (default 30) from its seed corpus in fuzz/corpus/<target>/: the
# `fuzz` CMake workflow preset, whose tests (label 'fuzz') call fuzz/run-one.sh.
# Exits non-zero if any target finds a crash, a leak, a sanitizer error or an
# unexpected exception.
# Usage: fuzz/run.sh [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v clang++ >/dev/null; then
  echo "fuzz/run.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
cd "$root"
PIPESCOPE_FUZZ_SECONDS="${1:-${PIPESCOPE_FUZZ_SECONDS:-30}}" exec cmake --workflow --preset fuzz
