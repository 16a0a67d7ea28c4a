#include "MainWindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QTimer>
#include <QWindow>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include "analysis/WhatIfAction.h"
#include "ranks/RanksPanel.h"
#include "app/CalibrateGpuAction.h"
#include "analysis/AdvicePanel.h"
#include "analysis/AnalysisController.h"
#include "analysis/WaitCauseLegend.h"
#include "app/AppSettings.h"
#include "app/DockLayout.h"
#include "app/PanelFocus.h"
#include "app/PresentationMode.h"
#include "app/WindowFit.h"
#include "app/RunStatusBar.h"
#include "app/ShortcutsDialog.h"
#include "charts/ThroughputCharts.h"
#include "compare/CompareController.h"
#include "compare/CompareView.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"
#include "controls/TraceSourceBox.h"
#include "controls/TraceSourceDescription.h"
#include "io/TraceFiles.h"
#include "lessons/LessonsPanel.h"
#include "export/ConfigSummary.h"
#include "files/TraceFileActions.h"
#include "export/ImageExport.h"
#include "export/ReportPainter.h"
#include "metrics/Metrics.h"
#include "metrics/MetricsPanel.h"
#include "metrics/MetricsRows.h"
#include "metrics/TimeSeries.h"
#include "run/FiguresWorker.h"
#include "recording/RecordActions.h"
#include "run/RunController.h"
#include "sweep/SweepView.h"
#include "timeline/TimelineLegend.h"
#include "timeline/TimelineView.h"
#include "widgets/VerticalScrollArea.h"

