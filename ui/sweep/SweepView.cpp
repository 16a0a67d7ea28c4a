#include "sweep/SweepView.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "export/ImageExport.h"
#include "sweep/SweepChartData.h"
#include "sweep/SweepFigure.h"
#include "sweep/SweepFiles.h"
#include "sweep/SweepGridForm.h"
#include "sweep/SweepHeatmap.h"
#include "sweep/SweepLineChart.h"
#include "sweep/SweepWorker.h"
#include "widgets/ReflowBox.h"

namespace pipescope::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString seconds(double s) { return s < 10 ? QString::number(s, 'f', 1) + " s" : QString::number(s, 'f', 0) + " s"; }

void insertByIndex(std::vector<SweepPointResult>& points, const SweepPointResult& p) {
  auto at = std::lower_bound(points.begin(), points.end(), p.index,
                             [](const SweepPointResult& q, std::size_t i) { return q.index < i; });
  if (at != points.end() && at->index == p.index) *at = p;
  else points.insert(at, p);
}

}  // namespace

SweepView::SweepView(QWidget* parent) : QWidget(parent), worker_(new SweepWorker(this)) {
  form_ = new SweepGridForm;
  run_ = new QPushButton(tr("Run s&weep"));
  run_->setToolTip(tr("Run every point of the grid on the control panel's backend and configuration."));
  cancel_ = new QPushButton(tr("&Cancel"));
  cancel_->setEnabled(false);
  cancel_->setToolTip(tr("Stop now; the points finished so far are kept."));
  progress_ = new QProgressBar;
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setTextVisible(true);
  progress_->setFormat(tr("%v / %m points"));
  status_ = new QLabel(tr("Define the grid and press Run sweep."));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  open_ = new QPushButton(tr("&Open…"));
  open_->setToolTip(tr("Open a sweep saved as JSON (by this view or by pipescope-cli sweep --json)."));
  save_ = new QPushButton(tr("&Save…"));
  save_->setToolTip(tr("Save the sweep as JSON (opens here again) or CSV (for a spreadsheet)."));
  export_ = new QPushButton(tr("E&xport image…"));
  export_->setToolTip(tr("Save the chart, heatmaps and recommendation as PNG (2x) or SVG."));

  // The grid, what the run is doing, the chart and the heatmaps side by side where the
  // dock is wide enough, on further rows where it is not (ReflowBox): the dock
  // scrolls vertically on a small screen instead of cutting the figures.
  auto* setup = new QWidget;
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->setContentsMargins(6, 6, 6, 6);
  setupLayout->addWidget(form_);
  setupLayout->addStretch(1);

  recommendation_ = new QLabel;
  recommendation_->setWordWrap(true);
  recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  recommendation_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  auto* progressPart = new QWidget;
  auto* progressLayout = new QVBoxLayout(progressPart);
  progressLayout->setContentsMargins(6, 6, 6, 6);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_, 1);
  buttons->addWidget(cancel_);
  progressLayout->addLayout(buttons);
  progressLayout->addWidget(progress_);
  progressLayout->addWidget(status_);
  // Beside the figures rather than under them: the figures' height then never
  // depends on the length of the sentence.
  progressLayout->addWidget(recommendation_);
  progressLayout->addStretch(1);
  auto* files = new QHBoxLayout;
  files->addWidget(open_);
  files->addWidget(save_);
  files->addWidget(export_);
  progressLayout->addLayout(files);

  block_ = new QComboBox;
  block_->setToolTip(tr("The grid varies host memory or the model: choose which block the figures show."));
  block_->setVisible(false);
  chart_ = new SweepLineChart;
  throughputMap_ = new SweepHeatmap;
  efficiencyMap_ = new SweepHeatmap;

  auto* chartPart = new QWidget;
  auto* chartLayout = new QVBoxLayout(chartPart);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  chartLayout->addWidget(block_);
  chartLayout->addWidget(chart_, 1);
  auto* maps = new QWidget;  // the two heatmaps stay side by side
  auto* mapsLayout = new QHBoxLayout(maps);
  mapsLayout->setContentsMargins(0, 0, 0, 0);
  mapsLayout->addWidget(throughputMap_);
  mapsLayout->addWidget(efficiencyMap_);

  auto* parts = new ReflowBox;
  parts->addWidget(setup, 0);
  parts->addWidget(progressPart, 2);  // wider as the window is: its sentences wrap less
  parts->addWidget(chartPart, 3);
  parts->addWidget(maps, 4);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(parts);

  connect(run_, &QPushButton::clicked, this, [this] { startSweep(); });
  connect(cancel_, &QPushButton::clicked, this, &SweepView::cancelSweep);
  connect(open_, &QPushButton::clicked, this, &SweepView::openDialog);
  connect(save_, &QPushButton::clicked, this, &SweepView::saveDialog);
  connect(export_, &QPushButton::clicked, this, &SweepView::exportDialog);
  connect(block_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(chart_, &SweepLineChart::pointClicked, this, &SweepView::openPoint);
  connect(throughputMap_, &SweepHeatmap::pointClicked, this, &SweepView::openPoint);
  connect(efficiencyMap_, &SweepHeatmap::pointClicked, this, &SweepView::openPoint);
  connect(worker_, &SweepWorker::started, this, &SweepView::onStarted);
  connect(worker_, &SweepWorker::progressed, this, &SweepView::onProgress);
  connect(worker_, &SweepWorker::pointFinished, this, &SweepView::onPoint);
  connect(worker_, &SweepWorker::pointPredicted, this, &SweepView::onPredicted);
  connect(worker_, &SweepWorker::finished, this, &SweepView::onFinished);
  refresh();
}

