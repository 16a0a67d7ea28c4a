// The CUDA backend on a real GPU: every mode runs, and the recorded ops obey
// CUDA's ordering and overlap rules. Every test skips cleanly without a GPU.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <chrono>
#include <cstdio>
#include <stop_token>
#include <thread>
#include <vector>

#include "GpuTestEnvironment.h"

namespace pipescope {
namespace {

class CudaBackendTest : public CudaBackendFixture {
 protected:
  /// Small, fast configuration: 8 batches of 4 MiB.
  static PipelineConfig small() {
    PipelineConfig c;
    c.batchSamples = 8;
    c.sampleBytes = 512 * 1024;
    c.batchCount = 8;
    c.modelFlopsPerByte = 200;
    return c;
  }

  std::vector<Op> run(const PipelineConfig& c, RunOutcome* outcome = nullptr) {
    trace_ = std::make_unique<Trace>();
    trace_->setConfig(c);
    RunControl control;
    const RunOutcome o = backend_->run(c, *trace_, control);
    if (trace_->device().timingSource != "CUPTI")
      std::printf("[   NOTE   ] timing source: %s (%s)\n", trace_->device().timingSource.c_str(),
                  trace_->device().note.c_str());
    if (outcome) *outcome = o;
    else EXPECT_EQ(o.state, RunState::Finished) << o.message;
    std::vector<Op> ops;
    trace_->ops().snapshot().forEach([&](const Op& op) { ops.push_back(op); });
    return ops;
  }

  static std::vector<Op> ofKind(const std::vector<Op>& ops, OpKind k) {
    std::vector<Op> out;
    for (const Op& op : ops)
      if (op.kind == k) out.push_back(op);
    return out;
  }
  static bool overlaps(const Op& a, const Op& b) { return a.start < b.end && b.start < a.end; }

  /// Rules every trace obeys: ready <= start <= end, and ops of one stream never overlap.
  static void expectWellFormed(const std::vector<Op>& ops) {
    std::vector<std::vector<Op>> byStream(64);
    for (const Op& op : ops) {
      EXPECT_LE(op.start, op.end);
      if (!isGpuKind(op.kind)) continue;
      EXPECT_LE(op.submit, op.ready);
      EXPECT_LE(op.ready, op.start);
      EXPECT_NE(op.correlation, 0u);
      ASSERT_GE(op.stream, 0);
      byStream[std::size_t(op.stream)].push_back(op);
    }
    for (auto& s : byStream) {
      std::sort(s.begin(), s.end(), [](const Op& a, const Op& b) { return a.correlation < b.correlation; });
      for (std::size_t i = 1; i < s.size(); ++i) EXPECT_GE(s[i].start, s[i - 1].end) << "stream order broken";
    }
    // Each GPU op has exactly one API call with its correlation.
    for (const Op& op : ops) {
      if (!isGpuKind(op.kind)) continue;
      const auto n = std::count_if(ops.begin(), ops.end(), [&](const Op& o) {
        return o.kind == OpKind::ApiCall && o.correlation == op.correlation;
      });
      EXPECT_EQ(n, 1);
    }
  }

  std::unique_ptr<Trace> trace_;
};

TEST_F(CudaBackendTest, DescribesTheDeviceAndUsesCupti) {
  const DeviceInfo d = backend_->describe();
  EXPECT_EQ(d.backend, "cuda");
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.computeMajor, 7);
  EXPECT_GE(d.copyEngines, 1);
  EXPECT_GT(d.memoryBytes, 0u);
  run(small());
  if (!sanitizerTool().empty() && trace_->device().timingSource != "CUPTI")
    GTEST_SKIP() << "under compute-sanitizer (" << sanitizerTool()
                 << ") CUPTI cannot subscribe beside the sanitizer: " << trace_->device().note;
  EXPECT_EQ(trace_->device().timingSource, "CUPTI") << trace_->device().note;
}

// Another CUPTI client in the process (a profiler library, a benchmark's own tracer)
// may register its buffer callbacks between two runs: CUPTI has one pair per process,
// so each run registers the backend's again, or its records would go to that client.
std::atomic<int> gForeignBuffers{0};
void foreignBufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, 1 << 20));
  *size = *buffer ? 1 << 20 : 0;
  *maxRecords = 0;
}
void foreignBufferCompleted(void*, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  if (valid > 0) ++gForeignBuffers;
  std::free(buffer);
}
/// The libcupti the backend loaded, found among the process's objects (its file name
/// carries a version that differs between toolkits).
void* loadedCupti() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name && std::string(info->dlpi_name).find("libcupti.so") != std::string::npos) {
          *static_cast<std::string*>(out) = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &path);
  return path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
}

