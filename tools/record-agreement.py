#!/usr/bin/env python3
"""Does a recording agree with the program's own view? Records
`pipescope-cli run --backend cuda ... --trace own.pipescope` with `pipescope-cli record
--trace recorded.pipescope` and compares the two traces' kernels and copies: the same
number of each kind, and, paired in time order, durations within 1 %.

The run inside the recording times its ops with CUDA events (CUPTI belongs to the
recording), so it runs in blocking mode, one op at a time, where an event pair brackets
exactly one op; ops are large (64 MiB copies, the model kernel without the small
normalisation kernel: milliseconds) so the events' own microseconds stay small beside
them. The recording also holds the run's set-up before its batches: the run's ops are
the last ones of each kind.

Usage (GPU machine):
  python3 tools/record-agreement.py --cli build-gpu/app/cli/pipescope-cli --out DIR
  python3 tools/record-agreement.py --compare OWN.pipescope RECORDED.pipescope --cli CLI
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys

KINDS = ("H2D copy", "kernel", "D2H copy")


def gpu_ops(cli, path):
    csv_path = path + ".csv"
    subprocess.run([cli, "convert", path, csv_path], check=True, stdout=subprocess.DEVNULL)
    ops = {k: [] for k in KINDS}
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if row["kind"] in ops:
                ops[row["kind"]].append((int(row["start_ns"]), int(row["duration_ns"]), row["name"]))
    for k in ops:
        ops[k].sort()
    return ops


def compare(cli, own_path, recorded_path):
    own, rec = gpu_ops(cli, own_path), gpu_ops(cli, recorded_path)
    ok = True
    print("| kind | own | recorded | within 1 % | median |difference| | worst |difference| |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for k in KINDS:
        a, b = own[k], rec[k]
        # The recording also holds what the run did before its batches (buffer set-up,
        # clock alignment): the run's own ops are its last ones of each kind.
        if len(b) < len(a):
            ok = False
        extra = len(b) - len(a)
        b = b[extra:] if extra > 0 else b
        pairs = list(zip(a, b))
        diffs = [abs(y[1] - x[1]) / x[1] for x, y in pairs if x[1] > 0]
        within = sum(d <= 0.01 for d in diffs)
        med = statistics.median(diffs) if diffs else float("nan")
        worst = max(diffs) if diffs else float("nan")
        if within != len(diffs):
            ok = False
        more = f" (+{extra} before the run)" if extra > 0 else ""
        print(f"| {k} | {len(a)} | {len(b)}{more} | {within}/{len(diffs)} | {med * 100:.2f} % | {worst * 100:.2f} % |")
    print("agreement: " + ("PASS" if ok else "FAIL") + " (every op of the run found, every duration within 1 %)")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--out", default="record-agreement")
    ap.add_argument("--compare", nargs=2, metavar=("OWN", "RECORDED"))
    a = ap.parse_args()
    if a.compare:
        sys.exit(0 if compare(a.cli, *a.compare) else 1)
    os.makedirs(a.out, exist_ok=True)
    own = os.path.join(a.out, "own.pipescope")
    recorded = os.path.join(a.out, "recorded.pipescope")
    run = [a.cli, "run", "--backend", "cuda", "--mode", "blocking", "--memory", "pinned", "--streams", "1",
           "--batches", "16", "--batch-samples", "64", "--sample-bytes", "1M", "--no-normalize", "--quiet",
           "--trace", own]
    p = subprocess.run([a.cli, "record", "--trace", recorded, "--"] + run, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    print(p.stderr[-3000:])
    if p.returncode != 0:
        sys.exit(f"record-agreement: the recorded run failed ({p.returncode})")
    sys.exit(0 if compare(a.cli, own, recorded) else 1)


if __name__ == "__main__":
    main()
