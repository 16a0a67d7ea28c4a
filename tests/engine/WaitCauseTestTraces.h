#pragma once
// Hand-built traces with known wait causes, for the wait-cause tests.
#include <cstdint>
#include <memory>

#include "trace/Trace.h"

namespace pipescope::waittest {

struct Lanes {
  std::uint16_t submit, worker, stream0, stream1, h2d, d2h, compute;
};

inline Lanes addLanes(Trace& t) {
  Lanes l{};
  l.submit = t.lane(LaneKind::HostSubmit, 0, "submit thread");
  l.worker = t.lane(LaneKind::HostWorker, 0, "CPU worker 0");
  l.stream0 = t.lane(LaneKind::Stream, 0, "stream 0");
  l.stream1 = t.lane(LaneKind::Stream, 1, "stream 1");
  l.h2d = t.lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
  l.d2h = t.lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
  l.compute = t.lane(LaneKind::ComputeEngine, 0, "compute engine");
  return l;
}

inline Op gpu(OpKind kind, std::int32_t batch, std::int16_t stream, std::uint16_t lane, std::uint16_t engine,
              std::int64_t submit, std::int64_t ready, std::int64_t start, std::int64_t end, std::uint8_t flags = 0,
              std::uint32_t correlation = 0) {
  Op op;
  op.kind = kind;
  op.batch = batch;
  op.stream = stream;
  op.lane = lane;
  op.engineLane = engine;
  op.submit = submit;
  op.ready = ready;
  op.start = start;
  op.end = end;
  op.flags = flags;
  op.correlation = correlation;
  op.bytes = 1000;
  return op;
}

inline Op host(OpKind kind, std::uint16_t lane, std::int64_t start, std::int64_t end, std::int32_t batch = kNoBatch,
               std::uint32_t correlation = 0) {
  Op op;
  op.kind = kind;
  op.lane = lane;
  op.batch = batch;
  op.submit = op.ready = op.start = start;
  op.end = end;
  op.correlation = correlation;
  return op;
}

}  // namespace pipescope::waittest
