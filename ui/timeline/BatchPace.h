#pragma once
// How fast a live run produces batches and how long its stage ops last, learned
// from the ops as they are published. The follow-live window (FollowWindow) sizes
// itself from these two figures so that it always spans a few whole batches.
//
// Qt-free and incremental: update() looks only at the ops published since the last
// call, so its cost per display frame is the number of new ops.
#include <cstdint>
#include <map>
#include <optional>

#include "trace/TraceStore.h"

namespace pipescope::ui {

class BatchPace {
 public:
  /// Batches the period is averaged over (the newest ones: a knob changed during
  /// the run changes the pace within a few batches).
  static constexpr int kPeriodBatches = 16;

  void clear();
  /// Reads the ops of `view` not seen yet (a later snapshot of the same store).
  void update(const TraceView& view);

  /// Batches seen so far (highest batch index + 1 minus the lowest).
  std::int64_t batches() const { return starts_.empty() ? 0 : lastBatch_ - firstBatch_ + 1; }
  /// Time between the starts of consecutive batches, over the newest ones; empty
  /// until two batches have started.
  std::optional<double> periodNs() const;
  /// The shortest average duration among the stage kinds (pre/postprocess, copies,
  /// kernels): the op that must stay a few pixels wide. Empty until one is seen.
  std::optional<double> shortestStageNs() const;

 private:
  std::uint64_t seenEnd_ = 0;
  std::int32_t firstBatch_ = 0, lastBatch_ = 0;
  std::map<std::int32_t, std::int64_t> starts_;  // newest batches -> earliest op start
  struct Mean {
    double sum = 0;
    std::int64_t count = 0;
  };
  Mean stage_[5];  // Preprocess, CopyH2D, Kernel, CopyD2H, Postprocess
};

}  // namespace pipescope::ui
