#pragma once
// The progress line of `record` on stderr: ops recorded, kernels per second and how
// busy the GPU's compute engines were over the last second of the program's time
// (the most recent records are about a flush interval behind), redrawn in place on a
// terminal. It reads only the ops published since its last update.
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "trace/Trace.h"

namespace pipescope::cli {

class RecordProgress {
 public:
  RecordProgress(bool enabled, bool terminal);
  /// Redraws the line when due (5 times a second on a terminal, once a second in a log).
  void update(const Trace& trace, std::size_t processes);
  /// Clears the line (terminal) before the summary.
  void finish();
  /// The line for the current figures (for tests and the log).
  std::string line(std::size_t processes, double elapsedSeconds) const;
  /// Takes in the ops published since the last call.
  void take(const Trace& trace);

  std::uint64_t ops() const { return ops_; }
  double kernelsPerSecond() const;
  /// Fraction of the last second (of recorded time) in which a kernel or memset ran.
  double gpuBusy() const;

 private:
  bool enabled_;
  bool terminal_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  std::uint64_t next_ = 0;  // first op index not yet taken in
  std::uint64_t ops_ = 0;
  std::int64_t latest_ = 0;  // latest end seen (recorded time)
  std::deque<std::pair<std::int64_t, std::int64_t>> gpu_;  // device work of the last second, in arrival order
};

}  // namespace pipescope::cli
