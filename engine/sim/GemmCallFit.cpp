#include "sim/GemmCallFit.h"

#include "sim/FitRuns.h"
#include "sim/Validation.h"

namespace pipescope {

namespace {

constexpr double kMaxCallNs = 1e6;  // 1 ms per call: beyond any real cuBLAS call
constexpr double kMinCallNs = 1;    // 0 means "as a kernel launch" in a profile
const std::string kWhat = "GEMM call fit";

}  // namespace

std::vector<PipelineConfig> gemmCallConfigs() {
  PipelineConfig light = tinyBatchFitConfig(200);  // 64 KiB: 128 rows of the light preset, 16 of the heavy
  light.model = ModelPreset::Light;
  PipelineConfig heavy = light;
  heavy.model = ModelPreset::Heavy;
  return {light, heavy};
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
  logFitRuns(log, "GEMM call", configs, r.measuredNs, r.predictedNs);
  if (log) {
    log("cublasSgemm call inside the pipeline: light " + fitMicros(r.lightCallNs) + " us (calibration loop " +
        fitMicros(profile.lightGemmCallNs) + "), heavy " + fitMicros(r.heavyCallNs) + " us (loop " +
        fitMicros(profile.heavyGemmCallNs) + ")");
  }
  return r;
}

void applyGemmCalls(DeviceProfile& profile, const GemmCallResult& fit) {
  profile.lightGemmCallNs = fit.lightCallNs;
  profile.heavyGemmCallNs = fit.heavyCallNs;
}

}  // namespace pipescope
