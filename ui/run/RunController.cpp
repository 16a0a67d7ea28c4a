#include "run/RunController.h"

#include "runner/EngineThread.h"

namespace pipescope::ui {

namespace {

bool sameBackend(const BackendOptions& a, const BackendOptions& b) {
  return a.choice == b.choice && a.simulatorProfile == b.simulatorProfile &&
         a.simulatorSlowdown == b.simulatorSlowdown && a.cudaDevice == b.cudaDevice;
}

QString configErrorMessage(const ConfigError& e) {
  QString s = QObject::tr("The configuration cannot run:");
  for (const auto& issue : e.issues()) s += "\n  • " + QString::fromStdString(issue.message());
  return s;
}

}  // namespace

RunController::RunController(QObject* parent) : QObject(parent) {
  timer_.setInterval(kTickIntervalMs);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &RunController::onTimer);
}

RunController::~RunController() {
  // EngineThread's destructor raises the stop flag and joins; the backends check the
  // flag between operations, so this returns within one operation.
  timer_.stop();
  engine_.reset();
  if (!live_ || !trace_) return;
  // The run was still live (the window closed during it): keep what it recorded.
  QString error;
  if (autosave_.active())
    autosave_.finish(&error);
  else if (autosave_.enabled())
    autosave_.saveWhole(*trace_, &error);
  if (!error.isEmpty()) qWarning("pipescope: the live run could not be kept: %s", qPrintable(error));
}

bool RunController::ensureBackend(const BackendOptions& options) {
  if (engine_ && !callersBackend_ && sameBackend(options, engineOptions_)) return true;
  BackendSelection selection = makeBackend(options);
  if (!selection.backend) {
    emit errorOccurred(tr("No backend to run on: %1").arg(QString::fromStdString(selection.error)));
    return false;
  }
  engine_ = std::make_unique<EngineThread>(std::move(selection.backend));
  engineOptions_ = options;
  callersBackend_ = false;
  return true;
}

bool RunController::start(const PipelineConfig& config, const BackendChoice& backend) {
  BackendOptions options;
  options.choice = backend;
  return start(config, options);
}

bool RunController::start(const PipelineConfig& config, const BackendOptions& backend) {
  if (running()) {
    emit errorOccurred(tr("A run is in progress: stop it before starting another."));
    return false;
  }
  if (auto issues = validate(config); !issues.empty()) {
    emit errorOccurred(configErrorMessage(ConfigError(std::move(issues))));
    return false;
  }
  if (!ensureBackend(backend)) return false;
  return launch(config);
}

bool RunController::start(const PipelineConfig& config, std::unique_ptr<Backend> backend) {
  if (running()) {
    emit errorOccurred(tr("A run is in progress: stop it before starting another."));
    return false;
  }
  if (!backend) return false;
  engine_ = std::make_unique<EngineThread>(std::move(backend));
  callersBackend_ = true;
  return launch(config);
}

bool RunController::launch(const PipelineConfig& config) {
  try {
    const std::uint64_t maxOps = config.runsUntilStopped() ? kEndlessRunMaxOps : 0;
    trace_ = engine_->start(config, maxOps, /*keepUntilStreamed=*/autosave_.covers(config));
  } catch (const ConfigError& e) {
    emit errorOccurred(configErrorMessage(e));
    return false;
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The run could not start: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  live_ = true;
  stopRequested_ = false;
  timer_.start();
  emit runStarted(trace_);
  if (autosave_.covers(config)) {
    QString error;
    if (autosave_.begin(trace_, &error)) {
      emit autosaving(autosave_.path());
    } else {
      trace_->ops().retainFrom(TraceStore::kRetainNone);  // nothing streams: let the window move
      emit errorOccurred(tr("This run is not autosaved: %1\nIt runs on; save it with File > Save when it ends, or "
                            "choose another folder with PIPESCOPE_AUTOSAVE_DIR.")
                             .arg(error));
    }
  }
  return true;
}

void RunController::stop() {
  if (!engine_ || !live_) return;
  stopRequested_ = true;
  engine_->requestStop();
}

bool RunController::applyConfig(const PipelineConfig& config) {
  if (!running()) return false;
  try {
    engine_->applyConfig(config);
  } catch (const ConfigError& e) {
    emit errorOccurred(configErrorMessage(e));
    return false;
  }
  return true;
}

bool RunController::running() const { return live_ && engine_ && engine_->running(); }

DeviceInfo RunController::device() const { return engine_ ? engine_->backend().describe() : DeviceInfo{}; }

void RunController::onTimer() {
  emit tick();
  if (!live_ || (engine_ && engine_->running())) return;
  // The engine thread has ended: everything it recorded is published and the
  // outcome is final.
  live_ = false;
  timer_.stop();
  engine_->wait();  // returns at once: the thread has finished its work
  if (autosave_.active()) {
    QString error;
    if (!autosave_.finish(&error))
      emit errorOccurred(tr("The autosave of this run failed: %1\nThe trace is still in memory: save it with "
                            "File > Save.")
                             .arg(error));
  }
  const RunOutcome outcome = trace_->outcome();
  if (outcome.state == RunState::Failed)
    emit errorOccurred(tr("The run failed: %1\nThe %2 operations recorded before the failure are kept.")
                           .arg(QString::fromStdString(outcome.message))
                           .arg(trace_->ops().publishedCount()));
  emit runFinished(trace_);
}

}  // namespace pipescope::ui
