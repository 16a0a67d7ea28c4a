#!/usr/bin/env bash
# Soak of an unbounded run (issue 16): `pipescope-cli run --batches 0` on the
# simulator for DURATION seconds at --slowdown SLOWDOWN, streaming its trace, with the
# process's resident memory (VmRSS) sampled every 10 s. Memory must stay bounded
# (the live window is --max-ops; the file holds every op). Then Ctrl-C, and the file
# is opened to count what it holds.
#
# Usage: tools/soak-unbounded-run.sh [DURATION=3600] [SLOWDOWN=5] [OUT=soak-out] [CLI=build/release/app/cli/pipescope-cli]
# At --slowdown 5 this configuration records about 130 k ops/s (645 k at 1).
# Writes OUT/rss.csv (seconds, rss_kib, trace_bytes) and OUT/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-3600}
SLOWDOWN=${2:-5}
OUT=${3:-soak-out}
CLI=${4:-build/release/app/cli/pipescope-cli}
mkdir -p "$OUT"
TRACE=$OUT/soak.pipescope
# Small batches, 4 streams: many ops per simulated second; the live window is the
# default 4 Mi ops of --batches 0 runs.
ARGS=(run --backend sim --profile h200 --batches 0 --slowdown "$SLOWDOWN" --mode async --memory pinned
      --streams 4 --batch-samples 1 --sample-bytes 16384 --max-ops 4194304 --trace "$TRACE" --no-progress --quiet)
echo "seconds,rss_kib,trace_bytes" >"$OUT/rss.csv"
"$CLI" "${ARGS[@]}" &
pid=$!
start=$(date +%s)
while :; do
  now=$(($(date +%s) - start))
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  size=$(stat -c %s "$TRACE" 2>/dev/null || echo 0)
  echo "$now,$rss,$size" >>"$OUT/rss.csv"
  [ "$now" -ge "$DURATION" ] && break
  sleep 10
done
kill -INT "$pid"
wait "$pid"
rc=$?
# Opening the whole file takes minutes for an hour's run (and a file over 200 M ops is
# refused by the reader's limit): count its ops only for runs up to 10 minutes.
ops=n/a
if [ "$DURATION" -le 600 ]; then
  ops=$("$CLI" analyze "$TRACE" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["op_count"])')
fi
{
  echo "machine: $(uname -n), $(nproc) cores, $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)"
  echo "date: $(date -u +%FT%TZ)"
  echo "command: pipescope-cli ${ARGS[*]}"
  echo "duration: $DURATION s, exit status after Ctrl-C: $rc"
  [ "$ops" != n/a ] && echo "ops in the trace file: $ops ($((ops / DURATION)) ops/s)"
  echo "trace file: $(stat -c %s "$TRACE") bytes"
  awk -F, 'NR > 1 { if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2; if ($1 >= 60 && (m60 == "")) m60 = $2; last = $2 }
           END { printf "RSS: min %d KiB, at 60 s %d KiB, max %d KiB, last %d KiB\n", min, m60, max, last }' "$OUT/rss.csv"
} | tee "$OUT/summary.txt"
