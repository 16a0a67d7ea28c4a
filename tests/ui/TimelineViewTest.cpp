// The widget: pixels of a known trace, hit testing and tooltips, range selection,
// follow live, zoom around the cursor, keyboard shortcuts, export.
#include <gtest/gtest.h>

#include <map>

#include <QApplication>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include "OpPalette.h"
#include "TimelineTestSupport.h"
#include "metrics/Metrics.h"
#include "timeline/TimelineText.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using uitest::HandTrace;

namespace {

// batch 0 on stream 0: H2D [1000, 3000), kernel [3000, 6000), D2H [6000, 7000)
// batch 1 on stream 1: H2D waits for the H2D engine: ready 1000, start 3000.
struct Fixture {
  HandTrace h;
  TimelineView view;
  Fixture() {
    h.host(OpKind::ApiCall, 0, 500);
    h.gpu(OpKind::CopyH2D, 0, 0, 0, 0, 1000, 3000, 4'000'000);
    h.gpu(OpKind::Kernel, 0, 0, 100, 3000, 3000, 6000);
    h.gpu(OpKind::CopyD2H, 0, 0, 200, 6000, 6000, 7000, 2'000'000);
    h.gpu(OpKind::CopyH2D, 1, 1, 300, 1000, 3000, 5000, 4000);
    view.resize(1000, 500);
    view.setTrace(h.trace);
    view.setVisibleRange(0, 8000);
  }
  QPoint at(std::uint16_t lane, std::int64_t t, int dy = 5) const {  // dy 5: above the batch label
    const LaneRow* row = view.layout().rowOf(lane);
    const QRect plot = view.plotRect();
    return QPoint(plot.left() + int(view.axis().toX(t)), plot.top() + row->top + dy);
  }
};

void sendKey(QWidget& w, int key) {
  QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier);
  QApplication::sendEvent(&w, &press);
}

void sendWheel(QWidget& w, QPoint pos, QPoint angle, Qt::KeyboardModifiers mods) {
  QWheelEvent e(QPointF(pos), QPointF(w.mapToGlobal(pos)), QPoint(), angle, Qt::NoButton, mods, Qt::NoScrollPhase,
                false);
  QApplication::sendEvent(&w, &e);
}

void sendMouse(QWidget& w, QEvent::Type type, QPoint pos, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
  const Qt::MouseButtons buttons = type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton;
  QMouseEvent e(type, QPointF(pos), QPointF(w.mapToGlobal(pos)), button, buttons, mods);
  QApplication::sendEvent(&w, &e);
}

}  // namespace

TEST(TimelineView, PaintsEachOpInItsColourInsideItsLane) {
  Fixture f;
  const QImage img = f.view.grab().toImage();
  auto colourAt = [&](QPoint p) { return QColor(img.pixel(p)).rgb(); };
  EXPECT_EQ(colourAt(f.at(f.h.stream0, 2000)), opKindColor(OpKind::CopyH2D).rgb());
  EXPECT_EQ(colourAt(f.at(f.h.stream0, 4500)), opKindColor(OpKind::Kernel).rgb());
  EXPECT_EQ(colourAt(f.at(f.h.stream0, 6500)), opKindColor(OpKind::CopyD2H).rgb());
  EXPECT_EQ(colourAt(f.at(f.h.h2d, 2000)), opKindColor(OpKind::CopyH2D).rgb());
  EXPECT_EQ(colourAt(f.at(f.h.compute, 4500)), opKindColor(OpKind::Kernel).rgb());
  // Nothing of an op leaks into the lane above or below it.
  const QColor kernel = opKindColor(OpKind::Kernel);
  for (std::uint16_t lane : {f.h.stream1, f.h.h2d, f.h.d2h, f.h.submit}) {
    const LaneRow* row = f.view.layout().rowOf(lane);
    for (int dy = 0; dy < row->height; ++dy)
      EXPECT_NE(colourAt(f.at(lane, 4500, dy)), kernel.rgb()) << row->name.toStdString() << " dy " << dy;
  }
  // The engine wait of batch 1's H2D (ready 1000 -> start 3000) is drawn, hatched,
  // on stream 1 before the op: its pixels differ from the empty row background.
  const QPoint waitPt = f.at(f.h.stream1, 2000);
  const QPoint emptyPt = f.at(f.h.stream1, 7500);
  EXPECT_NE(colourAt(waitPt), colourAt(emptyPt));
}

