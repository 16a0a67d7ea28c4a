#include "lessons/LessonPlayer.h"

#include <QTimer>
#include <algorithm>

#include "MainWindow.h"
#include "analysis/SimulatedRun.h"
#include "controls/ControlPanel.h"
#include "run/RunController.h"
#include "sim/DeviceProfile.h"

namespace pipescope::ui {

bool LessonResult::allHold() const {
  return std::all_of(checks.begin(), checks.end(), [](const ExpectationCheck& c) { return c.holds; });
}

LessonPlayer::LessonPlayer(MainWindow& window) : QObject(&window), window_(window) {
  connect(&window, &MainWindow::runCompleted, this, &LessonPlayer::onRunCompleted);
}

bool LessonPlayer::start(const Lesson& lesson) {
  if (playing()) return false;
  if (window_.runController().running()) {
    emit failed(tr("A run is in progress: stop it (or let it finish) before starting the lesson."));
    return false;
  }
  lesson_ = &lesson;
  index_ = 0;
  result_ = LessonResult{};
  userBackend_ = window_.controlPanel().backendOptions();
  return startRun();
}

BackendOptions lessonBackend(const LessonRun& run, const BackendOptions& user, bool slowMotion, QString* error) {
  BackendOptions b = user;
  if (!run.profile.empty()) {
    b.choice = BackendChoice::Simulator;  // a legacy GPU exists only in the simulator
    b.simulatorProfile = run.profile;
  }
  b.simulatorSlowdown = 0;
  if (slowMotion && b.choice == BackendChoice::Simulator) {
    // Slow the simulator down so that this run takes about kWatchSeconds: a quick
    // simulation first tells how long the run is (milliseconds of CPU time).
    std::string profileError;
    const auto profile = loadDeviceProfile(b.simulatorProfile, profileError);
    if (!profile) {
      if (error) *error = QString::fromStdString(profileError);
      return b;
    }
    const SimulatedRun preview = simulate(run.config, *profile);
    const double seconds = preview.metrics.makespanNs * 1e-9;
    if (seconds > 0)
      b.simulatorSlowdown = std::clamp(LessonPlayer::kWatchSeconds / seconds, 1.0, LessonPlayer::kMaxSlowdown);
  }
  return b;
}

bool LessonPlayer::startRun() {
  const LessonRun& run = lesson_->runs[std::size_t(index_)];
  QString error;
  const BackendOptions backend = lessonBackend(run, userBackend_, slowMotion_, &error);
  if (!error.isEmpty()) {
    end();
    emit failed(tr("Run '%1' cannot start: %2").arg(QString::fromStdString(run.label), error));
    return false;
  }
  window_.controlPanel().setBackendOptions(backend);
  emit runStarted(index_, int(lesson_->runs.size()), QString::fromStdString(run.label));
  const auto before = window_.currentTrace();
  window_.startRun(run.config);
  if (window_.currentTrace() == before) {  // runStarted never came: the window showed why
    const QString why = window_.lastError();
    end();
    emit failed(tr("Run '%1' did not start: %2").arg(QString::fromStdString(run.label), why));
    return false;
  }
  expected_ = window_.currentTrace();
  return true;
}

void LessonPlayer::onRunCompleted(std::shared_ptr<Trace> trace) {
  if (!playing() || trace != expected_) return;  // not one of the lesson's runs
  const LessonRun& run = lesson_->runs[std::size_t(index_)];
  const RunOutcome outcome = trace->outcome();
  if (outcome.state != RunState::Finished) {
    end();
    emit failed(outcome.state == RunState::Stopped
                    ? tr("The lesson stopped during run '%1'. Press Run to start it again.")
                          .arg(QString::fromStdString(run.label))
                    : tr("Run '%1' failed: %2").arg(QString::fromStdString(run.label),
                                                   QString::fromStdString(outcome.message)));
    return;
  }
  result_.traces.push_back(trace);
  result_.metrics.push_back(computeMetrics(*trace));
  if (++index_ < int(lesson_->runs.size())) {
    // Later: every other listener sees this run complete before the next one starts,
    // and in slow motion the finished run stays on screen for a moment.
    QTimer::singleShot(slowMotion_ ? kPauseMs : 0, this, [this] {
      if (playing()) startRun();
    });
    return;
  }
  for (const Expectation& e : lesson_->expectations)
    result_.checks.push_back({e.describe(lesson_->runs), e.holds(result_.metrics)});
  result_.observedChoice = observedChoice(lesson_->prediction, result_.metrics);
  if (lesson_->numbers) result_.numbers = QString::fromStdString(lesson_->numbers(result_.metrics));
  const LessonResult result = result_;
  end();
  emit finished(result);
}

void LessonPlayer::stop() {
  if (!playing()) return;
  if (window_.runController().running()) {
    window_.stopRun();  // the run's completion ends the lesson
    return;
  }
  end();  // between two runs
  emit failed(tr("The lesson was stopped. Press Run to start it again."));
}

void LessonPlayer::end() {
  lesson_ = nullptr;
  index_ = -1;
  expected_.reset();
  window_.controlPanel().setBackendOptions(userBackend_);
}

}  // namespace pipescope::ui
