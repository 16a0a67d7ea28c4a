#include "timeline/FollowWindow.h"

#include <algorithm>
#include <cmath>

namespace pipescope::ui {

int FollowWindow::autoBatches(const FollowInput& in) {
  if (!in.periodNs || *in.periodNs <= 0) return 0;
  // As many batches as keep the shortest stage op kMinOpPx wide: span = width *
  // stage / kMinOpPx. Without a stage figure, the fewest batches.
  double n = kMinBatches;
  if (in.shortestStageNs && *in.shortestStageNs > 0)
    n = std::floor(in.widthPx * *in.shortestStageNs / (kMinOpPx * *in.periodNs));
  return int(std::clamp(n, double(kMinBatches), double(kMaxBatches)));
}

double FollowWindow::autoSpanNs(const FollowInput& in) const {
  const int n = autoBatches(in);
  return n == 0 ? 0.0 : double(n) * *in.periodNs;
}

std::pair<std::int64_t, std::int64_t> FollowWindow::window(const FollowInput& in) const {
  const double run = double(std::max<std::int64_t>(0, in.lastNs - in.firstNs));
  double span = autoSpanNs(in);
  if (span <= 0) {
    // Pace not known yet (fewer than two batches): the run so far, with room to grow.
    span = std::max(2 * run, double(kStartSpanNs)) * zoom_;
  } else {
    span = std::max(span * zoom_, kMinPeriods * *in.periodNs);
  }
  const auto spanNs = std::max<std::int64_t>(1, std::int64_t(std::llround(span)));
  const auto margin = std::int64_t(double(spanNs) * kMarginFraction);
  if (in.lastNs + margin - in.firstNs <= spanNs) return {in.firstNs, in.firstNs + spanNs};
  return {in.lastNs + margin - spanNs, in.lastNs + margin};
}

void FollowWindow::zoomBy(double factor, const FollowInput& in) {
  if (!(factor > 0)) return;
  zoom_ /= factor;
  // The same lower limit as the automatic window: two batches' worth of time. Clamp
  // the factor itself, so zooming back out responds at the first step.
  const double autoSpan = autoSpanNs(in);
  const double minZoom = autoSpan > 0 ? kMinPeriods * *in.periodNs / autoSpan : 1.0 / 64;
  zoom_ = std::clamp(zoom_, minZoom, kMaxZoomOut);
}

}  // namespace pipescope::ui
