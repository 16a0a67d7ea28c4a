#pragma once
// What a sweep measures: a grid of pipeline configurations (batch size x stream
// count, optionally x host memory x model preset) on top of a base configuration,
// and how each point is measured (batches or a time budget, warm-up, repetitions).
#include <cstdint>
#include <string>
#include <vector>

#include "config/ConfigOrigins.h"
#include "config/PipelineConfig.h"

namespace pipescope {

struct SweepSpec {
  PipelineConfig base;                  ///< every knob the grid does not vary
  std::vector<int> batchSamples;        ///< samples per batch (batch bytes = samples x base.sampleBytes)
  std::vector<int> streams;             ///< stream counts
  std::vector<HostMemory> memories;     ///< empty: base.memory only
  std::vector<ModelPreset> models;      ///< empty: base.model only
  /// Several GPUs (each empty: the base's only). GPU counts take the base's first N
  /// devices (GPUs 0..N-1 when it lists fewer); buckets and micro-batches as the knobs.
  std::vector<int> gpus;
  std::vector<int> buckets;
  std::vector<int> microBatches;

  int batches = 50;                     ///< measured batches per repetition (after the warm-up)
  /// > 0: size each point's measured batches to about this much pipeline time
  /// (seconds of the backend's clock) from a short probe run; `batches` is then the minimum.
  double timeBudgetSec = 0.0;
  int warmupBatches = 2;                ///< run first, excluded from every figure
  int repeats = 1;                      ///< repetitions per point, for the spread
  /// Traces kept for the timeline, in ops over the whole sweep (64 bytes each);
  /// points beyond the cap keep their figures but not their trace.
  std::uint64_t maxKeptOps = 4'000'000;

  bool operator==(const SweepSpec&) const = default;
};

/// One grid point, in the order the results list them: memory, model, GPUs, buckets,
/// micro-batches, batch size, streams.
struct SweepPointSpec {
  std::size_t index = 0;
  PipelineConfig config;  ///< base with the point's values; batchCount = warm-up + measured batches
  /// The spec's warm-up, plus what makes the point's batch count whole steps where its
  /// GPUs all-reduce (each step gives every GPU one batch).
  int warmupBatches = 0;
};

/// `batches` rounded up to whole steps of `config` (a multiple of its GPU count when
/// it all-reduces; unchanged otherwise).
int wholeSteps(const PipelineConfig& config, int batches);

namespace sweep_limits {
inline constexpr int kMaxAxisValues = 64;
inline constexpr int kMaxPoints = 4096;
inline constexpr int kMaxRepeats = 100;
inline constexpr int kMaxWarmup = 10000;
inline constexpr double kMaxTimeBudgetSec = 3600.0;
}  // namespace sweep_limits

/// Every problem with the spec (bad axis values, empty axes, a grid point whose
/// configuration does not validate), each a sentence naming the option and the fix;
/// with `origins`, a point's problem in a field set by a --config file names the file.
std::vector<std::string> validateSweep(const SweepSpec& spec, const ConfigOrigins* origins = nullptr);

/// The grid's points in result order (memory, model, batch samples, streams, each
/// in the order given). batchCount of each is warmupBatches + batches.
std::vector<SweepPointSpec> expandGrid(const SweepSpec& spec);

/// Memory the point's buffers take: per stream one input and one output buffer on
/// the device, plus the same on the host when it is pinned/registered/mapped/managed
/// (pageable host memory is not counted: it is ordinary process memory); each GPU
/// has its own.
std::uint64_t footprintBytes(const PipelineConfig& config);

/// Which axes a grid varies, for the points' labels.
struct GridAxes {
  bool memory = false, model = false, gpus = false, buckets = false, microBatches = false;
};
GridAxes variedAxes(const SweepSpec& spec);

/// "16 MiB x 4 streams" (plus ", pageable" / ", heavy" / ", 4 GPUs" / ", 4 buckets" /
/// ", 8 micro-batches" when the grid varies them; GPUs also whenever there are several).
std::string pointLabel(const PipelineConfig& config, bool withMemory = false, bool withModel = false);
std::string pointLabel(const PipelineConfig& config, const GridAxes& axes);

/// The devices a GPU-count axis value picks from a base configuration.
std::vector<int> devicesForCount(const PipelineConfig& base, int gpus);

}  // namespace pipescope
