#!/usr/bin/env python3
"""Records real per-rank PyTorch profiler traces of a small DistributedDataParallel
job, as test inputs for opening a folder of ranks (tests/fixtures/ddp-*).

Usage (a machine with 2 or more NVIDIA GPUs, PyTorch with NCCL):
    python3 tools/ddp-traces.py OUTDIR [WORLD_SIZE ...]

For each world size (default: every GPU there is) it writes two folders, each with
one torch.profiler.tensorboard_trace_handler file per rank (HOST_PID.*.pt.trace.json.gz):
  OUTDIR/ddp-wN-balanced/  every rank does the same work
  OUTDIR/ddp-wN-slowed/    rank 1 does extra host work (a busy loop of SLOW_MS)
                           before each forward pass, so the other ranks wait for it
                           in every gradient all-reduce: rank 1 is the straggler
The job: a small convolutional network on synthetic data (BATCH images of
3x64x64), one process per GPU, NCCL, gradients in DDP buckets of BUCKET_MB,
SGD; profiler schedule wait=1 warmup=1 active=STEPS (ProfilerStep#N iterations).
OUTDIR/README.txt says which GPUs, which PyTorch and NCCL, and when.
"""
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

BATCH = 64
STEPS = 12
BUCKET_MB = 4
SLOW_MS = 15.0
SLOW_RANK = 1


def network():
    # About 6 M parameters (24 MB of gradients): several DDP buckets per step, and
    # kernels long enough for the all-reduces to overlap the backward pass.
    layers = []
    width = 3
    for out in (64, 128, 256, 256, 512):
        layers += [nn.Conv2d(width, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU()]
        if out != 64:
            layers.append(nn.MaxPool2d(2))
        width = out
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, 2048), nn.ReLU(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


def busy_wait(ms):
    end = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < end:
        pass


def worker(rank, world, outdir, slowed, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # never NVLink multicast on shared hosts
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    torch.manual_seed(rank)
    model = DDP(network().cuda(), device_ids=[rank], bucket_cap_mb=BUCKET_MB)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(BATCH, 3, 64, 64, device="cuda")
    y = torch.randint(0, 1000, (BATCH,), device="cuda")
    for _ in range(3):  # warm up cuDNN and NCCL outside the profile
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()
    torch.cuda.synchronize()
    dist.barrier()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=STEPS, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(outdir, use_gzip=True)) as prof:
        for _ in range(STEPS + 2):
            if slowed and rank == SLOW_RANK:
                busy_wait(SLOW_MS)
            opt.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            opt.step()
            prof.step()
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    gpus = torch.cuda.device_count()
    worlds = [int(w) for w in sys.argv[2:]] or [gpus]
    os.makedirs(out, exist_ok=True)
    notes = [f"made {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC on {gpus} x {torch.cuda.get_device_name(0)}",
             f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}",
             f"job: batch {BATCH} of 3x64x64, {STEPS} profiled steps, DDP buckets of {BUCKET_MB} MB, "
             f"slowed: rank {SLOW_RANK} busy-waits {SLOW_MS} ms on the host before each forward"]
    port = 29500
    for world in worlds:
        if world > gpus:
            notes.append(f"world size {world}: skipped, only {gpus} GPUs")
            continue
        for slowed in (False, True):
            d = os.path.join(out, f"ddp-w{world}-{'slowed' if slowed else 'balanced'}")
            t0 = time.time()
            mp.spawn(worker, args=(world, d, slowed, port), nprocs=world, join=True)
            port += 1
            sizes = sorted(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
            notes.append(f"{os.path.basename(d)}: {len(sizes)} files, {sum(sizes)} bytes, {time.time() - t0:.1f} s")
            print(notes[-1], flush=True)
    with open(os.path.join(out, "README.txt"), "w") as f:
        f.write("\n".join(notes) + "\n")


if __name__ == "__main__":
    main()
