#pragma once
// The custom model kernel's two rates, fitted from its durations at several
// intensities: its FLOP rate, and the rate of its own loads and stores, which add to
// its FLOP time instead of hiding behind it (DeviceProfile::modelMemoryGBps).

#include <vector>

namespace pipescope {

/// One timed run of the model kernel: its work and its GPU time beyond the fixed cost.
struct ModelKernelSample {
  double flops = 0;
  double bytes = 0;  ///< read + written
  double ns = 0;
};

struct ModelKernelRates {
  double gflops = 0;
  double memoryGBps = 0;  ///< 0 = the loads hid behind the compute: time = max of the two
  /// Largest relative miss of the fit over the samples (how well the form holds).
  double worstRelativeError = 0;
};

/// Least squares on the relative error of ns = flops / gflops + bytes / memoryGBps.
/// Needs two samples of different intensity; when the fitted memory term comes out
/// zero or negative, only the FLOP rate is fitted (memoryGBps = 0). Throws
/// std::invalid_argument on fewer than two usable samples.
ModelKernelRates fitModelKernelRates(const std::vector<ModelKernelSample>& samples);

}  // namespace pipescope
