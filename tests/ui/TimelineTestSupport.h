#pragma once
// Traces for the timeline tests: hand-built ones with known geometry, and
// simulator runs of the built-in presets.
#include <QApplication>
#include <QFont>
#include <memory>
#include <stdexcept>
#include <string>

#include "backend/Backend.h"
#include "config/Presets.h"
#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "trace/Trace.h"

namespace pipescope::uitest {

/// A trace with a submit thread, two streams and three engines; ops added by hand.
struct HandTrace {
  std::shared_ptr<Trace> trace = std::make_shared<Trace>();
  std::uint16_t submit, stream0, stream1, h2d, compute, d2h;

  HandTrace() {
    submit = trace->lane(LaneKind::HostSubmit, 0, "submit thread");
    stream0 = trace->lane(LaneKind::Stream, 0, "stream 0");
    stream1 = trace->lane(LaneKind::Stream, 1, "stream 1");
    h2d = trace->lane(LaneKind::CopyEngineH2D, 0, "H2D copy engine");
    compute = trace->lane(LaneKind::ComputeEngine, 0, "compute engine");
    d2h = trace->lane(LaneKind::CopyEngineD2H, 0, "D2H copy engine");
  }
  /// Appends and publishes a GPU op on a stream lane and its engine lane.
  Op gpu(OpKind kind, int stream, std::int32_t batch, std::int64_t submitNs, std::int64_t readyNs,
         std::int64_t startNs, std::int64_t endNs, std::uint64_t bytes = 0) {
    Op op;
    op.kind = kind;
    op.stream = std::int16_t(stream);
    op.batch = batch;
    op.submit = submitNs;
    op.ready = readyNs;
    op.start = startNs;
    op.end = endNs;
    op.bytes = bytes;
    op.lane = stream == 0 ? stream0 : stream1;
    op.engineLane = kind == OpKind::CopyH2D ? h2d : kind == OpKind::CopyD2H ? d2h : compute;
    add(op);
    return op;
  }
  Op host(OpKind kind, std::int64_t startNs, std::int64_t endNs) {
    Op op;
    op.kind = kind;
    op.submit = op.ready = op.start = startNs;
    op.end = endNs;
    op.lane = submit;
    add(op);
    return op;
  }
  void add(const Op& op) {
    trace->ops().append(op);
    trace->ops().publish();
  }
};

/// Runs a built-in preset on the simulator (h200 profile) to completion.
inline std::shared_ptr<Trace> simulatePreset(const std::string& name, int batches = 0) {
  auto preset = findPreset(name);
  if (!preset) throw std::runtime_error("unknown preset " + name);
  PipelineConfig config = preset->config;
  if (batches > 0) config.batchCount = batches;
  auto trace = std::make_shared<Trace>();
  trace->setConfig(config);
  auto backend = makeSimulatorBackend(*builtinProfile("h200"));
  RunControl control;
  const RunOutcome outcome = backend->run(config, *trace, control);
  trace->setOutcome(outcome);
  return trace;
}

}  // namespace pipescope::uitest
