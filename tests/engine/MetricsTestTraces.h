#pragma once
// Hand-built traces for the metrics tests: a tiny builder so each test states its
// ops as a timeline and the expected figures can be worked out by hand.
#include <cstdint>
#include <memory>
#include <string>

#include "trace/Trace.h"

namespace pipescope::testing {

class TraceBuilder {
 public:
  explicit TraceBuilder(int copyEngines = 2, bool withConfig = true) : trace_(std::make_unique<Trace>()) {
    if (withConfig) {
      PipelineConfig c;
      c.batchSamples = 8;
      trace_->setConfig(c);
    }
    DeviceInfo d;
    d.backend = "simulator";
    d.copyEngines = copyEngines;
    trace_->setDevice(d);
    submit = trace_->lane(LaneKind::HostSubmit, 0, "submit thread");
    worker = trace_->lane(LaneKind::HostWorker, 0, "CPU worker 0");
    stream0 = trace_->lane(LaneKind::Stream, 0, "stream 0");
    stream1 = trace_->lane(LaneKind::Stream, 1, "stream 1");
    if (copyEngines == 1) {
      h2dEngine = d2hEngine = trace_->lane(LaneKind::CopyEngine, 0, "copy engine");
    } else {
      h2dEngine = trace_->lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
      d2hEngine = trace_->lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
    }
    compute = trace_->lane(LaneKind::ComputeEngine, 0, "compute");
  }

  TraceBuilder& gpu(OpKind kind, std::int32_t batch, std::int64_t start, std::int64_t end, std::uint64_t bytes = 0,
                    std::uint16_t streamLane = kNoLane, std::uint8_t flags = 0) {
    Op op;
    op.kind = kind;
    op.batch = batch;
    op.submit = op.ready = op.start = start;
    op.end = end;
    op.bytes = bytes;
    op.lane = streamLane == kNoLane ? stream0 : streamLane;
    op.engineLane = kind == OpKind::Kernel ? compute : kind == OpKind::CopyH2D ? h2dEngine : d2hEngine;
    op.flags = flags;
    trace_->ops().append(op);
    return *this;
  }
  TraceBuilder& h2d(std::int32_t b, std::int64_t s, std::int64_t e, std::uint64_t bytes = 0) {
    return gpu(OpKind::CopyH2D, b, s, e, bytes);
  }
  TraceBuilder& kernel(std::int32_t b, std::int64_t s, std::int64_t e) { return gpu(OpKind::Kernel, b, s, e); }
  TraceBuilder& d2h(std::int32_t b, std::int64_t s, std::int64_t e, std::uint64_t bytes = 0) {
    return gpu(OpKind::CopyD2H, b, s, e, bytes);
  }
  TraceBuilder& host(OpKind kind, std::uint16_t lane, std::int32_t batch, std::int64_t s, std::int64_t e) {
    Op op;
    op.kind = kind;
    op.batch = batch;
    op.submit = op.ready = op.start = s;
    op.end = e;
    op.lane = lane;
    trace_->ops().append(op);
    return *this;
  }
  /// Another CPU worker lane (the constructor makes only `worker`).
  std::uint16_t addWorker(int index) {
    return trace_->lane(LaneKind::HostWorker, index, "CPU worker " + std::to_string(index));
  }
  Trace& done(std::int64_t completedBatches = 0) {
    trace_->ops().publish();
    trace_->setCompletedBatches(completedBatches);
    return *trace_;
  }

  std::uint16_t submit = 0, worker = 0, stream0 = 0, stream1 = 0, h2dEngine = 0, d2hEngine = 0, compute = 0;

 private:
  std::unique_ptr<Trace> trace_;
};

}  // namespace pipescope::testing
