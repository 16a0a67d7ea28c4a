#pragma once
// Plays a lesson's runs one after another through the main window, so each one is
// watched live on the timeline, then checks what the lesson claims on the runs'
// metrics. A run that names a device profile (the legacy GPUs of the issue-order
// lesson) always runs on the simulator with that profile; the others run on the
// backend chosen in the control panel (the simulator on a machine without a GPU).
// The user's backend choice is put back when the lesson ends.
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "analysis/Lesson.h"
#include "analysis/LessonRunner.h"
#include "backend/Backend.h"
#include "trace/Trace.h"

namespace pipescope::ui {

class MainWindow;

struct LessonResult {
  std::vector<std::shared_ptr<Trace>> traces;
  std::vector<Metrics> metrics;
  std::vector<ExpectationCheck> checks;
  int observedChoice = -1;
  QString numbers;
  bool allHold() const;
};

/// The backend a lesson run uses: the user's, or the simulator with the run's own
/// profile; in slow motion a simulated run is slowed down to take about
/// LessonPlayer::kWatchSeconds (a quick simulation first tells how long it is).
/// Sets `error` when the profile cannot be loaded.
BackendOptions lessonBackend(const LessonRun& run, const BackendOptions& user, bool slowMotion, QString* error);

class LessonPlayer : public QObject {
  Q_OBJECT
 public:
  /// Wall-clock seconds a simulated run takes in slow motion (about; short runs are
  /// never slowed down by more than kMaxSlowdown).
  static constexpr double kWatchSeconds = 2.5;
  static constexpr double kMaxSlowdown = 400;
  /// Pause between a lesson's runs in slow motion.
  static constexpr int kPauseMs = 800;

  explicit LessonPlayer(MainWindow& window);

  /// Off: simulated runs go as fast as possible (tests, impatient users).
  void setSlowMotion(bool on) { slowMotion_ = on; }
  bool slowMotion() const { return slowMotion_; }

  /// Starts the lesson's first run; false (and failed()) when it cannot start.
  bool start(const Lesson& lesson);
  /// Stops the run in progress; the lesson ends with failed("stopped").
  void stop();
  bool playing() const { return lesson_ != nullptr; }
  int currentRun() const { return index_; }

 signals:
  void runStarted(int index, int count, QString label);
  void finished(const pipescope::ui::LessonResult& result);
  void failed(QString message);

 private:
  bool startRun();
  void onRunCompleted(std::shared_ptr<Trace> trace);
  void end();

  MainWindow& window_;
  const Lesson* lesson_ = nullptr;
  int index_ = -1;
  bool slowMotion_ = true;
  BackendOptions userBackend_;
  std::shared_ptr<Trace> expected_;
  LessonResult result_;
};

}  // namespace pipescope::ui
