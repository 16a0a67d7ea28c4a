#include "sweep/SweepColors.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pipescope::ui {

QColor streamSeriesColor(int i) {
  // Tableau 10, which stays distinct for the usual 4-8 stream counts.
  static const std::array<const char*, 10> colors{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return QColor(colors[std::size_t(std::max(0, i)) % colors.size()]);
}

QColor heatmapColor(double t) {
  // Samples of matplotlib's viridis at t = 0, 1/8, ..., 1.
  static const std::array<std::array<int, 3>, 9> stops{{{68, 1, 84},
                                                        {71, 44, 122},
                                                        {59, 81, 139},
                                                        {44, 113, 142},
                                                        {33, 144, 141},
                                                        {39, 173, 129},
                                                        {92, 200, 99},
                                                        {170, 220, 50},
                                                        {253, 231, 37}}};
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0) * double(stops.size() - 1);
  const std::size_t i = std::min(std::size_t(t), stops.size() - 2);
  const double f = t - double(i);
  auto mix = [&](int c) { return int(std::lround(stops[i][std::size_t(c)] * (1 - f) + stops[i + 1][std::size_t(c)] * f)); };
  return QColor(mix(0), mix(1), mix(2));
}

}  // namespace pipescope::ui
