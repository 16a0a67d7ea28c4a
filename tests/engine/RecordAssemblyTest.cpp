// Activity records of a recorded process, through the translator and the wire, into
// the trace's lanes and ops: what the live view and the analysis of a recording see.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "RecordTestSupport.h"

namespace pipescope {
namespace {

using namespace pipescope::testing;
using record::GpuRecord;
using record::MarkerRecord;

TEST(RecordAssembly, AKernelGetsItsLaunchAsSubmitWhateverOrderTheRecordsCameIn) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.threadSighting({11, kProcessPid, "python3"});
  // CUPTI may deliver the kernel before the call that launched it.
  t.gpu(kernel("gemm", 50, 80, 11));
  t.api(apiCall("cudaLaunchKernel", 10, 14, 11));
  p.endRound();
  const auto trace = p.toTrace();
  const Op k = findOp(*trace, OpKind::Kernel, "gemm");
  EXPECT_EQ(k.submit, 10'000);
  EXPECT_EQ(k.ready, 10'000);  // first op of its stream: ready when submitted
  EXPECT_EQ(k.start, 50'000);
  EXPECT_EQ(k.end, 80'000);
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(laneName(*trace, k.lane), "stream 7");
  EXPECT_EQ(laneName(*trace, k.engineLane), "compute engine");
  const Op call = findOp(*trace, OpKind::ApiCall, "cudaLaunchKernel");
  EXPECT_EQ(laneName(*trace, call.lane), "main thread · CUDA API");
  EXPECT_EQ(call.correlation, k.correlation);
}

TEST(RecordAssembly, AStreamWaitsInOrderForALateLaunchAndReadyIsThePreviousEnd) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.gpu(kernel("first", 50, 80, 21));
  t.gpu(kernel("second", 90, 120, 22));
  t.api(apiCall("cudaLaunchKernel", 12, 14, 22));
  p.endRound();  // "second" is launched but waits behind "first", whose launch is not in yet
  EXPECT_EQ(t.opsSent(), 1u) << "only the call went out";
  t.api(apiCall("cudaLaunchKernel", 10, 11, 21));
  p.endRound();
  const auto trace = p.toTrace();
  const auto ops = opsOf(*trace);
  std::vector<std::string> kernels;
  for (const Op& op : ops)
    if (op.kind == OpKind::Kernel) kernels.push_back(trace->opName(op));
  EXPECT_EQ(kernels, (std::vector<std::string>{"first", "second"}));
  const Op second = findOp(*trace, OpKind::Kernel, "second");
  EXPECT_EQ(second.submit, 12'000);
  EXPECT_EQ(second.ready, 80'000);  // the end of "first"
}

TEST(RecordAssembly, AKernelWhoseLaunchNeverComesGoesOutAfterTwoRounds) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.gpu(kernel("orphan", 50, 80, 31));
  p.endRound();
  p.endRound();
  EXPECT_EQ(t.opsSent(), 0u) << "held while its launch may still come";
  p.endRound();
  EXPECT_EQ(t.opsSent(), 1u);
  const Op k = findOp(*p.toTrace(), OpKind::Kernel, "orphan");
  EXPECT_EQ(k.submit, k.start) << "no launch known: submitted when it started";
}

TEST(RecordAssembly, CopiesCarryTheirHostMemoryAndABlockingCallBecomesAWait) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  using D = GpuRecord::Direction;
  using M = GpuRecord::HostMemory;
  t.api(apiCall("cudaMemcpyAsync", 0, 30, 41));
  t.gpu(copy(D::HostToDevice, M::Pageable, true, 5, 25, 41));
  t.api(apiCall("cudaMemcpyAsync", 31, 33, 42));
  t.gpu(copy(D::HostToDevice, M::Pinned, true, 40, 60, 42));
  t.api(apiCall("cudaMemcpy", 61, 90, 43));
  t.gpu(copy(D::DeviceToHost, M::Pinned, false, 70, 88, 43));
  t.api(apiCall("cudaMemcpyAsync", 91, 92, 44));
  t.gpu(copy(D::HostToDevice, M::Managed, true, 95, 99, 44));
  p.endRound();
  const auto trace = p.toTrace();
  std::vector<Op> copies, calls;
  for (const Op& op : opsOf(*trace)) {
    if (isCopyKind(op.kind)) copies.push_back(op);
    if (op.kind == OpKind::HostSync || op.kind == OpKind::ApiCall) calls.push_back(op);
  }
  std::sort(copies.begin(), copies.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
  std::sort(calls.begin(), calls.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
  ASSERT_EQ(copies.size(), 4u);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(copies[0].flags, kOpPageable);
  EXPECT_EQ(copies[1].flags, 0);
  EXPECT_EQ(copies[2].flags, kOpBlockingCall);
  EXPECT_EQ(copies[2].kind, OpKind::CopyD2H);
  EXPECT_EQ(laneName(*trace, copies[2].engineLane), "D2H copy engine");
  EXPECT_EQ(copies[3].flags, kOpManaged);
  EXPECT_EQ(calls[0].kind, OpKind::HostSync) << "a pageable copy holds the host in its call";
  EXPECT_EQ(calls[1].kind, OpKind::ApiCall);
  EXPECT_EQ(calls[2].kind, OpKind::HostSync) << "cudaMemcpy waits for its copy";
  EXPECT_EQ(calls[3].kind, OpKind::ApiCall);
}

TEST(RecordAssembly, ACopyCallWaitsARoundForItsCopyToSayWhetherTheHostWaited) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  using D = GpuRecord::Direction;
  using M = GpuRecord::HostMemory;
  t.api(apiCall("cudaMemcpyAsync", 0, 30, 91));
  p.endRound();  // the copy's record comes in the next flush
  EXPECT_EQ(t.opsSent(), 0u);
  t.gpu(copy(D::HostToDevice, M::Pageable, true, 5, 29, 91));
  p.endRound();
  const auto trace = p.toTrace();
  EXPECT_EQ(findOp(*trace, OpKind::HostSync, "cudaMemcpyAsync").correlation, findOp(*trace, OpKind::CopyH2D).correlation);
}

TEST(RecordAssembly, AStreamSynchronizeSaysWhichStreamItWaitedFor) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.api(apiCall("cudaLaunchKernel", 0, 2, 51));
  t.gpu(kernel("k", 5, 50, 51, /*stream=*/13));
  record::SyncRecord s;
  s.type = record::SyncRecord::Type::StreamSynchronize;
  s.correlation = 52;
  s.context = 1;
  s.stream = 13;
  s.start = at(3);
  s.end = at(50);
  t.sync(s);
  t.api(apiCall("cudaStreamSynchronize", 3, 51, 52));
  p.endRound();
  const auto trace = p.toTrace();
  const Op wait = findOp(*trace, OpKind::HostSync, "cudaStreamSynchronize");
  EXPECT_EQ(wait.stream, 13);
}

TEST(RecordAssembly, NestedDriverCallsAreDroppedAndDirectOnesHaveTheirOwnLane) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.api(apiCall("cuLaunchKernel", 1, 3, 61, 1, /*driver=*/true));  // inside the runtime call below
  p.endRound();
  t.api(apiCall("cudaLaunchKernel", 0, 4, 61));
  t.api(apiCall("cuLaunchKernel", 10, 12, 62, 1, /*driver=*/true));  // Triton-style: the driver directly
  t.gpu(kernel("triton_kernel", 20, 30, 62));
  p.endRound();
  p.endRound();
  const auto trace = p.toTrace();
  int driverCalls = 0;
  for (const Op& op : opsOf(*trace))
    if (trace->opName(op) == "cuLaunchKernel") {
      ++driverCalls;
      EXPECT_EQ(laneName(*trace, op.lane), "thread #1 · driver API");
      EXPECT_EQ(op.start, 10'000);
    }
  EXPECT_EQ(driverCalls, 1);
  EXPECT_EQ(findOp(*trace, OpKind::Kernel, "triton_kernel").submit, 10'000);
}

TEST(RecordAssembly, NvtxRangesNestOnLevelsThatNeverOverlapAndMarkUserRanges) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  auto mark = [&](MarkerRecord::Point point, std::uint32_t id, double us, const std::string& name = {}) {
    MarkerRecord m;
    m.point = point;
    m.id = id;
    m.time = at(us);
    m.threadId = 1;
    m.name = name;
    t.marker(m);
  };
  mark(MarkerRecord::Point::Start, 1, 0, "iteration");
  mark(MarkerRecord::Point::Start, 2, 10, "forward");
  mark(MarkerRecord::Point::End, 2, 40);
  mark(MarkerRecord::Point::Start, 3, 45, "backward");
  mark(MarkerRecord::Point::End, 3, 90);
  mark(MarkerRecord::Point::End, 1, 100);
  mark(MarkerRecord::Point::Start, 4, 100, "iteration");  // still open when the process ends
  t.api(apiCall("cudaDeviceSynchronize", 150, 170, 71));
  p.endRound();
  p.finish();
  const auto trace = p.toTrace();
  std::set<std::string> lanes;
  int ranges = 0;
  for (const Op& op : opsOf(*trace)) {
    if (op.kind != OpKind::Annotation) continue;
    ++ranges;
    EXPECT_EQ(op.flags, kOpUserRange | kOpHostWork);
    const std::string name = trace->opName(op);
    const std::string lane = laneName(*trace, op.lane);
    if (name == "iteration") {
      EXPECT_EQ(lane, "thread #1 · NVTX");
    } else {
      EXPECT_EQ(lane, "thread #1 · NVTX · 2") << name;
    }
    if (name == "iteration" && op.start == 100'000) {
      EXPECT_EQ(op.end, 170'000) << "an open range ends at the last time seen";
    }
  }
  EXPECT_EQ(ranges, 4);
}

TEST(RecordAssembly, ThreadsAreNamedFromWhatTheInjectionSaw) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.threadSighting({81, kProcessPid, "python3"});
  t.threadSighting({82, kProcessPid + 5, "pt_autograd_0"});
  t.threadSighting({83, kProcessPid + 6, "python3"});  // a thread that kept the process's name
  t.api(apiCall("cudaLaunchKernel", 0, 1, 81, 100));
  t.api(apiCall("cudaLaunchKernel", 0, 1, 82, 200));
  t.api(apiCall("cudaLaunchKernel", 0, 1, 83, 300));
  t.api(apiCall("cudaLaunchKernel", 0, 1, 84, 400));  // never sighted
  p.endRound();
  const auto trace = p.toTrace();
  std::set<std::string> names;
  for (const Lane& l : trace->lanes()) names.insert(l.name);
  EXPECT_TRUE(names.count("main thread · CUDA API"));
  EXPECT_TRUE(names.count("pt_autograd_0 · CUDA API"));
  EXPECT_TRUE(names.count("thread 4006 · CUDA API"));
  EXPECT_TRUE(names.count("thread #4 · CUDA API"));
}

TEST(RecordAssembly, ThreadsWithSystemIdsAreNamedWithoutACallbackOnTheirCalls) {
  // CUPTI's thread id is the system's: the injection names a thread from /proc when its
  // first record (an API call or an NVTX range) arrives.
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.threadNamed(kProcessPid, kProcessPid, "python3");
  t.threadNamed(kProcessPid + 5, kProcessPid + 5, "pt_autograd_0");
  t.threadNamed(kProcessPid + 6, kProcessPid + 6, "");  // it ended before its name was read
  t.api(apiCall("cudaLaunchKernel", 0, 1, 1, kProcessPid));
  t.api(apiCall("cudaLaunchKernel", 0, 1, 2, kProcessPid + 5));
  t.api(apiCall("cudaMemcpyAsync", 0, 1, 3, kProcessPid + 6));
  MarkerRecord start;
  start.point = MarkerRecord::Point::Start;
  start.id = 9;
  start.time = at(0);
  start.threadId = kProcessPid + 5;
  start.name = "backward";
  MarkerRecord end = start;
  end.point = MarkerRecord::Point::End;
  end.time = at(2);
  t.marker(start);
  t.marker(end);
  p.endRound();
  // Once a lane carries the name, a later name change does not rename it.
  t.threadNamed(kProcessPid + 5, kProcessPid + 5, "renamed");
  t.api(apiCall("cudaLaunchKernel", 3, 4, 4, kProcessPid + 5));
  p.endRound();
  const auto trace = p.toTrace();
  std::set<std::string> names;
  for (const Lane& l : trace->lanes()) names.insert(l.name);
  EXPECT_TRUE(names.count("main thread · CUDA API"));
  EXPECT_TRUE(names.count("pt_autograd_0 · CUDA API"));
  EXPECT_TRUE(names.count("pt_autograd_0 · NVTX"));
  EXPECT_TRUE(names.count("thread 4006 · CUDA API"));
  for (const auto& n : names) EXPECT_EQ(n.find("renamed"), std::string::npos) << n;
}

TEST(RecordAssembly, AQuerySyncRecordDoesNotMakeItsCallAWait) {
  // CUPTI reports event and stream queries with synchronisation records of no known
  // type: the query returned at once, the host did not wait in it.
  FakeRecordedProcess p;
  auto& t = p.translator();
  record::SyncRecord s;
  s.type = record::SyncRecord::Type::Unknown;
  s.correlation = 61;
  s.start = at(1);
  s.end = at(2);
  t.sync(s);
  t.api(apiCall("cudaEventQuery", 1, 2, 61));
  p.endRound();
  const auto trace = p.toTrace();
  EXPECT_EQ(findOp(*trace, OpKind::ApiCall, "cudaEventQuery").correlation, 61u);
}

TEST(RecordAssembly, TheDeviceOptionLeavesOtherDevicesOut) {
  FakeRecordedProcess p;
  record::ActivityTranslator::Options o;
  o.onlyDevice = 1;
  FakeRecordedProcess only1(o);
  for (FakeRecordedProcess* q : {&p, &only1}) {
    q->translator().gpu(kernel("on0", 0, 10, 0, 7, 0));
    q->translator().gpu(kernel("on1", 0, 10, 0, 8, 1));
    q->endRound();
  }
  const auto all = p.toTrace();
  const auto filtered = only1.toTrace();
  EXPECT_EQ(opsOf(*all).size(), 2u);
  ASSERT_EQ(opsOf(*filtered).size(), 1u);
  EXPECT_EQ(filtered->opName(opsOf(*filtered)[0]), "on1");
  EXPECT_EQ(laneName(*filtered, opsOf(*filtered)[0].engineLane), "compute engine (GPU 1)");
  EXPECT_EQ(laneName(*filtered, opsOf(*filtered)[0].lane), "GPU 1 stream 8");
  EXPECT_EQ(only1.translator().gpuOpsLeftOut(), 1u);
}

// ---------------------------------------------------------------- the receiving side

std::string processBytes(std::int64_t pid, const std::string& kernelName, std::uint32_t stream) {
  FakeRecordedProcess p({pid, "worker"});
  p.translator().device({0, "NVIDIA H100", 9, 0, 80ull << 30, 132, 3});
  p.translator().api(apiCall("cudaLaunchKernel", 0, 2, 1));
  p.translator().gpu(kernel(kernelName, 5, 50, 1, stream));
  p.endRound();
  p.finish();
  return p.takeBytes();
}

TEST(RecordAssembly, EachProcessIsItsOwnGroupOfLanesWithStreamsKeptApart) {
  auto trace = std::make_shared<Trace>();
  record::RecordAssembler a(trace, kRecordOrigin);
  const auto p0 = a.addProcess(), p1 = a.addProcess();
  const std::string b0 = processBytes(100, "k0", 7), b1 = processBytes(200, "k1", 7);
  // Interleaved as two sockets would deliver them.
  for (std::size_t i = 0; i < std::max(b0.size(), b1.size()); i += 16) {
    if (i < b0.size()) {
      EXPECT_TRUE(a.feed(p0, std::string_view(b0).substr(i, 16)));
    }
    if (i < b1.size()) {
      EXPECT_TRUE(a.feed(p1, std::string_view(b1).substr(i, 16)));
    }
  }
  a.close(p0);
  a.close(p1);
  a.publish();
  const Op k0 = findOp(*trace, OpKind::Kernel, "k0"), k1 = findOp(*trace, OpKind::Kernel, "k1");
  EXPECT_EQ(laneName(*trace, k0.lane), "stream 7");
  EXPECT_EQ(laneName(*trace, k1.lane), "P2 · stream 7");
  EXPECT_EQ(laneName(*trace, k1.engineLane), "P2 · compute engine");
  EXPECT_NE(k0.stream, k1.stream);
  EXPECT_NE(k0.engineLane, k1.engineLane);
  EXPECT_EQ(a.processes()[1].label(), "pid 200 (worker)");
  EXPECT_TRUE(a.processes()[0].endedCleanly);
  EXPECT_EQ(a.processes()[0].problem, "");
  EXPECT_EQ(a.processes()[1].kernels, 1u);
  EXPECT_EQ(trace->device().name, "NVIDIA H100");
}

TEST(RecordAssembly, ADamagedStreamKeepsWhatCameBeforeAndNamesTheProblem) {
  FakeRecordedProcess p;
  p.translator().api(apiCall("cudaLaunchKernel", 0, 2, 1));
  p.translator().gpu(kernel("kept", 5, 50, 1));
  p.endRound();
  std::string bytes = p.takeBytes();
  // An op that points at a lane the process never declared.
  wire::Encoder bad;
  wire::Op op;
  op.start = op.end = op.submit = op.ready = at(60);
  op.kind = std::uint8_t(OpKind::Kernel);
  op.lane = 99;
  bad.add(wire::Ops{{op}});
  bytes += bad.take();
  auto trace = std::make_shared<Trace>();
  record::RecordAssembler a(trace, kRecordOrigin);
  const auto id = a.addProcess();
  EXPECT_FALSE(a.feed(id, bytes));
  a.publish();
  EXPECT_EQ(opsOf(*trace).size(), 2u);
  EXPECT_NE(a.processes()[id].problem.find("op 2: lane 99 was never declared"), std::string::npos)
      << a.processes()[id].problem;
}

TEST(RecordAssembly, TimesOffTheMonotonicClockAreRefused) {
  FakeRecordedProcess p;
  record::GpuRecord k = kernel("wild", 0, 10, 0);
  k.start = k.end = 1'700'000'000'000'000'000;  // a CLOCK_REALTIME timestamp, not a monotonic one
  p.translator().gpu(k);
  p.endRound();
  std::string problem;
  const auto trace = p.toTrace(&problem);
  EXPECT_TRUE(opsOf(*trace).empty());
  EXPECT_NE(problem.find("is not on this machine's monotonic clock"), std::string::npos) << problem;
}

TEST(RecordAssembly, AProcessThatStopsMidStreamSaysSo) {
  FakeRecordedProcess p;
  p.translator().gpu(kernel("k", 5, 50, 0));
  p.endRound();  // no end message: the process was killed
  std::string problem;
  const auto trace = p.toTrace(&problem);
  EXPECT_EQ(opsOf(*trace).size(), 1u);
  EXPECT_NE(problem.find("without its end-of-stream message"), std::string::npos) << problem;
}

}  // namespace
}  // namespace pipescope
