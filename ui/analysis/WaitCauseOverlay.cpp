#include "analysis/WaitCauseOverlay.h"

#include <QPainter>
#include <algorithm>
#include <optional>

#include "analysis/WaitAnalysisModel.h"
#include "analysis/WaitCauseStyle.h"

namespace pipescope::ui {

void WaitCauseOverlay::paintRow(QPainter& p, const LaneRow& row, const TimeAxis& axis, double barTop,
                                double barHeight) const {
  if (row.kind != LaneKind::Stream) return;
  const auto result = model_.result();
  if (!result) return;
  const double w = axis.width();
  struct Run {
    double a, b;
    WaitCause cause;
  };
  std::optional<Run> run;
  auto flush = [&] {
    if (!run) return;
    const double a = std::max(-2.0, run->a), b = std::min(w + 2, std::max(run->b, run->a + 1.0));
    if (b > a) paintWaitCause(p, QRectF(a, barTop, b - a, barHeight), run->cause);
    run.reset();
  };
  result->analysis.forEachOverlaySegment(row.lane, axis.from(), axis.to(), [&](const WaitSegment& s) {
    const double a = axis.toX(s.begin), b = axis.toX(s.end);
    if (run && run->cause == s.cause && a <= run->b + 0.5) {
      run->b = std::max(run->b, b);
      return;
    }
    flush();
    run = Run{a, b, s.cause};
  });
  flush();
}

}  // namespace pipescope::ui
