#include "runner/EngineThread.h"

#include <exception>

namespace pipescope {

namespace {
std::string joinIssues(const std::vector<ConfigIssue>& issues) {
  std::string s = "invalid configuration:";
  for (const auto& i : issues) s += "\n  " + i.message();
  return s;
}
}  // namespace

ConfigError::ConfigError(std::vector<ConfigIssue> issues)
    : std::runtime_error(joinIssues(issues)), issues_(std::move(issues)) {}

EngineThread::EngineThread(std::unique_ptr<Backend> backend) : backend_(std::move(backend)) {
  if (!backend_) throw std::invalid_argument("EngineThread needs a backend");
}

EngineThread::~EngineThread() {
  requestStop();
  wait();
}

std::shared_ptr<Trace> EngineThread::start(const PipelineConfig& config, std::uint64_t maxOps, bool keepUntilStreamed) {
  if (auto issues = validate(config); !issues.empty()) throw ConfigError(std::move(issues));
  if (running()) throw std::logic_error("a run is already in progress; stop it first");
  if (thread_.joinable()) thread_.join();  // the previous run has ended; reap its thread

  auto trace = std::make_shared<Trace>(maxOps);
  if (keepUntilStreamed) trace->ops().retainFrom(0);
  trace->setConfig(config);
  trace->setDevice(backend_->describe());
  trace->setOutcome({RunState::Running, {}});
  {
    std::lock_guard lock(mutex_);
    trace_ = trace;
    pending_.reset();
  }
  running_.store(true, std::memory_order_release);
  thread_ = std::jthread([this, trace, config](std::stop_token stop) {
    RunControl control;
    control.stop = stop;
    control.takePendingConfig = [this] { return takePending(); };
    RunOutcome outcome;
    try {
      outcome = backend_->run(config, *trace, control);
    } catch (const std::exception& e) {
      // Backends report errors as outcomes; an exception here is a bug, but the
      // user still gets the message and keeps the ops recorded so far.
      outcome = {RunState::Failed, std::string("internal error: ") + e.what()};
    }
    trace->ops().publish();
    if (outcome.state == RunState::Running || outcome.state == RunState::NotStarted)
      outcome.state = stop.stop_requested() ? RunState::Stopped : RunState::Finished;
    trace->setOutcome(outcome);
    running_.store(false, std::memory_order_release);
  });
  return trace;
}

void EngineThread::requestStop() {
  if (thread_.joinable()) thread_.request_stop();
}

void EngineThread::applyConfig(const PipelineConfig& config) {
  if (auto issues = validate(config); !issues.empty()) throw ConfigError(std::move(issues));
  std::lock_guard lock(mutex_);
  pending_ = config;
}

std::optional<PipelineConfig> EngineThread::takePending() {
  std::lock_guard lock(mutex_);
  auto p = std::move(pending_);
  pending_.reset();
  return p;
}

void EngineThread::wait() {
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<Trace> EngineThread::trace() const {
  std::lock_guard lock(mutex_);
  return trace_;
}

}  // namespace pipescope
