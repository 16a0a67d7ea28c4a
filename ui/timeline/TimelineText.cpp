#include "timeline/TimelineText.h"

#include <cmath>

#include "OpPalette.h"
#include "timeline/TimeAxis.h"

namespace pipescope::ui {

QString formatTimestamp(std::int64_t ns) {
  const double a = std::fabs(double(ns));
  if (a >= 1e9) return QString::number(double(ns) / 1e9, 'f', 6) + QStringLiteral(" s");
  if (a >= 1e6) return QString::number(double(ns) / 1e6, 'f', 3) + QStringLiteral(" ms");
  if (a >= 1e3) return QString::number(double(ns) / 1e3, 'f', 3) + QStringLiteral(" µs");
  return QString::number(ns) + QStringLiteral(" ns");
}

QString formatDuration(double ns) { return QString::fromStdString(TimeAxis::formatDuration(ns)); }

QString formatBytes(double bytes) {
  if (bytes >= 1e9) return QString::number(bytes / 1e9, 'f', 2) + QStringLiteral(" GB");
  if (bytes >= 1e6) return QString::number(bytes / 1e6, 'f', 2) + QStringLiteral(" MB");
  if (bytes >= 1e3) return QString::number(bytes / 1e3, 'f', 2) + QStringLiteral(" kB");
  return QString::number(bytes, 'f', 0) + QStringLiteral(" B");
}

namespace {

QString laneName(const std::vector<Lane>& lanes, std::uint16_t id) {
  if (id < lanes.size()) return QString::fromStdString(lanes[id].name);
  return QStringLiteral("lane %1").arg(id);
}

}  // namespace

QStringList opTooltipLines(const Trace& trace, const std::vector<Lane>& lanes, const Op& op, const QString& extra) {
  QStringList out;
  const QString name = QString::fromStdString(trace.opName(op));
  const QString kind = opKindLabel(op.kind);
  out << (name.compare(kind, Qt::CaseInsensitive) == 0 || name.isEmpty() ? kind
                                                                          : QStringLiteral("%1 — %2").arg(name, kind));
  QStringList who;
  if (op.batch != kNoBatch) who << QStringLiteral("batch %1").arg(op.batch);
  if (op.stream != kNoStream) who << QStringLiteral("stream %1").arg(op.stream);
  if (!who.isEmpty()) out << who.join(QStringLiteral(" · "));
  QString where = QStringLiteral("lane: %1").arg(laneName(lanes, op.lane));
  if (op.engineLane != kNoLane && op.engineLane != op.lane)
    where += QStringLiteral(" · engine: %1").arg(laneName(lanes, op.engineLane));
  out << where;
  if (isGpuKind(op.kind) || op.submit != op.start) {
    out << QStringLiteral("submit %1 · ready %2").arg(formatTimestamp(op.submit), formatTimestamp(op.ready));
  }
  out << QStringLiteral("start %1 · end %2").arg(formatTimestamp(op.start), formatTimestamp(op.end));
  out << QStringLiteral("duration %1").arg(formatDuration(double(op.duration())));
  if (op.bytes > 0) {
    QString b = QStringLiteral("bytes %1").arg(formatBytes(double(op.bytes)));
    // 1 GB/s = 1 byte per ns.
    if (op.duration() > 0) b += QStringLiteral(" · %1 GB/s").arg(double(op.bytes) / double(op.duration()), 0, 'f', 2);
    out << b;
  }
  if (op.streamWait() > 0)
    out << QStringLiteral("stream wait %1: behind earlier work in its stream (submit → ready)")
               .arg(formatDuration(double(op.streamWait())));
  if (op.engineWait() > 0)
    out << QStringLiteral("engine wait %1: stream ready, engine busy (ready → start)")
               .arg(formatDuration(double(op.engineWait())));
  QStringList flags;
  if (op.flags & kOpPageable) flags << QStringLiteral("pageable host memory (staged)");
  if (op.flags & kOpBlockingCall) flags << QStringLiteral("blocking call");
  if (op.flags & kOpMapped) flags << QStringLiteral("mapped (zero-copy)");
  if (op.flags & kOpManaged) flags << QStringLiteral("managed memory");
  if (op.flags & kOpEventTimed) flags << QStringLiteral("timed by CUDA events");
  if (!flags.isEmpty()) out << flags.join(QStringLiteral(" · "));
  if (!extra.isEmpty()) out << extra.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  return out;
}

QStringList foldTooltipLines(std::uint32_t count, std::int64_t fromNs, std::int64_t toNs) {
  return {QStringLiteral("%1 ops folded together").arg(count),
          QStringLiteral("from %1 to %2 (%3)")
              .arg(formatTimestamp(fromNs), formatTimestamp(toNs), formatDuration(double(toNs - fromNs))),
          QStringLiteral("Each is narrower than 3 pixels: zoom in (W, Ctrl+wheel) to see them one by one.")};
}

QStringList selectionSummaryLines(const Metrics& m, std::int64_t fromNs, std::int64_t toNs) {
  QStringList out;
  out << QStringLiteral("Selection %1").arg(formatDuration(double(toNs - fromNs)));
  out << QStringLiteral("%1 → %2").arg(formatTimestamp(fromNs), formatTimestamp(toNs));
  out << QStringLiteral("ops in range: %1 · batches ending in it: %2").arg(m.ops).arg(m.batches);
  for (const LaneBusy& l : m.lanes) {
    if (!isEngineLane(l.kind)) continue;
    out << QStringLiteral("%1 busy %2%").arg(QString::fromStdString(l.name)).arg(l.fraction * 100.0, 0, 'f', 1);
  }
  if (m.h2dBytes > 0 || m.d2hBytes > 0)
    out << QStringLiteral("moved H2D %1 · D2H %2").arg(formatBytes(double(m.h2dBytes)), formatBytes(double(m.d2hBytes)));
  if (m.ops > 0 && m.makespanNs < double(toNs - fromNs))
    out << QStringLiteral("(busy % are of the %1 with ops in the range)").arg(formatDuration(m.makespanNs));
  return out;
}

QString linesToRichText(const QStringList& lines) {
  QString html = QStringLiteral("<div style='white-space:pre'>");
  for (int i = 0; i < lines.size(); ++i) {
    if (i > 0) html += QStringLiteral("<br>");
    const QString e = lines[i].toHtmlEscaped();
    html += i == 0 ? QStringLiteral("<b>%1</b>").arg(e) : e;
  }
  return html + QStringLiteral("</div>");
}

}  // namespace pipescope::ui
