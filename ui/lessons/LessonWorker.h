#pragma once
// Measures a lesson off the UI thread: every run with its repetitions on the chosen
// backend (runLesson), reporting progress, so the window stays responsive while the
// GPU works. The lesson player then replays the measured runs at a readable pace.
#include <QObject>
#include <QString>
#include <memory>
#include <thread>

#include "analysis/LessonRunner.h"

namespace pipescope::ui {

class LessonWorker : public QObject {
  Q_OBJECT
 public:
  explicit LessonWorker(QObject* parent = nullptr);
  ~LessonWorker() override;  ///< stops the measurement and joins its thread

  /// Starts measuring; false when a measurement is already running.
  bool start(const Lesson& lesson, LessonRunOptions options);
  /// Asks the measurement to stop between runs; finished() follows with the error.
  void stop();
  bool running() const { return running_; }

 signals:
  /// "run 3 of 18: 4 streams (repetition 2 of 3)".
  void progress(QString text);
  /// On the UI thread, once the measurement has ended (outcome.error says why it failed).
  void finished(std::shared_ptr<const pipescope::LessonOutcome> outcome);

 private:
  std::jthread thread_;
  bool running_ = false;
};

}  // namespace pipescope::ui
