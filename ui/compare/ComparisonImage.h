#pragma once
// The A/B comparison as one figure for a report or a slide: title, the two runs'
// timelines on one time axis (A above B, plots aligned), the legends, and the
// A | B | difference table.
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
};

/// 16:10 like the report page.
inline constexpr QSize kComparisonPageSize{1800, 1125};

void paintComparison(QPainter& painter, const QRect& page, const ComparisonContent& content);

}  // namespace pipescope::ui
