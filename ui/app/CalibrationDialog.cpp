#include "app/CalibrationDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

namespace pipescope::ui {

CalibrationDialog::CalibrationDialog(const QString& deviceName, CalibrationServices services, QWidget* parent)
    : QDialog(parent), deviceName_(deviceName), services_(std::move(services)) {
  setWindowTitle(tr("Calibrate this GPU"));
  setObjectName("dialog.calibrate");
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("Measures the %1 and this computer into a device profile of this machine. Predictions for runs on this "
         "GPU (advice, lessons, sweeps, what-ifs) use it from then on: a built-in profile describes a typical "
         "host, and a host whose calls are slower or faster makes every prediction off by as much.")
          .arg(deviceName));
  intro->setWordWrap(true);
  layout->addWidget(intro);
  full_ = new QRadioButton(tr("&Full: every figure of the device model, about a minute"));
  quick_ = new QRadioButton(tr("&Quick: what changes with the host (call costs, wake-ups, CPU stages) on top of "
                               "the built-in profile of this GPU model, about 20 seconds"));
  full_->setChecked(true);
  layout->addWidget(full_);
  layout->addWidget(quick_);
  bar_ = new QProgressBar;
  bar_->setRange(0, 1000);
  bar_->setValue(0);
  bar_->setTextVisible(true);
  bar_->setFormat("%p%");
  layout->addWidget(bar_);
  stage_ = new QLabel(tr("Nothing else should use the GPU while it is measured."));
  stage_->setWordWrap(true);
  layout->addWidget(stage_);
  result_ = new QLabel;
  result_->setWordWrap(true);
  result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(result_);
  log_ = new QPlainTextEdit;
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  log_->setPlaceholderText(tr("Every measured figure is listed here."));
  layout->addWidget(log_, 1);
  auto* buttons = new QDialogButtonBox;
  startButton_ = buttons->addButton(tr("&Start"), QDialogButtonBox::AcceptRole);
  closeButton_ = buttons->addButton(QDialogButtonBox::Close);
  connect(startButton_, &QPushButton::clicked, this, [this] { start(quick_->isChecked()); });
  connect(closeButton_, &QPushButton::clicked, this, &CalibrationDialog::reject);
  layout->addWidget(buttons);
  resize(640, 480);
}

CalibrationDialog::~CalibrationDialog() {
  // The calibration cannot be interrupted midway (CUDA calls in flight); closing the
  // window waits for it. The callbacks below find the dialog gone and do nothing.
  if (worker_.joinable()) worker_.join();
}

void CalibrationDialog::setState(State s) {
  state_ = s;
  const bool running = s == State::Running;
  startButton_->setEnabled(!running);
  startButton_->setText(s == State::Ready ? tr("&Start") : tr("&Calibrate again"));
  full_->setEnabled(!running);
  quick_->setEnabled(!running);
  closeButton_->setEnabled(!running);
  closeButton_->setToolTip(running ? tr("The calibration cannot be interrupted; it ends by itself.") : QString());
}

void CalibrationDialog::start(bool quick) {
  if (state_ == State::Running) return;
  if (worker_.joinable()) worker_.join();
  quick_->setChecked(quick);
  full_->setChecked(!quick);
  savedPath_.clear();
  result_->clear();
  log_->clear();
  bar_->setValue(0);
  stage_->setText(tr("Starting…"));
  setState(State::Running);
  MachineCalibrationOptions o;
  o.quick = quick;
  QPointer<CalibrationDialog> self(this);
  // Progress and log lines come from the worker: hand them to the UI thread.
  o.progress = [self](double fraction, const std::string& stage) {
    QMetaObject::invokeMethod(
        self, [self, fraction, s = QString::fromStdString(stage)] {
          if (self) self->onProgress(fraction, s);
        },
        Qt::QueuedConnection);
  };
  o.log = [self](const std::string& line) {
    QMetaObject::invokeMethod(
        self, [self, l = QString::fromStdString(line)] {
          if (self) self->onLog(l);
        },
        Qt::QueuedConnection);
  };
  worker_ = std::jthread([self, o, calibrate = services_.calibrate] {
    std::optional<DeviceProfile> profile;
    QString error;
    try {
      profile = calibrate(o);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    } catch (...) {
      error = QStringLiteral("the calibration failed for an unknown reason");
    }
    QMetaObject::invokeMethod(
        self, [self, profile = std::move(profile), error] {
          if (self) self->onDone(profile, error);
        },
        Qt::QueuedConnection);
  });
}

void CalibrationDialog::onProgress(double fraction, const QString& stage) {
  bar_->setValue(int(std::clamp(fraction, 0.0, 1.0) * 1000));
  stage_->setText(tr("Measuring %1…").arg(stage));
}

void CalibrationDialog::onLog(const QString& line) { log_->appendPlainText(line); }

void CalibrationDialog::onDone(std::optional<DeviceProfile> profile, const QString& error) {
  if (!profile) {
    setState(State::Failed);
    stage_->setText(tr("The calibration did not finish."));
    result_->setText(tr("It failed: %1. Nothing was saved; predictions keep the profile they used before.").arg(error));
    emit finished(false);
    return;
  }
  try {
    savedPath_ = QString::fromStdString(saveMachineProfile(services_.machine(), *profile));
  } catch (const std::exception& e) {
    setState(State::Failed);
    result_->setText(tr("The GPU was measured, but the profile could not be saved: %1.").arg(e.what()));
    emit finished(false);
    return;
  }
  bar_->setValue(1000);
  setState(State::Done);
  stage_->setText(tr("Done."));
  result_->setText(tr("Saved as %1. Predictions for runs on the %2 use it from now on.").arg(savedPath_, deviceName_));
  emit calibrated(savedPath_);
  emit finished(true);
}

void CalibrationDialog::reject() {
  if (state_ == State::Running) return;
  QDialog::reject();
}

int CalibrationDialog::progressPermille() const { return bar_->value(); }
QString CalibrationDialog::stageText() const { return stage_->text(); }
QString CalibrationDialog::resultText() const { return result_->text(); }

}  // namespace pipescope::ui
