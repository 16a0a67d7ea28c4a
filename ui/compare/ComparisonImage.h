#pragma once
// The A/B comparison as one figure for a report or a slide: title, the two runs'
// timelines on one time axis across the page (A above B, plots aligned), the legend,
// then the A | B | difference table beside the verdict and each run's bottleneck.
#include <QRect>
#include <QString>
#include <functional>

#include "analysis/Comparison.h"

class QPainter;

namespace pipescope::ui {

struct ComparisonContent {
  QString title;     ///< "A/B comparison: naive vs multi-stream"
  QString subtitle;  ///< device, date
  QString aCaption, bCaption;
  /// Paint one run's timeline into a rect (plots already aligned by the caller).
  std::function<void(QPainter&, const QRect&)> paintA, paintB;
  int aHeight = 0, bHeight = 0;  ///< lanes' own heights (0: half the space each)
  /// Paints the legends into the rect and returns the height used.
  std::function<int(QPainter&, const QRect&)> paintLegend;
  ComparisonTable table;
  QString aNote, bNote;  ///< one sentence per run (its bottleneck)
};

/// Page width; the height follows the content (comparisonPageSize).
inline constexpr int kComparisonPageWidth = 1800;
QSize comparisonPageSize(const ComparisonContent& content);

void paintComparison(QPainter& painter, const QRect& page, const ComparisonContent& content);

}  // namespace pipescope::ui
