#include "sim/Validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "metrics/Metrics.h"
#include "metrics/Spread.h"

namespace pipescope {

namespace {

enum class Workload { CopyHeavy, Balanced, ComputeHeavy };
enum class Size { Small, Large };

// Intensities chosen around an H100/H200 on PCIe Gen5: with ~55 GB/s pinned copies
// and ~58.7 TFLOP/s for the model kernel (measured on an H200), 1050 flops/byte
// makes kernel ~ copy time.
double flopsPerByte(Workload w) {
  switch (w) {
    case Workload::CopyHeavy: return 100;
    case Workload::Balanced: return 1050;
    case Workload::ComputeHeavy: return 3200;
  }
  return 1050;
}
const char* workloadName(Workload w) {
  switch (w) {
    case Workload::CopyHeavy: return "copy";
    case Workload::Balanced: return "balanced";
    case Workload::ComputeHeavy: return "compute";
  }
  return "?";
}

// CPU stages of the worker cases: 2 ops per byte (the calibration times the same figure).
constexpr double kCpuOpsPerByte = 2.0;

struct Factors {
  TransferMode mode = TransferMode::Async;
  HostMemory memory = HostMemory::Pinned;
  int streams = 1;
  IssueOrder order = IssueOrder::DepthFirst;
  Workload workload = Workload::Balanced;
  Size size = Size::Large;
  int workers = 0;  // 0: no CPU stages
};

ValidationCase makeCase(const Factors& f) {
  PipelineConfig c;
  c.mode = f.mode;
  c.memory = f.memory;
  c.streams = f.mode == TransferMode::Async ? f.streams : 1;
  c.order = f.order;
  c.model = ModelPreset::Custom;
  c.modelFlopsPerByte = flopsPerByte(f.workload);
  c.normalizeKernel = true;
  if (f.size == Size::Small) {
    c.batchSamples = 16;
    c.sampleBytes = 64 * 1024;  // 1 MiB batches: per-call costs matter
    c.batchCount = 160;
  } else {
    c.batchSamples = 64;
    c.sampleBytes = 512 * 1024;  // 32 MiB batches: bandwidth and compute rate matter
    c.batchCount = 32;
  }
  if (f.workers > 0) {
    c.cpuWorkers = f.workers;
    c.preprocessOpsPerByte = kCpuOpsPerByte;
    c.postprocessOpsPerByte = kCpuOpsPerByte;
    if (f.size == Size::Large) c.batchCount = 16;  // CPU-bound: keep the run short
  }
  std::string name = f.mode == TransferMode::Async ? "async" : "blocking";
  name += f.memory == HostMemory::Pageable ? "-pageable" : "-pinned";
  if (f.mode == TransferMode::Async)
    name += "-s" + std::to_string(f.streams) + (f.order == IssueOrder::DepthFirst ? "-df" : "-bf");
  name += std::string("-") + workloadName(f.workload);
  name += f.size == Size::Small ? "-small" : "-large";
  if (f.workers > 0) name += "-w" + std::to_string(f.workers);
  return {name, c};
}

std::vector<Factors> fullFactors() {
  std::vector<Factors> out;
  for (Workload w : {Workload::CopyHeavy, Workload::Balanced, Workload::ComputeHeavy})
    for (Size s : {Size::Small, Size::Large}) {
      Factors f;
      f.workload = w;
      f.size = s;
      f.mode = TransferMode::Blocking;
      for (HostMemory m : {HostMemory::Pageable, HostMemory::Pinned}) {
        f.memory = m;
        out.push_back(f);
      }
      f.mode = TransferMode::Async;
      f.memory = HostMemory::Pinned;
      for (int streams : {1, 2, 4, 8})
        for (IssueOrder o : {IssueOrder::DepthFirst, IssueOrder::BreadthFirst}) {
          if (streams == 1 && o == IssueOrder::BreadthFirst) continue;  // the same program
          f.streams = streams;
          f.order = o;
          out.push_back(f);
        }
      f.memory = HostMemory::Pageable;
      f.order = IssueOrder::DepthFirst;
      for (int streams : {1, 4}) {
        f.streams = streams;
        out.push_back(f);
      }
    }
  // CPU pre/postprocessing with several workers.
  for (int workers : {1, 2, 4}) {
    Factors f;
    f.streams = 4;
    f.workers = workers;
    out.push_back(f);
  }
  Factors blocking;
  blocking.mode = TransferMode::Blocking;
  blocking.workers = 2;
  out.push_back(blocking);
  for (int workers : {1, 4}) {
    Factors f;
    f.streams = 4;
    f.size = Size::Small;
    f.workers = workers;
    out.push_back(f);
  }
  return out;
}

std::vector<Factors> quickFactors() {
  auto F = [](TransferMode m, HostMemory mem, int s, IssueOrder o, Workload w, Size z, int workers = 0) {
    Factors f;
    f.mode = m;
    f.memory = mem;
    f.streams = s;
    f.order = o;
    f.workload = w;
    f.size = z;
    f.workers = workers;
    return f;
  };
  const auto A = TransferMode::Async, B = TransferMode::Blocking;
  const auto Pg = HostMemory::Pageable, Pn = HostMemory::Pinned;
  const auto DF = IssueOrder::DepthFirst, BF = IssueOrder::BreadthFirst;
  return {
      F(B, Pg, 1, DF, Workload::Balanced, Size::Large),     F(B, Pn, 1, DF, Workload::Balanced, Size::Large),
      F(B, Pn, 1, DF, Workload::CopyHeavy, Size::Small),    F(A, Pn, 1, DF, Workload::Balanced, Size::Large),
      F(A, Pn, 2, DF, Workload::CopyHeavy, Size::Large),    F(A, Pn, 2, BF, Workload::ComputeHeavy, Size::Large),
      F(A, Pn, 4, DF, Workload::Balanced, Size::Large),     F(A, Pn, 4, BF, Workload::Balanced, Size::Large),
      F(A, Pn, 8, DF, Workload::ComputeHeavy, Size::Small), F(A, Pn, 8, BF, Workload::CopyHeavy, Size::Small),
      F(A, Pg, 4, DF, Workload::Balanced, Size::Large),     F(A, Pg, 1, DF, Workload::CopyHeavy, Size::Small),
      F(A, Pn, 4, DF, Workload::Balanced, Size::Large, 1),  F(A, Pn, 4, DF, Workload::Balanced, Size::Large, 4),
  };
}

double median(std::vector<double> v) { return spreadOf(std::move(v)).median; }

/// Median, fastest and slowest makespan of `reps` runs; zeros with `failure` set on
/// the first failed run. `launchNs`: the median over the runs of launchCallNs.
Spread makespans(Backend& backend, const PipelineConfig& config, int reps, std::string& failure, std::string* stages,
                 std::vector<double>* runs = nullptr, const std::function<void(const Trace&)>& lastTrace = {},
                 double* launchNs = nullptr) {
  std::vector<double> spans, launches;
  const int n = std::max(reps, 1);
  for (int r = 0; r < n; ++r) {
    const bool last = r + 1 == n;
    std::function<void(const Trace&)> onTrace;
    if (launchNs || (last && lastTrace))
      onTrace = [&](const Trace& t) {
        if (const double l = launchNs ? launchCallNs(t) : 0; l > 0) launches.push_back(l);
        if (last && lastTrace) lastTrace(t);
      };
    const double t = measureMakespanNs(backend, config, failure, stages, onTrace);
    if (!failure.empty()) return {};
    spans.push_back(t);
  }
  if (runs) *runs = spans;
  if (launchNs) *launchNs = launches.empty() ? 0 : median(launches);
  return spreadOf(std::move(spans));
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  // Nearest rank: the smallest value with at least p of the values at or below it.
  const auto rank = std::size_t(std::ceil(p * double(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::vector<ValidationCase> validationMatrix(bool quick) {
  std::vector<ValidationCase> cases;
  for (const Factors& f : quick ? quickFactors() : fullFactors()) cases.push_back(makeCase(f));
  return cases;
}

double launchCallNs(const Trace& trace) {
  const std::vector<std::string> names = trace.names();
  const auto it = std::find(names.begin(), names.end(), "cudaLaunchKernel");
  if (it == names.end()) return 0;
  const auto launch = std::uint16_t(it - names.begin());
  std::vector<double> calls;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.kind == OpKind::ApiCall && op.name == launch) calls.push_back(double(op.duration()));
  });
  return calls.empty() ? 0 : median(std::move(calls));
}

std::string stageSummary(const Trace& trace) {
  struct Sum {
    double ns = 0;
    std::int64_t n = 0;
  };
  Sum h2d, d2h, kernel, api, wait, pre, post;
  std::int32_t batches = 0;
  trace.ops().snapshot().forEach([&](const Op& op) {
    const double d = double(op.duration());
    switch (op.kind) {
      case OpKind::CopyH2D: h2d.ns += d, ++h2d.n; break;
      case OpKind::CopyD2H: d2h.ns += d, ++d2h.n; break;
      case OpKind::Kernel: kernel.ns += d, ++kernel.n; break;
      case OpKind::ApiCall: api.ns += d, ++api.n; break;
      case OpKind::HostSync: wait.ns += d, ++wait.n; break;
      case OpKind::Preprocess: pre.ns += d, ++pre.n; break;
      case OpKind::Postprocess: post.ns += d, ++post.n; break;
      default: break;
    }
    batches = std::max(batches, op.batch + 1);
  });
  const double b = std::max(1, batches);
  auto us = [](double ns) { return fixed(ns / 1e3, 1); };
  auto mean = [](const Sum& s) { return s.n ? s.ns / double(s.n) : 0.0; };
  std::ostringstream s;
  s << "per batch: H2D " << us(h2d.ns / b) << " D2H " << us(d2h.ns / b) << " kernels " << us(kernel.ns / b)
    << " us; API call " << us(mean(api)) << " us x " << fixed(double(api.n) / b, 1) << ", host wait " << us(mean(wait))
    << " us x " << fixed(double(wait.n) / b, 1);
  if (pre.n || post.n) s << ", CPU pre " << us(pre.ns / b) << " post " << us(post.ns / b) << " us (all workers)";
  return s.str();
}

double measureMakespanNs(Backend& backend, const PipelineConfig& config, std::string& failure, std::string* stages,
                         const std::function<void(const Trace&)>& onTrace) {
  Trace trace;
  trace.setConfig(config);
  std::stop_source stop;
  RunControl control;
  control.stop = stop.get_token();
  const RunOutcome outcome = backend.run(config, trace, control);
  trace.ops().publish();
  if (outcome.state == RunState::Failed) {
    failure = std::string(backend.kind()) + " run failed: " + outcome.message;
    return 0;
  }
  if (stages) *stages = stageSummary(trace);
  if (onTrace) {
    trace.setDevice(backend.describe());
    trace.setOutcome(outcome);
    onTrace(trace);
  }
  const Metrics m = computeMetrics(trace);
  if (m.ops == 0 || m.makespanNs <= 0) {
    failure = std::string(backend.kind()) + " run recorded no ops";
    return 0;
  }
  return m.makespanNs;
}

ValidationReport runValidation(Backend& measured, Backend& predicted, const std::vector<ValidationCase>& cases,
                               const ValidationOptions& options) {
  ValidationReport report;
  if (options.warmUp && !cases.empty()) {
    std::string ignored;
    measureMakespanNs(measured, cases.front().config, ignored);
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ValidationRow row;
    row.name = cases[i].name;
    row.config = cases[i].config;
    std::function<void(const Trace&)> lastTrace;
    if (options.onMeasuredTrace) lastTrace = [&](const Trace& t) { options.onMeasuredTrace(i, t); };
    const Spread m = makespans(measured, row.config, options.measuredRepetitions, row.failure, &row.measuredStages,
                               &row.measuredRunsNs, lastTrace, &row.measuredLaunchNs);
    row.measuredNs = m.median;
    row.measuredMinNs = m.min;
    row.measuredMaxNs = m.max;
    if (row.ok())
      row.predictedNs =
          makespans(predicted, row.config, options.predictedRepetitions, row.failure, &row.predictedStages).median;
    if (row.ok()) setValidationErrors(row);
    report.rows.push_back(row);
    if (options.onRow) options.onRow(i, cases.size(), report.rows.back());
  }
  summarize(report);
  return report;
}

void setValidationErrors(ValidationRow& row) {
  row.errorPct = (row.predictedNs - row.measuredNs) / row.measuredNs * 100.0;
  const double lo = row.measuredMinNs, hi = row.measuredMaxNs;
  const double outside = row.predictedNs < lo ? lo - row.predictedNs : row.predictedNs > hi ? row.predictedNs - hi : 0;
  row.errorBeyondSpreadPct = outside / row.measuredNs * 100.0;
}

void repredict(ValidationReport& report, Backend& predicted) {
  for (ValidationRow& row : report.rows) {
    if (row.measuredNs <= 0) continue;  // failed on the measured side: nothing to judge
    row.failure.clear();
    row.predictedNs = makespans(predicted, row.config, 1, row.failure, &row.predictedStages).median;
    if (row.ok()) setValidationErrors(row);
  }
  summarize(report);
}

void summarize(ValidationReport& report) {
  std::vector<double> errors, spreads, beyond;
  double signedSum = 0;
  report.predictedTooFast = 0;
  report.withinSpread = 0;
  report.maxAbsErrorPct = 0;
  report.worstCase.clear();
  report.failures = 0;
  for (const ValidationRow& r : report.rows) {
    if (!r.ok()) {
      ++report.failures;
      continue;
    }
    const double e = std::abs(r.errorPct);
    errors.push_back(e);
    signedSum += r.errorPct;
    if (r.errorPct < 0) ++report.predictedTooFast;
    spreads.push_back(r.spreadPct());
    beyond.push_back(r.errorBeyondSpreadPct);
    if (r.errorBeyondSpreadPct == 0) ++report.withinSpread;
    if (report.worstCase.empty() || e > report.maxAbsErrorPct) {
      report.maxAbsErrorPct = e;
      report.worstCase = r.name;
    }
  }
  report.medianAbsErrorPct = median(errors);
  report.p90AbsErrorPct = percentile(errors, 0.9);
  report.meanSignedErrorPct = errors.empty() ? 0 : signedSum / double(errors.size());
  report.medianSpreadPct = median(spreads);
  report.medianBeyondSpreadPct = median(beyond);
}

std::string describeCase(const PipelineConfig& c) {
  std::ostringstream s;
  s << toString(c.mode) << ' ' << toString(c.memory);
  if (c.isAsync()) s << ", " << c.streams << (c.streams == 1 ? " stream " : " streams ") << toString(c.order);
  s << ", " << formatBytes(c.batchBytes()) << " x " << c.batchCount << ", ";
  if (c.model == ModelPreset::Custom)
    s << c.modelFlopsPerByte << " flop/B";
  else
    s << toString(c.model) << " GEMMs";  // cuBLAS presets: their own shapes, no flop/B knob
  if (c.preprocessOpsPerByte > 0 || c.postprocessOpsPerByte > 0)
    s << ", CPU " << c.cpuWorkers << (c.cpuWorkers == 1 ? " worker" : " workers");
  return s.str();
}

std::string validationMarkdown(const ValidationReport& report, const std::string& title) {
  std::ostringstream s;
  s << "### " << title << "\n\n";
  s << "| configuration | factors | measured ms | measured range ms | predicted ms | error % | beyond range % | "
       "launch us |\n";
  s << "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const ValidationRow& r : report.rows) {
    s << "| " << r.name << " | " << describeCase(r.config) << " | ";
    if (r.ok())
      s << fixed(r.measuredNs / 1e6, 3) << " | " << fixed(r.measuredMinNs / 1e6, 3) << "–"
        << fixed(r.measuredMaxNs / 1e6, 3) << " | " << fixed(r.predictedNs / 1e6, 3) << " | "
        << (r.errorPct >= 0 ? "+" : "") << fixed(r.errorPct, 1) << " | " << fixed(r.errorBeyondSpreadPct, 1) << " | "
        << (r.measuredLaunchNs > 0 ? fixed(r.measuredLaunchNs / 1e3, 1) : "-") << " |\n";
    else
      s << "failed | | | " << r.failure << " | | |\n";
  }
  s << "\n";
  const std::size_t ran = report.rows.size() - std::size_t(report.failures);
  s << "Configurations: " << report.rows.size() << " (" << ran << " ran on both backends";
  if (report.failures > 0) s << ", " << report.failures << " failed";
  s << ")  \n";
  s << "Median |error|: " << fixed(report.medianAbsErrorPct, 1) << " %  \n";
  s << "90th percentile |error|: " << fixed(report.p90AbsErrorPct, 1) << " %  \n";
  s << "Max |error|: " << fixed(report.maxAbsErrorPct, 1) << " %"
    << (report.worstCase.empty() ? "" : " (" + report.worstCase + ")") << "  \n";
  s << "Mean signed error (bias): " << (report.meanSignedErrorPct >= 0 ? "+" : "")
    << fixed(report.meanSignedErrorPct, 1) << " %; predicted too fast: " << report.predictedTooFast << " of " << ran
    << "  \n";
  s << "Run-to-run spread of the measured side (slowest - fastest, median over rows): "
    << fixed(report.medianSpreadPct, 1) << " %  \n";
  s << "Predictions within the measured range: " << report.withinSpread << " of " << ran
    << "; median error beyond the range: " << fixed(report.medianBeyondSpreadPct, 1) << " %\n";
  return s.str();
}

}  // namespace pipescope
