#include "analysis/Advice.h"

#include "sim/ProfileValidation.h"

#include <algorithm>
#include <cmath>

#include "analysis/AnalysisFormat.h"
#include "analysis/SimulatedRun.h"

namespace pipescope {

std::string_view keyOf(AdviceKind kind) {
  switch (kind) {
    case AdviceKind::PinnedMemory: return "pinned-memory";
    case AdviceKind::AsyncCopies: return "async-copies";
    case AdviceKind::MoreStreams: return "more-streams";
    case AdviceKind::IssueOrder: return "issue-order";
    case AdviceKind::BiggerBatch: return "bigger-batch";
    case AdviceKind::MoreCpuWorkers: return "more-cpu-workers";
    case AdviceKind::KeepResident: return "keep-resident";
    case AdviceKind::RoiCopyBack: return "roi-copy-back";
    case AdviceKind::FewerChunks: return "fewer-chunks";
    case AdviceKind::MoreBuckets: return "more-buckets";
    case AdviceKind::MoreMicroBatches: return "more-micro-batches";
    case AdviceKind::FewerGpus: return "fewer-gpus";
  }
  return "?";
}

namespace {

struct Candidate {
  AdviceKind kind;
  std::string title, change, caveat;
  PipelineConfig config;
};

std::string plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::vector<Candidate> candidates(const PipelineConfig& c, const AdviceOptions& options) {
  std::vector<Candidate> out;
  auto add = [&](AdviceKind kind, std::string title, std::string change, PipelineConfig cfg, std::string caveat = {}) {
    if (!validate(cfg).empty() || cfg == c) return;
    out.push_back({kind, std::move(title), std::move(change), std::move(caveat), std::move(cfg)});
  };
  if (c.memory == HostMemory::Pageable) {
    PipelineConfig n = c;
    n.memory = HostMemory::Pinned;
    add(AdviceKind::PinnedMemory, "pinned memory", "memory: pageable -> pinned", n);
  }
  if (!c.isAsync()) {
    PipelineConfig n = c;
    n.mode = TransferMode::Async;
    add(AdviceKind::AsyncCopies, "async copies instead of blocking ones", "mode: blocking -> async", n);
  }
  for (int factor : {2, 4}) {
    PipelineConfig n = c;
    n.mode = TransferMode::Async;
    n.streams = std::min(std::max(c.isAsync() ? c.streams : 1, 1) * factor, limits::kMaxStreams);
    if (n.streams == c.streams && c.isAsync()) continue;
    std::string title =
        plural(n.streams, "stream", "streams") + " instead of " + std::to_string(c.isAsync() ? c.streams : 1);
    if (!c.isAsync())
      title = "async copies on " + plural(n.streams, "stream", "streams") + " instead of blocking copies";
    add(AdviceKind::MoreStreams, title,
        (c.isAsync() ? "" : "mode: blocking -> async, ") + std::string("streams: ") +
            std::to_string(c.isAsync() ? c.streams : 1) + " -> " + std::to_string(n.streams),
        n);
  }
  if (c.isAsync() && c.streams > 1) {
    PipelineConfig n = c;
    n.order = c.order == IssueOrder::DepthFirst ? IssueOrder::BreadthFirst : IssueOrder::DepthFirst;
    add(AdviceKind::IssueOrder,
        std::string(toString(n.order)) + " issue order instead of " + std::string(toString(c.order)),
        "order: " + std::string(toString(c.order)) + " -> " + std::string(toString(n.order)), n);
  }
  {
    PipelineConfig n = c;
    n.batchSamples = c.batchSamples * 4;
    n.batchCount = std::max(1, c.batchCount / 4);
    if (n.batchBytes() <= limits::kMaxBatchBytes && n.batchSamples <= limits::kMaxBatchSamples) {
      add(AdviceKind::BiggerBatch, "batches 4x larger (" + std::to_string(n.batchSamples) + " samples)",
          "batch-samples: " + std::to_string(c.batchSamples) + " -> " + std::to_string(n.batchSamples), n,
          "needs 4x the buffer memory per stream");
    }
  }
  if ((c.preprocessOpsPerByte > 0 || c.postprocessOpsPerByte > 0) && !options.cpuStagesAreDispatch) {
    for (int factor : {2, 4}) {
      PipelineConfig n = c;
      n.cpuWorkers = std::min(c.cpuWorkers * factor, limits::kMaxCpuWorkers);
      add(AdviceKind::MoreCpuWorkers,
          plural(n.cpuWorkers, "CPU worker", "CPU workers") + " instead of " + std::to_string(c.cpuWorkers),
          "cpu-workers: " + std::to_string(c.cpuWorkers) + " -> " + std::to_string(n.cpuWorkers), n);
    }
  }
  if (options.workloadChanges && c.residency == DataResidency::TransferEveryBatch && c.usesCopies()) {
    PipelineConfig n = c;
    n.residency = DataResidency::KeepResident;
    add(AdviceKind::KeepResident, "keep the input data on the GPU", "residency: every-batch -> resident", n,
        "only if the same data is used again by later batches");
  }
  if (options.workloadChanges && !options.cpuStagesAreDispatch && c.roiFraction > 0.25 && c.d2hBytes() > 0 &&
      c.usesCopies()) {
    PipelineConfig n = c;
    n.roiFraction = 0.25;
    add(AdviceKind::RoiCopyBack, "copy back only a region of interest (a quarter of the output)",
        "roi: " + formatFigure(c.roiFraction) + " -> 0.25", n, "only if the host needs just that part of the output");
  }
  if (c.transferChunks > 1) {
    PipelineConfig n = c;
    n.transferChunks = 1;
    add(AdviceKind::FewerChunks, "one copy per batch instead of " + std::to_string(c.transferChunks) + " chunks",
        "chunks: " + std::to_string(c.transferChunks) + " -> 1", n);
  }
  if (c.allReduces()) {
    // More buckets: more of the all-reduce runs beside the kernels still to come.
    for (int factor : {2, 4, 8}) {
      PipelineConfig n = c;
      n.buckets = std::min(std::max(c.buckets, 1) * factor, limits::kMaxBuckets);
      add(AdviceKind::MoreBuckets,
          "the all-reduce in " + plural(n.buckets, "bucket", "buckets") + " instead of " + std::to_string(c.buckets),
          "buckets: " + std::to_string(c.buckets) + " -> " + std::to_string(n.buckets), n);
    }
  }
  if (c.isPipelineParallel()) {
    for (int factor : {2, 4, 8}) {
      PipelineConfig n = c;
      n.microBatches = std::min(c.microBatches * factor, std::min(c.batchSamples, limits::kMaxMicroBatches));
      add(AdviceKind::MoreMicroBatches,
          plural(n.microBatches, "micro-batch", "micro-batches") + " per batch instead of " +
              std::to_string(c.microBatches),
          "micro-batches: " + std::to_string(c.microBatches) + " -> " + std::to_string(n.microBatches), n,
          n.activationBytes > 0 ? "assumes the activations per micro-batch stay the same size" : "");
    }
  }
  if (c.isMultiGpu()) {
    // Half the GPUs (the first ones): pipeline stages need two at least.
    const int fewer = std::max(c.isPipelineParallel() ? 2 : 1, c.gpuCount() / 2);
    if (fewer < c.gpuCount()) {
      PipelineConfig n = c;
      n.devices.assign(c.devices.begin(), c.devices.begin() + fewer);
      add(AdviceKind::FewerGpus, plural(fewer, "GPU", "GPUs") + " instead of " + std::to_string(c.gpuCount()),
          "devices: " + formatDeviceList(c.devices) + " -> " + formatDeviceList(n.devices), n,
          "frees " + plural(c.gpuCount() - fewer, "GPU", "GPUs") + " for other work");
    }
  }
  return out;
}

std::string evidenceFor(AdviceKind kind, const AdviceInput& in) {
  const Metrics* m = in.metrics;
  const WaitSummary* w = in.waits;
  switch (kind) {
    case AdviceKind::PinnedMemory:
      if (w && w->share(WaitCause::PageableStaging) >= 0.01)
        return formatPercent(w->share(WaitCause::PageableStaging)) +
               " of GPU op time waited while the host was held by pageable copies";
      if (m && m->h2dBytes > 0)
        return "copies from pageable memory ran at " + formatFigure(m->h2dGBpsBusy) + " GB/s (H2D)";
      return {};
    case AdviceKind::AsyncCopies:
      if (w && w->share(WaitCause::HostSync) >= 0.01)
        return formatPercent(w->share(WaitCause::HostSync)) + " of GPU op time waited on host synchronisations";
      if (m) return "the GPU is idle " + formatPercent(m->gpuIdle) + " of the time";
      return {};
    case AdviceKind::MoreStreams:
    case AdviceKind::IssueOrder:
      if (m) return "kernels have a copy beside them " + formatPercent(m->computeOverlappedByCopy) + " of the time";
      return {};
    case AdviceKind::BiggerBatch:
    case AdviceKind::FewerChunks:
      if (w && w->share(WaitCause::HostSubmit) >= 0.01)
        return formatPercent(w->share(WaitCause::HostSubmit)) + " of GPU op time waited for the host to submit";
      if (m) return "the submit thread is busy " + formatPercent(m->submitThreadBusy) + " of the time";
      return {};
    case AdviceKind::MoreCpuWorkers:
      if (w && w->share(WaitCause::HostCpuWork) >= 0.01)
        return formatPercent(w->share(WaitCause::HostCpuWork)) + " of GPU op time waited for CPU pre/postprocessing";
      if (m) return "the CPU workers are busy " + formatPercent(m->workersBusy) + " of the time";
      return {};
    case AdviceKind::KeepResident:
      if (m) return "the H2D engine is busy " + formatPercent(m->h2dBusy) + " of the time";
      return {};
    case AdviceKind::RoiCopyBack:
      if (m) return "the D2H engine is busy " + formatPercent(m->d2hBusy) + " of the time";
      return {};
    case AdviceKind::MoreBuckets:
      if (w && w->share(WaitCause::CollectiveWait) >= 0.01)
        return formatPercent(w->share(WaitCause::CollectiveWait)) + " of GPU op time waited for the all-reduce";
      if (m && m->multiGpu && m->multiGpu->commNs > 0)
        return formatPercent(m->multiGpu->exposedCommNs / m->multiGpu->commNs) +
               " of the communication had no kernel beside it";
      return {};
    case AdviceKind::MoreMicroBatches:
      if (m && m->multiGpu)
        return "the GPUs' compute engines sit idle " + formatPercent(m->multiGpu->idleCompute) +
               " of the time (GPipe's fill and drain alone: " + formatPercent(m->multiGpu->gpipeBubble) + ")";
      return {};
    case AdviceKind::FewerGpus:
      if (in.scalingEfficiency) return "scaling efficiency " + formatPercent(*in.scalingEfficiency);
      if (m && m->multiGpu)
        return formatPercent(m->multiGpu->exposedCommFraction) + " of each GPU's time is exposed communication";
      return {};
  }
  return {};
}

}  // namespace

AdviceResult advise(const AdviceInput& in, const AdviceOptions& options, std::stop_token stop) {
  AdviceResult result;
  const int cap = std::max(options.maxBatches, 1);
  PipelineConfig base = in.config;
  base.batchCount = base.runsUntilStopped() ? cap : std::min(base.batchCount, cap);
  if (auto issues = validate(base); !issues.empty()) {
    result.error = "cannot predict: invalid configuration: " + issues.front().message();
    return result;
  }
  const SimulatedRun baseline = simulate(base, in.profile, stop);
  if (!baseline.ok() || baseline.metrics.samplesPerSec <= 0) {
    result.error = "cannot predict: the simulated baseline did not finish: " + baseline.outcome.message;
    return result;
  }
  result.baselineSamplesPerSec = baseline.metrics.samplesPerSec;
  result.simulatedBatches = base.batchCount;
  const double apiBefore = apiOverheadShare(*baseline.trace, baseline.metrics);

  std::vector<AdviceItem> all;
  for (Candidate& cand : candidates(base, options)) {
    if (stop.stop_requested()) break;
    const SimulatedRun run = simulate(cand.config, in.profile, stop);
    if (!run.ok() || run.metrics.samplesPerSec <= 0) continue;
    AdviceItem item;
    item.kind = cand.kind;
    item.title = cand.title;
    item.change = cand.change;
    item.caveat = cand.caveat;
    item.config = cand.config;
    // The user's own batch count, not the capped one the prediction simulated.
    item.config.batchCount = in.config.batchCount == 0 ? 0
                             : cand.kind == AdviceKind::BiggerBatch ? std::max(1, in.config.batchCount / 4)
                                                                    : in.config.batchCount;
    item.baselineSamplesPerSec = result.baselineSamplesPerSec;
    item.predictedSamplesPerSec = run.metrics.samplesPerSec;
    item.speedup = run.metrics.samplesPerSec / result.baselineSamplesPerSec;
    if (cand.kind == AdviceKind::FewerGpus)
      item.perGpuSpeedup = item.speedup * double(base.gpuCount()) / double(cand.config.gpuCount());
    if (cand.kind == AdviceKind::BiggerBatch) {
      item.apiShareBefore = apiBefore;
      item.apiShareAfter = apiOverheadShare(*run.trace, run.metrics);
    }
    item.evidence = evidenceFor(cand.kind, in);
    all.push_back(std::move(item));
  }
  // One entry per kind: the smallest change that gets within 3% of the kind's best.
  std::vector<AdviceItem> best;
  for (AdviceItem& item : all) {
    auto same = std::find_if(best.begin(), best.end(), [&](const AdviceItem& b) { return b.kind == item.kind; });
    if (same == best.end()) {
      best.push_back(item);
    } else if (item.speedup > same->speedup * 1.03) {
      *same = item;
    }
  }
  std::stable_sort(best.begin(), best.end(),
                   [](const AdviceItem& a, const AdviceItem& b) { return a.speedup > b.speedup; });
  for (AdviceItem& item : best) {
    // Fewer GPUs is advice when each GPU would do clearly more (the run scales badly),
    // though the whole does less.
    const bool fewerGpus = item.perGpuSpeedup.has_value();
    if (fewerGpus ? *item.perGpuSpeedup < 1.15 : item.speedup < options.minSpeedup) continue;
    if (int(result.items.size()) >= options.maxItems) continue;
    item.sentence = fewerGpus ? item.title + ": predicted " + formatPercent(item.speedup) + " of the throughput, " +
                                    formatRatio(*item.perGpuSpeedup) + " as much per GPU"
                              : item.title + ": predicted " + formatRatio(item.speedup) + " faster";
    if (in.profile.validation)
      if (auto e = similarRunsError(*in.profile.validation, item.config)) item.modelError = e->text;
    if (item.apiShareBefore && item.apiShareAfter && *item.apiShareBefore >= 0.01)
      item.sentence += ", API overhead from " + formatPercent(*item.apiShareBefore) + " to " +
                       formatPercent(*item.apiShareAfter) + " of the run";
    if (!item.evidence.empty()) item.sentence += " (now " + item.evidence + ")";
    if (!item.caveat.empty()) item.sentence += "; " + item.caveat;
    if (!item.modelError.empty()) item.sentence += "; " + item.modelError;
    item.sentence += ".";
    result.items.push_back(std::move(item));
  }
  return result;
}

}  // namespace pipescope
