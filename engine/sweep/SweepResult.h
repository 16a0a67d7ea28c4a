#pragma once
// What a sweep produced: per grid point the figures of each repetition, their
// spread, the median repetition's verdict and (memory allowing) its trace.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "metrics/Metrics.h"
#include "metrics/Spread.h"
#include "sweep/SweepSpec.h"
#include "trace/DeviceInfo.h"
#include "trace/Trace.h"

namespace pipescope {

/// The figures of one repetition of one point, over its measured batches only.
struct RepetitionFigures {
  std::int64_t batches = 0;     ///< measured batches (warm-up excluded)
  double makespanNs = 0;        ///< from the end of the warm-up to the last op
  double samplesPerSec = 0;
  double batchesPerSec = 0;
  double efficiency = 0;        ///< ideal bound / makespan
  bool operator==(const RepetitionFigures&) const = default;
};


struct SweepPointResult {
  std::size_t index = 0;           ///< position in the grid (expandGrid order)
  PipelineConfig config;           ///< batchCount = warm-up + measured batches
  int warmupBatches = 0;
  std::vector<RepetitionFigures> repetitions;
  Spread samplesPerSec;            ///< throughput over the repetitions
  Spread makespanNs;
  // From the median repetition (the one whose throughput is closest to the median):
  std::size_t medianRepetition = 0;
  double efficiency = 0;
  double inputGBps = 0;            ///< input bytes per second of the median repetition
  Bottleneck bottleneck = Bottleneck::Unknown;
  std::string bottleneckSentence;
  double h2dBusy = 0, d2hBusy = 0, copyBusy = 0, computeBusy = 0, submitBusy = 0, workersBusy = 0;
  int copyEngines = 2;
  StageTimes perBatch;
  std::uint64_t footprintBytes = 0;
  RunOutcome outcome;              ///< Finished; Failed with the backend's message
  std::shared_ptr<Trace> trace;    ///< the median repetition's trace; null when dropped or loaded from a file
  bool traceDropped = false;       ///< the sweep's trace cap was reached
  double wallSeconds = 0;          ///< time this point took, all repetitions

  bool ok() const { return outcome.state == RunState::Finished && !repetitions.empty(); }
  double samplesPerSecMedian() const { return samplesPerSec.median; }
};

struct SweepResult {
  SweepSpec spec;
  std::string backend;             ///< "simulator" or "cuda"
  DeviceInfo device;
  std::size_t totalPoints = 0;     ///< points in the grid
  std::vector<SweepPointResult> points;  ///< finished points, in grid order
  bool cancelled = false;
  std::vector<std::string> notes;  ///< what the user should know (collapsed repeats, dropped traces)
  double wallSeconds = 0;
  /// When the sweep ran on a GPU and the simulator's prediction was asked for: the
  /// same grid on the simulator (same indices), and the simulated device.
  std::vector<SweepPointResult> predicted;
  DeviceInfo predictedDevice;

  bool gridVariesMemory() const { return spec.memories.size() > 1; }
  bool gridVariesModel() const { return spec.models.size() > 1; }
  bool gridVariesGpus() const { return spec.gpus.size() > 1; }
  /// The point with this grid index, or null when it did not finish.
  const SweepPointResult* point(std::size_t index) const;
  const SweepPointResult* predictedPoint(std::size_t index) const;
  std::string label(const SweepPointResult& p) const {
    return pointLabel(p.config, variedAxes(spec));
  }
};

}  // namespace pipescope
