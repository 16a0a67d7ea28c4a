#pragma once
// Hand-built traces for the readers of a run's trace (call times, the recorder's flush).
#include <cstdint>

#include "trace/Trace.h"

namespace pipescope::simtest {

/// Appends one op to `trace`, submitted, ready and started at `start` (not published).
inline void appendOp(Trace& trace, OpKind kind, std::uint16_t lane, const char* name, std::int32_t batch,
                     std::int64_t start, std::int64_t end, std::uint32_t correlation = 0) {
  Op op;
  op.kind = kind;
  op.lane = lane;
  op.name = trace.internName(name);
  op.batch = batch;
  op.correlation = correlation;
  op.submit = op.ready = op.start = start;
  op.end = end;
  trace.ops().append(op);
}

}  // namespace pipescope::simtest