TEST(TimelineView, NoOpColourIsPaintedOutsideTheRowsOfItsLanes) {
  // A busier known trace: every pixel of the plot that has an op kind's exact
  // colour lies in a row whose lane holds ops of that kind.
  HandTrace h;
  for (int b = 0; b < 6; ++b) {
    const std::int64_t t = b * 1000;
    h.host(OpKind::ApiCall, t, t + 100);
    h.gpu(OpKind::CopyH2D, b % 2, b, t, t + 100, t + 200, t + 600, 1'000'000);
    h.gpu(OpKind::Kernel, b % 2, b, t + 100, t + 600, t + 650, t + 1400);
    h.gpu(OpKind::CopyD2H, b % 2, b, t + 200, t + 1400, t + 1450, t + 1800, 1'000'000);
  }
  TimelineView view;
  view.resize(1100, 520);
  view.setTrace(h.trace);
  view.fit();
  const QImage img = view.grab().toImage();
  const QRect plot = view.plotRect();
  std::map<QRgb, OpKind> kindOf;
  for (OpKind k : {OpKind::ApiCall, OpKind::CopyH2D, OpKind::Kernel, OpKind::CopyD2H})
    kindOf[opKindColor(k).rgb()] = k;
  std::map<OpKind, int> seen;
  for (int y = plot.top(); y <= plot.bottom(); ++y) {
    const LaneRow* row = view.layout().rowAt(y - plot.top());
    for (int x = plot.left(); x <= plot.right(); ++x) {
      const auto it = kindOf.find(QColor(img.pixel(x, y)).rgb());
      if (it == kindOf.end()) continue;
      ++seen[it->second];
      ASSERT_NE(row, nullptr) << "op colour between rows at " << x << "," << y;
      EXPECT_TRUE(view.laneIndex().lane(row->lane).kindMask & (1u << unsigned(it->second)))
          << row->name.toStdString() << " shows " << int(it->second) << " at " << x << "," << y;
    }
  }
  for (const auto& [rgb, kind] : kindOf) EXPECT_GT(seen[kind], 0) << int(kind);  // each kind was drawn
}

TEST(TimelineView, RulerLabelsStayInsideThePlot) {
  Fixture f;
  for (auto range : {std::pair<std::int64_t, std::int64_t>{0, 8000}, {0, 6'999'999}, {123, 99'999'999}}) {
    f.view.setVisibleRange(range.first, range.second);
    const QRect plot = f.view.plotRect();
    const auto labels = TimelineRenderer::rulerLabels(f.view.axis(), plot, f.view.font());
    ASSERT_FALSE(labels.empty());
    for (const auto& l : labels) {
      EXPECT_GE(l.rect.left(), plot.left()) << l.text.toStdString();
      EXPECT_LE(l.rect.right(), plot.right()) << l.text.toStdString();
    }
  }
}

TEST(TimelineView, RulerLabelsNeverOverlapInAnyPrint) {
  // Large print (the presentation mode's 24 px and up) needs ticks further apart, and
  // the last label, turned left at the right edge, must not run into the one before.
  for (int pixels : {12, 24, 36}) {
    QFont font;
    font.setPixelSize(pixels);
    for (int width = 340; width <= 1240; width += 50)
      for (auto range : {std::pair<std::int64_t, std::int64_t>{0, 1'000'000},
                         {0, 8000},
                         {0, 6'999'999},
                         {123, 99'999'999},
                         {0, 23'500'000}}) {
        const QRect plot(132, 0, width, 400);
        const TimeAxis axis(range.first, range.second, width);
        const auto labels = TimelineRenderer::rulerLabels(axis, plot, font);
        EXPECT_FALSE(labels.empty()) << pixels << " px, " << width << " px wide, " << range.second;
        for (std::size_t i = 1; i < labels.size(); ++i)
          EXPECT_GT(labels[i].rect.left(), labels[i - 1].rect.right() + 4)
              << labels[i - 1].text.toStdString() << " and " << labels[i].text.toStdString() << " at " << pixels
              << " px, " << width << " px wide";
      }
  }
}

