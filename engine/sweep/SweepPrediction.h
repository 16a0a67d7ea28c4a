#pragma once
// The simulator's prediction of a sweep: every finished point of a measured sweep run
// again, with exactly its configuration, on a simulator backend. The app draws it
// beside a GPU measurement (how far the model is off, point by point); two simulator
// profiles can be compared the same way.
#include "sweep/SweepRunner.h"

namespace pipescope {

/// Fills result.predicted (same indices as result.points) and result.predictedDevice.
/// Points of `result` that failed are not predicted. Returns false when cancelled;
/// the points predicted so far are kept. `pointPredicted` is called after each point.
bool predictSweep(SweepResult& result, Backend& simulator, const SweepCancel* cancel = nullptr,
                  const std::function<void(const SweepPointResult&)>& pointPredicted = {});

}  // namespace pipescope
