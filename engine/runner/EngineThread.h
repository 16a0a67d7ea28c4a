#pragma once
// Runs a backend on its own thread. The owner (UI or CLI) starts a run, reads the
// trace while it grows, queues configuration changes and stops it; none of these
// calls waits for the backend except wait() and the destructor.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/Backend.h"

namespace pipescope {

/// Thrown by start()/applyConfig() when the configuration is invalid; carries every issue.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<ConfigIssue> issues);
  const std::vector<ConfigIssue>& issues() const { return issues_; }

 private:
  std::vector<ConfigIssue> issues_;
};

class EngineThread {
 public:
  explicit EngineThread(std::unique_ptr<Backend> backend);
  ~EngineThread();  ///< stops the run and joins; recorded ops stay in the trace
  EngineThread(const EngineThread&) = delete;
  EngineThread& operator=(const EngineThread&) = delete;

  /// Starts a run in a new trace; throws ConfigError for an invalid configuration and
  /// std::logic_error if a run is in progress. maxOps bounds the live window (0 = all).
  /// keepUntilStreamed: the window drops no op until a TraceStreamWriter attached to
  /// the trace has written it (it must be attached right after start()).
  std::shared_ptr<Trace> start(const PipelineConfig& config, std::uint64_t maxOps = 0, bool keepUntilStreamed = false);
  /// Asks the run to stop between operations; returns at once.
  void requestStop();
  /// Queues a configuration for the next batch boundary (the latest call wins).
  /// Throws ConfigError for an invalid configuration.
  void applyConfig(const PipelineConfig& config);
  /// Blocks until the current run has ended.
  void wait();
  bool running() const { return running_.load(std::memory_order_acquire); }
  std::shared_ptr<Trace> trace() const;
  const Backend& backend() const { return *backend_; }

 private:
  std::optional<PipelineConfig> takePending();

  std::unique_ptr<Backend> backend_;
  mutable std::mutex mutex_;  // guards trace_ and pending_
  std::shared_ptr<Trace> trace_;
  std::optional<PipelineConfig> pending_;
  std::atomic<bool> running_{false};
  std::jthread thread_;
};

}  // namespace pipescope
