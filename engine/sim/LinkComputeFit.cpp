#include "sim/LinkComputeFit.h"

#include <algorithm>

namespace pipescope {

double linkKernelSmWeightFrom(double computeAloneNs, double computeBesideNs, double linkBesideNs) {
  if (computeAloneNs <= 0 || computeBesideNs <= computeAloneNs || linkBesideNs <= 0) return 0.0;
  // Beside the link kernel for `overlap`, at 1 / (1 + w); alone for the rest, at 1:
  // overlap / (1 + w) + (computeBesideNs - overlap) = computeAloneNs.
  const double overlap = std::min(linkBesideNs, computeBesideNs);
  const double progress = computeAloneNs - (computeBesideNs - overlap);
  if (progress <= 0) return 4.0;  // all its work after the link kernel ended: as slow as it gets
  return std::clamp(overlap / progress - 1.0, 0.0, 4.0);
}

}  // namespace pipescope
