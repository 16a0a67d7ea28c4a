#include "cuda/LinkComputeCalibration.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

#include "config/ModelWork.h"
#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/Kernels.h"
#include "metrics/Spread.h"
#include "sim/LinkComputeFit.h"

namespace pipescope::cuda {

namespace {

constexpr int kRounds = 5;
constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::size_t kComputeBytes = 4 * kMiB;
// Long enough at any PCIe or C2C rate in use (~1.3 ms at 50 GB/s) to cover the
// compute kernel, which slows while the two share the SMs.
constexpr std::size_t kLinkBytes = 64 * kMiB;

struct Durations {
  double compute = 0, link = 0;  ///< from the common start to each kernel's end
};

class Probe {
 public:
  explicit Probe(std::uint32_t fmas)
      : fmas_(fmas),
        mapped_(HostMemory::Mapped, kLinkBytes, "mapped host buffer"),
        linkOut_(kLinkBytes, "device buffer"),
        in_(kComputeBytes, "device buffer"),
        out_(kComputeBytes, "device buffer") {
    PIPESCOPE_CUDA_CHECK(cudaMemset(in_.get(), 0, kComputeBytes));
    std::fill_n(static_cast<char*>(mapped_.host()), kLinkBytes, 0);
  }

  /// Median over rounds of each kernel's time from the common start (0 = not run).
  /// `computeFirst`: the compute kernel is issued before the link kernel.
  Durations run(bool compute, bool link, bool computeFirst) {
    std::vector<double> c, l;
    for (int r = 0; r <= kRounds; ++r) {  // round 0 warms up, left out
      PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(start_.get(), fork_.get()));
      // Both streams start from the same event: the kernels run side by side.
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(computeStream_.get(), start_.get(), 0));
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(linkStream_.get(), start_.get(), 0));
      auto issueCompute = [&] {
        if (!compute) return;
        const std::size_t n = kComputeBytes / sizeof(float);
        PIPESCOPE_CUDA_CHECK(launchModel(static_cast<const float*>(in_.get()), n, static_cast<float*>(out_.get()),
                                         n, fmas_, computeStream_.get()));
        PIPESCOPE_CUDA_CHECK(cudaEventRecord(computeEnd_.get(), computeStream_.get()));
      };
      auto issueLink = [&] {
        if (!link) return;
        PIPESCOPE_CUDA_CHECK(launchNormalize(static_cast<const float*>(mapped_.device()),
                                             static_cast<float*>(linkOut_.get()), kLinkBytes / sizeof(float),
                                             linkStream_.get()));
        PIPESCOPE_CUDA_CHECK(cudaEventRecord(linkEnd_.get(), linkStream_.get()));
      };
      if (computeFirst) {
        issueCompute();
        issueLink();
      } else {
        issueLink();
        issueCompute();
      }
      PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      if (r == 0) continue;
      if (compute) c.push_back(elapsedNs(computeEnd_));
      if (link) l.push_back(elapsedNs(linkEnd_));
    }
    return {c.empty() ? 0.0 : spreadOf(c).median, l.empty() ? 0.0 : spreadOf(l).median};
  }

 private:
  double elapsedNs(const Event& end) const {
    float ms = 0;
    PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), end.get()));
    return double(ms) * 1e6;
  }

  std::uint32_t fmas_;
  HostBuffer mapped_;
  DeviceBuffer linkOut_, in_, out_;
  Stream fork_ = Stream::create(), computeStream_ = Stream::create(), linkStream_ = Stream::create();
  Event start_ = Event::create(true), computeEnd_ = Event::create(true), linkEnd_ = Event::create(true);
};

std::string us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  return buf;
}

}  // namespace

double calibrateLinkCompute(double modelGflops, const std::function<void(const std::string&)>& log) {
  // About 300 us of work: flop/byte = time x GFLOP/s / bytes.
  const double flopsPerByte = std::clamp(300e3 * modelGflops / double(kComputeBytes), 4.0, 1e6);
  Probe probe(modelFmasPerElement(flopsPerByte));
  const double computeAlone = probe.run(true, false, true).compute;
  const double linkAlone = probe.run(false, true, true).link;
  // Whichever kernel the GPU takes first holds SMs when the other arrives: both orders.
  const Durations linkFirst = probe.run(true, true, false), computeFirst = probe.run(true, true, true);
  const double weight = (linkKernelSmWeightFrom(computeAlone, linkFirst.compute, linkFirst.link) +
                         linkKernelSmWeightFrom(computeAlone, computeFirst.compute, computeFirst.link)) /
                        2;
  if (log) {
    char w[16];
    std::snprintf(w, sizeof w, "%.2f", weight);
    log("mapped read beside a compute kernel: model kernel " + us(computeAlone) + " alone, " +
        us(linkFirst.compute) + " / " + us(computeFirst.compute) + " beside (link kernel issued first / second); " +
        "mapped read of 64 MiB " + us(linkAlone) + " alone, " + us(linkFirst.link) + " / " + us(computeFirst.link) +
        " beside -> a link kernel keeps " + w + " compute kernels' worth of SMs");
  }
  return weight;
}

}  // namespace pipescope::cuda
