#pragma once
// The figures a comparison, a lesson expectation or an advice item can name, with
// their labels, units and which direction is better. Values always come from
// computeMetrics(); this only names and reads them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/Metrics.h"

namespace pipescope {

enum class MetricId : std::uint8_t {
  Makespan,
  BatchesPerSec,
  SamplesPerSec,
  H2DGBps,  ///< bytes / busy time
  D2HGBps,
  H2DGBpsWall,  ///< bytes / makespan
  D2HGBpsWall,
  H2DBusy,
  ComputeBusy,
  D2HBusy,
  CopyBusy,
  SubmitThreadBusy,
  WorkersBusy,
  GpuIdle,
  ComputeOverlap,  ///< computeOverlappedByCopy
  CopyOverlap,     ///< copyOverlappedByCompute
  Efficiency,
  H2DBytes,
  D2HBytes,
  // Several GPUs (metrics/MultiGpuMetrics.h; 0 for one GPU unless said).
  ExposedComm,  ///< exposed communication, as a share of each GPU's time (mean)
  CommOverlap,  ///< communication time with a kernel beside it
  IdleCompute,  ///< compute engines idle, mean over the GPUs (one GPU: 1 - compute busy)
};

enum class MetricUnit : std::uint8_t { Nanoseconds, PerSecond, GBps, Fraction, Bytes };
enum class BetterWhen : std::uint8_t { Lower, Higher, Neither };

struct MetricInfo {
  MetricId id;
  std::string_view key;    ///< "makespan_ns", "samples_per_s", ... (matches the run summary JSON)
  std::string_view label;  ///< "makespan", "samples/s", "H2D GB/s (busy)", ...
  MetricUnit unit;
  BetterWhen better;
};

const MetricInfo& metricInfo(MetricId id);
const std::vector<MetricInfo>& allMetrics();
double metricValue(const Metrics& m, MetricId id);
/// "24.1 ms", "1.33 k/s", "55.2 GB/s", "87%", "32 MiB".
std::string formatMetric(MetricId id, double value);

}  // namespace pipescope
