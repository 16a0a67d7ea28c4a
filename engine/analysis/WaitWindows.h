#pragma once
// Wait causes of a very large trace, a window of ops at a time. Analysing 100 M ops
// at once would hold about 112 bytes per op (the analysis' sorted copies of the ops'
// times and one segment per wait); a window holds that for half a million ops. Each
// window is analysed with kWaitContextOps more ops on both sides, so the ops at its
// edges find what they waited behind (the previous op of their stream, the engine's
// op, the host's synchronisation) as they do in the whole trace.
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/WaitAnalysis.h"
#include "analysis/WaitSummary.h"

namespace pipescope {

inline constexpr std::uint64_t kWaitWindowOps = 1u << 19;
inline constexpr std::uint64_t kWaitContextOps = 1u << 14;
/// Traces up to this many ops are analysed whole (about 0.5 GB at the most).
inline constexpr std::uint64_t kWaitWholeTraceOps = 4'000'000;

/// When and how a trace is analysed by window (tests use small ones).
struct WaitWindowing {
  std::uint64_t wholeTraceOps = kWaitWholeTraceOps;
  std::uint64_t windowOps = kWaitWindowOps;
  std::uint64_t contextOps = kWaitContextOps;
};

/// The waits of the ops [keepBegin, keepEnd) (global indices), attributed among the ops
/// from contextOps before keepBegin to contextOps after keepEnd.
WaitAnalysis analyzeWaitsInWindow(const TraceView& ops, const std::vector<Lane>& lanes, std::uint64_t keepBegin,
                                  std::uint64_t keepEnd, std::uint64_t contextOps = kWaitContextOps);

/// summarizeWaits() of the whole of `ops`, analysed windowOps ops at a time.
WaitSummary summarizeWaitsByWindow(const TraceView& ops, const std::vector<Lane>& lanes,
                                   std::uint64_t windowOps = kWaitWindowOps, std::uint64_t contextOps = kWaitContextOps);

/// The summary of every op's waits: one analysis up to windowing.wholeTraceOps ops,
/// summarizeWaitsByWindow() beyond (the same figures, a window's memory).
WaitSummary summarizeAllWaits(const TraceView& ops, const std::vector<Lane>& lanes,
                              const WaitWindowing& windowing = {});

/// What the window shows of a trace's waits: the summary of all its ops, and the
/// analysis the overlay and tooltips read. Up to kWaitWholeTraceOps ops, the analysis
/// covers every op; beyond, it covers the window of kWaitWindowOps ops around
/// `focusOp` (a global index; clamped into the trace).
struct WaitOverview {
  WaitAnalysis analysis;
  WaitSummary summary;
};
WaitOverview overviewWaits(const TraceView& ops, const std::vector<Lane>& lanes, std::uint64_t focusOp,
                           const WaitWindowing& windowing = {});
/// The analysis overviewWaits() keeps for `focusOp` on a trace too large to analyse
/// whole: the ops of waitWindowAround(ops, focusOp).
WaitAnalysis analyzeWaitsAround(const TraceView& ops, const std::vector<Lane>& lanes, std::uint64_t focusOp,
                                const WaitWindowing& windowing = {});
/// The window of ops (global indices [first, second)) centred on `focusOp`, inside `ops`.
std::pair<std::uint64_t, std::uint64_t> waitWindowAround(const TraceView& ops, std::uint64_t focusOp,
                                                         const WaitWindowing& windowing = {});

}  // namespace pipescope
