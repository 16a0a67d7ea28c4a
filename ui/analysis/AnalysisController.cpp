#include "analysis/AnalysisController.h"

#include <QAction>
#include <QLayout>

#include "MainWindow.h"
#include "analysis/AnalysisFormat.h"
#include "analysis/RunAnalysis.h"
#include "analysis/LimitsSection.h"
#include "analysis/WaitAnalysisModel.h"
#include "analysis/WaitCauseLegend.h"
#include "analysis/WaitCauseOverlay.h"
#include "metrics/MetricsPanel.h"
#include "run/RunController.h"
#include "timeline/TimelineView.h"

namespace pipescope::ui {

AnalysisController::AnalysisController(MainWindow& window) : QObject(&window), window_(window) {
  model_ = new WaitAnalysisModel(this);
  overlay_ = std::make_unique<WaitCauseOverlay>(*model_);
  legend_ = new WaitCauseLegend;
  window.addUnderTimeline(legend_);
  section_ = new LimitsSection;
  window.metricsPanel().addSection(section_);

  showWaits_ = new QAction(tr("Show &wait causes"), this);
  showWaits_->setCheckable(true);
  showWaits_->setToolTip(tr("Colour the time before each GPU op by why it waited (legend under the timeline)"));
  connect(showWaits_, &QAction::toggled, this, &AnalysisController::setShowWaits);

  TimelineView& timeline = window.timeline();
  timeline_ = &timeline;
  // The tooltip's wait text comes from the latest analysis, whether or not the overlay is shown.
  timeline.setOpAnnotator([model = model_](const Op&, std::size_t opIndex) {
    const auto r = model->result();
    return r ? r->describe(opIndex) : QString();
  });

  timer_.setInterval(MainWindow::kMetricsIntervalMs);
  connect(&timer_, &QTimer::timeout, model_, &WaitAnalysisModel::refresh);
  connect(model_, &WaitAnalysisModel::updated, this, &AnalysisController::onModelUpdated);
  connect(&window, &MainWindow::traceChanged, this, &AnalysisController::onTraceChanged);
  connect(&window, &MainWindow::runCompleted, this, [this](std::shared_ptr<Trace>) {
    timer_.stop();
    model_->refresh();
    // The metrics panel was updated before runCompleted: place the markers now.
    if (trace_) onMetrics(computeMetrics(*trace_));
  });
  connect(&window.metricsPanel(), &MetricsPanel::metricsShown, this, &AnalysisController::onMetrics);
  // Markers and limits belong to the figures shown: they go when the figures go (a
  // new run, another trace), and the next figures place them again.
  connect(&window.metricsPanel(), &MetricsPanel::cleared, this, [this] {
    section_->clear();
    emit limitsCleared();
    window_.timeline().setMarkers({});
  });
  setShowWaits(true);
}

AnalysisController::~AnalysisController() {
  // Never leave the view pointing at a dead overlay (the view may go first while
  // the window deletes its children).
  if (timeline_) timeline_->setOverlay(nullptr);
}

void AnalysisController::setShowWaits(bool on) {
  if (showWaits_->isChecked() != on) showWaits_->setChecked(on);  // re-enters through toggled
  window_.timeline().setOverlay(on ? overlay_.get() : nullptr);
  legend_->setVisible(on);
}

bool AnalysisController::showWaits() const { return showWaits_->isChecked(); }

void AnalysisController::onTraceChanged(std::shared_ptr<Trace> trace) {
  trace_ = std::move(trace);
  model_->setTrace(trace_);
  if (trace_ && window_.runController().running()) timer_.start();
  else timer_.stop();
}

void AnalysisController::onModelUpdated() {
  window_.timeline().update();
  const auto r = model_->result();
  section_->setWaitSentences(r ? r->sentences : QStringList());
}

std::vector<TimelineMarker> AnalysisController::boundMarkers(const Limits& l) {
  if (l.batches <= 0 || l.fullOverlapNs <= 0) return {};
  // The markers stand at absolute times; their labels give durations from the first
  // op, as the limits text does (an imported trace starts its timeline before its
  // first iteration: "actual 30.8 ms" beside "measured 28.5 ms" was seen).
  const double fromStart = double(l.firstStartNs);
  TimelineMarker ideal{l.idealFinishNs,
                       tr("ideal finish %1").arg(QString::fromStdString(formatNs(double(l.idealFinishNs) - fromStart))),
                       QColor(0x00, 0x9E, 0x73), 0};
  TimelineMarker actual{l.measuredFinishNs,
                        tr("actual %1").arg(QString::fromStdString(formatNs(double(l.measuredFinishNs) - fromStart))),
                        QColor(0x33, 0x33, 0x33), 1};
  return {ideal, actual};
}

void AnalysisController::onMetrics(const Metrics& m) {
  Limits limits = computeLimits(m);
  // An imported trace without iterations says why, once, where the limits would be.
  // (The window's trace: the figures of a newly shown trace come before traceChanged.)
  if (const auto shown = window_.currentTrace())
    if (const std::string none = noIterationsSentence(*shown, m.batches); !none.empty()) limits.positionSentence = none;
  section_->setLimits(limits);
  emit limitsShown(limits);
  // Markers only once the run is over: a live run's bound moves with every batch.
  const bool live = window_.runController().running();
  window_.timeline().setMarkers(live ? std::vector<TimelineMarker>{} : boundMarkers(limits));
}

}  // namespace pipescope::ui