TEST(TimelineView, HitTestFindsTheOpUnderThePointAndDescribesIt) {
  Fixture f;
  auto hit = f.view.hitTest(f.at(f.h.stream0, 4500));
  ASSERT_TRUE(hit);
  const Op& op = f.view.laneIndex().view().at(hit->op);
  EXPECT_EQ(op.kind, OpKind::Kernel);
  EXPECT_EQ(hit->count, 1u);
  hit = f.view.hitTest(f.at(f.h.d2h, 6500));
  ASSERT_TRUE(hit);
  EXPECT_EQ(f.view.laneIndex().view().at(hit->op).kind, OpKind::CopyD2H);
  EXPECT_FALSE(f.view.hitTest(f.at(f.h.stream0, 7800)));
  EXPECT_FALSE(f.view.hitTest(QPoint(5, 5)));  // lane header corner

  const QString tip = f.view.toolTipTextAt(f.at(f.h.stream1, 4000));
  for (const char* expected : {"H2D copy", "batch 1", "stream 1", "lane: stream 1", "engine: H2D copy engine",
                               "submit 300 ns", "ready 1.000 µs", "start 3.000 µs", "end 5.000 µs",
                               "duration 2.00 µs", "bytes 4.00 kB", "2.00 GB/s", "stream wait 700 ns",
                               "engine wait 2.00 µs"})
    EXPECT_TRUE(tip.contains(QString::fromUtf8(expected))) << expected << " in " << tip.toStdString();
  // Over the hatched engine wait, the tooltip is the waiting op's.
  const auto waitHit = f.view.hitTest(f.at(f.h.stream1, 2000));
  ASSERT_TRUE(waitHit);
  EXPECT_TRUE(waitHit->onWait);
  EXPECT_EQ(f.view.laneIndex().view().at(waitHit->op).batch, 1);
}

TEST(TimelineView, AnnotatorLinesAndWaitColorizerAreUsed) {
  Fixture f;
  f.view.setOpAnnotator([](const Op& op, std::size_t) {
    return op.engineWait() > 0 ? QStringLiteral("waited for batch 0's H2D copy") : QString();
  });
  EXPECT_TRUE(f.view.toolTipTextAt(f.at(f.h.stream1, 4000)).contains("waited for batch 0"));
  EXPECT_FALSE(f.view.toolTipTextAt(f.at(f.h.stream0, 4500)).contains("waited for"));
  const QColor cause(200, 0, 200);
  f.view.setWaitColorizer([cause](const Op&, std::size_t) { return std::optional<QColor>(cause); });
  const QImage img = f.view.grab().toImage();
  // The engine wait box is filled with the colorizer's colour (and hatched over it).
  bool found = false;
  const QPoint p = f.at(f.h.stream1, 2000);
  for (int dx = -6; dx <= 6 && !found; ++dx) found = QColor(img.pixel(p + QPoint(dx, 0))).rgb() == cause.rgb();
  EXPECT_TRUE(found);
}

TEST(TimelineView, FoldedOpsShowAsOneMarkWithACountingTooltip) {
  HandTrace h;
  for (int k = 0; k < 5000; ++k) h.gpu(OpKind::Kernel, 0, k, k * 100, k * 100, k * 100, k * 100 + 50);
  TimelineView view;
  view.resize(900, 400);
  view.setTrace(h.trace);
  view.fit();
  view.grab();
  const LaneRow* row = view.layout().rowOf(h.stream0);
  const QRect plot = view.plotRect();
  const auto hit = view.hitTest(QPoint(plot.center().x(), plot.top() + row->top + 12));
  ASSERT_TRUE(hit);
  EXPECT_GT(hit->count, 100u);
  EXPECT_TRUE(view.toolTipTextAt(QPoint(plot.center().x(), plot.top() + row->top + 12)).contains("ops folded"));
  EXPECT_LT(view.renderer().lastMarksDrawn(), 200u);  // 5000 ops on two lanes, a handful of marks
  // The fold is painted as a mark in the fold colour of a kernels-only lane, and
  // it covers the whole run: its first and last pixels are in it too.
  const QImage img = view.grab().toImage();
  row = view.layout().rowOf(h.stream0);  // grab() may lay the rows out again
  const QRgb fold = TimelineRenderer::foldColor(1u << unsigned(OpKind::Kernel)).rgb();
  const int midY = plot.top() + row->top + row->height / 2 - 2;
  for (std::int64_t t : {std::int64_t(1000), std::int64_t(250'000), std::int64_t(499'000)})
    EXPECT_EQ(QColor(img.pixel(plot.left() + int(view.axis().toX(t)), midY)).rgb(), fold) << t;
}

