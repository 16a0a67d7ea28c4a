#pragma once
// The three classic limits of an N-batch pipeline with per-batch stage times h, k, d
// (H2D, kernels, D2H), where the measured run sits between them, and which resource
// is the critical one (docs/analysis.md, "Limits").
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/Metrics.h"

namespace pipescope {

enum class CriticalResource : std::uint8_t { H2DEngine, D2HEngine, CopyEngine, ComputeEngine, Host, None };
/// "the H2D copy engine", "the D2H copy engine", "the copy engine", "the compute engine", "the host", "nothing".
std::string_view toString(CriticalResource r);

/// Where the measured makespan lies.
enum class LimitZone : std::uint8_t {
  SlowerThanNoOverlap,  ///< worse than running every stage one after another
  NoToOneDirection,     ///< between no overlap and one-direction overlap
  OneDirectionToFull,   ///< between one-direction and full overlap
  AtFullOverlap,        ///< within 3% of the full-overlap bound (or below it)
  Unknown,              ///< nothing to compare (no batches)
};

struct Limits {
  std::int64_t batches = 0;
  int copyEngines = 2;
  StageTimes perBatch;
  double hostPerBatchNs = 0;  ///< CPU stages per batch divided over the workers

  double noOverlapNs = 0;  ///< (h+k+d)·N
  /// Compute overlaps one transfer direction, the other runs in series with it:
  /// min over the two directions of the two-stage pipeline bound (never below fullOverlapNs).
  double oneDirectionNs = 0;
  bool oneDirectionIsH2D = true;  ///< the direction that overlaps in oneDirectionNs
  double fullOverlapNs = 0;       ///< idealBound(): max(h,k,d)·N + (h+k+d−max); one copy engine: h and d serialise
  double measuredNs = 0;          ///< the makespan

  /// 0 at no overlap, 1 at full overlap (outside [0, 1] when the run is beyond them).
  double position = 0;
  LimitZone zone = LimitZone::Unknown;

  CriticalResource critical = CriticalResource::None;
  std::string criticalSentence;  ///< "The compute engine is critical: ..."
  std::string
      positionSentence;  ///< "The run took 24.1 ms: 78% of the way from no overlap (60 ms) to full overlap (22.7 ms)."

  std::int64_t firstStartNs = 0;      ///< earliest op start
  std::int64_t idealFinishNs = 0;     ///< firstStartNs + fullOverlapNs: the timeline's bound marker
  std::int64_t measuredFinishNs = 0;  ///< latest op end
};

Limits computeLimits(const Metrics& metrics);

}  // namespace pipescope
