#!/usr/bin/env bash
# Prints the simulator's makespan for the configurations of the hand-written H200
# pipeline in docs/reference-figures.md (32 batches of 32 MiB, kernel ~ H2D ~ 0.62 ms)
# as a Markdown table, next to the H200 measurements quoted there: one column per
# profile, then the first profile's ideal bound.
# Usage: tools/anchors-table.sh [pipescope-cli] [profile ...]   (default profile: h200)
set -euo pipefail
cli=${1:-build/release/app/cli/pipescope-cli}
shift || true
profiles=("$@")
[ ${#profiles[@]} -eq 0 ] && profiles=(h200)
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
header="| mode | H200 measured ms |"
rule="| --- | ---: |"
for p in "${profiles[@]}"; do header="$header simulator ($p) ms |"; rule="$rule ---: |"; done
echo "$header ideal bound (${profiles[0]}) ms |"
echo "$rule ---: |"
for r in "${rows[@]}"; do
  IFS='|' read -r name opts measured <<<"$r"
  line="| $name | $measured |"
  bound=
  for p in "${profiles[@]}"; do
    # shellcheck disable=SC2086
    json=$("$cli" run --backend sim --profile "$p" $opts --json --no-progress)
    ms=$(printf '%s' "$json" | tr ',' '\n' | field makespan_ms)
    [ -z "$bound" ] && bound=$(printf '%s' "$json" | tr ',' '\n' | field ideal_bound_ms)
    line="$line $(printf '%.1f' "$ms") |"
  done
  echo "$line $(printf '%.1f' "$bound") |"
done
