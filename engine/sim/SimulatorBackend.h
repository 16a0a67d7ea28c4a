#pragma once
#include <memory>

#include "backend/Backend.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

/// The discrete-event model of the pipeline (see Simulator.h). slowdown = wall
/// seconds per simulated second; 0 runs as fast as possible.
std::unique_ptr<Backend> makeSimulatorBackend(DeviceProfile profile, double slowdown = 0.0);

}  // namespace pipescope
