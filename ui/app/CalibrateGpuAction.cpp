#include "app/CalibrateGpuAction.h"

#include <QAction>
#include <QPointer>
#include <QWidget>

namespace pipescope::ui {

CalibrateGpuAction::CalibrateGpuAction(QWidget* window, CalibrationServices services)
    : QObject(window), window_(window), services_(std::move(services)) {
  action_ = new QAction(tr("&Calibrate this GPU…"), this);
  action_->setObjectName("action.calibrateGpu");
  action_->setEnabled(false);
  action_->setToolTip(tr("Looking for a CUDA GPU…"));
  connect(action_, &QAction::triggered, this, [this] { open(); });
}

void CalibrateGpuAction::lookForGpu() {
  if (looking_) return;
  looking_ = true;
  QPointer<CalibrateGpuAction> self(this);
  probe_ = std::jthread([self, presence = services_.presence] {
    GpuPresence gpu;
    try {
      gpu = presence();
    } catch (const std::exception& e) {
      gpu.reason = e.what();
    }
    QMetaObject::invokeMethod(
        self,
        [self, gpu] {
          if (self) self->onPresence(gpu);
        },
        Qt::QueuedConnection);
  });
}

CalibrateGpuAction::~CalibrateGpuAction() {
  if (probe_.joinable()) probe_.join();
}

void CalibrateGpuAction::onPresence(const GpuPresence& gpu) {
  gpu_ = gpu;
  known_ = true;
  action_->setEnabled(gpu.available);
  const QString tip =
      gpu.available
          ? tr("Measure the %1 and this host into this machine's profile: predictions for runs on it use that "
               "instead of the built-in profile of its model")
                .arg(QString::fromStdString(gpu.deviceName))
          : tr("Not available: %1. Predictions use the built-in profiles.").arg(QString::fromStdString(gpu.reason));
  action_->setToolTip(tip);
  action_->setStatusTip(tip);
  emit presenceChanged();
}

CalibrationDialog* CalibrateGpuAction::open() {
  if (!gpu_.available) return nullptr;
  if (!dialog_) {
    dialog_ = new CalibrationDialog(QString::fromStdString(gpu_.deviceName), services_, window_);
    connect(dialog_, &CalibrationDialog::calibrated, this, &CalibrateGpuAction::calibrated);
  }
  dialog_->show();
  dialog_->raise();
  return dialog_;
}

}  // namespace pipescope::ui
