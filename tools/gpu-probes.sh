#!/usr/bin/env bash
# Stand-alone CUDA probes for simulator questions (issue 15, docs/fidelity.md): each
# tools/probes/NAME.cu is a small program timed with CUDA events and wall clocks only,
# built with nvcc and run here. Without arguments every probe runs; otherwise the NAMEs
# given. Run on the GPU machine:
#   bash tools/gpu-call.sh script:tools/gpu-probes.sh          (or alone)
# Needs nvcc only (no build of pipescope, no Qt, no network); each probe takes seconds.
# Writes $OUT/NAME.txt per probe and $OUT/env.log.
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-probes-out}
mkdir -p "$OUT"
gpu_environment >"$OUT/env.log" 2>&1
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
dir=$(dirname "$0")/probes
names=("$@")
[ ${#names[@]} -eq 0 ] && for f in "$dir"/*.cu; do names+=("$(basename "$f" .cu)"); done
status=0
for name in "${names[@]}"; do
  exe=$OUT/$name
  echo "== $name"
  # The libraries a probe links, from its "// Build: nvcc ... NAME.cu -lx" line.
  # shellcheck disable=SC2207
  libs=($(sed -n "s|^// Build: nvcc .* $name\.cu||p" "$dir/$name.cu"))
  if ! "$NVCC" -O2 -std=c++17 -o "$exe" "$dir/$name.cu" -lpthread "${libs[@]}" >"$OUT/$name.build.log" 2>&1; then
    tail -20 "$OUT/$name.build.log"; status=1; continue
  fi
  timeout 120 "$exe" | tee "$OUT/$name.txt"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && { echo "$name exited with $rc"; status=1; }
  rm -f "$exe"
done
exit "$status"
