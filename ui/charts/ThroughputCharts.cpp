#include "charts/ThroughputCharts.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QEvent>
#include <QFontMetrics>
#include <QResizeEvent>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "OpPalette.h"
#include "charts/GpuSeriesStyle.h"

namespace pipescope::ui {

namespace {

struct Unit {
  double scale;  // multiply values by it
  QString name;
};

// Time axis unit from the span in ns: the run's own scale, never "0.000012 s".
Unit timeUnit(double spanNs) {
  if (spanNs >= 10e9) return {1e-9, "s"};
  if (spanNs >= 10e6) return {1e-6, "ms"};
  if (spanNs >= 10e3) return {1e-3, "µs"};
  return {1.0, "ns"};
}

Unit rateUnit(double maxPerSec) {
  if (maxPerSec >= 1e9) return {1e-9, "G"};
  if (maxPerSec >= 1e6) return {1e-6, "M"};
  if (maxPerSec >= 1e3) return {1e-3, "k"};
  return {1.0, ""};
}

// An axis top a little above the data, on a round number.
double niceMax(double v) {
  if (!(v > 0)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(v * 1.1)));
  for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (step * p >= v * 1.1) return step * p;
  return 10 * p;
}

// A tick step of 1, 2 or 5 x 10^k no smaller than v.
double niceStep(double v) {
  if (!(v > 0)) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double step : {1.0, 2.0, 5.0})
    if (step * p >= v * (1 - 1e-9)) return step * p;
  return 10 * p;
}

// One point per interval: the figure is the interval's own, never averaged with a
// neighbour's (an average of rates over intervals of different lengths is no rate).
QList<QPointF> pointsOf(const std::vector<double>& x, const std::vector<double>& y, double xScale, double yScale) {
  QList<QPointF> points;
  points.reserve(qsizetype(x.size()));
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) points.append(QPointF(x[i] * xScale, y[i] * yScale));
  return points;
}

double maxOf(const QList<QPointF>& points) {
  double m = 0;
  for (const auto& p : points) m = std::max(m, p.y());
  return m;
}

QLineSeries* addSeries(QChart* chart, const QString& name, const QColor& color, Qt::PenStyle style = Qt::SolidLine) {
  auto* s = new QLineSeries;
  s->setName(name);
  QPen pen(color, 2.0, style);
  s->setPen(pen);
  chart->addSeries(s);
  return s;
}

}  // namespace

struct ThroughputCharts::Charts {
  struct Panel {
    QChart* chart = nullptr;
    QChartView* view = nullptr;
    QValueAxis* x = nullptr;
    QValueAxis* y = nullptr;
    std::vector<QLineSeries*> series;
    std::vector<QAreaSeries*> bands;  ///< stacked under the lines (the GPUs' throughput)
    QString title;
    QString note;  ///< why there is no data; empty when there is
    /// Shows the data, or, when there is none, says so in the title instead of
    /// drawing flat lines at 0 (which read as "measured 0").
    void setEmptyNote(const QString& why) {
      note = why;
      showTitle();
      for (QLineSeries* s : series) s->setVisible(note.isEmpty());
      for (QAreaSeries* s : bands) s->setVisible(note.isEmpty());
    }
    bool empty() const { return !note.isEmpty(); }
    QString titleLine() const { return note.isEmpty() ? title : QObject::tr("%1 (%2)").arg(title, note); }
    /// The title with its note on one line where the chart is wide enough, else the
    /// note on a line of its own: Qt would cut the line to "Engines busy and overl...".
    void showTitle() {
      const int room = view->width() - chart->margins().left() - chart->margins().right() - 24;
      if (note.isEmpty() || QFontMetrics(chart->titleFont()).horizontalAdvance(titleLine()) <= room)
        chart->setTitle(titleLine().toHtmlEscaped());
      else
        chart->setTitle(QStringLiteral("<center>%1<br>(%2)</center>").arg(title.toHtmlEscaped(), note.toHtmlEscaped()));
    }
  };
  Panel throughput, bandwidth, utilisation;
  std::vector<Panel*> panels() { return {&throughput, &bandwidth, &utilisation}; }

