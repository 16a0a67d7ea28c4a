#include "sim/GemmCallFit.h"

#include <cstdio>

#include "sim/FitRuns.h"
#include "sim/Validation.h"

namespace pipescope {

namespace {

constexpr double kMaxCallNs = 1e6;  // 1 ms per call: beyond any real cuBLAS call
constexpr double kMinCallNs = 1;    // 0 means "as a kernel launch" in a profile
const std::string kWhat = "GEMM call fit";

std::string us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ns / 1e3);
  return buf;
}

}  // namespace

std::vector<PipelineConfig> gemmCallConfigs() {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = 1;
  c.batchSamples = 16;
  c.sampleBytes = 4096;  // 64 KiB: 128 rows of the light preset, 16 of the heavy
  c.batchCount = 200;
  c.model = ModelPreset::Light;
  PipelineConfig heavy = c;
  heavy.model = ModelPreset::Heavy;
  return {c, heavy};
}

GemmCallResult fitGemmCalls(Backend& measured, const DeviceProfile& profile, int reps,
                            const std::function<void(const std::string&)>& log) {
  const std::vector<PipelineConfig> configs = gemmCallConfigs();
  GemmCallResult r;
  r.measuredNs = measureInterleavedNs(measured, configs, reps, kWhat);
  // Each run has GEMMs of one preset only, so the two solves are independent.
  r.lightCallNs = solveProfileField(profile, &DeviceProfile::lightGemmCallNs, configs[0], r.measuredNs[0], kMinCallNs,
                                    kMaxCallNs, kWhat);
  r.heavyCallNs = solveProfileField(profile, &DeviceProfile::heavyGemmCallNs, configs[1], r.measuredNs[1], kMinCallNs,
                                    kMaxCallNs, kWhat);
  DeviceProfile fitted = profile;
  applyGemmCalls(fitted, r);
  for (const PipelineConfig& c : configs) r.predictedNs.push_back(simulatedMakespanNs(fitted, c, kWhat));
  if (log) {
    for (std::size_t i = 0; i < configs.size(); ++i)
      log("GEMM call run " + std::to_string(i + 1) + " (" + describeCase(configs[i]) + "): measured " +
          us(r.measuredNs[i]) + " us, simulated with the fit " + us(r.predictedNs[i]) + " us");
    log("cublasSgemm call inside the pipeline: light " + us(r.lightCallNs) + " us (calibration loop " +
        us(profile.lightGemmCallNs) + "), heavy " + us(r.heavyCallNs) + " us (loop " + us(profile.heavyGemmCallNs) +
        ")");
  }
  return r;
}

void applyGemmCalls(DeviceProfile& profile, const GemmCallResult& fit) {
  profile.lightGemmCallNs = fit.lightCallNs;
  profile.heavyGemmCallNs = fit.heavyCallNs;
}

}  // namespace pipescope
