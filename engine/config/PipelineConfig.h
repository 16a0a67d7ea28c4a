#pragma once
// The pipeline's knobs. Every backend (CUDA, simulator) reads the same struct, so
// a configuration that runs on a laptop's simulator runs unchanged on a real GPU.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipescope {

enum class TransferMode : std::uint8_t { Blocking, Async };
enum class HostMemory : std::uint8_t { Pageable, Pinned, Registered, Mapped, Managed, ManagedPrefetch };
enum class IssueOrder : std::uint8_t { DepthFirst, BreadthFirst };
enum class SyncMode : std::uint8_t { Spin, Yield, Blocking };
enum class DataResidency : std::uint8_t { TransferEveryBatch, KeepResident };
// Custom: a synthetic compute kernel whose cost is modelFlopsPerByte.
// Light/Heavy: real GEMMs sized like a small / a large image network per sample.
enum class ModelPreset : std::uint8_t { Custom, Light, Heavy };
// How several GPUs share the work. Data: batches are dealt across the GPUs, each runs
// the whole pipeline, gradients optionally all-reduced. Pipeline: the model's kernels
// split into stages, stage k on GPU k, activations handed on by peer copies (GPipe).
enum class ParallelMode : std::uint8_t { Data, Pipeline };

struct PipelineConfig {
  TransferMode mode = TransferMode::Async;
  HostMemory memory = HostMemory::Pinned;
  int streams = 1;
  IssueOrder order = IssueOrder::DepthFirst;

  int batchSamples = 64;                     ///< samples per batch
  std::uint64_t sampleBytes = 512 * 1024;    ///< input bytes per sample
  int batchCount = 32;                       ///< 0 = run until stopped

  bool normalizeKernel = true;               ///< run the normalisation kernel
  ModelPreset model = ModelPreset::Custom;
  double modelFlopsPerByte = 1050.0;         ///< arithmetic intensity of the custom model kernel (kernel ~ copy time on an H200)

  int cpuWorkers = 1;                        ///< threads sharing pre/postprocessing
  double preprocessOpsPerByte = 0.0;         ///< CPU work per input byte (0 = skip preprocessing)
  double postprocessOpsPerByte = 0.0;        ///< CPU work per output byte (0 = skip postprocessing)

  DataResidency residency = DataResidency::TransferEveryBatch;
  double outputRatio = 1.0;                  ///< output bytes / input bytes
  double roiFraction = 1.0;                  ///< fraction of the output copied back (region of interest)
  int transferChunks = 1;                    ///< each copy split into this many pieces

  SyncMode sync = SyncMode::Blocking;

  // Several GPUs. Every knob above applies to each GPU.
  std::vector<int> devices;                  ///< GPU ordinals; empty = {0}, one GPU
  ParallelMode parallel = ParallelMode::Data;
  std::uint64_t allreduceBytes = 0;          ///< data: gradient bytes all-reduced per batch (0 = none)
  /// data: 0 = one all-reduce after all of a batch's kernels (no overlap); K >= 1 = K
  /// all-reduces of allreduceBytes/K, each issued when its share of the kernels is done.
  int buckets = 1;
  std::uint64_t activationBytes = 0;         ///< pipeline: bytes each micro-batch hands to the next stage
  int microBatches = 1;                      ///< pipeline: micro-batches per batch

  std::uint64_t batchBytes() const { return std::uint64_t(batchSamples) * sampleBytes; }
  std::uint64_t outputBytes() const;
  std::uint64_t d2hBytes() const;  ///< bytes copied back per batch (output × ROI)
  bool runsUntilStopped() const { return batchCount == 0; }
  bool isAsync() const { return mode == TransferMode::Async; }
  bool usesCopies() const { return memory != HostMemory::Mapped; }
  /// Batches in flight at most, each with its own host input and output buffer: two
  /// per stream in async mode (double buffering: the host prepares one round of
  /// batches while the GPU runs the other), one in blocking mode. Batch b reuses the
  /// host buffers of batch b - hostSlots(), so that is the batch the host waits for.
  int hostSlots() const { return isAsync() ? 2 * streams : 1; }
  /// GPUs the run uses (1 when `devices` is empty).
  int gpuCount() const { return devices.empty() ? 1 : int(devices.size()); }
  /// The GPU ordinals the run uses ({0} when `devices` is empty).
  std::vector<int> deviceOrdinals() const { return devices.empty() ? std::vector<int>{0} : devices; }
  bool isMultiGpu() const { return gpuCount() > 1; }
  bool isPipelineParallel() const { return isMultiGpu() && parallel == ParallelMode::Pipeline; }
  /// Gradient exchange runs: data parallel on several GPUs with bytes to reduce.
  bool allReduces() const { return isMultiGpu() && parallel == ParallelMode::Data && allreduceBytes > 0; }

