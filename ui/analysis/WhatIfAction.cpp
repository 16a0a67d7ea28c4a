#include "analysis/WhatIfAction.h"

#include <QAction>
#include <QDockWidget>
#include <QStatusBar>

#include "MainWindow.h"
#include "controls/ControlPanel.h"
#include "metrics/Metrics.h"
#include "sweep/AxisLists.h"
#include "sweep/SweepGridForm.h"
#include "sweep/SweepView.h"

namespace pipescope::ui {

WhatIfAction::WhatIfAction(MainWindow& window) : QObject(&window), window_(window) {
  action_ = new QAction(tr("What &if… (sweep the opened trace's workload)"), this);
  action_->setToolTip(tr("Derive the pipescope configuration of the opened PyTorch / Chrome trace and sweep its batch "
                         "size and stream count on the simulator"));
  action_->setEnabled(false);
  connect(action_, &QAction::triggered, this, [this] { trigger(true); });
  connect(&window, &MainWindow::traceChanged, this, &WhatIfAction::onTraceChanged);
}

void WhatIfAction::onTraceChanged(const std::shared_ptr<Trace>& trace) {
  // Only imported traces need a derived configuration: a run has its own.
  action_->setEnabled(trace && trace->configHistory().empty() && trace->completedBatches() > 0);
}

bool WhatIfAction::trigger(bool start, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    window_.showError(why);
    return false;
  };
  const auto trace = window_.currentTrace();
  if (!trace || !trace->configHistory().empty())
    return fail(tr("What if… works on an opened trace without a pipescope configuration (a PyTorch profiler "
                   "trace); a pipescope run's own configuration is in the controls already."));
  std::string why;
  const auto profile = profileForTrace(trace->device(), "", why);
  if (!profile) return fail(QString::fromStdString(why));
  derived_ = deriveConfig(*trace, computeMetrics(*trace), *profile);
  if (!derived_->ok()) return fail(QString::fromStdString(derived_->failure));

  window_.loadConfig(derived_->config);
  BackendOptions backend = window_.controlPanel().backendOptions();
  backend.choice = BackendChoice::Simulator;
  backend.simulatorProfile = profile->name;
  window_.controlPanel().setBackendOptions(backend);

  SweepSpec spec;
  spec.base = derived_->config;
  spec.batchSamples = batchSamplesAround(derived_->config);
  spec.streams = {1, 2, 4, 8};
  window_.sweepView().form().setSpec(spec);
  if (auto* dock = window_.findChild<QDockWidget*>("dock.sweep")) {
    dock->show();
    dock->raise();
  }
  window_.statusBar()->showMessage(
      tr("Derived configuration on '%1': %2 ms per iteration simulated vs %3 ms in the trace (%4%)")
          .arg(QString::fromStdString(profile->name))
          .arg(derived_->simulatedNsPerIteration / 1e6, 0, 'f', 3)
          .arg(derived_->traceNsPerIteration / 1e6, 0, 'f', 3)
          .arg(derived_->errorPercent(), 0, 'f', 1),
      15000);
  if (start) {
    QString sweepError;
    if (!window_.sweepView().startSweep(&sweepError)) return fail(sweepError);
  }
  return true;
}

}  // namespace pipescope::ui
