#include "sim/StageCosts.h"

#include <algorithm>
#include <cmath>

namespace pipescope {

double modelFlopsPerSample(ModelPreset preset) {
  switch (preset) {
    case ModelPreset::Light: return 0.6e9;
    case ModelPreset::Heavy: return 3.6e9;
    case ModelPreset::Custom: return 0;
  }
  return 0;
}

namespace {

double interpolate(const std::vector<BandwidthPoint>& curve, std::uint64_t bytes) {
  if (bytes <= curve.front().bytes) return curve.front().gbps;
  if (bytes >= curve.back().bytes) return curve.back().gbps;
  const auto hi = std::upper_bound(curve.begin(), curve.end(), bytes,
                                   [](std::uint64_t b, const BandwidthPoint& p) { return b < p.bytes; });
  const auto lo = hi - 1;
  const double x = std::log(double(bytes));
  const double x0 = std::log(double(lo->bytes));
  const double x1 = std::log(double(hi->bytes));
  return lo->gbps + (hi->gbps - lo->gbps) * (x - x0) / (x1 - x0);
}

}  // namespace

double copyGBps(const DeviceProfile& p, CopyDirection dir, bool pageable, std::uint64_t bytes, bool blocking) {
  const bool h2d = dir == CopyDirection::H2D;
  if (blocking && !pageable) {
    const auto& sync = h2d ? p.h2dPinnedBlockingCurve : p.d2hPinnedBlockingCurve;
    if (!sync.empty()) return interpolate(sync, bytes);
  }
  const auto& curve = pageable ? (h2d ? p.h2dPageableCurve : p.d2hPageableCurve)
                               : (h2d ? p.h2dPinnedCurve : p.d2hPinnedCurve);
  if (!curve.empty()) return interpolate(curve, bytes);
  return pageable ? (h2d ? p.h2dPageableGBps : p.d2hPageableGBps) : (h2d ? p.h2dPinnedGBps : p.d2hPinnedGBps);
}

double copySoloNs(const DeviceProfile& p, CopyDirection dir, bool pageable, std::uint64_t bytes, bool blocking) {
  return p.copyLatencyNs + double(bytes) / copyGBps(p, dir, pageable, bytes, blocking);
}

double normalizeKernelNs(const DeviceProfile& p, std::uint64_t bytes) {
  return p.kernelFixedNs + 2.0 * double(bytes) / p.deviceMemoryGBps;
}

double modelKernelNs(const DeviceProfile& p, const PipelineConfig& c) {
  if (c.model == ModelPreset::Custom) {
    if (c.modelFlopsPerByte <= 0) return 0;
    return p.kernelFixedNs + double(c.batchBytes()) * c.modelFlopsPerByte / p.modelGflops;
  }
  return p.kernelFixedNs + double(c.batchSamples) * modelFlopsPerSample(c.model) / (p.gemmTflops * 1000.0);
}

double workerSpeedup(const DeviceProfile& p, int workers) {
  const double w = double(std::max(workers, 1));
  const auto& c = p.cpuWorkerSpeedup;
  if (c.empty()) return w;
  if (w <= c.front().workers) return c.front().speedup * w / double(c.front().workers);
  if (w >= c.back().workers) return c.back().speedup * w / double(c.back().workers);
  for (std::size_t i = 1; i < c.size(); ++i) {
    if (w > c[i].workers) continue;
    const double f = (w - c[i - 1].workers) / double(c[i].workers - c[i - 1].workers);
    return c[i - 1].speedup + f * (c[i].speedup - c[i - 1].speedup);
  }
  return w;
}

double cpuStageNs(const DeviceProfile& p, std::uint64_t bytes, double opsPerByte, int workers) {
  return double(bytes) * opsPerByte * p.cpuNsPerOp / workerSpeedup(p, workers);
}

}  // namespace pipescope