  // A run over several GPUs (TimeSeries::gpus): in data parallel each GPU's
  // throughput is a band, stacked up to the total line, so equal GPUs show as equal
  // bands (lines of equal GPUs would lie on top of each other) and a slow one as a
  // thinner band. Where every batch runs on every GPU (pipeline) each GPU's compute
  // busy share takes the place of the one compute line, whose union over the GPUs
  // would hide the stages' bubble. One GPU: neither, the charts as ever.
  QLineSeries* total = nullptr;                ///< the throughput line (all GPUs)
  std::vector<QLineSeries*> utilisationFixed;  ///< compute, H2D, D2H, overlap
  std::vector<QLineSeries*> gpuBusy;           ///< one per GPU while shown

  static void attach(Panel& panel, QAbstractSeries* s) {
    panel.chart->addSeries(s);
    s->attachAxis(panel.x);
    s->attachAxis(panel.y);
  }
  /// Makes `lines` hold `count` series in `panel`'s chart, named after the GPUs.
  static bool resize(Panel& panel, std::vector<QLineSeries*>& lines, const std::vector<GpuSeries>& gpus,
                     std::size_t count, const QString& suffix) {
    const bool changed = lines.size() != count;
    while (lines.size() > count) {
      panel.chart->removeSeries(lines.back());
      delete lines.back();
      lines.pop_back();
    }
    while (lines.size() < count) {
      lines.push_back(new QLineSeries);
      attach(panel, lines.back());
    }
    for (std::size_t g = 0; g < count; ++g) lines[g]->setName(QString::fromStdString(gpus[g].name) + suffix);
    return changed;
  }
  /// Makes the throughput chart hold `count` stacked bands, the total line over them.
  bool resizeBands(const std::vector<GpuSeries>& gpus, std::size_t count) {
    auto& bands = throughput.bands;
    const bool changed = bands.size() != count;
    if (changed) {
      for (QAreaSeries* a : bands) {
        throughput.chart->removeSeries(a);
        delete a;  // its boundary lines are its children
      }
      bands.clear();
      for (std::size_t g = 0; g < count; ++g) {
        auto* upper = new QLineSeries;
        auto* lower = g > 0 ? new QLineSeries : nullptr;
        auto* a = new QAreaSeries(upper, lower);
        upper->setParent(a);
        if (lower) lower->setParent(a);
        bands.push_back(a);
        attach(throughput, a);
      }
      // The total last: drawn over the bands, and after the GPUs in the legend.
      throughput.chart->removeSeries(total);
      attach(throughput, total);
    }
    for (std::size_t g = 0; g < count; ++g) bands[g]->setName(QString::fromStdString(gpus[g].name));
    return changed;
  }
  /// The GPU series `ts` calls for; true when series came or went (their pens to set).
  bool showGpus(const TimeSeries& ts) {
    const std::size_t gpus = ts.gpus.size() > 1 ? ts.gpus.size() : 0;
    bool changed = resizeBands(ts.gpus, ts.batchesSpanGpus ? 0 : gpus);
    if (resize(utilisation, gpuBusy, ts.gpus, ts.batchesSpanGpus ? gpus : 0, QObject::tr(" compute"))) {
      // The GPUs first in the legend: where a low chart cuts a long legend short, it
      // cuts the copies' lines, which the bandwidth chart shows as well.
      for (auto it = utilisationFixed.begin() + 1; it != utilisationFixed.end(); ++it) {
        utilisation.chart->removeSeries(*it);
        attach(utilisation, *it);
      }
      changed = true;
    }
    QLineSeries* compute = utilisationFixed[0];
    const bool unionShown = gpuBusy.empty();
    compute->setVisible(unionShown && utilisation.note.isEmpty());
    for (QLegendMarker* m : utilisation.chart->legend()->markers(compute)) m->setVisible(unionShown);
    utilisation.series = unionShown ? std::vector<QLineSeries*>{compute} : gpuBusy;
    utilisation.series.insert(utilisation.series.end(), utilisationFixed.begin() + 1, utilisationFixed.end());
    return changed;
  }
};

