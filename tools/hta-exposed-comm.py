#!/usr/bin/env python3
"""Exposed communication per rank, by Holistic Trace Analysis' published definition,
written independently of pipescope so its figures can be checked against it.

Usage: python3 tools/hta-exposed-comm.py FILE_OR_FOLDER [...]

Reads PyTorch profiler traces (*.pt.trace.json[.gz]; a folder stands for the files
in it) and prints one JSON object: for each rank (distributedInfo.rank, else the
file's position), the communication kernel time, the part of it not overlapped by
any computation kernel on the same rank (exposed), and the overlap percentage.

HTA's kernel classes (hta/common/trace_symbol_table and comm_comp_overlap): a GPU
kernel whose name contains "nccl" is COMMUNICATION; memcpy and memset events are
MEMORY; every other kernel is COMPUTATION. Exposed communication is the length of
the union of communication kernel intervals minus its intersection with the union
of computation kernel intervals. Times in microseconds, as in the files.
"""
import gzip
import json
import os
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def union(intervals):
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def length(intervals):
    return sum(end - start for start, end in intervals)


def intersection(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append([start, end])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def rank_figures(trace):
    comm, comp = [], []
    for e in trace.get("traceEvents", []):
        if e.get("ph") != "X" or e.get("cat") != "kernel":
            continue
        interval = (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)))
        (comm if "nccl" in e.get("name", "").lower() else comp).append(interval)
    comm_u, comp_u = union(comm), union(comp)
    comm_time = length(comm_u)
    overlapped = length(intersection(comm_u, comp_u))
    return {
        "communication_us": comm_time,
        "computation_us": length(comp_u),
        "exposed_communication_us": comm_time - overlapped,
        "overlap_percent": 100.0 * overlapped / comm_time if comm_time > 0 else 0.0,
    }


def main():
    files = []
    for arg in sys.argv[1:]:
        if os.path.isdir(arg):
            files += sorted(os.path.join(arg, f) for f in os.listdir(arg) if ".pt.trace.json" in f)
        else:
            files.append(arg)
    if not files:
        sys.exit(__doc__)
    ranks = {}
    for position, path in enumerate(files):
        trace = load(path)
        rank = trace.get("distributedInfo", {}).get("rank", position)
        figures = rank_figures(trace)
        figures["file"] = os.path.basename(path)
        ranks[str(rank)] = figures
    json.dump({"definition": "HTA: nccl kernels not overlapped by computation kernels, same rank", "ranks": ranks},
              sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
