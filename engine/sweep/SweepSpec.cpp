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
                             s.batchSamples.size() * s.streams.size();
  if (points > std::size_t(kMaxPoints))
    errors.push_back("the grid has " + std::to_string(points) + " points, at most " + std::to_string(kMaxPoints) +
                     ": use fewer values per axis");
  if (!errors.empty()) return errors;

  // Each distinct problem once, with the first point that shows it.
  std::set<std::string> seen;
  for (const SweepPointSpec& p : expandGrid(s)) {
    for (const ConfigIssue& issue : validate(p.config)) {
      if (!seen.insert(issue.field + issue.reason).second) continue;
      errors.push_back("grid point " + pointLabel(p.config, !s.memories.empty(), !s.models.empty()) + ": " +
                       (origins ? origins->describe(issue) : "--" + issue.message()));
    }
  }
  return errors;
}

std::vector<SweepPointSpec> expandGrid(const SweepSpec& s) {
  std::vector<SweepPointSpec> points;
  for (HostMemory memory : orBase(s.memories, s.base.memory))
    for (ModelPreset model : orBase(s.models, s.base.model))
      for (int samples : s.batchSamples)
        for (int streams : s.streams) {
          SweepPointSpec p;
          p.index = points.size();
          p.config = s.base;
          p.config.memory = memory;
          p.config.model = model;
          p.config.batchSamples = samples;
          p.config.streams = streams;
          p.config.batchCount = s.warmupBatches + s.batches;
          points.push_back(p);
        }
  return points;
}

std::uint64_t footprintBytes(const PipelineConfig& c) {
  const std::uint64_t streams = std::uint64_t(c.isAsync() ? c.streams : 1);
  const std::uint64_t perSide = c.batchBytes() + c.outputBytes();
  const bool pinnedHost = c.memory != HostMemory::Pageable;
  return streams * perSide * (pinnedHost ? 2 : 1);
}

std::string pointLabel(const PipelineConfig& c, bool withMemory, bool withModel) {
  std::string s = formatBytes(c.batchBytes()) + " x " + std::to_string(c.streams) +
                  (c.streams == 1 ? " stream" : " streams");
  if (withMemory) s += ", " + std::string(toString(c.memory));
  if (withModel) s += ", " + std::string(toString(c.model));
  return s;
}

}  // namespace pipescope
