#include "sweep/SweepRunner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace pipescope {

std::int64_t warmupEndNs(const Trace& trace, int warmupBatches) {
  if (warmupBatches <= 0) return 0;
  std::int64_t end = 0;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.batch != kNoBatch && op.batch < warmupBatches) end = std::max(end, op.end);
  });
  return end;
}

Metrics measuredMetrics(const Trace& trace, int warmupBatches) {
  const std::int64_t from = warmupEndNs(trace, warmupBatches);
  if (from <= 0) return computeMetrics(trace);
  return computeMetrics(trace, from, std::numeric_limits<std::int64_t>::max());
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

RepetitionFigures figuresOf(const Metrics& m) {
  RepetitionFigures f;
  f.batches = m.batches;
  f.makespanNs = m.makespanNs;
  f.samplesPerSec = m.samplesPerSec;
  f.batchesPerSec = m.batchesPerSec;
  f.efficiency = m.efficiency;
  return f;
}

/// One run of `config` into a fresh trace; the outcome is final (never Running).
std::shared_ptr<Trace> runOnce(Backend& backend, const PipelineConfig& config, const SweepCancel* cancel,
                               RunOutcome& outcome) {
  auto trace = std::make_shared<Trace>();
  trace->setConfig(config);
  trace->setDevice(backend.describe());
  RunControl control;
  if (cancel) control.stop = cancel->token();
  try {
    outcome = backend.run(config, *trace, control);
  } catch (const std::exception& e) {
    outcome = {RunState::Failed, std::string("internal error: ") + e.what()};
  }
  trace->ops().publish();
  if (outcome.state == RunState::Running || outcome.state == RunState::NotStarted)
    outcome.state = control.stopRequested() ? RunState::Stopped : RunState::Finished;
  trace->setOutcome(outcome);
  return trace;
}

/// Measured batches for a time budget: a short probe run gives the steady-state
/// time per batch; the point then runs about budget / that many batches.
int budgetBatches(Backend& backend, const SweepSpec& spec, PipelineConfig config, int warmupBatches,
                  const SweepCancel* cancel) {
  constexpr int kProbeBatches = 4;
  config.batchCount = wholeSteps(config, warmupBatches + kProbeBatches);
  RunOutcome outcome;
  auto trace = runOnce(backend, config, cancel, outcome);
  if (outcome.state != RunState::Finished) return spec.batches;
  const Metrics m = measuredMetrics(*trace, warmupBatches);
  if (m.batches <= 0 || m.makespanNs <= 0) return spec.batches;
  const double perBatchNs = m.makespanNs / double(m.batches);
  const double wanted = std::ceil(spec.timeBudgetSec * 1e9 / perBatchNs);
  const double cap = double(limits::kMaxBatchCount - warmupBatches - config.gpuCount());
  // Whole steps when the GPUs all-reduce (warm-up and measured together).
  const int measured = int(std::clamp(wanted, double(spec.batches), cap));
  return wholeSteps(config, warmupBatches + measured) - warmupBatches;
}

/// Fills the point's spread and the median repetition's verdict.
void summarize(SweepPointResult& p, const std::vector<Metrics>& metrics) {
  std::vector<double> thr, span;
  for (const auto& r : p.repetitions) {
    thr.push_back(r.samplesPerSec);
    span.push_back(r.makespanNs);
  }
  p.samplesPerSec = spreadOf(thr);
  p.makespanNs = spreadOf(span);
  std::size_t best = 0;
  for (std::size_t i = 1; i < thr.size(); ++i)
    if (std::abs(thr[i] - p.samplesPerSec.median) < std::abs(thr[best] - p.samplesPerSec.median)) best = i;
  p.medianRepetition = best;
  const Metrics& m = metrics[best];
  p.efficiency = m.efficiency;
  p.inputGBps = m.samplesPerSec * double(p.config.sampleBytes) / 1e9;
  p.bottleneck = m.bottleneck;
  p.bottleneckSentence = m.bottleneckSentence;
  p.h2dBusy = m.h2dBusy;
  p.d2hBusy = m.d2hBusy;
  p.copyBusy = m.copyBusy;
  p.computeBusy = m.computeBusy;
  p.submitBusy = m.submitThreadBusy;
  p.workersBusy = m.workersBusy;
  p.copyEngines = m.copyEngines;
  p.perBatch = m.perBatch;
}

/// Run order: within each memory/model block, the largest batch first, so buffers
/// allocated for one point are big enough for the next (the CUDA backend reuses them).
std::vector<std::size_t> runOrder(const std::vector<SweepPointSpec>& points, std::size_t blockSize) {
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ca = points[a].config;
    const auto& cb = points[b].config;
    if (a / blockSize != b / blockSize) return a / blockSize < b / blockSize;
    if (ca.batchSamples != cb.batchSamples) return ca.batchSamples > cb.batchSamples;
    return ca.streams < cb.streams;
  });
  return order;
}

}  // namespace

bool measurePoint(Backend& backend, const PipelineConfig& config, int warmupBatches, int repeats,
                  const SweepCancel* cancel, SweepPointResult& p, std::vector<std::shared_ptr<Trace>>& traces,
                  const std::function<void(int)>& beforeRepetition) {
  p.config = config;
  p.warmupBatches = warmupBatches;
  p.footprintBytes = footprintBytes(config);
  p.repetitions.clear();
  traces.clear();
  std::vector<Metrics> metrics;
  for (int rep = 0; rep < repeats; ++rep) {
    if (rep > 0 && beforeRepetition) beforeRepetition(rep);
    RunOutcome outcome;
    auto trace = runOnce(backend, config, cancel, outcome);
    if (cancel && cancel->cancelled()) return false;
    if (outcome.state != RunState::Finished) {
      p.outcome = outcome.state == RunState::Failed ? outcome
                                                    : RunOutcome{RunState::Failed, "the run stopped before its end"};
      p.repetitions.clear();
      traces.clear();
      return true;
    }
    metrics.push_back(measuredMetrics(*trace, warmupBatches));
    p.repetitions.push_back(figuresOf(metrics.back()));
    traces.push_back(std::move(trace));
    p.outcome = outcome;
  }
  if (!p.repetitions.empty()) summarize(p, metrics);
  else if (p.outcome.state != RunState::Failed) p.outcome = {RunState::Failed, "no repetition finished"};
  return true;
}

