#pragma once
// Median, fastest and slowest of repeated measurements. Header-only: the CUDA
// calibration library, which the engine library links, uses it too.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace pipescope {

struct Spread {
  double median = 0, min = 0, max = 0;
  bool operator==(const Spread&) const = default;
};

/// Median (mean of the two middle values for an even count), min and max; zeros when empty.
inline Spread spreadOf(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  return {median, v.front(), v.back()};
}

}  // namespace pipescope
