#include "sim/StageCosts.h"

#include "config/ModelWork.h"

#include <algorithm>
#include <cmath>

namespace pipescope {

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

double curveGBps(const std::vector<BandwidthPoint>& curve, std::uint64_t bytes, double fallback) {
  return curve.empty() ? fallback : interpolate(curve, bytes);
}

namespace {

/// The rate of the path's own curve, before any cap.
double pathCurveGBps(const DeviceProfile& p, const CopyPath& path, std::uint64_t bytes) {
  const bool h2d = path.dir == CopyDirection::H2D;
  if (path.pageable && path.rotating) {
    const auto& rotatingCurve = h2d ? p.h2dPageableRotatingCurve : p.d2hPageableRotatingCurve;
    if (!rotatingCurve.empty()) return interpolate(rotatingCurve, bytes);
  }
  if (path.blocking && !path.pageable) {
    const auto& sync = h2d ? p.h2dPinnedBlockingCurve : p.d2hPinnedBlockingCurve;
    if (!sync.empty()) return interpolate(sync, bytes);
  }
  const auto& curve =
      path.pageable ? (h2d ? p.h2dPageableCurve : p.d2hPageableCurve) : (h2d ? p.h2dPinnedCurve : p.d2hPinnedCurve);
  if (!curve.empty()) {
    const double rate = interpolate(curve, bytes);
    // An 18 MiB chunk of a 106 MiB batch copied at 7.2-7.7 GB/s on an H200 host, the
    // curve's 106 MiB rate (~8.4), not its 16 MiB one (15).
    if (path.pageable && path.footprintBytes > bytes) return std::min(rate, interpolate(curve, path.footprintBytes));
    return rate;
  }
  return path.pageable ? (h2d ? p.h2dPageableGBps : p.d2hPageableGBps) : (h2d ? p.h2dPinnedGBps : p.d2hPinnedGBps);
}

}  // namespace

double copyGBps(const DeviceProfile& p, const CopyPath& path, std::uint64_t bytes) {
  const double gbps = pathCurveGBps(p, path, bytes);
  // The DMA engine reading pinned bytes the CPU just wrote is slower.
  if (path.cpuWritten && path.dir == CopyDirection::H2D && !path.pageable && !p.h2dPinnedCpuWrittenCurve.empty())
    return std::min(gbps, interpolate(p.h2dPinnedCpuWrittenCurve, bytes));
  return gbps;
}

double copySoloNs(const DeviceProfile& p, const CopyPath& path, std::uint64_t bytes) {
  return p.copyLatencyNs + double(bytes) / copyGBps(p, path, bytes);
}

bool stagesPageableCopiesOnHost(const DeviceProfile& p, CopyDirection dir) {
  return !(dir == CopyDirection::H2D ? p.h2dPageableStagingCurve : p.d2hPageableStagingCurve).empty();
}

double pageableStagingNs(const DeviceProfile& p, CopyDirection dir, std::uint64_t bytes) {
  const auto& curve = dir == CopyDirection::H2D ? p.h2dPageableStagingCurve : p.d2hPageableStagingCurve;
  if (curve.empty() || bytes == 0) return 0;
  return double(bytes) / interpolate(curve, bytes);
}

double mappedWriteKernelNs(const DeviceProfile& p, double workNs, double writeNs) {
  const double overlap = std::clamp(p.mappedWriteOverlap, 0.0, 1.0);
  return std::max(workNs, writeNs) + (1.0 - overlap) * std::min(workNs, writeNs);
}

double mappedReadGBps(const DeviceProfile& p, std::uint64_t bytes, bool cpuWritten) {
  if (cpuWritten && !p.mappedReadCpuWrittenCurve.empty())
    return std::min(p.mappedReadGBps, interpolate(p.mappedReadCpuWrittenCurve, bytes));
  return p.mappedReadGBps;
}

bool copiesRotateHostBuffers(const PipelineConfig& config) { return config.hostSlots() > 1; }

double normalizeKernelNs(const DeviceProfile& p, std::uint64_t bytes) {
  return p.kernelFixedNs + 2.0 * double(bytes) / p.deviceMemoryGBps;
}

double modelKernelNs(const DeviceProfile& p, const PipelineConfig& c) {
  return customModelKernelNs(p, c.batchBytes(), c.outputBytes(), c.modelFlopsPerByte);
}

ModelKernelParts modelKernelParts(const DeviceProfile& p, std::uint64_t in, std::uint64_t out, double flopsPerByte) {
  ModelKernelParts parts;
  parts.flopNs = double(in / 4) * 2.0 * double(modelFmasPerElement(flopsPerByte)) / p.modelGflops;
  parts.memoryAdds = p.modelMemoryGBps > 0;
  parts.memoryNs = double(in + out) / (parts.memoryAdds ? p.modelMemoryGBps : p.deviceMemoryGBps);
  return parts;
}

double modelKernelFlopShareNs(const ModelKernelParts& parts, double ns) {
  return std::max(0.0, parts.memoryAdds ? ns - parts.memoryNs : ns);
}

ModelKernelTime customModelKernelTime(const DeviceProfile& p, std::uint64_t in, std::uint64_t out,
                                      double flopsPerByte) {
  const ModelKernelParts parts = modelKernelParts(p, in, out, flopsPerByte);
  const auto at = [&](double flopFactor) {
    const double flopNs = parts.flopNs * flopFactor;
    return parts.memoryAdds ? flopNs + parts.memoryNs : std::max(flopNs, parts.memoryNs);
  };
  const double factor = modelKernelBlocksFactor(p, in / 4);
  const double ns = at(factor);
  return {p.kernelFixedNs + ns, factor > 1.0 ? ns - at(1.0) : 0.0};
}

double customModelKernelNs(const DeviceProfile& p, std::uint64_t in, std::uint64_t out, double flopsPerByte) {
  return customModelKernelTime(p, in, out, flopsPerByte).ns;
}

double gemmLayerNs(const DeviceProfile& p, ModelPreset preset, std::uint64_t rows) {
  const GemmShape g = gemmShape(preset);
  const auto& curve = preset == ModelPreset::Light ? p.lightGemmCurve : p.heavyGemmCurve;
  if (curve.empty() || rows == 0) {
    const double flops = 2.0 * double(rows) * g.width * double(g.width);
    return p.kernelFixedNs + flops / (p.gemmTflops * 1000.0);
  }
  // Below the curve a GEMM costs its smallest measured time (launch and tail
  // dominate); above it the time grows with the rows; between points, log-log.
  if (rows <= curve.front().rows) return curve.front().ns;
  if (rows >= curve.back().rows) return curve.back().ns * double(rows) / double(curve.back().rows);
  const auto hi = std::upper_bound(curve.begin(), curve.end(), rows,
                                   [](std::uint64_t r, const GemmPoint& pt) { return r < pt.rows; });
  const auto lo = hi - 1;
  const double f = std::log(double(rows) / double(lo->rows)) / std::log(double(hi->rows) / double(lo->rows));
  return std::exp(std::log(lo->ns) + f * (std::log(hi->ns) - std::log(lo->ns)));
}

double headKernelNs(const DeviceProfile& p, std::uint64_t activationBytes, std::uint64_t outputBytes) {
  return p.kernelFixedNs + double(activationBytes + outputBytes) / p.deviceMemoryGBps;
}

double managedFaultNs(const DeviceProfile& p, std::uint64_t bytes, ManagedTouch touch) {
  if (bytes == 0) return 0;
  // Each CPU curve falls back to the one before it: write -> read -> the GPU's.
  const std::vector<BandwidthPoint>* curve = &p.managedGpuFaultCurve;
  if (touch != ManagedTouch::Kernel && !p.managedCpuFaultCurve.empty()) curve = &p.managedCpuFaultCurve;
  if (touch == ManagedTouch::CpuWrite && !p.managedCpuWriteFaultCurve.empty()) curve = &p.managedCpuWriteFaultCurve;
  return double(bytes) / curveGBps(*curve, bytes, p.managedMigrationGBps);
}

namespace {

/// A curve-by-size value at `bytes`: `valueOf` each size's curve, linear in log(bytes)
/// between the sizes around `bytes`, the nearest size's beyond them (`sizes` not empty).
template <class Sized, class ValueOf>
double atSize(const std::vector<Sized>& sizes, std::uint64_t bytes, const ValueOf& valueOf) {
  if (bytes <= sizes.front().bytes) return valueOf(sizes.front().curve);
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    if (bytes > sizes[i].bytes) continue;
    const double lo = valueOf(sizes[i - 1].curve), hi = valueOf(sizes[i].curve);
    const double f = std::log(double(bytes) / double(sizes[i - 1].bytes)) /
                     std::log(double(sizes[i].bytes) / double(sizes[i - 1].bytes));
    return lo + f * (hi - lo);
  }
  return valueOf(sizes.back().curve);
}

/// A curve by workers at `workers`: linear from (1, 1) to its first point and between
/// points, its last value beyond it.
double byWorkers(const std::vector<WorkerSpeedup>& c, int workers) {
  if (c.empty() || workers <= 1) return 1.0;
  const auto at = [](const WorkerSpeedup& a, const WorkerSpeedup& b, int w) {
    const double f = b.workers > a.workers ? double(w - a.workers) / double(b.workers - a.workers) : 1.0;
    return a.speedup + f * (b.speedup - a.speedup);
  };
  if (workers <= c.front().workers) return at({1, 1.0}, c.front(), workers);
  for (std::size_t i = 1; i < c.size(); ++i)
    if (workers <= c[i].workers) return at(c[i - 1], c[i], workers);
  return c.back().speedup;
}

}  // namespace

