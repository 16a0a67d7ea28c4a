#include "metrics/Intervals.h"

#include <algorithm>

namespace pipescope {

Intervals mergeIntervals(Intervals v) {
  std::erase_if(v, [](const Interval& i) { return i.second <= i.first; });
  std::sort(v.begin(), v.end());
  Intervals out;
  out.reserve(v.size());
  for (const auto& i : v) {
    if (!out.empty() && i.first <= out.back().second)
      out.back().second = std::max(out.back().second, i.second);
    else
      out.push_back(i);
  }
  return out;
}

double totalLength(const Intervals& merged) {
  double sum = 0;
  for (const auto& [s, e] : merged) sum += double(e - s);
  return sum;
}

Intervals intersectMerged(const Intervals& a, const Intervals& b) {
  Intervals out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t s = std::max(a[i].first, b[j].first);
    const std::int64_t e = std::min(a[i].second, b[j].second);
    if (s < e) out.emplace_back(s, e);
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return out;
}

Intervals uniteMerged(const Intervals& a, const Intervals& b) {
  Intervals all;
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all));
  return mergeIntervals(std::move(all));
}

Intervals subtractMerged(const Intervals& a, const Intervals& b) {
  Intervals out;
  std::size_t j = 0;
  for (const Interval& x : a) {
    std::int64_t t = x.first;
    while (j < b.size() && b[j].second <= t) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < x.second; ++k) {
      if (b[k].first > t) out.emplace_back(t, b[k].first);
      t = std::max(t, b[k].second);
      if (t >= x.second) break;
    }
    if (t < x.second) out.emplace_back(t, x.second);
  }
  return out;
}

}  // namespace pipescope