TEST_F(CudaBackendTest, ARunTakesCuptisRecordsBackFromAnotherClient) {
  run(small());
  if (trace_->device().timingSource != "CUPTI") GTEST_SKIP() << "timed with " << trace_->device().timingSource;
  void* cupti = loadedCupti();
  ASSERT_NE(cupti, nullptr) << "the run was timed by CUPTI, so libcupti is loaded";
  using Register = int (*)(decltype(&foreignBufferRequested), decltype(&foreignBufferCompleted));
  const auto registerCallbacks = reinterpret_cast<Register>(dlsym(cupti, "cuptiActivityRegisterCallbacks"));
  ASSERT_NE(registerCallbacks, nullptr);
  ASSERT_EQ(registerCallbacks(foreignBufferRequested, foreignBufferCompleted), 0);  // CUPTI_SUCCESS
  gForeignBuffers = 0;
  const std::vector<Op> ops = run(small());
  dlclose(cupti);
  EXPECT_EQ(trace_->device().timingSource, "CUPTI");
  EXPECT_EQ(gForeignBuffers.load(), 0) << "the other client got this run's records";
  // Every kernel and copy has its engine time from CUPTI's records.
  std::size_t timed = 0, gpuOps = 0;
  for (const Op& op : ops) {
    if (!isGpuKind(op.kind)) continue;
    ++gpuOps;
    if (op.end > op.start) ++timed;
  }
  EXPECT_GT(gpuOps, 0u);
  EXPECT_EQ(timed, gpuOps);
}

TEST_F(CudaBackendTest, BlockingPinnedRecordsEveryStageInOrder) {
  PipelineConfig c = small();
  c.mode = TransferMode::Blocking;
  c.preprocessOpsPerByte = 1;
  c.postprocessOpsPerByte = 1;
  const auto ops = run(c);
  expectWellFormed(ops);
  EXPECT_EQ(trace_->completedBatches(), 8);
  EXPECT_EQ(ofKind(ops, OpKind::CopyH2D).size(), 8u);
  EXPECT_EQ(ofKind(ops, OpKind::CopyD2H).size(), 8u);
  EXPECT_EQ(ofKind(ops, OpKind::Kernel).size(), 16u);  // normalize + model
  EXPECT_EQ(ofKind(ops, OpKind::Preprocess).size(), 8u);
  EXPECT_EQ(ofKind(ops, OpKind::Postprocess).size(), 8u);
  // Blocking: nothing of batch i+1 starts before batch i is back on the host.
  const auto h2d = ofKind(ops, OpKind::CopyH2D);
  const auto d2h = ofKind(ops, OpKind::CopyD2H);
  for (std::size_t i = 1; i < h2d.size(); ++i) EXPECT_GE(h2d[i].start, d2h[i - 1].end);
  for (const Op& op : h2d) EXPECT_TRUE(op.flags & kOpBlockingCall);
}

TEST_F(CudaBackendTest, PageableAsyncCopiesNeverOverlapCompute) {
  PipelineConfig c = small();
  c.memory = HostMemory::Pageable;
  c.streams = 4;
  const auto ops = run(c);
  expectWellFormed(ops);
  const auto kernels = ofKind(ops, OpKind::Kernel);
  for (const Op& copy : ops) {
    if (!isCopyKind(copy.kind)) continue;
    EXPECT_TRUE(copy.flags & kOpPageable);
    for (const Op& k : kernels) EXPECT_FALSE(overlaps(copy, k)) << "pageable copy of batch " << copy.batch;
  }
}

