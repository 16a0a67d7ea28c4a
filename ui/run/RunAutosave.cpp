#include "run/RunAutosave.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include "io/NativeFormat.h"
#include "io/TraceStreamWriter.h"

namespace pipescope::ui {

RunAutosave::RunAutosave() : folder_(defaultFolder()) {}

// A writer left active (the app ends without finish()) leaves a file that opens up
// to its last chunk, as after a crash.
RunAutosave::~RunAutosave() = default;

QString RunAutosave::defaultFolder() {
  const QByteArray env = qgetenv("PIPESCOPE_AUTOSAVE_DIR");
  if (!env.isEmpty()) return QString::fromLocal8Bit(env);
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/autosave";
}

QString RunAutosave::newPath() const {
  const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss-zzz");
  QString path = folder_ + "/run-" + stamp + ".pipescope";
  for (int i = 2; QFile::exists(path); ++i) path = folder_ + "/run-" + stamp + "-" + QString::number(i) + ".pipescope";
  return path;
}

void RunAutosave::prune() const {
  QDir dir(folder_);
  const QStringList files = dir.entryList({"run-*.pipescope"}, QDir::Files, QDir::Name | QDir::Reversed);
  for (int i = kKeepFiles; i < files.size(); ++i) dir.remove(files[i]);
}

bool RunAutosave::begin(std::shared_ptr<const Trace> trace, QString* error) {
  writer_.reset();
  if (!QDir().mkpath(folder_)) {
    if (error) *error = QObject::tr("cannot create the autosave folder '%1'").arg(folder_);
    return false;
  }
  path_ = newPath();
  try {
    writer_ = std::make_unique<TraceStreamWriter>(std::move(trace), QFile::encodeName(path_).toStdString());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    path_.clear();
    return false;
  }
  prune();
  return true;
}

bool RunAutosave::finish(QString* error) {
  if (!writer_) return true;
  std::unique_ptr<TraceStreamWriter> w = std::move(writer_);
  try {
    w->finish();
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

bool RunAutosave::saveWhole(const Trace& trace, QString* error) {
  if (!QDir().mkpath(folder_)) {
    if (error) *error = QObject::tr("cannot create the autosave folder '%1'").arg(folder_);
    return false;
  }
  path_ = newPath();
  try {
    saveNativeTrace(trace, QFile::encodeName(path_).toStdString());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  prune();
  return true;
}

}  // namespace pipescope::ui
