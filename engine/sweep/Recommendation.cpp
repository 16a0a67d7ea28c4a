#include "sweep/Recommendation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace pipescope {

namespace {

std::string pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", fraction * 100.0);
  return buf;
}

std::string signedPct(double gain) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", gain * 100.0);
  return buf;
}

std::string rate(double samplesPerSec) {
  char buf[32];
  if (samplesPerSec >= 1e6) std::snprintf(buf, sizeof buf, "%.3g M samples/s", samplesPerSec / 1e6);
  else if (samplesPerSec >= 1e3) std::snprintf(buf, sizeof buf, "%.3g k samples/s", samplesPerSec / 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g samples/s", samplesPerSec);
  return buf;
}

/// "the compute engine is saturated (98% busy)": why more of the same does not help.
std::string saturation(const SweepPointResult& p) {
  switch (p.bottleneck) {
    case Bottleneck::CopyBound:
    case Bottleneck::ComputeBound:
    case Bottleneck::HostBound:
    case Bottleneck::CommunicationBound: return limitingResource(p) + " is saturated";
    case Bottleneck::LatencyBound: return "the pipeline is latency-bound (" + limitingResource(p) + ")";
    case Bottleneck::Unknown: break;
  }
  return "nothing measurable limits it";
}

double thr(const SweepPointResult& p) { return p.samplesPerSec.median; }

using BlockKey = std::tuple<HostMemory, ModelPreset, int, int, int>;
BlockKey blockOf(const SweepPointResult& p) {
  return {p.config.memory, p.config.model, p.config.gpuCount(), p.config.buckets, p.config.microBatches};
}

/// The configuration with its GPUs set aside: points equal on this differ only in GPUs
/// (and in the batches that make whole steps on them).
PipelineConfig withoutGpus(PipelineConfig c) {
  c.devices.clear();
  c.batchCount = 0;
  return c;
}

}  // namespace

std::string limitingResource(const SweepPointResult& p) {
  switch (p.bottleneck) {
    case Bottleneck::CopyBound:
      if (p.copyEngines <= 1) return "the copy engine (" + pct(p.copyBusy) + " busy)";
      return p.h2dBusy >= p.d2hBusy ? "the H2D copy engine (" + pct(p.h2dBusy) + " busy)"
                                    : "the D2H copy engine (" + pct(p.d2hBusy) + " busy)";
    case Bottleneck::ComputeBound: return "the compute engine (" + pct(p.computeBusy) + " busy)";
    case Bottleneck::HostBound:
      return p.workersBusy >= p.submitBusy ? "the CPU workers (" + pct(p.workersBusy) + " busy)"
                                           : "the submit thread (" + pct(p.submitBusy) + " busy)";
    case Bottleneck::CommunicationBound: return "the communication between the GPUs";
    case Bottleneck::LatencyBound: {
      const double busiest = std::max({p.h2dBusy, p.d2hBusy, p.computeBusy, p.submitBusy, p.workersBusy});
      return "no engine busier than " + pct(busiest);
    }
    case Bottleneck::Unknown: break;
  }
  return "no limit found";
}

