#pragma once
// A hook for other areas to paint on the timeline's rows (the analysis draws each
// op's wait causes), without the timeline knowing what they paint.
#include "timeline/LaneLayout.h"
#include "timeline/TimeAxis.h"
#include "trace/Trace.h"

class QPainter;

namespace pipescope::ui {

class TimelineOverlay {
 public:
  virtual ~TimelineOverlay() = default;
  /// Paints on one visible row, after the row's background and before its ops (so
  /// the ops stay on top). The painter is translated so that x = 0 is the plot's left
  /// edge and y is in content coordinates; barTop/barHeight is where ops are drawn.
  virtual void paintRow(QPainter& p, const LaneRow& row, const TimeAxis& axis, double barTop,
                        double barHeight) const = 0;
  /// True when the overlay draws the waits itself, so the default wait bars are left out.
  virtual bool replacesWaits() const { return true; }
};

}  // namespace pipescope::ui
