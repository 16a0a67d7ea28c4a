#include "files/TraceFileActions.h"

#include <QAction>
#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QMimeData>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTimer>

#include "MainWindow.h"
#include "files/OpenTraceDialog.h"
#include "files/RecentFiles.h"
#include "files/TraceLoadTask.h"

namespace pipescope::ui::files {

namespace {

struct ExportEntry {
  const char* label;
  TraceFileFormat format;
  const char* filter;
  const char* suffix;
};

const ExportEntry kExports[] = {
    {"&Chrome trace JSON (Perfetto)…", TraceFileFormat::ChromeJson, "Chrome trace JSON (*.json)", ".json"},
    {"CSV of &ops…", TraceFileFormat::OpsCsv, "CSV (*.csv)", ".csv"},
    {"CSV of &metrics…", TraceFileFormat::MetricsCsv, "CSV (*.csv)", "-metrics.csv"},
    {"pipescope &trace…", TraceFileFormat::Native, "pipescope trace (*.pipescope)", ".pipescope"},
};

QStringList localFiles(const QMimeData* mime) {
  QStringList out;
  if (mime == nullptr || !mime->hasUrls()) return out;
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile()) out << url.toLocalFile();
  return out;
}

}  // namespace

TraceFileActions::TraceFileActions(MainWindow* window)
    : QObject(window), window_(window), recent_(new RecentFiles(this)) {
  connect(this, &TraceFileActions::traceOpened, recent_, &RecentFiles::add);
  connect(recent_, &RecentFiles::openRequested, this, [this](const QString& path) { openFile(path); });
  window_->setAcceptDrops(true);
  window_->installEventFilter(this);
}

TraceFileActions::~TraceFileActions() = default;

QString TraceFileActions::openFilter() {
  return tr(
      "Traces (*.pipescope *.json *.json.gz *.gz);;pipescope trace (*.pipescope);;"
      "Chrome / Perfetto / PyTorch profiler JSON (*.json *.json.gz *.gz);;All files (*)");
}

void TraceFileActions::addTo(QMenu* file, QAction* before) {
  auto* open = new QAction(tr("&Open trace…"), file);
  open->setShortcut(QKeySequence::Open);
  connect(open, &QAction::triggered, this, &TraceFileActions::openDialog);
  auto* openFolder = new QAction(tr("Open profiler &folder…"), file);
  openFolder->setToolTip(tr("A folder written by torch.profiler.tensorboard_trace_handler (*.pt.trace.json)"));
  connect(openFolder, &QAction::triggered, this, &TraceFileActions::openFolderDialog);
  auto* save = new QAction(tr("&Save trace…"), file);
  save->setShortcut(QKeySequence::Save);
  connect(save, &QAction::triggered, this, [this] { saveDialog(TraceFileFormat::Native); });
  auto* exportMenu = new QMenu(tr("Export &trace"), file);
  for (const ExportEntry& e : kExports) {
    const TraceFileFormat f = e.format;
    exportMenu->addAction(tr(e.label), this, [this, f] { saveDialog(f); });
  }
  file->insertAction(before, open);
  file->insertAction(before, openFolder);
  file->insertMenu(before, recent_->menu(file));
  file->insertAction(before, save);
  file->insertMenu(before, exportMenu);
  file->insertSeparator(before);
}

void TraceFileActions::openDialog() {
  OpenTraceDialog dialog(window_);
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;
  openFile(dialog.selectedFiles().first(), dialog.importOptions());
}

void TraceFileActions::openFolderDialog() {
  const QString dir = QFileDialog::getExistingDirectory(window_, tr("Open profiler folder"));
  if (!dir.isEmpty()) openFile(dir);
}

void TraceFileActions::saveDialog(TraceFileFormat format) {
  if (!window_->currentTrace()) {
    window_->showError(tr("There is no trace to save yet: start a run or open a file first."));
    return;
  }
  const ExportEntry* entry = &kExports[0];
  for (const ExportEntry& e : kExports)
    if (e.format == format) entry = &e;
  const QString path = QFileDialog::getSaveFileName(window_, tr("Save trace"), QStringLiteral("trace") + entry->suffix,
                                                    tr(entry->filter));
  if (path.isEmpty()) return;
  QString error;
  if (save(path, format, &error))
    window_->statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
  else
    window_->showError(error);
}

bool TraceFileActions::save(const QString& path, TraceFileFormat format, QString* error) {
  const auto trace = window_->currentTrace();
  if (!trace) {
    if (error) *error = tr("There is no trace to save yet.");
    return false;
  }
  QApplication::setOverrideCursor(Qt::WaitCursor);
  bool ok = true;
  try {
    saveTraceFile(*trace, path.toStdString(), format);
  } catch (const std::exception& e) {
    ok = false;
    if (error) *error = QString::fromStdString(e.what());
  }
  QApplication::restoreOverrideCursor();
  return ok;
}

