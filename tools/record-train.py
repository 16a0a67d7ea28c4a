#!/usr/bin/env python3
"""A small PyTorch training loop to record with `pipescope-cli record` (and the
workload of bench/record_overhead.py): ResNet-18 as in tools/pytorch-traces.py, SGD
on random data, the input pinned and copied non_blocking, one NVTX range "step" per
iteration (what the recording finds its iterations from).

Usage (GPU machine, PyTorch with CUDA):
  python3 tools/record-train.py [--steps N] [--batch B] [--profiler] [--no-nvtx]

Prints "train: MS ms for N steps" (the timed loop, after 5 warm-up steps). With
--profiler the timed loop runs under torch.profiler (CPU and CUDA activities, a
ProfilerStep per iteration), to measure torch.profiler's own cost beside pipescope's;
never combine it with `pipescope-cli record` (CUPTI has one client per process).
"""
import argparse
import time

import torch
import torchvision


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--profiler", action="store_true")
    ap.add_argument("--no-nvtx", action="store_true")
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet18(weights=None).cuda().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    x_host = torch.rand(a.batch, 3, 224, 224).pin_memory()
    y_host = torch.randint(0, 1000, (a.batch,)).pin_memory()

    def step():
        if not a.no_nvtx:
            torch.cuda.nvtx.range_push("step")
        x = x_host.to("cuda", non_blocking=True)
        y = y_host.to("cuda", non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if not a.no_nvtx:
            torch.cuda.nvtx.range_pop()

    for _ in range(5):  # warm-up: cuDNN autotuning and allocations stay out of the timing
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    if a.profiler:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(a.steps):
                step()
                prof.step()
            torch.cuda.synchronize()
            ms = (time.perf_counter() - t0) * 1000
    else:
        for _ in range(a.steps):
            step()
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1000
    print(f"train: {ms:.3f} ms for {a.steps} steps (batch {a.batch})", flush=True)


if __name__ == "__main__":
    main()