namespace pipescope::ui {

namespace {

enum ExportWhat { ExportTimeline, ExportCharts, ExportReport };

QString runStateText(const RunOutcome& o) {
  switch (o.state) {
    case RunState::NotStarted: return QObject::tr("Idle");
    case RunState::Running: return QObject::tr("Running");
    case RunState::Finished: return QObject::tr("Finished");
    case RunState::Stopped: return QObject::tr("Stopped");
    case RunState::Failed: return QObject::tr("Failed");
  }
  return {};
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : MainWindow(Options{}, parent) {}

MainWindow::MainWindow(Options options, QWidget* parent) : QMainWindow(parent), options_(options) {
  setWindowTitle(tr("pipescope"));
  setObjectName("MainWindow");
  setAcceptDrops(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
  run_ = new RunController(this);
  figures_ = new FiguresWorker(ThroughputCharts::kMaxPoints, this);
  connect(figures_, &FiguresWorker::ready, this, [this](std::shared_ptr<const RunFigures> f) { showFigures(*f); });

  auto* central = new QWidget;
  centralRow_ = new QHBoxLayout(central);
  centralRow_->setContentsMargins(4, 4, 4, 0);
  centralRow_->setSpacing(0);
  timelineColumn_ = new QVBoxLayout;
  timelineColumn_->setSpacing(2);
  centralRow_->addLayout(timelineColumn_, 1);
  timeline_ = new TimelineView;
  legend_ = new TimelineLegend;
  connect(timeline_, &TimelineView::kindsChanged, legend_,
          [this](std::uint32_t mask) { legend_->setKinds(TimelineLegend::kindsFor(mask)); });
  timelineColumn_->addWidget(timeline_, 1);
  timelineColumn_->addWidget(legend_);
  setCentralWidget(central);

  status_ = new RunStatusBar;
  setStatusBar(status_);
  status_->setBackend(tr("Simulator or CUDA: chosen at Start"));

  createDocks();
  createMenus();
  connectRun();
  // First launch: the screen's available area up to the designed size; a saved
  // geometry replaces it in restoreSettings(). The docks are arranged first: added one
  // by one they stand side by side, and the window's minimum with them.
  const QRect first = screen() ? firstLaunchGeometry(screen()->availableGeometry()) : QRect(QPoint(), kDesignedWindowSize);
  arrangement_ = isCompactSize(first.size()) ? DockArrangement::Compact : DockArrangement::Wide;
  arrangeDocks(*this, arrangement_);
  QMainWindow::layout()->activate();  // the minimum size of the tabbed docks, not of the docks side by side
  setGeometry(first);
  fittedGeometry_ = geometry();
  restoreSettings();
  sinceFigures_.start();
}

MainWindow::~MainWindow() = default;

RunController& MainWindow::runController() { return *run_; }
TimelineView& MainWindow::timeline() { return *timeline_; }
SweepView& MainWindow::sweepView() {
  // Built the first time the Sweep tab is shown or the view is asked for: a form,
  // a chart and heatmaps nobody sees at start would cost the first frame ~4 ms.
  if (!sweep_) {
    sweep_ = new SweepView;
    sweepScroll_->setContent(sweep_);
    // The sweep runs the control panel's configuration and backend, never beside a
    // live run (on a GPU the two would share, and distort, the measurement).
    sweep_->setBaseSource([this] { return controls_->config(); }, [this] { return controls_->backendOptions(); });
    sweep_->setStartBlocker([this] {
      return run_->running() ? tr("A run is in progress: stop it first (Run > Stop), so that the sweep has the "
                                  "device to itself.")
                             : QString();
    });
    connect(sweep_, &SweepView::traceRequested, this, &MainWindow::showTrace);
    // A finished sweep's recommendation can be long: the bottom row grows to show the
    // sweep whole, up to 45 % of the window (beyond that the panel scrolls).
    connect(sweep_, &SweepView::sweepEnded, this, [this] { QTimer::singleShot(0, this, &MainWindow::fitSweepDock); });
  }
  return *sweep_;
}
ControlPanel& MainWindow::controlPanel() { return *controls_; }
MetricsPanel& MainWindow::metricsPanel() { return *metrics_; }
ThroughputCharts& MainWindow::charts() { return *charts_; }
RunStatusBar& MainWindow::runStatusBar() { return *status_; }
AnalysisController& MainWindow::analysis() { return *analysis_; }
CompareController& MainWindow::compare() { return *compare_; }
LessonsPanel& MainWindow::lessons() { return *lessons_; }
AdvicePanel& MainWindow::advice() { return *advice_; }
RanksPanel& MainWindow::ranks() { return *ranks_; }
WhatIfAction& MainWindow::whatIf() { return *whatIf_; }
CalibrateGpuAction& MainWindow::calibrateGpu() { return *calibrate_; }
RecordActions& MainWindow::recording() { return *record_; }
files::TraceFileActions& MainWindow::traceFiles() { return *files_; }
PresentationMode& MainWindow::presentation() { return *presentation_; }

void MainWindow::addUnderTimeline(QWidget* w) { timelineColumn_->addWidget(w); }

void MainWindow::setBesideTimeline(QWidget* w) { centralRow_->addWidget(w); }

void MainWindow::setPresenting(bool on) {
  presenting_ = on;
  if (!on) setArrangement(isCompactSize(size()) ? DockArrangement::Compact : DockArrangement::Wide);
}

void MainWindow::addDock(const QString& title, QWidget* w, Qt::DockWidgetArea area, const QString& objectName) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);  // saveState() keys the layout by it
  dock->setWidget(w);
  addDockWidget(area, dock);
  if (docksMenu_) docksMenu_->addAction(dock->toggleViewAction());
}

void MainWindow::createDocks() {
  // Areas and tab groups: arrangeDocks() (DockLayout.h), for the window's size.
  controls_ = new ControlPanel;
  addDock(tr("Controls"), controls_, Qt::LeftDockWidgetArea, "dock.controls");
  metrics_ = new MetricsPanel;
  addDock(tr("Metrics"), metrics_, Qt::RightDockWidgetArea, "dock.metrics");
  charts_ = new ThroughputCharts;
  addDock(tr("Charts"), charts_, Qt::BottomDockWidgetArea, "dock.charts");
  ranks_ = new RanksPanel(*this);  // shown while a job's ranks are on screen
  addDock(tr("Ranks"), ranks_, Qt::BottomDockWidgetArea, "dock.ranks");
  // Other areas add one line each here.
  analysis_ = new AnalysisController(*this);  // wait causes, bound markers, limits section
  compare_ = new CompareController(*this);
  // Two timelines and the table: lower docks scroll instead of squeezing them.
  addDock(tr("A/B comparison"), new VerticalScrollArea(&compare_->view()), Qt::BottomDockWidgetArea, "dock.compare");
  advice_ = new AdvicePanel(*this);
  addDock(tr("Advice"), advice_, Qt::RightDockWidgetArea, "dock.advice");
  lessons_ = new LessonsPanel(*this);
  addDock(tr("Lessons"), lessons_, Qt::LeftDockWidgetArea, "dock.lessons");
  // The sweep's form, chart and heatmaps stack on a narrow screen (SweepView): the
  // dock then scrolls vertically. The view itself is built on first use.
  sweepScroll_ = new VerticalScrollArea(nullptr);
  addDock(tr("Sweep"), sweepScroll_, Qt::BottomDockWidgetArea, "dock.sweep");
  connect(findChild<QDockWidget*>("dock.sweep"), &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (!visible) return;
    sweepView();
    // Shown (first use, or raised again after the row was sized for another
    // arrangement): the bottom row grows to show the sweep whole.
    QTimer::singleShot(0, this, &MainWindow::fitSweepDock);
  });
}

void MainWindow::applyDefaultLayout() {
  if (presenting_) return;  // the docks are hidden: their sizes would mean nothing
  sizeDocksFromContent(*this, arrangement_);
  docksLaidOut_ = true;
}

void MainWindow::setArrangement(DockArrangement arrangement) {
  if (arrangement == arrangement_) return;
  // The user's arrangement of one size comes back when the window returns to it
  // (a window never shown has no arrangement of its own yet).
  const QByteArray leaving = isVisible() ? saveState() : QByteArray();
  const QByteArray back = otherArrangementState_;
  otherArrangementState_ = leaving;
  arrangement_ = arrangement;
  const QSize size = this->size();
  if (back.isEmpty() || !restoreState(back)) {
    arrangeDocks(*this, arrangement);
    if (isVisible()) QTimer::singleShot(0, this, &MainWindow::applyDefaultLayout);
  }
  // Moving docks can raise the window's minimum size for a moment; the window keeps
  // the size the user (or the screen) gave it.
  QMainWindow::layout()->activate();
  if (this->size() != size) resize(size);
}

void MainWindow::fitSweepDock() {
  auto* dock = findChild<QDockWidget*>("dock.sweep");
  auto* scroll = dock ? qobject_cast<QScrollArea*>(dock->widget()) : nullptr;
  if (presenting_ || !scroll || !scroll->widget() || !dock->isVisible() || dock->visibleRegion().isEmpty()) return;
  const int need = scroll->widget()->heightForWidth(scroll->viewport()->width());
  const int have = scroll->viewport()->height();
  if (need <= have) return;
  const int limit = this->height() * 45 / 100;
  // resizeDocks sizes the dock's place in the row, which for a tab group includes the
  // tab bar: a second pass adds what the first left the viewport short.
  int height = dock->height() + need - have;
  for (int pass = 0; pass < 2 && height > dock->height(); ++pass) {
    resizeDocks({dock}, {std::min(height, limit)}, Qt::Vertical);
    QMainWindow::layout()->activate();
    const int shortBy = scroll->widget()->heightForWidth(scroll->viewport()->width()) - scroll->viewport()->height();
    if (shortBy <= 0) break;
    height = std::min(height, limit) + shortBy;
    if (height > limit) break;
  }
}

void MainWindow::ensureOnScreen() {
  if (isMaximized() || isFullScreen()) return;
  QList<QRect> screens;
  if (const QScreen* primary = QGuiApplication::primaryScreen()) screens << primary->availableGeometry();
  for (const QScreen* s : QGuiApplication::screens())
    if (s != QGuiApplication::primaryScreen()) screens << s->availableGeometry();
  // The frame (title bar, borders) is what must fit; the client area is what we set.
  // The platform window's margins: QWidget's stay empty for a window that was full
  // screen when the window manager framed it (`--presentation`, then Esc).
  const QRect widgetFrame = frameGeometry();
  const QMargins margins =
      windowHandle() ? windowHandle()->frameMargins()
                     : QMargins(geometry().left() - widgetFrame.left(), geometry().top() - widgetFrame.top(),
                                widgetFrame.right() - geometry().right(), widgetFrame.bottom() - geometry().bottom());
  const QRect frame = geometry().marginsAdded(margins);
  const QRect fitted = clampOntoScreens(frame, screens);
  if (fitted == frame) return;
  setGeometry(fitted.marginsRemoved(margins));
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  if (presenting_) return;  // the presentation arranges the window itself
  setArrangement(isCompactSize(size()) ? DockArrangement::Compact : DockArrangement::Wide);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  files_ = new files::TraceFileActions(this);
  files_->addTo(file);
  QMenu* exportMenu = file->addMenu(tr("&Export image"));
  QAction* exportReport = exportMenu->addAction(tr("&Report (timeline, charts, metrics)…"), this,
                                                [this] { exportImageDialog(ExportReport); });
  exportReport->setShortcut(QKeySequence(tr("Ctrl+E")));
  exportMenu->addAction(tr("&Timeline…"), this, [this] { exportImageDialog(ExportTimeline); });
  exportMenu->addAction(tr("&Charts…"), this, [this] { exportImageDialog(ExportCharts); });
  exportMenu->addAction(compare_->exportAction());
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence(tr("Ctrl+Q")));  // QKeySequence::Quit is empty on some platforms
  quit->setMenuRole(QAction::QuitRole);

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  QAction* zoomIn = viewMenu_->addAction(tr("Zoom &in"), timeline_, &TimelineView::zoomIn);
  zoomIn->setShortcuts({QKeySequence(tr("Ctrl++")), QKeySequence(tr("Ctrl+="))});  // W, S, A, D and the wheel: the timeline's own keys
  QAction* zoomOut = viewMenu_->addAction(tr("Zoom &out"), timeline_, &TimelineView::zoomOut);
  zoomOut->setShortcut(QKeySequence(tr("Ctrl+-")));
  QAction* fit = viewMenu_->addAction(tr("&Fit"), timeline_, &TimelineView::fit);
  fit->setShortcuts({QKeySequence(Qt::Key_F), QKeySequence(tr("Ctrl+0"))});
  followAction_ = viewMenu_->addAction(tr("Follow &live"));
  followAction_->setCheckable(true);
  followAction_->setShortcut(QKeySequence(Qt::Key_L));
  connect(followAction_, &QAction::toggled, timeline_, &TimelineView::setFollowLive);
  connect(timeline_, &TimelineView::followLiveChanged, followAction_, &QAction::setChecked);
  // Single-key shortcuts must not fire while typing in a spin box of the controls.
  for (QAction* a : {zoomIn, zoomOut, fit, followAction_}) a->setShortcutContext(Qt::WindowShortcut);

