#pragma once
// Runs a sweep (and then, if asked, the simulator's prediction of it) on its own
// thread, never the UI's. Progress and each finished point come back to the UI
// thread as queued calls; cancel() only raises a flag, so it returns at once and the
// points finished so far stay. The destructor cancels and joins.
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "backend/Backend.h"
#include "sweep/SweepRunner.h"

namespace pipescope::ui {

struct SweepJob {
  SweepSpec spec;
  BackendOptions backend;
  /// Simulator profile for the prediction; empty: no prediction.
  std::string predictProfile;
};

/// Progress as plain values (SweepProgress points into the worker's memory).
struct SweepStatus {
  std::size_t pointsDone = 0, totalPoints = 0;
  QString pointLabel;     ///< the point being run ("16 MiB x 4 streams")
  bool predicting = false;
  double elapsedSec = 0;
  double etaSec = -1;
};

class SweepWorker : public QObject {
  Q_OBJECT
 public:
  explicit SweepWorker(QObject* parent = nullptr);
  ~SweepWorker() override;

  /// Starts the job; false with `error` set when the backend cannot be created, the
  /// spec does not validate, or a sweep is still running.
  bool start(const SweepJob& job, QString* error);
  void cancel();
  /// True until the thread has ended (a cancelled sweep ends within one operation).
  bool running() const { return running_; }

 signals:
  void started(const pipescope::SweepResult& empty);  ///< spec, backend, device; no points yet
  void progressed(const pipescope::ui::SweepStatus& status);
  void pointFinished(const pipescope::SweepPointResult& point);
  void pointPredicted(const pipescope::SweepPointResult& point);
  /// The whole result (cancelled or not); `error` is set when the sweep could not run.
  void finished(std::shared_ptr<pipescope::SweepResult> result, const QString& error);

 private:
  void join();
  std::thread thread_;
  std::unique_ptr<SweepCancel> cancel_;
  std::atomic<bool> running_{false};
};

}  // namespace pipescope::ui
