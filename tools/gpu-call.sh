#!/usr/bin/env bash
# One call on the GPU machine, made of named steps, so a call does exactly the work
# it needs with one build. Every step logs to $OUT/logs/STEP.log; everything is packed
# into $OUT/results.tar.gz after each step (a call cut off at its limit still brings
# back what it had), and the last lines of each step go to $OUT/summary.log.
#
# Usage (repository root on the GPU machine, carry .carry):
#   tools/gpu-call.sh STEP [STEP ...]
# Steps:
#   build[:cli]                 configure and build pipescope-cli, gpu tests, GPU bench (":cli": the
#                               command line tool only, the quickest)
#   tests[:N]                   the gpu-labelled test binary N times (default 1)
#   cuda-module                 the CUDA backend as the programs load it (libpipescope-cuda.so):
#                               run --backend cuda on the GPU, and the CLI tests that check which
#                               commands load it and what a broken module or cuBLAS says
#   calibrate[:NAME]            pipescope-cli calibrate -> $OUT/logs/profile.json (or NAME.json)
#   quick[:NAME]                pipescope-cli calibrate --quick -> $OUT/logs/NAME.json (default quick):
#                               what drifts with the host, measured again (beside a full calibration)
#   random:N:SEED[:PROFILE[:REPS[:REPEAT]]]  validate --random N --seed SEED against PROFILE (a
#                               built-in name, or "calibrated" for the profile the
#                               calibrate step wrote; default the built-in profile
#                               matching the GPU), REPS measured runs per row (default
#                               3), saving measurements and real traces; REPEAT > 1
#                               measures the set that many times in a row and judges the
#                               model beside the repeats' own difference (--repeat)
#   judge:SEED[:PROFILE]        the repeats a random:...:REPEAT step saved, judged offline
#                               against PROFILE (default the built-in profile matching the GPU)
#   machine                     the machine-at-hand flow in a fresh data folder: a GPU run's
#                               advice before any calibration (built-in profile, host probe),
#                               calibrate --quick (timed), the same run after it
#   light[:PROFILE]             tools/gpu-light-streams.sh: the light cuBLAS model on 1 and 8
#                               streams measured and predicted (default: the calibrated profile)
#   probes:NAME[,NAME...]       tools/gpu-probes.sh with those probes (tools/probes/NAME.cu)
#   matrix[:PROFILE]            the fixed 72-configuration matrix, measurements saved
#   bench[:REPS[:FLAGS]]        gpu_pipeline_bench REPS (default 9), with its table options
#                               FLAGS, comma-separated (bench:5:--tiny-batches -> bench-tinybatches.log)
#   pytorch                     tools/pytorch-traces.py (real PyTorch profiler traces)
#   memcheck[:FILTER] racecheck[:FILTER]   compute-sanitizer over the gpu tests
#                               (memcheck:MultiGpu* for the runs over several GPUs)
#   mgpu[:N[:PARTS]]            tools/gpu-mgpu.sh on N GPUs (default all): the gpu tests
#                               over several GPUs, gpu_multigpu_bench, calibrate with the
#                               multi-GPU probes, the simulator judged with that profile
#                               on a random set over the GPUs measured twice, a trace for
#                               the screenshot, every new knob and the multi-GPU lessons
#                               on the CUDA backend ($OUT/logs/mgpu, or mgpu-N); PARTS
#                               picks some: mgpu:4:calibrate,validate,trace
#   recordcost[:REPS]           bench/record_overhead.py on the ResNet-18 loop only, with the
#                               PIPESCOPE_RECORD_API variants (what each API domain costs)
#   script:PATH[:ARGS]          any other tools/ script (its $OUT is $OUT/logs/NAME)
#   record[:REPS]               pipescope record on the GPU: builds libpipescope-inject.so and the
#                               recording's programs, runs the RecordGpu tests, records a PyTorch
#                               ResNet-18 training loop (tools/record-train.py) -> record-train.log/.pipescope
#                               (and its line "GPU ops reached pipescope X ms after they ended on the GPU
#                               (median; 95 %: Y ms ...)": the injection's part of op end -> screen),
#                               the agreement check (tools/record-agreement.py) and the overhead
#                               benchmark (bench/record_overhead.py, REPS runs each, default 5)
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-call-out}
L=$OUT/logs
mkdir -p "$L"
B=build-gpu
CLI=$B/app/cli/pipescope-cli

