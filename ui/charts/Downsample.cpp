#include "charts/Downsample.h"

#include <algorithm>

namespace pipescope::ui {

QList<QPointF> downsampledPoints(const std::vector<double>& x, const std::vector<double>& y, int maxPoints,
                                 double xScale, double yScale) {
  QList<QPointF> points;
  const std::size_t n = std::min(x.size(), y.size());
  if (n == 0 || maxPoints <= 0) return points;
  const std::size_t group = (n + std::size_t(maxPoints) - 1) / std::size_t(maxPoints);
  points.reserve(qsizetype((n + group - 1) / group));
  for (std::size_t i = 0; i < n; i += group) {
    const std::size_t end = std::min(n, i + group);
    double sx = 0, sy = 0;
    for (std::size_t j = i; j < end; ++j) {
      sx += x[j];
      sy += y[j];
    }
    const double k = double(end - i);
    points.append(QPointF(sx / k * xScale, sy / k * yScale));
  }
  return points;
}

}  // namespace pipescope::ui