namespace {

}  // namespace

const SweepPointResult* SweepResult::point(std::size_t index) const {
  for (const auto& p : points)
    if (p.index == index) return &p;
  return nullptr;
}

const SweepPointResult* SweepResult::predictedPoint(std::size_t index) const {
  for (const auto& p : predicted)
    if (p.index == index) return &p;
  return nullptr;
}

SweepResult runSweep(const SweepSpec& spec, Backend& backend, const SweepCallbacks& cb, const SweepCancel* cancel) {
  if (auto errors = validateSweep(spec); !errors.empty()) {
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? "" : "\n") + e;
    throw std::invalid_argument(all);
  }
  const Clock::time_point start = Clock::now();
  // Buffers stay allocated from one point to the next (largest batch first, see
  // runOrder) and are freed when the sweep ends, however it ends.
  struct KeepBuffers {
    Backend& backend;
    explicit KeepBuffers(Backend& b) : backend(b) { backend.keepBuffersBetweenRuns(true); }
    ~KeepBuffers() { backend.keepBuffersBetweenRuns(false); }
  } keepBuffers(backend);
  SweepResult result;
  result.spec = spec;
  result.backend = std::string(backend.kind());
  result.device = backend.describe();
  const std::vector<SweepPointSpec> points = expandGrid(spec);
  result.totalPoints = points.size();

  const bool deterministic = backend.kind() == "simulator";
  const int repeats = deterministic ? 1 : spec.repeats;
  if (deterministic && spec.repeats > 1)
    result.notes.push_back("the simulator is deterministic: each point ran once (repetitions would be identical, "
                           "so min = median = max)");

  // Estimated cost of a point, for the time left: batches on the simulator (its cost
  // is per op), batches x bytes on a GPU (its cost is transfer and compute time).
  auto weight = [&](const PipelineConfig& c) {
    const double perBatch = deterministic ? 1.0 : std::max(1.0, double(c.batchBytes()) / 65536.0);
    return double(c.batchCount) * perBatch * repeats;
  };
  double totalWeight = 0, doneWeight = 0;
  for (const auto& p : points) totalWeight += weight(p.config);

  std::uint64_t keptOps = 0;
  bool droppedNoted = false;
  const std::size_t blockSize = spec.batchSamples.size() * spec.streams.size();
  for (std::size_t pointNumber = 0; const std::size_t idx : runOrder(points, blockSize)) {
    SweepPointSpec ps = points[idx];
    const Clock::time_point pointStart = Clock::now();
    if (cancel && cancel->cancelled()) break;
    auto report = [&](int repetition) {
      if (!cb.progress) return;
      SweepProgress pr;
      pr.pointsDone = pointNumber;
      pr.totalPoints = points.size();
      pr.point = &ps;
      pr.repetition = repetition;
      pr.elapsedSec = secondsSince(start);
      if (doneWeight > 0) pr.etaSec = pr.elapsedSec * (totalWeight - doneWeight) / doneWeight;
      cb.progress(pr);
    };
    report(0);
    if (cancel && cancel->cancelled()) break;
    if (spec.timeBudgetSec > 0) {
      const int measured = budgetBatches(backend, spec, ps.config, ps.warmupBatches, cancel);
      totalWeight -= weight(ps.config);
      ps.config.batchCount = ps.warmupBatches + measured;
      totalWeight += weight(ps.config);
    }

    SweepPointResult p;
    p.index = ps.index;
    std::vector<std::shared_ptr<Trace>> traces;
    const bool cancelledHere = !measurePoint(backend, ps.config, ps.warmupBatches, repeats, cancel, p, traces,
                                             [&](int rep) { report(rep); });
    if (cancelledHere) break;  // a half-measured point is not a result
    if (!p.repetitions.empty()) {
      auto& kept = traces[p.medianRepetition];
      const std::uint64_t ops = kept->ops().publishedCount();
      if (keptOps + ops <= spec.maxKeptOps) {
        keptOps += ops;
        p.trace = kept;
      } else {
        p.traceDropped = true;
        if (!droppedNoted)
          result.notes.push_back("traces beyond " + std::to_string(spec.maxKeptOps) +
                                 " ops in all were not kept (memory): those points show figures but no timeline");
        droppedNoted = true;
      }
    }
    p.wallSeconds = secondsSince(pointStart);
    doneWeight += weight(ps.config);
    ++pointNumber;
    result.points.push_back(p);
    if (cb.pointFinished) cb.pointFinished(result.points.back());
  }
  result.cancelled = result.points.size() < points.size();
  std::sort(result.points.begin(), result.points.end(),
            [](const SweepPointResult& a, const SweepPointResult& b) { return a.index < b.index; });
  result.wallSeconds = secondsSince(start);
  if (cb.progress) {
    SweepProgress pr;
    pr.pointsDone = result.points.size();
    pr.totalPoints = points.size();
    pr.elapsedSec = result.wallSeconds;
    pr.etaSec = 0;
    cb.progress(pr);
  }
  return result;
}

}  // namespace pipescope