# The recording's targets (the CLI, the injection library, the workload the overhead
# benchmark records) and any others named; false, with the log's tail, when they fail.
build_record() {
  ninja -C $B -j"$(nproc)" pipescope-cli pipescope-inject gpu_minimal_workload_bench "$@" >"$L/record-build.log" 2>&1 && return 0
  tail -20 "$L/record-build.log" | tee -a "$OUT/summary.log"
  say "RECORD BUILD FAILED"
  pack
  return 1
}
T0=$(date +%s)
pack() { tar -C "$OUT" -czf "$OUT/results.tar.gz.tmp" logs 2>/dev/null && mv "$OUT/results.tar.gz.tmp" "$OUT/results.tar.gz"; }
say() { echo "== [$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/summary.log"; }
gpu_environment 2>&1 | tee "$L/env.log" >>"$OUT/summary.log"

builtin_profile() {
  case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
    *H100*) echo h100-calibrated ;;
    *H200*) echo h200-calibrated ;;
    *) echo h200 ;;
  esac
}

for step in "$@"; do
  name=${step%%:*}
  arg=${step#"$name"}
  arg=${arg#:}
  say "$step"
  case $name in
    build)
      targets=(pipescope-cli pipescope_gpu_tests gpu_pipeline_bench)
      [ "$arg" = cli ] && targets=(pipescope-cli)
      cmake -S . -B $B "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPIPESCOPE_BUILD_BENCH=ON \
        >"$L/build.log" 2>&1 && ninja -C $B -j"$(nproc)" "${targets[@]}" \
        $([ "$arg" != cli ] && ninja -C $B -t targets all 2>/dev/null | grep '^gpu_multigpu_bench:' >/dev/null &&
          echo gpu_multigpu_bench pipescope_multigpu_tests) \
        >>"$L/build.log" 2>&1
      rc=$?
      tail -5 "$L/build.log" | tee -a "$OUT/summary.log"
      [ $rc -ne 0 ] && { say "BUILD FAILED"; pack; exit 1; }
      ;;
    tests)
      for i in $(seq 1 "${arg:-1}"); do
        timeout 300 $B/tests/pipescope_gpu_tests >"$L/gpu-tests-$i.log" 2>&1
        echo "gpu tests run $i rc=$?" | tee -a "$OUT/summary.log"
        grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|actual" "$L/gpu-tests-$i.log" | head -30 |
          tee -a "$OUT/summary.log"
      done
      ;;
    cuda-module)
      ninja -C $B -j"$(nproc)" pipescope_cli_tests >>"$L/build.log" 2>&1 || { say "cli tests build failed"; tail -5 "$L/build.log"; }
      timeout 120 $CLI run --backend cuda --preset multi-stream --batches 16 >"$L/cuda-module.log" 2>&1
      echo "run --backend cuda rc=$?" | tee -a "$OUT/summary.log"
      grep -E "^  (backend|note|makespan)" "$L/cuda-module.log" | head -6 | tee -a "$OUT/summary.log"
      timeout 300 $B/tests/pipescope_cli_tests --gtest_filter='CliCudaLoading*:CliBrokenCudaModule*' \
        >"$L/cuda-module-tests.log" 2>&1
      echo "cuda-module tests rc=$?" | tee -a "$OUT/summary.log"
      grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Which is" "$L/cuda-module-tests.log" | head -20 |
        tee -a "$OUT/summary.log"
      ;;
    calibrate)
      cal=${arg:-profile}  # calibrate:NAME writes $L/NAME.json instead (a second calibration)
      log=calibrate.log; [ "$cal" != profile ] && log=calibrate-$cal.log
      timeout 240 $CLI calibrate --out "$L/$cal.json" >"$L/$log" 2>&1
      echo "calibrate $cal rc=$?" | tee -a "$OUT/summary.log"
      grep -E "host overhead of the measuring backend|host API calls inside|faulted back by N CPU|pageable staging GB/s|first CUDA calls after a CPU stage|the same stages. span over|CPU stages inside the pipeline \(workers|CPU stages. span over their workers|late-worker factor|managed slots \(256 KiB|managed pages in on N streams" "$L/$log" | tee -a "$OUT/summary.log"
      ;;
    quick)
      cal=${arg:-quick}
      timeout 120 $CLI calibrate --quick --out "$L/$cal.json" >"$L/calibrate-$cal.log" 2>&1
      echo "calibrate --quick $cal rc=$?" | tee -a "$OUT/summary.log"
      grep -E "host overhead of the measuring backend|host API calls inside" "$L/calibrate-$cal.log" | tee -a "$OUT/summary.log"
      ;;
    random | matrix)
      if [ "$name" = random ]; then
        n=${arg%%:*}; rest=${arg#*:}; seed=${rest%%:*}; prof=${rest#"$seed"}; prof=${prof#:}
        reps=3; case $prof in *:*) reps=${prof#*:}; prof=${prof%%:*} ;; esac
        repeat=1; case $reps in *:*) repeat=${reps#*:}; reps=${reps%%:*} ;; esac
        set_args=(--random "$n" --seed "$seed" --reps "$reps"); tag="random-$seed"
        [ "$repeat" -gt 1 ] && set_args+=(--repeat "$repeat")
      else
        prof=$arg; set_args=(); tag=matrix; repeat=1
      fi
      [ -z "$prof" ] && prof=$(builtin_profile)
      [ "$prof" = calibrated ] && prof=$L/profile.json
      mkdir -p "$L/traces-$tag"
      timeout $((420 * ${repeat:-1})) $CLI validate --profile "$prof" "${set_args[@]}" --stages \
        --save-measurements "$L/$tag.json" \
        --markdown "$L/$tag.md" --traces "$L/traces-$tag" >"$L/$tag.log" 2>&1
      echo "validate $tag rc=$?" | tee -a "$OUT/summary.log"
      grep -E "^median|^mean signed|^measured run|^model median|^  [a-zA-Z ]+ = .*: r" "$L/$tag.log" | tail -24 |
        tee -a "$OUT/summary.log"
      ;;
    judge)
      seed=${arg%%:*}; prof=${arg#"$seed"}; prof=${prof#:}
      [ -z "$prof" ] && prof=$(builtin_profile)
      [ "$prof" = calibrated ] && prof=$L/profile.json
      tag="judge-$seed-$(basename "$prof" .json)"
      timeout 120 $CLI validate --profile "$prof" \
        --measurements "$L/random-$seed-repeat1.json,$L/random-$seed-repeat2.json" --markdown "$L/$tag.md" \
        >"$L/$tag.log" 2>&1
      echo "judge $tag rc=$?" | tee -a "$OUT/summary.log"
      grep -E "^model median|^  [a-zA-Z ]+ = .*: r" "$L/$tag.log" | tail -20 | tee -a "$OUT/summary.log"
      ;;
    machine)
      # A data folder of its own: what a user without a calibration sees, then with one.
      xdg=$L/machine-data
      rm -rf "$xdg"
      run_args=(run --backend cuda --preset multi-stream --batches 16)
      XDG_DATA_HOME=$xdg timeout 60 $CLI "${run_args[@]}" >"$L/machine-before.log" 2>&1
      echo "machine: run before calibrating rc=$?" | tee -a "$OUT/summary.log"
      grep "^pipescope-cli: " "$L/machine-before.log" | tee -a "$OUT/summary.log"
      t0=$(date +%s%N)
      XDG_DATA_HOME=$xdg timeout 120 $CLI calibrate --quick >"$L/machine-quick.log" 2>&1
      rc=$?
      echo "machine: calibrate --quick rc=$rc in $((($(date +%s%N) - t0) / 1000000)) ms" | tee -a "$OUT/summary.log"
      tail -1 "$L/machine-quick.log" | tee -a "$OUT/summary.log"
      XDG_DATA_HOME=$xdg timeout 60 $CLI "${run_args[@]}" >"$L/machine-after.log" 2>&1
      echo "machine: run after calibrating rc=$?" | tee -a "$OUT/summary.log"
      grep "^pipescope-cli: " "$L/machine-after.log" | tee -a "$OUT/summary.log"
      cp -r "$xdg/pipescope/profiles" "$L/machine-profiles" 2>/dev/null
      ;;
    light)
      prof=${arg:-calibrated}
      [ "$prof" = calibrated ] && prof=$L/profile.json
      mkdir -p "$L/light"
      OUT=$L/light BUILD_DIR=$B PROFILE=$prof timeout 200 bash tools/gpu-light-streams.sh >"$L/light.log" 2>&1
      echo "light rc=$?" | tee -a "$OUT/summary.log"
      cat "$L/light/light-streams.txt" >>"$OUT/summary.log"
      ;;
    probes)
      mkdir -p "$L/probes"
      # shellcheck disable=SC2086
      OUT=$L/probes timeout 300 bash tools/gpu-probes.sh ${arg//,/ } >"$L/probes.log" 2>&1
      echo "probes $arg rc=$?" | tee -a "$OUT/summary.log"
      tail -60 "$L/probes.log" >>"$OUT/summary.log"
      ;;
    bench)
      reps=${arg%%:*} flags=
      [[ $arg == *:* ]] && flags=${arg#*:}
      log=bench${flags:+-${flags//[^a-z]/}}.log  # bench:5:--tiny-batches -> bench-tinybatches.log
      # shellcheck disable=SC2086
      timeout 420 $B/bench/gpu_pipeline_bench "${reps:-9}" ${flags//,/ } >"$L/$log" 2>&1
      echo "bench $arg rc=$?" | tee -a "$OUT/summary.log"
      [ -n "$flags" ] && tail -12 "$L/$log" >>"$OUT/summary.log"
      ;;
    pytorch)
      PYTHONUNBUFFERED=1 timeout 300 python3 tools/pytorch-traces.py "$L/pytorch-traces" >"$L/pytorch.log" 2>&1
      echo "pytorch rc=$?" | tee -a "$OUT/summary.log"
      tail -12 "$L/pytorch.log" >>"$OUT/summary.log"
      ;;
    memcheck | racecheck)
      PIPESCOPE_SANITIZER=$name timeout 400 compute-sanitizer --tool "$name" $([ "$name" = memcheck ] && echo --leak-check full) \
        --error-exitcode 3 $B/tests/pipescope_gpu_tests --gtest_filter="${arg:-*}" >"$L/$name.log" 2>&1
      echo "$name rc=$?" | tee -a "$OUT/summary.log"
      grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED|SKIPPED) " "$L/$name.log" | tail -8 |
        tee -a "$OUT/summary.log"
      ;;
    mgpu)
      n=${arg%%:*}; parts=; [ "$arg" != "$n" ] && parts=${arg#*:}
      M=$L/mgpu${n:+-$n}  # mgpu:2 and mgpu:4 in one call keep their logs apart
      mkdir -p "$M"
      OUT=$M BUILD_DIR=$B timeout 570 bash tools/gpu-mgpu.sh "$n" "$parts" >"$M/script.log" 2>&1
      echo "mgpu rc=$?" | tee -a "$OUT/summary.log"
      cat "$M/summary.log" >>"$OUT/summary.log" 2>/dev/null
      ;;
    record)
      build_record pipescope_gpu_tests pipescope_record_sample || continue
      timeout 180 $B/tests/pipescope_gpu_tests --gtest_filter='RecordGpu*' >"$L/record-gpu-tests.log" 2>&1
      echo "record gpu tests rc=$?" | tee -a "$OUT/summary.log"
      grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|actual|unexpected finding" "$L/record-gpu-tests.log" | head -30 |
        tee -a "$OUT/summary.log"
      PYTHONUNBUFFERED=1 timeout 240 $CLI record --progress --trace "$L/record-train.pipescope" -- \
        python3 tools/record-train.py --steps 60 >"$L/record-train.log" 2>&1
      echo "record pytorch rc=$?" | tee -a "$OUT/summary.log"
      grep -E "^recording:|^Recording of|^Iterations|^  [0-9]+ from|^Bottleneck|^  [A-Z][a-z-]+-bound|pipescope-cli record:" \
        "$L/record-train.log" | tail -12 | tee -a "$OUT/summary.log"
      # The injection's part of "op end on the GPU to its block on screen": p50 / p95 / max.
      grep -E "GPU ops reached pipescope" "$L/record-train.log" | tee -a "$OUT/summary.log"
      timeout 240 python3 tools/record-agreement.py --cli $CLI --out "$L/record-agreement" >"$L/record-agreement.log" 2>&1
      echo "record agreement rc=$?" | tee -a "$OUT/summary.log"
      tail -7 "$L/record-agreement.log" | tee -a "$OUT/summary.log"
      timeout 420 python3 bench/record_overhead.py --cli $CLI --workload $B/bench/gpu_minimal_workload_bench \
        --reps "${arg:-5}" >"$L/record-overhead.log" 2>&1
      echo "record overhead rc=$?" | tee -a "$OUT/summary.log"
      tail -14 "$L/record-overhead.log" | tee -a "$OUT/summary.log"
      ;;
    recordcost)
      # What each part of a recording costs a host-bound training loop: every variant of
      # PIPESCOPE_RECORD_API beside no recording and torch.profiler, REPS rounds (default 2).
      build_record || continue
      timeout 500 python3 bench/record_overhead.py --cli $CLI --workload $B/bench/gpu_minimal_workload_bench \
        --reps "${arg:-2}" --no-minimal --api-variants >"$L/record-cost.log" 2>&1
      echo "record cost rc=$?" | tee -a "$OUT/summary.log"
      tail -12 "$L/record-cost.log" | tee -a "$OUT/summary.log"
      ;;
    script)
      path=${arg%%:*}; sargs=${arg#"$path"}; sargs=${sargs#:}
      sub=$L/$(basename "$path" .sh)
      mkdir -p "$sub"
      # shellcheck disable=SC2086
      OUT=$sub BUILD_DIR=$B timeout 500 bash "$path" $sargs >"$sub/script.log" 2>&1
      echo "script $path rc=$?" | tee -a "$OUT/summary.log"
      tail -20 "$sub/script.log" >>"$OUT/summary.log"
      ;;
    *) say "unknown step '$step'" ;;
  esac
  pack
done
say done
pack
cat "$OUT/summary.log" | tail -80