  viewMenu_->addSeparator();
  QMenu* grouping = viewMenu_->addMenu(tr("Lane &grouping"));
  groupingActions_ = new QActionGroup(this);
  const std::pair<QString, LaneGrouping> groupings[] = {{tr("By &stream"), LaneGrouping::ByStream},
                                                        {tr("By &engine"), LaneGrouping::ByEngine},
                                                        {tr("&Both"), LaneGrouping::Both}};
  int key = 1;
  for (const auto& [label, g] : groupings) {
    QAction* a = grouping->addAction(label);
    a->setCheckable(true);
    a->setData(int(g));
    a->setShortcut(QKeySequence(tr("Ctrl+%1").arg(key++)));
    a->setChecked(g == timeline_->grouping());
    groupingActions_->addAction(a);
    connect(a, &QAction::triggered, this, [this, g] { timeline_->setGrouping(g); });
  }
  viewMenu_->addAction(analysis_->showWaitsAction());
  presentation_ = new PresentationMode(*this);
  viewMenu_->addAction(presentation_->toggleAction());
  QMenu* themes = viewMenu_->addMenu(tr("&Theme"));
  themeActions_ = new QActionGroup(this);
  for (Theme t : {Theme::Light, Theme::Dark}) {
    QAction* a = themes->addAction(t == Theme::Light ? tr("&Light (print)") : tr("&Dark (screen)"));
    a->setCheckable(true);
    a->setData(toString(t));
    a->setChecked(t == currentTheme());
    themeActions_->addAction(a);
    connect(a, &QAction::triggered, this, [this, t] { setTheme(t); });
  }
  viewMenu_->addSeparator();
  docksMenu_ = viewMenu_->addMenu(tr("&Panels"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) docksMenu_->addAction(d->toggleViewAction());
  addGoToPanelMenu(*this, *viewMenu_, *timeline_);

  QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
  runMenu->setToolTipsVisible(true);  // e.g. why Calibrate this GPU… is greyed out
  startAction_ = runMenu->addAction(tr("&Start"), this, &MainWindow::startRunFromControls);
  startAction_->setShortcut(QKeySequence(Qt::Key_F5));
  stopAction_ = runMenu->addAction(tr("S&top"), this, &MainWindow::stopRun);
  stopAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  stopAction_->setEnabled(false);
  record_ = new RecordActions(*this);  // a program of the user's, recorded live
  runMenu->addAction(record_->recordAction());
  runMenu->addAction(record_->stopAndEndAction());
  autosaveAction_ = runMenu->addAction(tr("&Autosave runs without a batch limit"));
  autosaveAction_->setCheckable(true);
  autosaveAction_->setChecked(run_->autosave().enabled());
  autosaveAction_->setToolTip(tr("Streams such runs to %1 while they run, so a crash loses at most a second")
                                  .arg(run_->autosave().folder()));
  connect(autosaveAction_, &QAction::toggled, this, [this](bool on) { run_->autosave().setEnabled(on); });
  runMenu->addSeparator();
  runMenu->addAction(compare_->pinAction());
  runMenu->addAction(compare_->clearAction());
  runMenu->addSeparator();
  whatIf_ = new WhatIfAction(*this);  // an opened PyTorch trace's workload on the sweep
  runMenu->addAction(whatIf_->action());
  calibrate_ = new CalibrateGpuAction(this);  // this machine's profile, for every prediction on its GPU
  runMenu->addAction(calibrate_->action());
  connect(runMenu, &QMenu::aboutToShow, calibrate_, &CalibrateGpuAction::lookForGpu);
  // On the window too: a menu's shortcuts die with a hidden menu bar, and the
  // presentation mode hides it while the presenter still starts, stops and zooms.
  addActions({startAction_, stopAction_, compare_->pinAction(), zoomIn, zoomOut, fit, followAction_});
  addActions(groupingActions_->actions());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts)->setShortcut(QKeySequence(Qt::Key_F1));
  help->addAction(tr("&About pipescope"), this, &MainWindow::showAbout);
}

