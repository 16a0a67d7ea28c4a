// The host model's double buffering (PipelineConfig::hostSlots, as the CUDA backend
// runs it): batch b reuses the host buffers of batch b - 2·streams, so the host waits
// for that batch, not for b - streams. Hand-computed timelines on simtest::roundProfile.
#include <gtest/gtest.h>

#include "SimulatorTestSupport.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;

std::vector<std::int64_t> starts(const std::vector<Op>& ops) {
  std::vector<std::int64_t> s;
  for (const Op& op : ops) s.push_back(op.start);
  return s;
}
std::vector<std::int64_t> ends(const std::vector<Op>& ops) {
  std::vector<std::int64_t> e;
  for (const Op& op : ops) e.push_back(op.end);
  return e;
}

TEST(SimulatorHostSlots, OneStreamKeepsTheNextBatchQueuedWhileTheHostWakesUp) {
  // One stream, 4 batches, H2D = kernel = D2H = 100 ns, the host wakes 50 ns after
  // the batch it waits for is done. Batches 0 and 1 are issued at t=0 (two host
  // slots). Batch 2 waits for batch 0 (done 300, host back at 350), batch 3 for
  // batch 1 (done 600, back at 650); at the end the host waits for 2 (900 -> 950)
  // and 3 (1200 -> 1250). Each batch is queued before the one ahead of it ends, so
  // the stream never idles: H2D of batch b starts at 300·b. (Waiting for b - 1 would
  // leave a 50 ns hole before every batch: 4·300 + 3·50 + 50 = 1400.)
  PipelineConfig c = roundConfig(100, 4);
  c.sync = SyncMode::Spin;
  DeviceProfile p = roundProfile();
  p.spinSyncWakeNs = 50;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(starts(r.of(OpKind::CopyH2D)), (std::vector<std::int64_t>{0, 300, 600, 900}));
  EXPECT_EQ(ends(r.of(OpKind::CopyD2H)), (std::vector<std::int64_t>{300, 600, 900, 1200}));
  const auto syncs = r.of(OpKind::HostSync);
  EXPECT_EQ(starts(syncs), (std::vector<std::int64_t>{0, 350, 650, 950}));
  EXPECT_EQ(ends(syncs), (std::vector<std::int64_t>{350, 650, 950, 1250}));
  EXPECT_EQ(r.makespan(), 1250);
}

TEST(SimulatorHostSlots, PreprocessingOfTheNextRoundOverlapsTheGpu) {
  // One stream, 200 ns per stage on the GPU and 200 ns of preprocessing per batch.
  // Batch 0: preprocess 0-200, GPU 200-800. Batch 1 has its own host buffers:
  // preprocess 200-400 while batch 0 is on the GPU, H2D queued behind batch 0's D2H
  // (800). Batch 2 reuses batch 0's buffers: the host waits until 800, preprocesses
  // 800-1000; its H2D waits for batch 1's D2H (1400). With one host slot per stream
  // batch 1's preprocessing would wait for batch 0 (800) and its H2D start at 1000.
  PipelineConfig c = roundConfig(200, 3);
  c.preprocessOpsPerByte = 1.0;
  c.sync = SyncMode::Spin;
  DeviceProfile p = roundProfile();
  p.spinSyncWakeNs = 0;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(starts(r.of(OpKind::Preprocess)), (std::vector<std::int64_t>{0, 200, 800}));
  EXPECT_EQ(starts(r.of(OpKind::CopyH2D)), (std::vector<std::int64_t>{200, 800, 1400}));
}

}  // namespace
}  // namespace pipescope