SweepView::~SweepView() = default;  // the worker (a child) cancels and joins

void SweepView::setBaseSource(std::function<std::optional<PipelineConfig>()> config,
                              std::function<BackendOptions()> backend) {
  baseConfig_ = std::move(config);
  baseBackend_ = std::move(backend);
}

void SweepView::setStartBlocker(std::function<QString()> blocker) { blocker_ = std::move(blocker); }

bool SweepView::running() const { return worker_->running(); }

bool SweepView::startSweep(QString* error) {
  auto fail = [&](const QString& message) {
    setStatus(message);
    if (error) *error = message;
    return false;
  };
  if (worker_->running()) return fail(tr("A sweep is still running: cancel it or wait for it to end."));
  if (blocker_)
    if (const QString why = blocker_(); !why.isEmpty()) return fail(why);
  const std::optional<PipelineConfig> base = baseConfig_ ? baseConfig_() : std::optional<PipelineConfig>(PipelineConfig{});
  if (!base) return fail(tr("The control panel's configuration is not valid: fix the fields marked there first."));
  BackendOptions backend;
  backend.choice = BackendChoice::Simulator;
  if (baseBackend_) backend = baseBackend_();
  QString problems;
  const auto spec = form_->spec(*base, &problems);
  if (!spec) return fail(problems);

  SweepJob job;
  job.spec = *spec;
  job.backend = backend;
  if (form_->predictionWanted()) {
    const bool sameSimulator = backend.choice == BackendChoice::Simulator &&
                               backend.simulatorProfile == form_->predictionProfile();
    // On the same simulator profile the prediction would be the measurement itself.
    if (!sameSimulator) job.predictProfile = form_->predictionProfile();
  }
  QString why;
  cancelledByUser_ = false;
  if (!worker_->start(job, &why)) return fail(why);
  setRunning(true);
  return true;
}

void SweepView::cancelSweep() {
  if (!worker_->running()) return;
  worker_->cancel();
  cancelledByUser_ = true;
  result_.cancelled = true;
  // Immediate: the view is final from now on; the thread ends within one operation.
  cancel_->setEnabled(false);
  progress_->setFormat(tr("cancelled: %v / %m points kept"));
  setStatus(tr("Cancelled: %1 of %2 points finished and are kept.").arg(result_.points.size()).arg(result_.totalPoints));
  refresh();
}

void SweepView::setRunning(bool running) {
  run_->setEnabled(!running);
  cancel_->setEnabled(running);
  form_->setEnabled(!running);
  open_->setEnabled(!running);
}

void SweepView::onStarted(const SweepResult& empty) {
  result_ = empty;
  progress_->setRange(0, int(empty.totalPoints));
  progress_->setValue(0);
  progress_->setFormat(tr("%v / %m points"));
  setStatus(tr("Starting %1 points on %2…").arg(empty.totalPoints).arg(qs(empty.device.name)));
  refreshBlocks();
  refresh();
}

