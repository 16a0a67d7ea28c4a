#pragma once
// The three classic limits of an N-batch pipeline with per-batch stage times h, k, d
// (H2D, kernels, D2H) and host work, where the measured run sits between them, and
// which resource is the critical one (docs/analysis.md, "Limits"). CriticalResource
// and the full-overlap bound come from metrics/IdealBound.h: one definition.
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/Metrics.h"

namespace pipescope {

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
  StageTimes perBatch;        ///< each resource's occupancy per batch (Metrics::perBatchOccupancy)
  double hostPerBatchNs = 0;  ///< the host's work per batch: CPU stages (wall time over the workers) + API calls

  double noOverlapNs = 0;  ///< (host+h+k+d)·N: everything one after another
  /// Compute overlaps one transfer direction, the other runs in series with it (the host
  /// beside them): the better direction's two-stage pipeline bound, never below N·host
  /// nor outside [fullOverlapNs, noOverlapNs].
  double oneDirectionNs = 0;
  bool oneDirectionIsH2D = true;  ///< the direction that overlaps in oneDirectionNs
  double fullOverlapNs = 0;       ///< the metrics' ideal bound: every resource overlapped (metrics/IdealBound.h)
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
