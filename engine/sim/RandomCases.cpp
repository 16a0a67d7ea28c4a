#include "sim/RandomCases.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "sim/SimulatorBackend.h"
#include "sim/StageCosts.h"

namespace pipescope {

namespace {

/// Draws from mt19937_64's raw output (its sequence is fixed by the standard) with
/// our own arithmetic: std's distributions differ between standard libraries, and
/// a seed must name the same set on every machine.
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed) {}
  double unit() { return double(rng_() >> 11) * 0x1.0p-53; }  // [0, 1)
  bool chance(double p) { return unit() < p; }
  int integer(int lo, int hi) { return lo + int(unit() * double(hi - lo + 1)); }  // [lo, hi]
  double logUniform(double lo, double hi) { return std::exp(std::log(lo) + unit() * (std::log(hi) - std::log(lo))); }
  template <typename T>
  T pick(std::initializer_list<std::pair<T, double>> weighted) {
    double total = 0;
    for (const auto& w : weighted) total += w.second;
    double x = unit() * total;
    for (const auto& w : weighted) {
      if (x < w.second) return w.first;
      x -= w.second;
    }
    return (weighted.end() - 1)->first;
  }

 private:
  std::mt19937_64 rng_;
};

/// Device buffers the CUDA backend allocates for `c` (per stream: input, output,
/// the GEMM presets' activation buffer; managed buffers live on the device too).
std::uint64_t deviceBufferBytes(const PipelineConfig& c) {
  const auto streams = std::uint64_t(c.isAsync() ? c.streams : 1);
  std::uint64_t perStream = c.batchBytes() + c.outputBytes();
  if (c.model != ModelPreset::Custom) perStream += c.batchBytes();
  return streams * perStream;
}

std::uint64_t hostBufferBytes(const PipelineConfig& c) {
  return std::uint64_t(c.isAsync() ? c.streams : 1) * (c.batchBytes() + c.outputBytes());
}

/// One configuration with every knob drawn; batchCount is set later.
PipelineConfig drawKnobs(Draw& d, const RandomCaseLimits& lim) {
  PipelineConfig c;
  c.mode = d.chance(0.25) ? TransferMode::Blocking : TransferMode::Async;
  c.memory = d.pick<HostMemory>({{HostMemory::Pinned, 4},
                                 {HostMemory::Pageable, 2},
                                 {HostMemory::Registered, 1.5},
                                 {HostMemory::Mapped, 1},
                                 {HostMemory::Managed, 1},
                                 {HostMemory::ManagedPrefetch, 1}});
  if (c.isAsync()) {
    c.streams = d.integer(1, lim.maxStreams);
    c.order = d.chance(0.35) ? IssueOrder::BreadthFirst : IssueOrder::DepthFirst;
  }
  c.sync = d.pick<SyncMode>({{SyncMode::Blocking, 3}, {SyncMode::Spin, 1}, {SyncMode::Yield, 1}});

  // Batch size: log-uniform between the limits, split into a drawn number of
  // samples of whole floats, so sizes are seldom powers of two.
  const double bytes = d.logUniform(double(lim.minBatchBytes), double(lim.maxBatchBytes));
  c.batchSamples = d.pick<int>({{1, 1}, {8, 1}, {16, 1}, {d.integer(2, 256), 3}});
  c.sampleBytes = std::max<std::uint64_t>(4, std::uint64_t(bytes / c.batchSamples) / 4 * 4);

  c.model = d.pick<ModelPreset>({{ModelPreset::Custom, 7}, {ModelPreset::Light, 1.5}, {ModelPreset::Heavy, 1.5}});
  c.modelFlopsPerByte = c.model == ModelPreset::Custom ? std::round(d.logUniform(10, 4000)) : 0;
  c.normalizeKernel = d.chance(0.8);
  if (c.model == ModelPreset::Custom && c.modelFlopsPerByte == 0) c.normalizeKernel = true;

  if (d.chance(0.4)) {
    c.cpuWorkers = d.integer(1, 8);
    c.preprocessOpsPerByte = d.chance(0.8) ? std::round(d.logUniform(0.5, 8) * 4) / 4 : 0;
    c.postprocessOpsPerByte = d.chance(0.6) ? std::round(d.logUniform(0.5, 8) * 4) / 4 : 0;
  }

  c.residency = d.chance(0.15) ? DataResidency::KeepResident : DataResidency::TransferEveryBatch;
  c.outputRatio = d.pick<double>({{1.0, 4}, {0.25, 1}, {0.5, 1}, {2.0, 1}, {std::round(d.logUniform(0.0625, 4) * 64) / 64, 1}});
  c.roiFraction = d.chance(0.7) ? 1.0 : std::round(d.logUniform(0.05, 1.0) * 100) / 100;
  c.transferChunks = d.chance(0.7) ? 1 : d.integer(2, 16);
  if (c.memory == HostMemory::Mapped) {
    c.residency = DataResidency::TransferEveryBatch;
    c.transferChunks = 1;
  }
  return c;
}

