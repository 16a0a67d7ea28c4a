#include "cuda/multigpu/MultiGpuProbes.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include <cuda_runtime_api.h>

#include "config/ModelWork.h"
#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/Kernels.h"
#include "cuda/multigpu/NcclClique.h"
#include "cuda/multigpu/PeerAccess.h"

namespace pipescope::cuda {

namespace {

constexpr std::size_t kKiB = 1024, kMiB = 1024 * 1024;

std::string fmt(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string sizeText(std::size_t bytes) {
  return bytes >= kMiB ? std::to_string(bytes / kMiB) + "M" : std::to_string(bytes / kKiB) + "K";
}

double elapsedNs(const Event& a, const Event& b) {
  PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(b.get()));
  float ms = 0;
  PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return double(ms) * 1e6;
}

/// Repetitions so each measurement moves about 1 GiB (at least 4, at most 200 copies).
int repsFor(std::size_t bytes) { return int(std::clamp<std::size_t>(1024 * kMiB / bytes, 4, 200)); }

/// What one GPU holds for the peer probes: a stream, timing events, two buffers.
struct Side {
  int device = 0;
  Stream stream;
  Event start, end;
  DeviceBuffer a, b;
  Side(int d, std::size_t bytes) : device(d) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(d));
    stream = Stream::create();
    start = Event::create(true);
    end = Event::create(true);
    a = DeviceBuffer(bytes, "peer copy buffer");
    b = DeviceBuffer(bytes, "peer copy buffer");
  }
};

}  // namespace

double allReduceBusGBps(std::uint64_t bytes, double ns, int gpus) {
  if (ns <= 0 || gpus < 1) return 0;
  return double(bytes) / ns * 2.0 * double(gpus - 1) / double(gpus);
}

