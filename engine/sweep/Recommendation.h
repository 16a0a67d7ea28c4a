#pragma once
// What a sweep recommends: the smallest configuration (by memory footprint) whose
// throughput is within a tolerance of the best, with the reason in one sentence taken
// from the points' own metrics; and, per batch size, where adding streams stops helping.
#include <optional>
#include <string>
#include <vector>

#include "sweep/SweepResult.h"

namespace pipescope {

/// Throughput within this fraction of the best counts as "as good".
inline constexpr double kRecommendTolerance = 0.03;

/// Where more streams stop paying off for one batch size (and memory/model block).
struct StreamKnee {
  std::size_t pointIndex = 0;   ///< the point at the knee
  int batchSamples = 0;
  HostMemory memory = HostMemory::Pinned;
  ModelPreset model = ModelPreset::Custom;
  int streams = 0;              ///< more streams than this gain less than the tolerance
  int nextStreams = 0;          ///< the next stream count measured (0 when the knee is the last)
  double gainBeyond = 0;        ///< best relative gain of any larger stream count (0.004 = +0.4%)
  bool stillHelping = false;    ///< even the largest stream count gained more than the tolerance
  std::string sentence;         ///< "16 MiB: 4 streams; more add +0.4% (compute engine 98% busy)"
};

/// Several GPUs: a point's throughput over GPUs x the throughput of the grid's point
/// that differs only in running on one GPU.
struct ScalingPoint {
  std::size_t pointIndex = 0;
  std::size_t oneGpuIndex = 0;  ///< the one-GPU point it is compared with
  int gpus = 0;
  double efficiency = 0;
};

struct Recommendation {
  bool valid = false;           ///< false when no point finished
  std::size_t bestIndex = 0;    ///< highest median throughput
  std::size_t chosenIndex = 0;  ///< smallest footprint within tolerance of the best
  double bestSamplesPerSec = 0;
  double chosenSamplesPerSec = 0;
  std::string sentence;         ///< the recommendation and its reason, one sentence
  std::vector<StreamKnee> knees;  ///< one per batch size (per memory/model block), grid order
  std::vector<ScalingPoint> scaling;  ///< every multi-GPU point with a one-GPU point to compare with
  /// "Scaling efficiency (...): 2 GPUs 97%, 4 GPUs 81%" for the chosen point's setup;
  /// empty when the grid has one GPU count.
  std::string scalingSentence;
};

Recommendation recommend(const SweepResult& result, double tolerance = kRecommendTolerance);

/// "the H2D copy engine (97% busy)" — the resource that limited a point, from its metrics.
std::string limitingResource(const SweepPointResult& p);

}  // namespace pipescope
