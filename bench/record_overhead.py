#!/usr/bin/env python3
"""What `pipescope-cli record` costs the program it records: wall time with record
against without, median of REPS runs each, alternating run by run (a slow spell of the
machine hits both), on

  (a) the minimal reference pipeline (bench/gpu_minimal_workload_bench), and
  (b) a ResNet-18 training loop (tools/record-train.py), with torch.profiler's own
      cost on the same loop measured beside it (the anchor: what profiling costs
      today).

Each program reports its own time (the work, after its warm-up); the process's wall
time (start to exit, CUDA initialisation and the recording's set-up and analysis
included) is measured here. Ratios: median with / median without.

Usage (a machine with the CUDA toolkit and a GPU, a build of the `gpu` preset or
tools/gpu-call.sh's build; PyTorch for (b)):
  python3 bench/record_overhead.py --cli build-gpu/app/cli/pipescope-cli \\
      --workload build-gpu/bench/gpu_minimal_workload_bench [--reps 5] [--no-train]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time


def run(cmd, pattern):
    """Runs cmd (a list, or (list, extra environment)); returns (wall seconds, the program's own ms)."""
    cmd, extra = cmd if isinstance(cmd, tuple) else (cmd, {})
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **extra})
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"record_overhead: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    m = re.search(pattern, p.stdout)
    if not m:
        sys.exit(f"record_overhead: no '{pattern}' in the output of {' '.join(cmd)}:\n{p.stdout[-2000:]}")
    return wall, float(m.group(1))


def measure(variants, pattern, reps):
    """variants: {name: cmd}. One warm-up each, then reps rounds in turn."""
    for cmd in variants.values():
        run(cmd, pattern)
    results = {name: ([], []) for name in variants}
    for _ in range(reps):
        for name, cmd in variants.items():
            wall, own = run(cmd, pattern)
            results[name][0].append(wall)
            results[name][1].append(own)
    return {name: (statistics.median(w), statistics.median(o), w, o) for name, (w, o) in results.items()}


def table(title, res, base):
    print(f"\n{title}")
    print("| variant | own time, median (ms) | ratio | wall time, median (s) | ratio | own times (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    bw, bo = res[base][0], res[base][1]
    for name, (w, o, _, owns) in res.items():
        print(f"| {name} | {o:.1f} | {o / bo:.3f} | {w:.2f} | {w / bw:.3f} | {', '.join(f'{x:.0f}' for x in owns)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--train", default=os.path.join(os.path.dirname(__file__), "..", "tools", "record-train.py"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workload-reps", default="200", help="runs of the minimal pipeline per process")
    ap.add_argument("--train-steps", default="200")
    ap.add_argument("--no-train", action="store_true")
    ap.add_argument("--no-minimal", action="store_true", help="only the training loop")
    ap.add_argument("--api-variants", action="store_true",
                    help="also record the training loop with runtime calls only, driver calls only and no API "
                         "calls (PIPESCOPE_RECORD_API): what each part of the recording costs")
    a = ap.parse_args()
    record = [a.cli, "record", "--quiet", "--"]
    print(f"record_overhead: {a.reps} runs of each variant, alternating; "
          f"{time.strftime('%Y-%m-%d %H:%M:%S')}")
    if not a.no_minimal:
        minimal = [a.workload, a.workload_reps]
        res = measure({"without": minimal, "pipescope-cli record": record + minimal}, r"workload: ([0-9.]+) ms",
                      a.reps)
        table("(a) minimal reference pipeline (multi-stream preset, 4 streams, "
              f"{a.workload_reps} x 32 batches per process)", res, "without")
    if not a.no_train:
        train = [sys.executable, a.train, "--steps", a.train_steps]
        variants = {"without": train, "pipescope-cli record": record + train, "torch.profiler": train + ["--profiler"]}
        if a.api_variants:
            for api in ("runtime", "driver", "none"):
                variants[f"record, PIPESCOPE_RECORD_API={api}"] = (record + train, {"PIPESCOPE_RECORD_API": api})
        res = measure(variants, r"train: ([0-9.]+) ms", a.reps)
        table(f"(b) ResNet-18 training loop (tools/record-train.py, {a.train_steps} steps, batch 32)", res, "without")


if __name__ == "__main__":
    main()
