#include "analysis/PredictionProfile.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace pipescope {

namespace {

bool hasDigit(const std::string& w) {
  for (char c : w)
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
  return false;
}
bool hasAlpha(const std::string& w) {
  for (char c : w)
    if (std::isalpha(static_cast<unsigned char>(c))) return true;
  return false;
}

bool isCalibrated(const DeviceProfile& p) { return p.name.find("calibrated") != std::string::npos; }

}  // namespace

std::string gpuModel(const std::string& deviceName) {
  std::istringstream in(deviceName);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!hasDigit(w)) continue;
    if (hasAlpha(w)) return w;  // "H100", "A100-SXM4-80GB", "L40S"
    // A bare number ("4090") names a model only with the word before it ("RTX 4090").
    if (i > 0 && words[i - 1] != "NVIDIA") return words[i - 1] + " " + w;
    return w;
  }
  return {};
}

std::optional<DeviceProfile> builtinProfileForDevice(const std::string& deviceName, bool* sameName) {
  const std::string model = gpuModel(deviceName);
  // Lower rank wins: exact name beats same model, calibrated beats hand-written.
  int best = 99;
  std::optional<DeviceProfile> chosen;
  for (const std::string& name : builtinProfileNames()) {
    auto p = builtinProfile(name);
    if (!p) continue;
    int rank = 99;
    if (p->deviceName == deviceName) rank = isCalibrated(*p) ? 0 : 1;
    else if (!model.empty() && gpuModel(p->deviceName) == model) rank = isCalibrated(*p) ? 2 : 3;
    if (rank < best) {
      best = rank;
      chosen = std::move(p);
    }
  }
  if (sameName) *sameName = best <= 1;
  return chosen;
}

PredictionProfileChoice predictionProfileFor(const DeviceInfo& device, const MachineContext& machine) {
  PredictionProfileChoice c;
  if (device.backend != "cuda") {
    c.note = "the runs are simulated: the model's prediction is the run itself";
    return c;
  }
  MachineProfileLookup mine = findMachineProfile(machine, device.name);
  if (mine.status == MachineProfileLookup::Status::Found) {
    c.profile = std::move(mine.profile);
    c.thisMachine = true;
    c.note = "profile '" + c.profile->name + "' (this machine's own calibration, " + mine.path + ")";
    return c;
  }
  c.calibrationPath = machineProfilePath(machine, device.name);
  const std::string damaged =
      mine.status == MachineProfileLookup::Status::Damaged ? "; " + mine.message : std::string();
  bool sameName = false;
  c.profile = builtinProfileForDevice(device.name, &sameName);
  if (!c.profile) {
    c.note = "no built-in profile describes " + device.name +
             ": calibrate this machine ('pipescope-cli calibrate'), after which its predictions use that" + damaged;
    return c;
  }
  c.note = "profile '" + c.profile->name + "' (built in: " + c.profile->deviceName + ", " +
           (sameName ? "this GPU's model and name" : "same model as this GPU") + "; " +
           (damaged.empty() ? std::string("no calibration of this machine yet") : mine.message) + ")";
  return c;
}

PredictionProfileChoice choosePredictionProfile(const std::string& nameOrPath, const DeviceInfo& device,
                                                std::string& error, const MachineContext& machine) {
  if (nameOrPath.empty()) return predictionProfileFor(device, machine);
  PredictionProfileChoice c;
  c.profile = loadDeviceProfile(nameOrPath, error);
  if (c.profile) c.note = "profile '" + c.profile->name + "' (chosen with --predict)";
  return c;
}

}  // namespace pipescope
