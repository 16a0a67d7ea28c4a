// Recording real CUDA programs through libpipescope-inject.so: a small program built
// with the tests (two streams, pinned copies, an NVTX range per iteration) must come
// out with its lanes, ops and iterations; a program that crashes keeps what it sent.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <set>

#include "GpuTestEnvironment.h"
#include "io/TraceFiles.h"
#include "record/InjectionLibrary.h"
#include "record/Recorder.h"
#include "record/RecordingAnalysis.h"

namespace pipescope::record {
namespace {

class RecordGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    PIPESCOPE_LOAD_CUDA_MODULE(cuda);
    const CudaProbe probe = cuda.probe();
    if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
    if (!sanitizerTool().empty()) GTEST_SKIP() << "compute-sanitizer holds CUDA's injection hook itself";
    std::string why;
    const auto lib = findInjectionLibrary(why);
    ASSERT_TRUE(lib) << why;
    library_ = *lib;
  }
  std::shared_ptr<Trace> record(std::vector<std::string> args, Recorder*& out) {
    RecordRequest r;
    r.command = {PIPESCOPE_RECORD_SAMPLE};
    r.command.insert(r.command.end(), args.begin(), args.end());
    r.injectLibrary = library_;
    recorder_ = std::make_unique<Recorder>(r);
    auto trace = recorder_->start();
    recorder_->waitForRecording();
    out = recorder_.get();
    return trace;
  }
  std::string library_;
  std::unique_ptr<Recorder> recorder_;
};

std::string laneName(const Trace& t, std::uint16_t lane) { return lane == kNoLane ? "" : t.lanes().at(lane).name; }

TEST_F(RecordGpu, ASmallProgramComesOutWithItsLanesOpsAndIterations) {
  Recorder* r = nullptr;
  const auto trace = record({"8"}, r);
  ASSERT_TRUE(r->programStatus());
  EXPECT_EQ(r->programStatus()->shellCode(), 0) << r->programStatus()->describe();
  const auto processes = r->processes();
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_TRUE(processes[0].endedCleanly) << processes[0].problem;
  for (const auto& f : r->findings()) ADD_FAILURE() << "unexpected finding: " << f;
  EXPECT_FALSE(trace->device().name.empty());

  std::map<OpKind, int> kinds;
  std::set<std::string> streamLanes, engineLanes;
  std::vector<Op> gpu;
  trace->ops().snapshot().forEach([&](const Op& op) {
    ++kinds[op.kind];
    EXPECT_GE(op.end, op.start);
    if (!isGpuKind(op.kind)) return;
    gpu.push_back(op);
    streamLanes.insert(laneName(*trace, op.lane));
    engineLanes.insert(laneName(*trace, op.engineLane));
    // Submitted by its launch, ready when its stream got to it, then run.
    EXPECT_LE(op.submit, op.ready);
    EXPECT_LE(op.ready, op.start);
    EXPECT_GT(op.start - op.submit, 0) << "a GPU op starts after the call that issued it";
    if (isCopyKind(op.kind)) {
      EXPECT_EQ(op.bytes, 16u << 20);
      EXPECT_EQ(op.flags & kOpPageable, 0) << "the sample copies from pinned memory";
    }
  });
  EXPECT_EQ(kinds[OpKind::Kernel], 8);
  EXPECT_EQ(kinds[OpKind::CopyH2D], 8);
  EXPECT_EQ(kinds[OpKind::CopyD2H], 8);
  EXPECT_EQ(kinds[OpKind::Annotation], 8) << "one NVTX range per iteration";
  EXPECT_GE(kinds[OpKind::ApiCall] + kinds[OpKind::HostSync], 24);
  EXPECT_EQ(streamLanes.size(), 2u) << "two streams";
  EXPECT_TRUE(engineLanes.count("H2D copy engine"));
  EXPECT_TRUE(engineLanes.count("D2H copy engine"));
  EXPECT_TRUE(engineLanes.count("compute engine"));
  bool mainThread = false;
  for (const Lane& l : trace->lanes()) mainThread = mainThread || l.name == "main thread · CUDA API";
  EXPECT_TRUE(mainThread);
  // Only calls that put work on the GPU, wait or manage memory are recorded: not the
  // sample's cudaGetLastError after each launch, nor its cudaSetDevice.
  const std::vector<std::string> names = trace->names();
  std::set<std::string> calls;
  trace->ops().snapshot().forEach([&](const Op& op) {
    if ((op.kind == OpKind::ApiCall || op.kind == OpKind::HostSync) && op.name < names.size())
      calls.insert(names[op.name]);
  });
  EXPECT_TRUE(calls.count("cudaMemcpyAsync"));
  EXPECT_TRUE(calls.count("cudaDeviceSynchronize"));
  EXPECT_FALSE(calls.count("cudaGetLastError"));
  EXPECT_FALSE(calls.count("cudaSetDevice"));
  // Stream order: on each stream, an op starts after the previous one ended.
  std::map<std::int16_t, std::vector<Op>> byStream;
  for (const Op& op : gpu) byStream[op.stream].push_back(op);
  for (auto& [s, ops] : byStream) {
    std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < ops.size(); ++i) EXPECT_GE(ops[i].start, ops[i - 1].end) << "stream " << s;
  }

  const auto analysed = analysedRecording(*trace, {});
  EXPECT_EQ(analysed->iterations().count, 8) << analysed->iterations().why;
}

TEST_F(RecordGpu, PageableCopiesAreFlaggedAndTheirCallsAreWaits) {
  Recorder* r = nullptr;
  const auto trace = record({"4", "pageable"}, r);
  int pageable = 0;
  std::set<std::uint32_t> copyCalls;
  trace->ops().snapshot().forEach([&](const Op& op) {
    if (isCopyKind(op.kind) && (op.flags & kOpPageable)) {
      ++pageable;
      copyCalls.insert(op.correlation);
    }
  });
  EXPECT_EQ(pageable, 8);
  int waits = 0;
  trace->ops().snapshot().forEach([&](const Op& op) {
    if (!isGpuKind(op.kind) && copyCalls.count(op.correlation)) waits += op.kind == OpKind::HostSync;
  });
  EXPECT_GE(waits, 4) << "the host waits in a pageable copy's call";
}

TEST_F(RecordGpu, ACrashedProgramKeepsWhatItSentAndTheFileOpens) {
  const std::string path = ::testing::TempDir() + "record-crash-" + std::to_string(::getpid()) + ".pipescope";
  std::string cmd = std::string(PIPESCOPE_CLI) + " record --quiet --trace " + path + " -- " + PIPESCOPE_RECORD_SAMPLE +
                    " 6 crash";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGSEGV);
  const auto trace = loadTraceFile(path);
  EXPECT_EQ(trace->outcome().state, RunState::Failed);
  int kernels = 0;
  trace->ops().snapshot().forEach([&](const Op& op) { kernels += op.kind == OpKind::Kernel; });
  EXPECT_EQ(kernels, 6) << "everything flushed before the crash is in the file";
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pipescope::record
