#include "sweep/SweepPrediction.h"

namespace pipescope {

bool predictSweep(SweepResult& result, Backend& simulator, const SweepCancel* cancel,
                  const std::function<void(const SweepPointResult&)>& pointPredicted) {
  result.predicted.clear();
  result.predictedDevice = simulator.describe();
  // A deterministic model needs one repetition; its traces are not kept (the
  // measured point's timeline is the one worth opening).
  for (const SweepPointResult& measured : result.points) {
    if (!measured.ok()) continue;
    if (cancel && cancel->cancelled()) return false;
    SweepPointResult p;
    p.index = measured.index;
    std::vector<std::shared_ptr<Trace>> traces;
    if (!measurePoint(simulator, measured.config, measured.warmupBatches, 1, cancel, p, traces)) return false;
    result.predicted.push_back(std::move(p));
    if (pointPredicted) pointPredicted(result.predicted.back());
  }
  return true;
}

}  // namespace pipescope