double managedCpuFaultWorkersSpeedup(const DeviceProfile& p, int workers, std::uint64_t bytes, ManagedTouch touch) {
  if (touch == ManagedTouch::Kernel || workers <= 1) return 1.0;
  const auto& sizes = touch == ManagedTouch::CpuWrite ? p.managedCpuWriteFaultWorkers : p.managedCpuReadFaultWorkers;
  if (sizes.empty()) return 1.0;
  const double s = atSize(sizes, bytes, [&](const std::vector<WorkerSpeedup>& c) { return byWorkers(c, workers); });
  return std::clamp(s, 0.05, double(workers));
}

double prefetchNs(const DeviceProfile& p, std::uint64_t bytes, bool toDevice) {
  const auto& curve = toDevice ? p.prefetchToDeviceCurve : p.prefetchToHostCurve;
  if (curve.empty())
    return copySoloNs(p, {.dir = toDevice ? CopyDirection::H2D : CopyDirection::D2H, .pageable = true}, bytes);
  return double(bytes) / curveGBps(curve, bytes, 1.0);
}

double gemmCallNs(const DeviceProfile& p, ModelPreset preset) {
  const double call = preset == ModelPreset::Heavy ? p.heavyGemmCallNs : p.lightGemmCallNs;
  return call > 0 ? call : p.kernelLaunchNs;
}

