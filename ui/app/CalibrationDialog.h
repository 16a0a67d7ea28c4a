#pragma once
// Run › Calibrate this GPU…: measures the GPU at hand and its host into this
// machine's profile (engine/sim/MachineProfiles.h), which every prediction for runs
// on that GPU then uses. The calibration runs through the engine on a worker
// thread (the UI never calls CUDA); the dialog shows its progress and where the
// profile was saved, or what went wrong.
#include <QDialog>
#include <QString>
#include <functional>
#include <optional>
#include <stop_token>
#include <thread>

#include "backend/MachineCalibration.h"
#include "sim/MachineProfiles.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;

namespace pipescope::ui {

/// What the dialog needs from the outside world; tests replace each part.
struct CalibrationServices {
  std::function<GpuPresence()> presence = [] { return probeGpuPresence(0); };
  std::function<DeviceProfile(const MachineCalibrationOptions&)> calibrate = calibrateMachine;
  std::function<MachineContext()> machine = [] { return MachineContext::current(); };
};

class CalibrationDialog : public QDialog {
  Q_OBJECT
 public:
  CalibrationDialog(const QString& deviceName, CalibrationServices services, QWidget* parent = nullptr);
  ~CalibrationDialog() override;

  enum class State { Ready, Running, Done, Failed };
  State state() const { return state_; }
  /// Starts the calibration (the Start button); `quick` chooses the 20-second kind.
  void start(bool quick);
  int progressPermille() const;
  QString stageText() const;
  QString resultText() const;
  QString savedPath() const { return savedPath_; }
  void reject() override;  ///< ignored while the calibration runs (it cannot be interrupted)

 signals:
  /// The calibration is saved at `path`: predictions for runs on this GPU use it.
  void calibrated(QString path);
  void finished(bool ok);

 private:
  void onProgress(double fraction, const QString& stage);
  void onLog(const QString& line);
  void onDone(std::optional<DeviceProfile> profile, const QString& error);
  void setState(State s);

  QString deviceName_;
  CalibrationServices services_;
  State state_ = State::Ready;
  QRadioButton* full_;
  QRadioButton* quick_;
  QPushButton* startButton_;
  QPushButton* closeButton_;
  QProgressBar* bar_;
  QLabel* stage_;
  QLabel* result_;
  QPlainTextEdit* log_;
  QString savedPath_;
  std::jthread worker_;
};

}  // namespace pipescope::ui
