#pragma once
// Run › Calibrate this GPU…: enabled when this machine has a GPU to calibrate,
// disabled with the reason otherwise (no CUDA backend in this build, no GPU, a CUDA
// error). Opens the CalibrationDialog. The GPU is looked for only when asked
// (lookForGpu(), the first time the Run menu opens), on a worker thread: looking
// loads the CUDA module and the driver, which a start that never uses CUDA must not
// pay for (docs/cuda-backend.md, "Loading"), and a slow driver never holds up the window.
#include <QObject>
#include <QString>
#include <thread>

#include "app/CalibrationDialog.h"

class QAction;
class QWidget;

namespace pipescope::ui {

class CalibrateGpuAction : public QObject {
  Q_OBJECT
 public:
  CalibrateGpuAction(QWidget* window, CalibrationServices services = {});
  ~CalibrateGpuAction() override;
  QAction* action() const { return action_; }
  /// Starts looking for the GPU, once; later calls do nothing.
  void lookForGpu();
  /// Whether the GPU search has answered (the action's state is final).
  bool presenceKnown() const { return known_; }
  /// Opens the dialog (the action's trigger); nullptr while no GPU is known.
  CalibrationDialog* open();

 signals:
  void presenceChanged();
  void calibrated(QString path);

 private:
  void onPresence(const GpuPresence& gpu);

  QWidget* window_;
  CalibrationServices services_;
  QAction* action_;
  GpuPresence gpu_;
  bool known_ = false;
  bool looking_ = false;
  CalibrationDialog* dialog_ = nullptr;
  std::jthread probe_;
};

}  // namespace pipescope::ui
