#include "config/PipelineConfig.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

namespace pipescope {

namespace {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<TransferMode, 2> kTransferModes{{{TransferMode::Blocking, "blocking"},
                                                     {TransferMode::Async, "async"}}};
constexpr NameTable<HostMemory, 6> kHostMemories{{{HostMemory::Pageable, "pageable"},
                                                  {HostMemory::Pinned, "pinned"},
                                                  {HostMemory::Registered, "registered"},
                                                  {HostMemory::Mapped, "mapped"},
                                                  {HostMemory::Managed, "managed"},
                                                  {HostMemory::ManagedPrefetch, "managed-prefetch"}}};
constexpr NameTable<IssueOrder, 2> kIssueOrders{{{IssueOrder::DepthFirst, "depth-first"},
                                                 {IssueOrder::BreadthFirst, "breadth-first"}}};
constexpr NameTable<SyncMode, 3> kSyncModes{
    {{SyncMode::Spin, "spin"}, {SyncMode::Yield, "yield"}, {SyncMode::Blocking, "blocking"}}};
constexpr NameTable<DataResidency, 2> kResidencies{
    {{DataResidency::TransferEveryBatch, "every-batch"}, {DataResidency::KeepResident, "resident"}}};
constexpr NameTable<ModelPreset, 3> kModels{
    {{ModelPreset::Custom, "custom"}, {ModelPreset::Light, "light"}, {ModelPreset::Heavy, "heavy"}}};

constexpr NameTable<ParallelMode, 2> kParallelModes{
    {{ParallelMode::Data, "data"}, {ParallelMode::Pipeline, "pipeline"}}};

template <typename E, std::size_t N>
std::string_view nameOf(const NameTable<E, N>& table, E v) {
  for (const auto& [e, n] : table)
    if (e == v) return n;
  return "?";
}

template <typename E, std::size_t N>
std::optional<E> parseName(const NameTable<E, N>& table, std::string_view s) {
  for (const auto& [e, n] : table)
    if (n == s) return e;
  return std::nullopt;
}

template <typename E, std::size_t N>
std::vector<std::string_view> namesOf(const NameTable<E, N>& table) {
  std::vector<std::string_view> out;
  for (const auto& entry : table) out.push_back(entry.second);
  return out;
}

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

class IssueCollector {
 public:
  void add(std::string field, std::string value, std::string allowed, std::string reason,
           std::vector<std::string> related = {}) {
    issues_.push_back({std::move(field), std::move(value), std::move(allowed), std::move(reason), std::move(related)});
  }
  template <typename T>
  void range(const char* field, T value, T lo, T hi, const char* reason) {
    if (value < lo || value > hi)
      add(field, num(double(value)), num(double(lo)) + ".." + num(double(hi)), reason);
  }
  // NaN and infinity fail every range check silently, so they get their own message.
  void finiteRange(const char* field, double value, double lo, double hi, const char* reason) {
    if (!std::isfinite(value))
      add(field, num(value), num(lo) + ".." + num(hi), "must be a finite number");
    else
      range(field, value, lo, hi, reason);
  }
  std::vector<ConfigIssue> take() { return std::move(issues_); }

