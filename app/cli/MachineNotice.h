#pragma once
// What the command line says about the profile behind its predictions on a real GPU:
// this machine's own calibration, or a built-in profile and how far this host is
// from it (a short probe of its call costs) and how to calibrate.
#include <ostream>

#include "analysis/PredictionProfile.h"

namespace pipescope::cli {

/// One or two lines to `err`: which profile predicts and why; for a built-in profile
/// on a real GPU also the host probe (backend/MachineCalibration.h) against it and
/// the calibrate command. Nothing for simulated runs.
void printMachineNotice(const PredictionProfileChoice& choice, int device, std::ostream& err);

}  // namespace pipescope::cli
