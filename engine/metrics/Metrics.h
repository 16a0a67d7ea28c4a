#pragma once
// The one definition of every figure pipescope reports (DESIGN.md, "Metrics"). The
// CLI summary, the UI's metrics panel, the charts, the sweep and the tests all call
// these functions; nothing else computes a metric.
#include <cstdint>
#include <string>
#include <vector>

#include "trace/Lane.h"
#include "trace/Trace.h"

namespace pipescope {

enum class Bottleneck : std::uint8_t { CopyBound, ComputeBound, HostBound, LatencyBound, Unknown };
std::string_view toString(Bottleneck b);

struct LaneBusy {
  std::uint16_t lane = 0;
  LaneKind kind = LaneKind::HostSubmit;
  std::string name;
  double busyNs = 0;       ///< union of op intervals on the lane
  double fraction = 0;     ///< busyNs / makespan
};

/// Mean per-batch stage times (sum of the stage's op durations / batches).
struct StageTimes {
  double h2dNs = 0;
  double kernelNs = 0;
  double d2hNs = 0;
  double preprocessNs = 0;
  double postprocessNs = 0;
};

struct Metrics {
  std::int64_t batches = 0;
  std::int64_t samples = 0;
  std::int64_t ops = 0;
  std::int64_t firstNs = 0;     ///< earliest op start
  std::int64_t lastNs = 0;      ///< latest op end
  double makespanNs = 0;        ///< lastNs - firstNs
  double batchesPerSec = 0;
  double samplesPerSec = 0;

  std::uint64_t h2dBytes = 0;
  std::uint64_t d2hBytes = 0;
  double h2dBusyNs = 0;         ///< union of H2D copy intervals
  double d2hBusyNs = 0;
  double h2dGBpsBusy = 0;       ///< bytes / busy time: what the link achieved while copying
  double h2dGBpsWall = 0;       ///< bytes / makespan: what the pipeline sustained
  double d2hGBpsBusy = 0;
  double d2hGBpsWall = 0;

  std::vector<LaneBusy> lanes;  ///< every lane, in lane order
  double computeBusy = 0;       ///< fraction of makespan the compute engine ran kernels
  double h2dBusy = 0;           ///< fraction for H2D copies (either engine)
  double d2hBusy = 0;
  double submitThreadBusy = 0;  ///< API calls, syncs excluded
  double workersBusy = 0;       ///< mean over CPU worker lanes
  double gpuIdle = 0;           ///< fraction of makespan with no GPU op running

  double computeOverlappedByCopy = 0;  ///< of compute busy time, the fraction a copy also ran
  double copyOverlappedByCompute = 0;  ///< of copy busy time, the fraction a kernel also ran

  StageTimes perBatch;
  int copyEngines = 2;
  double idealBoundNs = 0;      ///< see idealBound()
  double efficiency = 0;        ///< idealBoundNs / makespanNs

  Bottleneck bottleneck = Bottleneck::Unknown;
  std::string bottleneckSentence;  ///< one plain sentence saying why
};

/// Ideal makespan for N batches with per-batch stage times h, k, d:
/// separate copy engines: max(h,k,d)*N + (h+k+d - max(h,k,d));
/// one copy engine:       max(h+d,k)*N + (h+k+d - max(h+d,k)).
double idealBound(double h, double k, double d, std::int64_t batches, int copyEngines);

/// Metrics over the published ops of a trace (or a window [fromNs, toNs) of it when
/// toNs > fromNs: ops are clipped to the window).
Metrics computeMetrics(const Trace& trace);
Metrics computeMetrics(const TraceView& ops, const std::vector<Lane>& lanes, const PipelineConfig& config,
                       const DeviceInfo& device, std::int64_t completedBatches);

/// Union length of [start, end) intervals (any order); the basis of every busy figure.
double unionLength(std::vector<std::pair<std::int64_t, std::int64_t>> intervals);

}  // namespace pipescope
