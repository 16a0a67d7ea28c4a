#pragma once
// Loads a trace file on a worker thread so the window stays responsive: progress and
// cancellation go through the engine's LoadControl, the result comes back as a
// signal on the GUI thread. One task per file; it deletes nothing it does not own.
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>

#include "io/ImportOptions.h"
#include "trace/Trace.h"

class QThread;

namespace pipescope::ui::files {

class TraceLoadTask : public QObject {
  Q_OBJECT
 public:
  /// `path` may be a tensorboard_trace_handler folder with one profiler trace in it.
  explicit TraceLoadTask(QString path, ImportOptions options = {}, QObject* parent = nullptr);
  /// The ranks of a distributed job: `paths` are folders of per-rank profiler traces or
  /// the rank files themselves, merged into one trace (engine/ranks/RankMerge.h).
  TraceLoadTask(QStringList paths, ImportOptions options, bool asRanks, QObject* parent = nullptr);
  ~TraceLoadTask() override;  ///< cancels and joins a load still running

  void start();
  void cancel() { cancel_.store(true); }
  bool running() const;
  /// Fraction of the file read so far, 0..1 (polled by the progress dialog).
  double progress() const { return progress_.load(); }
  const QString& path() const { return path_; }
  /// What was wrong with a set of ranks (files left out, ranks missing or cut short);
  /// read after loaded().
  const QStringList& problems() const { return problems_; }

 signals:
  void loaded(std::shared_ptr<pipescope::Trace> trace, const QString& path);
  void failed(const QString& message, const QString& path);
  void cancelled(const QString& path);

 private:
  void onThreadFinished();

  QString path_;
  QStringList paths_;
  bool asRanks_ = false;
  QStringList problems_;
  ImportOptions options_;
  QThread* thread_ = nullptr;
  std::atomic<bool> cancel_{false};
  std::atomic<double> progress_{0.0};
  // Written by the worker before the thread finishes, read after (QThread::finished orders them).
  std::shared_ptr<Trace> result_;
  QString error_;
  bool wasCancelled_ = false;
};

}  // namespace pipescope::ui::files
