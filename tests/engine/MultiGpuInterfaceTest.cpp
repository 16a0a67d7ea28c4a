// The multi-GPU knobs of PipelineConfig and the multi-GPU trace model: validation
// messages, config JSON, lanes per device, and every trace format's round trip.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "TraceFileTestSupport.h"
#include "config/ConfigJson.h"
#include "config/PipelineConfig.h"
#include "io/ChromeTraceWriter.h"
#include "io/CsvExport.h"
#include "io/TraceFiles.h"
#include "io/TraceJsonWriter.h"

using namespace pipescope;
using namespace pipescope::filetest;

namespace {

std::vector<ConfigIssue> issuesFor(const PipelineConfig& c, const std::string& field) {
  std::vector<ConfigIssue> out;
  for (const auto& i : validate(c))
    if (i.field == field) out.push_back(i);
  return out;
}

PipelineConfig twoGpus(ParallelMode mode) {
  PipelineConfig c;
  c.devices = {0, 1};
  c.parallel = mode;
  return c;
}

}  // namespace

TEST(MultiGpuConfig, DefaultIsOneGpu) {
  PipelineConfig c;
  EXPECT_EQ(c.gpuCount(), 1);
  EXPECT_EQ(c.deviceOrdinals(), std::vector<int>{0});
  EXPECT_FALSE(c.isMultiGpu());
  c.devices = {2, 5, 7};
  EXPECT_EQ(c.gpuCount(), 3);
  EXPECT_TRUE(validate(c).empty());
}

TEST(MultiGpuConfig, PipelineNeedsTwoGpus) {
  PipelineConfig c;
  c.parallel = ParallelMode::Pipeline;
  auto issues = issuesFor(c, "parallel");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].message().find("2 GPUs or more"), std::string::npos) << issues[0].message();
  c.devices = {0, 1};
  EXPECT_TRUE(validate(c).empty());
}

TEST(MultiGpuConfig, DuplicateAndBadOrdinalsAndTooManyGpus) {
  PipelineConfig c;
  c.devices = {0, 1, 0};
  auto dup = issuesFor(c, "devices");
  ASSERT_EQ(dup.size(), 1u);
  EXPECT_NE(dup[0].message().find("GPU 0 is listed twice"), std::string::npos) << dup[0].message();
  c.devices = {0, -1};
  ASSERT_EQ(issuesFor(c, "devices").size(), 1u);
  c.devices = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  auto many = issuesFor(c, "devices");
  ASSERT_EQ(many.size(), 1u);
  EXPECT_NE(many[0].message().find("1..8"), std::string::npos) << many[0].message();
}

TEST(MultiGpuConfig, RangesOfTheNewKnobs) {
  PipelineConfig c = twoGpus(ParallelMode::Data);
  c.buckets = -1;
  EXPECT_EQ(issuesFor(c, "buckets").size(), 1u);
  c.buckets = 0;
  EXPECT_TRUE(validate(c).empty());
  c.allreduceBytes = 8;
  c.buckets = 3;  // 8 bytes cannot make 3 buckets of at least one float
  EXPECT_EQ(issuesFor(c, "buckets").size(), 1u);
  c = twoGpus(ParallelMode::Pipeline);
  c.microBatches = 0;
  EXPECT_EQ(issuesFor(c, "micro-batches").size(), 1u);
  c.microBatches = c.batchSamples + 1;
  auto more = issuesFor(c, "micro-batches");
  ASSERT_EQ(more.size(), 1u);
  EXPECT_NE(more[0].reason.find("at least one sample"), std::string::npos);
  c.microBatches = 4;
  c.activationBytes = (limits::kMaxActivationBytes) + 1;
  EXPECT_EQ(issuesFor(c, "activation-bytes").size(), 1u);
  c.activationBytes = 1 << 20;
  c.mode = TransferMode::Blocking;
  EXPECT_EQ(issuesFor(c, "mode").size(), 1u);
}

