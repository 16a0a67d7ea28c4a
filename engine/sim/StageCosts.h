#pragma once
// How long each pipeline stage takes on a device profile, apart from contention.
// The simulator uses these costs; the CUDA backend's presets are sized with the
// same figures so the two backends run comparable work.
#include <cstdint>

#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

/// GEMM work per sample of the light/heavy model presets. Light is sized like a
/// MobileNet-class network (~0.6 GFLOP per forward pass), heavy like ResNet-18
/// (~3.6 GFLOP, i.e. 1.8 GMAC). Custom uses modelFlopsPerByte instead.
double modelFlopsPerSample(ModelPreset preset);

enum class CopyDirection : std::uint8_t { H2D, D2H };

/// Achieved bandwidth (GB/s = bytes per ns) of one copy of `bytes`: the profile's
/// curve for that direction and memory kind, interpolated linearly in log(size)
/// and held flat beyond its ends; the flat figure when there is no curve.
/// `blocking`: a blocking cudaMemcpy (its own pinned curve when the profile has one).
double copyGBps(const DeviceProfile& p, CopyDirection dir, bool pageable, std::uint64_t bytes, bool blocking = false);

/// Engine time of a copy running alone: fixed DMA setup plus bytes / bandwidth.
double copySoloNs(const DeviceProfile& p, CopyDirection dir, bool pageable, std::uint64_t bytes, bool blocking = false);

/// Normalisation kernel: reads and writes the batch once from device memory.
double normalizeKernelNs(const DeviceProfile& p, std::uint64_t bytes);
/// The model kernel for `config` (0 when the model stage is off).
double modelKernelNs(const DeviceProfile& p, const PipelineConfig& config);

/// From device completion to a blocking-sync host thread running again, after it
/// waited `waitedNs`: a thread that really went to sleep wakes more slowly. Inline:
/// the calibration (libpipescope_cuda, which the engine library links) uses it too.
inline double blockingSyncWakeNs(const DeviceProfile& p, double waitedNs) {
  if (p.syncSleepWakeNs > 0 && waitedNs > p.syncSleepAfterNs) return p.syncSleepWakeNs;
  return p.syncWakeNs;
}

/// Speed-up of `workers` threads over one: the profile's measured curve, linear
/// between its points; `workers` itself when the profile has no curve.
double workerSpeedup(const DeviceProfile& p, int workers);

/// One CPU stage of a batch on `workers` threads in parallel (fork-join).
double cpuStageNs(const DeviceProfile& p, std::uint64_t bytes, double opsPerByte, int workers);

}  // namespace pipescope
