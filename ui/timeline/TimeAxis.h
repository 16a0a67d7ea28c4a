#pragma once
// The time <-> pixel mapping of the timeline: a plain value class with no Qt in it,
// so zoom, pan, ticks and unit formatting are tested on their own.
//
// x is measured in pixels from the left edge of the plotting area; time in
// nanoseconds on the trace's time base. The visible span is clamped to
// [kMinSpanNs, kMaxSpanNs] so extreme zoom never divides by zero or overflows.
#include <cstdint>
#include <string>
#include <vector>

namespace pipescope::ui {

class TimeAxis {
 public:
  static constexpr std::int64_t kMinSpanNs = 20;                    // 20 ns across the view
  static constexpr std::int64_t kMaxSpanNs = 1'000'000'000'000'000;  // ~11.6 days

  TimeAxis() = default;
  /// Shows [fromNs, toNs) over widthPx pixels (span and width clamped to sane minimums).
  TimeAxis(std::int64_t fromNs, std::int64_t toNs, double widthPx);

  std::int64_t from() const { return from_; }
  std::int64_t to() const { return from_ + span_; }
  std::int64_t span() const { return span_; }
  double width() const { return width_; }
  double nsPerPx() const { return double(span_) / width_; }

  double toX(std::int64_t t) const { return double(t - from_) * width_ / double(span_); }
  double toX(double t) const { return (t - double(from_)) * width_ / double(span_); }
  std::int64_t toTime(double x) const;

  /// factor > 1 zooms in; the time under pixel x stays under pixel x.
  TimeAxis zoomedAround(double x, double factor) const;
  /// Moves the view by dxPx pixels (positive: later times come into view).
  TimeAxis panned(double dxPx) const;
  TimeAxis withWidth(double widthPx) const { return TimeAxis(from_, to(), widthPx); }
  /// Same span, shifted so that its right edge is at toNs.
  TimeAxis endingAt(std::int64_t toNs) const { return TimeAxis(toNs - span_, toNs, width_); }

  bool operator==(const TimeAxis&) const = default;

  struct Tick {
    std::int64_t timeNs;
    double x;
    std::string label;
  };
  /// Ticks at a 1-2-5 step chosen so labels are at least minSpacingPx apart.
  std::vector<Tick> ticks(double minSpacingPx) const;
  /// Smallest 1, 2 or 5 x 10^k nanoseconds that is >= rawNs (>= 1).
  static std::int64_t niceStep(double rawNs);
  /// A tick label. The unit (ns/µs/ms/s) is that of referenceNs (the largest time on
  /// the ruler, so every label of one ruler shares a unit) or of the step if larger;
  /// the decimals follow the step, so neighbouring labels differ and never show
  /// noise digits ("1.25 ms", "2 s").
  static std::string formatTick(std::int64_t timeNs, std::int64_t stepNs, std::int64_t referenceNs);
  /// A duration with 3 significant digits in the best unit ("812 ns", "1.25 ms").
  static std::string formatDuration(double ns);

 private:
  std::int64_t from_ = 0;
  std::int64_t span_ = 1'000'000;  // 1 ms
  double width_ = 1000;
};

}  // namespace pipescope::ui
