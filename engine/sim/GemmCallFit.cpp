#include "sim/GemmCallFit.h"

#include "metrics/Spread.h"
#include "sim/FitRuns.h"
#include "sim/Validation.h"

namespace pipescope {

namespace {

constexpr double kMaxCallNs = 1e6;  // 1 ms per call: beyond any real cuBLAS call
constexpr double kMinCallNs = 1;    // 0 means "as a kernel launch" in a profile
const std::string kWhat = "GEMM call fit";
constexpr int kTraceRuns = 3;

/// The median over kTraceRuns runs of `c` of each run's median cublasSgemm call; 0
/// when the backend's traces record none.
double tracedGemmCallNs(Backend& measured, const PipelineConfig& c) {
  std::vector<double> calls;
  for (int i = 0; i < kTraceRuns; ++i) {
    const double ns = tracedCallTimes(measured, c, kWhat).gemmCallNs;
    if (ns <= 0) return 0;
    calls.push_back(ns);
  }
  return spreadOf(calls).median;
}

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
  r.lightSolvedNs = solveProfileField(profile, &DeviceProfile::lightGemmCallNs, configs[0], r.measuredNs[0], kMinCallNs,
                                      kMaxCallNs, kWhat);
  r.heavySolvedNs = solveProfileField(profile, &DeviceProfile::heavyGemmCallNs, configs[1], r.measuredNs[1], kMinCallNs,
                                      kMaxCallNs, kWhat);
  // What the calls took in the runs' own traces, where the backend records them: the
  // solve lays on the call whatever else the run's length holds (three rounds on one
  // H200 host solved 10.2-15.6 us per light call), the trace does not.
  r.lightTracedNs = tracedGemmCallNs(measured, configs[0]);
  r.heavyTracedNs = tracedGemmCallNs(measured, configs[1]);
  r.lightCallNs = r.lightTracedNs > 0 ? r.lightTracedNs : r.lightSolvedNs;
  r.heavyCallNs = r.heavyTracedNs > 0 ? r.heavyTracedNs : r.heavySolvedNs;
  DeviceProfile fitted = profile;
  applyGemmCalls(fitted, r);
  for (const PipelineConfig& c : configs) r.predictedNs.push_back(simulatedMakespanNs(fitted, c, kWhat));
  logFitRuns(log, "GEMM call", configs, r.measuredNs, r.predictedNs);
  if (log) {
    log("cublasSgemm call inside the pipeline: light " + fitMicros(r.lightCallNs) + " us (its trace " +
        fitMicros(r.lightTracedNs) + ", solved from the run's length " + fitMicros(r.lightSolvedNs) +
        ", calibration loop " + fitMicros(profile.lightGemmCallNs) + "), heavy " + fitMicros(r.heavyCallNs) +
        " us (trace " + fitMicros(r.heavyTracedNs) + ", solved " + fitMicros(r.heavySolvedNs) + ", loop " +
        fitMicros(profile.heavyGemmCallNs) + ")");
  }
  return r;
}

void applyGemmCalls(DeviceProfile& profile, const GemmCallResult& fit) {
  profile.lightGemmCallNs = fit.lightCallNs;
  profile.heavyGemmCallNs = fit.heavyCallNs;
}

}  // namespace pipescope
