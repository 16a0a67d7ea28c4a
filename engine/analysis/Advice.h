#pragma once
// Bottleneck advice: what would make this pipeline faster, ranked by the speed-up the
// simulator predicts. Every prediction comes from simulating a modified configuration
// with the current device profile and comparing it with the simulated baseline of the
// same configuration (never with the measured run), so the ratio is model-consistent
// even where the model and the machine disagree on absolute times.
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "analysis/WaitSummary.h"
#include "config/PipelineConfig.h"
#include "metrics/Metrics.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

enum class AdviceKind : std::uint8_t {
  PinnedMemory,
  AsyncCopies,
  MoreStreams,
  IssueOrder,
  BiggerBatch,
  MoreCpuWorkers,
  KeepResident,
  RoiCopyBack,
  FewerChunks,
  MoreBuckets,       ///< data parallel: the all-reduce in more buckets (more of it overlaps the kernels)
  MoreMicroBatches,  ///< pipeline parallel: more micro-batches (a smaller bubble)
  FewerGpus,         ///< the same work on fewer GPUs: less throughput, more of it per GPU
};
/// "pinned-memory", "async-copies", "more-streams", "issue-order", "bigger-batch",
/// "more-cpu-workers", "keep-resident", "roi-copy-back", "fewer-chunks", "more-buckets",
/// "more-micro-batches", "fewer-gpus".
std::string_view keyOf(AdviceKind kind);

struct AdviceItem {
  AdviceKind kind = AdviceKind::PinnedMemory;
  std::string title;      ///< "pinned memory", "4 streams instead of 1"
  std::string change;     ///< the knobs changed: "memory: pageable -> pinned"
  PipelineConfig config;  ///< the full modified configuration
  double speedup = 1;     ///< predicted samples/s of `config` over the simulated baseline
  /// Fewer GPUs: predicted samples/s per GPU over the baseline's (the advice is kept for
  /// this, not for `speedup`, which is below 1).
  std::optional<double> perGpuSpeedup;
  double baselineSamplesPerSec = 0;
  double predictedSamplesPerSec = 0;
  /// Bigger batch only: submit-thread API share of the makespan, before and after.
  std::optional<double> apiShareBefore, apiShareAfter;
  std::string evidence;  ///< what in the measured run points at it ("62% of kernel time waited on pageable staging")
  std::string caveat;    ///< when the change alters the workload ("only if the data can stay on the GPU")
  /// The profile's measured error on validation runs like `config` (empty when the
  /// profile carries no validation): how far to trust `speedup`.
  std::string modelError;
  std::string sentence;  ///< "pinned memory: predicted 3.9x faster (...)"
};

struct AdviceOptions {
  int maxBatches = 64;       ///< simulate at most this many batches per candidate
  double minSpeedup = 1.03;  ///< drop candidates predicted to help less than this
  int maxItems = 5;
  /// Include changes that alter what the program computes or moves (keep data
  /// resident, copy back a region of interest).
  bool workloadChanges = true;
  /// The CPU stages stand for an imported program's own dispatch work (a derived
  /// configuration, analysis/DerivedConfig.h): changes that would only split or shrink
  /// those stages (more CPU workers, a smaller copy-back) are not advice for it.
  bool cpuStagesAreDispatch = false;
};

struct AdviceInput {
  PipelineConfig config;
  DeviceProfile profile;
  const Metrics* metrics = nullptr;    ///< the measured run (evidence), optional
  const WaitSummary* waits = nullptr;  ///< its wait causes (evidence), optional
  std::optional<double> scalingEfficiency = std::nullopt;  ///< several GPUs: throughput / (GPUs x one GPU's), evidence
};

struct AdviceResult {
  std::vector<AdviceItem> items;  ///< ranked, best first
  double baselineSamplesPerSec = 0;
  int simulatedBatches = 0;
  std::string error;  ///< set when the baseline could not be simulated
};

AdviceResult advise(const AdviceInput& input, const AdviceOptions& options = {}, std::stop_token stop = {});

}  // namespace pipescope
