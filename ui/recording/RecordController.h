#pragma once
// The desktop app's recordings: owns the Recorder (record/Recorder.h), streams the
// live recording to the autosave folder (a recording cannot be repeated: a crash of
// the app must not lose it), and ticks at display rate while it grows, with the same
// signals RunController gives for a run, so the window shows both alike. When the
// recording ends it hands over the finished trace with its iterations found
// (record/RecordingAnalysis.h) and what the user should be told.
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <memory>

#include "io/ImportOptions.h"
#include "record/Recorder.h"
#include "run/RunAutosave.h"
#include "trace/Trace.h"

namespace pipescope::ui {

class RecordController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kTickIntervalMs = 16;
  /// "Stop and end the program": SIGTERM first, SIGKILL when it has not ended after this.
  static constexpr int kKillAfterMs = 5000;

  explicit RecordController(QObject* parent = nullptr);
  /// A recording still live ends; the program runs on, and the autosave is finished.
  ~RecordController() override;

  /// Starts the program and the recording; problems reach errorOccurred. The injection
  /// library is found here when the request names none.
  bool start(record::RecordRequest request, const ImportOptions& analysis = {});
  /// Stops recording; the program runs on (detached).
  void stop();
  /// Asks the program to end (SIGTERM to its process group, SIGKILL after kKillAfterMs);
  /// the recording goes on until it has ended.
  void stopAndEnd();
  bool recording() const { return recorder_ && live_; }
  std::shared_ptr<Trace> trace() const { return trace_; }
  /// The program and its arguments, for the window title.
  QString title() const { return title_; }
  pid_t programPid() const { return recorder_ ? recorder_->programPid() : -1; }
  RunAutosave& autosave() { return autosave_; }

 signals:
  void recordingStarted(std::shared_ptr<Trace> trace, QString title);
  void tick();
  /// The recording ended: the live trace, the finished one (ops in start order, each
  /// iteration a batch) and what the user should know.
  void recordingFinished(std::shared_ptr<Trace> live, std::shared_ptr<Trace> finished, QStringList findings);
  void errorOccurred(QString message);
  void autosaving(QString path);

 private:
  void onTimer();

  std::unique_ptr<record::Recorder> recorder_;
  std::shared_ptr<Trace> trace_;
  ImportOptions analysis_;
  QString title_;
  QTimer timer_;
  RunAutosave autosave_;
  bool live_ = false;
};

}  // namespace pipescope::ui
