#pragma once
// How long after an op ended on the GPU its record reached the recorder: the part of
// "op end on the GPU to its block on screen" that lies in the recorded process (CUPTI
// handing its buffer over, the injection's round, the socket). Both ends are
// CLOCK_MONOTONIC of the same machine: the injection maps the GPU's times onto it.
//
// A histogram (0.1 ms steps up to 1 s, 10 ms steps up to 100 s, then one bucket), so
// that a recording of any length keeps a fixed size.
#include <cstdint>
#include <vector>

namespace pipescope::record {

class ArrivalLatency {
 public:
  ArrivalLatency();
  /// An op that ended at `endNs` arrived at `arrivalNs` (monotonic ns).
  void add(std::int64_t endNs, std::int64_t arrivalNs);
  std::uint64_t count() const { return count_; }
  /// The q-quantile (0..1) in milliseconds: the upper edge of its histogram step (at most
  /// the largest latency seen); 0 when empty.
  double quantileMs(double q) const;
  double maxMs() const { return double(maxNs_) / 1e6; }

 private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  std::int64_t maxNs_ = 0;
};

}  // namespace pipescope::record