TEST(TimelineView, RangeSelectionFiguresComeFromComputeMetrics) {
  Fixture f;
  std::vector<std::pair<std::int64_t, std::int64_t>> spy;
  QObject::connect(&f.view, &TimelineView::rangeSelected,
                   [&](std::int64_t a, std::int64_t b) { spy.emplace_back(a, b); });
  // Shift+drag from t = 2000 to t = 6000 over the plot.
  const QPoint a = f.at(f.h.stream0, 2000), b = f.at(f.h.stream0, 6000);
  sendMouse(f.view, QEvent::MouseButtonPress, a, Qt::ShiftModifier);
  sendMouse(f.view, QEvent::MouseMove, b, Qt::ShiftModifier);
  sendMouse(f.view, QEvent::MouseButtonRelease, b, Qt::ShiftModifier);
  ASSERT_EQ(spy.size(), 1u);
  const auto [from, to] = spy[0];
  EXPECT_NEAR(double(from), 2000, 10);
  EXPECT_NEAR(double(to), 6000, 10);
  ASSERT_TRUE(f.view.selection());
  const Metrics m = computeMetrics(*f.h.trace, from, to);
  const QString text = f.view.selectionSummary().join('\n');
  EXPECT_TRUE(text.contains(QStringLiteral("ops in range: %1").arg(m.ops))) << text.toStdString();
  for (const LaneBusy& l : m.lanes) {
    if (!isEngineLane(l.kind)) continue;
    EXPECT_TRUE(text.contains(
        QStringLiteral("%1 busy %2%").arg(QString::fromStdString(l.name)).arg(l.fraction * 100, 0, 'f', 1)))
        << l.name << " in " << text.toStdString();
  }
  EXPECT_TRUE(text.contains(formatBytes(double(m.h2dBytes)))) << text.toStdString();
  // Esc clears it.
  sendKey(f.view, Qt::Key_Escape);
  EXPECT_FALSE(f.view.selection());
  EXPECT_TRUE(f.view.selectionSummary().isEmpty());
}

TEST(TimelineView, PlainDragPansAndDragOnTheRulerSelects) {
  Fixture f;
  const auto before = f.view.visibleRange();
  const QPoint a = f.at(f.h.stream0, 4000);
  sendMouse(f.view, QEvent::MouseButtonPress, a);
  sendMouse(f.view, QEvent::MouseMove, a + QPoint(100, 0));
  sendMouse(f.view, QEvent::MouseButtonRelease, a + QPoint(100, 0));
  EXPECT_LT(f.view.visibleRange().first, before.first);  // dragged right: earlier times come in
  EXPECT_FALSE(f.view.selection());
  int selected = 0;
  QObject::connect(&f.view, &TimelineView::rangeSelected, [&](std::int64_t, std::int64_t) { ++selected; });
  const QPoint r(f.view.plotRect().left() + 100, TimelineRenderer::kRulerHeight / 2);
  sendMouse(f.view, QEvent::MouseButtonPress, r);
  sendMouse(f.view, QEvent::MouseMove, r + QPoint(200, 0));
  sendMouse(f.view, QEvent::MouseButtonRelease, r + QPoint(200, 0));
  EXPECT_EQ(selected, 1);
  EXPECT_TRUE(f.view.selection());
}

