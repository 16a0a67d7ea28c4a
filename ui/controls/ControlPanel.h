#pragma once
// The control dock: a preset, every knob (ConfigForm), the backend, Start/Stop, and
// the validation messages inline. Start is enabled only for a configuration that
// validates. During a live run, valid edits are offered to the run, which applies
// them at its next batch boundary.
#include <QWidget>
#include <optional>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace pipescope::ui {

class BackendSelector;
class TraceSourceBox;
struct TraceSource;
class ConfigForm;

class ControlPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ControlPanel(QWidget* parent = nullptr);

  void setConfig(const PipelineConfig& config);  ///< selects the matching preset, if any
  /// The configuration shown, when it is valid.
  std::optional<PipelineConfig> config() const;
  /// Every problem of the shown configuration (empty when it can run).
  QStringList issues() const;
  bool selectPreset(const QString& name);
  QString presetName() const;  ///< empty for a custom configuration

  BackendOptions backendOptions() const;
  void setBackendOptions(const BackendOptions& options);

  /// An opened trace file is on screen: its facts replace the settings (which
  /// describe a run, not the file). `configuration`: the one the file carries.
  void showTraceSource(const TraceSource& source, std::optional<PipelineConfig> configuration);
  /// Back to the preset and settings (a run starts, or "New run…").
  void clearTraceSource();
  bool showingTraceSource() const;
  TraceSourceBox* traceSourceBox() const { return source_; }

  /// Switches Start/Stop and the live-edit note.
  void setRunning(bool running);

  QPushButton* startButton() const { return start_; }
  QPushButton* stopButton() const { return stop_; }

 signals:
  void startRequested(const PipelineConfig& config, const BackendOptions& backend);
  void stopRequested();
  /// A valid configuration edited during a live run.
  void liveConfigEdited(const PipelineConfig& config);
  void configChanged();  ///< any edit or preset change

 private:
  void onEdited();
  void revalidate();
  void syncPresetCombo();

  TraceSourceBox* source_;
  QWidget* settings_;  ///< preset, Start/Stop, settings and backend: hidden while a file is shown
  std::optional<PipelineConfig> sourceConfig_;
  QComboBox* preset_;
  QLabel* teaches_;
  ConfigForm* form_;
  BackendSelector* backend_;
  QLabel* issues_;
  QLabel* liveNote_;
  QPushButton* start_;
  QPushButton* stop_;
  bool running_ = false;
};

}  // namespace pipescope::ui
