#include "analysis/WaitCauseOverlay.h"

#include <QPainter>
#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/WaitAnalysisModel.h"
#include "analysis/WaitCauseStyle.h"

namespace pipescope::ui {

void WaitCauseOverlay::paintRow(QPainter& p, const LaneRow& row, const TimeAxis& axis, double barTop,
                                double barHeight) const {
  if (row.kind != LaneKind::Stream) return;
  model_.showTime(axis.from(), axis.to());
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
  // A lane's segments are sorted by end (the drawable ones also by begin, and
  // disjoint): binary search to the first visible one, and after a segment narrower
  // than a pixel, jump straight to the first that ends past that pixel, so a zoomed-out
  // row costs O(pixels x log segments), not O(segments).
  const auto segs = result->analysis.laneSegments(row.lane);
  auto firstEndingAfter = [&](std::size_t from, std::int64_t t) {
    return std::size_t(std::upper_bound(segs.begin() + std::ptrdiff_t(from), segs.end(), t,
                                        [](std::int64_t v, const WaitSegment& s) { return v < s.end; }) -
                       segs.begin());
  };
  std::size_t i = firstEndingAfter(0, axis.from());
  while (i < segs.size()) {
    const WaitSegment& s = segs[i];
    if (s.underStream) {
      ++i;
      continue;
    }
    if (s.begin >= axis.to()) break;
    double a = axis.toX(s.begin), b = axis.toX(s.end);
    std::size_t next = i + 1;
    if (b - a < 1) {
      // A sliver: it stands for its whole pixel column; skip what else ends in it.
      a = std::floor(a);
      b = a + 1;
      next = std::max(next, firstEndingAfter(i + 1, axis.toTime(b)));
    }
    if (run && run->cause == s.cause && a <= run->b + 0.5) {
      run->b = std::max(run->b, b);
    } else {
      flush();
      run = Run{a, b, s.cause};
    }
    i = next;
  }
  flush();
}

}  // namespace pipescope::ui
