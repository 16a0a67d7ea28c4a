#include "MachineNotice.h"

#include <stdexcept>

#include "backend/MachineCalibration.h"
#include "sim/HostSpeed.h"

namespace pipescope::cli {

void printMachineNotice(const PredictionProfileChoice& choice, int device, std::ostream& err) {
  if (!choice.profile) {
    if (!choice.note.empty()) err << "pipescope-cli: no prediction: " << choice.note << "\n";
    return;
  }
  err << "pipescope-cli: predictions use " << choice.note << "\n";
  if (choice.thisMachine) return;
  try {
    const HostCosts host = probeHostCosts(device, *choice.profile);
    err << "pipescope-cli: " << machineHostNotice(host.kernelLaunchNs, *choice.profile, choice.calibrationPath)
        << "\n";
  } catch (const std::exception& e) {
    err << "pipescope-cli: the host probe failed (" << e.what()
        << "); calibrate this machine with 'pipescope-cli calibrate' for predictions of its own\n";
  }
}

}  // namespace pipescope::cli