void MainWindow::connectRun() {
  connect(controls_, &ControlPanel::startRequested, this,
          [this](const PipelineConfig& c, const BackendOptions& b) { run_->start(c, b); });
  connect(controls_, &ControlPanel::stopRequested, this, &MainWindow::stopRun);
  connect(controls_, &ControlPanel::liveConfigEdited, this, [this](const PipelineConfig& c) {
    if (run_->applyConfig(c)) statusBar()->showMessage(tr("Change queued: it applies at the next batch boundary."), 4000);
  });
  connect(controls_, &ControlPanel::configChanged, this, [this] {
    startAction_->setEnabled(!run_->running() && controls_->config().has_value());
  });
  connect(run_, &RunController::runStarted, this, &MainWindow::onRunStarted);
  connect(run_, &RunController::tick, this, &MainWindow::onTick);
  connect(run_, &RunController::runFinished, this, &MainWindow::onRunFinished);
  connect(run_, &RunController::errorOccurred, this, &MainWindow::showError);
  connect(run_, &RunController::autosaving, this,
          [this](const QString& path) { statusBar()->showMessage(tr("Autosaving this run to %1").arg(path), 8000); });
  connect(timeline_, &TimelineView::rangeSelected, this, &MainWindow::onRangeSelected);
}

void MainWindow::startRunFromControls() {
  if (run_->running()) return;
  const auto config = controls_->config();
  if (!config) {
    showError(tr("The configuration cannot run:\n  • %1").arg(controls_->issues().join("\n  • ")));
    return;
  }
  run_->start(*config, controls_->backendOptions());
}

