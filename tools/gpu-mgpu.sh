#!/usr/bin/env bash
# Everything pipescope runs over several GPUs on the CUDA backend, in one call on a
# machine with 2 or more GPUs (after `tools/gpu-call.sh build`, which builds every
# target used here):
#   tools/gpu-call.sh build mgpu            (every GPU of the machine, at most 8)
#   tools/gpu-call.sh build mgpu:2          (the first 2)
#   tools/gpu-call.sh mgpu:4:calibrate,validate,trace   (only those parts, in their order)
# Directly: tools/gpu-mgpu.sh [N [PARTS]], PARTS a comma list of tests, bench, calibrate,
# validate, trace, knobs, lessons (default all); validate needs calibrate's profile.
# Under $OUT (gpu-call.sh: $OUT/logs/mgpu):
#   topo.log        nvidia-smi topo -m (how the GPUs are joined)
#   tests.log       the gpu tests over several GPUs, NCCL's loader and the time limit
#   bench.log       gpu_multigpu_bench: makespan ratios against the hand-written
#                   reference, 256 MiB all-reduce bus bandwidth against a plain loop
#   calibrate.log   pipescope-cli calibrate with the multi-GPU probes; profile.json
#   mgpu-random.*   the simulator with that profile judged on a random set over the N
#                   GPUs (seed $MGPU_SEED, default 26031; pass one never used to fit or
#                   develop the model), measured twice in a
#                   row: .log ends "model median X % vs floor median Y %" (the target:
#                   X <= Y + 3), .md the tables, -repeat1/2.json the measurements;
#                   mgpu-repro.log: reproducibility --min-sets 1 of the two repeats;
#                   validate-too-many.log: the same command over more GPUs than present
#   dp-buckets-Ngpu.pipescope   a data-parallel run with 4 buckets over 8 streams per
#                   GPU, for the screenshot (trace.txt: its summary)
#   knob-*.txt      one CUDA run per new knob (pipescope-cli run --backend cuda --gpus N ...)
#   lesson-N.txt    the lessons over several GPUs on the CUDA backend
#   summary.log     one line per part: rc, seconds; what to look for is in each log
# Budget: about 8 minutes after the build (each part has its own time limit; the
# validate part about 2 minutes on 2-4 GPUs).
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-mgpu-out}
mkdir -p "$OUT"
B=${BUILD_DIR:-build-gpu}
CLI=$B/app/cli/pipescope-cli
PRESENT=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
N=${1:-$PRESENT}
[ "$N" -gt 8 ] && N=8
PARTS=${2:-tests,bench,calibrate,validate,trace,knobs,lessons}
want() { case ",$PARTS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
# Rows of the random set over the GPUs (each measured 3 times, the set twice).
SEED=${MGPU_SEED:-26031}
RANDOM_ROWS=${MGPU_RANDOM_ROWS:-12}
T0=$(date +%s)
part() {  # part NAME LIMIT CMD...: runs CMD with a time limit, logs rc and seconds
  local name=$1 limit=$2
  shift 2
  local t
  t=$(date +%s)
  timeout "$limit" "$@"
  local rc=$?
  echo "$name rc=$rc $(($(date +%s) - t)) s$([ $rc -eq 124 ] && echo ' (TIMED OUT)')" | tee -a "$OUT/summary.log"
  return 0
}

gpu_environment >"$OUT/env.log" 2>&1
nvidia-smi topo -m >"$OUT/topo.log" 2>&1
echo "GPUs present: $PRESENT, used: $N" | tee -a "$OUT/summary.log"
if [ "$PRESENT" -lt 2 ] || [ "$N" -lt 2 ]; then
  echo "needs 2 GPUs; this machine has $PRESENT: nothing to run" | tee -a "$OUT/summary.log"
  exit 0
fi
DEV=$(seq -s, 0 $((N - 1)))

# 1. gpu tests over several GPUs (they use the first 2, or 4 when there are), the quick
#    calibration with the multi-GPU probes, and NCCL's loader.
if want tests; then
part tests 150 "$B/tests/pipescope_gpu_tests" --gtest_filter='MultiGpu*:CalibrationTest.SeveralGpus*' >"$OUT/tests.log" 2>&1
part multigpu-tests 30 "$B/tests/pipescope_multigpu_tests" >>"$OUT/tests.log" 2>&1
grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|NOTE" "$OUT/tests.log" | head -30 >>"$OUT/summary.log"
fi

# 2. The bench: ratios against the reference and the bus bandwidth.
if want bench; then
part bench 200 "$B/bench/gpu_multigpu_bench" 5 --gpus "$N" >"$OUT/bench.log" 2>&1
grep -E "^\||targets" "$OUT/bench.log" >>"$OUT/summary.log"
fi

# 3. Calibration with the multi-GPU probes (peer copies between GPU 0 and 1, the
#    all-reduce curve over the N GPUs), saved as a profile.
if want calibrate; then
part calibrate 200 "$CLI" calibrate --gpus "$N" --repeat 1 --out "$OUT/profile.json" >"$OUT/calibrate.log" 2>&1
grep -E "peer copy|all-reduce|both ways|beside|call switch|host time per GPU op|several-GPU host overhead run|wrote profile|failed" "$OUT/calibrate.log" >>"$OUT/summary.log"
fi

# 3b. The simulator with that fresh profile on a random set over the N GPUs of a seed
#     never used to fit or develop, measured twice in a row: its median error against
#     the set's own reproducibility (each row's other repeat taken as the prediction).
#     Sized by the profile to run 5-120 ms per configuration.
if want validate; then
  if [ -s "$OUT/profile.json" ]; then
    part validate 170 "$CLI" validate --profile "$OUT/profile.json" --random "$RANDOM_ROWS" --seed "$SEED" --gpus "$N" \
      --repeat 2 --reps 3 --save-measurements "$OUT/mgpu-random.json" --markdown "$OUT/mgpu-random.md" \
      --stages --traces "$OUT/traces-random" >"$OUT/mgpu-random.log" 2>&1
    grep -E "^median \|error\||FAILED|was not measured|^model median" "$OUT/mgpu-random.log" | tail -6 |
      sed "s/^/  validate: /" >>"$OUT/summary.log"
    if [ -s "$OUT/mgpu-random-repeat2.json" ]; then
      part reproducibility 30 "$CLI" reproducibility --min-sets 1 --markdown "$OUT/mgpu-repro.md" \
        --measurements "$OUT/mgpu-random-repeat1.json,$OUT/mgpu-random-repeat2.json" >"$OUT/mgpu-repro.log" 2>&1
      grep -E "rows judged|^median \|difference\|" "$OUT/mgpu-repro.log" | sed "s/^/  reproducibility: /" \
        >>"$OUT/summary.log"
    fi
  else
    echo "validate: skipped, no $OUT/profile.json (run the calibrate part first)" | tee -a "$OUT/summary.log"
  fi
  # More GPUs than present: the backend's error, once, before any row.
  if [ "$PRESENT" -lt 8 ]; then
    part validate-too-many 30 "$CLI" validate --profile h200-calibrated --random 2 --seed 26031 \
      --gpus $((PRESENT + 1)) >"$OUT/validate-too-many.log" 2>&1
    grep -E "pipescope-cli validate:" "$OUT/validate-too-many.log" | head -2 | sed "s/^/  too-many: /" >>"$OUT/summary.log"
  fi
fi

# 3c. A trace for the screenshot: data parallel, the all-reduce in 4 buckets beside
#     the kernels of 8 streams per GPU.
if want trace; then
  part trace 60 "$CLI" run --backend cuda --gpus "$N" --parallel data --allreduce-bytes 64M --buckets 4 --streams 8 \
    --batch-samples 32 --sample-bytes 1M --batches $((16 * N)) --trace "$OUT/dp-buckets-${N}gpu.pipescope" \
    >"$OUT/trace.txt" 2>&1
  grep -E -i "error|failed|makespan|exposed|all-reduce|written" "$OUT/trace.txt" | head -6 | sed "s/^/  trace: /" \
    >>"$OUT/summary.log"
fi

# 3d. The bench's data-parallel configurations as pipescope runs them, with their traces
#     (the step-by-step gaps beside the reference's makespan), and on the simulator.
if want benchtrace; then
  for b in 0 4; do
    for side in cuda sim; do
      extra=(); [ "$side" = sim ] && [ -s "$OUT/profile.json" ] && extra=(--profile "$OUT/profile.json")
      part "benchtrace buckets $b $side" 60 "$CLI" run --backend "$side" "${extra[@]}" --gpus "$N" --parallel data \
        --allreduce-bytes 64M --buckets "$b" --streams 2 --batch-samples 64 --sample-bytes 512K \
        --model-flops-per-byte 1050 --batches $((16 * N)) --trace "$OUT/bench-dp-b$b-$side.pipescope" \
        >"$OUT/bench-dp-b$b-$side.txt" 2>&1
      grep -E "makespan" "$OUT/bench-dp-b$b-$side.txt" | head -2 | sed "s/^/  benchtrace b$b $side: /" >>"$OUT/summary.log"
    done
  done
fi

# 4. Every new knob once on the CUDA backend.
knob() {  # knob NAME ARGS...
  local name=$1
  shift
  part "knob $name" 40 "$CLI" run --backend cuda "$@" >"$OUT/knob-$name.txt" 2>&1
  grep -E -i "error|failed|makespan|exposed|scaling|bus|peer|link" "$OUT/knob-$name.txt" | head -6 | sed "s/^/  $name: /" >>"$OUT/summary.log"
}
if want knobs; then
COMMON=(--batch-samples 32 --sample-bytes 1M --batches $((8 * N)) --streams 2)
knob gpus "${COMMON[@]}" --gpus "$N"
knob devices "${COMMON[@]}" --devices "$DEV"
knob data-allreduce "${COMMON[@]}" --gpus "$N" --parallel data --allreduce-bytes 64M --buckets 0
knob data-buckets "${COMMON[@]}" --gpus "$N" --parallel data --allreduce-bytes 64M --buckets 4
knob pipeline "${COMMON[@]}" --gpus "$N" --parallel pipeline --activation-bytes 16M --micro-batches 4
knob pipeline-pageable "${COMMON[@]}" --gpus "$N" --parallel pipeline --activation-bytes 16M --micro-batches 2 \
  --memory pageable
knob light-buckets "${COMMON[@]}" --gpus "$N" --parallel data --allreduce-bytes 32M --buckets 3 --model light
knob too-many --gpus $((PRESENT + 1)) --batches $((PRESENT + 1))
fi

# 5. The lessons over several GPUs (numbers above the nine one-GPU lessons) on the CUDA backend.
want lessons &&
for n in $("$CLI" lessons --json 2>/dev/null | python3 -c '
import json, sys
for l in json.load(sys.stdin)["lessons"]:
    if l["number"] > 9: print(l["number"])' 2>/dev/null); do
  part "lesson $n" 60 "$CLI" lessons --run "$n" --backend cuda --reps 3 >"$OUT/lesson-$n.txt" 2>&1
  grep -E -i "claim|holds|fails|verdict" "$OUT/lesson-$n.txt" | head -8 | sed "s/^/  lesson $n: /" >>"$OUT/summary.log"
done
echo "total $(($(date +%s) - T0)) s" | tee -a "$OUT/summary.log"
