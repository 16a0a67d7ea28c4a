#pragma once
// The time range the timeline shows while it follows a live run (View › Follow
// live). It always spans several whole batches, so the H2D / kernel / D2H staircase
// is on screen while it builds up:
//   - while the run is shorter than the window: the whole run from its start;
//   - then the newest N batches, N chosen so that the run's shortest stage op is at
//     least kMinOpPx pixels wide, between kMinBatches and kMaxBatches;
//   - zooming while following scales that span (the view keeps following), but
//     never below two batches' worth of time.
// Qt-free; the batch period and stage durations come from BatchPace.
#include <cstdint>
#include <optional>
#include <utility>

namespace pipescope::ui {

struct FollowInput {
  std::int64_t firstNs = 0;               ///< earliest op start of the run
  std::int64_t lastNs = 0;                ///< latest op end so far
  double widthPx = 1000;                  ///< plot width
  std::optional<double> periodNs;         ///< time between batch starts (BatchPace)
  std::optional<double> shortestStageNs;  ///< mean duration of the shortest stage kind
};

class FollowWindow {
 public:
  static constexpr double kMinOpPx = 4;                  ///< a stage op at least this wide
  static constexpr int kMinBatches = 4;                  ///< batches on screen at the least (unless zoomed in)
  static constexpr int kMaxBatches = 12;                 ///< ... and at the most (unless zoomed out)
  static constexpr double kMinPeriods = 2;               ///< zooming in stops at two batches' worth of time
  static constexpr double kMarginFraction = 0.02;        ///< the newest op this far from the right edge
  static constexpr std::int64_t kStartSpanNs = 100'000;  ///< before the first two batches: at least 100 µs
  static constexpr double kMaxZoomOut = 1e6;             ///< a zoomed-out follow can span seconds of small batches

  /// The range [from, to) to show now.
  std::pair<std::int64_t, std::int64_t> window(const FollowInput& in) const;
  /// The span the window would have without the user's zoom (0 before the pace is known).
  double autoSpanNs(const FollowInput& in) const;
  /// Batches the automatic span shows (0 before the pace is known).
  static int autoBatches(const FollowInput& in);

  /// factor > 1 zooms in (a narrower window), < 1 out; `in` gives the lower limit.
  void zoomBy(double factor, const FollowInput& in);
  double zoom() const { return zoom_; }  ///< span multiplier the user chose (1: automatic)
  void reset() { zoom_ = 1; }

 private:
  double zoom_ = 1;
};

}  // namespace pipescope::ui
