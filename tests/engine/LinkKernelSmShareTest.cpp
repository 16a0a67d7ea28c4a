// Kernels waiting on the host link keep SMs: beside a compute kernel on the same GPU,
// each counts as linkKernelSmWeight compute kernels, slowing both sides; calibrate
// fits the weight from the compute kernel's time beside one such kernel.
#include <gtest/gtest.h>

#include "ProfileFieldTestSupport.h"
#include "SimulatorTestSupport.h"
#include "sim/GpuModel.h"
#include "sim/LinkComputeFit.h"

namespace pipescope {
namespace {

using simtest::roundConfig;
using simtest::roundProfile;
using simtest::runSim;
using simtest::Span;
using simtest::spans;

GpuCommand linkKernel(int stream, double ns) {
  GpuCommand k{OpKind::Kernel, stream, EngineId::Link, ns, 0, 0};
  k.link = LinkKind::Mapped;
  k.hostInBytes = 1000;
  return k;
}

GpuCommand computeKernel(int stream, double ns) { return GpuCommand{OpKind::Kernel, stream, EngineId::Compute, ns}; }

DeviceProfile sharingProfile(double weight) {
  DeviceProfile p = roundProfile();
  p.mappedStreamsSpeedup = {{2, 2.0}};  // two link kernels together lose nothing to each other
  p.linkKernelSmWeight = weight;
  return p;
}

TEST(LinkKernelSmShare, AComputeKernelAndALinkKernelShareTheSmsByTheWeight) {
  // Weight 1: a 400 ns compute kernel and a 1000 ns link kernel, both at half speed
  // while together: the compute kernel ends at 800 ns, having let the link kernel do
  // 400 ns of its work; the link kernel does the other 600 alone: 1400 ns.
  GpuModel gpu(sharingProfile(1.0));
  const auto l = gpu.submit(linkKernel(0, 1000), 0), c = gpu.submit(computeKernel(1, 400), 0);
  gpu.runAll();
  EXPECT_NEAR(gpu.op(c).end, 800.0, 1e-6);
  EXPECT_NEAR(gpu.op(l).end, 1400.0, 1e-6);

  // Weight 0.5: the compute kernel at 1 / 1.5 (600 ns), the link kernel at 0.5 / 1.5
  // meanwhile (200 ns of work), then 800 alone: 1400 ns.
  GpuModel half(sharingProfile(0.5));
  const auto l2 = half.submit(linkKernel(0, 1000), 0), c2 = half.submit(computeKernel(1, 400), 0);
  half.runAll();
  EXPECT_NEAR(half.op(c2).end, 600.0, 1e-6);
  EXPECT_NEAR(half.op(l2).end, 1400.0, 1e-6);

  // Weight 0 (profiles without the field): each at its own speed.
  GpuModel none(sharingProfile(0.0));
  const auto l3 = none.submit(linkKernel(0, 1000), 0), c3 = none.submit(computeKernel(1, 400), 0);
  none.runAll();
  EXPECT_DOUBLE_EQ(none.op(c3).end, 400.0);
  EXPECT_DOUBLE_EQ(none.op(l3).end, 1000.0);
}

TEST(LinkKernelSmShare, EveryRunningLinkKernelCountsAndAnEndingOneGivesItsShareBack) {
  // Two link kernels (1000 ns each) beside a 400 ns compute kernel, weight 1: the
  // compute kernel at 1/3 ends at 1200 ns; the link kernels together have 2/3 of the
  // SMs (each at 2/3 of its rate alone), do 800 ns of work by then and end at 1400.
  GpuModel gpu(sharingProfile(1.0));
  const auto a = gpu.submit(linkKernel(0, 1000), 0), b = gpu.submit(linkKernel(1, 1000), 0),
             c = gpu.submit(computeKernel(2, 400), 0);
  gpu.runAll();
  EXPECT_NEAR(gpu.op(c).end, 1200.0, 1e-6);
  EXPECT_NEAR(gpu.op(a).end, 1400.0, 1e-6);
  EXPECT_NEAR(gpu.op(b).end, 1400.0, 1e-6);

  // A 200 ns link kernel beside a 1000 ns compute kernel: half speed each until the
  // link kernel ends at 400 ns (the compute kernel 200 ns in), then the compute kernel
  // alone for its other 800: 1200 ns. A compute kernel on another GPU is not touched.
  GpuModel shortLink(sharingProfile(1.0));
  GpuCommand elsewhere = computeKernel(3, 1000);
  elsewhere.device = 1;
  const auto s = shortLink.submit(linkKernel(0, 200), 0), k = shortLink.submit(computeKernel(1, 1000), 0),
             o = shortLink.submit(elsewhere, 0);
  shortLink.runAll();
  EXPECT_NEAR(shortLink.op(s).end, 400.0, 1e-6);
  EXPECT_NEAR(shortLink.op(k).end, 1200.0, 1e-6);
  EXPECT_DOUBLE_EQ(shortLink.op(o).end, 1000.0);
}

TEST(LinkKernelSmShare, TheFitRecoversTheWeightFromAModelPlayingTheGpu) {
  // calibrate's probe on a GPU the model plays: the compute kernel alone, then beside
  // one link kernel started with it, covering it or ending first.
  for (double weight : {0.3, 1.0, 2.0}) {
    for (double linkNs : {5000.0, 150.0}) {
      GpuModel gpu(sharingProfile(weight));
      const auto l = gpu.submit(linkKernel(0, linkNs), 0), c = gpu.submit(computeKernel(1, 300), 0);
      gpu.runAll();
      EXPECT_NEAR(linkKernelSmWeightFrom(300, gpu.op(c).end, gpu.op(l).end), weight, 1e-9)
          << "weight " << weight << ", link kernel " << linkNs << " ns";
    }
  }
  EXPECT_DOUBLE_EQ(linkKernelSmWeightFrom(300, 290, 1000), 0.0);  // not slower: no weight
  EXPECT_DOUBLE_EQ(linkKernelSmWeightFrom(300, 3000, 1000), 4.0);  // past the profile's range
  EXPECT_DOUBLE_EQ(linkKernelSmWeightFrom(0, 300, 1000), 0.0);
}

TEST(LinkKernelSmShare, AMappedKernelWhoseWorkOutlastsItsWriteRunsOneAtATime) {
  // Each batch's model kernel: 4000 ns of work, reading its 1000 B input in 1000 ns and
  // writing 250 B in 250 ns, half of the write showing (mappedWriteOverlap 0.5): 4125
  // ns. Its work, not the link, sets its time, so two streams' kernels take turns on
  // the compute engine: they do not overlap as link-bound kernels would.
  DeviceProfile p = roundProfile();
  p.mappedReadGBps = p.mappedWriteGBps = 1.0;
  p.mappedWriteOverlap = 0.5;
  p.mappedStreamsSpeedup = {{2, 2.0}};
  PipelineConfig c = roundConfig(1000, 2);
  c.mode = TransferMode::Async;
  c.streams = 2;
  c.memory = HostMemory::Mapped;
  c.modelFlopsPerByte = 8.0;
  c.outputRatio = 0.25;
  auto r = runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  EXPECT_EQ(spans(r.of(OpKind::Kernel)), (std::vector<Span>{{0, 4125}, {4125, 8250}}));
}

TEST(LinkKernelSmShare, TheWeightRoundTripsThroughJsonAndOutOfRangeIsNamed) {
  simtest::expectOptionalProfileNumber("linkKernelSmWeight", &DeviceProfile::linkKernelSmWeight, roundProfile(), 0.85,
                                       5.0);
}

}  // namespace
}  // namespace pipescope