double streamsSpeedup(const std::vector<StreamSpeedup>& c, int streams) {
  if (c.empty() || streams <= 1) return 1.0;
  double s = c.back().speedup;
  if (streams <= c.front().streams) {
    // From one stream (speed-up 1) to the first point.
    const double f = c.front().streams > 1 ? double(streams - 1) / double(c.front().streams - 1) : 1.0;
    s = 1.0 + f * (c.front().speedup - 1.0);
  } else {
    for (std::size_t i = 1; i < c.size(); ++i) {
      if (streams > c[i].streams) continue;
      const double f = double(streams - c[i - 1].streams) / double(c[i].streams - c[i - 1].streams);
      s = c[i - 1].speedup + f * (c[i].speedup - c[i - 1].speedup);
      break;
    }
  }
  return std::clamp(s, 1.0, double(streams));
}

bool hasManagedFaultOverlap(const DeviceProfile& p) {
  return !p.managedFaultStreamsSpeedup.empty() || !p.managedFaultStreamsSpeedupBySize.empty();
}

double managedFaultStreamsSpeedup(const DeviceProfile& p, int streams, std::uint64_t bytes) {
  const auto& sizes = p.managedFaultStreamsSpeedupBySize;
  if (sizes.empty()) return streamsSpeedup(p.managedFaultStreamsSpeedup, streams);
  return atSize(sizes, bytes, [&](const std::vector<StreamSpeedup>& c) { return streamsSpeedup(c, streams); });
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

namespace {

/// Linear between the two points around `x`; outside them along the first or last
/// segment (`extrapolate`) or flat at the end point. A single point is flat.
template <class Point, class X>
double linearAt(const std::vector<Point>& c, double x, X Point::*px, double Point::*py, bool extrapolate) {
  if (c.size() == 1) return c.front().*py;
  if (!extrapolate && x <= double(c.front().*px)) return c.front().*py;
  if (!extrapolate && x >= double(c.back().*px)) return c.back().*py;
  std::size_t i = 1;
  while (i + 1 < c.size() && x > double(c[i].*px)) ++i;
  const Point& a = c[i - 1];
  const Point& b = c[i];
  const double f = (x - double(a.*px)) / double(b.*px - a.*px);
  return a.*py + f * (b.*py - a.*py);
}

}  // namespace

double modelKernelBlocksFactor(const DeviceProfile& p, std::uint64_t elements) {
  const auto& c = p.modelKernelBlocksCurve;
  if (c.empty() || elements >= kModelKernelThreads * kModelKernelMaxBlocks) return 1.0;
  return linearAt(c, double(modelKernelBlocks(elements)), &KernelBlocksPoint::blocks, &KernelBlocksPoint::factor,
                  false);
}

double oneWorkerCpuStageNsPerByte(const DeviceProfile& p, double opsPerByte, bool preprocess) {
  const double rounds = double(cpuRoundsPerElement(opsPerByte));
  const auto& curve = preprocess ? p.cpuPreprocessRoundsCurve : p.cpuPostprocessRoundsCurve;
  // Never below 0: the last segment extrapolated down could cross it.
  if (!curve.empty())
    return std::max(0.0, linearAt(curve, rounds, &CpuRoundsPoint::rounds, &CpuRoundsPoint::nsPerByte, true));
  const double fixed = preprocess ? p.cpuPreprocessNsPerByte : p.cpuPostprocessNsPerByte;
  const double ownRound = preprocess ? p.cpuPreprocessNsPerOp : p.cpuPostprocessNsPerOp;
  const double perRound = ownRound > 0 ? ownRound : p.cpuNsPerOp;
  return fixed + rounds * perRound;
}

double cpuStageHandoffNs(const DeviceProfile& p, int workers) {
  if (p.cpuStageHandoff.empty()) return 0;
  return linearAt(p.cpuStageHandoff, workers, &WorkerHandoff::workers, &WorkerHandoff::ns, false);
}

double callAfterCpuStageNs(const DeviceProfile& p, std::uint64_t bytes) {
  const auto& c = p.callAfterCpuStage;
  if (c.empty() || bytes == 0) return 0;
  if (bytes <= c.front().bytes) return c.front().ns;
  if (bytes >= c.back().bytes) return c.back().ns;
  std::size_t i = 1;
  while (bytes > c[i].bytes) ++i;
  const CallAfterStagePoint& a = c[i - 1];
  const CallAfterStagePoint& b = c[i];
  const double f = std::log(double(bytes) / double(a.bytes)) / std::log(double(b.bytes) / double(a.bytes));
  return a.ns + f * (b.ns - a.ns);
}

double cpuStageLateWorkerFactor(const DeviceProfile& p, int workers) {
  const auto& c = p.cpuStageLateWorker;
  if (c.empty() || workers <= 1) return 1;
  double f = 0;
  if (workers < c.front().workers) {
    // From 1 at one worker up to the first point.
    const double t = double(workers - 1) / double(std::max(c.front().workers - 1, 1));
    f = 1 + t * (c.front().factor - 1);
  } else {
    f = linearAt(c, workers, &LateWorkerPoint::workers, &LateWorkerPoint::factor, false);
  }
  return std::clamp(f, 1.0, double(workers));
}

double managedSlotsFactor(const std::vector<ManagedSlotsPoint>& c, int slots) {
  if (c.empty() || slots <= 1) return 1;
  if (slots < c.front().hostSlots) {
    const double t = double(slots - 1) / double(std::max(c.front().hostSlots - 1, 1));
    return 1 + t * (c.front().factor - 1);
  }
  return linearAt(c, slots, &ManagedSlotsPoint::hostSlots, &ManagedSlotsPoint::factor, false);
}

double cpuStageWorkerMeanNs(const DeviceProfile& p, std::uint64_t bytes, double opsPerByte, int workers,
                            bool preprocess) {
  return double(bytes) * oneWorkerCpuStageNsPerByte(p, opsPerByte, preprocess) / workerSpeedup(p, workers);
}

double cpuStageNs(const DeviceProfile& p, std::uint64_t bytes, double opsPerByte, int workers, bool preprocess) {
  return cpuStageWorkerMeanNs(p, bytes, opsPerByte, workers, preprocess) * cpuStageLateWorkerFactor(p, workers);
}

}  // namespace pipescope
