#pragma once
// The SMs a kernel waiting on the host link keeps from a compute kernel beside it
// (DeviceProfile::linkKernelSmWeight), from one probe: the compute kernel alone, then
// started together with one link-bound kernel on another stream.

namespace pipescope {

/// The weight w for which a compute kernel of `computeAloneNs` runs at 1 / (1 + w)
/// while the link kernel runs (the first `min(linkBesideNs, computeBesideNs)` of its
/// `computeBesideNs`, both started together) and at full rate after. Clamped to 0..4;
/// 0 when the compute kernel was not slower beside it.
double linkKernelSmWeightFrom(double computeAloneNs, double computeBesideNs, double linkBesideNs);

}  // namespace pipescope