double predictNs(Backend& sim, const PipelineConfig& c) {
  std::string failure;
  const double t = measureMakespanNs(sim, c, failure);
  return failure.empty() ? t : -1;
}

/// Sets c.batchCount, a multiple of `step`, so `sim` predicts about `targetNs`;
/// false when a prediction fails or the run leaves the makespan limits.
bool sizeToTarget(Backend& sim, PipelineConfig& c, double targetNs, int step, const RandomCaseLimits& lim) {
  // Makespan is close to affine in the batch count: two short runs give the slope.
  const int streams = c.isAsync() ? c.streams : 1;
  const int b1 = step * std::max(2, streams), b2 = 2 * b1;
  c.batchCount = b1;
  const double t1 = predictNs(sim, c);
  c.batchCount = b2;
  const double t2 = predictNs(sim, c);
  if (t1 <= 0 || t2 <= 0) return false;
  const double perBatch = std::max((t2 - t1) / double(b2 - b1), 1.0);
  const double fixed = std::max(t1 - perBatch * b1, 0.0);
  const int minBatches = step * std::max(4, streams), maxBatches = 5000 / step * step;
  c.batchCount = std::clamp(int(std::lround((targetNs - fixed) / perBatch / step)) * step, minBatches, maxBatches);
  const double t = predictNs(sim, c);
  return t >= lim.minMakespanNs && t <= lim.maxMakespanNs;
}

/// A byte count of whole floats near `bytes` that is not a power of two.
std::uint64_t notPowerOfTwo(double bytes) {
  std::uint64_t b = std::max<std::uint64_t>(8, std::uint64_t(bytes) / 4 * 4);
  if ((b & (b - 1)) == 0) b += 4;
  return b;
}

/// The one-GPU knobs each GPU runs, then the several-GPU knobs; batchCount is set later.
PipelineConfig drawMultiGpuKnobs(Draw& d, int gpus, const RandomCaseLimits& lim) {
  PipelineConfig c = drawKnobs(d, lim);
  for (int g = 0; g < gpus; ++g) c.devices.push_back(g);
  // Even odds: pipeline draws with blocking copies are redrawn more often.
  c.parallel = d.chance(0.5) ? ParallelMode::Data : ParallelMode::Pipeline;
  if (c.parallel == ParallelMode::Data) {
    if (d.chance(0.8)) {
      c.allreduceBytes = notPowerOfTwo(d.logUniform(double(1 << 20), double(256 << 20)));
      c.buckets = d.integer(0, 8);
    }
  } else {
    c.activationBytes = notPowerOfTwo(d.logUniform(double(64 << 10), double(64 << 20)));
    c.microBatches = std::min(d.integer(1, 8), c.batchSamples);
  }
  return c;
}

