#pragma once
// Runs a sweep through the ordinary Backend interface (simulator or CUDA), one point
// after the other on the calling thread. The UI calls it from a worker thread, the
// CLI from its main thread; cancellation is a flag any thread may set.
#include <functional>
#include <memory>
#include <stop_token>
#include <vector>

#include "backend/Backend.h"
#include "sweep/SweepResult.h"

namespace pipescope {

/// Cancels a sweep from any thread: the point being run stops between operations and
/// is discarded; finished points are kept.
class SweepCancel {
 public:
  void cancel() { source_.request_stop(); }
  bool cancelled() const { return source_.stop_requested(); }
  std::stop_token token() const { return source_.get_token(); }

 private:
  std::stop_source source_;
};

struct SweepProgress {
  std::size_t pointsDone = 0;           ///< finished points (the next one is being run)
  std::size_t totalPoints = 0;
  const SweepPointSpec* point = nullptr;  ///< the point about to run; null once all are done
  int repetition = 0;                   ///< 0-based repetition about to run
  double elapsedSec = 0;
  double etaSec = -1;                   ///< estimated seconds left; -1 until one point finished
};

struct SweepCallbacks {
  /// Before each repetition of each point, and once at the end (point == null).
  std::function<void(const SweepProgress&)> progress;
  /// After each point finished (the result is final; the UI may draw it at once).
  std::function<void(const SweepPointResult&)> pointFinished;
};

/// Validates the spec (std::invalid_argument with every problem, one per line),
/// then runs every point. A failing point is kept with its error and the sweep goes
/// on. On a deterministic backend (the simulator) repetitions would be identical, so
/// each point runs once and the result says so in its notes.
SweepResult runSweep(const SweepSpec& spec, Backend& backend, const SweepCallbacks& callbacks = {},
                     const SweepCancel* cancel = nullptr);

/// Runs one point `repeats` times into `p` (config, repetitions, spread, the median
/// repetition's verdict; a failure as p.outcome) and `traces` (one per repetition).
/// False when cancelled midway: `p` is then not a result. The sweep and the
/// simulator's prediction of a measured sweep both measure points through this.
bool measurePoint(Backend& backend, const PipelineConfig& config, int warmupBatches, int repeats,
                  const SweepCancel* cancel, SweepPointResult& p, std::vector<std::shared_ptr<Trace>>& traces,
                  const std::function<void(int repetition)>& beforeRepetition = {});

/// The measured window of one run: everything after the end of the warm-up batches
/// (the latest end of any op of batch < warmup). 0 when warmup is 0.
std::int64_t warmupEndNs(const Trace& trace, int warmupBatches);
/// Metrics over the measured window (the same call the sweep makes for each point).
Metrics measuredMetrics(const Trace& trace, int warmupBatches);

}  // namespace pipescope