PeerCopyCalibration calibratePeerCopies(int from, int to, bool quick, const CalibrationLog& log) {
  PeerCopyCalibration out;
  out.from = from;
  out.to = to;
  const bool forward = enablePeerAccess(from, to);
  const bool backward = enablePeerAccess(to, from);
  out.peerAccess = forward && backward;
  out.linkName = linkName(from, to, out.peerAccess);
  const std::size_t largest = quick ? 16 * kMiB : 256 * kMiB;
  Side src(from, largest), dst(to, largest);
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(from));
  HostBuffer pinned(HostMemory::Pinned, largest, "pinned host buffer");
  std::memset(pinned.host(), 1, largest);

  // `n` copies from -> to on the source's stream, timed there.
  auto oneWayNs = [&](std::size_t bytes, int n) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(from));
    PIPESCOPE_CUDA_CHECK(cudaMemcpyPeerAsync(dst.a.get(), to, src.a.get(), from, bytes, src.stream.get()));  // warm-up
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(src.start.get(), src.stream.get()));
    for (int i = 0; i < n; ++i)
      PIPESCOPE_CUDA_CHECK(cudaMemcpyPeerAsync(dst.a.get(), to, src.a.get(), from, bytes, src.stream.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(src.end.get(), src.stream.get()));
    return elapsedNs(src.start, src.end) / n;
  };
  const double peak = double(largest) / oneWayNs(largest, repsFor(largest));
  const double small = oneWayNs(4 * kKiB, 200);
  out.latencyNs = std::max(0.0, small - 4.0 * kKiB / peak);
  std::string line = "peer copy GPU " + std::to_string(from) + " -> " + std::to_string(to) + " (" +
                     (out.peerAccess ? "peer access" : "no peer access: staged by the driver through host memory") +
                     "), latency " + fmt(out.latencyNs) + " ns; GB/s:";
  std::vector<std::size_t> sizes;
  for (std::size_t b = 64 * kKiB; b <= largest; b *= 4) sizes.push_back(b);
  for (std::size_t b : sizes) {
    const double t = oneWayNs(b, repsFor(b));
    out.oneWay.push_back({b, double(b) / std::max(t - out.latencyNs, t * 0.05)});
    line += " " + sizeText(b) + "=" + fmt(out.oneWay.back().gbps, 1);
  }
  if (log) log(line);

  // Both ways at once: the reverse stream waits for an event on the forward stream, so
  // both loops start together; each direction is timed on its own stream.
  Event gate;
  {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(from));
    gate = Event::create(false);
  }
  line = "peer copies both ways at once, each way GB/s:";
  for (std::size_t b : sizes) {
    const int n = repsFor(b);
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(from));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(gate.get(), src.stream.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(src.start.get(), src.stream.get()));
    for (int i = 0; i < n; ++i)
      PIPESCOPE_CUDA_CHECK(cudaMemcpyPeerAsync(dst.a.get(), to, src.a.get(), from, b, src.stream.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(src.end.get(), src.stream.get()));
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(to));
    PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(dst.stream.get(), gate.get(), 0));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(dst.start.get(), dst.stream.get()));
    for (int i = 0; i < n; ++i)
      PIPESCOPE_CUDA_CHECK(cudaMemcpyPeerAsync(src.b.get(), from, dst.b.get(), to, b, dst.stream.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(dst.end.get(), dst.stream.get()));
    const double fwd = elapsedNs(src.start, src.end) / n, back = elapsedNs(dst.start, dst.end) / n;
    const double each = double(b) / std::max(std::max(fwd, back) - out.latencyNs, std::max(fwd, back) * 0.05);
    out.bothWays.push_back({b, each});
    line += " " + sizeText(b) + "=" + fmt(each, 1);
  }
  if (log) log(line);

  // A host-to-device copy into the source GPU alone, then beside peer copies from it:
  // whether the PCIe link and the peer link share anything (the copy engines, the
  // source GPU's memory).
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(from));
  Stream h2dStream = Stream::create();
  Event h2dStart = Event::create(true), h2dEnd = Event::create(true);
  const int n = repsFor(largest);
  auto h2dLoop = [&] {
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(h2dStart.get(), h2dStream.get()));
    for (int i = 0; i < n; ++i)
      PIPESCOPE_CUDA_CHECK(
          cudaMemcpyAsync(src.b.get(), pinned.host(), largest, cudaMemcpyHostToDevice, h2dStream.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(h2dEnd.get(), h2dStream.get()));
  };
  h2dLoop();
  out.h2dAloneGBps = double(largest) * n / elapsedNs(h2dStart, h2dEnd);
  PIPESCOPE_CUDA_CHECK(cudaEventRecord(gate.get(), src.stream.get()));
  PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(h2dStream.get(), gate.get(), 0));
  PIPESCOPE_CUDA_CHECK(cudaEventRecord(src.start.get(), src.stream.get()));
  for (int i = 0; i < n; ++i)
    PIPESCOPE_CUDA_CHECK(cudaMemcpyPeerAsync(dst.a.get(), to, src.a.get(), from, largest, src.stream.get()));
  PIPESCOPE_CUDA_CHECK(cudaEventRecord(src.end.get(), src.stream.get()));
  h2dLoop();
  out.h2dBesidePeerGBps = double(largest) * n / elapsedNs(h2dStart, h2dEnd);
  out.peerBesideH2dGBps = double(largest) * n / elapsedNs(src.start, src.end);
  if (log)
    log("pinned H2D " + sizeText(largest) + " into GPU " + std::to_string(from) + ": alone " +
        fmt(out.h2dAloneGBps, 1) + " GB/s, beside peer copies " + fmt(out.h2dBesidePeerGBps, 1) +
        " GB/s (peer copies meanwhile " + fmt(out.peerBesideH2dGBps, 1) + " GB/s)");
  PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(to));
  PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(from));
  return out;
}

