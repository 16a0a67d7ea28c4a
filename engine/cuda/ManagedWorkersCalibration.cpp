#include "cuda/ManagedWorkersCalibration.h"

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

constexpr std::size_t kKiB = 1024;
// The random sets' managed rows with CPU stages run batches from a few hundred KiB to
// tens of MiB; the fault curves' own sizes cover that range.
constexpr std::size_t kSizes[] = {256 * kKiB, 4096 * kKiB, 32768 * kKiB};
constexpr int kWorkerCounts[] = {2, 4, 8};  // against one worker, measured first

enum class Stage { Write, Read };

/// The stage's wall time on the pool, from hand-out to the last worker's end (ns).
double stageNs(WorkerPool& pool, float* data, std::size_t n, Stage stage, int rep) {
  volatile double sink = 0;
  const std::int64_t a = steadyNowNs();
  pool.run([&](int w, int workers) {
    if (stage == Stage::Write)
      preprocessShare(data, n, rep, 0.0, w, workers);
    else
      sink = sink + postprocessShare(data, n, 0.0, w, workers);
  });
  return double(steadyNowNs() - a);
}

/// Fault time of `workers` workers touching all of a managed buffer of `bytes` whose
/// pages a kernel just took to the device: the stage's median time minus the same
/// stage's on pinned memory.
double faultNs(int workers, std::size_t bytes, Stage stage, float* managed, float* pinned, float* device,
               cudaStream_t stream) {
  const std::size_t n = bytes / sizeof(float);
  const int reps = bytes >= 16 * kKiB * kKiB ? 5 : 9;
  WorkerPool pool(workers);
  std::vector<double> faulted, plain;
  for (int r = 0; r <= reps; ++r) {  // r = 0: the pool's first hand-out, left out
    PIPESCOPE_CUDA_CHECK(launchNormalize(device, managed, n, stream));
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));
    const double f = stageNs(pool, managed, n, stage, r);
    const double p = stageNs(pool, pinned, n, stage, r);
    if (r == 0) continue;
    faulted.push_back(f);
    plain.push_back(p);
  }
  const double fm = spreadOf(faulted).median;
  return std::max(fm - spreadOf(plain).median, fm * 0.05);
}

}  // namespace

ManagedWorkersCalibration calibrateManagedWorkers(const std::function<void(const std::string&)>& log) {
  const std::size_t largest = kSizes[std::size(kSizes) - 1];
  HostBuffer managed(HostMemory::Managed, largest, "managed buffer");
  HostBuffer pinned(HostMemory::Pinned, largest, "pinned host buffer");
  DeviceBuffer device(largest, "device buffer");
  std::memset(managed.host(), 0, largest);
  std::memset(pinned.host(), 1, largest);
  PIPESCOPE_CUDA_CHECK(cudaMemset(device.get(), 0, largest));
  Stream stream = Stream::create();
  auto* m = static_cast<float*>(managed.host());
  auto* p = static_cast<float*>(pinned.host());
  auto* d = static_cast<float*>(device.get());
  ManagedWorkersCalibration c;
  std::string line = "managed pages faulted back by N CPU workers together, x one thread (write / read):";
  for (std::size_t bytes : kSizes) {
    SizedWorkerSpeedup write{bytes, {}}, read{bytes, {}};
    const double write1 = faultNs(1, bytes, Stage::Write, m, p, d, stream.get());
    const double read1 = faultNs(1, bytes, Stage::Read, m, p, d, stream.get());
    char buf[96];
    std::snprintf(buf, sizeof buf, " %zuK: 1=%.0f/%.0fus", bytes / kKiB, write1 / 1e3, read1 / 1e3);
    line += buf;
    for (int workers : kWorkerCounts) {
      // Kept within what the simulator uses: a fault time near the probe's noise (256 KiB
      // on one H200 host: 13.7x on 4 workers) says nothing past the worker count.
      const auto within = [workers](double s) { return std::clamp(s, 0.05, double(workers)); };
      const double w = within(write1 / faultNs(workers, bytes, Stage::Write, m, p, d, stream.get()));
      const double r = within(read1 / faultNs(workers, bytes, Stage::Read, m, p, d, stream.get()));
      write.curve.push_back({workers, w});
      read.curve.push_back({workers, r});
      std::snprintf(buf, sizeof buf, " %d=%.2fx/%.2fx", workers, w, r);
      line += buf;
    }
    c.cpuWrite.push_back(std::move(write));
    c.cpuRead.push_back(std::move(read));
  }
  if (log) log(line);
  return c;
}

}  // namespace pipescope::cuda
