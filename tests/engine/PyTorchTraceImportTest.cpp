// Import of a real PyTorch profiler (Kineto) trace: ResNet-18 inference on an H200
// with pinned inputs over two CUDA streams. The facts checked here were read from the
// file itself (python json): 2 streams (13 and 17), 366 kernels each, 6 H2D copies of
// 19267584 bytes at about 55 GB/s and 6 D2H copies of 128000 bytes, every GPU op
// linked to its launching runtime call by correlation id — and, because that script
// synchronised after each batch, no copy ran while a kernel ran.
#include <gtest/gtest.h>

#include <map>

#include "io/TraceFiles.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

const std::string kFixture =
    std::string(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";

class PyTorchFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { trace_ = loadTraceFile(kFixture); }
  static void TearDownTestSuite() { trace_.reset(); }
  static std::shared_ptr<Trace> trace_;
};
std::shared_ptr<Trace> PyTorchFixture::trace_;

TEST_F(PyTorchFixture, DetectedAsChromeTraceFromGzipContent) {
  EXPECT_EQ(detectTraceFileFormat(kFixture), TraceFileFormat::ChromeJson);
}

TEST_F(PyTorchFixture, TwoStreamLanesAndThreeEngineLanes) {
  std::vector<std::string> streams;
  std::map<LaneKind, int> kinds;
  for (const Lane& l : trace_->lanes()) {
    ++kinds[l.kind];
    if (l.kind == LaneKind::Stream) streams.push_back(l.name);
  }
  EXPECT_EQ(streams, (std::vector<std::string>{"stream 13", "stream 17"}));
  EXPECT_EQ(kinds[LaneKind::CopyEngineH2D], 1);
  EXPECT_EQ(kinds[LaneKind::CopyEngineD2H], 1);
  EXPECT_EQ(kinds[LaneKind::ComputeEngine], 1);
  EXPECT_EQ(kinds[LaneKind::HostSubmit], 1);  // the python thread's CUDA runtime calls
}

TEST_F(PyTorchFixture, GpuOpsSitOnStreamAndEngineLanes) {
  const auto lanes = trace_->lanes();
  std::map<OpKind, int> count;
  std::map<std::int16_t, int> kernelsPerStream;
  int linked = 0;
  trace_->ops().snapshot().forEach([&](const Op& op) {
    if (!isGpuKind(op.kind)) {
      EXPECT_TRUE(isHostLane(lanes.at(op.lane).kind));
      return;
    }
    ++count[op.kind];
    EXPECT_EQ(lanes.at(op.lane).kind, LaneKind::Stream);
    const LaneKind engine = lanes.at(op.engineLane).kind;
    if (op.kind == OpKind::CopyH2D) {
      EXPECT_EQ(engine, LaneKind::CopyEngineH2D);
      EXPECT_EQ(op.bytes, 19267584u);
      const double gbps = double(op.bytes) / double(op.duration());
      EXPECT_GT(gbps, 50.0);
      EXPECT_LT(gbps, 60.0);
    } else if (op.kind == OpKind::CopyD2H) {
      EXPECT_EQ(engine, LaneKind::CopyEngineD2H);
      EXPECT_EQ(op.bytes, 128000u);
    } else {
      EXPECT_EQ(engine, LaneKind::ComputeEngine);
      ++kernelsPerStream[op.stream];
    }
    if (op.correlation != 0 && op.submit < op.start) ++linked;
    EXPECT_LE(op.submit, op.ready);
    EXPECT_LE(op.ready, op.start);
  });
  EXPECT_EQ(count[OpKind::CopyH2D], 6);
  EXPECT_EQ(count[OpKind::CopyD2H], 6);
  EXPECT_EQ(count[OpKind::Kernel], 732);
  EXPECT_EQ(kernelsPerStream, (std::map<std::int16_t, int>{{13, 366}, {17, 366}}));
  EXPECT_EQ(linked, 744) << "every GPU op is linked to the runtime call that launched it";
}

TEST_F(PyTorchFixture, MetricsWithoutConfiguration) {
  const Metrics m = computeMetrics(*trace_);
  EXPECT_EQ(m.samples, 0);
  EXPECT_EQ(m.h2dBytes, 6u * 19267584u);
  EXPECT_GT(m.h2dGBpsBusy, 50.0);  // tens of GB/s: pinned memory over PCIe Gen5
  EXPECT_LT(m.h2dGBpsBusy, 60.0);
  EXPECT_NEAR(m.computeBusy * m.makespanNs, 11.1e6, 0.5e6);  // ~11 ms of kernels
  // The true fact of this file: copies never overlapped kernels (batches were serialised).
  EXPECT_DOUBLE_EQ(m.computeOverlappedByCopy, 0.0);
  EXPECT_DOUBLE_EQ(m.copyOverlappedByCompute, 0.0);
  EXPECT_GT(m.gpuIdle, 0.4);
}

