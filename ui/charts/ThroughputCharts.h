#pragma once
// Throughput, bandwidth, utilisation and overlap over time. This header is the whole
// interface the rest of the app sees: Qt Charts (deprecated from Qt 6.10 in favour
// of Qt Graphs, which Qt 6.4 lacks) stays inside ThroughputCharts.cpp, so swapping
// the chart library touches one file.
#include <QStringList>
#include <QWidget>
#include <memory>
#include <optional>

#include "metrics/TimeSeries.h"

class QPainter;

namespace pipescope::ui {

class ThroughputCharts : public QWidget {
  Q_OBJECT
 public:
  /// Most points to ask computeTimeSeries for: one per batch up to this many.
  static constexpr int kMaxPoints = kSeriesPoints;

  explicit ThroughputCharts(QWidget* parent = nullptr);
  ~ThroughputCharts() override;

  /// Replaces every series in bulk (one replace() per series), one point per
  /// interval of the series, drawn at the interval's centre. A run over several GPUs
  /// (series.gpus) adds a line per GPU: its throughput beside the total (data
  /// parallel), or its compute busy share in place of the one compute line (where
  /// every batch runs on every GPU: pipeline parallel).
  void setTimeSeries(const TimeSeries& series);
  void clear();

  /// The charts shown: all three (the default) or one (presentation mode).
  enum class Chart { Throughput, Bandwidth, Utilisation };
  void showOnly(std::optional<Chart> chart);
  /// Size of titles, axis labels and legends in pixels (0: the default small print).
  void setTextPixelSize(int pixels);
  int textPixelSize() const { return textPixels_; }

  /// Titles of the charts that have no data and say so (tests).
  QStringList emptyNotes() const;
  /// Points held by each series, for tests.
  std::vector<int> pointCounts() const;
  /// The legend name of each series shown (of every chart, or of `chart`), for tests.
  QStringList seriesNames(std::optional<Chart> chart = std::nullopt) const;
  /// Paints the charts into `target`, stacked (Vertical) or side by side
  /// (Horizontal), for the export and the report image.
  void renderTo(QPainter& painter, const QRectF& target, Qt::Orientation orientation = Qt::Vertical);

 protected:
  /// Side by side in a wide dock (under the timeline), stacked in a tall one.
  void resizeEvent(QResizeEvent* event) override;
  /// Follows the application palette (light or dark theme).
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void applyPalette();

  struct Charts;
  std::unique_ptr<Charts> charts_;
  int textPixels_ = 0;
};

}  // namespace pipescope::ui
