#include "compare/CompareController.h"

#include <QAction>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QPainter>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

#include "MainWindow.h"
#include "analysis/AnalysisController.h"
#include "analysis/Comparison.h"
#include "analysis/Limits.h"
#include "compare/CompareView.h"
#include "compare/ComparisonImage.h"
#include "compare/ComparisonTableWidget.h"
#include "export/ImageExport.h"
#include "metrics/MetricsPanel.h"
#include "run/RunController.h"
#include "timeline/TimelineLegend.h"
#include "timeline/TimelineRenderer.h"
#include "timeline/TimelineView.h"

namespace pipescope::ui {

namespace {

void markBounds(TimelineView& v, const Trace& trace) {
  v.setMarkers(AnalysisController::boundMarkers(computeLimits(computeMetrics(trace))));
}

}  // namespace

CompareController::CompareController(MainWindow& window) : QObject(&window), window_(window) {
  view_ = new CompareView;
  pin_ = new QAction(tr("&Pin as A"), this);
  pin_->setShortcut(QKeySequence(tr("Ctrl+Shift+P")));
  pin_->setToolTip(tr("Keep this run as A: the next run is drawn beneath it on the same time axis"));
  clear_ = new QAction(tr("C&lear pin"), this);
  export_ = new QAction(tr("&A/B comparison…"), this);
  connect(pin_, &QAction::triggered, this, [this] {
    QString error;
    if (!pinCurrent(&error)) window_.statusBar()->showMessage(error, 6000);
  });
  connect(clear_, &QAction::triggered, this, &CompareController::clearPin);
  connect(export_, &QAction::triggered, this, &CompareController::exportDialog);
  connect(view_, &CompareView::clearRequested, this, &CompareController::clearPin);
  connect(view_, &CompareView::exportRequested, this, &CompareController::exportDialog);

  // A button beside the figures: pinning is what one does after reading them.
  auto* row = new QWidget;
  auto* rowLayout = new QHBoxLayout(row);
  rowLayout->setContentsMargins(0, 0, 0, 0);
  pinButton_ = new QPushButton(tr("Pin as A"));
  pinButton_->setToolTip(pin_->toolTip());
  pinButton_->setObjectName("pinAsA");
  connect(pinButton_, &QPushButton::clicked, pin_, &QAction::trigger);
  rowLayout->addWidget(pinButton_);
  window.metricsPanel().addSection(row);

  connect(&window, &MainWindow::traceChanged, this, &CompareController::onTraceChanged);
  connect(&window, &MainWindow::runCompleted, this, &CompareController::onRunCompleted);
  connect(&window.metricsPanel(), &MetricsPanel::metricsShown, this, &CompareController::onMetrics);
  connect(&window.runController(), &RunController::tick, this, [this] {
    if (b_ && b_ == window_.currentTrace()) view_->refreshB();
  });
  updateActions();
}

void CompareController::updateActions() {
  const auto current = window_.currentTrace();
  const bool canPin = current && !window_.runController().running() && current->ops().publishedCount() > 0;
  pin_->setEnabled(canPin);
  pinButton_->setEnabled(canPin);
  clear_->setEnabled(pinned());
  export_->setEnabled(a_ && b_);
}

void CompareController::showDock() {
  QWidget* dockWidget = view_->parentWidget();  // the dock, through its scroll area
  while (dockWidget && !qobject_cast<QDockWidget*>(dockWidget)) dockWidget = dockWidget->parentWidget();
  if (auto* dock = qobject_cast<QDockWidget*>(dockWidget)) {
    dock->show();
    dock->raise();
  }
}

bool CompareController::pinCurrent(QString* error) {
  const auto current = window_.currentTrace();
  if (!current || current->ops().publishedCount() == 0) {
    if (error) *error = tr("Nothing to pin yet: start a run (or open a trace) first.");
    return false;
  }
  if (window_.runController().running()) {
    if (error) *error = tr("The run is still going: pin it once it has finished or been stopped.");
    return false;
  }
  pin(current, window_.traceTitle());
  return true;
}

void CompareController::pin(std::shared_ptr<const Trace> trace, const QString& name) {
  a_ = std::move(trace);
  nameA_ = name.isEmpty() ? tr("run A") : name;
  metricsA_ = computeMetrics(*a_);
  b_.reset();
  nameB_.clear();
  view_->setRunA(a_, nameA_);
  view_->setRunB(nullptr, {});
  markBounds(view_->timelineA(), *a_);
  updateActions();
  showDock();
}

void CompareController::setB(std::shared_ptr<const Trace> trace, const QString& name) {
  if (!a_ || !trace || trace == a_) return;
  b_ = std::move(trace);
  nameB_ = name.isEmpty() ? tr("run B") : name;
  view_->setRunB(b_, nameB_);
  view_->timelineB().setMarkers({});
  if (!(b_ == window_.currentTrace() && window_.runController().running())) {
    const Metrics m = computeMetrics(*b_);
    view_->setTable(compareRuns(metricsA_, m, nameA_.toStdString(), nameB_.toStdString()));
    markBounds(view_->timelineB(), *b_);
  }
  updateActions();
  showDock();
}

void CompareController::clearPin() {
  a_.reset();
  b_.reset();
  view_->clear();
  updateActions();
}

void CompareController::onTraceChanged(std::shared_ptr<Trace> trace) {
  if (a_ && trace && trace != a_) setB(trace, window_.traceTitle());
  updateActions();
}

void CompareController::onMetrics(const Metrics& m) {
  // The metrics panel shows the current trace: when that is B, the table follows it.
  if (a_ && b_ && b_ == window_.currentTrace())
    view_->setTable(compareRuns(metricsA_, m, nameA_.toStdString(), nameB_.toStdString()));
}

void CompareController::onRunCompleted() {
  if (b_ && b_ == window_.currentTrace()) {
    view_->refreshB();
    view_->fitBoth();
    onMetrics(computeMetrics(*b_));
    markBounds(view_->timelineB(), *b_);
  }
  updateActions();
}

bool CompareController::exportComparisonImage(const QString& path, QString* error) {
  if (!a_ || !b_) {
    if (error) *error = tr("Nothing to export: pin a run as A and run B first.");
    return false;
  }
  const ComparisonContent c = comparisonContent();
  return saveImage(path, comparisonPageSize(c), [&c](QPainter& p, const QRect& r) { paintComparison(p, r, c); }, c.title,
                   error);
}

ComparisonContent CompareController::comparisonContent() const {
  ComparisonContent c;
  if (!a_ || !b_) return c;
  c.title = tr("A/B comparison: %1 vs %2").arg(nameA_, nameB_);
  const DeviceInfo device = b_->device();
  c.subtitle = tr("%1 · both runs aligned at their start, same time axis · %2")
                   .arg(QString::fromStdString(device.summary()), QDateTime::currentDateTime().toString("yyyy-MM-dd"));
  c.aCaption = tr("A: %1").arg(nameA_);
  c.bCaption = tr("B: %1").arg(nameB_);
  TimelineView& va = view_->timelineA();
  TimelineView& vb = view_->timelineB();
  const int common = view_->commonHeaderWidth();
  // Each run painted with its plot starting at the same x (the wider header).
  auto painter = [common](TimelineView& v) {
    return [&v, common](QPainter& p, const QRect& r) {
      const int inset = common - TimelineRenderer::headerWidth(v.layout(), v.font());
      v.renderTo(p, r.adjusted(inset, 0, 0, 0));
    };
  };
  c.paintA = painter(va);
  c.paintB = painter(vb);
  c.aHeight = va.layout().contentHeight + TimelineRenderer::kRulerHeight + 6;
  c.bHeight = vb.layout().contentHeight + TimelineRenderer::kRulerHeight + 6;
  c.paintLegend = [&va](QPainter& p, const QRect& r) {
    return TimelineLegend::paintLegend(p, r, TimelineLegend::defaultKinds(), va.palette(), va.font());
  };
  c.table = view_->table().table();
  c.aNote = QString::fromStdString(computeMetrics(*a_).bottleneckSentence);
  c.bNote = QString::fromStdString(computeMetrics(*b_).bottleneckSentence);
  return c;
}

void CompareController::exportDialog() {
  const QString base = QString("compare-%1-vs-%2.png").arg(nameA_, nameB_);
  const QString path = QFileDialog::getSaveFileName(&window_, tr("Export A/B comparison"), base,
                                                    tr("PNG image, 2× scale (*.png);;SVG vector image (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportComparisonImage(path, &error)) window_.statusBar()->showMessage(error, 10000);
  else window_.statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
}

}  // namespace pipescope::ui
