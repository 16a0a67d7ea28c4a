// The calibration's measurements. Each figure is fitted to the simulator's cost
// model (StageCosts, GpuModel, Simulator), not reported raw: e.g. a blocking copy's
// host time is call cost + copy latency + bytes / bandwidth + wake-up, so the
// pageable bandwidth is what remains after the other three are subtracted.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "config/ModelWork.h"
#include "cuda/Calibration.h"
#include "cuda/CalibrationProbes.h"
#include "cuda/CpuWork.h"
#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/CuptiTracer.h"
#include "cuda/DeviceDescription.h"
#include "cuda/Kernels.h"
#include "cuda/LinkComputeCalibration.h"
#include "cuda/LinkStreamsCalibration.h"
#include "cuda/ManagedSlotsCalibration.h"
#include "cuda/ManagedWorkersCalibration.h"
#include "cuda/PrefetchAfterKernelCalibration.h"
#include "cuda/WorkerPool.h"
#include "sim/ModelKernelFit.h"
#include "sim/StageCosts.h"
#if PIPESCOPE_HAVE_NCCL
#include "cuda/multigpu/MultiGpuProbes.h"
#endif

namespace pipescope {

namespace {

using namespace pipescope::cuda;

constexpr std::size_t kKiB = 1024, kMiB = 1024 * 1024;
constexpr std::size_t kComputeBytes = 32 * kMiB;  // the validation matrix's large batch
constexpr std::size_t kMaxCopyBytes = 256 * kMiB;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string slug(const std::string& deviceName) {
  std::string out;
  for (char c : deviceName) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += char(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.rfind("nvidia-", 0) == 0) out.erase(0, 7);
  return out.empty() ? "gpu" : out;
}

std::string utcDate() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::string fmt(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

class Calibrator {
 public:
  Calibrator(const CalibrationOptions& o) : options_(o) {}

  DeviceProfile run() {
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(options_.device));
    // The backend's default sync mode; must precede the context's creation.
    const cudaError_t flags = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
    if (flags == cudaErrorSetOnActiveProcess)
      (void)cudaGetLastError();
    else
      PIPESCOPE_CUDA_CHECK(flags);
    const DeviceInfo info = describeDevice(options_.device);
    const bool hostOnly = options_.hostOnly && options_.base;
    if (hostOnly) p_ = *options_.base;  // the GPU's own figures stay the base profile's
    p_.deviceName = info.name;
    p_.name = options_.profileName.empty() ? slug(info.name) + "-calibrated" : options_.profileName;
    p_.copyEngines = std::clamp(info.copyEngines, 1, 2);
    p_.deviceMemoryBytes = info.memoryBytes;
    const char* conn = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    p_.hardwareQueues = conn && std::atoi(conn) > 0 ? std::clamp(std::atoi(conn), 1, 128) : 8;
    log("device " + info.name + ", driver " + info.driverVersion + ", runtime " + info.runtimeVersion + ", " +
        std::to_string(info.copyEngines) + " copy engines (asyncEngineCount), PCIe Gen" +
        std::to_string(info.pcieGeneration) + " x" + std::to_string(info.pcieWidth));

    // The backend traces every run with CUPTI, which slows each API call: measure with it on.
    std::string whyNot;
    if (tracer_.start(whyNot))
      log("CUPTI activity tracing on (as in the backend's runs)");
    else
      log("CUPTI unavailable (" + whyNot + "): host costs measured without it");
    stream_ = Stream::create();
    evA_ = Event::create(true);
    evB_ = Event::create(true);
    tinyIn_ = DeviceBuffer(4 * kKiB, "tiny buffer");
    tinyOut_ = DeviceBuffer(4 * kKiB, "tiny buffer");
    const std::size_t copyBytes = hostOnly ? kComputeBytes : kMaxCopyBytes;
    devA_ = DeviceBuffer(copyBytes, "copy buffer");
    devB_ = DeviceBuffer(kComputeBytes, "kernel output buffer");
    pinned_ = HostBuffer(HostMemory::Pinned, copyBytes, "pinned host buffer");
    std::memset(pinned_.host(), 1, copyBytes);
    PIPESCOPE_CUDA_CHECK(cudaMemset(devA_.get(), 0, copyBytes));
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());

    // What drifts with the host (API calls, wake-ups) or the whole device model.
    using Step = void (Calibrator::*)();
    const std::vector<Step> steps =
        hostOnly ? std::vector<Step>{&Calibrator::hostApiCosts, &Calibrator::syncCosts, &Calibrator::blockingCopyCall,
                                     &Calibrator::callAfterCpuStage}
                 : std::vector<Step>{&Calibrator::hostApiCosts,     &Calibrator::kernelRates,
                                     &Calibrator::pinnedCopies,     &Calibrator::syncCosts,
                                     &Calibrator::streamDependency, &Calibrator::blockingCopyCall,
                                     &Calibrator::copiesHostWaitsFor,
                                     &Calibrator::bidirectional,
                                     &Calibrator::mappedAndManaged, &Calibrator::gemm,
                                     &Calibrator::cpuWork,          &Calibrator::callAfterCpuStage,
                                     &Calibrator::syncModeWakes,
                                     &Calibrator::severalGpus};
    if (hostOnly) tinyPeriodNs_ = p_.kernelGapNs + p_.kernelFixedNs;  // kernelRates' figure, from the base
    for (std::size_t i = 0; i < steps.size(); ++i) {
      (this->*steps[i])();
      if (options_.progress) options_.progress(int(i + 1), int(steps.size()));
    }

    p_.description = "measured by pipescope-cli calibrate on " + info.name;
    p_.source = "calibrated on " + info.name + ", driver " + info.driverVersion + ", CUDA runtime " +
                info.runtimeVersion + ", " + utcDate() + " (pipescope-cli calibrate)";
    if (hostOnly) {
      p_.description = "host costs measured on " + info.name + "'s host on top of '" + options_.base->name + "'";
      p_.source += "; host API costs and wake-ups only, the GPU's figures from '" + options_.base->name + "'";
      p_.validation.reset();  // a judgement of the base, not of this profile
    }
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    if (tracer_.active()) tracer_.stop();
    return p_;
  }

 private:
  void log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }
  cudaStream_t st() const { return stream_.get(); }