TEST_F(CudaBackendTest, PinnedTwoStreamsOverlapCopyWithCompute) {
  PipelineConfig c = small();
  c.streams = 2;
  c.modelFlopsPerByte = 800;
  const auto ops = run(c);
  expectWellFormed(ops);
  const auto h2d = ofKind(ops, OpKind::CopyH2D);
  int overlapped = 0;
  for (const Op& k : ofKind(ops, OpKind::Kernel))
    for (const Op& h : h2d)
      if (h.batch == k.batch + 1 && overlaps(h, k)) ++overlapped;
  EXPECT_GT(overlapped, 0) << "H2D of batch i+1 never overlapped a kernel of batch i";
}

TEST_F(CudaBackendTest, CopiesOfOneDirectionNeverOverlap) {
  PipelineConfig c = small();
  c.streams = 8;
  c.batchCount = 16;
  const auto ops = run(c);
  expectWellFormed(ops);
  // Only engine timestamps can show serialisation; event times include queueing.
  if (trace_->device().timingSource != "CUPTI") GTEST_SKIP() << "timed with " << trace_->device().timingSource;
  for (OpKind k : {OpKind::CopyH2D, OpKind::CopyD2H}) {
    auto copies = ofKind(ops, k);
    std::sort(copies.begin(), copies.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < copies.size(); ++i)
      EXPECT_GE(copies[i].start, copies[i - 1].end) << toString(k) << " copies of batches " << copies[i - 1].batch
                                                   << " and " << copies[i].batch << " overlap";
  }
}

TEST_F(CudaBackendTest, BreadthFirstIssuesAllCopiesOfAGroupBeforeItsKernels) {
  PipelineConfig c = small();
  c.streams = 4;
  c.order = IssueOrder::BreadthFirst;
  const auto ops = run(c);
  expectWellFormed(ops);
  // API calls in submit order: within batches 0..3 every H2D call precedes every launch.
  std::int64_t lastH2dCall = 0, firstLaunch = INT64_MAX;
  for (const Op& api : ofKind(ops, OpKind::ApiCall)) {
    if (api.batch > 3) continue;
    const std::string name = trace_->opName(api);
    if (name.find("H2D") != std::string::npos) lastH2dCall = std::max(lastH2dCall, api.start);
    if (name == "cudaLaunchKernel") firstLaunch = std::min(firstLaunch, api.start);
  }
  EXPECT_LT(lastH2dCall, firstLaunch);
}

TEST_F(CudaBackendTest, EveryHostMemoryKindRuns) {
  for (HostMemory m : {HostMemory::Pageable, HostMemory::Pinned, HostMemory::Registered, HostMemory::Mapped,
                       HostMemory::Managed}) {
    for (TransferMode mode : {TransferMode::Blocking, TransferMode::Async}) {
      SCOPED_TRACE(std::string(toString(m)) + " " + std::string(toString(mode)));
      PipelineConfig c = small();
      c.memory = m;
      c.mode = mode;
      c.streams = mode == TransferMode::Async ? 2 : 1;
      c.postprocessOpsPerByte = 0.5;
      const auto ops = run(c);
      expectWellFormed(ops);
      EXPECT_EQ(trace_->completedBatches(), 8);
      const auto h2d = ofKind(ops, OpKind::CopyH2D);
      if (m == HostMemory::Mapped || m == HostMemory::Managed) {
        EXPECT_TRUE(h2d.empty());
        for (const Op& k : ofKind(ops, OpKind::Kernel))
          EXPECT_TRUE(k.flags & (m == HostMemory::Mapped ? kOpMapped : kOpManaged));
      } else {
        EXPECT_EQ(h2d.size(), 8u);
      }
    }
  }
}

// Prefetches are event-timed among CUPTI-timed kernels: the event clock is aligned
// to CUPTI's at run start, and ops of a stream are finalised in issue order.
TEST_F(CudaBackendTest, ManagedPrefetchKeepsStreamOrder) {
  for (TransferMode mode : {TransferMode::Blocking, TransferMode::Async}) {
    PipelineConfig c = small();
    c.memory = HostMemory::ManagedPrefetch;
    c.mode = mode;
    c.streams = mode == TransferMode::Async ? 2 : 1;
    const auto ops = run(c);
    expectWellFormed(ops);
    EXPECT_EQ(trace_->completedBatches(), 8);
    const auto h2d = ofKind(ops, OpKind::CopyH2D);
    EXPECT_EQ(h2d.size(), 8u);
    for (const Op& op : h2d) EXPECT_TRUE(op.flags & kOpManaged);
  }
}