 private:
  std::vector<ConfigIssue> issues_;
};

void validateGpus(IssueCollector& v, const PipelineConfig& c) {
  using namespace limits;
  const int n = c.gpuCount();
  if (n > kMaxGpus)
    v.add("devices", num(n) + " GPUs", "1.." + num(kMaxGpus),
          "the simulator models at most 8 GPUs, the largest host pipescope is tested on");
  for (std::size_t i = 0; i < c.devices.size(); ++i) {
    const int d = c.devices[i];
    if (d < 0 || d > kMaxDeviceOrdinal)
      v.add("devices", num(d), "GPU ordinals 0.." + num(kMaxDeviceOrdinal), "a CUDA device ordinal");
    for (std::size_t j = 0; j < i; ++j)
      if (c.devices[j] == d) {
        v.add("devices", formatDeviceList(c.devices), "each GPU once",
              "GPU " + num(d) + " is listed twice; one GPU cannot stand for two");
        break;
      }
  }
  v.range<std::uint64_t>("allreduce-bytes", c.allreduceBytes, 0, kMaxAllreduceBytes,
                         "gradient bytes reduced per batch; 0 = no gradient exchange");
  v.range("buckets", c.buckets, 0, kMaxBuckets,
          "0 = one all-reduce after all compute; K = K all-reduces overlapping the remaining kernels");
  v.range<std::uint64_t>("activation-bytes", c.activationBytes, 0, kMaxActivationBytes,
                         "bytes each micro-batch hands from one pipeline stage to the next");
  v.range("micro-batches", c.microBatches, 1, kMaxMicroBatches, "pieces each batch is split into between stages");
  if (c.parallel == ParallelMode::Pipeline && n < 2)
    v.add("parallel", "pipeline", "data with one GPU; pipeline needs 2 GPUs or more",
          "pipeline parallelism puts one stage on each GPU; choose --gpus 2 or more");
  if (c.parallel == ParallelMode::Pipeline && c.microBatches > c.batchSamples && c.batchSamples >= 1)
    v.add("micro-batches", num(c.microBatches), "at most batch-samples (" + num(c.batchSamples) + ")",
          "each micro-batch holds at least one sample");
  if (c.buckets > 1 && c.allreduceBytes > 0 && std::uint64_t(c.buckets) > c.allreduceBytes / 4)
    v.add("buckets", num(c.buckets), "at most one bucket per 4 bytes of allreduce-bytes",
          "each bucket reduces at least one float");
  if (c.allReduces() && n <= kMaxGpus && c.mode == TransferMode::Blocking)
    v.add("mode", "blocking", "async with an all-reduce",
          "the all-reduce runs on a stream of its own beside the kernels; choose --mode async");
  if (c.allReduces() && n <= kMaxGpus && c.batchCount % n != 0)
    v.add("batches", num(c.batchCount), "a multiple of the GPU count (" + num(n) + "), or 0",
          "each step gives every GPU one batch and all-reduces their gradients together");
  if (c.parallel == ParallelMode::Pipeline && n >= 2 && c.mode == TransferMode::Blocking)
    v.add("mode", "blocking", "async with pipeline parallelism",
          "blocking copies synchronise each GPU per batch, so stages could never overlap; choose --mode async");
}

}  // namespace

std::uint64_t PipelineConfig::outputBytes() const {
  return std::uint64_t(std::llround(double(batchBytes()) * outputRatio));
}

std::uint64_t PipelineConfig::d2hBytes() const {
  return std::uint64_t(std::llround(double(outputBytes()) * roiFraction));
}

std::string ConfigIssue::message() const {
  return field + " = " + value + ": allowed " + allowed + " (" + reason + ")";
}

std::vector<ConfigIssue> validate(const PipelineConfig& c) {
  using namespace limits;
  IssueCollector v;
  v.range("streams", c.streams, 1, kMaxStreams,
          "one stream per in-flight batch; beyond 32 the device has no more hardware queues");
  v.range("batch-samples", c.batchSamples, 1, kMaxBatchSamples, "a batch holds at least one sample");
  v.range<std::uint64_t>("sample-bytes", c.sampleBytes, 4, kMaxSampleBytes,
                         "a sample is at least one float and at most 1 GiB");
  if (c.batchSamples >= 1 && c.sampleBytes >= 1 && c.batchBytes() > kMaxBatchBytes)
    v.add("batch-samples", formatBytes(c.batchBytes()) + " per batch", "at most " + formatBytes(kMaxBatchBytes),
          "batch-samples x sample-bytes must fit in device memory; use fewer samples per batch", {"sample-bytes"});
  v.range("batches", c.batchCount, 0, kMaxBatchCount, "0 runs until stopped");
  v.finiteRange("model-flops-per-byte", c.modelFlopsPerByte, 0.0, kMaxModelFlopsPerByte,
                "arithmetic per input byte of the model kernel; 0 skips the model stage");
  v.range("cpu-workers", c.cpuWorkers, 1, kMaxCpuWorkers, "threads sharing pre- and postprocessing");
  v.finiteRange("preprocess-ops-per-byte", c.preprocessOpsPerByte, 0.0, kMaxCpuOpsPerByte,
                "CPU work per input byte; 0 skips preprocessing");
  v.finiteRange("postprocess-ops-per-byte", c.postprocessOpsPerByte, 0.0, kMaxCpuOpsPerByte,
                "CPU work per output byte; 0 skips postprocessing");
  if (!std::isfinite(c.outputRatio) || c.outputRatio <= 0.0 || c.outputRatio > kMaxOutputRatio)
    v.add("output-ratio", num(c.outputRatio), "greater than 0, at most " + num(kMaxOutputRatio),
          "output bytes per input byte; the output buffer must exist");
  if (!std::isfinite(c.roiFraction) || c.roiFraction <= 0.0 || c.roiFraction > 1.0)
    v.add("roi", num(c.roiFraction), "greater than 0, at most 1",
          "fraction of the output copied back; 1 copies it all");
  v.range("chunks", c.transferChunks, 1, kMaxTransferChunks, "pieces each copy is split into");
  if (c.transferChunks >= 1 && c.sampleBytes >= 4 && c.batchSamples >= 1 &&
      std::uint64_t(c.transferChunks) > c.batchBytes() / 4)
    v.add("chunks", num(c.transferChunks), "at most one chunk per 4 bytes of the batch",
          "each chunk must move at least one float", {"batch-samples", "sample-bytes"});

  if (c.mode == TransferMode::Blocking && c.streams > 1)
    v.add("streams", num(c.streams), "1 in blocking mode",
          "blocking copies synchronise the whole device; choose --mode async to use several streams", {"mode"});
  if (c.mode == TransferMode::Blocking && c.order == IssueOrder::BreadthFirst)
    v.add("order", "breadth-first", "depth-first in blocking mode",
          "blocking mode finishes each batch before the next; issue order only matters with async streams", {"mode"});
  if (c.memory == HostMemory::Mapped && c.residency == DataResidency::KeepResident)
    v.add("residency", "resident", "every-batch with mapped memory",
          "mapped (zero-copy) memory never lives on the device; choose pinned memory to keep data resident",
          {"memory"});
  if (c.memory == HostMemory::Mapped && c.transferChunks > 1)
    v.add("chunks", num(c.transferChunks), "1 with mapped memory",
          "mapped (zero-copy) memory makes no copies to split", {"memory"});
  if (!c.normalizeKernel && c.modelFlopsPerByte == 0.0 && c.model == ModelPreset::Custom)
    v.add("model-flops-per-byte", "0", "greater than 0, or enable the normalize kernel",
          "the pipeline needs at least one GPU stage", {"normalize", "model"});
  validateGpus(v, c);
  return v.take();
}

std::string_view toString(TransferMode v) { return nameOf(kTransferModes, v); }
std::string_view toString(HostMemory v) { return nameOf(kHostMemories, v); }
std::string_view toString(IssueOrder v) { return nameOf(kIssueOrders, v); }
std::string_view toString(SyncMode v) { return nameOf(kSyncModes, v); }
std::string_view toString(DataResidency v) { return nameOf(kResidencies, v); }
std::string_view toString(ModelPreset v) { return nameOf(kModels, v); }
std::string_view toString(ParallelMode v) { return nameOf(kParallelModes, v); }
std::optional<TransferMode> parseTransferMode(std::string_view s) { return parseName(kTransferModes, s); }
std::optional<HostMemory> parseHostMemory(std::string_view s) { return parseName(kHostMemories, s); }
std::optional<IssueOrder> parseIssueOrder(std::string_view s) { return parseName(kIssueOrders, s); }
std::optional<SyncMode> parseSyncMode(std::string_view s) { return parseName(kSyncModes, s); }
std::optional<DataResidency> parseDataResidency(std::string_view s) { return parseName(kResidencies, s); }
std::optional<ModelPreset> parseModelPreset(std::string_view s) { return parseName(kModels, s); }
std::optional<ParallelMode> parseParallelMode(std::string_view s) { return parseName(kParallelModes, s); }
std::vector<std::string_view> transferModeNames() { return namesOf(kTransferModes); }
std::vector<std::string_view> hostMemoryNames() { return namesOf(kHostMemories); }
std::vector<std::string_view> issueOrderNames() { return namesOf(kIssueOrders); }
std::vector<std::string_view> syncModeNames() { return namesOf(kSyncModes); }
std::vector<std::string_view> dataResidencyNames() { return namesOf(kResidencies); }
std::vector<std::string_view> modelPresetNames() { return namesOf(kModels); }
std::vector<std::string_view> parallelModeNames() { return namesOf(kParallelModes); }

std::string formatDeviceList(const std::vector<int>& devices) {
  std::string out;
  for (int d : devices) {
    if (!out.empty()) out += ',';
    out += std::to_string(d);
  }
  return out;
}

std::optional<std::vector<int>> parseDeviceList(std::string_view s) {
  std::vector<int> out;
  if (s.empty()) return std::nullopt;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t comma = std::min(s.find(',', at), s.size());
    const std::string_view item = s.substr(at, comma - at);
    if (item.empty() || item.size() > 6) return std::nullopt;
    int value = 0;
    for (char ch : item) {
      if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
      value = value * 10 + (ch - '0');
    }
    out.push_back(value);
    at = comma + 1;
  }
  return out;
}

std::string choices(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += '|';
    out += n;
  }
  return out;
}

std::string formatBytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits{"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  std::size_t u = 0;
  while (v >= 1024.0 && u + 1 < kUnits.size()) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0 || v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", v, kUnits[u]);
  return buf;
}

std::optional<std::uint64_t> parseBytes(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(std::string(s.substr(0, i)), &used);
    if (used != i) return std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
  std::string unit(s.substr(i));
  for (auto& ch : unit) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  if (unit.size() == 2 && unit[1] == 'I') unit.pop_back();
  double scale = 1;
  if (unit.empty()) scale = 1;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else return std::nullopt;
  const double bytes = value * scale;
  if (!std::isfinite(bytes) || bytes < 0 || bytes > 1.8e19 || bytes != std::floor(bytes)) return std::nullopt;
  return std::uint64_t(bytes);
}

}  // namespace pipescope
