#!/usr/bin/env python3
"""Records real PyTorch profiler traces on a GPU machine, as test inputs for the
importer and the imported-trace analysis (tests/fixtures, docs/file-formats.md).

Usage (GPU machine, PyTorch with CUDA): python3 tools/pytorch-traces.py OUTDIR

Writes, each small enough to keep in the repository gzipped:
  steps/               torch.profiler.tensorboard_trace_handler output, two
                       workers' files (*.pt.trace.json.gz): ResNet-18 inference,
                       ProfilerStep#N iterations (schedule wait=1 warmup=1 active=3),
                       pinned input copied non_blocking on 2 streams
  stages-pageable.json export_chrome_trace, no ProfilerStep: record_function stages
                       cpu_to_gpu / normalization / model / gpu_to_cpu from pageable
                       memory (blocking copies), 1 stream
  stages-pinned-4streams.json  the same stages, pinned memory, 4 streams round robin
  random-generation.json       a loop whose iterations start with a record_function
                       named random_generation (no other stage names)
  with-stack.json      2 steps with with_stack=True (Python call-stack events)
  record-shapes.json   the stages on 2 streams with record_shapes=True (batch size
                       read from the layers' input shapes)
  gpu-bound.json       ResNet-50 training-like loop at batch 64, pinned, 2 streams,
                       no per-iteration sync (the GPU is the critical resource)
A README.txt in OUTDIR says what each file holds and on which GPU it was made.
"""
import gzip
import os
import shutil
import sys

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler

BATCH = 16
ITERS = 6


def model():
    m = torchvision.models.resnet18(weights=None).cuda().eval()
    return m


def stage_loop(m, streams, pinned, iters, prof=None):
    host_in = [torch.rand(BATCH, 3, 224, 224) for _ in range(streams)]
    if pinned:
        host_in = [t.pin_memory() for t in host_in]
    host_out = [torch.empty(BATCH, 1000, pin_memory=pinned) for _ in range(streams)]
    cuda_streams = [torch.cuda.Stream() for _ in range(streams)]
    mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1)
    with torch.no_grad():
        for i in range(iters):
            s = i % streams
            with torch.cuda.stream(cuda_streams[s]):
                with record_function("cpu_to_gpu"):
                    x = host_in[s].to("cuda", non_blocking=pinned)
                with record_function("normalization"):
                    x = (x - mean) / std
                with record_function("model"):
                    y = m(x)
                with record_function("gpu_to_cpu"):
                    host_out[s].copy_(y, non_blocking=pinned)
            if prof is not None:
                prof.step()
    torch.cuda.synchronize()


def export(prof, path):
    prof.export_chrome_trace(path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "pytorch-traces"
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    m = model()
    stage_loop(m, 2, True, 3)  # warm-up: cuDNN autotuning and allocations stay out of the traces
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]

    # 1. tensorboard_trace_handler with ProfilerStep#N, two workers' files.
    for worker in ("worker0", "worker1"):
        with profile(activities=acts, schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                     on_trace_ready=tensorboard_trace_handler(os.path.join(out, "steps"), worker_name=worker,
                                                              use_gzip=True)) as prof:
            stage_loop(m, 2, True, 5, prof)

    # 2. stage annotations, pageable, 1 stream (no ProfilerStep).
    with profile(activities=acts) as prof:
        stage_loop(m, 1, False, ITERS)
    export(prof, os.path.join(out, "stages-pageable.json"))

    # 3. stage annotations, pinned, 4 streams.
    with profile(activities=acts) as prof:
        stage_loop(m, 4, True, 8)
    export(prof, os.path.join(out, "stages-pinned-4streams.json"))

    # 4. iterations marked only by a leading random_generation range.
    with profile(activities=acts) as prof:
        with torch.no_grad():
            for _ in range(ITERS):
                with record_function("random_generation"):
                    x = torch.rand(BATCH, 3, 224, 224, device="cuda")
                y = m(x)
                y.cpu()
    export(prof, os.path.join(out, "random-generation.json"))

    # 5. Python call stacks.
    with profile(activities=acts, with_stack=True,
                 schedule=schedule(wait=0, warmup=1, active=2, repeat=1)) as prof:
        stage_loop(m, 2, True, 3, prof)
    export(prof, os.path.join(out, "with-stack.json"))

    # 6. record_shapes: "Input Dims" on every CPU op.
    with profile(activities=acts, record_shapes=True) as prof:
        stage_loop(m, 2, True, ITERS)
    export(prof, os.path.join(out, "record-shapes.json"))

    # 7. GPU-bound: a heavier model, larger batch, no host sync inside the loop.
    big = torchvision.models.resnet50(weights=None).cuda().eval()
    xs = [torch.rand(64, 3, 224, 224).pin_memory() for _ in range(2)]
    streams = [torch.cuda.Stream() for _ in range(2)]
    with torch.no_grad():
        for s_, x in zip(streams, xs):  # warm-up
            with torch.cuda.stream(s_):
                big(x.to("cuda", non_blocking=True))
        torch.cuda.synchronize()
        with profile(activities=acts) as prof:
            for i in range(ITERS):
                s_ = streams[i % 2]
                with torch.cuda.stream(s_):
                    with record_function("iteration"):
                        y = big(xs[i % 2].to("cuda", non_blocking=True))
                        y.sum()
            torch.cuda.synchronize()
    export(prof, os.path.join(out, "gpu-bound.json"))

    for name in os.listdir(out):
        p = os.path.join(out, name)
        if name.endswith(".json"):
            with open(p, "rb") as f, gzip.open(p + ".gz", "wb", compresslevel=9) as g:
                g.write(f.read())
            os.remove(p)
    with open(os.path.join(out, "README.txt"), "w") as f:
        f.write("Recorded by tools/pytorch-traces.py on %s, torch %s, torchvision %s, CUDA %s.\n" %
                (torch.cuda.get_device_name(0), torch.__version__, torchvision.__version__, torch.version.cuda))
        f.write("Model: torchvision ResNet-18 inference, batch %d x 3x224x224 float32.\n" % BATCH)
        f.write(__doc__)
    for root, _, files in os.walk(out):
        for name in sorted(files):
            p = os.path.join(root, name)
            print("%8d  %s" % (os.path.getsize(p), p))


if __name__ == "__main__":
    main()
