#!/usr/bin/env bash
# Prints the simulator's makespan for the configurations of ANCHORS.md's hand-written
# pipeline table (32 batches of 32 MiB, kernel ~ H2D ~ 0.62 ms on the H200) as a
# Markdown table, next to the H200 measurements quoted there.
# Usage: tools/anchors-table.sh [pipescope-cli] [profile]
set -euo pipefail
cli=${1:-build/release/app/cli/pipescope-cli}
profile=${2:-h200}
rows=(
  "blocking, pageable, 1 stream|--mode blocking --memory pageable|239"
  "blocking, pinned, 1 stream|--mode blocking --memory pinned|61"
  "async, pinned, 1 stream|--mode async --memory pinned --streams 1|61"
  "async, pinned, 2 streams|--mode async --memory pinned --streams 2|32–33"
  "async, pinned, 4 streams|--mode async --memory pinned --streams 4|24–25"
  "async, pinned, 8 streams|--mode async --memory pinned --streams 8|23.3"
  "async, pageable, 4 streams|--mode async --memory pageable --streams 4|231–245"
)
field() { sed -n "s/.*\"$1\": *\([-0-9.e+]*\).*/\1/p" | head -1; }
echo "| mode | H200 measured (ANCHORS.md) ms | simulator ($profile) ms | simulator ideal bound ms |"
echo "| --- | ---: | ---: | ---: |"
for r in "${rows[@]}"; do
  IFS='|' read -r name opts measured <<<"$r"
  # shellcheck disable=SC2086
  json=$("$cli" run --backend sim --profile "$profile" $opts --json --no-progress)
  ms=$(printf '%s' "$json" | tr ',' '\n' | field makespan_ms)
  bound=$(printf '%s' "$json" | tr ',' '\n' | field ideal_bound_ms)
  printf '| %s | %s | %.1f | %.1f |\n' "$name" "$measured" "$ms" "$bound"
done