AllReduceCalibration calibrateAllReduce(const std::vector<int>& devices, bool quick, const CalibrationLog& log) {
  AllReduceCalibration out;
  out.devices = devices;
  const int n = int(devices.size());
  const std::size_t largest = quick ? 16 * kMiB : 256 * kMiB;
  struct Rank {
    Stream stream;
    Event start, end;
    DeviceBuffer buffer;
  };
  std::vector<Rank> ranks(devices.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[r]));
    ranks[r].stream = Stream::create();
    ranks[r].start = Event::create(true);
    ranks[r].end = Event::create(true);
    ranks[r].buffer = DeviceBuffer(largest, "all-reduce buffer");
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  NcclClique clique(devices, NcclClique::defaultTimeout());
  const NcclApi& nccl = clique.api();
  out.ncclVersion = nccl.versionText();
  auto allReduce = [&](std::size_t bytes) {
    ncclResult_t r = nccl.groupStart();
    for (int k = 0; r == ncclSuccess && k < n; ++k) {
      Rank& rank = ranks[std::size_t(k)];
      r = nccl.allReduce(rank.buffer.get(), rank.buffer.get(), bytes / sizeof(float), ncclFloat, ncclSum,
                         clique.comm(k), rank.stream.get());
    }
    const ncclResult_t end = nccl.groupEnd();
    clique.check(r != ncclSuccess ? "ncclAllReduce" : "ncclGroupEnd", r != ncclSuccess ? r : end);
  };
  // Each loop is queued behind a long kernel on every GPU, so the GPUs run the
  // all-reduces back to back: their own time, not the host's rate of group calls.
  std::vector<DeviceBuffer> holdBuf(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
    holdBuf[k] = DeviceBuffer(8 * kMiB, "hold kernel buffer");
  }
  auto hold = [&](int calls) {
    // About 90 us of GPU time per queued call (8 MiB at 500 flop/B per call, ~45 TFLOP/s
    // on an H100/H200): more than the host takes to issue one.
    const std::uint32_t fmas = modelFmasPerElement(std::clamp(500.0 * calls, 200.0, 60000.0));
    for (std::size_t k = 0; k < devices.size(); ++k) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
      auto* p = static_cast<float*>(holdBuf[k].get());
      const std::size_t m = holdBuf[k].bytes() / sizeof(float);
      PIPESCOPE_CUDA_CHECK(launchModel(p, m, p, m, fmas, ranks[k].stream.get()));
    }
  };
  std::string line = "NCCL " + out.ncclVersion + " all-reduce over " + std::to_string(n) +
                     " GPUs (in place, float sum), us / bus GB/s:";
  for (std::size_t bytes = kMiB; bytes <= largest; bytes *= 4) {
    for (int w = 0; w < 3; ++w) allReduce(bytes);  // warm-up: NCCL connects its channels at first use
    const int reps = int(std::clamp<std::size_t>(2048 * kMiB / bytes, 5, 100));
    for (int k = 0; k < n; ++k) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[std::size_t(k)]));
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(ranks[std::size_t(k)].stream.get()));
    }
    hold(reps);
    for (int k = 0; k < n; ++k) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[std::size_t(k)]));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(ranks[std::size_t(k)].start.get(), ranks[std::size_t(k)].stream.get()));
    }
    for (int i = 0; i < reps; ++i) allReduce(bytes);
    double slowest = 0;
    for (int k = 0; k < n; ++k) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[std::size_t(k)]));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(ranks[std::size_t(k)].end.get(), ranks[std::size_t(k)].stream.get()));
      slowest = std::max(slowest, elapsedNs(ranks[std::size_t(k)].start, ranks[std::size_t(k)].end) / reps);
    }
    out.curve.push_back({bytes, slowest, allReduceBusGBps(bytes, slowest, n)});
    line += " " + sizeText(bytes) + "=" + fmt(slowest / 1e3, 1) + "/" + fmt(out.curve.back().busGBps, 1);
  }
  if (log) log(line);

  // The host's time per group call. Each burst queues behind a hold kernel of about
  // 90 us per call on every GPU, so no call waits for a GPU: what is timed is NCCL's
  // and the driver's work on the host, which a run with many buckets pays per bucket.
  {
    constexpr int kCalls = 20, kBursts = 5;
    std::vector<double> perCall;
    for (int burst = 0; burst < kBursts; ++burst) {
      for (int k = 0; k < n; ++k) {
        PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[std::size_t(k)]));
        PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(ranks[std::size_t(k)].stream.get()));
      }
      hold(2 * kCalls);
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) allReduce(kMiB);
      const auto t1 = std::chrono::steady_clock::now();
      perCall.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kCalls);
    }
    for (int k = 0; k < n; ++k) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[std::size_t(k)]));
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(ranks[std::size_t(k)].stream.get()));
    }
    std::sort(perCall.begin(), perCall.end());
    out.groupCallNs = perCall[perCall.size() / 2];
    if (log)
      log("NCCL group all-reduce call on the host over " + std::to_string(n) +
          " GPUs (GPUs busy meanwhile): " + fmt(out.groupCallNs / 1e3, 1) + " us per call (median of " +
          std::to_string(kBursts) + " bursts of " + std::to_string(kCalls) + ")");
  }

  // How much of the GPU NCCL's kernels take from compute: a model kernel on the first
  // GPU alone (T_k), a loop of all-reduces alone (T_ar, on that GPU's NCCL stream), then
  // both released together by one event (T_both, from the release to the later end).
  // The simulator runs kernels at (1 - share) of their speed while a collective runs and
  // the collective at full speed, so T_both = T_k + share x T_ar: share = (T_both - T_k)
  // / T_ar. Kernels that never yield SMs to NCCL delay its blocks until theirs retire:
  // share near 1 (little overlap); kernels and NCCL side by side at full speed: 0.
  const std::size_t floats = 32 * kMiB / sizeof(float);
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
  DeviceBuffer in(32 * kMiB, "kernel input"), kout(32 * kMiB, "kernel output");
  Stream compute = Stream::create(), gateStream = Stream::create();
  Event gate = Event::create(true), kernelEnd = Event::create(true), arEnd = Event::create(true);
  const std::uint32_t fmas = modelFmasPerElement(8000);  // several ms on an H100/H200
  Rank& first = ranks.front();
  // The release: a short hold kernel on its own stream, then an event every stream
  // waits for, so the host has issued everything before any of it starts.
  auto release = [&](int calls) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
    auto* p = static_cast<float*>(holdBuf.front().get());
    const std::size_t m = holdBuf.front().bytes() / sizeof(float);
    const std::uint32_t holdFmas = modelFmasPerElement(std::clamp(500.0 * calls, 200.0, 60000.0));
    PIPESCOPE_CUDA_CHECK(launchModel(p, m, p, m, holdFmas, gateStream.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(gate.get(), gateStream.get()));
    for (std::size_t k = 0; k < devices.size(); ++k) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(ranks[k].stream.get(), gate.get(), 0));
    }
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
    PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(compute.get(), gate.get(), 0));
  };
  auto launchKernel = [&] {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
    PIPESCOPE_CUDA_CHECK(launchModel(static_cast<const float*>(in.get()), floats, static_cast<float*>(kout.get()),
                                     floats, fmas, compute.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(kernelEnd.get(), compute.get()));
  };
  const std::size_t arBytes = std::min<std::size_t>(64 * kMiB, largest);
  auto launchLoop = [&](int loops) {
    for (int i = 0; i < loops; ++i) allReduce(arBytes);
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(arEnd.get(), first.stream.get()));
  };
  auto finish = [&] {
    for (int d : devices) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(d));
      PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    }
  };
  release(1);
  launchKernel();  // warm-up
  finish();
  release(1);
  launchKernel();
  finish();
  const double alone = elapsedNs(gate, kernelEnd);
  // About as many all-reduces as fit in the kernel's time alone.
  const double oneAr = out.curve.empty() ? 1e5 : out.curve.back().ns * double(arBytes) / double(out.curve.back().bytes);
  const int loops = int(std::clamp(alone / std::max(1.0, oneAr), 2.0, 200.0));
  release(loops);
  launchLoop(loops);
  finish();
  const double arAlone = elapsedNs(gate, arEnd);
  release(loops + 1);
  launchLoop(loops);
  launchKernel();
  finish();
  const double both = std::max(elapsedNs(gate, kernelEnd), elapsedNs(gate, arEnd));
  out.smShare = arAlone > 0 ? std::clamp((both - alone) / arAlone, 0.0, 0.9) : 0.0;
  if (log)
    log("model kernel on GPU " + std::to_string(devices.front()) + " " + fmt(alone / 1e3, 1) + " us alone, " +
        std::to_string(loops) + " all-reduces of " + sizeText(arBytes) + " " + fmt(arAlone / 1e3, 1) +
        " us alone, both released together " + fmt(both / 1e3, 1) + " us -> SM share " + fmt(out.smShare, 3) +
        " (0: side by side at full speed; 1: one after the other)");

  // Which side gives way: the kernel issued first, the all-reduces behind it (a bucket
  // issued while the model computes). If the kernel keeps its SMs it ends as alone
  // and the all-reduces wait; if it gives way it ends share x T_ar later. The yield
  // share is 1 - (the kernel's delay) / (share x T_ar).
  release(loops + 1);
  launchKernel();
  launchLoop(loops);
  finish();
  const double kernelFirst = elapsedNs(gate, kernelEnd), arAfter = elapsedNs(gate, arEnd);
  const double cost = out.smShare * arAlone;
  out.yieldShare = cost > 0 ? 1.0 - std::clamp((kernelFirst - alone) / cost, 0.0, 1.0) : 0.0;
  if (log)
    log("kernel issued first, then the all-reduces: the kernel ended at " + fmt(kernelFirst / 1e3, 1) +
        " us, the all-reduces at " + fmt(arAfter / 1e3, 1) + " us -> yield share " + fmt(out.yieldShare, 3) +
        " (0: the kernel gives way to NCCL; 1: NCCL waits for the kernel's SMs)");
  return out;
}

