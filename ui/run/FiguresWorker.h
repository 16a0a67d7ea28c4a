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

class FiguresWorker : public QObject {
  Q_OBJECT
 public:
  explicit FiguresWorker(int maxPoints, QObject* parent = nullptr);
  ~FiguresWorker() override;  ///< waits for a computation in flight

  /// Starts computing unless one is in flight; returns whether it started.
  bool request(std::shared_ptr<const Trace> trace);
  bool busy() const { return busy_; }
  /// Results of computations in flight are dropped (newer figures were shown).
  void discardPending() { ++generation_; }

 signals:
  void ready(std::shared_ptr<const RunFigures> figures);

 private:
  int maxPoints_;
  std::future<void> task_;
  std::uint64_t generation_ = 0;  // GUI thread only
  bool busy_ = false;             // GUI thread only
};

}  // namespace pipescope::ui
