#include "controls/TraceSourceDescription.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QStringList>
#include <algorithm>

#include "io/TraceFiles.h"

namespace pipescope::ui {

namespace {

using Q = QObject;

QString formatOf(const std::string& file) {
  try {
    return QString::fromStdString(std::string(toString(detectTraceFileFormat(file))));
  } catch (const std::exception&) {
    return {};
  }
}

QString placeName(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir()) return QDir(path).dirName();
  return info.exists() ? info.fileName() : path;  // "4 files": rank files dropped together
}

// One GPU name per rank, or "4 × NVIDIA H200" when they agree.
QString devicesText(const std::vector<DeviceInfo>& devices) {
  QStringList names;
  for (const DeviceInfo& d : devices) names << QString::fromStdString(d.name.empty() ? d.backend : d.name);
  if (names.isEmpty()) return {};
  if (std::all_of(names.begin(), names.end(), [&](const QString& n) { return n == names.front(); }))
    return names.size() == 1 ? names.front() : Q::tr("%1 × %2").arg(names.size()).arg(names.front());
  return names.join(QStringLiteral(", "));
}

TraceSource describeRanks(const Trace& trace, const QString& path, const std::vector<RankInfo>& ranks) {
  TraceSource s;
  s.fileName = placeName(path);
  s.folder = QFileInfo(path).isDir();
  s.fileCount = int(ranks.size());
  // The ranks' own files say what they are; the merged trace is of no file format.
  const QString format = formatOf(ranks.front().source);
  const QString kind = format == QString::fromStdString(std::string(toString(TraceFileFormat::ChromeJson)))
                           ? Q::tr("PyTorch profiler traces")
                       : format.isEmpty() ? Q::tr("traces")
                                          : Q::tr("%1 files").arg(format);
  s.format = Q::tr("%1 %2 (%3)").arg(ranks.size()).arg(kind, rankRangeText(ranks));
  s.device = devicesText(trace.devices());
  s.timingSource = QString::fromStdString(trace.device().timingSource);
  s.hasConfiguration = !trace.configHistory().empty();
  return s;
}

}  // namespace

QString rankRangeText(const std::vector<RankInfo>& ranks) {
  std::vector<int> ids;
  for (const RankInfo& r : ranks) ids.push_back(r.rank);
  std::sort(ids.begin(), ids.end());
  QString text;
  if (ids.size() == 1) {
    text = Q::tr("rank %1").arg(ids.front());
  } else if (!ids.empty() && ids.back() - ids.front() == int(ids.size()) - 1) {
    text = Q::tr("ranks %1-%2").arg(ids.front()).arg(ids.back());
  } else {
    QStringList parts;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) parts << QString::number(ids[i]);
    text = Q::tr("ranks %1 and %2").arg(parts.join(QStringLiteral(", "))).arg(ids.empty() ? 0 : ids.back());
  }
  const int world = ranks.empty() ? 0 : ranks.front().worldSize;
  if (world > 0) text += Q::tr(" of %1").arg(world);
  return text;
}

TraceSource describeOpenedTrace(const Trace& trace, const QString& path) {
  const auto ranks = trace.ranks();
  if (ranks.size() > 1) return describeRanks(trace, path, ranks);
  TraceSource s;
  // A profiler folder with one trace in it: that trace is the file shown.
  std::string file = path.toStdString();
  try {
    file = resolveTracePath(file);
  } catch (const std::exception&) {
  }
  s.fileName = QFileInfo(QString::fromStdString(file)).fileName();
  s.format = formatOf(file);
  if (s.format.isEmpty()) s.format = Q::tr("unknown (the file changed since it was opened)");
  const DeviceInfo device = trace.device();
  s.device = QString::fromStdString(device.name);
  s.timingSource = QString::fromStdString(device.timingSource);
  s.hasConfiguration = !trace.configHistory().empty();
  return s;
}

}  // namespace pipescope::ui
