#pragma once
// The Sweep view: the grid definition, Run/Cancel, progress (point i/N, time left),
// then the throughput chart, the throughput and efficiency heatmaps and the
// recommendation. The sweep runs on a worker thread; clicking a point opens its
// timeline in the main window (traceRequested). Sweeps save to and open from the
// JSON the command line writes, and export as PNG (2x) or SVG.
#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

#include "backend/Backend.h"
#include "sweep/Recommendation.h"
#include "sweep/SweepResult.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace pipescope::ui {

class SweepGridForm;
class SweepHeatmap;
class SweepLineChart;
class SweepWorker;
struct SweepStatus;

class SweepView : public QWidget {
  Q_OBJECT
 public:
  explicit SweepView(QWidget* parent = nullptr);
  ~SweepView() override;

  /// Where the base configuration and the backend come from (the control panel);
  /// without them: the default configuration on the h200 simulator profile.
  void setBaseSource(std::function<std::optional<PipelineConfig>()> config, std::function<BackendOptions()> backend);
  /// Asked before a sweep starts: a non-empty answer says why it cannot start now.
  void setStartBlocker(std::function<QString()> blocker);

  /// Starts a sweep of the form's grid; false with the reason in `error` (shown too).
  bool startSweep(QString* error = nullptr);
  /// Returns at once; the finished points stay.
  void cancelSweep();
  bool running() const;

  /// Shows a finished (e.g. loaded) sweep.
  void setResult(const SweepResult& result);
  const SweepResult& result() const { return result_; }
  Recommendation recommendation() const;
  bool loadJson(const QString& path, QString* error);
  /// .json or .csv by extension.
  bool saveResult(const QString& path, QString* error);
  /// .png (2x) or .svg by extension, kSweepFigureWidth x kSweepFigureHeight logical pixels.
  bool exportImage(const QString& path, QString* error);

  /// Opens the timeline of the point with this grid index (what a click does).
  void openPoint(std::size_t index);

  SweepGridForm& form() { return *form_; }
  SweepLineChart& lineChart() { return *chart_; }
  SweepHeatmap& throughputHeatmap() { return *throughputMap_; }
  SweepHeatmap& efficiencyHeatmap() { return *efficiencyMap_; }
  QProgressBar& progressBar() { return *progress_; }
  QPushButton& runButton() { return *run_; }
  QPushButton& cancelButton() { return *cancel_; }
  QComboBox& blockSelector() { return *block_; }
  QString statusText() const;
  QString recommendationText() const;

 signals:
  void traceRequested(std::shared_ptr<pipescope::Trace> trace, const QString& title);
  /// A sweep ended (finished, cancelled or failed) and its thread is done.
  void sweepEnded();

 private:
  void onStarted(const SweepResult& empty);
  void onProgress(const SweepStatus& status);
  void onPoint(const SweepPointResult& point);
  void onPredicted(const SweepPointResult& point);
  void onFinished(std::shared_ptr<SweepResult> result, const QString& error);
  void refresh();          ///< charts, heatmaps, recommendation from result_
  void refreshBlocks();
  void setStatus(const QString& text);
  QString heading() const;
  void openDialog();
  void saveDialog();
  void exportDialog();
  void setRunning(bool running);

  std::function<std::optional<PipelineConfig>()> baseConfig_;
  std::function<BackendOptions()> baseBackend_;
  std::function<QString()> blocker_;
  SweepWorker* worker_;
  SweepResult result_;
  bool cancelledByUser_ = false;

  SweepGridForm* form_;
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* status_;
  QComboBox* block_;
  SweepLineChart* chart_;
  SweepHeatmap* throughputMap_;
  SweepHeatmap* efficiencyMap_;
  QLabel* recommendation_;
  QPushButton* open_;
  QPushButton* save_;
  QPushButton* export_;
};

}  // namespace pipescope::ui
