#include "sim/FitRuns.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "metrics/Spread.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"

namespace pipescope {

PipelineConfig tinyBatchFitConfig(int batches) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = 1;
  c.batchSamples = 16;
  c.sampleBytes = 4096;
  c.batchCount = batches;
  c.modelFlopsPerByte = 100;
  return c;
}

std::string fitMicros(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ns / 1e3);
  return buf;
}

void logFitRuns(const std::function<void(const std::string&)>& log, const std::string& what,
                const std::vector<PipelineConfig>& configs, const std::vector<double>& measuredNs,
                const std::vector<double>& predictedNs) {
  if (!log) return;
  for (std::size_t i = 0; i < configs.size() && i < measuredNs.size() && i < predictedNs.size(); ++i) {
    std::string c = describeCase(configs[i]);
    if (configs[i].transferChunks > 1) c += ", " + std::to_string(configs[i].transferChunks) + " chunks";
    log(what + " run " + std::to_string(i + 1) + " (" + c + "): measured " + fitMicros(measuredNs[i]) +
        " us, simulated with the fit " + fitMicros(predictedNs[i]) + " us");
  }
}

std::vector<double> measureInterleavedNs(Backend& measured, const std::vector<PipelineConfig>& configs, int reps,
                                         const std::string& what) {
  std::string ignored;
  if (!configs.empty()) measureMakespanNs(measured, configs[0], ignored);  // warm-up
  std::vector<std::vector<double>> t(configs.size());
  for (int i = 0; i < std::max(reps, 1); ++i)
    for (std::size_t k = 0; k < configs.size(); ++k) {
      std::string failure;
      t[k].push_back(measureMakespanNs(measured, configs[k], failure));
      if (!failure.empty()) throw std::runtime_error(what + ": " + failure);
    }
  std::vector<double> medians;
  for (const auto& runs : t) medians.push_back(spreadOf(runs).median);
  return medians;
}

PipelineCallTimes tracedCallTimes(Backend& measured, const PipelineConfig& c, const std::string& what,
                                  double* makespanNs) {
  std::string failure;
  PipelineCallTimes t;
  const double ns =
      measureMakespanNs(measured, c, failure, nullptr, [&](const Trace& trace) { t = readPipelineCallTimes(trace); });
  if (!failure.empty()) throw std::runtime_error(what + ": " + failure);
  if (makespanNs) *makespanNs = ns;
  return t;
}

double simulatedMakespanNs(const DeviceProfile& profile, const PipelineConfig& c, const std::string& what) {
  auto sim = makeSimulatorBackend(profile);
  std::string failure;
  const double t = measureMakespanNs(*sim, c, failure);
  if (!failure.empty()) throw std::runtime_error(what + ": " + failure);
  return t;
}

double solveProfileValue(const DeviceProfile& profile, const std::function<void(DeviceProfile&, double)>& set,
                         const PipelineConfig& c, double targetNs, double minValue, double maxValue,
                         const std::string& what) {
  DeviceProfile p = profile;
  auto makespanAt = [&](double v) {
    set(p, v);
    return simulatedMakespanNs(p, c, what);
  };
  double lo = minValue, hi = maxValue;
  if (makespanAt(lo) >= targetNs) return lo;
  if (makespanAt(hi) <= targetNs) return hi;
  for (int i = 0; i < 40 && hi - lo > 2.0; ++i) {
    const double mid = 0.5 * (lo + hi);
    (makespanAt(mid) < targetNs ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double solveProfileField(DeviceProfile p, double DeviceProfile::*field, const PipelineConfig& c, double targetNs,
                         double minValue, double maxValue, const std::string& what) {
  return solveProfileValue(
      p, [field](DeviceProfile& q, double v) { q.*field = v; }, c, targetNs, minValue, maxValue, what);
}

}  // namespace pipescope