void MainWindow::stopRun() {
  if (record_->recording()) {
    record_->stop();  // the recording ends; the program runs on
    status_->setRunState(tr("Stopping the recording…"));
    return;
  }
  if (!run_->running()) return;
  run_->stop();
  status_->setRunState(tr("Stopping…"));
}

void MainWindow::loadConfig(const PipelineConfig& config) { controls_->setConfig(config); }

void MainWindow::startRun(const PipelineConfig& config) {
  loadConfig(config);
  startRunFromControls();
}

void MainWindow::onRunStarted(std::shared_ptr<Trace> trace) {
  const QString preset = controls_->presetName();
  beginLiveTrace(std::move(trace), preset.isEmpty() ? tr("custom configuration") : preset);
}

void MainWindow::beginLiveTrace(std::shared_ptr<Trace> trace, const QString& title) {
  trace_ = std::move(trace);
  traceTitle_ = title;
  setWindowTitle(tr("pipescope — %1").arg(traceTitle_));
  controls_->clearTraceSource();
  timeline_->setLaneOrder(LaneOrder::HostFirst);
  timeline_->setTrace(trace_);
  timeline_->setFollowLive(true);
  metrics_->clear();
  charts_->clear();
  controls_->setRunning(true);
  startAction_->setEnabled(false);
  stopAction_->setEnabled(true);
  const DeviceInfo device = trace_->device();
  status_->setBackend(QString::fromStdString(device.summary()), QString::fromStdString(device.note));
  sinceFigures_.restart();
  figures_->discardPending();
  updateStatus();
  emit traceChanged(trace_);
}

