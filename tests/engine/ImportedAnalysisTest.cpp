// The analysis of imported traces: wait causes on imported ops (host sync, pageable
// staging, blocking copies), the host's time per iteration in the ideal bound, and the
// PyTorch fixture's iterations checked against figures computed here from its raw
// events; the derived configuration reproduces the fixture on the simulator.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "analysis/DerivedConfig.h"
#include "analysis/RunAnalysis.h"
#include "analysis/WaitAnalysis.h"
#include "io/ChromeTraceReader.h"
#include "io/JsonTextSource.h"
#include "io/TraceFiles.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

std::string ev(const std::string& cat, const std::string& name, int pid, int tid, double ts, double dur,
               const std::string& args = "") {
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":)" + std::to_string(pid) + R"(,"tid":)" +
         std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
         (args.empty() ? "" : R"(,"args":{)" + args + "}") + "}";
}
std::string corr(int c) { return R"("correlation":)" + std::to_string(c); }
std::string onStream(int s, int c, long bytes = 0) {
  return R"("stream":)" + std::to_string(s) + "," + corr(c) + (bytes ? R"(,"bytes":)" + std::to_string(bytes) : "");
}

std::shared_ptr<Trace> load(const std::string& events) {
  return loadTraceFromBytes(R"({"traceEvents":[)" + events + "]}", "synthetic.json");
}

struct Found {
  std::uint64_t index = 0;
  Op op;
};
Found find(const Trace& t, const std::string& name) {
  Found f;
  const TraceView v = t.ops().snapshot();
  for (std::uint64_t i = 0; i < v.size(); ++i)
    if (t.opName(v[i]) == name) return {v.begin() + i, v[i]};
  ADD_FAILURE() << "no op named " << name;
  return f;
}

TEST(ImportedWaits, SynchronizeCallsAreHostSyncWaits) {
  auto t = load(ev("cuda_runtime", "cudaLaunchKernel", 1, 1, 0, 1, corr(1)) + "," +
                ev("kernel", "k1", 0, 7, 2, 10, onStream(7, 1)) + "," +
                ev("cuda_runtime", "cudaStreamSynchronize", 1, 1, 2, 12, corr(2)) + "," +
                ev("cuda_runtime", "cudaLaunchKernel", 1, 1, 15, 1, corr(3)) + "," +
                ev("kernel", "k2", 0, 7, 17, 5, onStream(7, 3)));
  EXPECT_EQ(find(*t, "cudaStreamSynchronize").op.kind, OpKind::HostSync);
  const WaitAnalysis w = analyzeWaits(*t);
  const Found k2 = find(*t, "k2");
  // Stream 7 idle from 12 µs: the host sat in the synchronize until 14 µs.
  EXPECT_EQ(w.waitNs(k2.index, WaitCause::HostSync), 2000);
}

TEST(ImportedWaits, PageableCopiesHoldTheHost) {
  auto t = load(ev("cuda_runtime", "cudaLaunchKernel", 1, 1, 0, 1, corr(1)) + "," +
                ev("kernel", "k0", 0, 7, 2, 2, onStream(7, 1)) + "," +
                ev("cuda_runtime", "cudaMemcpyAsync", 1, 1, 5, 30, corr(2)) + "," +
                ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 8, 6, 28, onStream(8, 2, 1 << 20)) + "," +
                ev("cuda_runtime", "cudaLaunchKernel", 1, 1, 36, 1, corr(3)) + "," +
                ev("kernel", "k1", 0, 7, 40, 10, onStream(7, 3)));
  const Found copy = find(*t, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_TRUE(copy.op.flags & kOpPageable);
  EXPECT_EQ(find(*t, "cudaMemcpyAsync").op.kind, OpKind::HostSync) << "the host waits in a pageable copy's call";
  const WaitAnalysis w = analyzeWaits(*t);
  EXPECT_GT(w.waitNs(find(*t, "k1").index, WaitCause::PageableStaging), 20000);
}

