#include "analysis/LimitsBar.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "analysis/AnalysisFormat.h"

namespace pipescope::ui {

namespace {

const QColor kFull(0x00, 0x9E, 0x73);     // green: the ideal
const QColor kOneDir(0xE6, 0x9F, 0x00);   // orange
const QColor kNone(0xD5, 0x5E, 0x00);     // vermillion
const QColor kBeyond(0xB0, 0x30, 0x30);   // red: slower than no overlap

QString ms(double ns) { return QString::fromStdString(formatNs(ns)); }

}  // namespace

LimitsBar::LimitsBar(QWidget* parent) : QWidget(parent) {
  setObjectName("limitsBar");
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void LimitsBar::setLimits(const Limits& limits) {
  limits_ = limits;
  valid_ = limits.batches > 0 && limits.noOverlapNs > 0;
  setToolTip(QString::fromStdString(limits.positionSentence));
  update();
}

void LimitsBar::clear() {
  valid_ = false;
  limits_ = Limits{};
  setToolTip({});
  update();
}

int LimitsBar::preferredHeight(const QFont& font) { return 4 * QFontMetrics(font).height() + 34; }

QSize LimitsBar::sizeHint() const { return {340, preferredHeight(font())}; }
QSize LimitsBar::minimumSizeHint() const { return {200, preferredHeight(font())}; }

void LimitsBar::paintBar(QPainter& p, const QRect& r, const Limits& l, const QPalette& pal, const QFont& font) {
  p.save();
  p.setFont(font);
  p.setRenderHint(QPainter::Antialiasing, true);
  const QFontMetrics fm(font);
  const QColor ink = pal.color(QPalette::WindowText);
  const double maxNs = std::max({l.noOverlapNs, l.measuredNs, 1.0}) * 1.04;
  const int left = r.left() + 4, width = std::max(10, r.width() - 8);
  auto xOf = [&](double ns) { return left + ns / maxNs * width; };

  // One line per limit above the bar (they can be equal, so never on one line),
  // the bar, then the measured time under it.
  const int labelH = fm.height();
  const int barTop = r.top() + 3 * labelH + 8, barH = 12;
  struct Tick {
    double ns;
    QString text;
    QColor color;
  };
  const Tick ticks[] = {{l.fullOverlapNs, QObject::tr("full overlap %1").arg(ms(l.fullOverlapNs)), kFull},
                        {l.oneDirectionNs, QObject::tr("one direction %1").arg(ms(l.oneDirectionNs)), kOneDir},
                        {l.noOverlapNs, QObject::tr("no overlap %1").arg(ms(l.noOverlapNs)), kNone}};
  // Zones: 0..full is out of reach, then the stretches between the limits.
  p.fillRect(QRectF(left, barTop, xOf(l.fullOverlapNs) - left, barH), QBrush(pal.color(QPalette::Mid), Qt::BDiagPattern));
  p.fillRect(QRectF(xOf(l.fullOverlapNs), barTop, xOf(l.oneDirectionNs) - xOf(l.fullOverlapNs), barH), kFull.lighter(150));
  p.fillRect(QRectF(xOf(l.oneDirectionNs), barTop, xOf(l.noOverlapNs) - xOf(l.oneDirectionNs), barH), kOneDir.lighter(150));
  p.fillRect(QRectF(xOf(l.noOverlapNs), barTop, left + width - xOf(l.noOverlapNs), barH), kBeyond.lighter(170));
  int row = 0;
  for (const Tick& t : ticks) {
    const double x = xOf(t.ns);
    p.setPen(QPen(t.color, 2));
    p.drawLine(QPointF(x, barTop - 3), QPointF(x, barTop + barH + 3));
    const int tw = fm.horizontalAdvance(t.text);
    // Left of the tick when it sits in the right half, so the text never leaves the bar.
    const int lx = x > r.center().x() ? std::max(r.left(), int(std::lround(x)) - 4 - tw)
                                      : std::min(r.right() - tw, int(std::lround(x)) + 4);
    const int y = r.top() + row++ * (labelH + 2);
    p.setPen(t.color.darker(130));
    p.drawText(QRect(lx, y, tw, labelH), Qt::AlignLeft | Qt::AlignVCenter, t.text);
    p.setPen(QPen(t.color, 1, Qt::DotLine));
    p.drawLine(QPointF(x, y + 2), QPointF(x, barTop - 3));
  }
  // The measured makespan: a black wedge under the bar and its label.
  const double mx = xOf(l.measuredNs);
  p.setPen(QPen(ink, 3));
  p.drawLine(QPointF(mx, barTop - 4), QPointF(mx, barTop + barH + 4));
  QPolygonF wedge;
  wedge << QPointF(mx, barTop + barH + 4) << QPointF(mx - 6, barTop + barH + 12) << QPointF(mx + 6, barTop + barH + 12);
  p.setBrush(ink);
  p.setPen(Qt::NoPen);
  p.drawPolygon(wedge);
  const QString measured = QObject::tr("measured %1").arg(ms(l.measuredNs));
  QFont bold = font;
  bold.setBold(true);
  p.setFont(bold);
  const int mw = QFontMetrics(bold).horizontalAdvance(measured);
  const int mlx = std::clamp(int(std::lround(mx - mw / 2.0)), r.left(), r.right() - mw);
  p.setPen(ink);
  p.drawText(QRect(mlx, barTop + barH + 12, mw, labelH), Qt::AlignCenter, measured);
  p.restore();
}

void LimitsBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!valid_) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No complete batch yet."));
    return;
  }
  paintBar(p, rect(), limits_, palette(), font());
}

}  // namespace pipescope::ui