TEST_F(CudaBackendTest, ChunksRoiAndResidencyShapeTheCopies) {
  PipelineConfig c = small();
  c.streams = 2;
  c.transferChunks = 4;
  c.roiFraction = 0.25;
  auto ops = run(c);
  expectWellFormed(ops);
  const auto h2d = ofKind(ops, OpKind::CopyH2D);
  ASSERT_EQ(h2d.size(), 32u);
  std::uint64_t bytes = 0;
  for (const Op& op : h2d) bytes += op.bytes;
  EXPECT_EQ(bytes, 8 * c.batchBytes());
  std::uint64_t back = 0;
  for (const Op& op : ofKind(ops, OpKind::CopyD2H)) back += op.bytes;
  EXPECT_EQ(back, 8 * c.d2hBytes());

  c = small();
  c.streams = 2;
  c.residency = DataResidency::KeepResident;
  ops = run(c);
  EXPECT_EQ(ofKind(ops, OpKind::CopyH2D).size(), 2u);  // once per stream's buffer
  EXPECT_EQ(ofKind(ops, OpKind::CopyD2H).size(), 8u);
}

// Retiring a batch finalises each stream's ops from that stream's own queue: with 16
// streams of small batches in flight, every op must still come out once, in its
// stream's issue order, with event-timed prefetches among CUPTI-timed ops too.
TEST_F(CudaBackendTest, ManyStreamsOfSmallBatchesRecordEveryOpInIssueOrder) {
  for (HostMemory m : {HostMemory::Pinned, HostMemory::ManagedPrefetch}) {
    SCOPED_TRACE(std::string(toString(m)));
    PipelineConfig c;
    c.batchSamples = 1;
    c.sampleBytes = 64 * 1024;
    c.mode = TransferMode::Async;
    c.memory = m;
    c.streams = m == HostMemory::Pinned ? 16 : 8;
    c.transferChunks = m == HostMemory::Pinned ? 4 : 1;
    c.batchCount = 160;
    const auto ops = run(c);
    expectWellFormed(ops);
    const std::size_t copies = std::size_t(c.batchCount * c.transferChunks);
    EXPECT_EQ(ofKind(ops, OpKind::CopyH2D).size(), copies);
    EXPECT_EQ(ofKind(ops, OpKind::CopyD2H).size(), copies);
    EXPECT_EQ(ofKind(ops, OpKind::Kernel).size(), std::size_t(2 * c.batchCount));  // normalize, model
    std::vector<int> perBatch(std::size_t(c.batchCount), 0);
    std::vector<std::uint32_t> lastCorrelation(64, 0);
    for (const Op& op : ops) {
      if (!isGpuKind(op.kind)) continue;
      ASSERT_GE(op.batch, 0);
      ASSERT_LT(op.batch, c.batchCount);
      ++perBatch[std::size_t(op.batch)];
      std::uint32_t& last = lastCorrelation[std::size_t(op.stream)];
      EXPECT_GT(op.correlation, last) << "stream " << op.stream << ": an op appended out of issue order";
      last = op.correlation;
    }
    for (int b = 0; b < c.batchCount; ++b)
      EXPECT_EQ(perBatch[std::size_t(b)], 2 * c.transferChunks + 2) << "batch " << b;
  }
}

TEST_F(CudaBackendTest, CublasPresetsRunRealGemms) {
  if (sanitizerTool() == "racecheck")
    GTEST_SKIP() << "cuBLAS' GEMMs take minutes under racecheck, which checks shared-memory hazards of our own "
                    "kernels (the other tests run them all); memcheck covers this test";
  for (ModelPreset p : {ModelPreset::Light, ModelPreset::Heavy}) {
    SCOPED_TRACE(std::string(toString(p)));
    PipelineConfig c = small();
    c.model = p;
    c.streams = 2;
    c.batchCount = 4;
    const auto ops = run(c);
    expectWellFormed(ops);
    int gemms = 0;
    for (const Op& k : ofKind(ops, OpKind::Kernel))
      if (trace_->opName(k) == "gemm") ++gemms;
    EXPECT_EQ(gemms, 4 * (p == ModelPreset::Light ? 8 : 13));
  }
}