Recommendation recommend(const SweepResult& result, double tolerance) {
  Recommendation rec;
  std::vector<const SweepPointResult*> ok;
  for (const auto& p : result.points)
    if (p.ok()) ok.push_back(&p);
  if (ok.empty()) {
    rec.sentence = "No point finished, so there is nothing to recommend.";
    return rec;
  }
  rec.valid = true;
  const SweepPointResult* best = ok.front();
  for (const auto* p : ok)
    if (thr(*p) > thr(*best) || (thr(*p) == thr(*best) && p->footprintBytes < best->footprintBytes)) best = p;
  const SweepPointResult* chosen = best;
  for (const auto* p : ok) {
    if (thr(*p) < thr(*best) * (1.0 - tolerance)) continue;
    const auto key = [](const SweepPointResult* q) { return std::make_tuple(q->footprintBytes, q->config.streams, -thr(*q)); };
    if (key(p) < key(chosen)) chosen = p;
  }
  rec.bestIndex = best->index;
  rec.chosenIndex = chosen->index;
  rec.bestSamplesPerSec = thr(*best);
  rec.chosenSamplesPerSec = thr(*chosen);

  // Why not bigger: the best gain any point with more streams (same batch) or a larger
  // batch (same streams) has over the chosen one.
  std::optional<double> moreStreams, largerBatch;
  for (const auto* p : ok) {
    if (blockOf(*p) != blockOf(*chosen)) continue;
    const double gain = thr(*chosen) > 0 ? thr(*p) / thr(*chosen) - 1.0 : 0.0;
    if (p->config.batchSamples == chosen->config.batchSamples && p->config.streams > chosen->config.streams)
      moreStreams = std::max(moreStreams.value_or(-1.0), gain);
    if (p->config.streams == chosen->config.streams && p->config.batchSamples > chosen->config.batchSamples)
      largerBatch = std::max(largerBatch.value_or(-1.0), gain);
  }
  // Scaling efficiency of every multi-GPU point against its one-GPU twin.
  for (const auto* p : ok) {
    const int gpus = p->config.gpuCount();
    if (gpus < 2) continue;
    for (const auto* q : ok)
      if (q->config.gpuCount() == 1 && withoutGpus(q->config) == withoutGpus(p->config) && thr(*q) > 0) {
        rec.scaling.push_back({p->index, q->index, gpus, thr(*p) / (gpus * thr(*q))});
        break;
      }
  }
  std::string s = "Use " + result.label(*chosen) + " (" + rate(thr(*chosen)) + ", " +
                  (chosen == best ? std::string("the best measured")
                                  : pct(thr(*chosen) / thr(*best)) + " of the best, " + result.label(*best)) +
                  ", " + formatBytes(chosen->footprintBytes) + " of buffers)";
  std::vector<std::string> reasons;
  if (moreStreams)
    reasons.push_back("beyond " + std::to_string(chosen->config.streams) + (chosen->config.streams == 1 ? " stream " : " streams ") +
                      saturation(*chosen) + ": " + signedPct(*moreStreams));
  if (largerBatch) reasons.push_back("larger batches change throughput by " + signedPct(*largerBatch));
  if (reasons.empty()) reasons.push_back(limitingResource(*chosen) + " limits it");
  s += ": " + reasons.front();
  for (std::size_t i = 1; i < reasons.size(); ++i) s += (i + 1 == reasons.size() ? ", and " : ", ") + reasons[i];
  for (const ScalingPoint& sp : rec.scaling)
    if (sp.pointIndex == chosen->index)
      s += "; scaling efficiency " + pct(sp.efficiency) + " on " + std::to_string(sp.gpus) + " GPUs";
  rec.sentence = s + ".";
  if (result.gridVariesGpus()) {
    // The chosen setup at every GPU count the grid measured.
    std::vector<const ScalingPoint*> family;
    for (const ScalingPoint& sp : rec.scaling) {
      const SweepPointResult* p = result.point(sp.pointIndex);
      if (p && withoutGpus(p->config) == withoutGpus(chosen->config)) family.push_back(&sp);
    }
    std::sort(family.begin(), family.end(), [](auto* a, auto* b) { return a->gpus < b->gpus; });
    PipelineConfig oneGpu = chosen->config;
    oneGpu.devices.clear();
    if (family.empty()) {
      rec.scalingSentence = "Scaling efficiency needs a one-GPU point to compare with: add 1 to the GPU counts.";
    } else {
      std::string list;
      for (const ScalingPoint* sp : family)
        list += (list.empty() ? "" : ", ") + std::to_string(sp->gpus) + " GPUs " + pct(sp->efficiency);
      rec.scalingSentence = "Scaling efficiency (throughput over GPUs x one GPU's) at " +
                            pointLabel(oneGpu, false, false) + ": " + list + ".";
    }
  }

  // Knees, one per (memory, model, batch size), in grid order.
  using KneeKey = std::tuple<HostMemory, ModelPreset, int, int, int, int>;
  std::map<KneeKey, std::vector<const SweepPointResult*>> groups;
  std::vector<KneeKey> order;
  for (const auto* p : ok) {
    auto key = std::make_tuple(p->config.memory, p->config.model, p->config.gpuCount(), p->config.buckets,
                               p->config.microBatches, p->config.batchSamples);
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.push_back(p);
  }
  for (const auto& key : order) {
    auto g = groups[key];
    std::sort(g.begin(), g.end(), [](auto* a, auto* b) { return a->config.streams < b->config.streams; });
    std::size_t k = 0;
    double gainBeyond = 0;
    for (; k < g.size(); ++k) {
      double after = 0;
      for (std::size_t j = k + 1; j < g.size(); ++j) after = std::max(after, thr(*g[j]));
      gainBeyond = thr(*g[k]) > 0 && k + 1 < g.size() ? after / thr(*g[k]) - 1.0 : 0.0;
      if (gainBeyond < tolerance) break;
    }
    StreamKnee knee;
    const SweepPointResult& at = *g[k];
    knee.pointIndex = at.index;
    knee.batchSamples = at.config.batchSamples;
    knee.memory = at.config.memory;
    knee.model = at.config.model;
    knee.streams = at.config.streams;
    knee.nextStreams = k + 1 < g.size() ? g[k + 1]->config.streams : 0;
    knee.gainBeyond = gainBeyond;
    knee.stillHelping = g.size() > 1 && k + 1 == g.size();
    std::string label = formatBytes(at.config.batchBytes());
    if (result.gridVariesMemory()) label += ", " + std::string(toString(at.config.memory));
    if (result.gridVariesModel()) label += ", " + std::string(toString(at.config.model));
    const GridAxes axes = variedAxes(result.spec);
    if (axes.gpus || at.config.isMultiGpu())
      label += ", " + std::to_string(at.config.gpuCount()) + (at.config.gpuCount() == 1 ? " GPU" : " GPUs");
    if (axes.buckets) label += ", " + std::to_string(at.config.buckets) + " buckets";
    if (axes.microBatches) label += ", " + std::to_string(at.config.microBatches) + " micro-batches";
    if (g.size() == 1) {
      knee.sentence = label + ": one stream count measured (" + std::to_string(at.config.streams) + ")";
    } else if (knee.stillHelping) {
      const double lastGain = thr(*g[k - 1]) > 0 ? thr(at) / thr(*g[k - 1]) - 1.0 : 0.0;
      knee.sentence = label + ": streams still help at " + std::to_string(at.config.streams) + " (" +
                      signedPct(lastGain) + " over " + std::to_string(g[k - 1]->config.streams) +
                      "); measure more streams";
    } else {
      knee.sentence = label + ": adding streams stops helping at " + std::to_string(at.config.streams) +
                      " (more give " + signedPct(gainBeyond) + "; " + saturation(at) + ")";
    }
    rec.knees.push_back(std::move(knee));
  }
  return rec;
}

}  // namespace pipescope
