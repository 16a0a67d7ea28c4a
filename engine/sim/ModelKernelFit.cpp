#include "sim/ModelKernelFit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pipescope {

ModelKernelRates fitModelKernelRates(const std::vector<ModelKernelSample>& samples) {
  // Weighted by 1/ns so each sample's relative error counts alike: minimise
  // sum (1 - a_i x - b_i y)^2 with a = flops/ns, b = bytes/ns, x = 1/gflops, y = 1/GBps.
  double aa = 0, ab = 0, bb = 0, a1 = 0, b1 = 0;
  int used = 0;
  for (const ModelKernelSample& s : samples) {
    if (!(s.ns > 0) || !(s.flops > 0) || !(s.bytes >= 0)) continue;
    const double a = s.flops / s.ns, b = s.bytes / s.ns;
    aa += a * a;
    ab += a * b;
    bb += b * b;
    a1 += a;
    b1 += b;
    ++used;
  }
  if (used < 2) throw std::invalid_argument("model kernel fit: needs two timed runs with work, got " +
                                            std::to_string(used));
  ModelKernelRates r;
  const double det = aa * bb - ab * ab;
  const double x = det > 0 ? (a1 * bb - b1 * ab) / det : 0.0;
  const double y = det > 0 ? (aa * b1 - ab * a1) / det : 0.0;
  if (x > 0 && y > 0) {
    r.gflops = 1.0 / x;
    r.memoryGBps = 1.0 / y;
  } else {
    r.gflops = aa > 0 ? aa / a1 : 0.0;  // FLOP time alone: x = sum a / sum a^2
  }
  for (const ModelKernelSample& s : samples) {
    if (!(s.ns > 0) || !(s.flops > 0)) continue;
    const double predicted = s.flops / r.gflops + (r.memoryGBps > 0 ? s.bytes / r.memoryGBps : 0.0);
    r.worstRelativeError = std::max(r.worstRelativeError, std::abs(predicted / s.ns - 1.0));
  }
  return r;
}

}  // namespace pipescope
