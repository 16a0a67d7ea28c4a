#pragma once
// Interval arithmetic behind every busy figure: union, intersection and their
// lengths over half-open [start, end) nanosecond intervals.
#include <cstdint>
#include <utility>
#include <vector>

namespace pipescope {

using Interval = std::pair<std::int64_t, std::int64_t>;
using Intervals = std::vector<Interval>;

/// Sorted, disjoint, non-empty intervals covering the same time as `v`.
Intervals mergeIntervals(Intervals v);
/// Total length of merged (disjoint) intervals.
double totalLength(const Intervals& merged);
/// Intersection of two merged interval lists (result merged).
Intervals intersectMerged(const Intervals& a, const Intervals& b);
/// Union of two merged interval lists (result merged).
Intervals uniteMerged(const Intervals& a, const Intervals& b);
/// The time of `a` that `b` does not cover (both merged; result merged).
Intervals subtractMerged(const Intervals& a, const Intervals& b);

}  // namespace pipescope
