#include "sweep/SweepLineChart.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScatterSeries>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "sweep/SweepColors.h"

namespace pipescope::ui {

namespace {

struct Scale {
  double factor;  // multiply by it
  QString unit;
};

/// The unit that keeps the largest batch at most 4096 units (labels like 0.25 ... 64
/// MiB read better than 256 ... 65536 KiB).
Scale byteScale(double maxBytes) {
  if (maxBytes >= double(4ull << 30)) return {1.0 / double(1ull << 30), "GiB"};
  if (maxBytes >= double(4ull << 20)) return {1.0 / double(1ull << 20), "MiB"};
  if (maxBytes >= 4096.0) return {1.0 / 1024.0, "KiB"};
  return {1.0, "B"};
}

Scale rateScale(double max) {
  if (max >= 1e9) return {1e-9, "G samples/s"};
  if (max >= 1e6) return {1e-6, "M samples/s"};
  if (max >= 1e3) return {1e-3, "k samples/s"};
  return {1.0, "samples/s"};
}

/// A round tick step giving about five intervals up to `v`.
double niceStep(double v) {
  if (!(v > 0)) return 1.0;
  const double raw = v / 5.0;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (step * p >= raw) return step * p;
  return 10 * p;
}

}  // namespace

struct SweepLineChart::Impl {
  QChart* chart = nullptr;
  QChartView* view = nullptr;
  QLogValueAxis* x = nullptr;
  QValueAxis* y = nullptr;
  Scale bytes{1.0, "B"}, rate{1.0, "samples/s"};
  std::vector<SweepSeries> measured;
  std::vector<QLineSeries*> measuredLines;
  std::vector<QScatterSeries*> markers;
  int predictedLines = 0;
  std::vector<QAbstractSeries*> hidden;  ///< series without a legend entry
  void hideFromLegend(QAbstractSeries* s) {
    for (QLegendMarker* m : chart->legend()->markers(s)) m->setVisible(false);
    hidden.push_back(s);
  }
};

SweepLineChart::SweepLineChart(QWidget* parent) : QWidget(parent), d_(std::make_unique<Impl>()) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  d_->chart = new QChart;
  d_->chart->setTheme(QChart::ChartThemeLight);
  d_->chart->setAnimationOptions(QChart::NoAnimation);
  d_->chart->legend()->setAlignment(Qt::AlignRight);
  d_->chart->setMargins(QMargins(4, 4, 4, 4));
  QFont small = d_->chart->font();
  small.setPointSizeF(8.5);
  QFont titleFont = small;
  titleFont.setBold(true);
  titleFont.setPointSizeF(9.5);
  d_->chart->setTitleFont(titleFont);
  d_->chart->legend()->setFont(small);
  // Never setUseOpenGL: it crashes grab() on the offscreen platform.
  d_->view = new QChartView(d_->chart);
  d_->view->setRenderHint(QPainter::Antialiasing);
  d_->view->setMinimumSize(360, 220);
  layout->addWidget(d_->view);
  clear();
}

SweepLineChart::~SweepLineChart() = default;

void SweepLineChart::clear() { setData({}, {}, tr("Throughput vs batch size")); }