void TraceFileActions::openFile(const QString& chosen, const ImportOptions& options) {
  QString path = chosen;
  if (QFileInfo(path).isDir()) {
    QStringList files;
    for (const auto& f : profilerTraceFilesIn(path.toStdString())) files << QString::fromStdString(f);
    if (files.size() > 1) {
      // One trace per rank (or worker): all of them on one timeline by default; headless
      // (no one to ask), the same.
      if (!window_->isVisible()) return openRanks({path}, options);
      QStringList choices{tr("All %1 ranks on one timeline").arg(files.size())};
      choices << files;
      bool ok = false;
      const QString pick = QInputDialog::getItem(window_, tr("Open profiler folder"),
                                                 tr("This folder holds one trace per rank (worker); open:"), choices,
                                                 0, false, &ok);
      if (!ok) return;
      if (pick == choices.front()) return openRanks({path}, options);
      path = pick;
    }
  }
  startLoad(std::make_unique<TraceLoadTask>(path, options));
}

void TraceFileActions::openRanks(const QStringList& paths, const ImportOptions& options) {
  startLoad(std::make_unique<TraceLoadTask>(paths, options, true));
}

void TraceFileActions::startLoad(std::unique_ptr<TraceLoadTask> task) {
  const QString path = task->path();
  if (task_) task_->cancel();
  task_.reset();  // joins the previous worker
  finishLoad();
  lastLoadShown_ = false;
  task_ = std::move(task);
  connect(task_.get(), &TraceLoadTask::loaded, this, &TraceFileActions::onLoaded);
  connect(task_.get(), &TraceLoadTask::failed, this, [this](const QString& m, const QString&) { onFailed(m); });
  connect(task_.get(), &TraceLoadTask::cancelled, this, [this](const QString& p) {
    finishLoad();
    window_->statusBar()->showMessage(tr("Opening %1 cancelled").arg(QFileInfo(p).fileName()), 5000);
  });
  // The dialog appears only for loads that take a while (minimumDuration).
  progress_ = new QProgressDialog(tr("Opening %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 1000, window_);
  progress_->setWindowModality(Qt::WindowModal);
  progress_->setMinimumDuration(400);
  progress_->setAutoClose(false);
  progress_->setAutoReset(false);
  progress_->setValue(0);
  connect(progress_, &QProgressDialog::canceled, this, &TraceFileActions::cancelLoad);
  poll_ = new QTimer(this);
  connect(poll_, &QTimer::timeout, this, [this] {
    if (task_ && progress_) progress_->setValue(int(task_->progress() * 1000));
  });
  poll_->start(50);
  window_->statusBar()->showMessage(tr("Opening %1…").arg(path));
  task_->start();
}

bool TraceFileActions::loading() const { return task_ && task_->running(); }

void TraceFileActions::cancelLoad() {
  if (task_) task_->cancel();
}

bool TraceFileActions::waitForLoad(int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (task_ && (task_->running() || progress_ != nullptr) && t.elapsed() < timeoutMs) {
    QEventLoop pause;
    QTimer::singleShot(10, &pause, &QEventLoop::quit);
    pause.exec();
  }
  return lastLoadShown_;
}

void TraceFileActions::onLoaded(std::shared_ptr<Trace> trace, const QString& path) {
  const QStringList problems = task_ ? task_->problems() : QStringList();
  finishLoad();
  window_->showOpenedTrace(std::move(trace), path);
  window_->statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
  // A set of ranks opens with what can be shown; what was left out is said.
  if (!problems.isEmpty())
    window_->showError(tr("Opened %1, but:\n• %2").arg(path, problems.join(QStringLiteral("\n• "))));
  lastLoadShown_ = true;
  emit traceOpened(path);
}

void TraceFileActions::onFailed(const QString& message) {
  finishLoad();
  window_->showError(message);
  emit openFailed(message);
}

void TraceFileActions::finishLoad() {
  if (poll_) {
    poll_->stop();
    poll_->deleteLater();
    poll_ = nullptr;
  }
  if (progress_) {
    progress_->disconnect(this);
    progress_->close();
    progress_->deleteLater();
    progress_ = nullptr;
  }
}

bool TraceFileActions::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window_) {
    if (event->type() == QEvent::DragEnter || event->type() == QEvent::DragMove) {
      auto* e = static_cast<QDropEvent*>(event);
      if (!localFiles(e->mimeData()).isEmpty()) {
        e->acceptProposedAction();
        return true;
      }
    } else if (event->type() == QEvent::Drop) {
      auto* e = static_cast<QDropEvent*>(event);
      const QStringList paths = localFiles(e->mimeData());
      if (!paths.isEmpty()) {
        e->acceptProposedAction();
        // Open after the drop returns: the drag source is still waiting on us. Several
        // files dropped at once are the ranks of one job.
        QTimer::singleShot(0, this, [this, paths] { paths.size() > 1 ? openRanks(paths) : openFile(paths.front()); });
        return true;
      }
    }
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace pipescope::ui::files
