// The default h200 profile against the shape of the hand-written pipeline table in
// docs/reference-figures.md, and Harris's issue-order experiment on the legacy profiles.
#include <gtest/gtest.h>

#include <cstdio>

#include "SimulatorTestSupport.h"
#include "config/Presets.h"

namespace pipescope {
namespace {

using simtest::runSim;

PipelineConfig anchorConfig(TransferMode mode, HostMemory memory, int streams) {
  PipelineConfig c;  // defaults: 32 batches of 32 MiB, model 1050 flop/byte
  c.mode = mode;
  c.memory = memory;
  c.streams = streams;
  return c;
}

double makespanMs(const PipelineConfig& c, const DeviceProfile& p) {
  const auto r = runSim(c, p);
  EXPECT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  return double(r.makespan()) / 1e6;
}

TEST(SimulatorAnchors, DefaultStageTimesMatchTheHandWrittenPipeline) {
  const auto r = runSim(anchorConfig(TransferMode::Async, HostMemory::Pinned, 1), simtest::h200());
  const auto h2d = r.of(OpKind::CopyH2D);
  const auto kernels = r.of(OpKind::Kernel);
  ASSERT_FALSE(h2d.empty());
  double kernelNs = 0;
  for (const Op& k : kernels) kernelNs += double(k.duration());
  kernelNs /= double(h2d.size());
  // docs/reference-figures.md: kernel time ~ H2D time ~ 0.62 ms for 32 MiB.
  EXPECT_NEAR(double(h2d[0].duration()) / 1e6, 0.62, 0.02);
  EXPECT_NEAR(kernelNs / 1e6, 0.62, 0.03);
}

TEST(SimulatorAnchors, ReproducesTheShapeOfTheH200Table) {
  const auto p = simtest::h200();
  const double naive = makespanMs(anchorConfig(TransferMode::Blocking, HostMemory::Pageable, 1), p);
  const double pinned = makespanMs(anchorConfig(TransferMode::Blocking, HostMemory::Pinned, 1), p);
  const double async1 = makespanMs(anchorConfig(TransferMode::Async, HostMemory::Pinned, 1), p);
  const double async2 = makespanMs(anchorConfig(TransferMode::Async, HostMemory::Pinned, 2), p);
  const double async4 = makespanMs(anchorConfig(TransferMode::Async, HostMemory::Pinned, 4), p);
  const double async8 = makespanMs(anchorConfig(TransferMode::Async, HostMemory::Pinned, 8), p);
  const double pageable4 = makespanMs(anchorConfig(TransferMode::Async, HostMemory::Pageable, 4), p);
  std::printf("naive %.1f  pinned %.1f  async1 %.1f  async2 %.1f  async4 %.1f  async8 %.1f  pageable4 %.1f ms\n",
              naive, pinned, async1, async2, async4, async8, pageable4);

  EXPECT_GT(naive, 3.0 * pinned);                  // blocking pageable >> blocking pinned
  EXPECT_NEAR(async1, pinned, 0.05 * pinned);      // async alone does not overlap
  EXPECT_LT(async2, 0.7 * async1);                 // 2 streams overlap
  EXPECT_LT(async4, 0.85 * async2);                // 4 streams overlap more
  EXPECT_NEAR(async8, async4, 0.05 * async4);      // then nothing more to gain
  EXPECT_NEAR(pageable4, naive, 0.1 * naive);      // pageable copies block: streams cannot help
  // Within the neighbourhood of the measured H200 figures (239, 61, 61, 32-33, 24-25, 23.3, 231-245).
  EXPECT_NEAR(naive, 239, 239 * 0.1);
  EXPECT_NEAR(pinned, 61, 61 * 0.1);
  EXPECT_NEAR(async2, 32.5, 32.5 * 0.1);
  EXPECT_NEAR(async4, 24.5, 24.5 * 0.1);
}

TEST(SimulatorAnchors, FourStreamsAreWithinTenPercentOfTheIdealBound) {
  const auto r = runSim(anchorConfig(TransferMode::Async, HostMemory::Pinned, 4), simtest::h200());
  const double n = 32;
  double h = 0, k = 0, d = 0;
  for (const Op& op : r.ops) {
    if (op.kind == OpKind::CopyH2D) h += double(op.duration()) / n;
    if (op.kind == OpKind::Kernel) k += double(op.duration()) / n;
    if (op.kind == OpKind::CopyD2H) d += double(op.duration()) / n;
  }
  const double mx = std::max({h, k, d});
  const double bound = mx * n + (h + k + d - mx);  // DESIGN.md, separate copy engines
  // Mean stage times include the bidirectional slowdown the first and last copies
  // escape, so the bound can sit a little above the makespan: allow 10% either way.
  EXPECT_NEAR(double(r.makespan()) / bound, 1.0, 0.1);
}

TEST(SimulatorAnchors, PresetsRunOnTheDefaultProfile) {
  for (const auto& preset : builtinPresets()) {
    const auto r = runSim(preset.config, simtest::h200());
    EXPECT_EQ(r.outcome.state, RunState::Finished) << preset.name << ": " << r.outcome.message;
    EXPECT_EQ(r.trace->completedBatches(), preset.config.batchCount) << preset.name;
  }
}

// Mark Harris, "How to Overlap Data Transfers in CUDA C/C++": 4 streams, 4M floats.
struct HarrisTimes {
  double sequential, depthFirst, breadthFirst;
};

HarrisTimes harris(const std::string& profileName) {
  const auto p = builtinProfile(profileName);
  EXPECT_TRUE(p.has_value());
  PipelineConfig c;
  c.normalizeKernel = false;
  c.modelFlopsPerByte = 50;
  c.memory = HostMemory::Pinned;
  c.sampleBytes = 16;  // 4 floats per sample keeps batch-samples in range
  // Sequential: the whole array in one blocking copy, one kernel, one copy back.
  c.mode = TransferMode::Blocking;
  c.batchSamples = 1 << 20;
  c.batchCount = 1;
  HarrisTimes t{};
  t.sequential = makespanMs(c, *p);
  // Async: the array in 4 chunks, one per stream.
  c.mode = TransferMode::Async;
  c.streams = 4;
  c.batchSamples = 1 << 18;
  c.batchCount = 4;
  c.order = IssueOrder::DepthFirst;
  t.depthFirst = makespanMs(c, *p);
  c.order = IssueOrder::BreadthFirst;
  t.breadthFirst = makespanMs(c, *p);
  std::printf("%s: sequential %.2f  V1 %.2f  V2 %.2f ms\n", profileName.c_str(), t.sequential, t.depthFirst,
              t.breadthFirst);
  return t;
}

TEST(SimulatorHarris, OneCopyEngineMakesDepthFirstSlowerThanSequential) {
  const auto t = harris("c1060-like");
  EXPECT_GT(t.depthFirst, t.sequential);
  EXPECT_LT(t.breadthFirst, t.sequential);
  EXPECT_LT(t.breadthFirst, t.depthFirst);
}

TEST(SimulatorHarris, FermiMakesDepthFirstFastest) {
  const auto t = harris("c2050-like");
  EXPECT_LT(t.depthFirst, t.breadthFirst);
  EXPECT_LT(t.breadthFirst, t.sequential);
}

TEST(SimulatorHarris, HyperQMakesIssueOrderIrrelevant) {
  const auto t = harris("h200");
  EXPECT_NEAR(t.depthFirst, t.breadthFirst, 0.05 * t.depthFirst);
  EXPECT_LT(t.depthFirst, t.sequential);
}

}  // namespace
}  // namespace pipescope