void SweepView::onProgress(const SweepStatus& s) {
  if (cancelledByUser_) return;
  if (s.predicting) {
    progress_->setRange(0, int(s.totalPoints));
    progress_->setValue(int(s.pointsDone));
    progress_->setFormat(tr("prediction %v / %m"));
    setStatus(tr("Simulator prediction: %1 of %2 points.").arg(s.pointsDone).arg(s.totalPoints));
    return;
  }
  progress_->setValue(int(s.pointsDone));
  if (s.pointLabel.isEmpty()) return;
  QString text = tr("Point %1/%2: %3").arg(s.pointsDone + 1).arg(s.totalPoints).arg(s.pointLabel);
  text += tr(" — %1 elapsed").arg(seconds(s.elapsedSec));
  if (s.etaSec >= 0) text += tr(", about %1 left").arg(seconds(s.etaSec));
  setStatus(text);
}

void SweepView::onPoint(const SweepPointResult& p) {
  if (cancelledByUser_) return;  // the view is final since the cancel
  insertByIndex(result_.points, p);
  progress_->setValue(int(result_.points.size()));
  refresh();
}

void SweepView::onPredicted(const SweepPointResult& p) {
  if (cancelledByUser_) return;
  insertByIndex(result_.predicted, p);
  refresh();
}

void SweepView::onFinished(std::shared_ptr<SweepResult> result, const QString& error) {
  setRunning(false);
  if (!error.isEmpty()) {
    setStatus(tr("The sweep could not run: %1").arg(error));
  } else if (cancelledByUser_) {
    // Keep exactly what the view showed when Cancel was pressed.
    result_.wallSeconds = result->wallSeconds;
  } else {
    result_ = *result;
    progress_->setRange(0, int(result_.totalPoints));
    progress_->setValue(int(result_.points.size()));
    progress_->setFormat(tr("%v / %m points"));
    std::size_t failed = 0;
    for (const auto& p : result_.points) failed += p.ok() ? 0 : 1;
    QString text = tr("Done: %1 points in %2.").arg(result_.points.size()).arg(seconds(result_.wallSeconds));
    if (failed > 0) text += tr(" %1 failed (hover the empty cells; the CSV has their messages).").arg(failed);
    text += tr(" Click a point or a cell to open its timeline.");
    setStatus(text);
    refresh();
  }
  emit sweepEnded();
}

void SweepView::setResult(const SweepResult& result) {
  if (worker_->running()) return;
  result_ = result;
  cancelledByUser_ = false;
  form_->setSpec(result_.spec);
  progress_->setRange(0, int(std::max<std::size_t>(1, result_.totalPoints)));
  progress_->setValue(int(result_.points.size()));
  refreshBlocks();
  refresh();
}

void SweepView::refreshBlocks() {
  const QSignalBlocker quiet(block_);
  block_->clear();
  for (const auto& b : sweepBlocks(result_)) block_->addItem(b.label);
  block_->setVisible(block_->count() > 1);
}

QString SweepView::heading() const {
  if (result_.spec.batchSamples.empty()) return tr("No sweep yet");
  const SweepSpec& s = result_.spec;
  QString h = tr("Sweep on %1").arg(qs(result_.device.name));
  if (result_.backend == "simulator") h += tr(", simulator profile %1").arg(qs(result_.device.profile));
  h += tr(": %1 of %2 points, %3 measured batches each after %4 warm-up")
           .arg(result_.points.size())
           .arg(result_.totalPoints)
           .arg(s.batches)
           .arg(s.warmupBatches);
  const int reps = result_.points.empty() || result_.points.front().repetitions.empty()
                       ? s.repeats
                       : int(result_.points.front().repetitions.size());
  h += reps == 1 ? tr(", 1 repetition") : tr(", %1 repetitions").arg(reps);
  const PipelineConfig& b = s.base;
  h += tr("; %1, %2, %3 samples, %4")
           .arg(qs(std::string(toString(b.mode))), qs(std::string(toString(b.memory))), qs(formatBytes(b.sampleBytes)),
                qs(std::string(toString(b.order))));
  if (!result_.predicted.empty())
    h += tr("; dashed: the simulator's prediction (profile %1)").arg(qs(result_.predictedDevice.profile));
  if (result_.cancelled) h += tr(" (cancelled)");
  return h;
}

