#pragma once
// The CPU stages' real work, split by worker: preprocessing generates a batch's
// samples and normalises them; postprocessing reduces the output. Both cost about
// `opsPerByte` simple float operations per byte, so the knob scales them linearly.
#include <cstddef>
#include <cstdint>

namespace pipescope::cuda {

/// Writes elements [n*worker/workers, n*(worker+1)/workers) of `dst` for `batch`.
void preprocessShare(float* dst, std::size_t n, std::int64_t batch, double opsPerByte, int worker, int workers);
/// Reduces the same share of `src`; returns the share's sum.
double postprocessShare(const float* src, std::size_t n, double opsPerByte, int worker, int workers);

/// [begin, end) of a worker's share of n items.
inline void shareOf(std::size_t n, int worker, int workers, std::size_t& begin, std::size_t& end) {
  begin = n * std::size_t(worker) / std::size_t(workers);
  end = n * std::size_t(worker + 1) / std::size_t(workers);
}

}  // namespace pipescope::cuda
