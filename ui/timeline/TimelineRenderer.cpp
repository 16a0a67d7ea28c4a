#include "timeline/TimelineRenderer.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <bit>
#include <cmath>

#include "OpPalette.h"
#include "timeline/LaneDescription.h"

namespace pipescope::ui {

// ---------------------------------------------------------------- marks / folding

std::vector<OpMark> buildMarks(const LaneIndex& index, std::uint16_t lane, const TimeAxis& axis, double foldPx) {
  std::vector<OpMark> marks;
  const LaneIndex::LaneOps& l = index.lane(lane);
  const TraceView& view = index.view();
  const std::size_t n = l.size();
  const std::int64_t tEnd = axis.to();
  // Shortest duration that can be foldPx wide, a little under it so rounding in
  // toX() never hides a wide op; each candidate is then checked in pixels.
  const auto minWideNs = std::int64_t(std::floor((foldPx - 1e-3) * double(axis.span()) / std::max(1.0, axis.width())));
  std::size_t i = index.firstEndingAfter(lane, axis.from());
  while (i < n) {
    const Op op = view.at(l.op(i));
    if (op.start >= tEnd) break;
    const double x0 = axis.toX(op.start), x1 = axis.toX(op.end);
    if (x1 - x0 >= foldPx) {
      marks.push_back({float(x0), float(x1), l.op(i), 1, op.start, op.end});
      ++i;
      continue;
    }
    // A narrow op starts a fold: absorb every following op that starts within a
    // pixel of the fold's end, unless it is wide enough to be drawn by itself.
    OpMark fold{float(x0), float(x1), l.op(i), 1, op.start, op.end};
    double foldEnd = x1;
    ++i;
    while (i < n) {
      const std::int64_t nextStart = view.at(l.op(i)).start;
      if (nextStart >= tEnd || axis.toX(nextStart) >= foldEnd + 1.0) break;
      // Ops [i, j) all start before the pixel after the fold's end.
      const std::size_t j = index.firstStartingAtOrAfter(lane, axis.toTime(foldEnd + 1.0), i + 1);
      const std::int64_t runMaxEnd = index.maxEndUpTo(lane, j - 1);
      if (axis.toX(runMaxEnd) - foldEnd < foldPx) {
        // None of them reaches foldPx past the fold: none is wide, take them all.
        // (runMaxEnd is a running max; when earlier ops overlap it may exceed the
        // run's own ends, which only lengthens the fold over pixels already drawn.)
        fold.count += std::uint32_t(j - i);
        fold.toNs = std::max(fold.toNs, runMaxEnd);
        foldEnd = std::max(foldEnd, axis.toX(runMaxEnd));
        i = j;
        continue;
      }
      // Something in [i, j) reaches past the fold: absorb the ops up to the first
      // wide one. Blocks of ops all shorter than minWideNs are skipped whole (a
      // zoomed-out lane has thousands of ops per pixel); candidates are checked in
      // pixels, exactly as above.
      std::size_t w = i;
      for (;;) {
        w = index.firstLastingAtLeast(lane, w, j, minWideNs);
        if (w == j) break;
        const Op o = view.at(l.op(w));
        if (axis.toX(o.end) - axis.toX(o.start) >= foldPx) break;
        ++w;
      }
      if (w > i) {
        const std::int64_t runEnd = index.maxEndIn(lane, i, w);
        fold.count += std::uint32_t(w - i);
        fold.toNs = std::max(fold.toNs, runEnd);
        foldEnd = std::max(foldEnd, axis.toX(runEnd));
        i = w;
      }
      if (w < j) break;  // a wide op: drawn by itself, after the fold
    }
    fold.x1 = float(foldEnd);
    if (fold.count == 1) fold.toNs = op.end;
    marks.push_back(fold);
  }
  return marks;
}

const std::vector<OpMark>& TimelineRenderer::marks(const LaneIndex& index, std::uint16_t lane,
                                                   const TimeAxis& axis) const {
  if (lane >= cache_.size()) cache_.resize(std::size_t(lane) + 1);
  CacheEntry& e = cache_[lane];
  const TraceView& v = index.view();
  if (!e.valid || e.from != axis.from() || e.span != axis.span() || e.width != axis.width() ||
      e.viewBegin != v.begin() || e.viewEnd != v.end()) {
    e.marks = buildMarks(index, lane, axis, kFoldPx);
    e.from = axis.from();
    e.span = axis.span();
    e.width = axis.width();
    e.viewBegin = v.begin();
    e.viewEnd = v.end();
    e.valid = true;
  }
  return e.marks;
}

std::size_t TimelineRenderer::cacheBytes() const {
  std::size_t bytes = cache_.capacity() * sizeof(CacheEntry);
  for (const CacheEntry& e : cache_) bytes += e.marks.capacity() * sizeof(OpMark);
  return bytes;
}

// ---------------------------------------------------------------- layout helpers

int TimelineRenderer::headerWidth(const LaneLayout& layout, const QFont& font) {
  const QFontMetrics fm(font);
  int w = kMinHeaderWidth;
  for (const LaneRow& r : layout.rows) w = std::max(w, fm.horizontalAdvance(r.name) + 28);
  return std::min(w, 320);
}

int TimelineRenderer::rulerHeight(const QFont& font) { return std::max(kRulerHeight, QFontMetrics(font).height() + 12); }

QRect TimelineRenderer::plotRect(const QRect& target, const LaneLayout& layout, const QFont& font) {
  const int hw = headerWidth(layout, font);
  const int ruler = rulerHeight(font);
  return QRect(target.left() + hw, target.top() + ruler, std::max(1, target.width() - hw),
               std::max(1, target.height() - ruler));
}

std::vector<TimelineRenderer::RulerLabel> TimelineRenderer::rulerLabels(const TimeAxis& axis, const QRect& plot,
                                                                         const QFont& font) {
  const QFontMetrics fm(font);
  auto widthOf = [&fm](const std::string& label) { return fm.horizontalAdvance(QString::fromStdString(label)) + 2; };
  // Ticks a label's width apart, and more: large print (the presentation mode) needs
  // a longer step. The labels' decimals follow the step, so measure again at the new
  // spacing until it holds.
  double spacing = kMinTickSpacingPx;
  std::vector<TimeAxis::Tick> ticks = axis.ticks(spacing);
  for (int pass = 0; pass < 4; ++pass) {
    int widest = 0;
    for (const TimeAxis::Tick& t : ticks) widest = std::max(widest, widthOf(t.label));
    if (widest + kMinLabelGapPx <= spacing) break;
    spacing = widest + kMinLabelGapPx;
    ticks = axis.ticks(spacing);
  }
  std::vector<RulerLabel> out;
  for (const TimeAxis::Tick& t : ticks) {
    const QString text = QString::fromStdString(t.label);
    const int w = widthOf(t.label);
    const double x = plot.left() + t.x;
    // Labels sit right of their tick; one that would cross the right edge sits
    // left of it instead, so the last label is never cut off.
    int left = int(std::lround(x)) + 4;
    if (left + w > plot.right()) left = int(std::lround(x)) - 4 - w;
    if (left < plot.left()) continue;  // no room either side
    // Turned left at the edge, it can reach the label before it: one of them goes.
    if (!out.empty() && left < out.back().rect.right() + kMinLabelGapPx / 2) continue;
    out.push_back({QRect(left, 0, w, fm.height()), text, x});
  }
  return out;
}

// ---------------------------------------------------------------- painting

namespace {

bool isDark(const QColor& c) { return c.lightnessF() < 0.5; }

QColor textOn(const QColor& fill) {
  // Relative luminance decides black or white text (WCAG-style).
  const double lum = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
  return lum > 0.5 ? QColor(20, 20, 20) : QColor(Qt::white);
}

}  // namespace

QColor TimelineRenderer::foldColor(std::uint32_t kindMask) {
  if (kindMask != 0 && std::has_single_bit(kindMask))
    return opKindColor(static_cast<OpKind>(std::countr_zero(kindMask))).darker(125);
  return QColor(0x5B, 0x64, 0x75);  // slate: folded ops of several kinds
}

void TimelineRenderer::paintEngineWait(QPainter& p, const QRectF& r, const QColor& fill, const QColor& hatch) {
  p.fillRect(r, fill);
  p.fillRect(r, QBrush(hatch, Qt::BDiagPattern));
}

void TimelineRenderer::paintStreamWait(QPainter& p, double x0, double x1, double y, const QColor& color) {
  QPen pen(color, 2, Qt::CustomDashLine, Qt::FlatCap);
  pen.setDashPattern({3, 2});
  p.setPen(pen);
  p.drawLine(QPointF(x0, y), QPointF(x1, y));
  p.fillRect(QRectF(x0, y - 3, 1.5, 6), color);  // tick at submit
}

void TimelineRenderer::paint(QPainter& p, const QRect& target, const RenderState& s) {
  p.save();
  p.setFont(s.font);
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setRenderHint(QPainter::TextAntialiasing, true);
  p.fillRect(target, s.palette.color(QPalette::Base));
  const QRect plot = plotRect(target, *s.layout, s.font);
  lastMarksDrawn_ = 0;
  if (s.trace && s.index) paintRows(p, plot, s);
  paintHeader(p, target, plot, s);
  paintRuler(p, target, plot, s);
  p.restore();
}

void TimelineRenderer::paintRows(QPainter& p, const QRect& plot, const RenderState& s) {
  const QPalette& pal = s.palette;
  const QColor base = pal.color(QPalette::Base);
  const QColor alt = isDark(base) ? base.lighter(118) : base.darker(104);
  const QColor sectionBg = isDark(base) ? base.lighter(135) : base.darker(110);
  const QFontMetrics fm(s.font);
  const TimeAxis& axis = s.axis;
  const double w = axis.width();

  p.save();
  p.setClipRect(plot);
  p.translate(plot.left(), plot.top() - s.scrollY);
  const int viewTop = s.scrollY, viewBottom = s.scrollY + plot.height();

  // Backgrounds (alternating rows, section bands), then the ruler's grid lines,
  // then the ops: the grid never covers an op.
  int rowNo = 0;
  for (const LaneRow& row : s.layout->rows) {
    ++rowNo;
    if (!row.section.isEmpty())
      p.fillRect(QRectF(0, row.top - s.layout->sectionHeight, w, s.layout->sectionHeight), sectionBg);
    if (row.top + row.height >= viewTop && row.top <= viewBottom)
      p.fillRect(QRectF(0, row.top, w, row.height), rowNo % 2 ? base : alt);
  }
  {
    QColor grid = pal.color(QPalette::WindowText);
    grid.setAlphaF(0.12);
    for (const RulerLabel& l : rulerLabels(axis, QRect(0, 0, int(w), 1), s.font))
      p.fillRect(QRectF(std::round(l.tickX), viewTop, 1, plot.height()), grid);
  }
  for (const LaneRow& row : s.layout->rows) {
    if (row.top + row.height < viewTop || row.top > viewBottom) continue;  // off screen
    if (row.group) continue;  // the folded call-stack group: its name says what it holds

    const int barTop = row.top + 4, barH = row.height - 11;  // bottom 7 px: stream-wait strip
    const bool ownLane = !isEngineLane(row.kind);            // waits are drawn on the op's own lane
    const std::uint32_t kindMask = s.index->lane(row.lane).kindMask;
    const std::vector<OpMark>& ms = marks(*s.index, row.lane, axis);
    const TraceView& view = s.index->view();

    // Waits first, so the ops draw over them.
    if (s.overlay) s.overlay->paintRow(p, row, axis, barTop, barH);
    if (ownLane && !(s.overlay && s.overlay->replacesWaits())) {
      for (const OpMark& m : ms) {
        if (m.count != 1) continue;
        const Op op = view.at(m.op);
        if (op.start <= op.submit) continue;
        std::optional<QColor> custom;
        if (s.colorizer && *s.colorizer) custom = (*s.colorizer)(op, std::size_t(m.op));
        const QColor opColor = opKindColor(op.kind);
        const QColor wc = custom.value_or(waitColor(op.kind));
        if (op.engineWait() > 0) {
          // Engine wait: full-height hatched box right before the op.
          const double a = std::max(-2.0, axis.toX(op.ready)), b = std::min(w + 2, double(m.x0));
          if (b - a >= 1) {
            paintEngineWait(p, QRectF(a, barTop, b - a, barH), wc, custom ? custom->darker(160) : opColor.darker(115));
          }
        }
        if (op.streamWait() > 0) {
          // Stream wait: a dashed "queue" line in the strip below the ops, from
          // submit to ready (it runs under the earlier ops it waited behind).
          const double a = std::max(-2.0, axis.toX(op.submit)), b = std::min(w + 2, axis.toX(op.ready));
          if (b - a >= 1) {
            paintStreamWait(p, a, b, row.top + row.height - 4.5, custom ? *custom : opColor.darker(110));
          }
        }
      }
    }

    // Ops and folds: opaque, non-antialiased rectangles.
    const int labelMinW = fm.horizontalAdvance(QStringLiteral("00")) + 6;
    for (const OpMark& m : ms) {
      const double a = std::max(-2.0, double(m.x0)), b = std::min(w + 2, std::max(double(m.x1), double(m.x0) + 1));
      if (b <= a) continue;
      ++lastMarksDrawn_;
      if (m.count > 1) {
        const QRectF r(a, barTop + 3, b - a, barH - 6);
        p.fillRect(r, foldColor(kindMask));
        continue;
      }
      const Op op = view.at(m.op);
      const QColor c = opKindColor(op.kind);
      const QRectF r(a, barTop, b - a, barH);
      p.fillRect(r, c);
      if (b - a >= 6) {  // a 1 px darker edge separates back-to-back ops
        p.fillRect(QRectF(a, barTop, 1, barH), c.darker(140));
      }
      if (op.batch != kNoBatch && b - a >= labelMinW) {
        QString label = QStringLiteral("batch %1").arg(op.batch);
        if (fm.horizontalAdvance(label) + 8 > b - a) label = QString::number(op.batch);
        const int tw = fm.horizontalAdvance(label);
        if (tw + 6 <= b - a) {
          p.setPen(textOn(c));
          const double visibleA = std::max(a, 0.0), visibleB = std::min(b, w);
          const double tx = std::clamp((visibleA + visibleB - tw) / 2, a + 3, b - 3 - tw);
          p.drawText(QPointF(tx, barTop + (barH + fm.ascent() - fm.descent()) / 2.0), label);
        }
      }
    }

    if (s.hovered && s.hovered->lane == row.lane) {
      const double a = axis.toX(s.hovered->fromNs), b = std::max(axis.toX(s.hovered->toNs), a + 1);
      p.setPen(QPen(pal.color(QPalette::Text), 1.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(QRectF(a - 1, barTop - 1.5, b - a + 2, barH + 3));
    }
  }

  // Selection: translucent band with solid edges.
  p.translate(0, s.scrollY);
  if (s.selection) {
    const double a = axis.toX(s.selection->first), b = axis.toX(s.selection->second);
    QColor hl = pal.color(QPalette::Highlight);
    hl.setAlpha(55);
    p.fillRect(QRectF(a, 0, b - a, plot.height()), hl);
    hl.setAlpha(255);
    p.fillRect(QRectF(a, 0, 1.5, plot.height()), hl);
    p.fillRect(QRectF(b - 1, 0, 1.5, plot.height()), hl);
  }
  // Markers: a vertical line and a label at the top.
  if (s.markers) {
    for (const TimelineMarker& mk : *s.markers) {
      const double x = axis.toX(mk.timeNs);
      if (x < -1 || x > w + 1) continue;
      const QColor c = mk.color.isValid() ? mk.color : QColor(Qt::red);
      p.setPen(QPen(c, 2, Qt::DashLine));
      p.drawLine(QPointF(x, 0), QPointF(x, plot.height()));
      if (!mk.label.isEmpty()) {
        const int tw = fm.horizontalAdvance(mk.label) + 8;
        double lx = x + 3;
        if (lx + tw > w) lx = x - 3 - tw;
        const QRectF box(lx, 2 + mk.labelRow * (fm.height() + 5), tw, fm.height() + 2);
        p.fillRect(box, c);
        p.setPen(textOn(c));
        p.drawText(box, Qt::AlignCenter, mk.label);
      }
    }
  }
  p.restore();
}

void TimelineRenderer::paintHeader(QPainter& p, const QRect& target, const QRect& plot, const RenderState& s) {
  const QPalette& pal = s.palette;
  const QRect header(target.left(), plot.top(), plot.left() - target.left(), plot.height());
  const QColor bg = pal.color(QPalette::Window);
  p.fillRect(header, bg);
  p.save();
  p.setClipRect(header);
  p.translate(header.left(), header.top() - s.scrollY);
  QFont bold = s.font;
  bold.setBold(true);
  QFont small = s.font;
  if (s.font.pixelSize() > 0) small.setPixelSize(std::max(8, s.font.pixelSize() * 17 / 20));  // large print
  else small.setPointSizeF(s.font.pointSizeF() > 0 ? s.font.pointSizeF() * 0.85 : 8);
  const QFontMetrics fm(s.font), bfm(bold), sfm(small);
  const QColor text = pal.color(QPalette::WindowText);
  QColor muted = text;
  muted.setAlphaF(0.65);
  for (const LaneRow& row : s.layout->rows) {
    if (!row.section.isEmpty()) p.fillRect(QRect(0, row.top - s.layout->sectionHeight, target.width(), 1), muted);
    if (row.top + row.height < s.scrollY || row.top > s.scrollY + plot.height()) continue;
    p.setPen(text);
    // Tall rows get a second line saying what the lane is (LaneDescription); the
    // header tooltip says it for short ones.
    const bool subtitle = s.index && row.height >= 2 * fm.height() + 6;
    const int nameH = subtitle ? row.height / 2 + fm.height() / 2 - 2 : row.height - 4;
    p.drawText(QRect(16, row.top, header.width() - 22, nameH),
               (subtitle ? Qt::AlignBottom : Qt::AlignVCenter) | Qt::AlignLeft,
               fm.elidedText(row.name, Qt::ElideRight, header.width() - 22));
    if (subtitle) {
      p.setFont(small);
      p.setPen(muted);
      p.drawText(QRect(16, row.top + nameH + 1, header.width() - 22, row.height - nameH - 2),
                 Qt::AlignTop | Qt::AlignLeft,
                 sfm.elidedText(laneSubtitle(row, *s.index), Qt::ElideRight, header.width() - 22));
      p.setFont(s.font);
    }
  }
  p.restore();
  p.fillRect(QRect(plot.left() - 1, plot.top(), 1, plot.height()), pal.color(QPalette::Mid));
  // Section separators across the plot too.
  p.save();
  p.setClipRect(plot);
  for (const LaneRow& row : s.layout->rows)
    if (!row.section.isEmpty())
      p.fillRect(QRect(plot.left(), plot.top() - s.scrollY + row.top - s.layout->sectionHeight, plot.width(), 1),
                 muted);
  p.restore();
  // Section titles span the whole width: a band holds no ops, and a rank's title
  // ("Rank 1 of 4 · NVIDIA H200 · busy 21%") is wider than the lane names' column.
  p.save();
  const QRect rows(target.left(), plot.top(), target.width(), plot.height());
  p.setClipRect(rows);
  p.translate(rows.left(), rows.top() - s.scrollY);
  p.setFont(bold);
  p.setPen(muted);
  for (const LaneRow& row : s.layout->rows)
    if (!row.section.isEmpty())
      p.drawText(QRect(8, row.top - s.layout->sectionHeight, rows.width() - 12, s.layout->sectionHeight),
                 Qt::AlignVCenter | Qt::AlignLeft,
                 bfm.elidedText(row.section.toUpper(), Qt::ElideRight, rows.width() - 12));
  p.restore();
}

void TimelineRenderer::paintRuler(QPainter& p, const QRect& target, const QRect& plot, const RenderState& s) {
  const QPalette& pal = s.palette;
  const int rulerH = rulerHeight(s.font);
  const QRect ruler(target.left(), target.top(), target.width(), rulerH);
  p.fillRect(ruler, pal.color(QPalette::Window));
  p.fillRect(QRect(ruler.left(), ruler.bottom(), ruler.width(), 1), pal.color(QPalette::Mid));
  const QColor text = pal.color(QPalette::WindowText);
  const QFontMetrics fm(s.font);
  // Corner: what the lanes are grouped by is in the section headers; say the unit.
  p.setPen(text);
  const int cornerW = plot.left() - target.left() - 12;
  const QString corner = fm.horizontalAdvance(QStringLiteral("time since run start")) <= cornerW
                             ? QStringLiteral("time since run start")
                             : QStringLiteral("time");  // large print in a narrow header
  p.drawText(QRect(target.left() + 8, ruler.top(), cornerW, rulerH), Qt::AlignVCenter | Qt::AlignLeft, corner);
  p.save();
  p.setClipRect(QRect(plot.left(), ruler.top(), plot.width(), rulerH));
  for (const RulerLabel& l : rulerLabels(s.axis, plot, s.font)) {
    const int x = int(std::lround(l.tickX));
    p.fillRect(QRect(x, ruler.bottom() - 8, 1, 8), text);
    p.setPen(text);
    p.drawText(QRect(l.rect.left(), ruler.top() + (rulerH - fm.height()) / 2 - 2, l.rect.width(), fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter, l.text);
  }
  if (s.cursorX) {
    const int x = plot.left() + int(std::lround(*s.cursorX));
    p.fillRect(QRect(x, ruler.top(), 1, rulerH), pal.color(QPalette::Highlight));
  }
  p.restore();
}

// ---------------------------------------------------------------- hit testing

std::optional<TimelineHit> TimelineRenderer::hitTest(const RenderState& s, double plotX, int contentY) const {
  if (!s.layout || !s.index) return std::nullopt;
  const LaneRow* row = s.layout->rowAt(contentY);
  if (!row || row->group) return std::nullopt;
  const std::vector<OpMark>& ms = marks(*s.index, row->lane, s.axis);
  constexpr double kSlackPx = 2.0;
  // Marks are in start order: the last mark starting at or before x (+ slack).
  auto it = std::upper_bound(ms.begin(), ms.end(), plotX + kSlackPx,
                             [](double x, const OpMark& m) { return x < double(m.x0); });
  const OpMark* best = nullptr;
  double bestDist = kSlackPx + 1;
  for (auto k = it; k != ms.begin() && std::distance(k, it) < 8;) {
    --k;
    const double x1 = std::max(double(k->x1), double(k->x0) + 1);
    const double d = plotX < k->x0 ? k->x0 - plotX : plotX > x1 ? plotX - x1 : 0.0;
    if (d < bestDist) {
      bestDist = d;
      best = &*k;
    }
  }
  if (best && bestDist <= kSlackPx) return TimelineHit{row->lane, best->op, best->count, best->fromNs, best->toNs, false};
  // Over a wait bar? Waits precede the next op on the op's own lane.
  if (!isEngineLane(row->kind) && it != ms.end() && it->count == 1) {
    const Op& op = s.index->view().at(it->op);
    const std::int64_t t = s.axis.toTime(plotX);
    if (op.submit <= t && t < op.start) return TimelineHit{row->lane, it->op, 1, op.start, op.end, true};
  }
  return std::nullopt;
}

}  // namespace pipescope::ui