ThroughputCharts::ThroughputCharts(QWidget* parent) : QWidget(parent), charts_(std::make_unique<Charts>()) {
  // Side by side until the first resize says otherwise: stacked, the three charts'
  // minimum height would set the window's before it is ever shown.
  auto* layout = new QBoxLayout(QBoxLayout::LeftToRight, this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  auto make = [&](Charts::Panel& p, const QString& title) {
    p.chart = new QChart;
    p.chart->setTitle(title);
    p.title = title;
    p.chart->setTheme(QChart::ChartThemeLight);
    p.chart->setAnimationOptions(QChart::NoAnimation);
    p.chart->legend()->setAlignment(Qt::AlignBottom);
    p.chart->setMargins(QMargins(4, 2, 4, 2));
    p.x = new QValueAxis;
    p.y = new QValueAxis;
    p.x->setLabelFormat("%g");  // time: "1000", never "1e+03"
    p.y->setLabelFormat("%g");
    for (QValueAxis* axis : {p.x, p.y}) {
      axis->setTickCount(6);
    }
    p.chart->addAxis(p.x, Qt::AlignBottom);
    p.chart->addAxis(p.y, Qt::AlignLeft);
    // Never QChartView/series setUseOpenGL: it crashes grab() on the offscreen platform.
    p.view = new QChartView(p.chart);
    p.view->setRenderHint(QPainter::Antialiasing);
    p.view->setMinimumHeight(150);
    p.view->installEventFilter(this);  // its width decides how the title fits
    layout->addWidget(p.view, 1);
  };
  make(charts_->throughput, tr("Throughput"));
  make(charts_->bandwidth, tr("Copy bandwidth (wall)"));
  make(charts_->utilisation, tr("Engines busy and overlap"));

  auto& t = charts_->throughput;
  t.series.push_back(addSeries(t.chart, tr("samples/s"), QColor("#333333")));
  charts_->total = t.series[0];
  auto& b = charts_->bandwidth;
  b.series.push_back(addSeries(b.chart, tr("H2D"), opKindColor(OpKind::CopyH2D)));
  b.series.push_back(addSeries(b.chart, tr("D2H"), opKindColor(OpKind::CopyD2H)));
  auto& u = charts_->utilisation;
  u.series.push_back(addSeries(u.chart, tr("compute"), opKindColor(OpKind::Kernel)));
  u.series.push_back(addSeries(u.chart, tr("H2D"), opKindColor(OpKind::CopyH2D)));
  u.series.push_back(addSeries(u.chart, tr("D2H"), opKindColor(OpKind::CopyD2H)));
  u.series.push_back(addSeries(u.chart, tr("overlap"), QColor("#222222"), Qt::DashLine));
  charts_->utilisationFixed = u.series;
  setTextPixelSize(0);
  applyPalette();
  for (auto* p : charts_->panels())
    for (auto* s : p->series) {
      s->attachAxis(p->x);
      s->attachAxis(p->y);
    }
  clear();
}

ThroughputCharts::~ThroughputCharts() = default;

void ThroughputCharts::clear() {
  if (charts_->showGpus(TimeSeries{})) applyPalette();
  charts_->throughput.title = tr("Throughput");
  for (auto* p : charts_->panels()) {
    for (auto* s : p->series) s->clear();
    for (auto* a : p->bands) {
      a->upperSeries()->clear();
      if (a->lowerSeries()) a->lowerSeries()->clear();
    }
    p->setEmptyNote(tr("no data yet"));
    p->x->setTickType(QValueAxis::TicksFixed);
    p->x->setRange(0, 1);
    p->x->setTitleText(tr("time (ms)"));
  }
  charts_->throughput.y->setRange(0, 1);
  charts_->throughput.y->setTitleText(tr("samples/s"));
  charts_->throughput.series[0]->setName(tr("samples/s"));
  charts_->bandwidth.y->setRange(0, 1);
  charts_->bandwidth.y->setTitleText(tr("GB/s"));
  charts_->utilisation.y->setRange(0, 100);
  charts_->utilisation.y->setTitleText(tr("% of time"));
}

void ThroughputCharts::setTimeSeries(const TimeSeries& ts) {
  if (ts.size() == 0) {
    clear();
    return;
  }
  if (charts_->showGpus(ts)) applyPalette();
  const double spanNs = double(ts.toNs());
  const Unit time = timeUnit(spanNs);
  const QString timeTitle = tr("time (%1)").arg(time.name);
  for (auto* p : charts_->panels()) {
    // The axis ends where the run does; ticks sit on round times (not 6.25 / 12.5)
    // and the range is not stretched to the next round number (a 539 ms run on a
    // 0..1000 ms axis leaves half the chart empty).
    const double from = double(ts.fromNs()) * time.scale, to = spanNs * time.scale;
    p->x->setRange(from, to);
    p->x->setTickType(QValueAxis::TicksDynamic);
    p->x->setTickAnchor(0);
    p->x->setTickInterval(niceStep((to - from) / (textPixels_ > 0 ? 3 : 5)));  // fewer labels in large print
    p->x->setTitleText(timeTitle);
  }
  auto points = [&](const std::vector<double>& y, double yScale) {
    return pointsOf(ts.timeNs, y, time.scale, yScale);
  };

  // Samples per second where the batch size is known; an imported profile without
  // one shows its iterations per second rather than samples it never recorded.
  const bool samplesKnown = ts.samplesPerBatch > 0;
  const std::vector<double>& throughput = samplesKnown ? ts.samplesPerSec : ts.batchesPerSec;
  const QString perSecond = samplesKnown ? tr("samples/s") : tr("batches/s");
  const double maxRate = throughput.empty() ? 0.0 : *std::max_element(throughput.begin(), throughput.end());
  const Unit rate = rateUnit(maxRate);
  auto& t = charts_->throughput;
  const auto samples = points(throughput, rate.scale);
  // Several GPUs: the GPUs' lines beside the total, on its axis (no GPU exceeds it).
  const bool severalGpus = ts.gpus.size() > 1;
  t.series[0]->setName(!severalGpus ? perSecond : ts.batchesSpanGpus ? tr("total (all stages)") : tr("total"));
  // Stacked bands read as a band's thickness, not its top: the title says so.
  const QString title = t.bands.empty() ? tr("Throughput") : tr("Throughput per GPU, stacked");
  if (t.title != title) {
    t.title = title;
    t.showTitle();
  }
  t.series[0]->replace(samples);
  std::vector<double> stacked(ts.size(), 0.0);
  for (std::size_t g = 0; g < t.bands.size(); ++g) {
    QAreaSeries* band = t.bands[g];
    if (band->lowerSeries()) band->lowerSeries()->replace(points(stacked, rate.scale));
    const auto& own = samplesKnown ? ts.gpus[g].samplesPerSec : ts.gpus[g].batchesPerSec;
    for (std::size_t i = 0; i < stacked.size() && i < own.size(); ++i) stacked[i] += own[i];
    band->upperSeries()->replace(points(stacked, rate.scale));
  }
  t.y->setRange(0, niceMax(maxOf(samples)));
  t.y->applyNiceNumbers();
  t.y->setTitleText(QStringLiteral("%1 %2").arg(rate.name, perSecond).trimmed());

  auto& b = charts_->bandwidth;
  const auto h2d = points(ts.h2dGBps, 1.0), d2h = points(ts.d2hGBps, 1.0);
  b.series[0]->replace(h2d);
  b.series[1]->replace(d2h);
  b.y->setRange(0, niceMax(std::max(maxOf(h2d), maxOf(d2h))));
  b.y->applyNiceNumbers();

  auto& u = charts_->utilisation;
  const auto& uf = charts_->utilisationFixed;
  uf[0]->replace(points(ts.computeBusy, 100.0));
  uf[1]->replace(points(ts.h2dBusy, 100.0));
  uf[2]->replace(points(ts.d2hBusy, 100.0));
  uf[3]->replace(points(ts.overlap, 100.0));
  for (std::size_t g = 0; g < charts_->gpuBusy.size(); ++g)
    charts_->gpuBusy[g]->replace(points(ts.gpus[g].computeBusy, 100.0));
  u.y->setRange(0, 100);

  if (ts.size() < 2) {
    // One bin draws no line: early in a run the first bins are still filling.
    for (auto* p : charts_->panels()) p->setEmptyNote(tr("no data yet"));
    return;
  }
  auto allZero = [](std::initializer_list<const std::vector<double>*> ys) {
    for (const auto* y : ys)
      for (double v : *y)
        if (v != 0) return false;
    return true;
  };
  // Short notes: the title is all the room they get in a narrow chart.
  t.setEmptyNote(allZero({&throughput}) ? tr("no batches") : QString());
  b.setEmptyNote(allZero({&ts.h2dGBps, &ts.d2hGBps}) ? tr("no copies") : QString());
  u.setEmptyNote(allZero({&ts.computeBusy, &ts.h2dBusy, &ts.d2hBusy}) ? tr("no GPU ops") : QString());
}

QStringList ThroughputCharts::emptyNotes() const {
  QStringList notes;
  for (auto* p : charts_->panels())
    if (p->empty()) notes << p->titleLine();
  return notes;
}

std::vector<int> ThroughputCharts::pointCounts() const {
  std::vector<int> counts;
  for (auto* p : charts_->panels()) {
    for (auto* a : p->bands) counts.push_back(int(a->upperSeries()->count()));
    for (auto* s : p->series) counts.push_back(int(s->count()));
  }
  return counts;
}

QStringList ThroughputCharts::seriesNames(std::optional<Chart> chart) const {
  QStringList names;
  const std::vector<Charts::Panel*> panels = charts_->panels();
  for (std::size_t i = 0; i < panels.size(); ++i)
    if (!chart || int(*chart) == int(i)) {
      for (auto* a : panels[i]->bands) names << a->name();  // the legend's order
      for (auto* s : panels[i]->series) names << s->name();
    }
  return names;
}

void ThroughputCharts::showOnly(std::optional<Chart> chart) {
  const std::vector<Charts::Panel*> panels = charts_->panels();
  for (std::size_t i = 0; i < panels.size(); ++i) panels[i]->view->setVisible(!chart || int(*chart) == int(i));
  // All three back (under the timeline): side by side until a resize says otherwise,
  // or the stacked minimum height of a narrow column would stretch the window.
  if (!chart) static_cast<QBoxLayout*>(layout())->setDirection(QBoxLayout::LeftToRight);
}

void ThroughputCharts::setTextPixelSize(int pixels) {
  textPixels_ = pixels;
  QFont small = font();
  QFont titleFont = small;
  titleFont.setBold(true);
  if (pixels > 0) {
    small.setPixelSize(pixels);
    titleFont.setPixelSize(pixels * 23 / 20);
  } else {  // the default small print of a chart beside the timeline
    small.setPointSizeF(8.0);
    titleFont.setPointSizeF(9.0);
  }
  for (auto* p : charts_->panels()) {
    // Room for the title, the axis labels and titles, and a plot, in this print.
    p->view->setMinimumHeight(std::max(150, pixels * 12));
    p->chart->setTitleFont(titleFont);
    p->chart->legend()->setFont(small);
    for (QValueAxis* axis : {p->x, p->y}) {
      axis->setLabelsFont(small);
      axis->setTitleFont(small);
    }
  }
  applyPalette();  // pen widths follow the text size
  for (auto* p : charts_->panels()) p->showTitle();
}

bool ThroughputCharts::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize)
    for (auto* p : charts_->panels())
      if (p->view == watched) p->showTitle();
  return QWidget::eventFilter(watched, event);
}

