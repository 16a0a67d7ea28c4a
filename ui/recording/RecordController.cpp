#include "recording/RecordController.h"

#include <csignal>

#include "record/InjectionLibrary.h"
#include "record/RecordingAnalysis.h"
#include "run/RunController.h"

namespace pipescope::ui {

RecordController::RecordController(QObject* parent) : QObject(parent) {
  timer_.setInterval(kTickIntervalMs);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &RecordController::onTimer);
}

RecordController::~RecordController() {
  timer_.stop();
  if (recorder_) recorder_->stopRecording();
  recorder_.reset();  // joins the reader; a program still running is detached, not killed
  if (autosave_.active()) {
    QString error;
    if (!autosave_.finish(&error)) qWarning("pipescope: the recording could not be kept: %s", qPrintable(error));
  }
}

bool RecordController::start(record::RecordRequest request, const ImportOptions& analysis) {
  if (recording()) {
    emit errorOccurred(tr("A recording is in progress: stop it before starting another."));
    return false;
  }
  if (request.injectLibrary.empty()) {
    std::string why;
    const auto library = record::findInjectionLibrary(why);
    if (!library) {
      emit errorOccurred(tr("This pipescope cannot record programs: %1").arg(QString::fromStdString(why)));
      return false;
    }
    request.injectLibrary = *library;
  }
  // Its own process group: "Stop and end the program" reaches every process of it.
  request.ownProcessGroup = true;
  request.maxOps = RunController::kEndlessRunMaxOps;
  request.keepUntilStreamed = autosave_.enabled();
  auto recorder = std::make_unique<record::Recorder>(request);
  try {
    trace_ = recorder->start();
  } catch (const record::RecordStartError& e) {
    emit errorOccurred(tr("The program could not be recorded: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  title_ = QString::fromStdString(recorder->commandText());
  recorder_ = std::move(recorder);
  analysis_ = analysis;
  live_ = true;
  timer_.start();
  emit recordingStarted(trace_, title_);
  if (autosave_.enabled()) {
    QString error;
    if (autosave_.begin(trace_, &error)) {
      emit autosaving(autosave_.path());
    } else {
      trace_->ops().retainFrom(TraceStore::kRetainNone);
      emit errorOccurred(tr("This recording is not autosaved: %1\nIt goes on; save it with File > Save when it "
                            "ends.")
                             .arg(error));
    }
  }
  return true;
}

void RecordController::stop() {
  if (recording()) recorder_->stopRecording();
}

void RecordController::stopAndEnd() {
  if (!recording()) return;
  recorder_->endProgram();
  const pid_t pid = recorder_->programPid();
  QTimer::singleShot(kKillAfterMs, this, [this, pid] {
    if (recording() && recorder_->programPid() == pid && !recorder_->programStatus())
      recorder_->forwardSignal(SIGKILL);
  });
}

void RecordController::onTimer() {
  emit tick();
  if (!live_ || recorder_->recording()) return;
  live_ = false;
  timer_.stop();
  recorder_->waitForRecording();  // returns at once: the reader has finished
  recorder_->detachProgram();     // a program left running (Stop) is reaped when it ends
  if (autosave_.active()) {
    QString error;
    if (!autosave_.finish(&error))
      emit errorOccurred(tr("The autosave of this recording failed: %1\nThe recording is still in memory: save it "
                            "with File > Save.")
                             .arg(error));
  }
  QStringList findings;
  for (const auto& f : recorder_->findings()) findings << QString::fromStdString(f);
  emit recordingFinished(trace_, record::analysedRecording(*trace_, analysis_), findings);
}

}  // namespace pipescope::ui
