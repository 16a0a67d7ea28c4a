#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build/fuzz and runs each
# for SECONDS (default 30) from its seed corpus in fuzz/corpus/<target>/. Exits non-zero
# if any target finds a crash, a leak, a sanitizer error or an unexpected exception.
# Usage: fuzz/run.sh [SECONDS]
set -euo pipefail
seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/fuzz"
if ! command -v clang++ >/dev/null; then
  echo "fuzz/run.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$root/fuzz" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${launcher[@]}" >/dev/null
nice cmake --build "$build" -j"$(nproc)"

status=0
for target in fuzz_native_trace fuzz_chrome_trace fuzz_trace_json; do
  corpus="$build/corpus/$target"  # a working copy: new inputs never land in the repository
  mkdir -p "$corpus" "$build/artifacts/$target"
  cp -n "$root/fuzz/corpus/$target/"* "$corpus/" 2>/dev/null || true
  echo "== $target: ${seconds}s"
  if ! "$build/$target" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$build/artifacts/$target/" -print_final_stats=1 "$corpus" 2>"$build/$target.log"; then
    echo "fuzz/run.sh: $target FAILED; see $build/$target.log and $build/artifacts/$target/" >&2
    tail -40 "$build/$target.log" >&2
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::peak_rss_mb" "$build/$target.log" || true
done
exit $status
