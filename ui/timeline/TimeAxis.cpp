#include "timeline/TimeAxis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pipescope::ui {

namespace {

struct Unit {
  double ns;
  const char* name;
};

// The unit a value is shown in: the largest one the value reaches.
Unit unitFor(double ns) {
  const double a = std::fabs(ns);
  if (a >= 1e9) return {1e9, "s"};
  if (a >= 1e6) return {1e6, "ms"};
  if (a >= 1e3) return {1e3, "\xC2\xB5s"};  // µs
  return {1, "ns"};
}

std::string formatIn(double value, int decimals, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit);
  return buf;
}

}  // namespace

TimeAxis::TimeAxis(std::int64_t fromNs, std::int64_t toNs, double widthPx)
    : from_(fromNs), span_(std::clamp<std::int64_t>(toNs - fromNs, kMinSpanNs, kMaxSpanNs)),
      width_(std::max(1.0, widthPx)) {}

std::int64_t TimeAxis::toTime(double x) const {
  return from_ + std::int64_t(std::llround(x * double(span_) / width_));
}

TimeAxis TimeAxis::zoomedAround(double x, double factor) const {
  if (!(factor > 0)) return *this;
  const double anchor = double(from_) + x * double(span_) / width_;
  const double newSpan =
      std::clamp(double(span_) / factor, double(kMinSpanNs), double(kMaxSpanNs));
  // Keep `anchor` at pixel x: from + x * newSpan / width == anchor.
  const double newFrom = anchor - x * newSpan / width_;
  const auto from = std::int64_t(std::llround(newFrom));
  return TimeAxis(from, from + std::int64_t(std::llround(newSpan)), width_);
}

TimeAxis TimeAxis::panned(double dxPx) const {
  const auto dt = std::int64_t(std::llround(dxPx * nsPerPx()));
  return TimeAxis(from_ + dt, from_ + dt + span_, width_);
}

std::int64_t TimeAxis::niceStep(double rawNs) {
  if (!(rawNs > 1)) return 1;
  double magnitude = std::pow(10.0, std::floor(std::log10(rawNs)));
  for (;;) {
    for (double m : {1.0, 2.0, 5.0}) {
      // Small tolerance so that exactly 2e6 stays 2e6 despite rounding in log10/pow.
      if (m * magnitude >= rawNs * (1 - 1e-9)) return std::int64_t(std::llround(m * magnitude));
    }
    magnitude *= 10;
  }
}

std::string TimeAxis::formatTick(std::int64_t timeNs, std::int64_t stepNs, std::int64_t referenceNs) {
  const Unit stepUnit = unitFor(double(stepNs));
  const Unit valueUnit = unitFor(double(referenceNs));
  const Unit unit = valueUnit.ns > stepUnit.ns ? valueUnit : stepUnit;
  // Decimals: enough to show the step in that unit (step 200 µs in ms -> 1 decimal).
  const double stepInUnit = double(stepNs) / unit.ns;
  int decimals = 0;
  if (stepInUnit < 1) decimals = int(std::ceil(-std::log10(stepInUnit) - 1e-9));
  decimals = std::clamp(decimals, 0, 9);
  if (timeNs == 0) return "0";
  return formatIn(double(timeNs) / unit.ns, decimals, unit.name);
}

std::string TimeAxis::formatDuration(double ns) {
  const Unit unit = unitFor(ns);
  const double v = ns / unit.ns;
  const double a = std::fabs(v);
  const int decimals = unit.ns == 1 ? 0 : a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return formatIn(v, decimals, unit.name);
}

std::vector<TimeAxis::Tick> TimeAxis::ticks(double minSpacingPx) const {
  std::vector<Tick> out;
  const std::int64_t step = niceStep(std::max(1.0, minSpacingPx) * nsPerPx());
  // First multiple of step at or after from_ (floor division for negative times).
  std::int64_t t = from_ / step * step;
  if (t < from_) t += step;
  const std::int64_t reference = std::max(std::abs(from_), std::abs(to()));
  for (; t <= to(); t += step) out.push_back({t, toX(t), formatTick(t, step, reference)});
  return out;
}

}  // namespace pipescope::ui
