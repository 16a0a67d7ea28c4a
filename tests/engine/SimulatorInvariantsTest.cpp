// Properties that hold for every configuration: streams run in order, an engine
// runs one op at a time, pageable copies block the host, runs are deterministic,
// and stop / live configuration changes happen at batch boundaries.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "SimulatorTestSupport.h"

namespace pipescope {
namespace {

using simtest::runSim;

std::vector<std::pair<std::string, PipelineConfig>> configs() {
  std::vector<std::pair<std::string, PipelineConfig>> out;
  PipelineConfig base;
  base.batchCount = 12;
  base.batchSamples = 8;
  for (int streams : {1, 3, 4}) {
    for (auto order : {IssueOrder::DepthFirst, IssueOrder::BreadthFirst}) {
      for (auto memory : {HostMemory::Pinned, HostMemory::Pageable, HostMemory::ManagedPrefetch}) {
        PipelineConfig c = base;
        c.streams = streams;
        c.order = order;
        c.memory = memory;
        c.transferChunks = streams == 3 ? 2 : 1;
        c.preprocessOpsPerByte = streams == 4 ? 0.5 : 0;
        c.cpuWorkers = 2;
        out.push_back({std::to_string(streams) + " streams " + std::string(toString(order)) + " " +
                           std::string(toString(memory)),
                       c});
      }
    }
  }
  PipelineConfig blocking = base;
  blocking.mode = TransferMode::Blocking;
  out.push_back({"blocking", blocking});
  return out;
}

const char* kProfiles[] = {"h200", "pcie4-desktop", "c1060-like", "c2050-like"};

TEST(SimulatorInvariants, StreamOrderIsNeverViolated) {
  for (const char* profile : kProfiles) {
    for (const auto& [name, c] : configs()) {
      const auto r = runSim(c, *builtinProfile(profile));
      ASSERT_EQ(r.outcome.state, RunState::Finished) << profile << " " << name << ": " << r.outcome.message;
      std::map<int, std::vector<Op>> byStream;
      for (const Op& op : r.gpuOps()) byStream[op.stream].push_back(op);
      for (auto& [stream, ops] : byStream) {
        std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.correlation < b.correlation; });
        for (std::size_t i = 1; i < ops.size(); ++i) {
          EXPECT_GE(ops[i].start, ops[i - 1].end) << profile << " " << name << " stream " << stream;
          EXPECT_GE(ops[i].ready, ops[i - 1].end) << profile << " " << name;
        }
        for (const Op& op : ops) {
          EXPECT_LE(op.submit, op.ready);
          EXPECT_LE(op.ready, op.start);
          EXPECT_LT(op.start, op.end);
        }
      }
    }
  }
}

TEST(SimulatorInvariants, AnEngineNeverRunsTwoOpsAtOnce) {
  for (const char* profile : kProfiles) {
    for (const auto& [name, c] : configs()) {
      const auto r = runSim(c, *builtinProfile(profile));
      std::map<std::uint16_t, std::vector<Op>> byEngine;
      for (const Op& op : r.gpuOps()) {
        ASSERT_NE(op.engineLane, kNoLane);
        EXPECT_TRUE(isEngineLane(r.laneKind(op.engineLane)));
        EXPECT_EQ(r.laneKind(op.lane), LaneKind::Stream);
        byEngine[op.engineLane].push_back(op);
      }
      for (auto& [engine, ops] : byEngine) {
        std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
        for (std::size_t i = 1; i < ops.size(); ++i)
          EXPECT_GE(ops[i].start, ops[i - 1].end) << profile << " " << name << " engine lane " << engine;
      }
    }
  }
}

TEST(SimulatorInvariants, OneCopyEngineDevicesShareOneEngineLane) {
  const auto r = runSim(configs()[0].second, *builtinProfile("c1060-like"));
  std::set<std::uint16_t> copyLanes;
  for (const Op& op : r.gpuOps())
    if (isCopyKind(op.kind)) copyLanes.insert(op.engineLane);
  ASSERT_EQ(copyLanes.size(), 1u);
  EXPECT_EQ(r.laneKind(*copyLanes.begin()), LaneKind::CopyEngine);
}

