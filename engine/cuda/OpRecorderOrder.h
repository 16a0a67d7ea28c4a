#pragma once
// Keeping one stream's ops in order when their timestamps come from two clocks
// (OpRecorder): CUPTI's activity records for copies and kernels, CUDA events for
// managed prefetches. The clocks are tied together to within a few microseconds, so
// an event-timed op can seem to overlap its CUPTI-timed neighbours by that much.
// A stream runs one op at a time, and the picture must say so: a run of event-timed
// ops is fitted between the end of the stream's op before it and the start of the
// one after it. Header-only and CUDA-free so the CPU tests check it.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "trace/Op.h"

namespace pipescope::cuda {

/// Fits `ops` (consecutive ops of one stream, in issue order) into [lo, hi]: every
/// op starts no earlier than the previous one ended (and than `lo`), and ends no later
/// than the next one starts (and than `hi`); an op squeezed to nothing keeps zero
/// length. ready and submit never exceed start. hi < lo is treated as hi = lo.
inline void fitBetween(std::vector<Op>& ops, std::int64_t lo, std::int64_t hi) {
  hi = std::max(hi, lo);
  std::int64_t cursor = lo;
  for (Op& op : ops) {  // forward: no op before the end of the one before it
    op.start = std::max(op.start, cursor);
    op.end = std::max(op.end, op.start);
    cursor = op.end;
  }
  std::int64_t limit = hi;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {  // backward: none past the start of the next
    it->end = std::min(it->end, limit);
    it->start = std::min(it->start, it->end);
    limit = it->start;
  }
  for (Op& op : ops) {
    op.ready = std::min(op.ready, op.start);
    op.submit = std::min(op.submit, op.ready);
  }
}

/// A single op after the stream's previous one (ended at `previousEnd`): it starts
/// no earlier than that.
inline void startAfter(Op& op, std::int64_t previousEnd) {
  op.start = std::max(op.start, previousEnd);
  op.end = std::max(op.end, op.start);
  op.ready = std::min(op.ready, op.start);
  op.submit = std::min(op.submit, op.ready);
}

}  // namespace pipescope::cuda
