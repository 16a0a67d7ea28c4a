#pragma once
// The sweep's grid definition: batch sizes, stream counts, optional host memory
// types and model presets (comma-separated, as on the command line), batches per
// point, warm-up, repetitions and the simulator prediction. The base configuration
// and the backend are the control panel's.
#include <QWidget>
#include <optional>

#include "sweep/SweepSpec.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace pipescope::ui {

class SweepGridForm : public QWidget {
  Q_OBJECT
 public:
  explicit SweepGridForm(QWidget* parent = nullptr);

  /// The grid on top of `base`, or nullopt with every problem in `error` (one per line).
  std::optional<SweepSpec> spec(const PipelineConfig& base, QString* error) const;
  /// Fills the fields from a spec (a loaded sweep).
  void setSpec(const SweepSpec& spec);

  bool predictionWanted() const;
  std::string predictionProfile() const;
  void setPrediction(bool on, const QString& profile);

  QLineEdit* batchSizesEdit() const { return batchSizes_; }
  QLineEdit* streamsEdit() const { return streams_; }
  QLineEdit* memoriesEdit() const { return memories_; }
  QLineEdit* modelsEdit() const { return models_; }
  QSpinBox* batchesSpin() const { return batches_; }
  QSpinBox* warmupSpin() const { return warmup_; }
  QSpinBox* repeatsSpin() const { return repeats_; }

 signals:
  void edited();

 private:
  QLineEdit* batchSizes_;
  QLineEdit* streams_;
  QLineEdit* memories_;
  QLineEdit* models_;
  QSpinBox* batches_;
  QSpinBox* warmup_;
  QSpinBox* repeats_;
  QCheckBox* predict_;
  QComboBox* predictProfile_;
};

}  // namespace pipescope::ui