TEST(ImportedWaits, BlockingMemcpyCallsMarkTheirCopies) {
  auto t = load(ev("cuda_runtime", "cudaMemcpy", 1, 1, 0, 30, corr(1)) + "," +
                ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, 2, 20, onStream(7, 1, 1 << 20)) + "," +
                ev("cuda_runtime", "cudaMemcpyAsync", 1, 1, 40, 2, corr(2)) + "," +
                ev("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0, 7, 43, 5, onStream(7, 2, 1 << 10)));
  EXPECT_TRUE(find(*t, "Memcpy HtoD (Pinned -> Device)").op.flags & kOpBlockingCall);
  EXPECT_FALSE(find(*t, "Memcpy DtoH (Device -> Pinned)").op.flags & kOpBlockingCall);
}

TEST(ImportedMetrics, HostRangesCountAsHostWorkWithoutTheirWaits) {
  // One step of 100 µs on the host; a sync of 30 µs inside it is waiting, not work.
  // The pipeline's ops span the whole step (0..100 µs): host time outside them would not count.
  auto t = load(ev("user_annotation", "ProfilerStep#1", 1, 1, 0, 100) + "," +
                ev("cpu_op", "aten::item", 1, 1, 10, 50) + "," +
                ev("cuda_runtime", "cudaLaunchKernel", 1, 1, 0, 1, corr(1)) + "," +
                ev("kernel", "k", 0, 7, 5, 10, onStream(7, 1)) + "," +
                ev("cuda_runtime", "cudaStreamSynchronize", 1, 1, 20, 30, corr(2)) + "," +
                ev("cuda_runtime", "cudaLaunchKernel", 1, 1, 90, 1, corr(3)) + "," +
                ev("kernel", "k2", 0, 7, 95, 5, onStream(7, 3)));
  const Metrics m = computeMetrics(*t);
  ASSERT_EQ(m.batches, 1);
  EXPECT_DOUBLE_EQ(m.hostPerBatchNs, 70000.0);
  EXPECT_EQ(m.critical, CriticalResource::Host);
  // The GPU-side range of a PyTorch trace is not host time.
  auto g = load(ev("gpu_user_annotation", "ProfilerStep#1", 0, 7, 0, 100) + "," +
                ev("kernel", "k", 0, 7, 5, 10, onStream(7, 1)));
  EXPECT_DOUBLE_EQ(computeMetrics(*g).hostPerBatchNs, 0.0);
}

TEST(ImportedAdvice, PageableOneStreamTraceIsAdvisedPinnedMemory) {
  // Four steps: an 8 MiB pageable copy at ~8 GB/s (the host held in its call), then a
  // 0.5 ms kernel, on one stream: the derived configuration is pageable, 1 stream, and
  // the simulator predicts pinned memory helps.
  std::string e;
  for (int i = 0; i < 4; ++i) {
    const double t0 = i * 2000.0;
    const int c = 3 * i + 1;  // correlation ids of the copy, the kernel and the sync
    if (i) e += ",";
    e += ev("user_annotation", "ProfilerStep#" + std::to_string(i), 1, 1, t0, 2000) + "," +
         ev("cuda_runtime", "cudaMemcpyAsync", 1, 1, t0 + 10, 1060, corr(c)) + "," +
         ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, t0 + 15, 1050, onStream(7, c, 8 << 20)) + "," +
         ev("cuda_runtime", "cudaLaunchKernel", 1, 1, t0 + 1080, 5, corr(c + 1)) + "," +
         ev("kernel", "model", 0, 7, t0 + 1090, 500, onStream(7, c + 1)) + "," +
         ev("cuda_runtime", "cudaStreamSynchronize", 1, 1, t0 + 1090, 505, corr(c + 2));
  }
  auto t = load(e);
  ASSERT_EQ(t->iterations().count, 4);
  const Metrics m = computeMetrics(*t);
  const auto profile = builtinProfile("h200-calibrated");
  ASSERT_TRUE(profile);
  const RunAnalysis a = analyseRun(*t, m, &*profile);
  ASSERT_TRUE(a.derived && a.derived->ok()) << (a.derived ? a.derived->failure : "none");
  EXPECT_EQ(a.derived->config.memory, HostMemory::Pageable);
  EXPECT_EQ(a.derived->config.streams, 1);
  EXPECT_LT(std::fabs(a.derived->error), 0.10) << a.derived->simulatedNsPerIteration << " vs "
                                               << a.derived->traceNsPerIteration;
  ASSERT_TRUE(a.advice);
  ASSERT_FALSE(a.advice->items.empty());
  bool pinned = false;
  for (const auto& item : a.advice->items) {
    pinned = pinned || item.kind == AdviceKind::PinnedMemory;
    EXPECT_NE(item.kind, AdviceKind::MoreCpuWorkers) << "the CPU stages stand for the program's dispatch";
  }
  EXPECT_TRUE(pinned) << a.advice->items.front().sentence;
}

