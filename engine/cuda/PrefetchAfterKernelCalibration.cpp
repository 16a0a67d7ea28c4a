#include "cuda/PrefetchAfterKernelCalibration.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>

#include "config/ModelWork.h"
#include "cuda/CalibrationProbes.h"
#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/Kernels.h"
#include "metrics/Spread.h"

namespace pipescope::cuda {

namespace {

// Four calibrations with 7 rounds and the difference of three medians read 0-282 us
// on one host; the median of the rounds' own differences over more rounds holds still.
constexpr int kRounds = 15;
constexpr std::size_t kBytes = std::size_t(1) << 20;

struct Times {
  double both = 0, kernel = 0, prefetch = 0;  // medians over the rounds
  double extra = 0;  // median over the rounds of both - kernel - prefetch, 0 or more
};

class Probe {
 public:
  Probe(int device, std::uint32_t fmas)
      : fmas_(fmas), managed_(HostMemory::Managed, kBytes, "managed buffer"), in_(kBytes, "device buffer") {
    PIPESCOPE_CUDA_CHECK(cudaMemset(in_.get(), 0, kBytes));
    onDevice_.type = cudaMemLocationTypeDevice;
    onDevice_.id = device;
    onHost_.type = cudaMemLocationTypeHost;
    onHost_.id = 0;
  }

  /// Medians of the three measurements, interleaved round by round, and the median of
  /// each round's extra time (a round's three are taken together, so a slow spell of
  /// the host moves all three alike and cancels); `pagesOnHost`: the
  /// CPU writes the pages before each (the kernel faults them in), else they are
  /// prefetched to the GPU first.
  Times measure(bool pagesOnHost) {
    const cudaStream_t st = stream_.get();
    auto place = [&] {
      if (pagesOnHost)
        std::memset(managed_.host(), 1, kBytes);
      else
        PIPESCOPE_CUDA_CHECK(cudaMemPrefetchAsync(managed_.device(), kBytes, onDevice_, 0, st));
    };
    std::vector<double> both, kernel, prefetch, extra;
    for (int r = 0; r <= kRounds; ++r) {  // round 0 warms up, left out
      const double b = eventTimedNs(st, 1, place, [&] {
        launch();
        home();
      });
      const double k = eventTimedNs(st, 1, place, [&] { launch(); });
      // The same pages written, then the prefetch alone once the kernel is done (the
      // timing synchronizes the stream after `before`).
      const double p = eventTimedNs(
          st, 1,
          [&] {
            place();
            launch();
          },
          [&] { home(); });
      if (r == 0) continue;
      both.push_back(b);
      kernel.push_back(k);
      prefetch.push_back(p);
      extra.push_back(b - k - p);
    }
    return {spreadOf(both).median, spreadOf(kernel).median, spreadOf(prefetch).median,
            std::max(0.0, spreadOf(extra).median)};
  }

 private:
  void launch() {
    const std::size_t n = kBytes / sizeof(float);
    PIPESCOPE_CUDA_CHECK(launchModel(static_cast<const float*>(in_.get()), n, static_cast<float*>(managed_.device()),
                                     n, fmas_, stream_.get()));
  }
  void home() { PIPESCOPE_CUDA_CHECK(cudaMemPrefetchAsync(managed_.device(), kBytes, onHost_, 0, stream_.get())); }

  std::uint32_t fmas_;
  HostBuffer managed_;
  DeviceBuffer in_;
  cudaMemLocation onDevice_{}, onHost_{};
  Stream stream_ = Stream::create();
};

std::string line(const char* what, const Times& t) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s: kernel %.1f us, prefetch alone %.1f us, both %.1f us -> %.1f us more (median of the rounds)", what,
                t.kernel / 1e3, t.prefetch / 1e3, t.both / 1e3, t.extra / 1e3);
  return buf;
}

}  // namespace

double calibratePrefetchAfterKernel(int device, double modelGflops,
                                    const std::function<void(const std::string&)>& log) {
  // About 200 us of work: long enough that the prefetch is queued while it runs.
  const double flopsPerByte = std::clamp(200e3 * modelGflops / double(kBytes), 4.0, 1e6);
  Probe probe(device, modelFmasPerElement(flopsPerByte));
  const Times faulted = probe.measure(true), resident = probe.measure(false);
  if (log) {
    log(line("prefetch of 1 MiB of managed pages to the host queued behind the kernel that wrote them "
             "(pages faulted in)",
             faulted));
    log(line("the same with the pages already on the GPU", resident));
  }
  return faulted.extra;
}

}  // namespace pipescope::cuda
