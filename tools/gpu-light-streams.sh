#!/usr/bin/env bash
# The light cuBLAS model on many streams, measured and predicted side by side
# (docs/fidelity.md, "structural limits"): the configurations where the simulator
# was 3.6-4.6x too fast, the light model on 1 and 8 streams at 512 KiB and 32 MiB
# batches and the heavy model on 7 streams (within 6 %), each run on the GPU with its
# trace and on the simulator with PROFILE; per run the makespans and, from the
# traces, the mean GEMM kernel, the mean cublasSgemm call and the mean host wait.
# Run on the GPU machine after a build (tools/gpu-call.sh step light[:PROFILE]):
#   OUT=dir BUILD_DIR=build-gpu PROFILE=profile.json bash tools/gpu-light-streams.sh
# Writes OUT/NAME-{gpu,sim}.pipescope and .csv, and OUT/light-streams.txt.
set -u -o pipefail
OUT=${OUT:-$PWD/light-streams-out}
CLI=${BUILD_DIR:-build-gpu}/app/cli/pipescope-cli
PROFILE=${PROFILE:-h100-calibrated}
mkdir -p "$OUT"
report=$OUT/light-streams.txt
: >"$report"

# One line per trace: makespan, mean duration of GEMM kernels, cublasSgemm calls and host waits.
trace_line() {
  "$CLI" convert "$1" "${1%.pipescope}.csv" >/dev/null || return 1
  awk -F, 'NR == 1 { next }
    { if ($13 != "" && ($12 + 0) >= 0) { if (first == "" || $13 < first) first = $13; if ($14 > last) last = $14 } }
    $2 == "kernel" && $3 == "gemm" { g += $15; ng++ }
    $2 == "API call" && $3 == "cublasSgemm" { c += $15; nc++ }
    $2 == "host sync" { w += $15; nw++ }
    END { printf "makespan %8.3f ms  gemm %7.2f us x %d  cublasSgemm call %6.2f us x %d  host wait %8.2f us x %d\n",
          (last - first) / 1e6, ng ? g / ng / 1e3 : 0, ng, nc ? c / nc / 1e3 : 0, nc, nw ? w / nw / 1e3 : 0, nw }' \
    "${1%.pipescope}.csv"
}

run_pair() {
  local name=$1
  shift
  for side in gpu sim; do
    local backend=(--backend cuda)
    [ "$side" = sim ] && backend=(--backend sim --profile "$PROFILE")
    if ! "$CLI" run "${backend[@]}" --mode async --memory pinned "$@" --trace "$OUT/$name-$side.pipescope" --quiet \
      2>>"$OUT/errors.log"; then
      echo "$name $side: run failed (see errors.log)" | tee -a "$report"
      continue
    fi
    printf '%-22s %-4s %s\n' "$name" "$side" "$(trace_line "$OUT/$name-$side.pipescope")" | tee -a "$report"
  done
}

echo "light cuBLAS model on streams; predicted with $PROFILE" | tee -a "$report"
run_pair light-512k-s1 --model light --streams 1 --batch-samples 1 --sample-bytes 512K --batches 64
run_pair light-512k-s8 --model light --streams 8 --batch-samples 1 --sample-bytes 512K --batches 64
run_pair light-32m-s1 --model light --streams 1 --batch-samples 64 --sample-bytes 512K --batches 32
run_pair light-32m-s8 --model light --streams 8 --batch-samples 64 --sample-bytes 512K --batches 32
run_pair heavy-32m-s7 --model heavy --streams 7 --batch-samples 64 --sample-bytes 512K --batches 32
