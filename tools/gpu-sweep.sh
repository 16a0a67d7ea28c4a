#!/usr/bin/env bash
# The H200 part of the sweep issue, in one call on the GPU machine (one build, no Qt):
#   two 20-point sweeps (5 batch sizes x 1, 2, 4, 8 streams, 20 measured batches
#   after 2 warm-up, 3 repetitions) through `pipescope-cli sweep --backend cuda`, one
#   copy-heavy and one compute-heavy, each timed (target: under 30 s), with the
#   simulator's prediction (h200 profile) beside the measurement; then the
#   recommended point and its neighbour with one stream fewer and one more, each run
#   alone with a trace, so the recommendation can be checked against the timelines.
# Everything goes to $OUT/gpu-sweep/ (table .txt, .csv, .json, traces, timings) and
# comes back packed as $OUT/gpu-sweep.tar.gz; summary.log also comes back on its own.
# The sweep images are rendered afterwards on a machine with Qt:
#   pipescope --sweep-json copy-heavy.json --screenshot docs/screenshots/sweep-h200-copy-heavy.png
# Usage: tools/gpu-sweep.sh [extra sweep options...]
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-sweep-out}
L=$OUT/gpu-sweep
mkdir -p "$L"
J=$(nproc)
B=build-gpu
CLI=$B/app/cli/pipescope-cli
T0=$(date +%s)
stamp() { tar -C "$OUT" -czf "$OUT/gpu-sweep.tar.gz" gpu-sweep 2>/dev/null; echo "== [$(( $(date +%s) - T0 )) s] $*"; }
gpu_environment 2>&1 | tee "$L/env.log" "$OUT/summary.log"

stamp build | tee -a "$OUT/summary.log"
cmake -S . -B $B "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESCOPE_BUILD_BENCH=OFF \
  >"$L/build.log" 2>&1 && ninja -C $B -j"$J" pipescope-cli >>"$L/build.log" 2>&1
rc=$?
tail -5 "$L/build.log"
if [ $rc -ne 0 ]; then echo "BUILD FAILED" | tee -a "$OUT/summary.log"; stamp "failed"; exit 1; fi

GRID=(--sample-bytes 256K --batch 256K,1M,4M,16M,64M --streams 1,2,4,8 --batches 20 --warmup 2 --repeat 3)
# copy-heavy: a light kernel (50 flop/B, ~5% of the copy time); compute-heavy: 8000
# flop/B (the kernel takes ~8x the H2D copy on an H200; 1050 flop/B balances them).
declare -A CASES=([copy-heavy]="--model-flops-per-byte 50" [compute-heavy]="--model-flops-per-byte 8000")
for name in copy-heavy compute-heavy; do
  stamp "sweep $name" | tee -a "$OUT/summary.log"
  # shellcheck disable=SC2086
  args=(--backend cuda --memory pinned ${CASES[$name]} "${GRID[@]}" --predict h200 --no-progress "$@")
  echo "pipescope-cli sweep ${args[*]}" >"$L/$name.cmd"
  start=$(date +%s.%N)
  timeout 240 $CLI sweep "${args[@]}" --csv "$L/$name.csv" --json "$L/$name.json" >"$L/$name.txt" 2>"$L/$name.err"
  rc=$?
  end=$(date +%s.%N)
  wall=$(awk "BEGIN{printf \"%.2f\", $end - $start}")
  echo "sweep $name rc=$rc wall=${wall}s (process, build excluded)" | tee -a "$OUT/summary.log"
  cat "$L/$name.txt" "$L/$name.err" | tee -a "$OUT/summary.log"
done

# The recommended point alone, and with one stream fewer / more, with traces.
stamp "individual runs" | tee -a "$OUT/summary.log"
for name in copy-heavy compute-heavy; do
  [ -s "$L/$name.json" ] || continue
  command -v python3 >/dev/null || { echo "no python3: skipping individual runs"; break; }
  python3 - "$L/$name.json" >"$L/$name.points" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
chosen = j["recommendation"]["chosen"]
pts = {p["index"]: p for p in j["points"]}
c = pts[chosen]["config"]
streams = sorted(j["spec"]["streams"])
i = streams.index(c["streams"])
for s in sorted({streams[max(0, i - 1)], c["streams"], streams[min(len(streams) - 1, i + 1)]}):
    print(c["batch-samples"], s)
PY
  while read -r samples streams; do
    tag="$name-b${samples}-s${streams}"
    # shellcheck disable=SC2086
    timeout 60 $CLI run --backend cuda --memory pinned --sample-bytes 256K ${CASES[$name]} --batch-samples "$samples" --streams "$streams" \
      --batches 22 --trace "$L/$tag.trace.json" --no-progress >"$L/$tag.txt" 2>&1
    echo "run $tag rc=$?" | tee -a "$OUT/summary.log"
    grep -E "makespan|samples/s|bottleneck|efficiency" "$L/$tag.txt" | head -6 | tee -a "$OUT/summary.log"
  done <"$L/$name.points"
done
stamp done | tee -a "$OUT/summary.log"
