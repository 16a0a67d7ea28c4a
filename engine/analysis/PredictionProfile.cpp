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

PredictionProfileChoice predictionProfileFor(const DeviceInfo& device) {
  PredictionProfileChoice c;
  if (device.backend != "cuda") {
    c.note = "the runs are simulated: the model's prediction is the run itself";
    return c;
  }
  const std::string model = gpuModel(device.name);
  // Lower rank wins: exact name beats same model, calibrated beats hand-written.
  int best = 99;
  for (const std::string& name : builtinProfileNames()) {
    auto p = builtinProfile(name);
    if (!p) continue;
    int rank = 99;
    if (p->deviceName == device.name) rank = isCalibrated(*p) ? 0 : 1;
    else if (!model.empty() && gpuModel(p->deviceName) == model) rank = isCalibrated(*p) ? 2 : 3;
    if (rank < best) {
      best = rank;
      c.profile = std::move(p);
    }
  }
  if (!c.profile) {
    c.note = "no built-in profile describes " + device.name +
             ": calibrate one ('pipescope-cli calibrate') and pass it with --predict FILE";
    return c;
  }
  c.note = "profile '" + c.profile->name + "' (" + c.profile->deviceName + ", " +
           (best <= 1 ? "this GPU's model and name" : "same model as this GPU") + ")";
  return c;
}

PredictionProfileChoice choosePredictionProfile(const std::string& nameOrPath, const DeviceInfo& device,
                                                std::string& error) {
  if (nameOrPath.empty()) return predictionProfileFor(device);
  PredictionProfileChoice c;
  c.profile = loadDeviceProfile(nameOrPath, error);
  if (c.profile) c.note = "profile '" + c.profile->name + "' (chosen with --predict)";
  return c;
}

}  // namespace pipescope
