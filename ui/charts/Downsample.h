#pragma once
// Caps the points a chart series holds: Qt Charts redraws every point on each update,
// so a long run must not grow a series without bound. Neighbouring points are
// averaged in equal groups, which keeps the curve's level (a rate stays a rate).
#include <QList>
#include <QPointF>
#include <vector>

namespace pipescope::ui {

/// Points (x[i], y[i] * yScale), averaged in groups so that at most maxPoints remain.
QList<QPointF> downsampledPoints(const std::vector<double>& x, const std::vector<double>& y, int maxPoints,
                                 double xScale = 1.0, double yScale = 1.0);

}  // namespace pipescope::ui