TEST_F(CudaBackendTest, EverySyncModeRuns) {
  for (SyncMode s : {SyncMode::Spin, SyncMode::Yield, SyncMode::Blocking}) {
    PipelineConfig c = small();
    c.sync = s;
    c.streams = 2;
    c.cpuWorkers = 3;
    c.preprocessOpsPerByte = 0.5;
    const auto ops = run(c);
    expectWellFormed(ops);
    EXPECT_EQ(ofKind(ops, OpKind::Preprocess).size(), 24u);  // one per worker per batch
  }
}

TEST_F(CudaBackendTest, OversizedConfigurationIsRefusedBeforeAllocating) {
  PipelineConfig c = small();
  c.streams = 32;
  c.batchSamples = 16 * 1024;
  c.sampleBytes = 1 << 20;  // 16 GiB per batch, 512 GiB in all
  RunOutcome o;
  const auto ops = run(c, &o);
  EXPECT_EQ(o.state, RunState::Failed);
  EXPECT_NE(o.message.find("GPU memory"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("fewer streams"), std::string::npos) << o.message;
  EXPECT_TRUE(ops.empty());
}

TEST_F(CudaBackendTest, RunsUntilStoppedAndStopsCleanly) {
  PipelineConfig c = small();
  c.batchCount = 0;
  c.streams = 2;
  trace_ = std::make_unique<Trace>();
  std::stop_source stop;
  RunControl control;
  control.stop = stop.get_token();
  std::thread stopper([&] {
    while (trace_->completedBatches() < 20) std::this_thread::yield();
    stop.request_stop();
  });
  const RunOutcome o = backend_->run(c, *trace_, control);
  stopper.join();
  EXPECT_EQ(o.state, RunState::Stopped) << o.message;
  EXPECT_GE(trace_->completedBatches(), 20);
}

// The live view shows GPU ops while the run goes: they reach the trace store within
// a fraction of a second of running, not when the run ends (CUPTI delivered a run's
// correlation records only at its end before the recorder flushed them itself).
TEST_F(CudaBackendTest, GpuOpsReachTheTraceWhileTheRunGoes) {
  PipelineConfig c = small();
  c.batchCount = 0;
  c.streams = 2;
  trace_ = std::make_unique<Trace>();
  std::stop_source stop;
  RunControl control;
  control.stop = stop.get_token();
  bool gpuOpSeenLive = false;
  std::thread watcher([&] {
    // Up to 3 s (the recorder flushes every 100 ms); the run is stopped either way.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!gpuOpSeenLive && std::chrono::steady_clock::now() < deadline) {
      trace_->ops().snapshot().forEach([&](const Op& op) {
        if (op.kind == OpKind::CopyH2D || op.kind == OpKind::Kernel || op.kind == OpKind::CopyD2H) gpuOpSeenLive = true;
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop.request_stop();
  });
  const RunOutcome o = backend_->run(c, *trace_, control);
  watcher.join();
  EXPECT_EQ(o.state, RunState::Stopped) << o.message;
  EXPECT_TRUE(gpuOpSeenLive) << "no GPU op was published during the run (" << trace_->completedBatches()
                             << " batches completed)";
}

TEST_F(CudaBackendTest, QueuedConfigurationTakesEffectAtABatchBoundary) {
  PipelineConfig c = small();
  c.streams = 2;
  PipelineConfig next = c;
  next.streams = 4;
  next.batchSamples = 4;
  trace_ = std::make_unique<Trace>();
  trace_->setConfig(c);
  RunControl control;
  int calls = 0;
  control.takePendingConfig = [&]() -> std::optional<PipelineConfig> {
    if (++calls == 3) return next;
    return std::nullopt;
  };
  const RunOutcome o = backend_->run(c, *trace_, control);
  EXPECT_EQ(o.state, RunState::Finished) << o.message;
  const auto history = trace_->configHistory();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].firstBatch, 2);
  EXPECT_EQ(history[1].config.streams, 4);
  EXPECT_EQ(trace_->completedBatches(), 8);
}

}  // namespace
}  // namespace pipescope