/// Device memory on each GPU: the one-GPU buffers, the gradients all-reduced in
/// place, a pipeline stage's activation buffers (sent and received, per stream) and
/// its stage output where the memory kind has no device output buffer.
std::uint64_t deviceBytesPerGpu(const PipelineConfig& c) {
  const auto streams = std::uint64_t(c.isAsync() ? c.streams : 1);
  std::uint64_t bytes = deviceBufferBytes(c);
  if (c.allReduces()) bytes += c.allreduceBytes;
  if (c.isPipelineParallel()) bytes += streams * (2 * c.activationBytes + c.outputBytes());
  return bytes;
}

/// Host memory of the whole run: every host slot's input and output buffer, on every
/// GPU in data parallelism; in a pipeline the last stage's, plus the staging buffers
/// of links without peer access.
std::uint64_t hostBytesOfRun(const PipelineConfig& c) {
  const std::uint64_t slots = std::uint64_t(c.hostSlots()) * (c.batchBytes() + c.outputBytes());
  if (!c.isPipelineParallel()) return std::uint64_t(c.gpuCount()) * slots;
  return slots + std::uint64_t(c.gpuCount() - 1) * std::uint64_t(c.streams) * c.activationBytes;
}

std::string label(const char* text) { return text; }

std::string bucket(double v, std::initializer_list<std::pair<double, const char*>> upperBounds, const char* last) {
  for (const auto& [bound, name] : upperBounds)
    if (v < bound) return name;
  return last;
}

}  // namespace

std::vector<ValidationCase> drawRandomCases(int count, std::uint64_t seed, const DeviceProfile& sizing,
                                            const RandomCaseLimits& lim) {
  Draw d(seed);
  auto sim = makeSimulatorBackend(sizing);
  std::vector<ValidationCase> cases;
  // Rejection sampling: a configuration whose smallest sensible run is too long, or
  // whose buffers are too large, is redrawn (deterministically: same seed, same set).
  for (int attempts = 0; int(cases.size()) < count; ++attempts) {
    if (attempts > count * 200) throw std::runtime_error("random validation: cannot draw configurations within the limits");
    PipelineConfig c = drawKnobs(d, lim);
    const double targetNs = d.logUniform(lim.minMakespanNs * 2, lim.maxMakespanNs / 2);
    if (!validate(c).empty()) continue;
    if (deviceBufferBytes(c) > lim.maxDeviceBufferBytes || hostBufferBytes(c) > lim.maxHostBufferBytes) continue;
    if (!sizeToTarget(*sim, c, targetNs, 1, lim)) continue;
    cases.push_back({"r" + std::to_string(seed) + "-" + std::to_string(cases.size()), c});
  }
  return cases;
}

RandomCaseLimits multiGpuCaseLimits() {
  RandomCaseLimits lim;
  lim.maxMakespanNs = 120e6;
  lim.maxHostBufferBytes = 1ull << 30;
  return lim;
}

std::vector<ValidationCase> drawRandomMultiGpuCases(int count, std::uint64_t seed, int gpus,
                                                    const DeviceProfile& sizing, const RandomCaseLimits& lim) {
  if (gpus < 2 || gpus > limits::kMaxGpus)
    throw std::invalid_argument("a random set over several GPUs takes 2.." + std::to_string(limits::kMaxGpus) +
                                " GPUs; got " + std::to_string(gpus));
  // A stream of its own per GPU count: the sets of one seed over 2 and over 4 GPUs
  // share no draws, and the one-GPU set of the seed is untouched.
  Draw d(seed ^ (0x9E3779B97F4A7C15ull * std::uint64_t(gpus)));
  auto sim = makeSimulatorBackend(sizing);
  std::vector<ValidationCase> cases;
  for (int attempts = 0; int(cases.size()) < count; ++attempts) {
    if (attempts > count * 200) throw std::runtime_error("random validation: cannot draw configurations within the limits");
    PipelineConfig c = drawMultiGpuKnobs(d, gpus, lim);
    const double targetNs = d.logUniform(lim.minMakespanNs * 2, lim.maxMakespanNs / 2);
    if (!validate(c).empty()) continue;  // blocking copies with an all-reduce or pipeline stages, ...
    if (deviceBytesPerGpu(c) > lim.maxDeviceBufferBytes || hostBytesOfRun(c) > lim.maxHostBufferBytes) continue;
    // Data parallel: whole steps (a batch per GPU), as an all-reduce requires.
    if (!sizeToTarget(*sim, c, targetNs, c.parallel == ParallelMode::Data ? gpus : 1, lim)) continue;
    cases.push_back({"r" + std::to_string(seed) + "-" + std::to_string(gpus) + "g-" + std::to_string(cases.size()), c});
  }
  return cases;
}

