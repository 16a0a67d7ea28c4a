#pragma once
// Wait-cause attribution for every GPU op of a trace (or of a live trace's window).
// Results are stored compactly: segments grouped by stream lane, sorted by time (the
// timeline's overlay draws them directly), and a per-op index into them (the
// tooltip's query). Recomputing is O(n log n) in the ops; see docs/performance.md
// for the figure on a million ops.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/WaitCause.h"
#include "trace/Lane.h"
#include "trace/Trace.h"

namespace pipescope {

/// One stretch of one op's wait, with its cause and, where there is one, the op
/// that held it (the op ahead in the stream, on the engine, or the copy the host was
/// stuck in). Op indices are relative to WaitAnalysis::firstOp().
struct WaitSegment {
  static constexpr std::uint32_t kNoOp = 0xFFFFFFFFu;
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::uint32_t op = kNoOp;       ///< the waiting op
  std::uint32_t blocker = kNoOp;  ///< the op it waited behind, kNoOp when none is to blame
  WaitCause cause = WaitCause::StreamOrder;
  /// True for the part of a stream-order wait that lies under earlier ops of the same
  /// stream (the op was queued while they ran): counted, but not drawn in the overlay.
  bool underStream = false;
  std::int64_t length() const { return end - begin; }
  bool operator==(const WaitSegment&) const = default;
};

class WaitAnalysis {
 public:
  WaitAnalysis() = default;

  /// Global index of the first op the analysis covers (the view's begin()).
  std::uint64_t firstOp() const { return firstOp_; }
  /// Global indices of the ops whose waits the analysis holds: [coveredBegin, coveredEnd)
  /// (all ops analysed, unless the analysis was asked to keep only some of them).
  std::uint64_t coveredBegin() const { return firstOp_ + keepFrom_; }
  std::uint64_t coveredEnd() const { return firstOp_ + keepTo_; }
  /// Number of ops covered (GPU or not).
  std::uint64_t opCount() const { return keepTo_ - keepFrom_; }
  bool covers(std::uint64_t globalIndex) const {
    return globalIndex >= coveredBegin() && globalIndex < coveredEnd();
  }

  /// The wait segments of one op in time order (empty for host ops and ops that never waited).
  std::span<const WaitSegment> segmentsOf(std::uint64_t globalIndex) const;
  /// Every wait segment of the ops on a stream lane (empty for other lanes), in stream
  /// order: sorted by end; the segments with underStream == false are also sorted by
  /// begin and disjoint. Use forEachOverlaySegment() to draw them.
  std::span<const WaitSegment> laneSegments(std::uint16_t lane) const;
  /// Calls f(segment) for the drawable segments of `lane` that intersect [fromNs, toNs),
  /// in time order, finding the first by binary search.
  template <typename F>
  void forEachOverlaySegment(std::uint16_t lane, std::int64_t fromNs, std::int64_t toNs, F&& f) const {
    const auto segs = laneSegments(lane);
    std::size_t lo = 0, hi = segs.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (segs[mid].end <= fromNs)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (std::size_t i = lo; i < segs.size(); ++i) {
      if (segs[i].underStream) continue;
      if (segs[i].begin >= toNs) break;
      if (segs[i].end > fromNs) f(segs[i]);
    }
  }
  /// All segments, grouped by lane.
  const std::vector<WaitSegment>& segments() const { return segments_; }

  /// Total wait of one op, and its part with one cause.
  std::int64_t waitNs(std::uint64_t globalIndex) const;
  std::int64_t waitNs(std::uint64_t globalIndex, WaitCause cause) const;
  /// Global index of a segment's op / blocker (nullopt for kNoOp).
  std::uint64_t globalOp(const WaitSegment& s) const { return firstOp_ + s.op; }
  std::optional<std::uint64_t> globalBlocker(const WaitSegment& s) const;

  /// Bytes held by the analysis (for the performance notes).
  std::size_t memoryBytes() const;

 private:
  friend class WaitAnalyzer;
  std::uint64_t firstOp_ = 0;
  std::uint64_t keepFrom_ = 0, keepTo_ = 0;  // covered ops, relative to firstOp_
  std::vector<WaitSegment> segments_;      // grouped by lane, each group sorted by begin
  std::vector<std::uint32_t> laneFirst_;   // lane -> first segment; size lanes + 1
  std::vector<std::uint32_t> opSegFirst_;  // op -> first segment (valid when count > 0)
  std::vector<std::uint8_t> opSegCount_;   // op -> number of segments
};

/// Attributes the waits of every GPU op in `ops`. `lanes` tells stream, engine and
/// host lanes apart; ops whose lanes are unknown are grouped by stream number and by
/// op kind instead. Works without ready times (imported traces: ready == submit):
/// the ready time is then inferred from the end of the previous op in the stream.
WaitAnalysis analyzeWaits(const TraceView& ops, const std::vector<Lane>& lanes);
/// Global op indices [begin, end).
struct OpRange {
  std::uint64_t begin = 0, end = 0;
};
/// The same over the ops `analysed` of `ops`, keeping only the waits of the ops `kept`
/// (inside `analysed`): the other analysed ops are the context they are attributed in
/// (the ops before and after a window of a very large trace).
WaitAnalysis analyzeWaits(const TraceView& ops, const std::vector<Lane>& lanes, OpRange analysed, OpRange kept);
/// The same over the published ops of a trace.
WaitAnalysis analyzeWaits(const Trace& trace);

/// "kernel of batch 3 (stream 1)": how the wait texts name an op. With the trace's
/// names (Trace::names()), a named op says which: "kernel 'model' of batch 3 (stream 1)".
std::string describeOp(const Op& op, const std::vector<std::string>& names = {});

/// The tooltip text of one op's wait, e.g. "waited 0.31 ms: 0.31 ms behind the H2D
/// copy engine, busy with H2D of batch 4 (stream 2)". Empty when the op did not wait
/// (or is not covered). `ops` must be the view the analysis was made from.
std::string describeWait(const WaitAnalysis& analysis, const TraceView& ops, const std::vector<Lane>& lanes,
                         std::uint64_t globalIndex, const std::vector<std::string>& names = {});
/// One segment in words: "behind the H2D copy engine, busy with H2D of batch 4 (stream 2)".
std::string describeSegment(const WaitAnalysis& analysis, const TraceView& ops, const std::vector<Lane>& lanes,
                            const WaitSegment& segment, const std::vector<std::string>& names = {});

}  // namespace pipescope
