#pragma once
// Computes the whole-run figures (metrics and chart series) of a live run off the
// GUI thread. Their cost grows with the run (every op is visited), and on the GUI
// thread a few hundred thousand ops would hold the timeline's frames back; here the
// GUI thread only asks, and shows the result when it arrives.
#include <QObject>
#include <cstdint>
#include <future>
#include <memory>

#include "metrics/Metrics.h"
#include "metrics/TimeSeries.h"
#include "trace/Trace.h"

namespace pipescope::ui {

struct RunFigures {
  Metrics metrics;
  TimeSeries series;  ///< empty while the run has no extent yet
};

/// The figures of `trace` as of now (any thread; the trace may be recording).
RunFigures computeRunFigures(const Trace& trace, int maxPoints);

/// How long after starting one computation of a live run's figures the next may start:
/// at least `minIntervalMs`, and four times what the last one took, so that the worker
/// keeps at most a quarter of a core however large the run grows. On two cores, back-
/// to-back recomputations of a long run over 4 GPUs took one core from the timeline's
/// frames and the engine.
int figuresIntervalMs(int minIntervalMs, double lastCostMs);

class FiguresWorker : public QObject {
  Q_OBJECT
 public:
  explicit FiguresWorker(int maxPoints, QObject* parent = nullptr);
  ~FiguresWorker() override;  ///< waits for a computation in flight

  /// Starts computing unless one is in flight; returns whether it started.
  bool request(std::shared_ptr<const Trace> trace);
  bool busy() const { return busy_; }
  /// What the last finished computation took, wall time (0 before the first).
  double lastCostMs() const { return lastCostMs_; }
  /// Results of computations in flight are dropped (newer figures were shown).
  void discardPending() { ++generation_; }

 signals:
  void ready(std::shared_ptr<const RunFigures> figures);

 private:
  int maxPoints_;
  std::future<void> task_;
  std::uint64_t generation_ = 0;  // GUI thread only
  bool busy_ = false;             // GUI thread only
  double lastCostMs_ = 0;         // GUI thread only
};

}  // namespace pipescope::ui
