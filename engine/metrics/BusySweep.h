#pragma once
// Every busy-time figure of computeMetrics (unions of op intervals per kind and per
// lane, their overlaps and differences) in one sweep over the ops in start order,
// holding a few numbers per kind and per lane instead of every op's interval.
//
// Why it is exact: between two consecutive op starts p < q no op begins, so what
// covers an instant of [p, q) began at or before p; each kind's coverage of [p, q)
// is therefore [p, min(q, latest end so far)), a prefix. Unions, intersections and
// differences of prefixes are lengths' max, min and difference, added up segment by
// segment in integer nanoseconds.
//
// The store keeps ops roughly in time order, not exactly: StartOrder puts them in
// order, holding only the store's disorder.
#include <cstdint>
#include <vector>

#include "metrics/Metrics.h"
#include "metrics/StartOrder.h"

namespace pipescope {

/// How an op takes part in the figures of a window.
struct PlacedOp {
  enum Role : std::uint8_t { Skipped, HostRange, Pipeline } role = Skipped;
  std::int64_t s = 0, e = 0;  ///< its interval clipped to the window
};
/// Pipeline ops count in every figure; imported host ranges (annotations marked as
/// host work, on host lanes) only in busy time; everything else is skipped.
PlacedOp placeOp(const Op& op, const MetricsInput& in, const std::vector<LaneKind>& laneKinds);

/// What the first pass over the ops found that the sweep needs in advance.
struct SweepPlan {
  std::vector<std::int64_t> blockFirstStart;  ///< per block of kStartOrderBlockOps: earliest placed start
  std::vector<char> laneHasHostRanges;        ///< by lane id
  bool anyPipelineOps = false;
  std::int64_t first = 0, last = 0;  ///< the pipeline ops' span (clipped)
};

/// Union lengths in ns. Names follow Metrics: copies = H2D or D2H; holds = copies
/// whose call holds the host; cpu = preprocess or postprocess; notApi = cpu or holds;
/// notDispatch = host API calls or notApi; dispatch = imported host ranges within
/// the pipeline span, minus waits (syncs, holds), minus notDispatch.
struct BusyTimes {
  std::int64_t h2d = 0, d2h = 0, kernel = 0, copies = 0, gpu = 0, kernelAndCopy = 0;
  std::int64_t holds = 0, preprocess = 0, cpu = 0, notApi = 0, notDispatch = 0, dispatch = 0;
  std::vector<std::int64_t> lane;              ///< by lane id: what the lane is busy with
  std::vector<std::int64_t> laneOutsideHolds;  ///< submit lanes: lane busy time no holding copy covers
  std::vector<std::int64_t> laneHostWork;      ///< lanes with host ranges: busy in the span, outside waits
};

BusyTimes sweepBusyTimes(const MetricsInput& in, const std::vector<LaneKind>& laneKinds, const SweepPlan& plan);

}  // namespace pipescope
