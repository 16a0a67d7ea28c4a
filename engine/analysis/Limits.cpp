#include "analysis/Limits.h"

#include <algorithm>
#include <cmath>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

std::string_view toString(CriticalResource r) {
  switch (r) {
    case CriticalResource::H2DEngine: return "the H2D copy engine";
    case CriticalResource::D2HEngine: return "the D2H copy engine";
    case CriticalResource::CopyEngine: return "the copy engine";
    case CriticalResource::ComputeEngine: return "the compute engine";
    case CriticalResource::Host: return "the host";
    case CriticalResource::None: return "nothing";
  }
  return "?";
}

namespace {

// Two-stage pipeline: N batches through stages of a and b per batch.
double twoStage(double a, double b, double n) { return std::max(a, b) * n + std::min(a, b); }

}  // namespace

Limits computeLimits(const Metrics& m) {
  Limits l;
  l.batches = m.batches;
  l.copyEngines = m.copyEngines;
  // Engine occupancy, as the metrics' ideal bound uses: kernels of several streams
  // running side by side count once, so "full overlap" here is that same bound.
  l.perBatch = m.perBatchOccupancy;
  l.measuredNs = m.makespanNs;
  l.firstStartNs = m.firstNs;
  l.measuredFinishNs = m.lastNs;
  int workers = 0;
  for (const auto& lane : m.lanes) workers += lane.kind == LaneKind::HostWorker ? 1 : 0;
  // Fork-join CPU stages: every worker records the whole stage time, so the per-batch
  // wall time is the sum over workers divided by their number.
  l.hostPerBatchNs = (m.perBatch.preprocessNs + m.perBatch.postprocessNs) / double(std::max(workers, 1));
  if (m.batches <= 0) {
    // One sentence says it all (shown once, not as both position and critical resource).
    l.positionSentence = "No batch completed, so there are no limits to compare with.";
    l.idealFinishNs = l.firstStartNs;
    return l;
  }
  const double h = l.perBatch.h2dNs, k = l.perBatch.kernelNs, d = l.perBatch.d2hNs;
  const double n = double(m.batches);
  l.noOverlapNs = (h + k + d) * n;
  l.fullOverlapNs = idealBound(h, k, d, m.batches, m.copyEngines);
  const double h2dOverlaps = twoStage(h, k + d, n);  // H2D beside compute, D2H after the kernels
  const double d2hOverlaps = twoStage(h + k, d, n);  // D2H beside compute, H2D before the kernels
  l.oneDirectionIsH2D = h2dOverlaps <= d2hOverlaps;
  l.oneDirectionNs = std::clamp(std::min(h2dOverlaps, d2hOverlaps), l.fullOverlapNs, l.noOverlapNs);
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

  // The critical resource: the engine with the most work per batch, unless the host
  // needs even longer per batch for its CPU stages.
  double worst = 0;
  if (m.copyEngines <= 1) {
    l.critical = h + d >= k ? CriticalResource::CopyEngine : CriticalResource::ComputeEngine;
    worst = std::max(h + d, k);
  } else {
    worst = std::max({h, k, d});
    l.critical = worst == k   ? CriticalResource::ComputeEngine
                 : worst == h ? CriticalResource::H2DEngine
                              : CriticalResource::D2HEngine;
  }
  if (worst <= 0) l.critical = CriticalResource::None;
  std::string perEngine = m.copyEngines <= 1
                              ? "copies " + formatNs(h + d) + " (H2D and D2H share one engine), kernels " + formatNs(k)
                              : "H2D " + formatNs(h) + ", kernels " + formatNs(k) + ", D2H " + formatNs(d);
  if (l.hostPerBatchNs > worst && l.hostPerBatchNs > 0) {
    l.critical = CriticalResource::Host;
    l.criticalSentence = "The host is critical: its CPU stages need " + formatNs(l.hostPerBatchNs) +
                         " per batch, more than any engine (" + perEngine +
                         "), so no overlap on the GPU can make the run shorter than that per batch.";
  } else if (l.critical == CriticalResource::None) {
    l.criticalSentence = "No engine did any work, so none is critical.";
  } else {
    std::string name(toString(l.critical));
    name[0] = char(std::toupper(static_cast<unsigned char>(name[0])));
    l.criticalSentence = name + " is critical: it needs " + formatNs(worst) + " per batch (" + perEngine +
                         "), so even with full overlap the run takes at least " + std::to_string(m.batches) + " × " +
                         formatNs(worst) + " plus one pipeline fill = " + formatNs(l.fullOverlapNs) + ".";
  }

  const std::string measured = "The run took " + formatNs(l.measuredNs);
  const std::string limits = "no overlap " + formatNs(l.noOverlapNs) + ", one direction overlapped " +
                             formatNs(l.oneDirectionNs) + ", full overlap " + formatNs(l.fullOverlapNs);
  switch (l.zone) {
    case LimitZone::SlowerThanNoOverlap:
      l.positionSentence = measured + ", longer than running every stage one after another (" + limits +
                           "): time goes to waiting between the stages, not to the engines.";
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
          measured + ", at the full-overlap bound (" + limits + "): only faster engines or less work help.";
      break;
    case LimitZone::Unknown: l.positionSentence = "The run took no time."; break;
  }
  return l;
}

}  // namespace pipescope
