#pragma once
// Spreads time over consecutive intervals: the part of [s, e) that falls into each,
// for the chart series (TimeSeries.h) whose figures are shares of their intervals.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "metrics/Intervals.h"

namespace pipescope {

/// Interval i is [edges[i], edges[i+1]); `edges` must outlive the binner.
class IntervalBinner {
 public:
  explicit IntervalBinner(const std::vector<std::int64_t>& edges) : edges_(edges) {}

  /// Adds to out[i] the length of [s, e) inside interval i, times `weightPerNs`.
  void add(std::vector<double>& out, std::int64_t s, std::int64_t e, double weightPerNs = 1.0) const {
    if (edges_.size() < 2) return;
    s = std::max(s, edges_.front());
    e = std::min(e, edges_.back());
    if (e <= s) return;
    // The first interval whose end lies after s.
    std::size_t i = std::size_t(std::upper_bound(edges_.begin() + 1, edges_.end(), s) - (edges_.begin() + 1));
    for (; i + 1 < edges_.size() && edges_[i] < e; ++i)
      out[i] += double(std::min(e, edges_[i + 1]) - std::max(s, edges_[i])) * weightPerNs;
  }
  void addIntervals(std::vector<double>& out, const Intervals& merged) const {
    for (const auto& [s, e] : merged) add(out, s, e);
  }

 private:
  const std::vector<std::int64_t>& edges_;
};

}  // namespace pipescope
