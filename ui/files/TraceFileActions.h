#pragma once
// File › Open, Save and Export for traces in every format the engine knows, plus
// drag-and-drop of trace files onto the main window. Loading runs on a worker thread
// behind a progress dialog with Cancel; errors go to the window's error display.
#include <QObject>
#include <QString>
#include <memory>

#include "io/TraceFiles.h"

class QAction;
class QMenu;
class QProgressDialog;
class QTimer;

namespace pipescope::ui {
class MainWindow;
}

namespace pipescope::ui::files {

class RecentFiles;
class TraceLoadTask;

class TraceFileActions : public QObject {
  Q_OBJECT
 public:
  explicit TraceFileActions(MainWindow* window);
  ~TraceFileActions() override;

  /// Adds Open…, Open Recent, Save trace…, and the Export trace submenu to `fileMenu`, before `before`
  /// (or at the end).
  void addTo(QMenu* fileMenu, QAction* before = nullptr);

  /// Starts loading `path` in the background; the trace is shown when done. A load
  /// already running is cancelled first.
  /// `options` tell an imported trace its iteration marker and batch size. A folder of
  /// tensorboard_trace_handler files opens its profiler trace (asks which when several
  /// and the window is shown).
  void openFile(const QString& path, const ImportOptions& options = {});
  /// Opens the ranks of a distributed job as one timeline: a folder of per-rank
  /// profiler traces, or several rank files.
  void openRanks(const QStringList& paths, const ImportOptions& options = {});
  /// Blocks (with events processed) until the current load ends; for tests and the
  /// screenshot mode. Returns true when a trace was shown.
  bool waitForLoad(int timeoutMs = 60000);
  bool loading() const;
  void cancelLoad();

  /// Writes the current trace; returns false and sets `error` on failure.
  bool save(const QString& path, TraceFileFormat format, QString* error = nullptr);

  /// The traces opened last (File › Open Recent); every successful open adds to it.
  RecentFiles& recentFiles() { return *recent_; }

  /// File-dialog filter listing every format Open accepts.
  static QString openFilter();

 signals:
  void traceOpened(const QString& path);
  void openFailed(const QString& message);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void openDialog();
  void openFolderDialog();
  void startLoad(std::unique_ptr<TraceLoadTask> task);
  void saveDialog(TraceFileFormat format);
  void onLoaded(std::shared_ptr<Trace> trace, const QString& path);
  void onFailed(const QString& message);
  void finishLoad();

  MainWindow* window_;
  RecentFiles* recent_;
  std::unique_ptr<TraceLoadTask> task_;
  QProgressDialog* progress_ = nullptr;
  QTimer* poll_ = nullptr;
  bool lastLoadShown_ = false;
};

}  // namespace pipescope::ui::files
