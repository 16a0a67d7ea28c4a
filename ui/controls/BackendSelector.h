#pragma once
// Chooses what runs the pipeline: the CUDA GPU when this build has the backend,
// otherwise (or by choice) the simulator with a device profile and a slow-motion
// factor, so a 25 ms simulated run can be watched as it happens.
#include <QWidget>

#include "backend/Backend.h"

class QComboBox;
class QDoubleSpinBox;

namespace pipescope::ui {

class BackendSelector : public QWidget {
  Q_OBJECT
 public:
  /// Default slow motion of the simulator in the app: 1 simulated ms takes 200 wall ms.
  static constexpr double kDefaultSlowdown = 200.0;

  explicit BackendSelector(QWidget* parent = nullptr);
  BackendOptions options() const;
  void setOptions(const BackendOptions& options);

 signals:
  void optionsChanged();

 private:
  void updateEnabled();

  QComboBox* kind_;
  QComboBox* profile_;
  QDoubleSpinBox* slowdown_;
};

}  // namespace pipescope::ui