TEST(TimelineView, CtrlWheelZoomKeepsTheTimeUnderTheCursor) {
  Fixture f;
  const QPoint p = f.at(f.h.stream0, 2500);
  const double plotX = p.x() - f.view.plotRect().left();
  const std::int64_t before = f.view.axis().toTime(plotX);
  const auto span = f.view.axis().span();
  sendWheel(f.view, p, QPoint(0, 120), Qt::ControlModifier);
  EXPECT_LT(f.view.axis().span(), span);
  EXPECT_NEAR(double(f.view.axis().toTime(plotX)), double(before), std::max(1.0, f.view.axis().nsPerPx()));
  sendWheel(f.view, p, QPoint(0, -240), Qt::ControlModifier);
  EXPECT_GT(f.view.axis().span(), span);
  EXPECT_NEAR(double(f.view.axis().toTime(plotX)), double(before), std::max(1.0, f.view.axis().nsPerPx()));
  // Shift+wheel pans.
  const auto from = f.view.visibleRange().first;
  sendWheel(f.view, p, QPoint(0, -120), Qt::ShiftModifier);
  EXPECT_NE(f.view.visibleRange().first, from);
}

TEST(TimelineView, KeyboardShortcutsZoomPanAndFit) {
  Fixture f;
  f.view.setVisibleRange(2000, 4000);
  auto span = [&] { return f.view.axis().span(); };
  const auto s0 = span();
  sendKey(f.view, Qt::Key_W);
  EXPECT_LT(span(), s0);
  sendKey(f.view, Qt::Key_S);
  sendKey(f.view, Qt::Key_S);
  EXPECT_GT(span(), s0);
  const auto from = f.view.visibleRange().first;
  sendKey(f.view, Qt::Key_D);
  EXPECT_GT(f.view.visibleRange().first, from);
  sendKey(f.view, Qt::Key_A);
  sendKey(f.view, Qt::Key_A);
  EXPECT_LT(f.view.visibleRange().first, from);
  sendKey(f.view, Qt::Key_F);
  EXPECT_LE(f.view.visibleRange().first, 0);
  EXPECT_GE(f.view.visibleRange().second, 7000);
  EXPECT_LT(f.view.visibleRange().second - f.view.visibleRange().first, 8000);
  int followChanges = 0;
  QObject::connect(&f.view, &TimelineView::followLiveChanged, [&](bool) { ++followChanges; });
  sendKey(f.view, Qt::Key_L);
  EXPECT_TRUE(f.view.followLive());
  EXPECT_EQ(followChanges, 1);
}

// Follow live: tests/ui/LiveFollowTest.cpp.

TEST(TimelineView, GroupingChangesTheRows) {
  Fixture f;
  f.view.setGrouping(LaneGrouping::ByStream);
  EXPECT_TRUE(f.view.layout().rowOf(f.h.stream0));
  EXPECT_FALSE(f.view.layout().rowOf(f.h.compute));
  f.view.setGrouping(LaneGrouping::ByEngine);
  EXPECT_FALSE(f.view.layout().rowOf(f.h.stream0));
  EXPECT_TRUE(f.view.layout().rowOf(f.h.compute));
  EXPECT_TRUE(f.view.layout().rowOf(f.h.submit));
}

TEST(TimelineView, RenderToPaintsTheTargetWithMarkersAndNoHover) {
  Fixture f;
  f.view.setMarkers({{5500, QStringLiteral("ideal bound"), QColor(200, 0, 0)}});
  QImage img(1600, 600, QImage::Format_ARGB32);
  img.fill(Qt::transparent);
  {
    QPainter p(&img);
    f.view.renderTo(p, img.rect());
  }
  EXPECT_EQ(qAlpha(img.pixel(0, 0)), 255);
  EXPECT_EQ(qAlpha(img.pixel(1599, 599)), 255);
  // The marker line is at its time in the export's own mapping.
  const QRect plot = TimelineRenderer::plotRect(img.rect(), f.view.layout(), f.view.font());
  const TimeAxis axis(f.view.visibleRange().first, f.view.visibleRange().second, plot.width());
  const int x = plot.left() + int(axis.toX(std::int64_t(5500)));
  int red = 0;
  for (int y = plot.top() + 40; y < plot.bottom(); ++y)
    for (int dx = -1; dx <= 1; ++dx) red += QColor(img.pixel(x + dx, y)).rgb() == QColor(200, 0, 0).rgb();
  EXPECT_GT(red, 20);
  const LaneRow* row = f.view.layout().rowOf(f.h.stream0);
  EXPECT_EQ(QColor(img.pixel(plot.left() + int(axis.toX(std::int64_t(2000))), plot.top() + row->top + 12)).rgb(),
            opKindColor(OpKind::CopyH2D).rgb());
}