// ---------------------------------------------------------------------------------
// The PyTorch fixture.

const std::string kFixture =
    std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";

struct RawIteration {
  double kernelNs = 0;
  std::uint64_t h2dBytes = 0, d2hBytes = 0;
  int kernels = 0;
};

// Iterations computed from the raw events, independently of the importer: windows
// start at each host 'cpu_to_gpu' range; a GPU op belongs to the window of the runtime
// call with its correlation id.
std::vector<RawIteration> rawIterations() {
  JsonTextSource src(kFixture);
  const ChromeEvents e = readChromeEvents(src);
  auto str = [&](std::uint32_t i) { return e.strings[i]; };
  std::vector<std::int64_t> starts;
  std::map<std::int64_t, std::int64_t> launchTs;
  for (const auto& s : e.slices) {
    if (str(s.cat) == "user_annotation" && str(s.name) == "cpu_to_gpu") starts.push_back(s.ts);
    if ((str(s.cat) == "cuda_runtime" || str(s.cat) == "cuda_driver") && s.correlation > 0)
      launchTs[s.correlation] = s.ts;
  }
  std::sort(starts.begin(), starts.end());
  std::vector<RawIteration> out(starts.size());
  for (const auto& s : e.slices) {
    const std::string cat = str(s.cat);
    if (cat != "kernel" && cat != "gpu_memcpy") continue;
    const std::int64_t ts = launchTs.at(s.correlation);
    const auto i = std::upper_bound(starts.begin(), starts.end(), ts) - starts.begin() - 1;
    if (i < 0) continue;
    RawIteration& r = out[std::size_t(i)];
    if (cat == "kernel") {
      r.kernelNs += double(s.dur);
      ++r.kernels;
    } else if (str(s.name).find("HtoD") != std::string::npos) {
      r.h2dBytes += std::uint64_t(s.bytes);
    } else {
      r.d2hBytes += std::uint64_t(s.bytes);
    }
  }
  return out;
}

class IteratedFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ImportOptions o;
    o.batchSize = 16;
    trace_ = loadTraceFile(kFixture, o);
  }
  static void TearDownTestSuite() { trace_.reset(); }
  static std::shared_ptr<Trace> trace_;
};
std::shared_ptr<Trace> IteratedFixture::trace_;

TEST_F(IteratedFixture, SixIterationsStartingAtCpuToGpu) {
  const IterationInfo it = trace_->iterations();
  EXPECT_EQ(it.count, 6);
  EXPECT_EQ(it.marker, "cpu_to_gpu");
  EXPECT_EQ(it.source, "repeating host user ranges");
  EXPECT_TRUE(it.why.empty());
}

TEST_F(IteratedFixture, PerIterationStageTimesMatchTheRawEvents) {
  const auto raw = rawIterations();
  ASSERT_EQ(raw.size(), 6u);
  std::map<std::int32_t, RawIteration> got;
  trace_->ops().snapshot().forEach([&](const Op& op) {
    if (!isGpuKind(op.kind)) return;
    ASSERT_NE(op.batch, kNoBatch) << trace_->opName(op);
    RawIteration& r = got[op.batch];
    if (op.kind == OpKind::Kernel) r.kernelNs += double(op.duration()), ++r.kernels;
    if (op.kind == OpKind::CopyH2D) r.h2dBytes += op.bytes;
    if (op.kind == OpKind::CopyD2H) r.d2hBytes += op.bytes;
  });
  ASSERT_EQ(got.size(), 6u);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const RawIteration& g = got[std::int32_t(i)];
    EXPECT_EQ(g.kernels, raw[i].kernels) << "iteration " << i;
    EXPECT_NEAR(g.kernelNs, raw[i].kernelNs, 1.0 * raw[i].kernels) << "iteration " << i;
    EXPECT_EQ(g.h2dBytes, raw[i].h2dBytes) << "iteration " << i;
    EXPECT_EQ(g.d2hBytes, raw[i].d2hBytes) << "iteration " << i;
    EXPECT_EQ(raw[i].h2dBytes, 19267584u);
    EXPECT_EQ(raw[i].d2hBytes, 128000u);
  }
}

