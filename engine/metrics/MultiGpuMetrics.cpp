#include "metrics/MultiGpuMetrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "metrics/Intervals.h"

namespace pipescope {

namespace {

std::string fmtMs(double ns) {
  char b[32];
  if (ns >= 1e6)
    std::snprintf(b, sizeof b, "%.2f ms", ns / 1e6);
  else
    std::snprintf(b, sizeof b, "%.1f µs", ns / 1e3);
  return b;
}

/// What one GPU's ops covered, sorted out by what they mean.
struct GpuCollected {
  Intervals kernel, h2d, d2h, collective, peer, all;
  Intervals host;  // merged ranks: the rank's own host work (CPU stages, API calls)
  std::set<std::int32_t> batches;
  double collectiveOpNs = 0;  // summed per-GPU collective op durations (waits for the peers included)
  std::int64_t collectiveOps = 0;
};

struct Candidate {
  double ns = 0;
  std::string name;
  std::string why;
};

}  // namespace

int gpuCountOf(const std::vector<Lane>& lanes) {
  int n = 1;
  for (const Lane& l : lanes) n = std::max(n, l.device + 1);
  return n;
}

MultiGpuMetrics computeMultiGpuMetrics(const MultiGpuInput& in) {
  MultiGpuMetrics m;
  m.gpus = gpuCountOf(in.lanes);
  const auto gpuName = [&](int g) {
    const int ordinal = g < int(in.devices.size()) ? in.devices[std::size_t(g)].ordinal : g;
    std::string name = "GPU" + std::to_string(ordinal);
    for (const RankInfo& r : in.ranks)
      if (r.device == g && r.rank >= 0) name = "rank " + std::to_string(r.rank) + " · " + name;
    return name;
  };
  const bool mergedRanks = in.ranks.size() > 1;
  const auto rankName = [&](int g) {
    for (const RankInfo& r : in.ranks)
      if (r.device == g && r.rank >= 0) return "rank " + std::to_string(r.rank);
    return gpuName(g);
  };
  const bool windowed = in.toNs > in.fromNs;
  std::vector<GpuCollected> gpu(std::size_t(m.gpus));
  std::vector<Intervals> linkBusy(in.lanes.size());
  std::vector<std::uint64_t> linkBytes(in.lanes.size(), 0);
  std::int64_t peerCopies = 0;

  in.ops.forEach([&](const Op& op) {
    const bool hostWork = op.kind == OpKind::ApiCall || op.kind == OpKind::Preprocess || op.kind == OpKind::Postprocess;
    if ((!isGpuKind(op.kind) && !(mergedRanks && hostWork)) || op.end < op.start) return;
    std::int64_t s = op.start, e = op.end;
    if (windowed) {
      s = std::max(s, in.fromNs);
      e = std::min(e, in.toNs);
      if (e <= s) return;
    }
    const Lane* lane = op.lane < in.lanes.size() ? &in.lanes[op.lane] : nullptr;
    if (hostWork) {
      // Each rank's host threads are its own (RankMerge puts them on its device).
      if (lane && lane->device >= 0 && lane->device < m.gpus) gpu[std::size_t(lane->device)].host.emplace_back(s, e);
      return;
    }
    const Lane* engine = op.engineLane < in.lanes.size() ? &in.lanes[op.engineLane] : nullptr;
    if (lane && lane->kind == LaneKind::Collective) {
      // The call as a whole: its bytes moved over the links in this time.
      ++m.collectives;
      m.collectiveBytes += op.bytes;
      m.collectiveNs += double(e - s);
      return;
    }
    const int device = lane && lane->device >= 0 ? lane->device : engine && engine->device >= 0 ? engine->device : 0;
    if (device >= m.gpus) return;
    GpuCollected& g = gpu[std::size_t(device)];
    g.all.emplace_back(s, e);
    switch (op.kind) {
      case OpKind::Kernel:
        g.kernel.emplace_back(s, e);
        if (op.batch != kNoBatch) g.batches.insert(op.batch);
        break;
      case OpKind::CopyH2D: g.h2d.emplace_back(s, e); break;
      case OpKind::CopyD2H: g.d2h.emplace_back(s, e); break;
      case OpKind::Collective:
        g.collective.emplace_back(s, e);
        g.collectiveOpNs += double(e - s);
        ++g.collectiveOps;
        break;
      case OpKind::PeerCopy:
        g.peer.emplace_back(s, e);
        ++peerCopies;
        if (engine && engine->kind == LaneKind::PeerLink) {
          linkBusy[op.engineLane].emplace_back(s, e);
          linkBytes[op.engineLane] += op.bytes;
        }
        break;
      default: break;
    }
  });

  const double span = in.makespanNs;
  auto frac = [span](double ns) { return span > 0 ? ns / span : 0.0; };
  m.pipeline = in.config ? in.config->parallel == ParallelMode::Pipeline : peerCopies > 0;

  // Per GPU: busy, communication, and the part of it no kernel hid.
  double idleSum = 0;
  for (int d = 0; d < m.gpus; ++d) {
    GpuCollected& c = gpu[std::size_t(d)];
    GpuFigures f;
    f.device = d;
    f.name = gpuName(d);
    f.batches = std::int64_t(c.batches.size());
    const Intervals kernel = mergeIntervals(c.kernel);
    const Intervals comm = mergeIntervals(uniteMerged(mergeIntervals(c.collective), mergeIntervals(c.peer)));
    f.busy = frac(totalLength(mergeIntervals(c.all)));
    f.computeBusy = frac(totalLength(kernel));
    f.h2dBusy = frac(totalLength(mergeIntervals(c.h2d)));
    f.d2hBusy = frac(totalLength(mergeIntervals(c.d2h)));
    f.commNs = totalLength(comm);
    f.overlappedCommNs = totalLength(intersectMerged(comm, kernel));
    f.exposedCommNs = f.commNs - f.overlappedCommNs;
    f.commBusy = frac(f.commNs);
    m.commNs += f.commNs;
    m.exposedCommNs += f.exposedCommNs;
    m.overlappedCommNs += f.overlappedCommNs;
    idleSum += 1.0 - f.computeBusy;
    m.serialNs = std::max(m.serialNs, totalLength(mergeIntervals(c.h2d)) + totalLength(kernel) +
                                          totalLength(mergeIntervals(c.d2h)) + f.commNs +
                                          (mergedRanks ? totalLength(mergeIntervals(c.host)) : 0.0));
    m.perGpu.push_back(std::move(f));
  }
  if (!mergedRanks) m.serialNs += in.hostPerBatchNs * double(in.batches);
  m.commOverlap = m.commNs > 0 ? m.overlappedCommNs / m.commNs : 0.0;
  m.exposedCommFraction = frac(m.exposedCommNs / m.gpus);
  m.idleCompute = idleSum / m.gpus;
  if (m.collectiveNs > 0 && m.gpus > 1)
    m.allreduceBusGBps = double(m.collectiveBytes) / m.collectiveNs * 2.0 * (m.gpus - 1) / m.gpus;

  for (std::size_t l = 0; l < in.lanes.size(); ++l) {
    const Lane& lane = in.lanes[l];
    if (lane.kind != LaneKind::PeerLink) continue;
    LinkFigures f;
    f.lane = lane.id;
    f.name = lane.name;
    f.from = lane.device;
    f.to = lane.index;
    f.busyNs = totalLength(mergeIntervals(linkBusy[l]));
    f.busy = frac(f.busyNs);
    f.bytes = linkBytes[l];
    f.gbpsBusy = f.busyNs > 0 ? double(f.bytes) / f.busyNs : 0.0;
    m.links.push_back(std::move(f));
  }

  // The ideal bound: every resource's own lower bound, the largest wins. In a window
  // (a sweep's measured batches, a selection) the first batch's earlier stages may lie
  // before it, so only each resource's own work counts there, without fill and drain.
  const double fill = windowed ? 0.0 : 1.0;
  std::vector<Candidate> candidates;
  if (mergedRanks) {
    // Every rank has its own host: the busiest rank's host work, not all of theirs.
    for (int d = 0; d < m.gpus; ++d) {
      const double hostNs = totalLength(mergeIntervals(gpu[std::size_t(d)].host));
      if (hostNs > 0)
        candidates.push_back(
            {hostNs, rankName(d) + "'s host", "its host threads work " + fmtMs(hostNs) + " (CPU work and CUDA calls)"});
    }
  } else if (in.hostPerBatchNs > 0 && in.batches > 0)
    candidates.push_back({in.hostPerBatchNs * double(in.batches), "the host",
                          "the one host thread issues every GPU's work: " + fmtMs(in.hostPerBatchNs) + " per batch x " +
                              std::to_string(in.batches) + " batches"});
  if (m.pipeline) {
    // GPipe with a flush per batch: each batch fills and drains the stages. Per
    // micro-batch: the H2D to the first GPU, each stage's kernels, each hand-off, the
    // D2H from the last GPU. A batch takes at least one micro-batch's whole path plus
    // (M - 1) times the slowest of those resources.
    const int micro = in.config ? in.config->microBatches : 1;
    m.microBatches = micro;
    m.gpipeBubble = double(m.gpus - 1) / double(micro + m.gpus - 1);
    const double units = double(std::max<std::int64_t>(in.batches, 1)) * micro;
    double path = 0, slowest = 0;
    std::string slowestName;
    auto stage = [&](double ns, const std::string& name) {
      path += ns;
      if (ns > slowest) slowest = ns, slowestName = name;
    };
    stage(totalLength(mergeIntervals(gpu[0].h2d)) / units, gpuName(0) + "'s H2D copy engine");
    for (int d = 0; d < m.gpus; ++d) {
      stage(totalLength(mergeIntervals(gpu[std::size_t(d)].kernel)) / units, gpuName(d) + "'s compute engine");
      for (const LinkFigures& l : m.links)
        if (l.from == d) stage(l.busyNs / units, "the " + l.name + " link");
    }
    stage(totalLength(mergeIntervals(gpu[std::size_t(m.gpus - 1)].d2h)) / units,
          gpuName(m.gpus - 1) + "'s D2H copy engine");
    if (in.batches > 0 && path > 0)
      candidates.push_back({double(in.batches) * (fill * path + (micro - 1 + (1 - fill)) * slowest), slowestName,
                            "each batch's " + std::to_string(micro) + " micro-batches pass " + std::to_string(m.gpus) +
                                " stages: one micro-batch's whole path (" + fmtMs(path) + ") plus " +
                                std::to_string(micro - 1) + " x the slowest stage (" + fmtMs(slowest) +
                                "), then the pipeline drains before the next batch"});
  } else {
    // Data parallel: each GPU runs its own batches; a step's all-reduce follows its
    // kernels (the last bucket after the last kernel) and the next step's kernels wait
    // for it, so kernels and all-reduce form one chain per step; buckets shorten the
    // part of the all-reduce that cannot overlap.
    const int buckets = in.config ? in.config->buckets : 1;
    // Merged ranks have no communicator lane, and each rank's collectives last until the
    // last rank joins: the rank that waited least (the last to join) shows the
    // all-reduce's own time per step, the same data movement for every rank.
    double ownCommPerStep = -1;
    if (mergedRanks && m.collectives == 0)
      for (const GpuCollected& c : gpu)
        if (!c.batches.empty() && c.collectiveOps > 0) {
          const double perStep = c.collectiveOpNs / double(c.batches.size());
          ownCommPerStep = ownCommPerStep < 0 ? perStep : std::min(ownCommPerStep, perStep);
        }
    for (int d = 0; d < m.gpus; ++d) {
      const GpuCollected& c = gpu[std::size_t(d)];
      const double n = double(c.batches.size());
      if (n <= 0) continue;
      const double h = totalLength(mergeIntervals(c.h2d)) / n, k = totalLength(mergeIntervals(c.kernel)) / n,
                   dd = totalLength(mergeIntervals(c.d2h)) / n;
      // The data movement of the all-reduce per step: the communicator's calls when the
      // trace has them (each GPU's own op also holds its wait for the others).
      double comm = 0;
      if (m.collectives > 0)
        comm = m.collectiveNs / n;
      else if (ownCommPerStep >= 0)
        comm = c.collectiveOps > 0 ? ownCommPerStep : 0.0;
      else if (c.collectiveOps > 0)
        comm = c.collectiveOpNs / n;
      const int kb = std::max(1, buckets);
      const double tail = comm / kb;
      const double chain = kb <= 1 ? k + comm : std::max(k + tail, comm + k / kb);
      const std::string gname = gpuName(d);
      const std::string chainName = comm > 0 ? gname + "'s kernels and all-reduce" : gname + "'s compute engine";
      if (in.copyEngines <= 1) {
        candidates.push_back({n * (h + dd) + fill * (k + tail), gname + "'s copy engine",
                              "its copies take " + fmtMs(h + dd) + " per batch x " + std::to_string(c.batches.size()) +
                                  " batches"});
      } else {
        candidates.push_back({n * h + fill * (k + std::max(dd, tail)), gname + "'s H2D copy engine",
                              "its H2D copies take " + fmtMs(h) + " per batch x " + std::to_string(c.batches.size()) +
                                  " batches"});
        candidates.push_back({fill * (h + k) + n * dd, gname + "'s D2H copy engine",
                              "its D2H copies take " + fmtMs(dd) + " per batch x " + std::to_string(c.batches.size()) +
                                  " batches"});
      }
      const std::string chainWhy =
          comm > 0 ? "kernels " + fmtMs(k) + " and all-reduce " + fmtMs(comm) + " per step" +
                         (kb <= 1 ? " run one after the other (one all-reduce after the kernels)"
                                  : " in " + std::to_string(kb) + " buckets: at least " + fmtMs(chain) +
                                        " per step, the last bucket after the last kernel") +
                         ", x " + std::to_string(c.batches.size()) + " steps"
                   : "its kernels take " + fmtMs(k) + " per batch x " + std::to_string(c.batches.size()) + " batches";
      candidates.push_back({fill * (h + std::max(0.0, dd - tail)) + n * chain, chainName, chainWhy});
    }
  }
  const auto best = std::max_element(candidates.begin(), candidates.end(),
                                     [](const Candidate& a, const Candidate& b) { return a.ns < b.ns; });
  if (best != candidates.end() && best->ns > 0) {
    m.idealBoundNs = best->ns;
    m.critical = best->name;
    std::string name = best->name;
    if (!name.empty()) name[0] = char(std::toupper(static_cast<unsigned char>(name[0])));
    m.criticalSentence = name + " is critical: " + best->why + ", so even with every resource overlapped the run " +
                         "takes at least " + fmtMs(best->ns) + ".";
  }
  return m;
}

}  // namespace pipescope
