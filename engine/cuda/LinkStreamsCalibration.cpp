#include "cuda/LinkStreamsCalibration.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/CudaError.h"
#include "cuda/CudaResources.h"
#include "cuda/Kernels.h"
#include "metrics/Spread.h"

namespace pipescope::cuda {

namespace {

constexpr int kRounds = 5;
constexpr int kStreamCounts[] = {1, 2, 4, 8};

/// GPU time from the common start to the last of `streams` kernels' ends, median over
/// rounds; `touch` runs before each round (the CPU writing managed pages back).
double togetherNs(HostMemory memory, std::size_t bytes, int streams, const std::function<void(void*)>& touch) {
  const std::size_t n = bytes / sizeof(float);
  std::vector<Stream> st;
  std::vector<HostBuffer> in;
  std::vector<DeviceBuffer> out;
  std::vector<Event> ends;
  for (int s = 0; s < streams; ++s) {
    st.push_back(Stream::create());
    in.emplace_back(memory, bytes, "link-bound kernel input");
    out.emplace_back(bytes, "link-bound kernel output");
    ends.push_back(Event::create(true));
  }
  Stream fork = Stream::create();
  Event start = Event::create(true);
  std::vector<double> rounds;
  for (int r = 0; r <= kRounds; ++r) {  // round 0: first touch on the GPU side, left out
    PIPESCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    if (touch)
      for (HostBuffer& b : in) touch(b.host());
    PIPESCOPE_CUDA_CHECK(cudaEventRecord(start.get(), fork.get()));
    for (int s = 0; s < streams; ++s) {
      // Every stream starts from the same event: the kernels run side by side.
      PIPESCOPE_CUDA_CHECK(cudaStreamWaitEvent(st[std::size_t(s)].get(), start.get(), 0));
      PIPESCOPE_CUDA_CHECK(launchNormalize(static_cast<const float*>(in[std::size_t(s)].device()),
                                           static_cast<float*>(out[std::size_t(s)].get()), n,
                                           st[std::size_t(s)].get()));
      PIPESCOPE_CUDA_CHECK(cudaEventRecord(ends[std::size_t(s)].get(), st[std::size_t(s)].get()));
    }
    double last = 0;
    for (Event& e : ends) {
      PIPESCOPE_CUDA_CHECK(cudaEventSynchronize(e.get()));
      float ms = 0;
      PIPESCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), e.get()));
      last = std::max(last, double(ms) * 1e6);
    }
    if (r > 0) rounds.push_back(last);
  }
  return spreadOf(rounds).median;
}

std::vector<StreamSpeedup> speedups(HostMemory memory, std::size_t bytes, const std::function<void(void*)>& touch,
                                    const char* what, const std::function<void(const std::string&)>& log) {
  std::vector<StreamSpeedup> curve;
  double alone = 0;
  std::string line = std::string(what) + " on N streams at once, together vs one alone:";
  for (int streams : kStreamCounts) {
    const double t = togetherNs(memory, bytes, streams, touch);
    if (streams == 1) alone = t;
    // N kernels' work in the time they took, against one kernel's work in its time.
    const double speedup = std::clamp(alone * streams / std::max(t, 1.0), 1.0, double(streams));
    if (streams > 1) curve.push_back({streams, speedup});
    char buf[96];
    std::snprintf(buf, sizeof buf, " %d=%.1fus (%.2fx)", streams, t / 1e3, streams == 1 ? 1.0 : speedup);
    line += buf;
  }
  if (log) log(line);
  return curve;
}

}  // namespace

LinkStreamsCalibration calibrateLinkStreams(const std::function<void(const std::string&)>& log) {
  LinkStreamsCalibration c;
  for (std::size_t bytes : kManagedFaultStreamsSizes) {
    // The CPU writes every page before each round, so each kernel faults them all in.
    const std::string what = "normalize faulting " + std::to_string(bytes >> 20) + " MiB of managed pages in";
    c.managedFaultBySize.push_back(
        {bytes, speedups(
                    HostMemory::Managed, bytes, [bytes](void* p) { std::memset(p, 1, bytes); }, what.c_str(), log)});
  }
  c.managedFault = c.managedFaultBySize.front().curve;
  c.mapped = speedups(HostMemory::Mapped, std::size_t(2) << 20, {}, "normalize reading 2 MiB of mapped memory", log);
  return c;
}

}  // namespace pipescope::cuda
