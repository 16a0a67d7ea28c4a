#include "recording/RecordActions.h"

#include <QAction>
#include <QMessageBox>
#include <QStatusBar>

#include "MainWindow.h"
#include "controls/ControlPanel.h"
#include "controls/TraceSourceBox.h"
#include "recording/RecordController.h"
#include "recording/RecordDialog.h"
#include "run/RunController.h"

namespace pipescope::ui {

namespace {
/// The Controls dock describes the recording (its settings describe a pipescope run).
void showSource(MainWindow& window, const Trace& trace, const QString& command, bool live) {
  TraceSource source;
  source.fileName = command;
  source.format = live ? QObject::tr("live recording of a program (CUDA injection, CUPTI)")
                       : QObject::tr("recording of a program (CUDA injection, CUPTI)");
  const DeviceInfo device = trace.device();
  source.device = QString::fromStdString(device.name);
  source.timingSource = QString::fromStdString(device.timingSource);
  window.controlPanel().showTraceSource(source, std::nullopt);
}
}  // namespace

RecordActions::RecordActions(MainWindow& window) : QObject(&window), window_(window) {
  controller_ = new RecordController(this);
  record_ = new QAction(tr("&Record a program…"), this);
  record_->setObjectName("action.record");
  record_->setToolTip(tr("Run a CUDA program of yours and show its GPU timeline live"));
  stopAndEnd_ = new QAction(tr("Stop and &end the program"), this);
  stopAndEnd_->setObjectName("action.recordStopAndEnd");
  stopAndEnd_->setToolTip(tr("Stop recording and end the recorded program (Stop leaves it running)"));
  stopAndEnd_->setEnabled(false);
  connect(record_, &QAction::triggered, this, &RecordActions::openDialog);
  connect(stopAndEnd_, &QAction::triggered, controller_, &RecordController::stopAndEnd);

  connect(controller_, &RecordController::recordingStarted, this, [this](std::shared_ptr<Trace> trace, QString title) {
    window_.beginLiveTrace(trace, tr("recording %1").arg(title));
    showSource(window_, *trace, title, /*live=*/true);
    record_->setEnabled(false);
    stopAndEnd_->setEnabled(true);
  });
  connect(controller_, &RecordController::tick, &window_, &MainWindow::liveTick);
  connect(controller_, &RecordController::recordingFinished, this,
          [this](std::shared_ptr<Trace> live, std::shared_ptr<Trace> finished, QStringList findings) {
            record_->setEnabled(true);
            stopAndEnd_->setEnabled(false);
            window_.endLiveTrace(std::move(live));
            // The finished recording, with its iterations, is what the analysis reads.
            window_.showTrace(finished, controller_->title());
            showSource(window_, *finished, controller_->title(), /*live=*/false);
            const RunOutcome outcome = window_.currentTrace()->outcome();
            if (window_.currentTrace()->ops().publishedCount() == 0 || outcome.state == RunState::Failed) {
              window_.showError(tr("Recording of %1: %2\n%3")
                                    .arg(controller_->title(), QString::fromStdString(outcome.message),
                                         findings.join('\n')));
            } else {
              window_.statusBar()->showMessage(
                  findings.isEmpty() ? tr("Recording ended: %1").arg(QString::fromStdString(outcome.message))
                                     : findings.join("; "),
                  15000);
            }
          });
  connect(controller_, &RecordController::errorOccurred, &window_, &MainWindow::showError);
  connect(controller_, &RecordController::autosaving, this, [this](const QString& path) {
    window_.statusBar()->showMessage(tr("Autosaving this recording to %1").arg(path), 8000);
  });
}

bool RecordActions::start(const record::RecordRequest& request) {
  if (window_.runController().running()) {
    window_.showError(tr("A run is in progress: stop it first (Run > Stop), so that the recording has the GPU to "
                         "itself."));
    return false;
  }
  controller_->autosave().setEnabled(window_.runController().autosave().enabled());
  controller_->autosave().setFolder(window_.runController().autosave().folder());
  return controller_->start(request);
}

bool RecordActions::recording() const { return controller_->recording(); }

void RecordActions::stop() { controller_->stop(); }

void RecordActions::openDialog() {
  auto* dialog = new RecordDialog(&window_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setForm(lastForm_);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    lastForm_ = dialog->form();
    if (const auto request = dialog->request()) start(*request);
  });
  dialog->open();
}

}  // namespace pipescope::ui
