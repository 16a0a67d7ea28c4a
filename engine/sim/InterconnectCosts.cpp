#include "sim/InterconnectCosts.h"

#include <algorithm>

#include "sim/StageCosts.h"

namespace pipescope {

double peerCopyGBps(const DeviceProfile& p, std::uint64_t bytes) {
  if (p.peerAccess) return curveGBps(p.peerCopyCurve, bytes, p.peerGBps);
  const CopyPath h2d{.dir = CopyDirection::H2D}, d2h{.dir = CopyDirection::D2H};
  return std::min(copyGBps(p, h2d, bytes), copyGBps(p, d2h, bytes));
}

double peerCopySoloNs(const DeviceProfile& p, std::uint64_t bytes) {
  const double latency = p.peerAccess ? p.peerLatencyNs : 2 * p.copyLatencyNs;
  return latency + double(bytes) / peerCopyGBps(p, bytes);
}

double allreduceBusGBps(const DeviceProfile& p, std::uint64_t bytes) {
  return curveGBps(p.allreduceBusCurve, bytes, p.allreduceBusGBps);
}

double allreduceNs(const DeviceProfile& p, std::uint64_t bytes, int gpus) {
  if (gpus <= 1 || bytes == 0) return 0;
  const int ref = std::max(2, p.allreduceCurveGpus);
  const double share = double(gpus - 1) / gpus, refShare = double(ref - 1) / ref;
  const double refNs = 2 * refShare * double(bytes) / allreduceBusGBps(p, bytes);
  const double refLatency = 2.0 * (ref - 1) * p.allreduceStepLatencyNs;
  const double bandwidthPart = std::max(0.0, refNs - refLatency) * share / refShare;
  return 2.0 * (gpus - 1) * p.allreduceStepLatencyNs + bandwidthPart;
}

double allreduceBusGBpsOf(std::uint64_t bytes, int gpus, double ns) {
  if (ns <= 0 || gpus <= 1) return 0;
  return double(bytes) / ns * 2.0 * (gpus - 1) / gpus;
}

double allreduceCallNsPerGpu(const DeviceProfile& p) {
  if (p.allreduceCallNs <= 0) return p.kernelLaunchNs;
  return p.allreduceCallNs / double(std::max(1, p.allreduceCurveGpus));
}

double multiGpuHostOpOverheadNs(const DeviceProfile& p, int gpus) {
  if (gpus <= 1 || p.multiGpuHostOpOverheadNs <= 0) return 0;
  return p.multiGpuHostOpOverheadNs * double(gpus - 1) / double(std::max(1, p.allreduceCurveGpus - 1));
}

}  // namespace pipescope