TEST(SimulatorInvariants, PageableCopiesBlockTheSubmitThread) {
  PipelineConfig c;
  c.memory = HostMemory::Pageable;
  c.streams = 4;
  c.batchCount = 8;
  c.batchSamples = 4;
  const auto r = runSim(c, simtest::h200());
  std::vector<Op> host;
  for (const Op& op : r.ops)
    if (op.lane != kNoLane && r.laneKind(op.lane) == LaneKind::HostSubmit) host.push_back(op);
  const auto copies = r.of(OpKind::CopyH2D);
  const auto backs = r.of(OpKind::CopyD2H);
  std::vector<Op> all = copies;
  all.insert(all.end(), backs.begin(), backs.end());
  ASSERT_FALSE(all.empty());
  for (const Op& copy : all) {
    EXPECT_TRUE(copy.flags & kOpPageable);
    // Some host op (the blocked call or its wait) spans the whole copy ...
    bool spanned = false;
    for (const Op& h : host) spanned |= h.kind == OpKind::HostSync && h.start <= copy.start && h.end >= copy.end;
    EXPECT_TRUE(spanned) << "copy " << copy.start << ".." << copy.end;
    // ... and no other copy shares its engine meanwhile, nor does the host issue anything.
    for (const Op& other : all) {
      if (other.correlation != copy.correlation && other.engineLane == copy.engineLane) {
        EXPECT_TRUE(other.end <= copy.start || other.start >= copy.end);
      }
    }
    for (const Op& h : host) {
      if (h.kind == OpKind::ApiCall) {
        EXPECT_TRUE(h.end <= copy.start || h.start >= copy.end);
      }
    }
  }
}

TEST(SimulatorInvariants, SameConfigGivesAnIdenticalTrace) {
  for (const auto& [name, c] : configs()) {
    const auto a = runSim(c, *builtinProfile("c2050-like"));
    const auto b = runSim(c, *builtinProfile("c2050-like"));
    EXPECT_EQ(a.ops, b.ops) << name;
    EXPECT_EQ(a.lanes, b.lanes) << name;
  }
}

TEST(SimulatorInvariants, ApiCallsCarryTheirGpuOpsCorrelation) {
  const auto r = runSim(configs()[3].second, simtest::h200());
  std::set<std::uint32_t> gpu;
  for (const Op& op : r.gpuOps()) gpu.insert(op.correlation);
  int linked = 0;
  for (const Op& op : r.of(OpKind::ApiCall))
    if (op.correlation != 0) {
      EXPECT_TRUE(gpu.count(op.correlation)) << op.correlation;
      ++linked;
    }
  EXPECT_EQ(linked, int(gpu.size()));
}

TEST(SimulatorControl, StopEndsAnEndlessRunAtABatchBoundary) {
  PipelineConfig c;
  c.batchCount = 0;  // until stopped
  c.streams = 2;
  std::stop_source stop;
  RunControl control;
  control.stop = stop.get_token();
  int boundaries = 0;
  control.takePendingConfig = [&]() -> std::optional<PipelineConfig> {
    if (++boundaries == 10) stop.request_stop();
    return std::nullopt;
  };
  const auto r = runSim(c, simtest::h200(), &control);
  EXPECT_EQ(r.outcome.state, RunState::Stopped);
  // Ten boundaries were passed, so batches 0..9 were issued and none after.
  int maxBatch = -1;
  for (const Op& op : r.gpuOps()) maxBatch = std::max(maxBatch, int(op.batch));
  EXPECT_EQ(maxBatch, 9);
  EXPECT_EQ(r.of(OpKind::Kernel).size(), 20u);  // every issued kernel was recorded
  EXPECT_LE(r.trace->completedBatches(), 10);
}

TEST(SimulatorControl, LiveConfigChangeAppliesAtTheNextBatch) {
  PipelineConfig c;
  c.batchCount = 10;
  c.batchSamples = 4;
  PipelineConfig next = c;
  next.streams = 4;
  RunControl control;
  int boundaries = 0;
  control.takePendingConfig = [&]() -> std::optional<PipelineConfig> {
    if (++boundaries == 3) return next;
    return std::nullopt;
  };
  const auto r = runSim(c, simtest::h200(), &control);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  const auto history = r.trace->configHistory();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].firstBatch, 2);
  EXPECT_EQ(history[1].config.streams, 4);
  EXPECT_EQ(r.trace->completedBatches(), 10);
  std::set<int> streamsBefore, streamsAfter;
  for (const Op& op : r.gpuOps()) (op.batch < 2 ? streamsBefore : streamsAfter).insert(op.stream);
  EXPECT_EQ(streamsBefore, (std::set<int>{0}));
  EXPECT_EQ(streamsAfter, (std::set<int>{0, 1, 2, 3}));
  // The change drains first: batch 2 starts after batch 1 is completely done.
  std::int64_t batch1End = 0, batch2Start = INT64_MAX;
  for (const Op& op : r.gpuOps()) {
    if (op.batch == 1) batch1End = std::max(batch1End, op.end);
    if (op.batch == 2) batch2Start = std::min(batch2Start, op.start);
  }
  EXPECT_GT(batch2Start, batch1End);
}

TEST(SimulatorControl, InvalidConfigFailsWithTheFieldNamed) {
  PipelineConfig c;
  c.streams = 0;
  const auto r = runSim(c, simtest::h200());
  EXPECT_EQ(r.outcome.state, RunState::Failed);
  EXPECT_NE(r.outcome.message.find("streams"), std::string::npos) << r.outcome.message;
}

}  // namespace
}  // namespace pipescope
