#include "sim/CpuStageFit.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "metrics/Spread.h"

namespace pipescope {

namespace {

constexpr double kCpuOpsPerByte = 2.0;  // as the validation's CPU cases

std::string fmt(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

PipelineConfig cpuStageConfig(int workers) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = 4;
  c.batchSamples = 16;
  c.sampleBytes = 512 * 1024;  // 8 MiB batches
  c.batchCount = 12;
  c.cpuWorkers = workers;
  c.preprocessOpsPerByte = kCpuOpsPerByte;
  c.postprocessOpsPerByte = kCpuOpsPerByte;
  return c;
}

double cpuNsPerOpByte(const Trace& trace, OpKind stage, double opsPerByte) {
  struct Span {
    std::int64_t start = INT64_MAX, end = INT64_MIN;
    std::uint64_t bytes = 0;
  };
  std::map<std::int32_t, Span> perBatch;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.kind != stage || op.batch == kNoBatch) return;
    Span& s = perBatch[op.batch];
    s.start = std::min(s.start, op.start);
    s.end = std::max(s.end, op.end);
    s.bytes += op.bytes;
  });
  std::vector<double> v;
  for (const auto& [batch, s] : perBatch)
    if (s.bytes > 0 && s.end > s.start) v.push_back(double(s.end - s.start) / (double(s.bytes) * opsPerByte));
  return spreadOf(v).median;
}

CpuStageResult fitCpuStages(Backend& measured, int reps, const std::function<void(const std::string&)>& log) {
  CpuStageResult r;
  std::string line = "CPU stages inside the pipeline (ns per op-byte, median of batches):";
  const int counts[] = {1, 2, 4, 8};
  std::vector<double> perWorkers;
  for (int workers : counts) {
    const PipelineConfig c = cpuStageConfig(workers);
    std::vector<double> t;
    for (int i = 0; i < std::max(reps, 1); ++i) {
      Trace trace;
      trace.setConfig(c);
      RunControl control;
      const RunOutcome o = measured.run(c, trace, control);
      trace.ops().publish();
      if (o.state == RunState::Failed) throw std::runtime_error("CPU stage fit: run failed: " + o.message);
      const double pre = cpuNsPerOpByte(trace, OpKind::Preprocess, c.preprocessOpsPerByte);
      const double post = cpuNsPerOpByte(trace, OpKind::Postprocess, c.postprocessOpsPerByte);
      if (pre <= 0 || post <= 0) throw std::runtime_error("CPU stage fit: the run recorded no CPU stages");
      t.push_back(0.5 * (pre + post));
    }
    perWorkers.push_back(spreadOf(t).median);
    line += " " + std::to_string(workers) + "w=" + fmt(perWorkers.back(), 4);
  }
  r.nsPerOp = perWorkers[0];
  for (std::size_t i = 0; i < perWorkers.size(); ++i) r.speedup.push_back({counts[i], perWorkers[0] / perWorkers[i]});
  if (log) {
    std::string s = line + " -> speed-up";
    for (const WorkerSpeedup& w : r.speedup) s += " " + std::to_string(w.workers) + "w=" + fmt(w.speedup, 2);
    log(s);
  }
  return r;
}

}  // namespace pipescope
