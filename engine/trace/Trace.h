#pragma once
// Everything one run produced. Shared between the engine thread (writer) and the
// UI/CLI (readers): the op store has its own lock-free publication, the small
// metadata (lanes, names, outcome) is guarded by a mutex and read as copies.
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/PipelineConfig.h"
#include "trace/DeviceInfo.h"
#include "trace/Lane.h"
#include "trace/Op.h"
#include "trace/RankInfo.h"
#include "trace/TraceStore.h"

namespace pipescope {

enum class RunState : std::uint8_t { NotStarted, Running, Finished, Stopped, Failed };
std::string_view toString(RunState s);

struct RunOutcome {
  RunState state = RunState::NotStarted;
  std::string message;  ///< the error for Failed, a note otherwise
  bool operator==(const RunOutcome&) const = default;
};

/// How the iterations of an imported trace were found (engine/io/IterationDetection.h):
/// each iteration is a batch (Op::batch), so imported traces get the batch analysis.
struct IterationInfo {
  std::int64_t count = 0;        ///< iterations found (0: see `why`)
  std::string source;            ///< "ProfilerStep#N ranges", "host user ranges", "GPU user ranges", "--iteration-marker"
  std::string marker;            ///< the range name that starts an iteration ("ProfilerStep#*", "cpu_to_gpu")
  std::string why;               ///< when count == 0: why none was found and what to do
  std::int64_t samplesPerIteration = 0;  ///< 0 = unknown (--batch-size, or the trace's input shapes)
  std::string samplesSource;     ///< "--batch-size", "input shapes of aten::conv2d", ...
  bool operator==(const IterationInfo&) const = default;
};

/// A configuration that took effect from `firstBatch` on (live changes).
struct ConfigChange {
  std::int32_t firstBatch = 0;
  PipelineConfig config;
  bool operator==(const ConfigChange&) const = default;
};

class Trace {
 public:
  explicit Trace(std::uint64_t maxOps = 0) : ops_(maxOps) {}
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  TraceStore& ops() { return ops_; }
  const TraceStore& ops() const { return ops_; }

  // Configuration: the first entry is the one the run started with.
  void setConfig(const PipelineConfig& config);
  void addConfigChange(std::int32_t firstBatch, const PipelineConfig& config);
  PipelineConfig config() const;  ///< the configuration the run started with
  std::vector<ConfigChange> configHistory() const;

  /// The first (for one GPU, the only) device; setDevice replaces it alone.
  void setDevice(const DeviceInfo& device);
  DeviceInfo device() const;
  /// Every GPU of the run, in the order Lane::device numbers them; never empty (a
  /// one-GPU trace lists device() alone). `devices` must not be empty.
  void setDevices(std::vector<DeviceInfo> devices);
  std::vector<DeviceInfo> devices() const;
  std::size_t deviceCount() const;

  /// Adds a lane, or returns the existing one with the same kind, index and device.
  /// Without a device: defaultLaneDevice(kind) (host lanes shared, GPU lanes on GPU 0).
  std::uint16_t lane(LaneKind kind, int index, const std::string& name);
  std::uint16_t lane(LaneKind kind, int index, int device, const std::string& name);
  std::vector<Lane> lanes() const;
  std::size_t laneCount() const;

  /// Interns an op name ("normalize", "cudaLaunchKernel", an imported kernel name).
  /// Index 0 is reserved for "use the op kind's name".
  std::uint16_t internName(const std::string& name);
  std::vector<std::string> names() const;
  /// The name an op should be shown with.
  std::string opName(const Op& op) const;

  void setOutcome(RunOutcome outcome);
  RunOutcome outcome() const;

  /// Number of batches the run completed (the metrics' N).
  void setCompletedBatches(std::int64_t n);
  std::int64_t completedBatches() const;

  /// Imported traces: how their iterations (batches) were found; empty for native runs.
  void setIterations(IterationInfo info);
  IterationInfo iterations() const;

  /// Imported traces of distributed jobs: one entry for a single rank's file, one per
  /// rank for a merged folder of ranks (in rank order); empty otherwise.
  void setRanks(std::vector<RankInfo> ranks);
  std::vector<RankInfo> ranks() const;

 private:
  mutable std::mutex mutex_;
  std::vector<ConfigChange> configs_;
  std::vector<DeviceInfo> devices_{DeviceInfo{}};
  std::vector<Lane> lanes_;
  std::vector<std::string> names_{std::string()};
  std::unordered_map<std::string, std::uint16_t> nameIndex_;
  RunOutcome outcome_;
  std::int64_t completedBatches_ = 0;
  IterationInfo iterations_;
  std::vector<RankInfo> ranks_;
  TraceStore ops_;
};

}  // namespace pipescope
