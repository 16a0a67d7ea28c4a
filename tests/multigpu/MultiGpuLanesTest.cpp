// The lanes of a CUDA run over several GPUs (engine/cuda/multigpu/MultiGpuLanes.h):
// each GPU's streams and engines on its own device, host lanes shared, a link lane
// per pair of consecutive pipeline stages, an all-reduce lane only when gradients are
// exchanged. No GPU needed.
#include <gtest/gtest.h>

#include <set>

#include "cuda/multigpu/MultiGpuLanes.h"

namespace pipescope::cuda {
namespace {

PipelineConfig threeGpus(ParallelMode mode) {
  PipelineConfig c;
  c.devices = {0, 2, 3};
  c.parallel = mode;
  c.streams = 2;
  c.cpuWorkers = 2;
  return c;
}

TEST(MultiGpuLanesTest, EachGpuHasItsOwnStreamsAndEnginesAndSharesTheHostLanes) {
  Trace trace;
  PipelineConfig c = threeGpus(ParallelMode::Data);
  c.allreduceBytes = 1 << 20;
  const MultiGpuLanes l = MultiGpuLanes::create(trace, c, {2, 1, 2}, {});
  const std::vector<Lane> lanes = trace.lanes();
  ASSERT_EQ(l.gpus.size(), 3u);
  std::set<std::uint16_t> engines;
  for (int g = 0; g < 3; ++g) {
    const PipelineLanes& p = l.gpus[std::size_t(g)];
    EXPECT_EQ(p.submit, l.gpus[0].submit);
    EXPECT_EQ(p.workers, l.gpus[0].workers);
    EXPECT_EQ(lanes[p.submit].device, kSharedLane);
    ASSERT_EQ(p.streams.size(), 2u);
    for (std::uint16_t s : p.streams) {
      EXPECT_EQ(lanes[s].device, g);
      EXPECT_EQ(lanes[s].kind, LaneKind::Stream);
    }
    for (std::uint16_t e : {p.h2d, p.d2h, p.compute}) {
      EXPECT_EQ(lanes[e].device, g);
      engines.insert(e);
    }
    EXPECT_EQ(lanes[l.comm[std::size_t(g)]].device, g);
    EXPECT_EQ(lanes[l.comm[std::size_t(g)]].index, kCommStream);
  }
  // GPU 1 has one copy engine: one lane for both directions.
  EXPECT_EQ(l.gpus[1].h2d, l.gpus[1].d2h);
  EXPECT_EQ(lanes[l.gpus[1].h2d].kind, LaneKind::CopyEngine);
  EXPECT_EQ(engines.size(), 3u * 3u - 1u);
  EXPECT_EQ(lanes[l.comm[2]].name, "GPU3 NCCL stream");
  ASSERT_NE(l.collective, kNoLane);
  EXPECT_EQ(lanes[l.collective].name, "NCCL all-reduce (GPU0, GPU2, GPU3)");
  EXPECT_EQ(lanes[l.collective].kind, LaneKind::Collective);
  EXPECT_EQ(lanes[l.collective].device, kSharedLane);
  EXPECT_TRUE(l.links.empty());
}

TEST(MultiGpuLanesTest, PipelineLinksNameHowConsecutiveStagesAreJoined) {
  Trace trace;
  const MultiGpuLanes l =
      MultiGpuLanes::create(trace, threeGpus(ParallelMode::Pipeline), {2, 2, 2}, {"NVLink", "via host"});
  const std::vector<Lane> lanes = trace.lanes();
  ASSERT_EQ(l.links.size(), 2u);
  EXPECT_EQ(lanes[l.links[0]].kind, LaneKind::PeerLink);
  EXPECT_EQ(lanes[l.links[0]].device, 0);  // the GPU the link leaves
  EXPECT_EQ(lanes[l.links[0]].index, 1);   // the one it reaches
  // Named with the CUDA ordinals the run uses (devices 0, 2, 3).
  EXPECT_EQ(lanes[l.links[0]].name, "GPU0→GPU2 NVLink");
  EXPECT_EQ(lanes[l.links[1]].device, 1);
  EXPECT_EQ(lanes[l.links[1]].name, "GPU2→GPU3 via host");
  EXPECT_EQ(lanes[l.gpus[1].streams[0]].name, "GPU2 stream 0");
  EXPECT_EQ(l.collective, kNoLane);
  for (std::uint16_t c : l.comm) EXPECT_EQ(c, kNoLane);
}

TEST(MultiGpuLanesTest, CreatingThemAgainFindsTheSameLanes) {
  Trace trace;
  PipelineConfig c = threeGpus(ParallelMode::Data);
  const MultiGpuLanes a = MultiGpuLanes::create(trace, c, {2, 2, 2}, {});
  const std::size_t count = trace.laneCount();
  const MultiGpuLanes b = MultiGpuLanes::create(trace, c, {2, 2, 2}, {});
  EXPECT_EQ(trace.laneCount(), count);
  for (std::size_t g = 0; g < 3; ++g) EXPECT_EQ(a.gpus[g].streams, b.gpus[g].streams);
}

}  // namespace
}  // namespace pipescope::cuda
