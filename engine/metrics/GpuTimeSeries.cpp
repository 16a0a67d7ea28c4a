#include "metrics/GpuTimeSeries.h"

#include <algorithm>
#include <unordered_map>

#include "metrics/IntervalBinner.h"
#include "metrics/MultiGpuMetrics.h"

namespace pipescope {

namespace {

constexpr int kNoGpu = -1;
constexpr int kSeveralGpus = -2;

struct BatchEnd {
  std::int64_t end = 0;
  int gpu = kNoGpu;
};

}  // namespace

std::string gpuSeriesName(int device, const std::vector<RankInfo>& ranks) {
  std::string name = "GPU " + std::to_string(device);
  for (const RankInfo& r : ranks)
    if (r.device == device && r.rank >= 0) name = "Rank " + std::to_string(r.rank);
  return name;
}

void addGpuSeries(TimeSeries& ts, const TraceView& ops, const std::vector<Lane>& lanes,
                  const std::vector<RankInfo>& ranks) {
  ts.gpus.clear();
  ts.batchesSpanGpus = false;
  const std::size_t n = ts.size();
  if (n == 0) return;
  const int gpuCount = gpuCountOf(lanes);
  std::vector<int> laneGpu(lanes.size(), kSharedLane);
  for (std::size_t i = 0; i < lanes.size(); ++i) laneGpu[i] = lanes[i].device;
  const auto gpuOf = [&](std::uint16_t lane) {
    return lane < laneGpu.size() && laneGpu[lane] >= 0 && laneGpu[lane] < gpuCount ? laneGpu[lane] : kNoGpu;
  };

  // Each batch's completion (its last op's end, as TimeSeries counts it) and its GPU.
  std::unordered_map<std::int32_t, BatchEnd> batches;
  std::vector<Intervals> kernels(static_cast<std::size_t>(gpuCount));
  ops.forEach([&](const Op& op) {
    if (op.kind == OpKind::Annotation || op.end < op.start) return;
    int gpu = kNoGpu;
    if (isGpuKind(op.kind) && op.kind != OpKind::PeerCopy) {
      gpu = gpuOf(op.engineLane);
      if (gpu == kNoGpu) gpu = gpuOf(op.lane);
    }
    if (op.kind == OpKind::Kernel && gpu >= 0) kernels[std::size_t(gpu)].emplace_back(op.start, op.end);
    if (op.batch == kNoBatch) return;
    auto [it, inserted] = batches.try_emplace(op.batch, BatchEnd{op.end, gpu});
    if (inserted) return;
    BatchEnd& b = it->second;
    b.end = std::max(b.end, op.end);
    if (gpu == kNoGpu || b.gpu == gpu || b.gpu == kSeveralGpus) return;
    b.gpu = b.gpu == kNoGpu ? gpu : kSeveralGpus;
  });

  std::vector<std::int64_t> edges(ts.startNs.begin(), ts.startNs.end());
  edges.push_back(ts.endNs.back());
  ts.gpus.resize(std::size_t(gpuCount));
  for (int g = 0; g < gpuCount; ++g) {
    GpuSeries& s = ts.gpus[std::size_t(g)];
    s.device = g;
    s.name = gpuSeriesName(g, ranks);
    s.computeBusy.assign(n, 0.0);
  }
  for (const auto& [batch, b] : batches) ts.batchesSpanGpus = ts.batchesSpanGpus || b.gpu == kSeveralGpus;

  if (!ts.batchesSpanGpus) {
    for (GpuSeries& s : ts.gpus) s.batches.assign(n, 0);
    // Interval i is (edges[i], edges[i+1]]: a completion on an edge belongs to the
    // interval it ends, as the run's own count has it.
    for (const auto& [batch, b] : batches) {
      if (b.gpu < 0 || b.end <= edges.front() || b.end > edges.back()) continue;
      const auto at = std::lower_bound(edges.begin() + 1, edges.end(), b.end);
      ++ts.gpus[std::size_t(b.gpu)].batches[std::size_t(at - (edges.begin() + 1))];
    }
    for (GpuSeries& s : ts.gpus) {
      s.batchesPerSec.resize(n);
      s.samplesPerSec.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        s.batchesPerSec[i] = double(s.batches[i]) / (double(ts.endNs[i] - ts.startNs[i]) * 1e-9);
        s.samplesPerSec[i] = s.batchesPerSec[i] * double(ts.samplesPerBatch);
      }
    }
  }

  const IntervalBinner binner(edges);
  for (int g = 0; g < gpuCount; ++g) {
    GpuSeries& s = ts.gpus[std::size_t(g)];
    binner.addIntervals(s.computeBusy, mergeIntervals(std::move(kernels[std::size_t(g)])));
    for (std::size_t i = 0; i < n; ++i) s.computeBusy[i] /= double(ts.endNs[i] - ts.startNs[i]);
  }
}

}  // namespace pipescope