  double elapsedNs() const {
    float ms = 0;
    PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(evB_.get()));
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, evA_.get(), evB_.get()));
    return double(ms) * 1e6;
  }

  void launchTiny() {
    Correlated c(tracer_, ++nextId_);
    PIPESCOPE_CUDA_CHECK(
        launchModel(static_cast<const float*>(tinyIn_.get()), 1, static_cast<float*>(tinyOut_.get()), 1, 0, st()));
  }

  /// Engine time per op of `n` back-to-back ops issued by `issue`, from events.
  double gpuPeriodNs(int n, const std::function<void()>& issue) {
    issue();  // warm-up (module load, first-touch)
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(evA_.get(), st()));
    for (int i = 0; i < n; ++i) issue();
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(evB_.get(), st()));
    return elapsedNs() / n;
  }

  /// Host time per call of `n` calls, median over rounds, the stream drained between rounds.
  double hostPerCallNs(int rounds, int n, const std::function<void()>& call) {
    std::vector<double> per;
    for (int r = 0; r < rounds; ++r) {
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
      const std::int64_t a = steadyNowNs();
      for (int i = 0; i < n; ++i) call();
      const std::int64_t b = steadyNowNs();
      per.push_back(double(b - a) / n);
    }
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
    return median(per);
  }

  void hostApiCosts() {
    launchTiny();
    p_.kernelLaunchNs = hostPerCallNs(7, 100, [&] { launchTiny(); });
    p_.eventRecordNs = hostPerCallNs(7, 100, [&] { PIPESCOPE_CUDA_CHECK(cudaEventRecord(evA_.get(), st())); });
    p_.memcpyAsyncCallNs = hostPerCallNs(7, 50, [&] {
      Correlated c(tracer_, ++nextId_);
      PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(devA_.get(), pinned_.host(), 4 * kKiB, cudaMemcpyHostToDevice, st()));
    });
    log("host API: kernel launch " + fmt(p_.kernelLaunchNs) + " ns, cudaEventRecord " + fmt(p_.eventRecordNs) +
        " ns, cudaMemcpyAsync call " + fmt(p_.memcpyAsyncCallNs) + " ns");
  }

  void kernelRates() {
    const std::size_t n = kComputeBytes / sizeof(float);
    auto* in = static_cast<float*>(devA_.get());
    auto* out = static_cast<float*>(devB_.get());
    // Kernel gap: tiny kernels queued behind a long one run back to back on the GPU.
    const std::uint32_t longFmas = modelFmasPerElement(3200);
    PIPESCOPE_CUDA_CHECK(launchModel(in, n, out, n, longFmas, st()));
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
    PIPESCOPE_CUDA_CHECK(launchModel(in, n, out, n, longFmas, st()));
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(evA_.get(), st()));
    constexpr int kTiny = 100;
    for (int i = 0; i < kTiny; ++i) launchTiny();
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(evB_.get(), st()));
    tinyPeriodNs_ = elapsedNs() / kTiny;
    p_.kernelGapNs = tinyPeriodNs_;  // until kernelFixedCost() splits it
    log("back-to-back tiny kernels: " + fmt(tinyPeriodNs_) + " ns apart");

    constexpr double kBalanced = 1050.0;  // the validation's balanced workload and the default
    // From 20 to 3200 flop/B, the span of the validation's random sets: the kernel's
    // loads add to its FLOP time (100 flop/B ran 1.4x what its FLOP rate says on an
    // H200), so both rates are fitted over all four.
    std::vector<ModelKernelSample> samples;
    for (double fpb : {20.0, 100.0, kBalanced, 3200.0}) {
      const std::uint32_t fmas = modelFmasPerElement(fpb);
      const double period = gpuPeriodNs(10, [&] { PIPESCOPE_CUDA_CHECK(launchModel(in, n, out, n, fmas, st())); });
      const double solo = std::max(1.0, period - tinyPeriodNs_);
      const double flops = double(n) * 2.0 * fmas;
      samples.push_back({flops, 2.0 * double(kComputeBytes), solo});
      log("model kernel " + fmt(fpb, 0) + " flop/B on 32 MiB: " + fmt(solo / 1e3, 2) + " us = " +
          fmt(flops / solo, 0) + " GFLOP/s");
    }
    const ModelKernelRates rates = fitModelKernelRates(samples);
    p_.modelGflops = rates.gflops;
    p_.modelMemoryGBps = rates.memoryGBps;
    log("model kernel fit: " + fmt(rates.gflops, 0) + " GFLOP/s plus its bytes (read + written) at " +
        fmt(rates.memoryGBps, 0) + " GB/s, worst miss " + fmt(100.0 * rates.worstRelativeError, 1) + " %");
    modelKernelByBlocks(in, out);
    // Small batches: fewer threads than the GPU holds, so a lower rate (logged only).
    for (std::size_t bytes : {1 * kMiB, 4 * kMiB}) {
      const std::size_t m = bytes / sizeof(float);
      const std::uint32_t fmas = modelFmasPerElement(kBalanced);
      const double period = gpuPeriodNs(20, [&] { PIPESCOPE_CUDA_CHECK(launchModel(in, m, out, m, fmas, st())); });
      const double solo = std::max(1.0, period - tinyPeriodNs_);
      log("model kernel " + fmt(kBalanced, 0) + " flop/B on " + std::to_string(bytes / kMiB) +
          " MiB: " + fmt(solo / 1e3, 2) + " us = " + fmt(double(bytes) * kBalanced / solo, 0) + " GFLOP/s");
    }
    const double period = gpuPeriodNs(10, [&] { PIPESCOPE_CUDA_CHECK(launchNormalize(in, in, n, st())); });
    p_.deviceMemoryGBps = 2.0 * double(kComputeBytes) / std::max(1.0, period - tinyPeriodNs_);
    log("normalize kernel on 32 MiB: " + fmt(period / 1e3, 2) + " us per launch, " + fmt(p_.deviceMemoryGBps, 0) +
        " GB/s read+write");
    kernelFixedCost();
  }

  /// Grids of fewer blocks than the full one (batches under 4.3 MB): one element per
  /// thread, and a grid just past a whole number of resident waves runs its last wave
  /// nearly as long as a full one (H200 traces: 1 174 blocks 1.42x the rate's time,
  /// 2 112 blocks 1.03x). Every 132 blocks up to the full grid, at 3200 flop/B where
  /// the FLOP time is nearly all of it: the time over what the two rates give.
  void modelKernelByBlocks(const float* in, float* out) {
    constexpr double kFlopsPerByte = 3200.0;
    const std::uint32_t fmas = modelFmasPerElement(kFlopsPerByte);
    std::string line = "model kernel at 3200 flop/B by blocks (one float a thread), its time over its rates':";
    p_.modelKernelBlocksCurve.clear();
    for (std::uint64_t blocks = 132; blocks <= kModelKernelMaxBlocks; blocks += 132) {
      const std::size_t m = std::size_t(blocks * kModelKernelThreads);
      const double period = gpuPeriodNs(10, [&] { PIPESCOPE_CUDA_CHECK(launchModel(in, m, out, m, fmas, st())); });
      const double solo = std::max(1.0, period - tinyPeriodNs_);
      // The simulator's form for this kernel (sim/StageCosts.h), solved for its factor.
      const std::uint64_t bytes = m * sizeof(float);
      const ModelKernelParts parts = modelKernelParts(p_, bytes, bytes, kFlopsPerByte);
      const double factor = std::max(0.05, modelKernelFlopShareNs(parts, solo) / parts.flopNs);
      p_.modelKernelBlocksCurve.push_back({int(blocks), factor});
      line += " " + std::to_string(blocks) + "=" + fmt(factor, 2);
    }
    log(line);
  }

  /// A kernel costs more than its rate says: a 1 MiB normalize runs ~1.8 us on an
  /// H100 where bandwidth alone gives 0.55. Back-to-back periods cannot tell that
  /// fixed part from the gap between kernels, CUPTI's kernel durations can: the
  /// fixed part is the 1 MiB normalize's duration beyond its bandwidth time, and
  /// the gap what remains of the tiny kernels' period. Without CUPTI the whole
  /// period stays a gap, as before.
  void kernelFixedCost() {
    if (!tracer_.active()) return;
    auto* in = static_cast<float*>(devA_.get());
    const std::size_t n = kMiB / sizeof(float);
    std::vector<std::uint64_t> ids;
    for (int i = 0; i < 30; ++i) {
      ids.push_back(++nextId_);
      Correlated c(tracer_, ids.back());
      PIPESCOPE_CUDA_CHECK(launchNormalize(in, in, n, st()));
    }
    PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
    const std::vector<double> durations = cuptiDurations(ids);
    if (durations.size() < ids.size() / 2) {
      log("kernel fixed cost: CUPTI delivered " + std::to_string(durations.size()) + " of " +
          std::to_string(ids.size()) + " kernel records; left at 0");
      return;
    }
    const double rateNs = 2.0 * double(kMiB) / p_.deviceMemoryGBps;
    p_.kernelFixedNs = std::clamp(median(durations) - rateNs, 0.0, tinyPeriodNs_);
    p_.kernelGapNs = tinyPeriodNs_ - p_.kernelFixedNs;
    log("kernel fixed cost: 1 MiB normalize runs " + fmt(median(durations)) + " ns (CUPTI), bandwidth alone " +
        fmt(rateNs) + " ns -> fixed " + fmt(p_.kernelFixedNs) + " ns, gap between kernels " + fmt(p_.kernelGapNs) +
        " ns");
  }

  /// CUPTI's GPU durations of the ops issued under `ids` (those delivered).
  std::vector<double> cuptiDurations(const std::vector<std::uint64_t>& ids) {
    tracer_.flush(true);
    std::unordered_map<std::uint64_t, GpuInterval> intervals;
    tracer_.collect(intervals, ids.empty() ? 0 : ids.front());
    std::vector<double> out;
    for (std::uint64_t id : ids) {
      auto it = intervals.find(intervalKey(id, std::uint32_t(options_.device)));
      if (it != intervals.end() && it->second.end > it->second.start)
        out.push_back(double(it->second.end - it->second.start));
    }
    return out;
  }

  /// Stream dependency latency: an op on another engine starts only some
  /// microseconds after its predecessor in the stream ends. Fitted as the
  /// simulator sees it: back-to-back [H2D 4 KiB, tiny kernel, D2H 4 KiB] triples
  /// take the two copies' own periods, the kernel's fixed cost and three
  /// dependencies (the next triple's H2D waits on this D2H).
  void streamDependency() {
    auto h2d = [&] {
      PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(devA_.get(), pinned_.host(), 4 * kKiB, cudaMemcpyHostToDevice, st()));
    };
    auto d2h = [&] {
      PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(pinned_.host(), devA_.get(), 4 * kKiB, cudaMemcpyDeviceToHost, st()));
    };
    const double h2dPeriod = gpuPeriodNs(50, h2d);
    const double d2hPeriod = gpuPeriodNs(50, d2h);
    const double triple = gpuPeriodNs(50, [&] {
      h2d();
      launchTiny();
      d2h();
    });
    p_.streamDependencyNs = std::max(0.0, (triple - h2dPeriod - d2hPeriod - p_.kernelFixedNs) / 3.0);
    log("stream dependency: H2D+kernel+D2H 4 KiB triples " + fmt(triple) + " ns apart, copies alone " + fmt(h2dPeriod) +
        " + " + fmt(d2hPeriod) + " ns -> " + fmt(p_.streamDependencyNs) + " ns per dependency");
  }

  double copyPeriodNs(std::size_t bytes, bool h2d) {
    const int reps = int(std::clamp<std::size_t>((1024 * kMiB) / bytes, 4, 200));
    return gpuPeriodNs(reps, [&] {
      if (h2d)
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(devA_.get(), pinned_.host(), bytes, cudaMemcpyHostToDevice, st()));
      else
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(pinned_.host(), devA_.get(), bytes, cudaMemcpyDeviceToHost, st()));
    });
  }

  /// A small copy's rate is its bytes over its time minus the fixed latency, a small
  /// difference of two larger numbers: one calibration gave 252 GB/s for a 64 KiB
  /// pinned D2H. No copy moves bytes faster than the link, measured by the largest
  /// pinned copy; a point above it is capped there (and logged).
  void capAtLink(std::vector<BandwidthPoint>& curve, double linkGBps, const std::string& what) {
    if (linkGBps <= 0) return;
    for (BandwidthPoint& pt : curve) {
      if (pt.gbps <= linkGBps * 1.05) continue;
      log(what + ": " + std::to_string(pt.bytes / kKiB) + "K measured " + fmt(pt.gbps, 2) +
          " GB/s, above the link; capped at " + fmt(linkGBps, 2));
      pt.gbps = linkGBps;
    }
  }

  /// Peer copies and NCCL's all-reduce when the machine has several GPUs.
  void severalGpus() {
    int count = 0;
    PIPESCOPE_CUDA_CHECK(cudaGetDeviceCount(&count));
    const int n = options_.gpus > 0 ? options_.gpus : count;
    if (n > count)
      throw std::runtime_error("the multi-GPU probes were asked for " + std::to_string(n) +
                               " GPUs but this machine has " + std::to_string(count));
    if (n < 2) {
      log("multi-GPU probes: skipped (" + std::string(count < 2 ? "one GPU on this machine" : "asked for one GPU") +
          ")");
      return;
    }
#if PIPESCOPE_HAVE_NCCL
    std::vector<int> devices{options_.device};
    for (int d = 0; d < count && int(devices.size()) < n; ++d)
      if (d != options_.device) devices.push_back(d);
    const PeerCopyCalibration peer = calibratePeerCopies(devices[0], devices[1], options_.quick, options_.log);
    p_.peerAccess = peer.peerAccess;
    p_.peerLinkName = peer.linkName;
    p_.peerLatencyNs = peer.latencyNs;
    p_.peerCopyCurve = peer.oneWay;
    if (!peer.oneWay.empty()) p_.peerGBps = peer.oneWay.back().gbps;
    if (!peer.bothWays.empty()) p_.peerBidirectionalGBps = peer.bothWays.back().gbps;
    const AllReduceCalibration ar = calibrateAllReduce(devices, options_.quick, options_.log);
    p_.allreduceCurveGpus = int(devices.size());
    p_.allreduceBusCurve.clear();
    for (const AllReducePoint& pt : ar.curve) p_.allreduceBusCurve.push_back({pt.bytes, pt.busGBps});
    if (!ar.curve.empty()) p_.allreduceBusGBps = ar.curve.back().busGBps;
    // Per-step latency of the ring model: what the smallest all-reduce takes beyond its
    // bytes at the largest one's bus bandwidth, over its 2(n-1) steps.
    if (!ar.curve.empty() && p_.allreduceBusGBps > 0) {
      const double share = 2.0 * double(n - 1) / double(n);
      const AllReducePoint& small = ar.curve.front();
      const double bandwidthNs = share * double(small.bytes) / p_.allreduceBusGBps;
      p_.allreduceStepLatencyNs = std::max(0.0, small.ns - bandwidthNs) / (2.0 * double(n - 1));
    }
    p_.collectiveSmShare = ar.smShare;
    p_.collectiveYieldShare = ar.yieldShare;
    p_.allreduceCallNs = ar.groupCallNs;
    const HostLinksCalibration links = calibrateHostLinks(devices, options_.quick, options_.log);
    p_.hostLinksGBps = links.togetherGBps;
    p_.hostLinksH2dGBps = links.h2dGBps;
    p_.hostLinksD2hGBps = links.d2hGBps;
    // What several GPUs add to a copy call issued after one of another kind; one GPU's share
    // is already in the in-pipeline host overhead fitted on the first GPU.
    const CallSwitchCalibration sw = calibrateCallSwitch(devices, 8, options_.quick, options_.log);
    p_.multiGpuCopySwitchNs = std::max(0.0, sw.severalGpusNs - sw.oneGpuNs);
    p_.multiGpuSource = "calibrated on " + std::to_string(n) + " x " + p_.deviceName + " (" + peer.linkName +
                        ", NCCL " + ar.ncclVersion + "), " + utcDate();
    log("multi-GPU: peer " + fmt(p_.peerGBps, 1) + " GB/s one way (" + fmt(p_.peerBidirectionalGBps, 1) +
        " each way at once), latency " + fmt(p_.peerLatencyNs) + " ns; all-reduce over " + std::to_string(n) +
        " GPUs (NCCL " + ar.ncclVersion + ") " + fmt(p_.allreduceBusGBps, 1) + " GB/s bus bandwidth, " +
        fmt(p_.allreduceStepLatencyNs) + " ns per ring step, kernels beside it lose " +
        fmt(100 * p_.collectiveSmShare, 1) + "% of their speed (yield share " + fmt(p_.collectiveYieldShare, 2) +
        ": the part NCCL pays when a kernel holds the SMs first), a group call costs the host " +
        fmt(p_.allreduceCallNs / 1e3, 1) + " us; host links of all GPUs together " + fmt(p_.hostLinksH2dGBps, 1) +
        " GB/s H2D, " + fmt(p_.hostLinksD2hGBps, 1) + " D2H, " + fmt(p_.hostLinksGBps, 1) +
        " both ways; a copy call after a call of another kind costs " + fmt(p_.multiGpuCopySwitchNs / 1e3, 2) +
        " us more than on one GPU");
    PIPESCOPE_CUDA_CHECK(cudaSetDevice(options_.device));
#else
    log("multi-GPU probes: skipped (this build has no NCCL; " + std::to_string(count) + " GPUs present)");
#endif
  }

  std::vector<std::size_t> curveSizes() const {
    std::vector<std::size_t> s;
    const std::size_t largest = options_.quick ? 16 * kMiB : kMaxCopyBytes;
    for (std::size_t b = 64 * kKiB; b <= largest; b *= 4) s.push_back(b);
    return s;
  }

  void pinnedCopies() {
    // Fixed per-copy engine cost: what a 4 KiB copy takes beyond its bytes at full speed.
    const double peakH2D = double(kMaxCopyBytes) / copyPeriodNs(kMaxCopyBytes, true);
    const double small = copyPeriodNs(4 * kKiB, true);
    p_.copyLatencyNs = std::max(0.0, small - 4.0 * kKiB / peakH2D);
    log("copy latency (4 KiB pinned H2D " + fmt(small) + " ns): " + fmt(p_.copyLatencyNs) + " ns");
    for (bool h2d : {true, false}) {
      auto& curve = h2d ? p_.h2dPinnedCurve : p_.d2hPinnedCurve;
      curve.clear();
      std::string line = h2d ? "H2D pinned GB/s:" : "D2H pinned GB/s:";
      for (std::size_t b : curveSizes()) {
        const double t = copyPeriodNs(b, h2d);
        const double gbps = double(b) / std::max(t - p_.copyLatencyNs, t * 0.05);
        curve.push_back({b, gbps});
        line.append(" ").append(std::to_string(b / kKiB)).append("K=").append(fmt(gbps, 2));
      }
      (h2d ? p_.h2dPinnedGBps : p_.d2hPinnedGBps) = curve.back().gbps;
      log(line);
      capAtLink(curve, curve.back().gbps, h2d ? "H2D pinned" : "D2H pinned");
    }
  }

  /// Host time of one blocking cudaMemcpy, median of `reps`.
  double blockingCopyNs(void* host, std::size_t bytes, bool h2d, int reps) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      Correlated c(tracer_, ++nextId_);
      const std::int64_t a = steadyNowNs();
      if (h2d)
        PIPESCOPE_CUDA_CHECK(cudaMemcpy(devA_.get(), host, bytes, cudaMemcpyHostToDevice));
      else
        PIPESCOPE_CUDA_CHECK(cudaMemcpy(host, devA_.get(), bytes, cudaMemcpyDeviceToHost));
      t.push_back(double(steadyNowNs() - a));
    }
    return median(t);
  }

  /// The wake-up of the device's current sync mode: the median host round trip of a
  /// tiny kernel's launch + cudaStreamSynchronize (50 of them) beyond the launch call
  /// and the kernel itself, which the simulator runs for kernelFixedNs (the GPU's own
  /// launch latency is part of the wake-up); >= 0.
  double roundTripWakeNs() {
    std::vector<double> rt;
    for (int i = 0; i < 50; ++i) {
      const std::int64_t a = steadyNowNs();
      launchTiny();
      PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
      rt.push_back(double(steadyNowNs() - a));
    }
    return std::max(0.0, median(rt) - p_.kernelLaunchNs - p_.kernelFixedNs);
  }

  void syncCosts() {
    // Wake-up of the backend's blocking sync.
    p_.syncWakeNs = roundTripWakeNs();
    sleepWake();
    // Blocking cudaMemcpy: call cost beyond the copy and the wake-up.
    const double t4k = blockingCopyNs(pinned_.host(), 4 * kKiB, true, 50);
    const double copy4k = p_.copyLatencyNs + 4.0 * kKiB / p_.h2dPinnedCurve.front().gbps;
    blocking4kNs_ = t4k;
    // A copy this short wakes the thread quickly, unless the driver put it to sleep in
    // the call at once (an H100 host: 63 us against a 29 us kernel round trip): when
    // the copy took longer than the slow wake-up, it slept, and the call is the rest.
    p_.memcpySyncSleeps = p_.syncSleepWakeNs > 0 && t4k - copy4k > p_.syncSleepWakeNs;
    const double wake = p_.memcpySyncSleeps ? p_.syncSleepWakeNs : p_.syncWakeNs;
    p_.memcpySyncCallNs = std::max(0.0, t4k - copy4k - wake);
    log("sync: launch+sync round trip " + fmt(p_.syncWakeNs + p_.kernelLaunchNs + p_.kernelFixedNs) +
        " ns -> wake-up " + fmt(p_.syncWakeNs) +
        " ns; blocking 4 KiB cudaMemcpy " + fmt(t4k) + " ns -> call cost " + fmt(p_.memcpySyncCallNs) + " ns" +
        (p_.memcpySyncSleeps ? " (the thread slept in it: its wake-up is the slow one)" : ""));
    // The same to pageable memory: its staging path may sleep where the pinned one
    // does not (a 2 x H200 host: 54 vs 28 us). Beyond the call, the copy and the slow
    // wake-up it slept (the staging of 4 KiB takes a few microseconds at most). Timed
    // on a copy to the host: a pageable copy to the device returns once staged, so
    // only the other direction waits (the simulator applies this to it alone).
    HostBuffer pageable(HostMemory::Pageable, 4 * kKiB, "pageable host buffer");
    std::memset(pageable.host(), 1, 4 * kKiB);
    blockingCopyNs(pageable.host(), 4 * kKiB, false, 1);  // first touch of the staging path
    const double p4k = blockingCopyNs(pageable.host(), 4 * kKiB, false, 50);
    const double d2hGBps = p_.d2hPinnedCurve.empty() ? p_.d2hPinnedGBps : p_.d2hPinnedCurve.front().gbps;
    const double copyOut4k = p_.copyLatencyNs + 4.0 * kKiB / d2hGBps;
    p_.pageableMemcpySyncSleeps = p_.memcpySyncSleeps || (p_.syncSleepWakeNs > 0 &&
                                                          p4k - p_.memcpySyncCallNs - copyOut4k > p_.syncSleepWakeNs);
    log("blocking 4 KiB cudaMemcpy to pageable memory " + fmt(p4k) + " ns" +
        (p_.pageableMemcpySyncSleeps ? " (the thread slept in it: its wake-up is the slow one)" : ""));
  }

  /// A blocking sync that waits long enough for the thread to sleep wakes up more
  /// slowly than the tiny-kernel round trip above (38 vs 18 us on an H100): a
  /// ladder of kernels from 5 to 320 us finds the slow wake-up and the wait beyond
  /// which it applies.
  void sleepWake() {
    auto* in = static_cast<float*>(devA_.get());
    auto* out = static_cast<float*>(devB_.get());
    const std::uint32_t fmas = modelFmasPerElement(1050);
    struct Step {
      double kernelNs, wakeNs;
    };
    std::vector<Step> steps;
    std::string line = "sync wake-up after a kernel of";
    for (double targetUs : {5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0}) {
      const double flops = targetUs * 1e3 * p_.modelGflops;
      const auto n = std::clamp<std::size_t>(std::size_t(flops / (2.0 * fmas)), 1, kComputeBytes / sizeof(float));
      auto launch = [&] { PIPESCOPE_CUDA_CHECK(launchModel(in, n, out, n, fmas, st())); };
      const double kernelNs = p_.kernelFixedNs + std::max(0.0, gpuPeriodNs(10, launch) - tinyPeriodNs_);
      std::vector<double> rt;
      for (int i = 0; i < 30; ++i) {
        PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
        const std::int64_t a = steadyNowNs();
        launch();
        PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
        rt.push_back(double(steadyNowNs() - a));
      }
      steps.push_back({kernelNs, std::max(0.0, median(rt) - p_.kernelLaunchNs - kernelNs)});
      line.append(" ").append(fmt(kernelNs / 1e3, 0)).append("us=").append(fmt(steps.back().wakeNs / 1e3, 1));
    }
    // The slow wake-up: the median of the three longest waits. It applies beyond the
    // longest wait still closer to the fast one (midway between the two steps).
    std::vector<double> longWakes;
    for (std::size_t i = steps.size() - 3; i < steps.size(); ++i) longWakes.push_back(steps[i].wakeNs);
    const double slow = median(longWakes);
    p_.syncSleepWakeNs = 0;
    p_.syncSleepAfterNs = 0;
    if (slow > p_.syncWakeNs + 3000) {  // below 3 us the two are one wake-up, within noise
      p_.syncSleepWakeNs = slow;
      double after = 0;
      for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].wakeNs < 0.5 * (p_.syncWakeNs + slow))
          after = i + 1 < steps.size() ? 0.5 * (steps[i].kernelNs + steps[i + 1].kernelNs) : steps[i].kernelNs;
      p_.syncSleepAfterNs = after;
    }
    log(line + " -> slow wake-up " + fmt(p_.syncSleepWakeNs) + " ns beyond a " + fmt(p_.syncSleepAfterNs) +
        " ns wait (0 = one wake-up for all)");
  }

  /// The copies whose host call waits for the DMA (blocking cudaMemcpy, pageable
  /// cudaMemcpyAsync) are timed with the spin sync: its wake-up is a few microseconds
  /// and steady, where the blocking sync's climbs a staircase (15, 35, 55-105 us on
  /// H200 hosts) whose steps moved between two calibrations minutes apart (the slow
  /// wake-up beyond a 124 vs a 12 us wait), so a 64 KiB copy's 42 us came out at 2.2 or
  /// 31 GB/s by which wake-up came off. The simulator adds each sync mode's own wake-up
  /// after the copy. Where the driver refuses the flag, the blocking sync's rule stays.
  void copiesHostWaitsFor() {
    if (enterSpinSync("copies"))
      log("copies the host waits for timed with the spin sync: its wake-up " + fmt(spinWakeNs_) + " ns comes off");
    pinnedBlockingCopies();
    pageableCopies();
    pageableStaging();
    leaveSpinSync();
  }

  /// A blocking cudaMemcpy's call cost, from a 4 KiB copy timed with the spin sync (the
  /// same reason as above: with the blocking sync's 18-25 us wake-up taken off, the call
  /// came out at 0.0-6.7 us on H200 hosts, where their traces show 7-17 us from the call
  /// to its DMA). The blocking sync's wake-up after that copy (syncCosts' time less the
  /// call and the copy) is logged beside it: the simulator wakes a blocking copy as it
  /// wakes any wait (a curve of it by copy size judged no better on an unseen set).
  void blockingCopyCall() {
    if (!enterSpinSync("the blocking cudaMemcpy call")) return;  // syncCosts' figure stays
    const double t4k = blockingCopyNs(pinned_.host(), 4 * kKiB, true, 50);
    leaveSpinSync();
    const double copy4k = p_.copyLatencyNs + 4.0 * kKiB / p_.h2dPinnedCurve.front().gbps;
    p_.memcpySyncCallNs = std::max(0.0, t4k - copy4k - spinWakeNs_);
    log("blocking 4 KiB cudaMemcpy with the spin sync " + fmt(t4k) + " ns -> call cost " + fmt(p_.memcpySyncCallNs) +
        " ns; with the blocking sync " + fmt(blocking4kNs_) + " ns -> wake-up after the copy " +
        fmt(std::max(0.0, blocking4kNs_ - copy4k - p_.memcpySyncCallNs)) + " ns");
  }

  /// Sets the spin sync and measures its wake-up (spinWakeNs_); false, with the
  /// blocking sync kept and a log line, where the driver refuses the flag.
  bool enterSpinSync(const char* what) {
    const cudaError_t err = cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceMapHost);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      log(std::string(what) + " timed with the blocking sync: the spin sync is not settable (" +
          cudaGetErrorName(err) + ")");
      return false;
    }
    spinWakeNs_ = roundTripWakeNs();
    spinSyncSet_ = true;
    return true;
  }

  /// Back to the backend's blocking sync.
  void leaveSpinSync() {
    if (!spinSyncSet_) return;
    PIPESCOPE_CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
    spinSyncSet_ = false;
  }

  /// The wake-up after a wait of `waitedNs` for a DMA in copiesHostWaitsFor.
  double dmaWakeNs(double waitedNs) const {
    return spinSyncSet_ ? spinWakeNs_ : blockingSyncWakeNs(p_, waitedNs);
  }

  /// What the simulator adds after a blocking copy whose host call took `callNs`, under
  /// the sync set now.
  double copyWakeNs(double callNs, bool pageable = false) const {
    if (spinSyncSet_) return spinWakeNs_;
    if (p_.memcpySyncSleeps || (pageable && p_.pageableMemcpySyncSleeps))
      return p_.syncSleepWakeNs;  // as the simulator charges it
    return blockingSyncWakeNs(p_, callNs - p_.memcpySyncCallNs - p_.syncWakeNs);
  }

  /// Blocking cudaMemcpy from pinned memory: slower than the async copies on an H200
  /// (docs/reference-figures.md: 38 vs 48 GB/s at 1 MiB), which the blocking rows of the validation need.
  void pinnedBlockingCopies() {
    for (bool h2d : {true, false}) {
      auto& curve = h2d ? p_.h2dPinnedBlockingCurve : p_.d2hPinnedBlockingCurve;
      curve.clear();
      std::string line = h2d ? "H2D pinned blocking cudaMemcpy GB/s:" : "D2H pinned blocking cudaMemcpy GB/s:";
      for (std::size_t b : curveSizes()) {
        const int reps = int(std::clamp<std::size_t>((512 * kMiB) / b, 5, 40));
        const double gbps = blockingCopyGBps(b, blockingCopyNs(pinned_.host(), b, h2d, reps));
        curve.push_back({b, gbps});
        line.append(" ").append(std::to_string(b / kKiB)).append("K=").append(fmt(gbps, 2));
      }
      log(line);
      capAtLink(curve, h2d ? p_.h2dPinnedGBps : p_.d2hPinnedGBps, h2d ? "H2D pinned blocking" : "D2H pinned blocking");
    }
  }

  void pageableCopies() {
    HostBuffer pageable(HostMemory::Pageable, kMaxCopyBytes, "pageable host buffer");
    std::memset(pageable.host(), 1, kMaxCopyBytes);
    // Two curves per direction: copies of the same buffer again and again (a blocking
    // pipeline's one host slot) and copies walking through the buffer, each of bytes
    // not copied for a long time (a pipeline rotating over its host slots): 7-9 vs
    // 13-15 GB/s at 1-4 MiB on an H200 host (docs/fidelity.md).
    std::size_t cursor = 0;  // the rotating copies walk the buffer: a byte comes back 192+ MiB later
    for (bool h2d : {true, false}) {
      auto& curve = h2d ? p_.h2dPageableCurve : p_.d2hPageableCurve;
      auto& rotating = h2d ? p_.h2dPageableRotatingCurve : p_.d2hPageableRotatingCurve;
      curve.clear();
      rotating.clear();
      std::string line = h2d ? "H2D pageable GB/s, same buffer:" : "D2H pageable GB/s, same buffer:";
      std::string rotatingLine = h2d ? "H2D pageable GB/s, rotating:" : "D2H pageable GB/s, rotating:";
      for (std::size_t b : curveSizes()) {
        const int reps = int(std::clamp<std::size_t>((256 * kMiB) / b, 3, 40));
        blockingCopyNs(pageable.host(), b, h2d, 1);  // first touch of the staging path
        const double gbps = blockingCopyGBps(b, blockingCopyNs(pageable.host(), b, h2d, reps), true, h2d);
        curve.push_back({b, gbps});
        line.append(" ").append(std::to_string(b / kKiB)).append("K=").append(fmt(gbps, 2));
        std::vector<double> t;
        for (int r = 0; r < reps; ++r) {
          if (cursor + b > kMaxCopyBytes) cursor = 0;
          t.push_back(blockingCopyNs(static_cast<char*>(pageable.host()) + cursor, b, h2d, 1));
          cursor += b;
        }
        const double rotatingGBps = blockingCopyGBps(b, median(t), true, h2d);
        rotating.push_back({b, rotatingGBps});
        rotatingLine.append(" ").append(std::to_string(b / kKiB)).append("K=").append(fmt(rotatingGBps, 2));
      }
      log(line);
      log(rotatingLine);
      capAtLink(curve, h2d ? p_.h2dPinnedGBps : p_.d2hPinnedGBps, h2d ? "H2D pageable" : "D2H pageable");
      capAtLink(rotating, h2d ? p_.h2dPinnedGBps : p_.d2hPinnedGBps,
                h2d ? "H2D pageable rotating" : "D2H pageable rotating");
      (h2d ? p_.h2dPageableGBps : p_.d2hPageableGBps) = curve.back().gbps;
    }
  }

  /// cudaMemcpyAsync with pageable memory: the call itself copies the bytes through the
  /// driver's pinned staging buffer (H2D: then starts the DMA and returns; D2H: waits
  /// for the DMA, then copies out). Its host time beyond the call's own cost (and, D2H,
  /// the pinned-rate DMA it waits for) is the staging memcpy. Timed on an idle stream,
  /// walking a buffer as an async pipeline's host slots do.
  void pageableStaging() {
    HostBuffer pageable(HostMemory::Pageable, kMaxCopyBytes, "pageable host buffer");
    std::memset(pageable.host(), 1, kMaxCopyBytes);
    std::size_t cursor = 0;
    for (bool h2d : {true, false}) {
      auto& curve = h2d ? p_.h2dPageableStagingCurve : p_.d2hPageableStagingCurve;
      curve.clear();
      std::string line = h2d ? "H2D pageable staging GB/s (inside cudaMemcpyAsync):"
                             : "D2H pageable staging GB/s (inside cudaMemcpyAsync):";
      // From 4 KiB: a small D2H call spends a fixed ~15 us after its DMA (H200 traces),
      // which only small points show.
      std::vector<std::size_t> sizes{4 * kKiB, 16 * kKiB};
      for (std::size_t b : curveSizes()) sizes.push_back(b);
      for (std::size_t b : sizes) {
        const int reps = int(std::clamp<std::size_t>((256 * kMiB) / b, 3, 40));
        std::vector<double> t;
        for (int r = 0; r <= reps; ++r) {  // the first: first touch of the staging path
          if (cursor + b > kMaxCopyBytes) cursor = 0;
          char* host = static_cast<char*>(pageable.host()) + cursor;
          cursor += b;
          PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
          Correlated c(tracer_, ++nextId_);
          const std::int64_t a = steadyNowNs();
          if (h2d)
            PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(devA_.get(), host, b, cudaMemcpyHostToDevice, st()));
          else
            PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(host, devA_.get(), b, cudaMemcpyDeviceToHost, st()));
          const double ns = double(steadyNowNs() - a);
          if (r > 0) t.push_back(ns);
        }
        PIPESCOPE_CUDA_CHECK(cudaStreamSynchronize(st()));
        const double callNs = median(t);
        // D2H: the call waits for its DMA, waking up as a sync does (the simulator adds
        // the same wake-up after such a wait).
        const double dmaNs = h2d ? 0.0 : copySoloNs(p_, {.dir = CopyDirection::D2H}, b);
        const double wakeNs = h2d ? 0.0 : dmaWakeNs(dmaNs);
        const double stagingNs = std::max(callNs - p_.memcpyAsyncCallNs - dmaNs - wakeNs, callNs * 0.05);
        const double gbps = double(b) / stagingNs;
        curve.push_back({b, gbps});
        line.append(" ").append(std::to_string(b / kKiB)).append("K=").append(fmt(gbps, 2));
      }
      log(line);
    }
  }

  /// A blocking cudaMemcpy's rate from its host time: the call, latency and the wake-up
  /// the simulator adds after a wait that long come off. A pageable H2D copy waits for
  /// no DMA (the call returns once the bytes are staged, and the simulator charges no
  /// wake-up after it), so no wake-up comes off its time.
  double blockingCopyGBps(std::size_t bytes, double ns, bool pageable = false, bool h2d = false) const {
    const double fixed = p_.memcpySyncCallNs + p_.copyLatencyNs;
    const double wake = pageable && h2d ? 0.0 : copyWakeNs(ns, pageable);
    return double(bytes) / std::max(ns - fixed - wake, ns * 0.05);
  }

  void bidirectional() {
    Stream other = Stream::create();
    Event otherDone = Event::create(false);
    HostBuffer pinned2(HostMemory::Pinned, 64 * kMiB, "pinned host buffer");
    DeviceBuffer dev2(64 * kMiB, "copy buffer");
    constexpr int kReps = 4;
    // The best of five rounds: the link's capacity. A single round read 65 and 80 GB/s
    // on two shared machines whose pipelines then ran at the usual ~100 (a transient
    // dip on the host), and the model slowed every copy overlapping the other way.
    constexpr int kRounds = 5;
    const std::size_t bytes = 64 * kMiB;
    std::vector<double> rounds;
    std::string all;
    for (int r = 0; r < kRounds; ++r) {
      PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(evA_.get(), st()));
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(other.get(), evA_.get(), 0));
      for (int i = 0; i < kReps; ++i) {
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(devA_.get(), pinned_.host(), bytes, cudaMemcpyHostToDevice, st()));
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(pinned2.host(), dev2.get(), bytes, cudaMemcpyDeviceToHost, other.get()));
      }
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(otherDone.get(), other.get()));
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(st(), otherDone.get(), 0));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(evB_.get(), st()));
      rounds.push_back(2.0 * kReps * double(bytes) / elapsedNs());
      all += (r ? ", " : "") + fmt(rounds.back(), 1);
    }
    p_.bidirectionalGBps = *std::max_element(rounds.begin(), rounds.end());
    log("bidirectional (64 MiB each way, both at once): " + fmt(p_.bidirectionalGBps, 2) +
        " GB/s together, the best of " + std::to_string(kRounds) + " rounds (" + all + ")");
  }

  void mappedAndManaged() {
    const std::size_t n = kComputeBytes / sizeof(float);
    auto* out = static_cast<float*>(devB_.get());
    const double normalizeNs = 2.0 * double(kComputeBytes) / p_.deviceMemoryGBps;
    {
      HostBuffer mapped(HostMemory::Mapped, kComputeBytes, "mapped host buffer");
      std::memset(mapped.host(), 1, kComputeBytes);
      const auto* src = static_cast<const float*>(mapped.device());
      const double period = gpuPeriodNs(5, [&] { PIPESCOPE_CUDA_CHECK(launchNormalize(src, out, n, st())); });
      p_.mappedReadGBps = double(kComputeBytes) / std::max(1.0, period - tinyPeriodNs_);
      log("mapped (zero-copy) read by the normalize kernel: " + fmt(p_.mappedReadGBps, 2) + " GB/s");
    }
    {
      HostBuffer managed(HostMemory::Managed, kComputeBytes, "managed buffer");
      auto* m = static_cast<float*>(managed.host());
      std::vector<double> t;
      for (int r = 0; r < 4; ++r) {
        PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
        std::memset(m, 1, kComputeBytes);  // pages back on the host
        PIPESCOPE_CUDA_CHECK(cudaEventRecord(evA_.get(), st()));
        PIPESCOPE_CUDA_CHECK(launchNormalize(m, out, n, st()));
        PIPESCOPE_CUDA_CHECK(cudaEventRecord(evB_.get(), st()));
        if (r > 0)
          t.push_back(elapsedNs());
        else
          (void)elapsedNs();
      }
      p_.managedMigrationGBps = double(kComputeBytes) / std::max(median(t) - normalizeNs, median(t) * 0.05);
      log("managed memory: kernel with on-demand migration " + fmt(median(t) / 1e3, 1) + " us -> " +
          fmt(p_.managedMigrationGBps, 2) + " GB/s migration");
    }
    p_.mappedWriteGBps = calibrateMappedWrite(st(), tinyPeriodNs_, options_.log);
    p_.mappedDuplexGBps = calibrateMappedDuplex(st(), tinyPeriodNs_, options_.log);
    p_.mappedWriteOverlap =
        calibrateMappedWriteOverlap(st(), tinyPeriodNs_, p_.modelGflops, p_.mappedWriteGBps, options_.log);
    const ManagedCalibration managed = calibrateManaged(st(), 2.0 / p_.deviceMemoryGBps, p_.kernelFixedNs,
                                                        options_.device, options_.quick, options_.log);
    p_.managedGpuFaultCurve = managed.gpuFault;
    p_.managedCpuFaultCurve = managed.cpuFault;
    p_.managedCpuWriteFaultCurve = managed.cpuWriteFault;
    p_.prefetchToDeviceCurve = managed.prefetchToDevice;
    p_.prefetchToHostCurve = managed.prefetchToHost;
    p_.prefetchAfterKernelNs = calibratePrefetchAfterKernel(options_.device, p_.modelGflops, options_.log);
    const LinkStreamsCalibration streams = calibrateLinkStreams(options_.log);
    p_.managedFaultStreamsSpeedup = streams.managedFault;
    p_.managedFaultStreamsSpeedupBySize = streams.managedFaultBySize;
    p_.mappedStreamsSpeedup = streams.mapped;
    p_.linkKernelSmWeight = calibrateLinkCompute(p_.modelGflops, options_.log);
    const ManagedSlotsCalibration slots =
        calibrateManagedSlots(2.0 / p_.deviceMemoryGBps, p_.kernelFixedNs, options_.device, options_.log);
    p_.managedSlotsSlowdown = slots.gpuSide;
    p_.managedSlotsCpuSlowdown = slots.cpuWrite;
    const ManagedWorkersCalibration workers = calibrateManagedWorkers(options_.log);
    p_.managedCpuWriteFaultWorkers = workers.cpuWrite;
    p_.managedCpuReadFaultWorkers = workers.cpuRead;
    const CpuWrittenCalibration written = calibrateCpuWritten(st(), p_.copyLatencyNs, options_.quick, options_.log);
    p_.h2dPinnedCpuWrittenCurve = written.h2dPinned;
    p_.mappedReadCpuWrittenCurve = written.mappedRead;
  }

  /// Spin and yield syncs wake up faster than a blocking one; the flags of an active
  /// context can change since CUDA 11, so each mode is set, timed and the backend's
  /// default restored. Where the driver refuses, the defaults stay and the log says so.
  void syncModeWakes() {
    struct Mode {
      unsigned flag;
      const char* name;
      double* wake;
    } modes[] = {{cudaDeviceScheduleSpin, "spin", &p_.spinSyncWakeNs},
                 {cudaDeviceScheduleYield, "yield", &p_.yieldSyncWakeNs}};
    std::string line = "sync wake-up by mode:";
    for (const Mode& m : modes) {
      const cudaError_t err = cudaSetDeviceFlags(m.flag | cudaDeviceMapHost);
      if (err != cudaSuccess) {
        (void)cudaGetLastError();
        line += std::string(" ") + m.name + " not settable (" + cudaGetErrorName(err) + "), default kept;";
        continue;
      }
      *m.wake = roundTripWakeNs();
      line += std::string(" ") + m.name + "=" + fmt(*m.wake) + " ns;";
    }
    PIPESCOPE_CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
    log(line + " blocking=" + fmt(p_.syncWakeNs) + " ns");
  }

  void gemm() {
    // The heavy preset's shape (CudaPipeline: width 1024), one layer, TF32 as the backend runs it.
    const int width = 1024;
    const int rows = int(kComputeBytes / sizeof(float) / std::size_t(width));
    CublasHandle blas = CublasHandle::create();
    PIPESCOPE_CUBLAS_CHECK(cublasSetStream(blas.get(), st()));
    PIPESCOPE_CUBLAS_CHECK(cublasSetMathMode(blas.get(), CUBLAS_TF32_TENSOR_OP_MATH));
    DeviceBuffer w(std::size_t(width) * width * sizeof(float), "GEMM weights");
    PIPESCOPE_CUDA_CHECK(cudaMemset(w.get(), 0, w.bytes()));
    const float alpha = 1.0f, beta = 0.0f;
    const double period = gpuPeriodNs(10, [&] {
      PIPESCOPE_CUBLAS_CHECK(cublasSgemm(
          blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, width, rows, width, &alpha, static_cast<const float*>(w.get()), width,
          static_cast<const float*>(devA_.get()), width, &beta, static_cast<float*>(devB_.get()), width));
    });
    const double flops = 2.0 * width * double(width) * rows;
    p_.gemmTflops = flops / std::max(1.0, period - tinyPeriodNs_) / 1e3;
    log("GEMM (TF32, " + std::to_string(width) + "x" + std::to_string(rows) + "x" + std::to_string(width) +
        "): " + fmt(p_.gemmTflops, 1) + " TFLOP/s");
    // Each preset in its own shape, by rows: what the simulator runs per layer.
    const GemmCalibration light =
        calibrateGemm(ModelPreset::Light, st(), tracer_, p_.kernelGapNs, options_.quick, options_.log);
    const GemmCalibration heavy =
        calibrateGemm(ModelPreset::Heavy, st(), tracer_, p_.kernelGapNs, options_.quick, options_.log);
    p_.lightGemmCurve = light.curve;
    p_.lightGemmCallNs = light.callNs;
    p_.heavyGemmCurve = heavy.curve;
    p_.heavyGemmCallNs = heavy.callNs;
  }

  void cpuWork() {
    // The backend's own CPU stages on its WorkerPool, on pinned buffers as in a pinned
    // run; postprocessing reads output a D2H copy just wrote. The validation's CPU
    // stages use 2 ops per byte, so that is the figure timed.
    const double opb = 2.0;
    const std::size_t n = kComputeBytes / sizeof(float);
    HostBuffer in(HostMemory::Pinned, kComputeBytes, "pinned host buffer");
    auto* dst = static_cast<float*>(in.host());
    auto* out = static_cast<float*>(pinned_.host());
    double sink = 0;
    std::vector<double> perWorkers;
    std::string line = "CPU stages (2 ops/B, 32 MiB, pre+post ms):";
    const std::vector<int> counts = options_.quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 4, 8};
    for (int workers : counts) {
      WorkerPool pool(workers);
      std::vector<double> t;
      for (int r = 0; r < 4; ++r) {
        PIPESCOPE_CUDA_CHECK(cudaMemcpy(out, devA_.get(), kComputeBytes, cudaMemcpyDeviceToHost));
        const std::int64_t a = steadyNowNs();
        pool.run([&](int w, int ws) { preprocessShare(dst, n, r, opb, w, ws); });
        std::vector<double> sums(static_cast<std::size_t>(workers));
        pool.run([&](int w, int ws) { sums[std::size_t(w)] = postprocessShare(out, n, opb, w, ws); });
        const std::int64_t b = steadyNowNs();
        for (double v : sums) sink += v;
        if (r > 0) t.push_back(double(b - a));
      }
      perWorkers.push_back(median(t));
      line.append(" ").append(std::to_string(workers)).append("w=").append(fmt(perWorkers.back() / 1e6, 2));
    }
    p_.cpuNsPerOp = perWorkers[0] / (2.0 * double(kComputeBytes) * opb);
    p_.cpuWorkerSpeedup.clear();
    for (std::size_t i = 0; i < perWorkers.size(); ++i)
      p_.cpuWorkerSpeedup.push_back({counts[i], perWorkers[0] / perWorkers[i]});
    log(line + " -> " + fmt(p_.cpuNsPerOp, 4) +
        " ns per op-byte on one worker, speed-up on 8: " + fmt(p_.cpuWorkerSpeedup.back().speedup, 2));
    checksumSink_ = sink;  // keeps the postprocessing from being optimised away
  }

  void callAfterCpuStage() {
    // What an async pipeline calls after preprocessing a batch: its H2D copy, a
    // kernel, its D2H copy and the batch's event, each correlated as the backend does.
    const std::size_t bytes = 64 * kKiB;
    auto* host = static_cast<std::uint8_t*>(pinned_.host());
    const auto calls = [&] {
      {
        Correlated c(tracer_, ++nextId_);
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(devA_.get(), host, bytes, cudaMemcpyHostToDevice, st()));
      }
      launchTiny();
      {
        Correlated c(tracer_, ++nextId_);
        PIPESCOPE_CUDA_CHECK(cudaMemcpyAsync(host + bytes, devB_.get(), bytes, cudaMemcpyDeviceToHost, st()));
      }
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(evB_.get(), st()));
    };
    p_.callAfterCpuStage = calibrateCallAfterCpuStage(st(), calls, options_.quick, options_.log);
  }

  /// Marks the calls in its scope with an external correlation id, as the backend does.
  struct Correlated {
    Correlated(CuptiTracer& t, std::uint64_t id) : t_(t) {
      if (t_.active()) t_.push(id);
    }
    ~Correlated() {
      if (t_.active()) t_.pop();
    }
    Correlated(const Correlated&) = delete;
    Correlated& operator=(const Correlated&) = delete;
    CuptiTracer& t_;
  };

  const CalibrationOptions& options_;
  CuptiTracer tracer_;
  double tinyPeriodNs_ = 0;  ///< back-to-back tiny kernels: gap + fixed cost
  bool spinSyncSet_ = false;  ///< enterSpinSync set the spin sync, leaveSpinSync not yet back
  double spinWakeNs_ = 0;     ///< the spin sync's wake-up, measured by enterSpinSync
  double blocking4kNs_ = 0;   ///< syncCosts' blocking 4 KiB cudaMemcpy under the blocking sync
  std::uint64_t nextId_ = 0;
  volatile double checksumSink_ = 0;
  DeviceProfile p_;
  Stream stream_;
  Event evA_, evB_;
  DeviceBuffer tinyIn_, tinyOut_, devA_, devB_;
  HostBuffer pinned_;
};

}  // namespace

DeviceProfile calibrateDevice(const CalibrationOptions& options) {
  Calibrator c(options);
  return c.run();
}

}  // namespace pipescope
