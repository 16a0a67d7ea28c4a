#pragma once
// The wait causes of the trace on screen, kept up to date without blocking the UI:
// refresh() (called on the metrics timer, 4 Hz) recomputes only when the trace
// grew; small traces are analysed on the spot (well under a millisecond per
// thousand ops), large ones on a worker thread whose result arrives as a queued
// call. Readers get an immutable snapshot that stays valid while they hold it.
// A trace too large to analyse whole (WaitWindows.h) gets its summary window by
// window, and the overlay and tooltips the ops of one window: the one around the
// time range the timeline shows (showTime()), the newest ops until it says.
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <thread>

#include "analysis/WaitAnalysis.h"
#include "analysis/WaitSummary.h"
#include "analysis/WaitWindows.h"
#include "trace/Trace.h"

namespace pipescope::ui {

/// One analysis of one snapshot of a trace.
struct WaitAnalysisResult {
  TraceView ops;              ///< the snapshot analysed (keeps its chunks alive)
  std::vector<Lane> lanes;
  WaitAnalysis analysis;
  WaitSummary summary;
  QStringList sentences;      ///< describeSummary()
  /// The tooltip text of one op ("waited 0.31 ms: ..."); empty when it did not wait
  /// or is not covered by this snapshot.
  QString describe(std::uint64_t globalIndex) const;
};

class WaitAnalysisModel : public QObject {
  Q_OBJECT
 public:
  /// From this many ops on, the analysis runs on a worker thread.
  static constexpr std::uint64_t kSyncOps = 20'000;

  explicit WaitAnalysisModel(QObject* parent = nullptr);
  ~WaitAnalysisModel() override;  ///< waits for a worker in progress

  void setTrace(std::shared_ptr<const Trace> trace);  ///< nullptr clears
  /// From how many ops on the worker thread is used (tests exercise both paths).
  void setSyncLimit(std::uint64_t ops) { syncLimit_ = ops; }
  /// When a trace is analysed by window, and how (tests use small windows).
  void setWindowing(const WaitWindowing& w) { windowing_ = w; }
  /// Recomputes when the trace published ops since the last analysis.
  void refresh();
  /// The timeline shows [fromNs, toNs): on a trace analysed by window, moves the
  /// analysis the overlay and tooltips read to the window of ops around it (on the
  /// worker thread; the summary stays). Does nothing when every op is covered.
  void showTime(std::int64_t fromNs, std::int64_t toNs);
  std::shared_ptr<const WaitAnalysisResult> result() const { return result_; }
  /// True while a worker computes (tests wait on it).
  bool busy() const { return worker_.joinable() && !workerDone_.load(); }

 signals:
  void updated();  ///< result() changed (or was cleared)

 private:
  void analyse(TraceView ops, std::vector<Lane> lanes);
  void refocus();
  template <typename Compute>
  void runOnWorker(Compute compute);
  void adopt(std::shared_ptr<const WaitAnalysisResult> result, std::uint64_t generation);

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const WaitAnalysisResult> result_;
  std::uint64_t analysedEnd_ = 0, analysedBegin_ = 0;
  std::uint64_t generation_ = 0;  // bumped per trace: late results of an old trace are dropped
  bool pending_ = false;          // the trace grew while a worker ran
  static constexpr std::uint64_t kNewest = ~std::uint64_t(0);
  std::uint64_t focusOp_ = kNewest;  // the op the windowed analysis is centred on
  bool focusPending_ = false;        // showTime() asked for another window while a worker ran
  std::uint64_t syncLimit_ = kSyncOps;
  WaitWindowing windowing_;
  std::jthread worker_;
  std::atomic<bool> workerDone_{true};
};

}  // namespace pipescope::ui
