#pragma once
// The one definition of every figure pipescope reports (DESIGN.md, "Metrics"). The
// CLI summary, the UI's metrics panel, the charts, the sweep and the tests all call
// these functions; nothing else computes a metric.
//
// Conventions:
// - an op is one record that sits on its stream/host lane (`lane`) and, for GPU ops,
//   on a hardware engine lane (`engineLane`); per-kind figures (H2D busy, compute
//   busy) are unions over the ops of that kind, so an op counts once however many
//   lanes show it;
// - busy time is always the union of [start, end) intervals, never a sum;
// - host lanes are busy with CPU stages and API calls, not while they wait in a
//   synchronisation, nor while a blocking copy call waits for its copy engine;
// - annotations (imported user ranges) take no part in any figure.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/PipelineConfig.h"
#include "metrics/IdealBound.h"
#include "metrics/MultiGpuMetrics.h"
#include "trace/DeviceInfo.h"
#include "trace/Lane.h"
#include "trace/Trace.h"

namespace pipescope {

enum class Bottleneck : std::uint8_t { CopyBound, ComputeBound, HostBound, LatencyBound, Unknown, CommunicationBound };
/// "copy-bound", "compute-bound", "host-bound", "latency-bound", "unknown", "communication-bound".
std::string_view toString(Bottleneck b);

/// A resource (engine or host thread) counts as saturated from this busy fraction on;
/// below it for every resource, the run is latency-bound.
inline constexpr double kSaturatedBusyFraction = 0.6;

struct LaneBusy {
  std::uint16_t lane = 0;
  LaneKind kind = LaneKind::HostSubmit;
  std::string name;
  double busyNs = 0;       ///< union of op intervals on the lane
  double fraction = 0;     ///< busyNs / makespan
};

struct Metrics {
  std::int64_t batches = 0;
  std::int64_t samples = 0;     ///< 0 when neither a configuration nor a batch size is known (imported)
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
  double copyBusy = 0;          ///< fraction with any copy running (the one engine of 1-engine devices)
  double submitThreadBusy = 0;  ///< API calls, syncs excluded (mean over submit lanes)
  double workersBusy = 0;       ///< mean over CPU worker lanes
  double gpuIdle = 0;           ///< fraction of makespan with no GPU op running

  double computeOverlappedByCopy = 0;  ///< of compute busy time, the fraction a copy also ran
  double copyOverlappedByCompute = 0;  ///< of copy busy time, the fraction a kernel also ran

  /// Mean per-batch stage times (sum of the stage's op durations / batches; CPU stages
  /// summed over the workers, each of which records its share).
  StageTimes perBatch;
  /// Per-batch occupancy of each resource: each stage is the union of its ops' intervals
  /// / batches, so ops that ran side by side (kernels of several streams, the workers'
  /// shares of a CPU stage) count once; API calls count where no CPU stage ran and no
  /// blocking copy held the host. Equal to perBatch wherever one op runs at a time
  /// (CPU stages: perBatch / workers for a perfect fork-join). The bound uses these.
  StageTimes perBatchOccupancy;
  /// The shortest time any one batch spent in each stage (GPU stages: its ops' summed
  /// durations; CPU stages: its longest worker share): the bound's pipeline fill and drain.
  StageTimes shortestBatch;
  int copyEngines = 2;
  double idealBoundNs = 0;      ///< computeIdealBound(perBatchOccupancy, shortestBatch, ...)
  CriticalResource critical = CriticalResource::None;  ///< the resource that sets the ideal bound
  double hostPerBatchNs = 0;    ///< the host's work per batch: CPU stages + API calls (occupancy)
  double efficiency = 0;        ///< idealBoundNs / makespanNs

  Bottleneck bottleneck = Bottleneck::Unknown;
  std::string bottleneckSentence;  ///< one plain sentence saying why

  /// Runs over several GPUs: per-GPU figures, communication, links, and the ideal bound
  /// with links and collectives as resources (idealBoundNs, efficiency and the
  /// bottleneck above then come from it; the one-GPU figures above span every GPU).
  std::optional<MultiGpuMetrics> multiGpu;
};

/// Ideal makespan for N identical batches with per-batch stage times h, k, d and no
/// host work (computeIdealBound with work = fill):
/// separate copy engines: max(h,k,d)*N + (h+k+d - max(h,k,d));
/// one copy engine:       max(h+d,k)*N + (h+k+d - max(h+d,k)).
/// 0 for N <= 0.
double idealBound(double h, double k, double d, std::int64_t batches, int copyEngines);

/// Everything computeMetrics needs, for callers that hold the pieces (a window of a
/// live trace, an imported trace without configuration).
struct MetricsInput {
  TraceView ops;
  std::vector<Lane> lanes;
  std::optional<PipelineConfig> config;  ///< nullopt: samples are unknown
  DeviceInfo device;
  std::vector<DeviceInfo> devices;  ///< every GPU (names them by ordinal); empty: {device}
  std::vector<RankInfo> ranks;      ///< Trace::ranks (merged ranks name their GPUs by rank)
  /// Batches the run completed; 0 counts the batches whose last op ends in the window.
  std::int64_t completedBatches = 0;
  /// Samples per batch where there is no configuration (imported traces: --batch-size or
  /// the trace's input shapes, IterationInfo); 0 = unknown.
  std::int64_t samplesPerBatch = 0;
  /// Window [fromNs, toNs): ops are clipped to it. toNs <= fromNs means the whole trace.
  std::int64_t fromNs = 0;
  std::int64_t toNs = 0;
};

Metrics computeMetrics(const MetricsInput& input);
/// Metrics over the published ops of a trace.
Metrics computeMetrics(const Trace& trace);
/// The same over a window [fromNs, toNs) of a trace (the timeline's range selection);
/// batches are those whose last op ends inside the window.
Metrics computeMetrics(const Trace& trace, std::int64_t fromNs, std::int64_t toNs);
Metrics computeMetrics(const TraceView& ops, const std::vector<Lane>& lanes, const PipelineConfig& config,
                       const DeviceInfo& device, std::int64_t completedBatches);

/// Union length of [start, end) intervals (any order); the basis of every busy figure.
double unionLength(std::vector<std::pair<std::int64_t, std::int64_t>> intervals);

/// Copy engines to assume for the bound: the device's count when known (>= 2 counts
/// as 2), else 1 when the trace has a shared copy-engine lane, else 2.
int effectiveCopyEngines(const DeviceInfo& device, const std::vector<Lane>& lanes);

}  // namespace pipescope
