#include "analysis/AdvicePanel.h"

#include <QFrame>
#include <QLabel>
#include <QMetaObject>
#include <QPushButton>
#include <QStatusBar>
#include <QVBoxLayout>

#include "MainWindow.h"
#include "analysis/AnalysisFormat.h"
#include "analysis/DerivedConfig.h"
#include "analysis/PredictionProfile.h"
#include "analysis/WaitAnalysis.h"
#include "analysis/WaitWindows.h"
#include "analysis/WaitSummary.h"
#include "controls/ControlPanel.h"
#include "run/RunController.h"
#include "sim/DeviceProfile.h"
#include "widgets/VerticalScrollArea.h"

namespace pipescope::ui {

namespace {

QLabel* wrapped(const QString& text, const QString& style = {}) {
  auto* l = new QLabel(text);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  if (!style.isEmpty()) l->setStyleSheet(style);
  return l;
}

}  // namespace

AdvicePanel::AdvicePanel(MainWindow& window) : window_(window) {
  setObjectName("advicePanel");
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* inner = new QWidget;
  auto* layout = new QVBoxLayout(inner);
  status_ = wrapped(tr("When a run ends, the simulator tries the usual fixes on it and ranks them here."));
  status_->setObjectName("adviceStatus");
  layout->addWidget(status_);
  items_ = new QVBoxLayout;
  layout->addLayout(items_);
  layout->addStretch(1);
  outer->addWidget(new VerticalScrollArea(inner));

  connect(&window, &MainWindow::runCompleted, this, [this](std::shared_ptr<Trace> t) { adviseOn(std::move(t)); });
  connect(&window, &MainWindow::traceChanged, this, [this](std::shared_ptr<Trace> t) {
    // A new run: the old advice no longer describes the screen, and runCompleted brings
    // the new one. Anything else (an opened file, a lesson's run shown again) is
    // finished already: advise on it at once.
    if (t && t != window_.runController().trace()) adviseOn(t);
    else cancel();
  });
}

AdvicePanel::~AdvicePanel() {
  worker_.request_stop();
  if (worker_.joinable()) worker_.join();
}

void AdvicePanel::cancel() {
  ++generation_;
  worker_.request_stop();
  computing_ = false;
  for (QPushButton* b : applyButtons_) b->setEnabled(false);
  status_->setText(tr("The run is going: advice follows when it ends."));
}

QPushButton* AdvicePanel::applyButton(int i) const {
  return i >= 0 && std::size_t(i) < applyButtons_.size() ? applyButtons_[std::size_t(i)] : nullptr;
}

QString AdvicePanel::statusText() const { return status_->text(); }

void AdvicePanel::adviseOn(std::shared_ptr<const Trace> trace) {
  cancel();
  AdviceResult none;
  if (!trace || trace->ops().publishedCount() == 0) {
    none.error = tr("the run recorded no operations").toStdString();
    show(std::move(none), generation_);
    return;
  }
  // An imported trace is advised on its derived configuration, on the profile of its
  // own GPU (analysis/DerivedConfig.h); a run on a GPU on this machine's calibration of
  // it, else the built-in profile of its model; a simulated run on its own profile.
  const bool imported = trace->configHistory().empty();
  const std::string profileName = window_.controlPanel().backendOptions().simulatorProfile;
  std::string error;
  std::optional<DeviceProfile> profile;
  if (imported) {
    profile = profileForTrace(trace->device(), "", error);
  } else if (trace->device().backend == "cuda") {
    PredictionProfileChoice choice = predictionProfileFor(trace->device());
    profile = std::move(choice.profile);
    if (!profile) error = choice.note;
  } else {
    profile = loadDeviceProfile(profileName, error);
  }
  if (!profile) {
    none.error = error + tr(". Pick a device profile in the Controls' backend section").toStdString();
    show(std::move(none), generation_);
    return;
  }
  status_->setText(tr("Simulating the alternatives on the %1 profile…").arg(QString::fromStdString(profile->name)));
  computing_ = true;
  if (worker_.joinable()) worker_.join();  // stop was requested: returns within one simulated run
  const std::uint64_t generation = generation_;
  worker_ = std::jthread([this, trace, imported, profile = std::move(*profile), generation](std::stop_token stop) {
    // Evidence from the measured run, then the candidates on the simulator.
    const Metrics metrics = computeMetrics(*trace);
    const TraceView ops = trace->ops().snapshot();
    const std::vector<Lane> lanes = trace->lanes();
    const WaitSummary waits = summarizeAllWaits(ops, lanes);
    AdviceInput in{trace->config(), profile, &metrics, &waits, std::nullopt};
    AdviceResult result;
    std::optional<DerivedConfig> derived;
    if (imported && metrics.batches > 0) derived = deriveConfig(*trace, metrics, profile, stop);
    if (imported && metrics.batches <= 0) {
      result.error = "no iterations were found in this trace, so there is nothing to simulate (the limits say why)";
    } else if (derived && !derived->ok()) {
      result.error = derived->failure;
    } else {
      AdviceOptions options;
      if (derived) in.config = derived->config, options.cpuStagesAreDispatch = true;
      result = advise(in, options, stop);
    }
    if (stop.stop_requested()) return;
    QMetaObject::invokeMethod(
        this, [this, result = std::move(result), generation]() mutable { show(std::move(result), generation); },
        Qt::QueuedConnection);
  });
}

void AdvicePanel::show(AdviceResult result, std::uint64_t generation) {
  if (generation != generation_) return;  // superseded by a newer run
  computing_ = false;
  result_ = std::move(result);
  while (QLayoutItem* item = items_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  applyButtons_.clear();
  if (!result_.error.empty()) {
    status_->setText(tr("No advice: %1").arg(QString::fromStdString(result_.error)));
  } else if (result_.items.empty()) {
    status_->setText(tr("Nothing the simulator tried helps by more than 3%: this configuration is about as good as "
                        "it gets on this device."));
  } else {
    status_->setText(tr("Ranked by the speed-up the simulator predicts (%1 batches per candidate, same device profile):")
                         .arg(result_.simulatedBatches));
  }
  int rank = 0;
  for (const AdviceItem& item : result_.items) {
    auto* card = new QFrame;
    card->setObjectName("adviceItem");
    card->setFrameShape(QFrame::StyledPanel);
    auto* l = new QVBoxLayout(card);
    auto* title = wrapped(tr("%1. %2 — predicted %3 faster")
                              .arg(++rank)
                              .arg(QString::fromStdString(item.title), QString::fromStdString(formatRatio(item.speedup))),
                          "font-weight: 600;");
    l->addWidget(title);
    l->addWidget(wrapped(QString::fromStdString(item.sentence)));
    if (!item.change.empty()) l->addWidget(wrapped(tr("Change: %1").arg(QString::fromStdString(item.change)), "color: palette(placeholder-text);"));
    auto* apply = new QPushButton(tr("Apply"));
    apply->setToolTip(tr("Load this configuration into the controls (press Start to run it)"));
    const PipelineConfig config = item.config;
    connect(apply, &QPushButton::clicked, this, [this, config, t = item.title] {
      window_.loadConfig(config);
      window_.statusBar()->showMessage(tr("Loaded “%1” into the controls: press Start to run it.").arg(QString::fromStdString(t)), 6000);
    });
    l->addWidget(apply, 0, Qt::AlignRight);
    applyButtons_.push_back(apply);
    items_->addWidget(card);
  }
  emit adviceReady();
}

}  // namespace pipescope::ui
