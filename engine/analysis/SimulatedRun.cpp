#include "analysis/SimulatedRun.h"

#include "sim/SimulatorBackend.h"

namespace pipescope {

SimulatedRun simulate(const PipelineConfig& config, const DeviceProfile& profile, std::stop_token stop,
                      int batchesWhenUnbounded) {
  PipelineConfig c = config;
  if (c.runsUntilStopped()) c.batchCount = std::max(batchesWhenUnbounded, 1);
  SimulatedRun r;
  r.trace = std::make_shared<Trace>();
  r.trace->setConfig(c);
  auto backend = makeSimulatorBackend(profile);
  r.trace->setDevice(backend->describe());
  RunControl control;
  control.stop = stop;
  r.outcome = backend->run(c, *r.trace, control);
  r.trace->setOutcome(r.outcome);
  r.metrics = computeMetrics(*r.trace);
  return r;
}

double apiOverheadShare(const Trace& trace, const Metrics& metrics) {
  if (metrics.makespanNs <= 0) return 0;
  const auto lanes = trace.lanes();
  double api = 0;
  int submitLanes = 0;
  for (const auto& l : lanes) submitLanes += l.kind == LaneKind::HostSubmit ? 1 : 0;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.kind != OpKind::ApiCall || op.lane >= lanes.size() || lanes[op.lane].kind != LaneKind::HostSubmit) return;
    api += double(op.duration());
  });
  return api / double(std::max(submitLanes, 1)) / metrics.makespanNs;
}

}  // namespace pipescope
