#pragma once
// The desktop app's window: the timeline in the centre, docks for the controls, the
// metrics and the charts, menus, and a status bar saying what runs and how far it
// got. Other areas (analysis, sweep) add their docks in createDocks(), one line each.
#include <QElapsedTimer>
#include <QMainWindow>
#include <memory>

#include "backend/Backend.h"
#include "app/Theme.h"
#include "config/PipelineConfig.h"
#include "trace/Trace.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QMenu;

namespace pipescope::ui {

class AdvicePanel;
class CalibrateGpuAction;
class WhatIfAction;
class AnalysisController;
class CompareController;
class LessonsPanel;
class ControlPanel;
class FiguresWorker;
struct RunFigures;
class MetricsPanel;
class RunController;
class RunStatusBar;
class SweepView;
class ThroughputCharts;
class TimelineLegend;
class TimelineView;
namespace files {
class TraceFileActions;
}

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  struct Options {
    /// Read and write QSettings (off for the screenshot mode, whose output must not
    /// depend on what the user last did).
    bool persistSettings = true;
  };
  /// Rate of the metrics panel and chart updates during a live run.
  static constexpr int kMetricsIntervalMs = 250;

  explicit MainWindow(QWidget* parent = nullptr);
  explicit MainWindow(Options options, QWidget* parent = nullptr);
  ~MainWindow() override;

  RunController& runController();
  TimelineView& timeline();
  ControlPanel& controlPanel();
  MetricsPanel& metricsPanel();
  ThroughputCharts& charts();
  RunStatusBar& runStatusBar();
  AnalysisController& analysis();
  CompareController& compare();
  LessonsPanel& lessons();
  AdvicePanel& advice();
  WhatIfAction& whatIf();
  CalibrateGpuAction& calibrateGpu();  ///< Run › Calibrate this GPU…
  /// What the trace on screen is called: the preset, "custom configuration", a file name.
  QString traceTitle() const { return traceTitle_; }
  files::TraceFileActions& traceFiles();  ///< File › Open / Save / Export trace, drag-and-drop
  SweepView& sweepView();
  std::shared_ptr<Trace> currentTrace() const { return trace_; }
  /// The last error shown to the user (tests, screenshot mode).
  QString lastError() const { return lastError_; }

  /// Figure exports; the format follows the extension (.png at 2x, .svg).
  bool exportTimelineImage(const QString& path, QString* error = nullptr);
  bool exportChartsImage(const QString& path, QString* error = nullptr);
  bool exportReportImage(const QString& path, QString* error = nullptr);

 public slots:
  void showTrace(std::shared_ptr<Trace> trace, const QString& title);  ///< replay (a sweep's run)
  /// A trace file opened by the user: GPU lanes first, fitted, and the Controls dock
  /// describing the file instead of the preset's settings.
  void showOpenedTrace(std::shared_ptr<Trace> trace, const QString& path);
  void loadConfig(const PipelineConfig& config);                      ///< into the control panel
  void startRun(const PipelineConfig& config);                        ///< loadConfig + Start
  void startRunFromControls();
  void stopRun();
  void addDock(const QString& title, QWidget* w, Qt::DockWidgetArea area, const QString& objectName);
  void showError(const QString& message);  ///< status bar + message box (public for ui/files)
  void setTheme(Theme theme);  ///< the whole app's palette, remembered across launches

 signals:
  void traceChanged(std::shared_ptr<Trace> trace);  ///< a new run started or a file opened
  void runCompleted(std::shared_ptr<Trace> trace);  ///< a run ended (for A/B, lessons)

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void createDocks();
  void applyDefaultLayout();
  void createMenus();
  void connectRun();
  void restoreSettings();
  void saveSettings();
  void onRunStarted(std::shared_ptr<Trace> trace);
  void onTick();
  void onRunFinished(std::shared_ptr<Trace> trace);
  void onRangeSelected(std::int64_t fromNs, std::int64_t toNs);
  void updateFigures();  ///< metrics panel + charts from the current trace, now
  void showFigures(const RunFigures& figures);
  void updateStatus();
  void exportImageDialog(int what);
  void showShortcuts();
  void showAbout();
  QString reportTitle() const;

  Options options_;
  RunController* run_;
  TimelineView* timeline_;
  TimelineLegend* legend_;
  ControlPanel* controls_;
  MetricsPanel* metrics_;
  ThroughputCharts* charts_;
  RunStatusBar* status_;
  AnalysisController* analysis_ = nullptr;
  CompareController* compare_ = nullptr;
  LessonsPanel* lessons_ = nullptr;
  AdvicePanel* advice_ = nullptr;
  WhatIfAction* whatIf_ = nullptr;
  CalibrateGpuAction* calibrate_ = nullptr;
  files::TraceFileActions* files_ = nullptr;
  SweepView* sweep_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QMenu* docksMenu_ = nullptr;
  QAction* followAction_ = nullptr;
  QActionGroup* groupingActions_ = nullptr;
  QActionGroup* themeActions_ = nullptr;
  QAction* startAction_ = nullptr;
  QAction* stopAction_ = nullptr;
  QAction* autosaveAction_ = nullptr;

  std::shared_ptr<Trace> trace_;
  QString traceTitle_;
  QString lastError_;
  QElapsedTimer sinceFigures_;
  FiguresWorker* figures_;  ///< live-run figures, computed off the GUI thread
  bool layoutRestored_ = false;
  bool defaultLayoutApplied_ = false;
};

}  // namespace pipescope::ui