void MainWindow::onTick() { liveTick(); }

void MainWindow::liveTick() {
  timeline_->refresh();
  updateStatus();
  // The figures cover the whole run, so their cost grows with it: computed on a
  // worker, paced by what the last computation took, so the timeline keeps its frame
  // rate however long the run gets.
  if (sinceFigures_.elapsed() >= figuresIntervalMs(kMetricsIntervalMs, figures_->lastCostMs()) &&
      figures_->request(trace_))
    sinceFigures_.restart();
}

void MainWindow::onRunFinished(std::shared_ptr<Trace> trace) { endLiveTrace(std::move(trace)); }

void MainWindow::endLiveTrace(std::shared_ptr<Trace> trace) {
  timeline_->refresh();
  timeline_->finishLive();  // the whole run, unless the user moved the view during it
  updateFigures();
  updateStatus();
  controls_->setRunning(false);
  startAction_->setEnabled(controls_->config().has_value());
  stopAction_->setEnabled(false);
  emit runCompleted(std::move(trace));
}

void MainWindow::updateFigures() {
  figures_->discardPending();  // a live result still in flight would be older than these
  sinceFigures_.restart();
  if (!trace_) return;
  showFigures(computeRunFigures(*trace_, ThroughputCharts::kMaxPoints));
}

void MainWindow::showFigures(const RunFigures& f) {
  metrics_->setMetrics(f.metrics);
  if (f.series.size() > 0) charts_->setTimeSeries(f.series);
}

void MainWindow::updateStatus() {
  if (!trace_) return;
  const RunOutcome outcome = trace_->outcome();
  QString state = runStateText(outcome);
  if (outcome.state == RunState::Running && run_->stopRequested()) state = tr("Stopping…");
  if (outcome.state == RunState::Running && trace_->configHistory().empty()) {
    state = tr("Recording");  // a program's recording: no batches until its iterations are found at the end
  } else if (outcome.state == RunState::Running) {
    const std::int64_t done = trace_->completedBatches();
    const int total = trace_->config().batchCount;
    state += total > 0 ? tr(" — batch %1 of %2").arg(done).arg(total) : tr(" — batch %1").arg(done);
  }
  if (outcome.state == RunState::Failed && !outcome.message.empty())
    state += ": " + QString::fromStdString(outcome.message);
  status_->setRunState(state);
  status_->setEventCount(trace_->ops().publishedCount(), trace_->ops().droppedCount());
}

void MainWindow::onRangeSelected(std::int64_t fromNs, std::int64_t toNs) {
  if (!trace_ || toNs <= fromNs) {
    metrics_->clearSelection();
    return;
  }
  metrics_->setSelection(computeMetrics(*trace_, fromNs, toNs), fromNs, toNs);
}

void MainWindow::showTrace(std::shared_ptr<Trace> trace, const QString& title) {
  if (run_->running()) run_->stop();  // the live run keeps recording into its own trace
  trace_ = std::move(trace);
  traceTitle_ = title;
  setWindowTitle(tr("pipescope — %1").arg(title));
  controls_->clearTraceSource();
  timeline_->setLaneOrder(LaneOrder::HostFirst);
  timeline_->setTrace(trace_);
  timeline_->setFollowLive(false);
  timeline_->fit();
  metrics_->clear();
  charts_->clear();
  if (trace_) {
    const DeviceInfo device = trace_->device();
    status_->setBackend(QString::fromStdString(device.summary()), QString::fromStdString(device.note));
    updateFigures();
    updateStatus();
  }
  emit traceChanged(trace_);
}

