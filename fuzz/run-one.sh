#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS from a working copy of its seed corpus
# (fuzz/corpus/TARGET/: new inputs never land in the repository). Exits non-zero if
# it finds a crash, a leak, a sanitizer error or an unexpected exception, printing
# the end of its log. CTest runs it for every target (label 'fuzz'); so does run.sh.
# Usage: fuzz/run-one.sh BINARY WORKDIR [SECONDS]   (SECONDS default: $PIPESCOPE_FUZZ_SECONDS or 30)
set -euo pipefail
binary=$1 work=$2 seconds=${3:-${PIPESCOPE_FUZZ_SECONDS:-30}}
root="$(cd "$(dirname "$0")/.." && pwd)"
target=$(basename "$binary")
corpus="$work/corpus/$target"
mkdir -p "$corpus" "$work/artifacts/$target"
cp -n "$root/fuzz/corpus/$target/"* "$corpus/" 2>/dev/null || true
log="$work/$target.log"
echo "== $target: ${seconds}s"
if ! "$binary" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$work/artifacts/$target/" -print_final_stats=1 "$corpus" 2>"$log"; then
  echo "fuzz/run-one.sh: $target FAILED; see $log and $work/artifacts/$target/" >&2
  tail -40 "$log" >&2
  exit 1
fi
grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::peak_rss_mb" "$log" || true
