#include "analysis/Limits.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

namespace {

// Two-stage pipeline: N batches through stages of a and b per batch.
double twoStage(double a, double b, double n) { return std::max(a, b) * n + std::min(a, b); }

std::string capitalised(std::string_view s) {
  std::string out(s);
  if (!out.empty()) out[0] = char(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// "CPU stages 16.8 ms on 1 worker, API calls 12 µs"
std::string hostParts(const Metrics& m) {
  int workers = 0;
  for (const auto& lane : m.lanes) workers += lane.kind == LaneKind::HostWorker ? 1 : 0;
  const StageTimes& o = m.perBatchOccupancy;
  std::string s;
  // No worker lanes: an imported program, whose host work is its own dispatch.
  if (workers == 0 && o.preprocessNs + o.postprocessNs > 0)
    return "dispatch (CPU ops, Python) " + formatNs(o.preprocessNs + o.postprocessNs) + ", API calls " +
           formatNs(o.apiNs);
  if (o.preprocessNs + o.postprocessNs > 0)
    s = "CPU stages " + formatNs(o.preprocessNs + o.postprocessNs) + " on " + std::to_string(std::max(workers, 1)) +
        (workers == 1 ? " worker" : " workers") + ", ";
  return s + "API calls " + formatNs(o.apiNs);
}

// An imported program's host work: dispatch ranges, no CPU worker lanes.
bool importedHost(const Metrics& m) {
  for (const auto& lane : m.lanes)
    if (lane.kind == LaneKind::HostWorker) return false;
  return m.perBatchOccupancy.preprocessNs + m.perBatchOccupancy.postprocessNs > 0;
}

}  // namespace

Limits computeLimits(const Metrics& m) {
  Limits l;
  l.batches = m.batches;
  l.copyEngines = m.copyEngines;
  // Each resource's occupancy, as the metrics' ideal bound uses: kernels of several
  // streams running side by side count once, so "full overlap" here is that same bound.
  l.perBatch = m.perBatchOccupancy;
  l.hostPerBatchNs = m.hostPerBatchNs;
  l.measuredNs = m.makespanNs;
  l.firstStartNs = m.firstNs;
  l.measuredFinishNs = m.lastNs;
  if (m.batches <= 0) {
    // One sentence says it all (shown once, not as both position and critical resource).
    l.positionSentence = "No batch completed, so there are no limits to compare with.";
    l.idealFinishNs = l.firstStartNs;
    return l;
  }
  const double h = l.perBatch.h2dNs, k = l.perBatch.kernelNs, d = l.perBatch.d2hNs, host = l.hostPerBatchNs;
  const double n = double(m.batches);
  l.noOverlapNs = (host + h + k + d) * n;
  l.fullOverlapNs = m.idealBoundNs;
  // Several GPUs: the per-kind figures above span every GPU; the busiest GPU's work in
  // series is "no overlap", and there is no one-direction limit to speak of.
  if (m.multiGpu) l.noOverlapNs = std::max(m.multiGpu->serialNs, l.fullOverlapNs);
  const double h2dOverlaps = twoStage(h, k + d, n);  // H2D beside compute, D2H after the kernels
  const double d2hOverlaps = twoStage(h + k, d, n);  // D2H beside compute, H2D before the kernels
  l.oneDirectionIsH2D = h2dOverlaps <= d2hOverlaps;
  const double oneDirection = std::max(std::min(h2dOverlaps, d2hOverlaps), host * n);  // the host works beside the GPU
  l.oneDirectionNs = std::clamp(oneDirection, l.fullOverlapNs, std::max(l.fullOverlapNs, l.noOverlapNs));
  if (m.multiGpu) l.oneDirectionNs = l.noOverlapNs;
  l.idealFinishNs = l.firstStartNs + std::int64_t(std::llround(l.fullOverlapNs));

  const double span = l.noOverlapNs - l.fullOverlapNs;
  l.position = span > 0 ? (l.noOverlapNs - l.measuredNs) / span : 1.0;
  if (l.measuredNs <= 0)
    l.zone = LimitZone::Unknown;
  else if (l.measuredNs <= l.fullOverlapNs * 1.03)
    l.zone = LimitZone::AtFullOverlap;
  else if (l.measuredNs > l.noOverlapNs * 1.03)
    l.zone = LimitZone::SlowerThanNoOverlap;
  else if (l.measuredNs > l.oneDirectionNs)
    l.zone = LimitZone::NoToOneDirection;
  else
    l.zone = LimitZone::OneDirectionToFull;

  // The critical resource is the one whose own lower bound is the ideal bound.
  l.critical = m.critical;
  const std::string perEngine = m.copyEngines <= 1
                                    ? "copies " + formatNs(h + d) + " (H2D and D2H share one engine), kernels " + formatNs(k)
                                    : "H2D " + formatNs(h) + ", kernels " + formatNs(k) + ", D2H " + formatNs(d);
  const std::string atLeast = ", so even with full overlap the run takes at least " + std::to_string(m.batches) + " × ";
  switch (l.critical) {
    case CriticalResource::None: l.criticalSentence = "Nothing did any work, so nothing is critical."; break;
    case CriticalResource::Host:
      l.criticalSentence = "The host is critical: it works " + formatNs(host) + " per batch (" + hostParts(m) +
                           "), more than any engine needs (" + perEngine + ")" + atLeast + formatNs(host) +
                           " plus one batch on the GPU = " + formatNs(l.fullOverlapNs) + ".";
      break;
    default: {
      const double worst = l.critical == CriticalResource::ComputeEngine ? k
                           : l.critical == CriticalResource::H2DEngine   ? h
                           : l.critical == CriticalResource::D2HEngine   ? d
                                                                         : h + d;
      l.criticalSentence = capitalised(toString(l.critical)) + " is critical: it needs " + formatNs(worst) +
                           " per batch (" + perEngine + "; host " + formatNs(host) + ")" + atLeast + formatNs(worst) +
                           " plus one pipeline fill = " + formatNs(l.fullOverlapNs) + ".";
    }
  }

  // Several GPUs: the resource is a GPU's engine, a link or a chain of kernels and
  // all-reduce, which the multi-GPU figures name.
  if (m.multiGpu && !m.multiGpu->criticalSentence.empty()) l.criticalSentence = m.multiGpu->criticalSentence;

  const std::string measured = "The run took " + formatNs(l.measuredNs);
  const std::string limits = "no overlap " + formatNs(l.noOverlapNs) + ", one direction overlapped " +
                             formatNs(l.oneDirectionNs) + ", full overlap " + formatNs(l.fullOverlapNs);
  switch (l.zone) {
    case LimitZone::SlowerThanNoOverlap:
      l.positionSentence = measured + ", longer than running every stage one after another (" + limits +
                           "): time goes to waiting between the stages, not to work on the host or the engines.";
      break;
    case LimitZone::NoToOneDirection:
    case LimitZone::OneDirectionToFull:
      l.positionSentence = l.position < 0.03 ? measured + ", as long as running every stage one after another (" +
                                                   limits + "): nothing overlaps."
                                             : measured + ", " + formatPercent(std::clamp(l.position, 0.0, 1.0)) +
                                                   " of the way from no overlap to full overlap (" + limits + ").";
      break;
    case LimitZone::AtFullOverlap:
      l.positionSentence =
          measured + ", at the full-overlap bound (" + limits + "): " +
          (l.critical != CriticalResource::Host ? "only faster engines or less work help."
           : importedHost(m) ? "only less host work per iteration helps (fewer, larger GPU operations)."
                             : "only less host work per batch helps (more CPU workers, less CPU work, fewer API calls).");
      break;
    case LimitZone::Unknown: l.positionSentence = "The run took no time."; break;
  }
  return l;
}

}  // namespace pipescope