TEST_F(IteratedFixture, TheBatchAnalysisOfANativeRun) {
  const Metrics m = computeMetrics(*trace_);
  EXPECT_EQ(m.batches, 6);
  EXPECT_EQ(m.samples, 6 * 16);
  EXPECT_GT(m.samplesPerSec, 0);
  EXPECT_GT(m.idealBoundNs, 0);
  EXPECT_GT(m.efficiency, 0.3);
  EXPECT_LE(m.efficiency, 1.01);
  // ResNet-18 at batch 16 launches ~60 kernels per iteration from Python: the host's
  // dispatch time is most of each iteration.
  EXPECT_GT(m.hostPerBatchNs, m.perBatchOccupancy.h2dNs);
  EXPECT_NE(m.critical, CriticalResource::None);
  const RunAnalysis a = analyseRun(*trace_, m, nullptr);
  EXPECT_EQ(a.limits.batches, 6);
  EXPECT_GT(a.limits.fullOverlapNs, 0);
  EXPECT_FALSE(a.waitSentences.empty());
}

TEST_F(IteratedFixture, DerivedConfigurationReproducesTheTraceWithinTenPercent) {
  std::string why;
  const auto profile = profileForTrace(trace_->device(), "", why);
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->name, "h200-calibrated") << why;
  const Metrics m = computeMetrics(*trace_);
  const DerivedConfig d = deriveConfig(*trace_, m, *profile);
  ASSERT_TRUE(d.ok()) << d.failure;
  EXPECT_EQ(d.config.streams, 2);
  EXPECT_EQ(d.config.memory, HostMemory::Pinned);
  EXPECT_EQ(d.config.mode, TransferMode::Async);
  EXPECT_EQ(d.config.batchSamples, 16);
  EXPECT_EQ(d.config.batchBytes(), 19267584u);
  EXPECT_EQ(d.config.d2hBytes(), 128000u);
  EXPECT_EQ(d.config.batchCount, 6);
  EXPECT_LT(std::fabs(d.error), 0.10) << "simulated " << d.simulatedNsPerIteration << " ns per iteration vs "
                                      << d.traceNsPerIteration;
  // The advice works from it.
  const RunAnalysis a = analyseRun(*trace_, m, &*profile);
  ASSERT_TRUE(a.derived);
  ASSERT_TRUE(a.advice);
  EXPECT_TRUE(a.advice->error.empty()) << a.advice->error;
}

// Two more real traces from an H100 (tools/pytorch-traces.py, 2026-11-26): the
// stages with record_shapes=True, and a ResNet-50 loop at batch 64 that never
// synchronises per iteration.
TEST(ImportedPyTorchTraces, BatchSizeIsReadFromTheRecordedInputShapes) {
  const auto trace =
      loadTraceFile(std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-h100-record-shapes.json.gz", ImportOptions{});
  const IterationInfo it = trace->iterations();
  EXPECT_GT(it.count, 0) << it.why;
  EXPECT_EQ(it.samplesPerIteration, 16) << it.samplesSource;
  EXPECT_FALSE(it.samplesSource.empty());
  EXPECT_GT(computeMetrics(*trace).samplesPerSec, 0);
}

TEST(ImportedPyTorchTraces, AGpuBoundLoopIsLimitedByTheComputeEngine) {
  const auto trace =
      loadTraceFile(std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-h100-gpu-bound.json.gz", ImportOptions{});
  ASSERT_GT(trace->iterations().count, 0) << trace->iterations().why;
  const Metrics m = computeMetrics(*trace);
  EXPECT_EQ(m.critical, CriticalResource::ComputeEngine) << toString(m.critical);
  EXPECT_LE(m.efficiency, 1.01);
}

}  // namespace
}  // namespace pipescope
