// Pins the simulator's exact output: a hash of every field of every op (and of the
// lanes, names and outcome) over a few hundred batches of configurations that take
// each branch of the model. The expected hashes were computed with the simulator as
// it was before its speed work; an optimisation that changes any timestamp by 1 ns
// fails here. A deliberate model change must update the table (and say why in the
// commit). The profiles are written out here rather than loaded from
// resources/profiles so that recalibrating a built-in profile does not move them.
// (Exact doubles: valid for IEEE-754 x86-64 builds at any optimisation level, as CI runs.)
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "SimulatorTestSupport.h"

namespace pipescope {
namespace {

using simtest::runSim;

// FNV-1a, fed field by field (never raw structs, whose padding is indeterminate).
class Fnv {
 public:
  template <typename T>
  void add(T v) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    for (unsigned char b : bytes) h_ = (h_ ^ b) * 1099511628211ull;
  }
  void add(const std::string& s) {
    add(std::uint64_t(s.size()));
    for (char c : s) add(c);
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 14695981039346656037ull;
};

std::uint64_t hashRun(const simtest::SimRun& r) {
  Fnv h;
  h.add(std::uint8_t(r.outcome.state));
  h.add(r.outcome.message);
  h.add(r.trace->completedBatches());
  for (const Lane& l : r.lanes) {
    h.add(l.id);
    h.add(std::uint8_t(l.kind));
    h.add(l.name);
    h.add(l.index);
  }
  for (const std::string& n : r.trace->names()) h.add(n);
  for (const ConfigChange& c : r.trace->configHistory()) h.add(c.firstBatch);
  h.add(std::uint64_t(r.ops.size()));
  for (const Op& op : r.ops) {
    h.add(op.submit);
    h.add(op.ready);
    h.add(op.start);
    h.add(op.end);
    h.add(op.bytes);
    h.add(op.batch);
    h.add(op.correlation);
    h.add(op.lane);
    h.add(op.engineLane);
    h.add(op.name);
    h.add(op.stream);
    h.add(std::uint8_t(op.kind));
    h.add(op.flags);
  }
  return h.value();
}

std::vector<BandwidthPoint> curve(double small, double mid, double large) {
  return {{65536, small}, {1048576, mid}, {16777216, large}, {268435456, large * 1.01}};
}

// A Hyper-Q device with every optional feature of the model in use: bandwidth
// curves (pinned, pageable, blocking pinned), a worker speed-up curve and the
// tool's own per-op / per-batch host overhead. Figures are H200-like, not round, so
// rounding to whole nanoseconds is exercised.
DeviceProfile hyperQ() {
  DeviceProfile p;
  p.name = "golden-hyperq";
  p.copyEngines = 2;
  p.hardwareQueues = 8;
  p.h2dPinnedCurve = curve(59.7, 55.9, 55.4);
  p.d2hPinnedCurve = curve(319.5, 59.8, 55.6);
  p.h2dPageableCurve = curve(5.07, 11.9, 15.7);
  p.d2hPageableCurve = curve(12.1, 9.66, 15.4);
  p.h2dPinnedBlockingCurve = curve(21.3, 40.7, 52.9);
  p.d2hPinnedBlockingCurve = curve(19.9, 38.2, 51.7);
  p.bidirectionalGBps = 100.35;
  p.copyLatencyNs = 4066.52;
  p.kernelGapNs = 1932.48;
  p.kernelLaunchNs = 5336.6;
  p.memcpyAsyncCallNs = 2741.3;
  p.memcpySyncCallNs = 6120.7;
  p.eventRecordNs = 1221.35;
  p.hostOpOverheadNs = 713.9;
  p.hostBatchOverheadNs = 3127.1;
  p.cpuNsPerOp = 0.5658;
  p.cpuWorkerSpeedup = {{1, 1.0}, {2, 2.87}, {4, 5.41}, {8, 5.72}};
  return p;
}

// One copy engine for both directions, one hardware queue (C1060-like).
DeviceProfile legacyOneEngine() {
  DeviceProfile p;
  p.name = "golden-one-engine";
  p.copyEngines = 1;
  p.hardwareQueues = 1;
  p.h2dPinnedGBps = p.d2hPinnedGBps = 5.5;
  p.h2dPageableGBps = p.d2hPageableGBps = 3.1;
  p.bidirectionalGBps = 5.5;
  p.copyLatencyNs = 10000;
  p.modelGflops = 170;
  p.deviceMemoryGBps = 95;
  p.kernelGapNs = 4500;
  p.kernelLaunchNs = 7000;
  return p;
}

// Two copy engines, one hardware queue, delayed kernel completion (C2050-like).
DeviceProfile legacyFermi() {
  DeviceProfile p;
  p.name = "golden-fermi";
  p.copyEngines = 2;
  p.hardwareQueues = 1;
  p.delayedKernelSignal = true;
  p.h2dPinnedGBps = p.d2hPinnedGBps = 6.0;
  p.h2dPageableGBps = p.d2hPageableGBps = 3.5;
  p.bidirectionalGBps = 10.0;
  p.copyLatencyNs = 10000;
  p.modelGflops = 190;
  p.deviceMemoryGBps = 110;
  p.kernelGapNs = 4000;
  p.kernelLaunchNs = 6000;
  return p;
}

PipelineConfig base(int batches) {
  PipelineConfig c;
  c.batchCount = batches;
  c.batchSamples = 16;
  c.sampleBytes = 96 * 1024 + 17;  // odd sizes: chunk splitting and curve interpolation
  return c;
}

struct Golden {
  const char* name;
  std::uint64_t hash;
  std::size_t ops;
};

void expectGolden(const simtest::SimRun& r, const Golden& g) {
  ASSERT_NE(r.outcome.state, RunState::Failed) << r.outcome.message;
  EXPECT_EQ(r.ops.size(), g.ops) << g.name;
  EXPECT_EQ(hashRun(r), g.hash) << g.name << ": actual hash 0x" << std::hex << hashRun(r);
}

TEST(SimulatorGolden, AsyncPinnedOneAndFourStreams) {
  PipelineConfig one = base(300);
  expectGolden(runSim(one, hyperQ()), {"1 stream", 0xda16fb4fdfb6c4b3ull, 3000});
  PipelineConfig four = base(300);
  four.streams = 4;
  expectGolden(runSim(four, hyperQ()), {"4 streams", 0xa93b527aaf1b9e99ull, 2997});
}

TEST(SimulatorGolden, BreadthFirstWithChunksAndCpuWorkers) {
  PipelineConfig c = base(300);
  c.streams = 4;
  c.order = IssueOrder::BreadthFirst;
  c.transferChunks = 3;
  c.cpuWorkers = 3;
  c.preprocessOpsPerByte = 0.7;
  c.postprocessOpsPerByte = 0.3;
  c.roiFraction = 0.45;
  expectGolden(runSim(c, hyperQ()), {"breadth-first, chunks, workers", 0x9bc5e89a3918ad32ull, 6903});
}

TEST(SimulatorGolden, BlockingPinnedAndPageable) {
  PipelineConfig pinned = base(300);
  pinned.mode = TransferMode::Blocking;
  pinned.cpuWorkers = 2;
  pinned.preprocessOpsPerByte = 0.5;
  expectGolden(runSim(pinned, hyperQ()), {"blocking pinned", 0x2f19fb78bf7a4c78ull, 3600});
  PipelineConfig pageable = pinned;
  pageable.memory = HostMemory::Pageable;
  pageable.sync = SyncMode::Spin;
  expectGolden(runSim(pageable, hyperQ()), {"blocking pageable", 0xd7923ff2911daac3ull, 3600});
}

TEST(SimulatorGolden, AsyncPageableFourStreams) {
  PipelineConfig c = base(300);
  c.streams = 4;
  c.memory = HostMemory::Pageable;
  c.sync = SyncMode::Yield;
  c.model = ModelPreset::Light;
  expectGolden(runSim(c, hyperQ()), {"async pageable", 0x64beac5c91c4a0d3ull, 8100});
}

TEST(SimulatorGolden, MappedManagedAndResident) {
  PipelineConfig mapped = base(200);
  mapped.streams = 2;
  mapped.memory = HostMemory::Mapped;
  expectGolden(runSim(mapped, hyperQ()), {"mapped", 0xdd374957d5c24730ull, 1200});
  PipelineConfig managed = mapped;
  managed.memory = HostMemory::Managed;
  managed.residency = DataResidency::KeepResident;
  expectGolden(runSim(managed, hyperQ()), {"managed resident", 0x21dae48084f5bf9eull, 1200});
  PipelineConfig prefetch = mapped;
  prefetch.memory = HostMemory::ManagedPrefetch;
  prefetch.order = IssueOrder::BreadthFirst;
  // 2026-11-26: no-op prefetches no longer take a share of the bidirectional link.
  expectGolden(runSim(prefetch, hyperQ()), {"managed prefetch", 0xa9d4075c25486af8ull, 2000});
}

TEST(SimulatorGolden, LegacyOneCopyEngineSingleQueue) {
  PipelineConfig c = base(300);
  c.streams = 4;
  c.order = IssueOrder::BreadthFirst;
  expectGolden(runSim(c, legacyOneEngine()), {"one engine breadth-first", 0x83a07ae457aae8a5ull, 3000});
  c.order = IssueOrder::DepthFirst;
  expectGolden(runSim(c, legacyOneEngine()), {"one engine depth-first", 0xfc29b32c4e7a8829ull, 3000});
}

TEST(SimulatorGolden, LegacyFermiDelayedKernelSignal) {
  PipelineConfig c = base(300);
  c.streams = 3;
  c.model = ModelPreset::Custom;
  c.modelFlopsPerByte = 40;
  expectGolden(runSim(c, legacyFermi()), {"fermi depth-first", 0x415bc7cc18f3b0f6ull, 3000});
  c.order = IssueOrder::BreadthFirst;
  expectGolden(runSim(c, legacyFermi()), {"fermi breadth-first", 0xe3dacc00a48b226cull, 3000});
}

TEST(SimulatorGolden, LiveChangeAndStopAtBatchBoundaries) {
  PipelineConfig first = base(0);  // until stopped
  first.streams = 2;
  PipelineConfig second = first;
  second.streams = 4;
  second.order = IssueOrder::BreadthFirst;
  second.memory = HostMemory::Pageable;
  std::stop_source stop;
  RunControl control;
  control.stop = stop.get_token();
  int boundaries = 0;
  control.takePendingConfig = [&]() -> std::optional<PipelineConfig> {
    ++boundaries;
    if (boundaries == 120) return second;
    if (boundaries == 250) stop.request_stop();
    return std::nullopt;
  };
  const auto r = runSim(first, hyperQ(), &control);
  EXPECT_EQ(r.outcome.state, RunState::Stopped);
  expectGolden(r, {"live change then stop", 0x88209fb1da874521ull, 6910});
}

}  // namespace
}  // namespace pipescope
