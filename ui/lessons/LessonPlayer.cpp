#include "lessons/LessonPlayer.h"

#include <QTimer>
#include <algorithm>

#include "MainWindow.h"
#include "analysis/LessonReport.h"
#include "analysis/SimulatedRun.h"
#include "controls/ControlPanel.h"
#include "lessons/LessonWorker.h"
#include "run/RunController.h"
#include "runner/ReplayBackend.h"
#include "sim/DeviceProfile.h"

namespace pipescope::ui {

bool LessonResult::allHold() const {
  return std::all_of(checks.begin(), checks.end(), [](const ClaimVerdict& c) { return c.holds(); });
}

LessonPlayer::LessonPlayer(MainWindow& window)
    : QObject(&window), window_(window), worker_(new LessonWorker(this)) {
  connect(&window, &MainWindow::runCompleted, this, &LessonPlayer::onRunCompleted);
  connect(worker_, &LessonWorker::progress, this, &LessonPlayer::progress);
  connect(worker_, &LessonWorker::finished, this, &LessonPlayer::onMeasured);
}

LessonPlayer::~LessonPlayer() = default;

bool LessonPlayer::measuring() const { return worker_->running(); }

bool LessonPlayer::start(const Lesson& lesson) {
  if (playing()) return false;
  if (window_.runController().running()) {
    emit failed(tr("A run is in progress: stop it (or let it finish) before starting the lesson."));
    return false;
  }
  lesson_ = &lesson;
  index_ = 0;
  result_ = LessonResult{};
  measured_.reset();
  userBackend_ = window_.controlPanel().backendOptions();
  BackendOptions backend = userBackend_;
  if (choice_) backend.choice = *choice_;
  if (backend.choice == BackendChoice::Simulator) return startRun();
  // The GPU, or auto: measure first (milliseconds a run), then replay at a readable pace.
  LessonRunOptions options = lessonOnBackend(backend);
  options.reps = reps_;
  worker_->start(lesson, std::move(options));
  emit progress(tr("Measuring the lesson's runs…"));
  return true;
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

double replaySlowdown(double makespanNs) {
  if (makespanNs <= 0) return 1.0;
  return std::clamp(LessonPlayer::kWatchSeconds / (makespanNs * 1e-9), 1.0, LessonPlayer::kMaxReplaySlowdown);
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

void LessonPlayer::onMeasured(std::shared_ptr<const LessonOutcome> outcome) {
  if (!playing()) return;
  if (!outcome->ok()) {
    const QString why = QString::fromStdString(outcome->error);
    end();
    emit failed(why.contains("stopped")
                    ? tr("The lesson was stopped while measuring. Press Run to start it again.")
                    : tr("The lesson could not be measured: %1\nTo play it anyway, pick “the simulator (live)” "
                         "under Run on.")
                          .arg(why));
    return;
  }
  measured_ = std::move(outcome);
  index_ = 0;
  startReplay();
}

bool LessonPlayer::startReplay() {
  const MeasuredRun& m = measured_->runs[std::size_t(index_)];
  const LessonRun& run = lesson_->runs[std::size_t(index_)];
  const double slowdown = slowMotion_ ? replaySlowdown(m.metrics().makespanNs) : 0.0;
  emit runStarted(index_, int(lesson_->runs.size()),
                  tr("%1 — replay of the run %2").arg(QString::fromStdString(run.label),
                                                      m.measured ? tr("measured on this GPU")
                                                                 : QString::fromStdString(m.where())));
  window_.loadConfig(run.config);
  const auto before = window_.currentTrace();
  window_.runController().start(run.config, makeReplayBackend(m.trace(), slowdown));
  if (window_.currentTrace() == before) {
    const QString why = window_.lastError();
    end();
    emit failed(tr("The replay of run '%1' did not start: %2").arg(QString::fromStdString(run.label), why));
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
  if (!measured_) {
    result_.traces.push_back(trace);
    result_.metrics.push_back(computeMetrics(*trace));
  }
  if (++index_ < int(lesson_->runs.size())) {
    // Later: every other listener sees this run complete before the next one starts,
    // and in slow motion the finished run stays on screen for a moment.
    QTimer::singleShot(slowMotion_ ? kPauseMs : 0, this, [this] {
      if (!playing()) return;
      if (measured_)
        startReplay();
      else
        startRun();
    });
    return;
  }
  if (measured_)
    finishMeasured();
  else
    finishLive();
}

void LessonPlayer::finishLive() {
  // One run each on the simulator: no spread, so every verdict is clear.
  RepeatedMetrics perRun;
  for (const Metrics& m : result_.metrics) perRun.push_back({m});
  for (const Expectation& e : lesson_->expectations) result_.checks.push_back(judgeClaim(e, lesson_->runs, perRun));
  result_.observedChoice = observedChoice(lesson_->prediction, result_.metrics);
  if (lesson_->numbers) result_.numbers = QString::fromStdString(lesson_->numbers(result_.metrics));
  const LessonResult result = result_;
  end();
  emit finished(result);
}

void LessonPlayer::finishMeasured() {
  // The verdicts come from the measured repetitions, not from the replays.
  const LessonOutcome& o = *measured_;
  for (const MeasuredRun& m : o.runs) result_.traces.push_back(m.trace());
  result_.metrics = o.metrics;
  result_.checks = o.checks;
  result_.observedChoice = o.observedChoice;
  result_.numbers = QString::fromStdString(o.numbers);
  result_.measured = o.measured();
  result_.setting = QString::fromStdString(formatLessonSetting(o));
  result_.runs = QString::fromStdString(formatLessonRuns(o));
  const LessonResult result = result_;
  end();
  emit finished(result);
}

void LessonPlayer::stop() {
  if (!playing()) return;
  if (worker_->running()) {
    worker_->stop();  // the measurement's end ends the lesson
    return;
  }
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