TEST(MultiGpuConfig, NamesAndDeviceLists) {
  EXPECT_EQ(parseParallelMode("pipeline"), ParallelMode::Pipeline);
  EXPECT_EQ(toString(ParallelMode::Data), "data");
  EXPECT_FALSE(parseParallelMode("model"));
  EXPECT_EQ(choices(parallelModeNames()), "data|pipeline");
  EXPECT_EQ(parseDeviceList("0,2,3"), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(formatDeviceList({0, 2, 3}), "0,2,3");
  for (const char* bad : {"", ",", "0,", "a", "0,,1", "-1", "1 2", "1234567"})
    EXPECT_FALSE(parseDeviceList(bad)) << bad;
}

TEST(MultiGpuConfig, JsonRoundTripAndOldFiles) {
  PipelineConfig c = twoGpus(ParallelMode::Pipeline);
  c.devices = {3, 1};
  c.allreduceBytes = 64 << 20;
  c.buckets = 0;
  c.activationBytes = 12345;
  c.microBatches = 4;
  const nlohmann::json j = configToJson(c);
  EXPECT_EQ(configFromJson(j), c);
  // A one-GPU configuration is written as before: none of the new fields.
  const nlohmann::json one = configToJson(PipelineConfig{});
  for (const char* f : {"devices", "parallel", "allreduce-bytes", "buckets", "activation-bytes", "micro-batches"})
    EXPECT_FALSE(one.contains(f)) << f;
  EXPECT_EQ(configFromJson(one), PipelineConfig{});
  EXPECT_THROW(configFromJson(nlohmann::json{{"devices", "0,1"}}), std::invalid_argument);
  EXPECT_THROW(configFromJson(nlohmann::json{{"devices", {0, "x"}}}), std::invalid_argument);
  EXPECT_THROW(configFromJson(nlohmann::json{{"parallel", "tensor"}}), std::invalid_argument);
}

TEST(MultiGpuTrace, LanesAreKeyedByDevice) {
  Trace t;
  const auto s0 = t.lane(LaneKind::Stream, 0, "stream 0");
  const auto s0gpu1 = t.lane(LaneKind::Stream, 0, 1, "GPU1 stream 0");
  const auto host = t.lane(LaneKind::HostSubmit, 0, "submit thread");
  EXPECT_NE(s0, s0gpu1);
  EXPECT_EQ(t.lane(LaneKind::Stream, 0, 0, "again"), s0);
  const auto lanes = t.lanes();
  EXPECT_EQ(lanes[s0].device, 0);
  EXPECT_EQ(lanes[s0gpu1].device, 1);
  EXPECT_EQ(lanes[host].device, kSharedLane);
  EXPECT_EQ(t.deviceCount(), 1u);
  EXPECT_THROW(t.setDevices({}), std::invalid_argument);
}

namespace {

/// Two GPUs: a peer copy on a link lane and a collective on each GPU's compute engine
/// and on the communicator's lane.
std::unique_ptr<Trace> makeTwoGpuTrace() {
  auto t = std::make_unique<Trace>();
  PipelineConfig c = twoGpus(ParallelMode::Data);
  c.allreduceBytes = 1 << 20;
  t->setConfig(c);
  DeviceInfo d0;
  d0.backend = "simulator";
  d0.name = "Simulator: h200";
  d0.profile = "h200";
  DeviceInfo d1 = d0;
  d1.ordinal = 3;
  d1.note = "second GPU";
  t->setDevices({d0, d1});
  const auto submit = t->lane(LaneKind::HostSubmit, 0, "submit thread");
  std::uint16_t stream[2], compute[2];
  for (int g = 0; g < 2; ++g) {
    stream[g] = t->lane(LaneKind::Stream, 0, g, "GPU" + std::to_string(g) + " stream 0");
    compute[g] = t->lane(LaneKind::ComputeEngine, 0, g, "GPU" + std::to_string(g) + " compute engine");
  }
  const auto link = t->lane(LaneKind::PeerLink, 0, 0, "GPU0→GPU1 NVLink");
  const auto comm = t->lane(LaneKind::Collective, 0, kSharedLane, "all-reduce communicator");
  auto op = [&](OpKind kind, std::uint16_t lane, std::uint16_t engine, std::int64_t ready, std::int64_t start,
                std::int64_t end, std::uint64_t bytes) {
    Op o;
    o.kind = kind;
    o.lane = lane;
    o.engineLane = engine;
    o.submit = std::min<std::int64_t>(ready, 5);
    o.ready = ready;
    o.start = start;
    o.end = end;
    o.bytes = bytes;
    o.batch = kind == OpKind::ApiCall ? kNoBatch : 0;
    o.stream = engine == kNoLane ? kNoStream : 0;
    t->ops().append(o);
  };
  op(OpKind::ApiCall, submit, kNoLane, 0, 0, 5, 0);
  op(OpKind::PeerCopy, stream[0], link, 10, 12, 40, 4096);
  for (int g = 0; g < 2; ++g) op(OpKind::Collective, stream[g], compute[g], 40, 40 + g * 10, 100, 1 << 20);
  op(OpKind::Collective, comm, kNoLane, 40, 50, 100, 1 << 20);
  t->ops().publish();
  t->setCompletedBatches(1);
  return t;
}

void expectSameMultiGpuTrace(const Trace& a, const Trace& b) {
  expectSameTrace(a, b);
  EXPECT_EQ(a.devices(), b.devices());
}

}  // namespace

TEST(MultiGpuTrace, EveryFormatRoundTrips) {
  ScratchDir dir;
  auto t = makeTwoGpuTrace();
  for (auto [file, format] : {std::pair{"t.pipescope", TraceFileFormat::Native},
                              std::pair{"t.json", TraceFileFormat::ChromeJson}}) {
    SCOPED_TRACE(file);
    saveTraceFile(*t, dir.file(file), format);
    expectSameMultiGpuTrace(*t, *loadTraceFile(dir.file(file)));
  }
  saveTraceJson(*t, dir.file("t.trace.json"));
  expectSameMultiGpuTrace(*t, *loadTraceFile(dir.file("t.trace.json")));
}

TEST(MultiGpuTrace, ChromeExportHasOneProcessPerGpu) {
  auto t = makeTwoGpuTrace();
  std::stringstream s;
  writeChromeTrace(*t, s);
  const std::string text = s.str();
  EXPECT_NE(text.find("\"GPU0: Simulator: h200\""), std::string::npos);
  EXPECT_NE(text.find("\"GPU3: Simulator: h200\""), std::string::npos);
  EXPECT_NE(text.find("\"Communication\""), std::string::npos);
  EXPECT_NE(text.find("\"lane_kind\":\"peer-link\""), std::string::npos);
  EXPECT_NE(text.find("\"cat\":\"collective\""), std::string::npos);
}

TEST(MultiGpuTrace, CsvNamesEachOpsGpu) {
  auto t = makeTwoGpuTrace();
  std::stringstream s;
  writeOpsCsv(*t, s);
  std::string line;
  std::vector<std::string> lastField;
  std::getline(s, line);
  while (std::getline(s, line)) lastField.push_back(line.substr(line.rfind(',') + 1));
  EXPECT_EQ(lastField, (std::vector<std::string>{"", "0", "0", "1", ""}));
}

TEST(MultiGpuTrace, FilesWithoutDevicesStillLoad) {
  // A trace JSON as version 1 wrote it: no "devices", lanes without "device".
  ScratchDir dir;
  auto t = makeSimTrace(2);
  std::stringstream s;
  writeTraceJson(*t, s);
  nlohmann::json j = nlohmann::json::parse(s.str());
  j["version"] = 1;
  j.erase("devices");
  for (auto& lane : j["lanes"]) lane.erase("device");
  writeText(dir.file("old.json"), j.dump());
  auto back = loadTraceFile(dir.file("old.json"));
  expectSameTrace(*t, *back);
  EXPECT_EQ(back->deviceCount(), 1u);
}

TEST(MultiGpuTrace, LaneOnAMissingDeviceIsRejected) {
  ScratchDir dir;
  auto t = makeTwoGpuTrace();
  std::stringstream s;
  writeTraceJson(*t, s);
  nlohmann::json j = nlohmann::json::parse(s.str());
  j.erase("devices");  // lanes still name GPU 1
  writeText(dir.file("bad.json"), j.dump());
  try {
    loadTraceFile(dir.file("bad.json"));
    FAIL() << "expected an error";
  } catch (const TraceFileError& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to device 1 but the trace describes 1 device"), std::string::npos)
        << e.what();
  }
  j = nlohmann::json::parse(s.str());
  j["lanes"][3]["device"] = 0;  // GPU1's stream 0 now collides with GPU0's
  writeText(dir.file("dup.json"), j.dump());
  EXPECT_THROW(loadTraceFile(dir.file("dup.json")), TraceFileError);
}

TEST(MultiGpuConfig, AllReduceNeedsAsyncAndWholeSteps) {
  PipelineConfig c = twoGpus(ParallelMode::Data);
  c.allreduceBytes = 1 << 20;
  c.batchCount = 5;
  auto steps = issuesFor(c, "batches");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_NE(steps[0].allowed.find("multiple of the GPU count (2)"), std::string::npos);
  c.batchCount = 6;
  c.mode = TransferMode::Blocking;
  EXPECT_EQ(issuesFor(c, "mode").size(), 1u);
  c.allreduceBytes = 0;  // no all-reduce: blocking mode deals batches to the GPUs in turn
  c.batchCount = 5;
  EXPECT_TRUE(validate(c).empty());
}
