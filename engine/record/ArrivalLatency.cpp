#include "record/ArrivalLatency.h"

#include <algorithm>
#include <cmath>

namespace pipescope::record {

namespace {

constexpr std::int64_t kFineNs = 100'000;               // 0.1 ms
constexpr std::int64_t kFineEndNs = 1'000'000'000;      // 1 s
constexpr std::int64_t kCoarseNs = 10'000'000;          // 10 ms
constexpr std::int64_t kCoarseEndNs = 100'000'000'000;  // 100 s
constexpr std::size_t kFine = std::size_t(kFineEndNs / kFineNs);
constexpr std::size_t kCoarse = std::size_t((kCoarseEndNs - kFineEndNs) / kCoarseNs);

std::size_t bucketOf(std::int64_t ns) {
  if (ns < kFineEndNs) return std::size_t(ns / kFineNs);
  if (ns < kCoarseEndNs) return kFine + std::size_t((ns - kFineEndNs) / kCoarseNs);
  return kFine + kCoarse;
}

/// The upper edge of bucket `b`, in ns.
std::int64_t upperEdge(std::size_t b) {
  if (b < kFine) return std::int64_t(b + 1) * kFineNs;
  if (b < kFine + kCoarse) return kFineEndNs + std::int64_t(b - kFine + 1) * kCoarseNs;
  return kCoarseEndNs;
}

}  // namespace

ArrivalLatency::ArrivalLatency() : buckets_(kFine + kCoarse + 1, 0) {}

void ArrivalLatency::add(std::int64_t endNs, std::int64_t arrivalNs) {
  // A record cannot arrive before its op ended; a negative difference is the clocks'
  // mapping error and counts as 0.
  const std::int64_t ns = std::max<std::int64_t>(0, arrivalNs - endNs);
  ++buckets_[bucketOf(ns)];
  ++count_;
  maxNs_ = std::max(maxNs_, ns);
}

double ArrivalLatency::quantileMs(double q) const {
  if (count_ == 0) return 0;
  const auto rank = std::uint64_t(std::ceil(std::clamp(q, 0.0, 1.0) * double(count_)));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= std::max<std::uint64_t>(rank, 1)) return double(std::min(upperEdge(b), maxNs_)) / 1e6;
  }
  return maxMs();
}

}  // namespace pipescope::record