void SweepView::refresh() {
  const auto blocks = sweepBlocks(result_);
  const int which = std::clamp(block_->currentIndex(), 0, std::max(0, int(blocks.size()) - 1));
  if (result_.spec.batchSamples.empty() || blocks.empty()) {
    chart_->clear();
    throughputMap_->setGrid({}, tr("Throughput"));
    efficiencyMap_->setGrid({}, tr("Efficiency"));
    recommendation_->clear();
    return;
  }
  const SweepBlock& block = blocks[std::size_t(which)];
  const QString suffix = block.label.isEmpty() ? QString() : " (" + block.label + ")";
  chart_->setData(sweepSeries(result_, result_.points, block), sweepSeries(result_, result_.predicted, block),
                  tr("Throughput vs batch size, one line per stream count%1").arg(suffix));
  throughputMap_->setGrid(heatmapGrid(result_, block, HeatmapMetric::Throughput), tr("Throughput (samples/s)%1").arg(suffix));
  efficiencyMap_->setGrid(heatmapGrid(result_, block, HeatmapMetric::Efficiency),
                          tr("Efficiency (ideal bound / makespan)%1").arg(suffix));
  recommendation_->setText(recommendationText());
}

Recommendation SweepView::recommendation() const { return recommend(result_); }

QString SweepView::recommendationText() const {
  if (result_.points.empty()) return {};
  const Recommendation rec = recommendation();
  QString text = tr("<b>Recommendation:</b> %1").arg(qs(rec.sentence).toHtmlEscaped());
  if (!rec.knees.empty()) {
    QStringList knees;
    for (const auto& k : rec.knees) knees << qs(k.sentence).toHtmlEscaped();
    text += "<br>" + tr("Where more streams stop helping: %1").arg(knees.join("; "));
  }
  return text;
}

QString SweepView::statusText() const { return status_->text(); }

void SweepView::setStatus(const QString& text) { status_->setText(text); }

void SweepView::openPoint(std::size_t index) {
  const SweepPointResult* p = result_.point(index);
  if (!p) return;
  const QString label = qs(result_.label(*p));
  if (!p->trace) {
    setStatus(p->traceDropped
                  ? tr("The timeline of %1 was not kept (the sweep keeps at most %2 ops of traces): run it alone "
                       "from the control panel to see it.")
                        .arg(label)
                        .arg(result_.spec.maxKeptOps)
                  : tr("%1 has no timeline here (sweeps opened from a file keep figures only): run it from the "
                       "control panel to see it.")
                        .arg(label));
    return;
  }
  setStatus(tr("Showing the timeline of %1 in the main window.").arg(label));
  emit traceRequested(p->trace, tr("sweep point %1").arg(label));
}

bool SweepView::loadJson(const QString& path, QString* error) {
  if (worker_->running()) {
    if (error) *error = tr("A sweep is running: cancel it before opening another.");
    return false;
  }
  try {
    setResult(loadSweepJson(path.toStdString()));
    setStatus(tr("Opened %1: %2 points.").arg(QFileInfo(path).fileName()).arg(result_.points.size()));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    setStatus(QString::fromUtf8(e.what()));
    return false;
  }
}

bool SweepView::saveResult(const QString& path, QString* error) {
  try {
    if (path.endsWith(".csv", Qt::CaseInsensitive)) saveSweepCsv(result_, path.toStdString());
    else if (path.endsWith(".json", Qt::CaseInsensitive)) saveSweepJson(result_, path.toStdString());
    else throw std::runtime_error(path.toStdString() + ": unknown file type; use a name ending in .json or .csv");
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

bool SweepView::exportImage(const QString& path, QString* error) {
  SweepFigureText text;
  text.heading = heading();
  const Recommendation rec = recommendation();
  text.recommendation = qs(rec.sentence);
  for (const auto& k : rec.knees) text.knees << qs(k.sentence);
  for (const auto& n : result_.notes) text.notes << qs(n);
  return saveImage(
      path, QSize(kSweepFigureWidth, kSweepFigureHeight),
      [&](QPainter& p, const QRect& r) { paintSweepFigure(p, r, *chart_, *throughputMap_, *efficiencyMap_, text); },
      tr("pipescope sweep"), error);
}

void SweepView::openDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open sweep"), {}, tr("Sweep JSON (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  loadJson(path, &error);
}

void SweepView::saveDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Save sweep"), "sweep.json", tr("Sweep JSON (*.json);;CSV table (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  setStatus(saveResult(path, &error) ? tr("Saved %1.").arg(QFileInfo(path).fileName()) : error);
}

void SweepView::exportDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export sweep image"), "sweep.png",
                                                    tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  setStatus(exportImage(path, &error) ? tr("Exported %1.").arg(QFileInfo(path).fileName()) : error);
}

}  // namespace pipescope::ui