void ThroughputCharts::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  auto* box = static_cast<QBoxLayout*>(layout());
  box->setDirection(width() > height() ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
  // A low chart (the bottom row of a laptop screen): the legend beside the plot and
  // fewer ticks, so the axis labels keep their room instead of turning into "...".
  const int chartHeight = box->direction() == QBoxLayout::LeftToRight ? height() : height() / 3;
  const bool low = chartHeight < 240;
  for (auto* p : charts_->panels()) {
    p->chart->legend()->setAlignment(low ? Qt::AlignRight : Qt::AlignBottom);
    p->y->setTickCount(low ? 3 : 6);
  }
}

void ThroughputCharts::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) applyPalette();
}

void ThroughputCharts::applyPalette() {
  // Colours set one by one rather than through QChart::setTheme, which would also
  // reset the series pens and the fonts chosen above.
  const QPalette pal = palette();
  const QColor bg = pal.color(QPalette::Base), text = pal.color(QPalette::WindowText);
  QColor grid = text;
  grid.setAlphaF(0.18);
  for (auto* p : charts_->panels()) {
    p->chart->setBackgroundBrush(bg);
    p->chart->setTitleBrush(text);
    p->chart->legend()->setLabelColor(text);
    p->view->setBackgroundBrush(bg);
    for (QValueAxis* axis : {p->x, p->y}) {
      axis->setLabelsColor(text);
      axis->setTitleBrush(text);
      axis->setGridLineColor(grid);
      axis->setLinePenColor(pal.color(QPalette::Mid));
    }
  }
  // Op colours (standard or high contrast, OpPalette.h); the two series drawn in
  // "ink" follow the text colour. Thicker lines with larger text (a projector).
  const auto& b = charts_->bandwidth.series;
  const auto& u = charts_->utilisationFixed;
  const double width = textPixels_ > 0 ? std::max(2.0, textPixels_ / 7.0) : 2.0;
  const std::pair<QLineSeries*, QColor> colours[] = {
      {charts_->total, text},               {b[0], opKindColor(OpKind::CopyH2D)},
      {b[1], opKindColor(OpKind::CopyD2H)}, {u[0], opKindColor(OpKind::Kernel)},
      {u[1], opKindColor(OpKind::CopyH2D)}, {u[2], opKindColor(OpKind::CopyD2H)},
      {u[3], text}};
  for (const auto& [s, colour] : colours) {
    QPen pen = s->pen();
    pen.setColor(colour);
    // The total over several GPUs' lines: a little heavier, so it reads as their sum.
    pen.setWidthF(s == charts_->total && !charts_->throughput.bands.empty() ? width * 1.5 : width);
    s->setPen(pen);
  }
  const auto& bands = charts_->throughput.bands;
  for (std::size_t g = 0; g < bands.size(); ++g) {
    const QColor c = gpuSeriesColor(int(g), bg);
    bands[g]->setPen(QPen(c, 1.0));
    bands[g]->setBrush(gpuSeriesBrush(int(g), c));
  }
  const auto& busy = charts_->gpuBusy;
  for (std::size_t g = 0; g < busy.size(); ++g) {
    QPen pen(gpuSeriesColor(int(g), bg), width, gpuSeriesPenStyle(int(g)));
    pen.setCapStyle(Qt::FlatCap);  // dashes stay dashes at a point per interval
    busy[g]->setPen(pen);
  }
}

void ThroughputCharts::renderTo(QPainter& painter, const QRectF& target, Qt::Orientation orientation) {
  const auto panels = charts_->panels();
  const double n = double(panels.size());
  for (std::size_t i = 0; i < panels.size(); ++i) {
    QChartView* view = panels[i]->view;
    const double k = double(i);
    const QRectF rect = orientation == Qt::Vertical
                            ? QRectF(target.left(), target.top() + target.height() / n * k, target.width(), target.height() / n)
                            : QRectF(target.left() + target.width() / n * k, target.top(), target.width() / n, target.height());
    // Lay the chart out at the target's size so axis labels are not squeezed when
    // the dock is small or hidden, render its scene, then give it back to the view.
    QChart* chart = panels[i]->chart;
    chart->resize(rect.size());
    chart->scene()->render(&painter, rect, QRectF(chart->pos(), rect.size()));
    chart->resize(view->viewport()->size());
  }
}

}  // namespace pipescope::ui
