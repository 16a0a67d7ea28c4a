#include "sim/SimulatorBackend.h"

#include <exception>

#include "sim/Simulator.h"

namespace pipescope {

namespace {

class SimulatorBackend final : public Backend {
 public:
  SimulatorBackend(DeviceProfile profile, double slowdown) : profile_(std::move(profile)), slowdown_(slowdown) {}

  std::string_view kind() const override { return "simulator"; }

  DeviceInfo describe() const override {
    DeviceInfo d;
    d.backend = "simulator";
    d.name = profile_.deviceName.empty() ? "Simulator: " + profile_.name : profile_.deviceName + " (simulated)";
    d.profile = profile_.name;
    d.copyEngines = profile_.copyEngines;
    d.memoryBytes = profile_.deviceMemoryBytes;
    d.timingSource = "simulated";
    d.note = profile_.source;
    return d;
  }

  RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) override {
    try {
      Simulator sim(profile_, trace, control, slowdown_);
      return sim.run(config);
    } catch (const std::exception& e) {
      trace.ops().publish();
      return {RunState::Failed, std::string("simulator error: ") + e.what()};
    }
  }

 private:
  DeviceProfile profile_;
  double slowdown_;
};

}  // namespace

std::unique_ptr<Backend> makeSimulatorBackend(DeviceProfile profile, double slowdown) {
  return std::make_unique<SimulatorBackend>(std::move(profile), slowdown);
}

}  // namespace pipescope
