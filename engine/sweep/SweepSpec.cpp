#include "sweep/SweepSpec.h"

#include <cmath>
#include <set>

namespace pipescope {

namespace {

template <typename T>
std::vector<T> orBase(const std::vector<T>& axis, T base) {
  return axis.empty() ? std::vector<T>{base} : axis;
}

template <typename T>
bool hasDuplicates(const std::vector<T>& v) {
  return std::set<T>(v.begin(), v.end()).size() != v.size();
}

}  // namespace

std::vector<std::string> validateSweep(const SweepSpec& s, const ConfigOrigins* origins) {
  using namespace sweep_limits;
  std::vector<std::string> errors;
  auto axis = [&](const char* option, std::size_t size, bool duplicates) {
    if (size == 0) errors.push_back(std::string("--") + option + ": give at least one value");
    if (size > std::size_t(kMaxAxisValues))
      errors.push_back(std::string("--") + option + ": " + std::to_string(size) + " values, at most " +
                       std::to_string(kMaxAxisValues) + " per axis");
    if (duplicates) errors.push_back(std::string("--") + option + ": a value is listed twice; list each once");
  };
  axis("batch", s.batchSamples.size(), hasDuplicates(s.batchSamples));
  axis("streams", s.streams.size(), hasDuplicates(s.streams));
  if (hasDuplicates(s.memories)) errors.push_back("--memory: a value is listed twice; list each once");
  if (hasDuplicates(s.models)) errors.push_back("--model: a value is listed twice; list each once");
  if (hasDuplicates(s.gpus)) errors.push_back("--gpus: a value is listed twice; list each once");
  if (hasDuplicates(s.buckets)) errors.push_back("--buckets: a value is listed twice; list each once");
  if (hasDuplicates(s.microBatches)) errors.push_back("--micro-batches: a value is listed twice; list each once");
  for (int g : s.gpus)
    if (g < 1 || g > limits::kMaxGpus)
      errors.push_back("--gpus: " + std::to_string(g) + " GPUs; allowed 1.." + std::to_string(limits::kMaxGpus));
  if (s.batches < 1 || s.batches > limits::kMaxBatchCount)
    errors.push_back("--batches = " + std::to_string(s.batches) + ": allowed 1.." +
                     std::to_string(limits::kMaxBatchCount) + " measured batches per point (a sweep point must end)");
  if (s.warmupBatches < 0 || s.warmupBatches > kMaxWarmup)
    errors.push_back("--warmup = " + std::to_string(s.warmupBatches) + ": allowed 0.." + std::to_string(kMaxWarmup));
  if (s.repeats < 1 || s.repeats > kMaxRepeats)
    errors.push_back("--repeat = " + std::to_string(s.repeats) + ": allowed 1.." + std::to_string(kMaxRepeats));
  if (!std::isfinite(s.timeBudgetSec) || s.timeBudgetSec < 0 || s.timeBudgetSec > kMaxTimeBudgetSec)
    errors.push_back("--time-budget = " + std::to_string(s.timeBudgetSec) + ": allowed 0.." +
                     std::to_string(int(kMaxTimeBudgetSec)) + " seconds per point");
  const std::size_t points = orBase(s.memories, s.base.memory).size() * orBase(s.models, s.base.model).size() *
                             orBase(s.gpus, s.base.gpuCount()).size() * orBase(s.buckets, s.base.buckets).size() *
                             orBase(s.microBatches, s.base.microBatches).size() * s.batchSamples.size() *
                             s.streams.size();
  if (points > std::size_t(kMaxPoints))
    errors.push_back("the grid has " + std::to_string(points) + " points, at most " + std::to_string(kMaxPoints) +
                     ": use fewer values per axis");
  if (!errors.empty()) return errors;

  // Each distinct problem once, with the first point that shows it.
  std::set<std::string> seen;
  for (const SweepPointSpec& p : expandGrid(s)) {
    for (const ConfigIssue& issue : validate(p.config)) {
      if (!seen.insert(issue.field + issue.reason).second) continue;
      errors.push_back("grid point " + pointLabel(p.config, variedAxes(s)) + ": " +
                       (origins ? origins->describe(issue) : "--" + issue.message()));
    }
  }
  return errors;
}

std::vector<SweepPointSpec> expandGrid(const SweepSpec& s) {
  std::vector<SweepPointSpec> points;
  for (HostMemory memory : orBase(s.memories, s.base.memory))
    for (ModelPreset model : orBase(s.models, s.base.model))
      for (int gpus : orBase(s.gpus, s.base.gpuCount()))
        for (int buckets : orBase(s.buckets, s.base.buckets))
          for (int micro : orBase(s.microBatches, s.base.microBatches))
            for (int samples : s.batchSamples)
              for (int streams : s.streams) {
                SweepPointSpec p;
                p.index = points.size();
                p.config = s.base;
                p.config.memory = memory;
                p.config.model = model;
                if (!s.gpus.empty()) p.config.devices = devicesForCount(s.base, gpus);
                p.config.buckets = buckets;
                p.config.microBatches = micro;
                p.config.batchSamples = samples;
                p.config.streams = streams;
                p.config.batchCount = wholeSteps(p.config, s.warmupBatches + s.batches);
                p.warmupBatches = p.config.batchCount - s.batches;
                points.push_back(p);
              }
  return points;
}

int wholeSteps(const PipelineConfig& c, int batches) {
  if (!c.allReduces() || batches <= 0) return batches;
  const int n = c.gpuCount();
  return (batches + n - 1) / n * n;
}

std::uint64_t footprintBytes(const PipelineConfig& c) {
  const std::uint64_t streams = std::uint64_t(c.isAsync() ? c.streams : 1);
  const std::uint64_t perSide = c.batchBytes() + c.outputBytes();
  const bool pinnedHost = c.memory != HostMemory::Pageable;
  return std::uint64_t(c.gpuCount()) * streams * perSide * (pinnedHost ? 2 : 1);
}

std::string pointLabel(const PipelineConfig& c, bool withMemory, bool withModel) {
  GridAxes axes;
  axes.memory = withMemory;
  axes.model = withModel;
  return pointLabel(c, axes);
}

std::string pointLabel(const PipelineConfig& c, const GridAxes& axes) {
  std::string s = formatBytes(c.batchBytes()) + " x " + std::to_string(c.streams) +
                  (c.streams == 1 ? " stream" : " streams");
  if (axes.memory) s += ", " + std::string(toString(c.memory));
  if (axes.model) s += ", " + std::string(toString(c.model));
  if (axes.gpus || c.isMultiGpu()) s += ", " + std::to_string(c.gpuCount()) + (c.gpuCount() == 1 ? " GPU" : " GPUs");
  if (axes.buckets) s += ", " + std::to_string(c.buckets) + (c.buckets == 1 ? " bucket" : " buckets");
  if (axes.microBatches)
    s += ", " + std::to_string(c.microBatches) + (c.microBatches == 1 ? " micro-batch" : " micro-batches");
  return s;
}

GridAxes variedAxes(const SweepSpec& s) {
  GridAxes a;
  a.memory = s.memories.size() > 1;
  a.model = s.models.size() > 1;
  a.gpus = s.gpus.size() > 1;
  a.buckets = s.buckets.size() > 1;
  a.microBatches = s.microBatches.size() > 1;
  return a;
}

std::vector<int> devicesForCount(const PipelineConfig& base, int gpus) {
  if (int(base.devices.size()) >= gpus) return {base.devices.begin(), base.devices.begin() + gpus};
  std::vector<int> out;
  for (int g = 0; g < gpus; ++g) out.push_back(g);
  return out;
}

}  // namespace pipescope