TEST_F(PyTorchFixture, DeviceFromDeviceProperties) {
  const DeviceInfo d = trace_->device();
  EXPECT_EQ(d.backend, "replay");
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.computeMajor, 9);
  EXPECT_EQ(d.memoryBytes, 150109880320u);
  EXPECT_EQ(trace_->outcome().state, RunState::Finished);
}

TEST_F(PyTorchFixture, HostLanesNeverHoldOverlappingOps) {
  const auto lanes = trace_->lanes();
  std::map<std::uint16_t, std::vector<std::pair<std::int64_t, std::int64_t>>> byLane;
  trace_->ops().snapshot().forEach([&](const Op& op) { byLane[op.lane].push_back({op.start, op.end}); });
  for (auto& [lane, list] : byLane) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) ASSERT_LE(list[i - 1].second, list[i].first) << lanes[lane].name;
  }
}

TEST_F(PyTorchFixture, ExportThenImportKeepsEverything) {
  // PyTorch -> pipescope -> Chrome JSON -> pipescope: every op, lane and name survives.
  const std::string path = ::testing::TempDir() + "pytorch-roundtrip.json";
  saveTraceFile(*trace_, path, TraceFileFormat::ChromeJson);
  auto back = loadTraceFile(path);
  EXPECT_EQ(back->lanes(), trace_->lanes());
  const TraceView a = trace_->ops().snapshot(), b = back->ops().snapshot();
  ASSERT_EQ(a.size(), b.size());
  for (std::uint64_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i], b[i]) << i;
    ASSERT_EQ(trace_->opName(a[i]), back->opName(b[i])) << i;
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pipescope

namespace pipescope {
namespace {

TEST(ChromeImport, FlowEventsLinkLaunchesWithoutCorrelationArgs) {
  // A generic Chrome trace: a launch call on the host, a kernel on stream 7, linked only
  // by a flow (s bound to the enclosing host slice, f with bp "e" to the GPU slice).
  auto t = loadTraceFromBytes(R"({"traceEvents":[
    {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":4},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":21.5,"dur":5,"args":{"stream":7}},
    {"ph":"s","id":"a","pid":1,"tid":1,"ts":11},
    {"ph":"f","bp":"e","id":"a","pid":0,"tid":7,"ts":20}]})",
                              "flows.json");
  const TraceView v = t->ops().snapshot();
  ASSERT_EQ(v.size(), 3u);
  const Op& api = v[0];
  const Op& k1 = v[1];
  const Op& k2 = v[2];
  EXPECT_EQ(api.kind, OpKind::ApiCall);
  EXPECT_EQ(t->lanes()[api.lane].name, "main · CUDA API");
  EXPECT_NE(k1.correlation, 0u);
  EXPECT_EQ(k1.correlation, api.correlation);
  EXPECT_EQ(k1.submit, 0);  // the launch call's start (rebased)
  EXPECT_EQ(k1.ready, 0);   // nothing ahead of it in stream 7
  EXPECT_EQ(k1.engineWait(), 10000);
  EXPECT_EQ(k2.correlation, 0u);  // no link: submit = ready-from-stream
  EXPECT_EQ(k2.ready, k2.start);  // k1 ends at 25 µs, after k2 started (overlap clamps ready to start)
  EXPECT_EQ(k1.stream, 7);
}

TEST(ChromeImport, ValuesReadTheSameWhateverTheirJsonSpelling) {
  // A byte order mark, escapes in names, times as integers, fractions and exponents,
  // "bytes" written as a float: each the value JSON means, to the nanosecond.
  auto t = loadTraceFromBytes(
      "\xEF\xBB\xBF"
      R"({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"caf\u00e9 \"k\"\t\/","pid":0,"tid":7,"ts":2,"dur":1.5e0,"args":{"stream":7}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":1.0005e1,"dur":0.001,
     "args":{"stream":7,"bytes":1024.0}},
    {"ph":"X","cat":"kernel","name":"\ud83d\ude80","pid":0,"tid":7,"ts":20,"dur":3,"args":{"stream":7}}]})",
      "spellings.json");
  const TraceView v = t->ops().snapshot();
  ASSERT_EQ(v.size(), 3u);
  const auto names = t->names();
  EXPECT_EQ(names[v[0].name], "caf\xC3\xA9 \"k\"\t/");
  EXPECT_EQ(v[0].end - v[0].start, 1500);
  EXPECT_EQ(v[1].start - v[0].start, 8005);  // 10.005 µs after 2 µs
  EXPECT_EQ(v[1].end - v[1].start, 1);
  EXPECT_EQ(v[1].bytes, 1024);
  EXPECT_EQ(names[v[2].name], "\xF0\x9F\x9A\x80");  // a surrogate pair: U+1F680
}

}  // namespace
}  // namespace pipescope