std::vector<KnobValue> knobValues(const PipelineConfig& c) {
  std::vector<KnobValue> k;
  k.push_back({"mode", std::string(toString(c.mode))});
  k.push_back({"memory", std::string(toString(c.memory))});
  const int streams = c.isAsync() ? c.streams : 1;
  k.push_back({"streams", streams == 1   ? label("1")
                          : streams < 4 ? label("2-3")
                          : streams < 8 ? label("4-7")
                                        : label("8-16")});
  if (c.isAsync() && streams > 1) k.push_back({"order", std::string(toString(c.order))});
  k.push_back({"sync", std::string(toString(c.sync))});
  k.push_back({"batch size", bucket(double(c.batchBytes()), {{1 << 20, "< 1 MiB"}, {16 << 20, "1-16 MiB"}}, ">= 16 MiB")});
  k.push_back({"model", c.model == ModelPreset::Custom
                            ? std::string("custom ") + bucket(c.modelFlopsPerByte, {{200, "< 200 f/B"}, {1000, "200-1000 f/B"}}, ">= 1000 f/B")
                            : std::string(toString(c.model))});
  k.push_back({"normalize", c.normalizeKernel ? "on" : "off"});
  const bool cpu = c.preprocessOpsPerByte > 0 || c.postprocessOpsPerByte > 0;
  k.push_back({"CPU stages", !cpu ? label("none") : c.cpuWorkers == 1 ? label("1 worker") : label("2+ workers")});
  k.push_back({"residency", std::string(toString(c.residency))});
  k.push_back({"output ratio", c.outputRatio == 1 ? label("1") : c.outputRatio < 1 ? label("< 1") : label("> 1")});
  k.push_back({"ROI", c.roiFraction == 1 ? label("whole output") : label("partial")});
  k.push_back({"chunks", c.transferChunks == 1 ? label("1") : label("2-16")});
  if (!c.isMultiGpu()) return k;
  k.push_back({"gpus", std::to_string(c.gpuCount())});
  k.push_back({"parallel", std::string(toString(c.parallel))});
  if (c.parallel == ParallelMode::Data) {
    k.push_back({"all-reduce", c.allreduceBytes == 0 ? label("none")
                                    : bucket(double(c.allreduceBytes), {{4 << 20, "< 4 MiB"}, {64 << 20, "4-64 MiB"}},
                                             ">= 64 MiB")});
    // 0 and 1 are the same schedule: one all-reduce after all of a step's kernels.
    if (c.allreduceBytes > 0)
      k.push_back({"buckets", c.buckets <= 1 ? label("0-1 (no overlap)") : c.buckets <= 4 ? label("2-4") : label("5+")});
  } else {
    k.push_back({"micro-batches", c.microBatches == 1 ? label("1") : c.microBatches <= 4 ? label("2-4") : label("5+")});
  }
  return k;
}

std::vector<std::string> knobNames() {
  PipelineConfig data;
  data.streams = 2;  // the issue order is a knob of multi-stream runs only
  data.devices = {0, 1};
  data.allreduceBytes = 1 << 20;
  PipelineConfig pipeline = data;
  pipeline.parallel = ParallelMode::Pipeline;
  std::vector<std::string> names;
  for (const PipelineConfig& c : {data, pipeline})
    for (const KnobValue& kv : knobValues(c))
      if (std::find(names.begin(), names.end(), kv.knob) == names.end()) names.push_back(kv.knob);
  return names;
}

}  // namespace pipescope