HostLinksCalibration calibrateHostLinks(const std::vector<int>& devices, bool quick, const CalibrationLog& log) {
  HostLinksCalibration out;
  out.devices = devices;
  out.bytes = quick ? 16 * kMiB : 64 * kMiB;
  out.copies = quick ? 4 : 8;
  const std::size_t bytes = out.bytes;
  struct Gpu {
    Stream h2d, d2h;
    Event start, h2dEnd, d2hEnd;
    DeviceBuffer in, out;
    HostBuffer src, dst;
  };
  std::vector<Gpu> gpus(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
    Gpu& g = gpus[k];
    g.h2d = Stream::create();
    g.d2h = Stream::create();
    g.start = Event::create(true);
    g.h2dEnd = Event::create(true);
    g.d2hEnd = Event::create(true);
    g.in = DeviceBuffer(bytes, "host-link probe buffer");
    g.out = DeviceBuffer(bytes, "host-link probe buffer");
    g.src = HostBuffer(HostMemory::Pinned, bytes, "pinned host buffer");
    g.dst = HostBuffer(HostMemory::Pinned, bytes, "pinned host buffer");
    std::memset(g.src.host(), 1, bytes);
    std::memset(g.dst.host(), 0, bytes);
    PIPESCOPE_CUDA_CHECK(cudaMemsetAsync(g.out.get(), 2, bytes, g.d2h.get()));
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  // The release: a hold kernel of a few ms on the first GPU, then an event every copy
  // stream waits for, so the host has issued every copy before any of them starts.
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
  Stream gateStream = Stream::create();
  Event gate = Event::create(false);
  DeviceBuffer holdBuf(8 * kMiB, "hold kernel buffer");
  auto round = [&](bool h2d, bool d2h) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
    auto* p = static_cast<float*>(holdBuf.get());
    const std::size_t m = holdBuf.bytes() / sizeof(float);
    PIPESCOPE_CUDA_CHECK(launchModel(p, m, p, m, modelFmasPerElement(20000), gateStream.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(gate.get(), gateStream.get()));
    for (std::size_t k = 0; k < devices.size(); ++k) {
      Gpu& g = gpus[k];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(g.h2d.get(), gate.get(), 0));
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(g.d2h.get(), gate.get(), 0));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(g.start.get(), g.h2d.get()));
      for (int i = 0; i < out.copies; ++i) {
        if (h2d)
          PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(g.in.get(), g.src.host(), bytes, cudaMemcpyHostToDevice, g.h2d.get()));
        if (d2h)
          PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(g.dst.host(), g.out.get(), bytes, cudaMemcpyDeviceToHost, g.d2h.get()));
      }
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(g.h2dEnd.get(), g.h2d.get()));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(g.d2hEnd.get(), g.d2h.get()));
    }
    double slowest = 0;
    for (std::size_t k = 0; k < devices.size(); ++k) {
      Gpu& g = gpus[k];
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
      slowest = std::max({slowest, elapsedNs(g.start, g.h2dEnd), elapsedNs(g.start, g.d2hEnd)});
    }
    const double directions = (h2d ? 1.0 : 0.0) + (d2h ? 1.0 : 0.0);
    const double all = double(bytes) * out.copies * directions * double(devices.size());
    return slowest > 0 ? all / slowest : 0.0;
  };
  round(true, true);  // warm-up
  auto best = [&](bool h2d, bool d2h, const char* what) {
    double top = 0;
    std::string rounds;
    for (int r = 0; r < 3; ++r) {
      const double gbps = round(h2d, d2h);
      top = std::max(top, gbps);
      rounds += (r ? ", " : "") + fmt(gbps, 1);
    }
    if (log)
      log("host links, every GPU copying " + std::string(what) + " at once (" + std::to_string(devices.size()) +
          " GPUs, " + std::to_string(out.copies) + " x " + sizeText(bytes) + " each): " + fmt(top, 1) +
          " GB/s together, the best of 3 rounds (" + rounds + ")");
    return top;
  };
  out.h2dGBps = best(true, false, "host-to-device");
  out.d2hGBps = best(false, true, "device-to-host");
  out.togetherGBps = best(true, true, "both ways");
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
  return out;
}

