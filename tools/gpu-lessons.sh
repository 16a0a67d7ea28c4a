#!/usr/bin/env bash
# All nine lessons on the CUDA backend, for the claims table of docs/analysis.md
# ("Lessons on real GPUs"). Run on the GPU machine by the lead:
#   bash tools/gpu-call.sh build script:tools/gpu-lessons.sh          (REPS=3 by default)
#   bash tools/gpu-call.sh build script:tools/gpu-lessons.sh:5        (5 repetitions)
# or alone (it builds pipescope-cli when BUILD_DIR has none). Needs no Qt, no network.
# Writes under $OUT:
#   lesson-N.txt    what `pipescope-cli lessons --run N --backend cuda` prints (runs,
#                   predictions beside them, numbers, claims with verdicts)
#   lesson-N.json   a second measurement, as JSON (every repetition's makespan, every verdict's spreads)
#   claims.md       one markdown row per claim: lesson, claim, verdict on this GPU with
#                   the medians and spreads it was judged on (paste into the table)
#   predictions.md  one row per measured run: median, spread, prediction, error
#   env.log, timings.log
set -u -o pipefail
. "$(dirname "$0")/gpu-common.sh"
OUT=${OUT:-$PWD/gpu-lessons-out}
mkdir -p "$OUT"
REPS=${1:-${REPS:-3}}
B=${BUILD_DIR:-build-gpu}
CLI=$B/app/cli/pipescope-cli
T0=$(date +%s)
gpu_environment >"$OUT/env.log" 2>&1
if [ ! -x "$CLI" ]; then
  cmake -S . -B "$B" "${GPU_CMAKE_OPTIONS[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$OUT/build.log" 2>&1 &&
    ninja -C "$B" -j"$(nproc)" pipescope-cli >>"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
fi
status=0
for n in 1 2 3 4 5 6 7 8 9; do
  t=$(date +%s)
  timeout 60 "$CLI" lessons --run "$n" --backend cuda --reps "$REPS" >"$OUT/lesson-$n.txt" 2>&1
  rc=$?
  timeout 60 "$CLI" lessons --run "$n" --backend cuda --reps "$REPS" --json >"$OUT/lesson-$n.json" 2>"$OUT/lesson-$n.err"
  rcj=$?
  echo "lesson $n: text rc=$rc json rc=$rcj, $(($(date +%s) - t)) s" | tee -a "$OUT/timings.log"
  [ $rc -ne 0 ] || [ $rcj -ne 0 ] && status=1
done
echo "total $(($(date +%s) - T0)) s" | tee -a "$OUT/timings.log"

# The rows for docs/analysis.md, from the JSON (python3 is on the GPU machine; no
# table without it, the .txt files say the same).
python3 - "$OUT" <<'PY' || echo "no python3: read lesson-N.txt instead"
import json, sys, os
out = sys.argv[1]
def ms(ns): return f"{ns / 1e6:.3g} ms"
def spread(s, key):
    f = (lambda v: ms(v)) if key == "makespan_ns" else (lambda v: f"{v:.3g}")
    return f(s["median"]) + (f" [{f(s['min'])}–{f(s['max'])}]" if s["max"] > s["min"] else "")
claims, preds, device = [], [], ""
for n in range(1, 10):
    p = os.path.join(out, f"lesson-{n}.json")
    try:
        j = json.load(open(p))
    except Exception as e:
        claims.append(f"| {n} | (no result: {e}) | |")
        continue
    device = j.get("device") or device
    for c in j["checks"]:
        claims.append(f"| {n} {j['id']} | {c['claim']} | {c['verdict']}: {spread(c['value'], c['metric'])} "
                      f"against {spread(c['reference'], c['metric'])} |")
    for r in j["results"]:
        if not r["measured"]:
            continue
        m = r["makespan_ns"]
        pred = r.get("predicted")
        pm = pred["metrics"]["makespan_ns"] if pred else None
        err = f"{(pm / m['median'] - 1) * 100:+.0f}%" if pm and m["median"] > 0 else "—"
        preds.append(f"| {n} | {r['label']} | {spread(m, 'makespan_ns')} | "
                     f"{ms(pm) + ' (' + pred['profile'] + ')' if pm else '—'} | {err} |")
with open(os.path.join(out, "claims.md"), "w") as f:
    f.write(f"Claims on {device}\n\n| lesson | claim | verdict on this GPU (median [min–max]) |\n|---|---|---|\n")
    f.write("\n".join(claims) + "\n")
with open(os.path.join(out, "predictions.md"), "w") as f:
    f.write(f"Measured runs on {device}\n\n| lesson | run | makespan, median [min–max] | predicted | error |\n"
            "|---|---|---|---|---|\n")
    f.write("\n".join(preds) + "\n")
print(open(os.path.join(out, "claims.md")).read())
PY
exit $status
