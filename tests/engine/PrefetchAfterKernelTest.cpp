// A prefetch of managed pages back to the host queued behind a kernel starts
// prefetchAfterKernelNs after that kernel ends (the driver moves the pages once it sees
// the kernel done); one issued on an idle stream, and prefetches to the GPU, start at once.
#include <gtest/gtest.h>

#include "ProfileFieldTestSupport.h"
#include "SimulatorTestSupport.h"
#include "sim/GpuModel.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;
using simtest::Span;
using simtest::spans;

TEST(PrefetchAfterKernel, AnOpQueuedBehindAKernelWaitsItsTermAfterTheKernelEnds) {
  DeviceProfile p = roundProfile();
  p.streamDependencyNs = 100;
  GpuModel gpu(p);
  GpuCommand kernel{OpKind::Kernel, 0, EngineId::Compute, 1000};
  GpuCommand back{OpKind::CopyD2H, 0, EngineId::D2H, 400, 1.0};
  back.afterKernelNs = 500;
  // Queued behind the running kernel: its end (1000) + the dependency (100) + 500.
  const auto k = gpu.submit(kernel, 0), b = gpu.submit(back, 10);
  // The same op on a stream whose kernel ended before it was issued: at once.
  GpuCommand idleKernel = kernel;
  idleKernel.stream = 1;
  GpuCommand idleBack = back;
  idleBack.stream = 1;
  idleBack.engine = EngineId::H2D;  // its own engine, so only the stream decides
  idleBack.kind = OpKind::CopyH2D;
  const auto k2 = gpu.submit(idleKernel, 20);
  gpu.runAll();
  EXPECT_DOUBLE_EQ(gpu.op(k).end, 1000.0);
  EXPECT_DOUBLE_EQ(gpu.op(b).start, 1600.0);
  EXPECT_DOUBLE_EQ(gpu.op(b).end, 2000.0);
  const auto b2 = gpu.submit(idleBack, 5000);
  gpu.runAll();
  EXPECT_GE(gpu.op(k2).end, 1000.0);
  EXPECT_DOUBLE_EQ(gpu.op(b2).start, 5000.0);

  // Behind a copy, not a kernel: the stream dependency alone.
  GpuModel copies(p);
  GpuCommand in{OpKind::CopyH2D, 0, EngineId::H2D, 1000, 1.0};
  const auto i = copies.submit(in, 0), c = copies.submit(back, 10);
  copies.runAll();
  EXPECT_DOUBLE_EQ(copies.op(i).end, 1000.0);
  EXPECT_DOUBLE_EQ(copies.op(c).start, 1100.0);
}

TEST(PrefetchAfterKernel, ThePipelinesPrefetchOutWaitsAndItsPrefetchInDoesNot) {
  // The blocking managed-prefetch pipeline of SimulatorTiming (prefetch in 2000 ns, the
  // kernel faulting its output in: 2000, prefetch out 4000) with a 500 ns wait before
  // the prefetch out: batch 0 ends at 8500, and everything after moves by 500 per batch
  // that moves its output back.
  DeviceProfile p = simtest::roundManagedProfile();
  p.prefetchAfterKernelNs = 500;
  PipelineConfig c = roundConfig(1000, 3);
  c.memory = HostMemory::ManagedPrefetch;
  const auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::CopyH2D)), (std::vector<Span>{{0, 2000}, {8500, 10500}, {17000, 17001}}));
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{2000, 4000}, {10500, 12500}, {17001, 19001}}));
  EXPECT_EQ(spans(r.of(OpKind::CopyD2H)), (std::vector<Span>{{4500, 8500}, {13000, 17000}, {19501, 23501}}));
}

TEST(PrefetchAfterKernel, TheTermRoundTripsThroughJsonAndOutOfRangeIsNamed) {
  simtest::expectOptionalProfileNumber("prefetchAfterKernelNs", &DeviceProfile::prefetchAfterKernelNs, roundProfile(),
                                       120000, 2e7);
}

}  // namespace
}  // namespace pipescope
