#!/usr/bin/env bash
# The managed-memory probe of issue 15 (docs/fidelity.md, "Managed memory with CPU
# stages"): is a prefetch to the CPU queued behind a kernel slower than the
# calibration's idle-stream prefetch, and do CPU page faults parallelise over threads?
# Run on the GPU machine:  bash tools/gpu-call.sh script:tools/gpu-managed-probe.sh
# (or alone). Needs nvcc only (no build of pipescope, no Qt, no network); about 10 s.
# Writes $OUT/managed-probe.txt and $OUT/env.log.
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-managed-probe-out}
mkdir -p "$OUT"
gpu_environment >"$OUT/env.log" 2>&1
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
exe=$OUT/managed_probe
"$NVCC" -O2 -std=c++17 -o "$exe" "$(dirname "$0")/probes/managed_probe.cu" -lpthread >"$OUT/build.log" 2>&1 ||
  { tail -20 "$OUT/build.log"; exit 1; }
timeout 120 "$exe" | tee "$OUT/managed-probe.txt"
rc=${PIPESTATUS[0]}
rm -f "$exe"
exit "$rc"