CallSwitchCalibration calibrateCallSwitch(const std::vector<int>& devices, int streams, bool quick,
                                          const CalibrationLog& log) {
  CallSwitchCalibration out;
  out.devices = devices;
  out.streams = streams;
  constexpr std::size_t bytes = 64 * kKiB;
  const int rounds = quick ? 4 : 8;  // batches per stream per measurement
  struct Gpu {
    std::vector<Stream> streams;
    std::vector<Event> done;
    DeviceBuffer in, out;
    HostBuffer src, dst;
  };
  std::vector<Gpu> gpus(devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
    Gpu& g = gpus[k];
    for (int s = 0; s < streams; ++s) {
      g.streams.push_back(Stream::create());
      g.done.push_back(Event::create(false));
    }
    g.in = DeviceBuffer(bytes, "call-switch probe buffer");
    g.out = DeviceBuffer(bytes, "call-switch probe buffer");
    g.src = HostBuffer(HostMemory::Pinned, bytes, "pinned host buffer");
    g.dst = HostBuffer(HostMemory::Pinned, bytes, "pinned host buffer");
    std::memset(g.src.host(), 1, bytes);
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  enum Call { H2D, Kernel, D2H, Record };
  // Each copy and launch call's host time, by pattern: what the submit thread sees.
  std::vector<double> copies[2], launches[2];
  auto issue = [&](Gpu& g, int s, Call c, bool interleaved) {
    cudaStream_t st = g.streams[std::size_t(s)].get();
    auto* in = static_cast<float*>(g.in.get());
    auto* o = static_cast<float*>(g.out.get());
    const std::size_t n = bytes / sizeof(float);
    const auto t0 = std::chrono::steady_clock::now();
    switch (c) {
      case H2D: PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(in, g.src.host(), bytes, cudaMemcpyHostToDevice, st)); break;
      case Kernel: PIPESCOPE_CUDA_CHECK(launchModel(in, n, o, n, modelFmasPerElement(16), st)); break;
      case D2H: PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(g.dst.host(), o, bytes, cudaMemcpyDeviceToHost, st)); break;
      case Record: PIPESCOPE_CUDA_CHECK(cudaEventRecord(g.done[std::size_t(s)].get(), st)); return;
    }
    const double ns =
        double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    (c == Kernel ? launches : copies)[interleaved ? 1 : 0].push_back(ns);
  };
  // `rounds` batches on every stream of the first `n` GPUs: a batch's four calls in
  // turn, the next batch on the next GPU (a data-parallel pipeline's issue order), or
  // the same calls grouped by kind on each GPU.
  auto measure = [&](std::size_t n, bool interleaved) {
    for (int r = 0; r < rounds; ++r) {
      if (interleaved) {
        for (int s = 0; s < streams; ++s)
          for (std::size_t k = 0; k < n; ++k) {
            PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
            for (Call c : {H2D, Kernel, D2H, Record}) issue(gpus[k], s, c, true);
          }
      } else {
        for (std::size_t k = 0; k < n; ++k) {
          PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
          for (Call c : {H2D, Kernel, D2H, Record})
            for (int s = 0; s < streams; ++s) issue(gpus[k], s, c, false);
        }
      }
    }
    for (std::size_t k = 0; k < n; ++k) {
      PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices[k]));
      PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    }
  };
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  // The median call after a call of another kind (every copy of the interleaved
  // pattern) over the median in a run of its kind, the patterns alternating.
  struct Switch {
    double copyNs, launchNs;
  };
  auto measureSwitch = [&](std::size_t n) {
    for (auto* v : {&copies[0], &copies[1], &launches[0], &launches[1]}) v->clear();
    const int reps = quick ? 3 : 6;
    for (int i = 0; i < reps; ++i) {
      measure(n, true);
      measure(n, false);
    }
    return Switch{median(copies[1]) - median(copies[0]), median(launches[1]) - median(launches[0])};
  };
  measureSwitch(devices.size());  // warm-up: the driver's first calls on each stream
  const Switch several = measureSwitch(devices.size());
  const Switch one = measureSwitch(1);
  out.severalGpusNs = several.copyNs;
  out.oneGpuNs = one.copyNs;
  if (log)
    log("call switch: a copy call after a call of another kind costs " + fmt(several.copyNs / 1e3, 2) +
        " us more than in a run of copies over " + std::to_string(devices.size()) + " GPUs x " +
        std::to_string(streams) + " streams, " + fmt(one.copyNs / 1e3, 2) +
        " us on one GPU (a launch: " + fmt(several.launchNs / 1e3, 2) + " and " + fmt(one.launchNs / 1e3, 2) + " us)");
  PIPESCOPE_CUDA_CHECK(cudaSetDevice(devices.front()));
  return out;
}

}  // namespace pipescope::cuda
