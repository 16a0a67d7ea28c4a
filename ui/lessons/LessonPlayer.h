#pragma once
// Plays a lesson's runs one after another through the main window, then checks what
// the lesson claims on the runs' metrics. Two ways, by the backend the lesson runs on:
// - the simulator: each run plays live in the main window, slowed down to be
//   watched (the legacy GPUs of the issue-order lesson always run this way);
// - the GPU (or auto): a worker measures every run, repeated, off the UI thread
//   (runLesson), then each measured run is replayed in the main window at the same
//   slow-motion pace, so the staircase builds up in front of the class from the
//   real measured ops. Claims are judged on the medians with their spread, and the
//   simulator's prediction stands beside each measured run.
// The user's backend choice in the control panel is put back when the lesson ends.
#include <QObject>
#include <QString>
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/ClaimVerdict.h"
#include "analysis/Lesson.h"
#include "analysis/LessonRunner.h"
#include "backend/Backend.h"
#include "trace/Trace.h"

namespace pipescope::ui {

class MainWindow;
class LessonWorker;

struct LessonResult {
  std::vector<std::shared_ptr<Trace>> traces;  ///< each run's (median) trace
  std::vector<Metrics> metrics;
  std::vector<ClaimVerdict> checks;
  int observedChoice = -1;
  QString numbers;
  bool measured = false;  ///< on a real GPU, repeated
  QString setting;        ///< where the runs ran, how often (formatLessonSetting)
  QString runs;           ///< each run's median, spread and prediction (formatLessonRuns); measured lessons
  bool allHold() const;
};

/// The backend a lesson run uses: the user's, or the simulator with the run's own
/// profile; in slow motion a simulated run is slowed down to take about
/// LessonPlayer::kWatchSeconds (a quick simulation first tells how long it is).
/// Sets `error` when the profile cannot be loaded.
BackendOptions lessonBackend(const LessonRun& run, const BackendOptions& user, bool slowMotion, QString* error);
/// Slowdown that makes a replay of a run of `makespanNs` take about kWatchSeconds.
double replaySlowdown(double makespanNs);

class LessonPlayer : public QObject {
  Q_OBJECT
 public:
  /// Wall-clock seconds a run takes in slow motion (about; short runs are never
  /// slowed down by more than kMaxSlowdown, replays of measured runs by kMaxReplaySlowdown).
  static constexpr double kWatchSeconds = 2.5;
  static constexpr double kMaxSlowdown = 400;
  /// A GPU run of a millisecond needs more than the simulator's cap to be watched;
  /// a replay costs nothing but sleeping.
  static constexpr double kMaxReplaySlowdown = 20000;
  /// Pause between a lesson's runs in slow motion.
  static constexpr int kPauseMs = 800;

  explicit LessonPlayer(MainWindow& window);
  ~LessonPlayer() override;

  /// Off: runs go as fast as possible (tests, impatient users).
  void setSlowMotion(bool on) { slowMotion_ = on; }
  bool slowMotion() const { return slowMotion_; }
  /// Where the lesson's "this GPU" runs go; nullopt = the control panel's backend.
  void setBackendChoice(std::optional<BackendChoice> choice) { choice_ = choice; }
  std::optional<BackendChoice> backendChoice() const { return choice_; }
  /// Repetitions of each measured run (the simulator runs once).
  void setRepetitions(int reps) { reps_ = std::max(reps, 1); }
  int repetitions() const { return reps_; }

  /// Starts the lesson; false (and failed()) when it cannot start.
  bool start(const Lesson& lesson);
  /// Stops the measurement or the run in progress; the lesson ends with failed().
  void stop();
  bool playing() const { return lesson_ != nullptr; }
  /// True while the worker measures (before the replay).
  bool measuring() const;
  int currentRun() const { return index_; }
  /// The measured lesson being replayed (or last replayed); null for live lessons.
  std::shared_ptr<const LessonOutcome> measured() const { return measured_; }

 signals:
  void runStarted(int index, int count, QString label);
  void progress(QString text);  ///< while measuring
  void finished(const pipescope::ui::LessonResult& result);
  void failed(QString message);

 private:
  bool startRun();
  bool startReplay();
  void onMeasured(std::shared_ptr<const LessonOutcome> outcome);
  void onRunCompleted(std::shared_ptr<Trace> trace);
  void finishLive();
  void finishMeasured();
  void end();

  MainWindow& window_;
  LessonWorker* worker_;
  const Lesson* lesson_ = nullptr;
  int index_ = -1;
  bool slowMotion_ = true;
  int reps_ = 3;
  std::optional<BackendChoice> choice_;
  BackendOptions userBackend_;
  std::shared_ptr<const LessonOutcome> measured_;  // set: this lesson replays measured runs
  std::shared_ptr<Trace> expected_;
  LessonResult result_;
};

}  // namespace pipescope::ui
