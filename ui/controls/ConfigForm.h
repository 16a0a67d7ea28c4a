#pragma once
// Every knob of PipelineConfig as a widget with its unit, its range (the limits the
// validation uses) and a tooltip saying what it teaches. Single-field ranges are
// enforced by the widgets; rules across fields (blocking mode needs one stream, ...)
// are left to validate(), whose messages the control panel shows inline.
#include <QWidget>
#include <optional>
#include <vector>

#include "config/PipelineConfig.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QSpinBox;

namespace pipescope::ui {

class ByteSizeEdit;

class ConfigForm : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigForm(QWidget* parent = nullptr);

  void setConfig(const PipelineConfig& config);  ///< does not emit configEdited
  /// The configuration the widgets show; nullopt while a field holds text that is
  /// not a value at all (the sample size), with the reason in `error`.
  std::optional<PipelineConfig> config(QString* error = nullptr) const;

 signals:
  void configEdited();  ///< the user changed a knob

 private:
  void edited();
  /// Several-GPU rows only where they apply: none on one GPU, the all-reduce rows in
  /// data parallel, the activation rows in pipeline parallel.
  void showGpuRows();
  std::optional<std::uint64_t> bytesOf(const ByteSizeEdit* edit, const QString& field, QString* error) const;

  bool loading_ = false;
  QComboBox* mode_;
  QComboBox* memory_;
  QSpinBox* streams_;
  QComboBox* order_;
  QComboBox* sync_;
  QSpinBox* batchSamples_;
  ByteSizeEdit* sampleBytes_;
  QSpinBox* batchCount_;
  QCheckBox* normalize_;
  QComboBox* model_;
  QDoubleSpinBox* modelFlops_;
  QSpinBox* cpuWorkers_;
  QDoubleSpinBox* preprocess_;
  QDoubleSpinBox* postprocess_;
  QComboBox* residency_;
  QDoubleSpinBox* outputRatio_;
  QDoubleSpinBox* roi_;
  QSpinBox* chunks_;
  QFormLayout* gpuForm_;
  QSpinBox* gpus_;
  QComboBox* parallel_;
  ByteSizeEdit* allreduceBytes_;
  QSpinBox* buckets_;
  ByteSizeEdit* activationBytes_;
  QSpinBox* microBatches_;
  std::vector<int> devices_;  ///< the device list last set (kept while the GPU count matches it)
};

}  // namespace pipescope::ui
