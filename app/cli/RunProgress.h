#pragma once
// The progress line on stderr: batches done and ops recorded, redrawn in place. It
// appears only once a run has lasted a second, so short runs print nothing extra.
#include <chrono>
#include <cstdint>
#include <string>

#include "trace/Trace.h"

namespace pipescope::cli {

class RunProgress {
 public:
  /// enabled: stderr is a terminal or --progress was given.
  RunProgress(bool enabled, std::int64_t totalBatches);
  /// Redraws the line when due (at most 5 times a second, from 1 s on).
  void update(const Trace& trace);
  /// The run is over and the rest of the trace is being written to `path`: says so
  /// on the line (when it is shown), since that can take a while.
  void finishing(const std::string& path);
  /// Clears the line (terminal) or ends it (log) before the summary.
  void finish();

 private:
  bool enabled_;
  bool shown_ = false;
  bool terminal_;
  std::int64_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace pipescope::cli
