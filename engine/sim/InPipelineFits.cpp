#include "sim/InPipelineFits.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "metrics/Spread.h"
#include "sim/CpuHandoffFit.h"
#include "sim/CpuStageFit.h"
#include "sim/GemmCallFit.h"
#include "sim/HostOverheadFit.h"

namespace pipescope {

namespace {

double medianOf(const std::vector<DeviceProfile>& fits, double DeviceProfile::*field) {
  std::vector<double> v;
  for (const DeviceProfile& p : fits) v.push_back(p.*field);
  return spreadOf(v).median;
}

enum class CurveAverage { Median, Mean };

/// Point by point (the median, or the mean), when every fit's curve has the same x values; else the first's.
template <class Point, class X>
std::vector<Point> averageCurve(const std::vector<DeviceProfile>& fits, std::vector<Point> DeviceProfile::*curve,
                                X Point::*x, double Point::*y, CurveAverage average = CurveAverage::Median) {
  std::vector<Point> out = fits.front().*curve;
  for (const DeviceProfile& p : fits) {
    const std::vector<Point>& c = p.*curve;
    if (c.size() != out.size()) return fits.front().*curve;
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c[i].*x != out[i].*x) return fits.front().*curve;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::vector<double> v;
    double sum = 0;
    for (const DeviceProfile& p : fits) {
      v.push_back((p.*curve)[i].*y);
      sum += v.back();
    }
    out[i].*y = average == CurveAverage::Mean ? sum / double(v.size()) : spreadOf(v).median;
  }
  return out;
}

std::string fmt(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string range(const std::vector<DeviceProfile>& fits, double DeviceProfile::*field, double scale, int digits) {
  std::vector<double> v;
  for (const DeviceProfile& p : fits) v.push_back(p.*field * scale);
  const Spread s = spreadOf(v);
  return fmt(s.median, digits) + " (" + fmt(s.min, digits) + "-" + fmt(s.max, digits) + ")";
}

}  // namespace

void fitInPipeline(Backend& measured, DeviceProfile& profile, const FitLog& log, const std::function<void()>& fitDone) {
  const auto done = [&] {
    if (fitDone) fitDone();
  };
  const CpuStageResult cpu = fitCpuStages(measured, 5, log);
  profile.cpuNsPerOp = cpu.nsPerOp;
  profile.cpuPreprocessNsPerOp = cpu.preprocessNsPerOp;
  profile.cpuPostprocessNsPerOp = cpu.postprocessNsPerOp;
  profile.cpuPreprocessNsPerByte = cpu.preprocessNsPerByte;
  profile.cpuPostprocessNsPerByte = cpu.postprocessNsPerByte;
  profile.cpuPreprocessRoundsCurve = cpu.preprocessRoundsCurve;
  profile.cpuPostprocessRoundsCurve = cpu.postprocessRoundsCurve;
  profile.cpuWorkerSpeedup = cpu.speedup;
  profile.cpuStageLateWorker = cpu.lateWorker;
  done();
  applyHostOverhead(profile, fitHostOverhead(measured, profile, 9, log));
  done();
  // After the overheads: the GEMM and hand-off runs' other ops must already cost what they do.
  applyGemmCalls(profile, fitGemmCalls(measured, profile, 7, log));
  done();
  profile.cpuStageHandoff = fitCpuHandoff(measured, profile, 7, log).handoff;
  done();
}

DeviceProfile fitInPipelineRepeated(Backend& measured, const DeviceProfile& profile, int repeats, const FitLog& log,
                                    const std::function<void(int, int)>& progress) {
  std::vector<DeviceProfile> fits;
  const int rounds = std::max(repeats, 1);
  int fitsDone = 0;
  for (int r = 0; r < rounds; ++r) {
    if (log && repeats > 1) log("in-pipeline fits, round " + std::to_string(r + 1) + " of " + std::to_string(repeats));
    fits.push_back(profile);
    fitInPipeline(measured, fits.back(), log, [&] {
      if (progress) progress(++fitsDone, rounds * kFitsPerRound);
    });
  }
  const DeviceProfile out = medianOfFits(fits);
  if (log && fits.size() > 1)
    log("over " + std::to_string(fits.size()) + " rounds, median (range): kernel launch " +
        range(fits, &DeviceProfile::kernelLaunchNs, 1e-3, 2) + " us, host overhead per op " +
        range(fits, &DeviceProfile::hostOpOverheadNs, 1e-3, 2) + " us and per batch " +
        range(fits, &DeviceProfile::hostBatchOverheadNs, 1e-3, 2) + " us and per held op " +
        range(fits, &DeviceProfile::hostPendingOpNs, 1, 0) + " ns, recorder flush " +
        range(fits, &DeviceProfile::recorderFlushNsPerOp, 1, 0) + " ns per op, sync return " +
        range(fits, &DeviceProfile::syncReturnNs, 1e-3, 2) + " us, light GEMM call " +
        range(fits, &DeviceProfile::lightGemmCallNs, 1e-3, 1) + " us, CPU stage " +
        range(fits, &DeviceProfile::cpuPreprocessNsPerByte, 1, 3) + " ns/B at 0 rounds");
  if (log && !out.cpuStageLateWorker.empty()) {
    std::string line = "CPU stages' late-worker factor (span over the workers' mean time, mean of rounds):";
    for (const LateWorkerPoint& l : out.cpuStageLateWorker)
      line += " " + std::to_string(l.workers) + "w=" + fmt(l.factor, 3);
    log(line);
  }
  return out;
}

DeviceProfile medianOfFits(const std::vector<DeviceProfile>& fits) {
  if (fits.empty()) throw std::invalid_argument("medianOfFits: no fits to combine");
  DeviceProfile p = fits.front();
  for (double DeviceProfile::*f :
       {&DeviceProfile::cpuNsPerOp, &DeviceProfile::cpuPreprocessNsPerOp, &DeviceProfile::cpuPostprocessNsPerOp,
        &DeviceProfile::cpuPreprocessNsPerByte, &DeviceProfile::cpuPostprocessNsPerByte,
        &DeviceProfile::hostOpOverheadNs, &DeviceProfile::hostBatchOverheadNs, &DeviceProfile::hostPendingOpNs,
        &DeviceProfile::syncReturnNs, &DeviceProfile::recorderFlushNsPerOp, &DeviceProfile::kernelLaunchNs,
        &DeviceProfile::memcpyAsyncCallNs, &DeviceProfile::eventRecordNs, &DeviceProfile::lightGemmCallNs,
        &DeviceProfile::heavyGemmCallNs})
    p.*f = medianOf(fits, f);
  p.cpuPreprocessRoundsCurve =
      averageCurve(fits, &DeviceProfile::cpuPreprocessRoundsCurve, &CpuRoundsPoint::rounds, &CpuRoundsPoint::nsPerByte);
  p.cpuPostprocessRoundsCurve = averageCurve(fits, &DeviceProfile::cpuPostprocessRoundsCurve, &CpuRoundsPoint::rounds,
                                             &CpuRoundsPoint::nsPerByte);
  p.cpuWorkerSpeedup =
      averageCurve(fits, &DeviceProfile::cpuWorkerSpeedup, &WorkerSpeedup::workers, &WorkerSpeedup::speedup);
  // The mean, not the median: a round whose runs kept a slow worker counts (the
  // factor is what stages cost on average; a median of three drops such a round).
  p.cpuStageLateWorker = averageCurve(fits, &DeviceProfile::cpuStageLateWorker, &LateWorkerPoint::workers,
                                      &LateWorkerPoint::factor, CurveAverage::Mean);
  p.cpuStageHandoff = averageCurve(fits, &DeviceProfile::cpuStageHandoff, &WorkerHandoff::workers, &WorkerHandoff::ns);
  return p;
}

}  // namespace pipescope