void MainWindow::showOpenedTrace(std::shared_ptr<Trace> trace, const QString& path) {
  const QString fileName = QFileInfo(path).fileName();
  showTrace(trace, fileName);
  if (!trace) return;
  timeline_->setLaneOrder(LaneOrder::GpuFirst);
  timeline_->fit();
  const TraceSource source = describeOpenedTrace(*trace, path);
  const auto history = trace->configHistory();
  controls_->showTraceSource(source, history.empty() ? std::nullopt : std::optional(history.front().config));
}

void MainWindow::showError(const QString& message) {
  lastError_ = message;
  statusBar()->showMessage(message.section('\n', 0, 0), 10000);
  if (!isVisible()) return;  // headless (screenshot mode, tests): the caller reports lastError()
  auto* box = new QMessageBox(QMessageBox::Warning, tr("pipescope"), message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // window-modal, never blocks the event loop (the run keeps updating)
}

QString MainWindow::reportTitle() const {
  return traceTitle_.isEmpty() ? tr("pipescope") : tr("pipescope — %1").arg(traceTitle_);
}

bool MainWindow::exportTimelineImage(const QString& path, QString* error) {
  const QSize size = timeline_->size().expandedTo(QSize(1200, 500));
  return saveImage(path, size, [this](QPainter& p, const QRect& r) { timeline_->renderTo(p, r); }, reportTitle(), error,
                   timeline_->palette().color(QPalette::Base));
}

bool MainWindow::exportChartsImage(const QString& path, QString* error) {
  return saveImage(path, QSize(1500, 420),
                   [this](QPainter& p, const QRect& r) { charts_->renderTo(p, r, Qt::Horizontal); }, reportTitle(), error,
                   charts_->palette().color(QPalette::Base));
}

bool MainWindow::exportReportImage(const QString& path, QString* error) {
  ReportContent c;
  c.title = reportTitle();
  if (trace_) {
    const PipelineConfig config = trace_->config();
    if (auto preset = findPreset(traceTitle_.toStdString()); preset && preset->config == config)
      c.subtitle = QString::fromStdString(preset->teaches);
    const DeviceInfo device = trace_->device();
    c.device = QString::fromStdString(device.summary());
    if (!device.timingSource.empty()) c.device += tr(" · timing: %1").arg(QString::fromStdString(device.timingSource));
    c.device += tr(" · %1 · %2").arg(runStateText(trace_->outcome()), QDateTime::currentDateTime().toString("yyyy-MM-dd"));
    c.configuration = configSummaryLines(config);
    const Metrics m = computeMetrics(*trace_);
    c.metrics = metricsRows(m);
    c.bottleneck = QString::fromStdString(m.bottleneckSentence);
  }
  c.palette = timeline_->palette();
  c.paintTimeline = [this](QPainter& p, const QRect& r) { timeline_->renderTo(p, r); };
  c.timelineHeight = timeline_->layout().contentHeight + (timeline_->height() - timeline_->plotRect().height()) + 12;
  c.paintCharts = [this](QPainter& p, const QRect& r) { charts_->renderTo(p, r, Qt::Horizontal); };
  c.paintLegend = [this](QPainter& p, const QRect& r) {
    int h = TimelineLegend::paintLegend(p, r, legend_->kinds(), legend_->palette(), legend_->font());
    if (analysis_->showWaits())  // the wait-cause overlay is in the picture: name its patterns
      h += WaitCauseLegend::paintLegend(p, r.adjusted(0, h, 0, 0), legend_->palette(), legend_->font());
    return h;
  };
  return saveImage(path, kReportPageSize, [&c](QPainter& p, const QRect& r) { paintReport(p, r, c); }, c.title, error,
                   c.palette.color(QPalette::Base));
}

void MainWindow::exportImageDialog(int what) {
  static const char* names[] = {"timeline", "charts", "report"};
  const QString base = (traceTitle_.isEmpty() ? QString("pipescope") : traceTitle_) + "-" + names[what] + ".png";
  const QString path = QFileDialog::getSaveFileName(this, tr("Export image"), base,
                                                    tr("PNG image, 2× scale (*.png);;SVG vector image (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  const bool ok = what == ExportTimeline ? exportTimelineImage(path, &error)
                  : what == ExportCharts ? exportChartsImage(path, &error)
                                         : exportReportImage(path, &error);
  if (!ok) showError(error);
  else statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
}

void MainWindow::showShortcuts() {
  auto* dialog = new ShortcutsDialog(menuBar(), presentation_->actions(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About pipescope"),
                     tr("<h3>pipescope %1</h3><p>Shows, live, how a CPU–GPU pipeline spends its time: copies, "
                        "kernels and host work on a timeline, what each operation waited for, and how far the run "
                        "is from the best the hardware allows.</p><p>Runs on a CUDA GPU or on a simulator of one.</p>")
                         .arg(QApplication::applicationVersion()));
}

void MainWindow::setTheme(Theme theme) {
  applyTheme(theme);
  for (QAction* a : themeActions_->actions()) a->setChecked(a->data().toString() == toString(theme));
}

void MainWindow::restoreSettings() {
  if (!options_.persistSettings) return;
  QSettings s;
  if (restoreGeometry(s.value("window/geometry").toByteArray())) {
    fittedGeometry_ = geometry();
    ensureOnScreen();  // the screen it was saved on may be gone
    arrangement_ = isCompactSize(size()) ? DockArrangement::Compact : DockArrangement::Wide;
    arrangeDocks(*this, arrangement_);
  }
  // The saved dock state belongs to one arrangement; the other one's is kept for when
  // the window changes size class.
  const DockArrangement saved = parseDockArrangement(s.value("window/arrangement").toByteArray());
  const QByteArray state = s.value("window/state").toByteArray(), other = s.value("window/otherState").toByteArray();
  if (saved == arrangement_) {
    layoutRestored_ = restoreState(state);
    otherArrangementState_ = other;
  } else {
    otherArrangementState_ = state;
    layoutRestored_ = !other.isEmpty() && restoreState(other);
  }
  const AppSettings a = AppSettings::load(s);
  if (a.config) controls_->setConfig(*a.config);
  if (a.backend) controls_->setBackendOptions(*a.backend);
  if (a.grouping >= 0 && a.grouping <= int(LaneGrouping::Both)) {
    timeline_->setGrouping(LaneGrouping(a.grouping));
    for (QAction* act : groupingActions_->actions()) act->setChecked(act->data().toInt() == a.grouping);
  }
  if (const auto theme = parseTheme(a.theme)) setTheme(*theme);
  autosaveAction_->setChecked(s.value("run/autosave", true).toBool());
}

void MainWindow::saveSettings() {
  if (!options_.persistSettings) return;
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState());
  s.setValue("window/arrangement", toString(arrangement_));
  s.setValue("window/otherState", otherArrangementState_);
  s.setValue("run/autosave", autosaveAction_->isChecked());
  AppSettings a;
  a.config = controls_->config();
  a.preset = controls_->presetName();
  a.backend = controls_->backendOptions();
  a.grouping = int(timeline_->grouping());
  a.theme = toString(currentTheme());
  a.save(s);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // Dock sizes only stick once the window has its real geometry.
  if (!layoutRestored_ && !defaultLayoutApplied_) {
    defaultLayoutApplied_ = true;
    QTimer::singleShot(0, this, &MainWindow::applyDefaultLayout);
  } else if (layoutRestored_ && !presenting_) {
    docksLaidOut_ = true;  // the saved sizes
  }
  // A window manager adds its frame after the window is shown, and Qt learns its size
  // some time later (no event says when): the title bar must not push the bottom of a
  // screen-sized window off the screen, so look again a little later. Only for the
  // geometry the window chose itself: a size set by the caller (the screenshot mode's
  // --size, a test) is kept as asked.
  if (!event->spontaneous()) fitOntoScreenSoon();
}

void MainWindow::fitOntoScreenSoon() {
  if (size() == fittedGeometry_.size())
    for (int ms : {0, 300, 1000}) QTimer::singleShot(ms, this, &MainWindow::ensureOnScreen);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveSettings();
  // Stop the run as Run > Stop does, and ask nothing: RunController's destructor joins
  // the engine thread (within one operation) and keeps the recorded trace in the
  // autosave folder (RunAutosave.h).
  run_->stop();
  record_->stop();  // a recorded program runs on; the recording is kept in the autosave folder
  if (sweep_) sweep_->cancelSweep();
  QMainWindow::closeEvent(event);
}

}  // namespace pipescope::ui
