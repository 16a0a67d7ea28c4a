#pragma once
// Brings SIGTERM (what a session manager, systemd, Docker or `kill` send), SIGHUP (the
// terminal the app was started from closed) and SIGINT (Ctrl-C in that terminal) into
// the Qt event loop, so the app closes as if its window were closed: a live run is
// stopped and its trace kept in the autosave folder, the settings are saved. A signal
// handler may do almost nothing, so it only writes the signal's number into a pipe
// that a QSocketNotifier watches (the self-pipe pattern). A second signal of the same
// kind takes the default action: the app ends at once. A SIGHUP ignored at start
// (`nohup`) stays ignored.
#include <QObject>
#include <functional>
#include <memory>

class QSocketNotifier;

namespace pipescope::ui {

class StopSignalNotifier : public QObject {
  Q_OBJECT
 public:
  /// Installs the handlers (one notifier per process) and unblocks the signals, so
  /// one that arrived while they were blocked is delivered now.
  explicit StopSignalNotifier(QObject* parent = nullptr);
  /// Restores the default actions.
  ~StopSignalNotifier() override;
  StopSignalNotifier(const StopSignalNotifier&) = delete;
  StopSignalNotifier& operator=(const StopSignalNotifier&) = delete;

  /// The first stop signal that arrived, 0 if none.
  int received() const { return received_; }

 signals:
  /// On the GUI thread, once, for the first stop signal.
  void stopRequested(int signalNumber);

 private:
  void readPipe();

  int fds_[2] = {-1, -1};
  std::unique_ptr<QSocketNotifier> notifier_;
  int received_ = 0;
};

/// What the app does on a stop signal: closes every window (the main window's close
/// stops a live run and keeps its trace) and leaves the event loop through `exit`
/// with 128 + the signal's number, the shell's convention. `exit` defaults to
/// QCoreApplication::exit, queued so that it also works before the loop runs.
void quitOnStopSignal(StopSignalNotifier& notifier, std::function<void(int exitCode)> exit = {});

}  // namespace pipescope::ui
