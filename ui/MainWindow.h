#pragma once
// The desktop app's window: the timeline in the centre, docks for the controls, the
// metrics and the charts, menus, and a status bar saying what runs and how far it
// got. Other areas (analysis, sweep) add their docks in createDocks(), one line each.
#include <QElapsedTimer>
#include <QMainWindow>
#include <memory>

#include "backend/Backend.h"
#include "app/DockLayout.h"
#include "app/Theme.h"
#include "config/PipelineConfig.h"
#include "trace/Trace.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QMenu;
class QHBoxLayout;
class QVBoxLayout;

namespace pipescope::ui {

class AdvicePanel;
class RanksPanel;
class CalibrateGpuAction;
class WhatIfAction;
class AnalysisController;
class CompareController;
class LessonsPanel;
class ControlPanel;
class FiguresWorker;
struct RunFigures;
class MetricsPanel;
class PresentationMode;
class RecordActions;
class RunController;
class RunStatusBar;
class VerticalScrollArea;
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
  RanksPanel& ranks();  ///< the Ranks dock: a job's per-rank table and what-ifs
  WhatIfAction& whatIf();
  CalibrateGpuAction& calibrateGpu();  ///< Run › Calibrate this GPU…
  RecordActions& recording();  ///< Run › Record a program… (ui/recording)
  /// What the trace on screen is called: the preset, "custom configuration", a file name.
  QString traceTitle() const { return traceTitle_; }
  files::TraceFileActions& traceFiles();  ///< File › Open / Save / Export trace, drag-and-drop
  SweepView& sweepView();
  PresentationMode& presentation();
  /// Under the timeline, above nothing else added later (the legends).
  void addUnderTimeline(QWidget* w);
  /// A column right of the timeline and its legends (the presentation mode's).
  void setBesideTimeline(QWidget* w);
  /// While the presentation mode has the window, its size does not rearrange the docks.
  void setPresenting(bool on);
  /// Whether the docks have had their sizes: not before the window was first shown and
  /// laid out (`pipescope --presentation` enters the mode before that).
  bool docksLaidOut() const { return docksLaidOut_; }
  /// The docks at the sizes their panels ask for, in the window's arrangement (DockLayout.h).
  void applyDefaultLayout();
  /// A window at the place it chose itself (not one a caller sized) is moved onto its
  /// screen now and twice more as the window manager's frame becomes known.
  void fitOntoScreenSoon();
  std::shared_ptr<Trace> currentTrace() const { return trace_; }
  /// Wide or compact (DockLayout.h): follows the window's size.
  DockArrangement dockArrangement() const { return arrangement_; }
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
  /// A live trace from another source than the run controller (a recording), shown and
  /// followed exactly as a run's: beginLiveTrace when it starts, liveTick at display
  /// rate, endLiveTrace when it has ended.
  void beginLiveTrace(std::shared_ptr<Trace> trace, const QString& title);
  void liveTick();
  void endLiveTrace(std::shared_ptr<Trace> trace);
  void addDock(const QString& title, QWidget* w, Qt::DockWidgetArea area, const QString& objectName);
  void showError(const QString& message);  ///< status bar + message box (public for ui/files)
  void setTheme(Theme theme);  ///< the whole app's palette, remembered across launches

 signals:
  void traceChanged(std::shared_ptr<Trace> trace);  ///< a new run started or a file opened
  void runCompleted(std::shared_ptr<Trace> trace);  ///< a run ended (for A/B, lessons)

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void createDocks();
  void setArrangement(DockArrangement arrangement);
  /// Moves (and shrinks) the window so that its frame lies on a screen that exists.
  void ensureOnScreen();
  void fitSweepDock();  ///< the bottom row as high as a finished sweep needs, within reason
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
  RanksPanel* ranks_ = nullptr;
  WhatIfAction* whatIf_ = nullptr;
  CalibrateGpuAction* calibrate_ = nullptr;
  RecordActions* record_ = nullptr;
  files::TraceFileActions* files_ = nullptr;
  SweepView* sweep_ = nullptr;  ///< created on first use (sweepView())
  VerticalScrollArea* sweepScroll_ = nullptr;
  PresentationMode* presentation_ = nullptr;
  QVBoxLayout* timelineColumn_ = nullptr;
  QHBoxLayout* centralRow_ = nullptr;
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
  bool docksLaidOut_ = false;
  DockArrangement arrangement_ = DockArrangement::Wide;
  QByteArray otherArrangementState_;  ///< saveState() of the arrangement not in use
  QRect fittedGeometry_;  ///< where the window put itself (first launch, restored)
  bool presenting_ = false;
};

}  // namespace pipescope::ui
