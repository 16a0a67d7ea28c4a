#include "cuda/ManagedSlotsCalibration.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/CpuWork.h"
#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/Kernels.h"
#include "cuda/WorkerPool.h"
#include "metrics/Spread.h"

namespace pipescope::cuda {

namespace {

constexpr std::size_t kSlotBytes = std::size_t(256) << 10;  // near the random sets' sub-MiB managed rows
constexpr int kPasses = 6;                                  // pass 0: first touch, left out
constexpr int kSlotCounts[] = {1, 4, 8, 16, 32};

struct StepTimes {
  double gpuSideNs = 0, cpuWriteNs = 0;  // medians over the measured steps
};

StepTimes slotSteps(int slots, double kernelOwnNs, double plainWriteNs, int device) {
  const std::size_t n = kSlotBytes / sizeof(float);
  std::vector<HostBuffer> in, out;
  for (int s = 0; s < slots; ++s) {
    in.emplace_back(HostMemory::Managed, kSlotBytes, "managed slot input");
    out.emplace_back(HostMemory::Managed, kSlotBytes, "managed slot output");
    // The backend touches every managed buffer once at allocation: pages start on the host.
    std::memset(in.back().host(), 0, kSlotBytes);
    std::memset(out.back().host(), 0, kSlotBytes);
  }
  Stream stream = Stream::create();
  Event start = Event::create(true), end = Event::create(true);
  cudaMemLocation onDevice{}, onHost{};
  onDevice.type = cudaMemLocationTypeDevice;
  onDevice.id = device;
  onHost.type = cudaMemLocationTypeHost;
  onHost.id = 0;
  std::vector<double> gpu, cpu;
  for (int pass = 0; pass < kPasses; ++pass) {
    for (int s = 0; s < slots; ++s) {
      auto* i = static_cast<float*>(in[std::size_t(s)].host());
      auto* o = static_cast<float*>(out[std::size_t(s)].host());
      // Preprocessing's write: the input's pages are on the device since the slot's last step.
      const std::int64_t a = steadyNowNs();
      preprocessShare(i, n, pass, 0.0, 0, 1);
      const double write = double(steadyNowNs() - a);
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
      PIPESCOPE_CUDA_CHECK(cudaMemPrefetchAsync(i, kSlotBytes, onDevice, 0, stream.get()));
      PIPESCOPE_CUDA_CHECK(launchNormalize(i, o, n, stream.get()));
      PIPESCOPE_CUDA_CHECK(cudaMemPrefetchAsync(o, kSlotBytes, onHost, 0, stream.get()));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(end.get(), stream.get()));
      PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(end.get()));
      float ms = 0;
      PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), end.get()));
      if (pass == 0) continue;
      gpu.push_back(std::max(double(ms) * 1e6 - kernelOwnNs, 1.0));
      cpu.push_back(std::max(write - plainWriteNs, 1.0));
    }
  }
  return {spreadOf(gpu).median, spreadOf(cpu).median};
}

/// Preprocessing's write of 256 KiB of pinned memory: the part of a step's write that
/// is not a fault.
double plainWriteNs() {
  HostBuffer pinned(HostMemory::Pinned, kSlotBytes, "pinned host buffer");
  std::vector<double> t;
  for (int r = 0; r < 15; ++r) {
    const std::int64_t a = steadyNowNs();
    preprocessShare(static_cast<float*>(pinned.host()), kSlotBytes / sizeof(float), r, 0.0, 0, 1);
    t.push_back(double(steadyNowNs() - a));
  }
  return spreadOf(t).median;
}

}  // namespace

ManagedSlotsCalibration calibrateManagedSlots(double normalizeOwnNsPerByte, double normalizeFixedNs, int device,
                                              const std::function<void(const std::string&)>& log) {
  ManagedSlotsCalibration c;
  const double kernelOwn = normalizeFixedNs + normalizeOwnNsPerByte * double(kSlotBytes);
  const double plain = plainWriteNs();
  StepTimes one;
  std::string line = "managed slots (256 KiB each), a step's page moves: GPU side / CPU write us (x one slot):";
  for (int slots : kSlotCounts) {
    const StepTimes t = slotSteps(slots, kernelOwn, plain, device);
    if (slots == 1) one = t;
    // Faster than one slot is noise: the one-buffer curves stay as they are.
    const double gpu = std::max(t.gpuSideNs / std::max(one.gpuSideNs, 1.0), 1.0);
    const double cpu = std::max(t.cpuWriteNs / std::max(one.cpuWriteNs, 1.0), 1.0);
    if (slots > 1) {
      c.gpuSide.push_back({slots, gpu});
      c.cpuWrite.push_back({slots, cpu});
    }
    char buf[128];
    std::snprintf(buf, sizeof buf, " %d=%.1f/%.1f (%.2fx/%.2fx)", slots, t.gpuSideNs / 1e3, t.cpuWriteNs / 1e3, gpu,
                  cpu);
    line += buf;
  }
  if (log) log(line);
  return c;
}

}  // namespace pipescope::cuda
