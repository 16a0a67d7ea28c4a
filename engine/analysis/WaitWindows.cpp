#include "analysis/WaitWindows.h"

#include <algorithm>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pipescope {

WaitAnalysis analyzeWaitsInWindow(const TraceView& ops, const std::vector<Lane>& lanes, std::uint64_t keepBegin,
                                  std::uint64_t keepEnd, std::uint64_t contextOps) {
  const std::uint64_t from = keepBegin - std::min(keepBegin, contextOps);
  const std::uint64_t to = keepEnd + std::min(contextOps, ~std::uint64_t(0) - keepEnd);
  return analyzeWaits(ops, lanes, OpRange{from, to}, OpRange{keepBegin, keepEnd});
}

WaitSummary summarizeWaitsByWindow(const TraceView& ops, const std::vector<Lane>& lanes, std::uint64_t windowOps,
                                   std::uint64_t contextOps) {
  WaitSummaryBuilder builder(ops, lanes);
  windowOps = std::max<std::uint64_t>(windowOps, 1);
  std::uint64_t windows = 0;
  for (std::uint64_t at = ops.begin(); at < ops.end(); at += std::min(windowOps, ops.end() - at)) {
    builder.add(analyzeWaitsInWindow(ops, lanes, at, std::min(ops.end(), at + windowOps), contextOps));
#if defined(__GLIBC__)
    // A window's buffers (a few MB each) come from the heap, below glibc's mmap
    // threshold; freed, they stay resident in holes the next window's do not fit
    // exactly, and over a hundred windows that added 0.2 GB at 100 M ops. Handing
    // them back every few windows keeps that to a window's worth.
    if (++windows % 4 == 0) malloc_trim(0);
#endif
  }
  return builder.finish();
}

std::pair<std::uint64_t, std::uint64_t> waitWindowAround(const TraceView& ops, std::uint64_t focusOp,
                                                         const WaitWindowing& windowing) {
  const std::uint64_t size = std::max<std::uint64_t>(windowing.windowOps, 1);
  std::uint64_t from = std::clamp(focusOp, ops.begin(), ops.end());
  from -= std::min(from - ops.begin(), size / 2);
  const std::uint64_t to = std::min(ops.end(), from + size);
  from = to - std::min(to - ops.begin(), size);
  return {from, to};
}

WaitAnalysis analyzeWaitsAround(const TraceView& ops, const std::vector<Lane>& lanes, std::uint64_t focusOp,
                                const WaitWindowing& windowing) {
  const auto [from, to] = waitWindowAround(ops, focusOp, windowing);
  return analyzeWaitsInWindow(ops, lanes, from, to, windowing.contextOps);
}

WaitSummary summarizeAllWaits(const TraceView& ops, const std::vector<Lane>& lanes, const WaitWindowing& windowing) {
  if (ops.size() <= windowing.wholeTraceOps) return summarizeWaits(analyzeWaits(ops, lanes), ops, lanes);
  return summarizeWaitsByWindow(ops, lanes, windowing.windowOps, windowing.contextOps);
}

WaitOverview overviewWaits(const TraceView& ops, const std::vector<Lane>& lanes, std::uint64_t focusOp,
                           const WaitWindowing& windowing) {
  WaitOverview out;
  if (ops.size() <= windowing.wholeTraceOps) {
    out.analysis = analyzeWaits(ops, lanes);
    out.summary = summarizeWaits(out.analysis, ops, lanes);
    return out;
  }
  out.summary = summarizeWaitsByWindow(ops, lanes, windowing.windowOps, windowing.contextOps);
  out.analysis = analyzeWaitsAround(ops, lanes, focusOp, windowing);
  return out;
}

}  // namespace pipescope