  bool operator==(const PipelineConfig&) const = default;
};

/// One problem found by validate(): which field, what value it had, what is allowed, and why.
struct ConfigIssue {
  std::string field;
  std::string value;
  std::string allowed;
  std::string reason;
  /// Other fields whose values make this one wrong (a contradiction between knobs):
  /// "mode" for more than one stream in blocking mode.
  std::vector<std::string> related;
  std::string message() const;  ///< "streams = 0: allowed 1..32 — ..."
};

/// Every problem with the configuration, empty when it can run. Checked before
/// anything is allocated so a bad value never reaches a backend.
std::vector<ConfigIssue> validate(const PipelineConfig& config);

/// Limits shared by validation, the CLI help and the UI's spin boxes.
namespace limits {
inline constexpr int kMaxStreams = 32;
inline constexpr int kMaxBatchSamples = 1 << 20;
inline constexpr std::uint64_t kMaxSampleBytes = 1ull << 30;
inline constexpr std::uint64_t kMaxBatchBytes = 16ull << 30;
inline constexpr int kMaxBatchCount = 10'000'000;
inline constexpr double kMaxModelFlopsPerByte = 1e6;
inline constexpr int kMaxCpuWorkers = 256;
inline constexpr double kMaxCpuOpsPerByte = 1e4;
inline constexpr double kMaxOutputRatio = 16.0;
inline constexpr int kMaxTransferChunks = 1024;
inline constexpr int kMaxGpus = 8;             ///< the simulator's limit, and the largest host tested
inline constexpr int kMaxDeviceOrdinal = 63;
inline constexpr std::uint64_t kMaxAllreduceBytes = 16ull << 30;
inline constexpr int kMaxBuckets = 1024;
inline constexpr std::uint64_t kMaxActivationBytes = 16ull << 30;
inline constexpr int kMaxMicroBatches = 1024;
}  // namespace limits

// Names as users and scripts type them ("async", "pinned", "depth-first", ...).
std::string_view toString(TransferMode v);
std::string_view toString(HostMemory v);
std::string_view toString(IssueOrder v);
std::string_view toString(SyncMode v);
std::string_view toString(DataResidency v);
std::string_view toString(ModelPreset v);
std::string_view toString(ParallelMode v);
std::optional<TransferMode> parseTransferMode(std::string_view s);
std::optional<HostMemory> parseHostMemory(std::string_view s);
std::optional<IssueOrder> parseIssueOrder(std::string_view s);
std::optional<SyncMode> parseSyncMode(std::string_view s);
std::optional<DataResidency> parseDataResidency(std::string_view s);
std::optional<ModelPreset> parseModelPreset(std::string_view s);
std::optional<ParallelMode> parseParallelMode(std::string_view s);

/// The accepted spellings, for help texts and error messages ("pageable|pinned|...").
std::string choices(const std::vector<std::string_view>& names);
std::vector<std::string_view> transferModeNames();
std::vector<std::string_view> hostMemoryNames();
std::vector<std::string_view> issueOrderNames();
std::vector<std::string_view> syncModeNames();
std::vector<std::string_view> dataResidencyNames();
std::vector<std::string_view> modelPresetNames();
std::vector<std::string_view> parallelModeNames();

/// "0,2,3" for a device list (what --devices takes).
std::string formatDeviceList(const std::vector<int>& devices);
/// Parses "0,2,3" into GPU ordinals; nullopt when malformed (empty items, not a
/// non-negative integer). Range and duplicates are validate()'s job.
std::optional<std::vector<int>> parseDeviceList(std::string_view s);

/// Human-readable byte count with binary units ("32 MiB").
std::string formatBytes(std::uint64_t bytes);
/// Parses "512K", "32M", "1G", "4096", "1.5MiB" into bytes; nullopt when malformed.
std::optional<std::uint64_t> parseBytes(std::string_view s);

}  // namespace pipescope
