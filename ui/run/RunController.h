#pragma once
// Owns the engine thread of the desktop app and the display-rate timer that tells
// the views to pick up newly published ops. Nothing here waits for the engine:
// start() hands the run to EngineThread, stop() raises its stop flag, and the end
// of a run is noticed on the next tick. Errors (an invalid configuration, no such
// backend, a failed run) reach the user through errorOccurred with a message that
// says what is wrong and what to do.
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "run/RunAutosave.h"
#include "trace/Trace.h"

namespace pipescope {
class EngineThread;
}

namespace pipescope::ui {

class RunController : public QObject {
  Q_OBJECT
 public:
  /// Display rate of tick(): about 60 Hz.
  static constexpr int kTickIntervalMs = 16;
  /// Live window of runs that go on until stopped (ops; older chunks are dropped).
  static constexpr std::uint64_t kEndlessRunMaxOps = 4u << 20;

  explicit RunController(QObject* parent = nullptr);
  /// Stops a run in progress and joins the engine thread (within one operation). A run
  /// still live is kept, without a question: its autosave is finished, or, when it
  /// was not streamed, the whole trace is saved to the autosave folder.
  ~RunController() override;

  /// Starts a run; an invalid configuration or an unavailable backend is reported
  /// through errorOccurred and nothing starts. Returns whether the run started.
  bool start(const PipelineConfig& config, const BackendOptions& backend);
  bool start(const PipelineConfig& config, const BackendChoice& backend);
  /// Starts a run on a backend made by the caller (the lesson player's replay of a
  /// measured run); the next start with BackendOptions makes its own again.
  bool start(const PipelineConfig& config, std::unique_ptr<Backend> backend);
  /// Asks the run to stop at its next batch boundary; returns at once. runFinished
  /// follows on a later tick.
  void stop();
  /// Queues a configuration for the next batch boundary of the live run; an invalid
  /// one is reported through errorOccurred. Returns whether it was queued.
  bool applyConfig(const PipelineConfig& config);
  bool running() const;
  bool stopRequested() const { return stopRequested_; }
  std::shared_ptr<Trace> trace() const { return trace_; }
  /// What the current (or last) backend runs on; empty before the first run.
  DeviceInfo device() const;
  /// Autosave of runs without a batch limit (RunAutosave.h); on by default.
  RunAutosave& autosave() { return autosave_; }

 signals:
  void runStarted(std::shared_ptr<Trace> trace);
  void tick();  ///< display rate while a run is live: new ops may be published
  void runFinished(std::shared_ptr<Trace> trace);  ///< finished, stopped or failed (outcome in trace)
  void errorOccurred(QString message);
  /// A run's trace is being streamed to (or, at teardown, was saved to) `path`.
  void autosaving(QString path);

 private:
  void onTimer();
  bool ensureBackend(const BackendOptions& options);
  bool launch(const PipelineConfig& config);

  std::unique_ptr<EngineThread> engine_;
  BackendOptions engineOptions_;
  bool callersBackend_ = false;  // engine_ runs a backend start(config, backend) was given
  std::shared_ptr<Trace> trace_;
  QTimer timer_;
  RunAutosave autosave_;
  bool live_ = false;           // a run was started and its end not yet reported
  bool stopRequested_ = false;
};

}  // namespace pipescope::ui
