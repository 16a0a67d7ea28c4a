#pragma once
// One run of the simulator, as the advice and the lessons need it: a configuration
// on a device profile, to completion, with its metrics.
#include <memory>
#include <stop_token>

#include "config/PipelineConfig.h"
#include "metrics/Metrics.h"
#include "sim/DeviceProfile.h"
#include "trace/Trace.h"

namespace pipescope {

struct SimulatedRun {
  std::shared_ptr<Trace> trace;
  RunOutcome outcome;
  Metrics metrics;
  bool ok() const { return outcome.state == RunState::Finished; }
};

/// Runs `config` on the simulator with `profile` as fast as possible. A configuration
/// that runs until stopped is run for `batchesWhenUnbounded` batches instead.
/// Invalid configurations come back as a Failed outcome with the validation message.
SimulatedRun simulate(const PipelineConfig& config, const DeviceProfile& profile, std::stop_token stop = {},
                      int batchesWhenUnbounded = 64);

/// Share of the makespan the submit thread spends in CUDA API calls (the "launch
/// overhead" the bigger-batch advice talks about).
double apiOverheadShare(const Trace& trace, const Metrics& metrics);

}  // namespace pipescope
