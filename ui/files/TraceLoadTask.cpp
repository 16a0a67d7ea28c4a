#include "files/TraceLoadTask.h"

#include <QThread>

#include "io/TraceFiles.h"
#include "ranks/RankMerge.h"

namespace pipescope::ui::files {

TraceLoadTask::TraceLoadTask(QString path, ImportOptions options, QObject* parent)
    : QObject(parent), path_(std::move(path)), options_(std::move(options)) {}

TraceLoadTask::TraceLoadTask(QStringList paths, ImportOptions options, bool asRanks, QObject* parent)
    : QObject(parent),
      path_(paths.size() == 1 ? paths.front() : tr("%1 files").arg(paths.size())),
      paths_(std::move(paths)),
      asRanks_(asRanks),
      options_(std::move(options)) {}

TraceLoadTask::~TraceLoadTask() {
  if (thread_ != nullptr) {
    cancel_.store(true);
    thread_->wait();
  }
}

bool TraceLoadTask::running() const { return thread_ != nullptr && thread_->isRunning(); }

void TraceLoadTask::start() {
  const std::string path = path_.toStdString();
  std::vector<std::string> paths;
  for (const QString& p : paths_) paths.push_back(p.toStdString());
  thread_ = QThread::create([this, path, paths, options = options_] {
    LoadControl control;
    control.cancel = &cancel_;
    control.progress = [this](double f) { progress_.store(f); };
    try {
      if (asRanks_) {
        std::vector<std::string> problems;
        result_ = loadRanks(paths, options, control, &problems);
        for (const auto& p : problems) problems_ << QString::fromStdString(p);
      } else {
        result_ = loadTraceFile(resolveTracePath(path), options, control);
      }
    } catch (const TraceLoadCancelled&) {
      wasCancelled_ = true;
    } catch (const std::exception& e) {
      error_ = QString::fromStdString(e.what());
    }
  });
  thread_->setParent(this);
  connect(thread_, &QThread::finished, this, &TraceLoadTask::onThreadFinished);
  thread_->start();
}

void TraceLoadTask::onThreadFinished() {
  thread_->deleteLater();
  thread_ = nullptr;
  if (wasCancelled_)
    emit cancelled(path_);
  else if (result_)
    emit loaded(std::move(result_), path_);
  else
    emit failed(error_.isEmpty() ? tr("cannot open '%1'").arg(path_) : error_, path_);
}

}  // namespace pipescope::ui::files