void SweepLineChart::setData(const std::vector<SweepSeries>& measured, const std::vector<SweepSeries>& predicted,
                             const QString& title) {
  QChart* chart = d_->chart;
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
  d_->measured = measured;
  d_->measuredLines.clear();
  d_->markers.clear();
  d_->predictedLines = 0;
  d_->hidden.clear();
  chart->setTitle(title);

  double minX = 0, maxX = 0, maxY = 0;
  for (const auto* list : {&measured, &predicted})
    for (const auto& s : *list)
      for (const auto& p : s.points) {
        minX = minX == 0 ? p.batchBytes : std::min(minX, p.batchBytes);
        maxX = std::max(maxX, p.batchBytes);
        maxY = std::max({maxY, p.max, p.median});
      }
  d_->bytes = byteScale(maxX > 0 ? maxX : double(64 << 20));
  d_->rate = rateScale(maxY);
  const double bx = d_->bytes.factor, ry = d_->rate.factor;

  d_->x = new QLogValueAxis;
  const double lo = minX > 0 ? minX * bx : 1.0, hi = maxX > 0 ? maxX * bx : 64.0;
  const double ratio = hi / lo;
  d_->x->setBase(ratio <= 512 ? 2.0 : ratio <= 1 << 16 ? 4.0 : 10.0);
  d_->x->setRange(lo / 1.4, hi * 1.4);
  d_->x->setLabelFormat("%g");
  d_->x->setMinorTickCount(0);
  d_->x->setTitleText(tr("batch size (%1, log scale)").arg(d_->bytes.unit));
  d_->y = new QValueAxis;
  // Ticks on round values, the top just above the highest point.
  const double step = niceStep(maxY * ry * 1.05);
  d_->y->setTickType(QValueAxis::TicksDynamic);
  d_->y->setTickAnchor(0);
  d_->y->setTickInterval(step);
  d_->y->setRange(0, maxY > 0 ? std::ceil(maxY * ry * 1.05 / step) * step : 1.0);
  d_->y->setLabelFormat("%.3g");
  d_->y->setTitleText(tr("throughput (%1)").arg(d_->rate.unit));
  QFont small = chart->legend()->font();
  for (QAbstractAxis* a : {static_cast<QAbstractAxis*>(d_->x), static_cast<QAbstractAxis*>(d_->y)}) {
    a->setLabelsFont(small);
    a->setTitleFont(small);
  }
  chart->addAxis(d_->x, Qt::AlignBottom);
  chart->addAxis(d_->y, Qt::AlignLeft);
  auto attach = [&](QAbstractSeries* s) {
    chart->addSeries(s);
    s->attachAxis(d_->x);
    s->attachAxis(d_->y);
  };

  for (std::size_t i = 0; i < measured.size(); ++i) {
    const SweepSeries& s = measured[i];
    const QColor color = streamSeriesColor(int(i));
    const QString name = s.streams == 1 ? tr("1 stream") : tr("%1 streams").arg(s.streams);
    const bool spread = std::any_of(s.points.begin(), s.points.end(), [](const auto& p) { return p.max > p.min; });
    if (spread) {
      auto* upper = new QLineSeries;
      auto* lower = new QLineSeries;
      for (const auto& p : s.points) {
        upper->append(p.batchBytes * bx, p.max * ry);
        lower->append(p.batchBytes * bx, p.min * ry);
      }
      auto* band = new QAreaSeries(upper, lower);
      QColor fill = color;
      fill.setAlpha(55);
      band->setBrush(fill);
      band->setPen(Qt::NoPen);
      band->setName(name + tr(" min–max"));
      attach(band);
      d_->hideFromLegend(band);
    }
    // Later (more-streams) lines are drawn thinner on top, so a line that coincides
    // with an earlier one (streams that no longer help) still shows both colours.
    const double rank = double(measured.size() - 1 - i);
    auto* line = new QLineSeries;
    line->setName(name);
    line->setPen(QPen(color, 2.0 + 1.2 * rank));
    QList<QPointF> pts;
    for (const auto& p : s.points) pts.append({p.batchBytes * bx, p.median * ry});
    line->replace(pts);
    attach(line);
    d_->measuredLines.push_back(line);

    auto* marks = new QScatterSeries;
    marks->setName(name);
    marks->setMarkerSize(8.0 + 3.0 * rank);
    marks->setColor(color);
    marks->setBorderColor(Qt::white);
    marks->replace(pts);
    attach(marks);
    d_->hideFromLegend(marks);
    d_->markers.push_back(marks);
    const std::size_t which = i;
    connect(marks, &QScatterSeries::clicked, this, [this, which](const QPointF& at) {
      const auto& points = d_->measured[which].points;
      const SweepSeriesPoint* best = nullptr;
      double bestDistance = 0;
      for (const auto& p : points) {
        const double dist = std::abs(std::log(p.batchBytes * d_->bytes.factor / at.x()));
        if (!best || dist < bestDistance) best = &p, bestDistance = dist;
      }
      if (best) emit pointClicked(best->index);
    });
  }

  for (std::size_t i = 0; i < predicted.size(); ++i) {
    if (predicted[i].points.empty()) continue;
    auto* line = new QLineSeries;
    line->setName(tr("%1 predicted").arg(predicted[i].streams));
    line->setPen(QPen(streamSeriesColor(int(i)), 1.6, Qt::DashLine));
    for (const auto& p : predicted[i].points) line->append(p.batchBytes * bx, p.median * ry);
    attach(line);
    d_->hideFromLegend(line);
    ++d_->predictedLines;
  }
  if (d_->predictedLines > 0) {
    // One legend entry explains every dashed line.
    auto* key = new QLineSeries;
    key->setName(tr("simulator prediction (dashed)"));
    key->setPen(QPen(QColor("#555555"), 1.6, Qt::DashLine));
    attach(key);
  }
}

int SweepLineChart::measuredSeriesCount() const { return int(d_->measuredLines.size()); }

std::vector<int> SweepLineChart::measuredPointCounts() const {
  std::vector<int> counts;
  for (auto* s : d_->measuredLines) counts.push_back(int(s->count()));
  return counts;
}

int SweepLineChart::predictedSeriesCount() const { return d_->predictedLines; }

QStringList SweepLineChart::legendNames() const {
  QStringList names;
  // Markers report invisible while the chart is not shown: go by the series kept in the legend.
  for (QLegendMarker* m : d_->chart->legend()->markers())
    if (std::find(d_->hidden.begin(), d_->hidden.end(), m->series()) == d_->hidden.end()) names << m->label();
  return names;
}

QString SweepLineChart::xAxisTitle() const { return d_->x ? d_->x->titleText() : QString(); }
QString SweepLineChart::yAxisTitle() const { return d_->y ? d_->y->titleText() : QString(); }

std::optional<QPoint> SweepLineChart::positionOf(std::size_t index) const {
  for (std::size_t i = 0; i < d_->measured.size(); ++i)
    for (const auto& p : d_->measured[i].points) {
      if (p.index != index) continue;
      const QPointF value(p.batchBytes * d_->bytes.factor, p.median * d_->rate.factor);
      const QPointF scene = d_->chart->mapToScene(d_->chart->mapToPosition(value, d_->markers[i]));
      const QPoint inViewport = d_->view->mapFromScene(scene);
      return d_->view->viewport()->mapTo(this, inViewport);
    }
  return std::nullopt;
}

void SweepLineChart::renderTo(QPainter& painter, const QRectF& target) {
  // Laid out at the target's size so labels are not squeezed, then given back.
  QChart* chart = d_->chart;
  chart->resize(target.size());
  chart->scene()->render(&painter, target, QRectF(chart->pos(), target.size()));
  chart->resize(d_->view->viewport()->size());
}

}  // namespace pipescope::ui
