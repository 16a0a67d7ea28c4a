#pragma once
// The one interface every way of producing a trace implements: the CUDA backend,
// the simulator, and (through the same Trace) replayed files.
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "config/PipelineConfig.h"
#include "trace/DeviceInfo.h"
#include "trace/Trace.h"

namespace pipescope {

/// What a running backend may ask of the thread that owns it.
struct RunControl {
  std::stop_token stop;
  /// Returns a configuration queued by the user, if any. Backends call it at each
  /// batch boundary and, when it returns one, drain in-flight work and continue
  /// with it from the next batch (recording a ConfigChange in the trace).
  std::function<std::optional<PipelineConfig>()> takePendingConfig = [] { return std::nullopt; };

  bool stopRequested() const { return stop.stop_requested(); }
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// "simulator" or "cuda".
  virtual std::string_view kind() const = 0;
  /// The device (or device model) this backend runs on.
  virtual DeviceInfo describe() const = 0;
  /// Runs `config` to completion, until stopped, or until an error; records lanes and
  /// ops into `trace` and publishes them at least once per batch. Errors are
  /// returned as a Failed outcome with a message the user can act on; ops recorded
  /// before the error stay in the trace. Must not be called concurrently.
  virtual RunOutcome run(const PipelineConfig& config, Trace& trace, RunControl& control) = 0;
  /// While true, a run may leave its buffers to the next run, which reuses them when
  /// they are large enough (a sweep turns this on for its points); false frees them.
  /// Backends that allocate nothing worth keeping ignore it.
  virtual void keepBuffersBetweenRuns(bool /*keep*/) {}
};

enum class BackendChoice { Simulator, Cuda, Auto };
std::string_view toString(BackendChoice c);
std::optional<BackendChoice> parseBackendChoice(std::string_view s);

struct BackendOptions {
  BackendChoice choice = BackendChoice::Auto;
  std::string simulatorProfile = "h200";  ///< built-in profile name or a JSON file path
  /// Simulator only: wall-clock seconds per simulated second (0 = as fast as possible).
  /// The UI slows the simulator down so a 25 ms run can be watched.
  double simulatorSlowdown = 0.0;
  int cudaDevice = 0;
};

/// Result of choosing a backend: the backend, or an error message; plus a note
/// when `auto` fell back to the simulator ("no CUDA device: running the simulator").
struct BackendSelection {
  std::unique_ptr<Backend> backend;
  std::string error;
  std::string note;
};
BackendSelection makeBackend(const BackendOptions& options);

/// True when this build contains the CUDA backend.
bool cudaBackendBuilt();

}  // namespace pipescope
