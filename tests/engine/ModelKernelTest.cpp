// The custom model kernel's time: its FLOP time plus its own bytes at the profile's
// modelMemoryGBps (older profiles: the larger of FLOP and bandwidth time), and the fit
// calibrate makes of both rates from the kernel timed at several intensities.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ProfileFieldTestSupport.h"
#include "SimulatorTestSupport.h"
#include "config/ModelWork.h"
#include "sim/GpuModel.h"
#include "sim/ModelKernelFit.h"
#include "sim/StageCosts.h"

namespace pipescope {
namespace {

DeviceProfile kernelProfile() {
  DeviceProfile p = simtest::roundProfile();
  p.kernelFixedNs = 1000;
  p.modelGflops = 50000;  // 50 000 flop a ns
  p.deviceMemoryGBps = 4000;
  return p;
}

TEST(ModelKernel, ItsBytesAddToItsFlopTimeAtTheirOwnRate) {
  DeviceProfile p = kernelProfile();
  p.modelMemoryGBps = 2000;
  // 4 MiB in, 2 MiB out, 100 flop/B: 200 FMAs on each of 1 Mi floats = 419430400
  // flop = 8388.608 ns; 6 MiB at 2000 GB/s = 3145.728 ns; plus the fixed 1000.
  EXPECT_EQ(modelFmasPerElement(100), 200u);
  EXPECT_NEAR(customModelKernelNs(p, 4 << 20, 2 << 20, 100), 1000 + 8388.608 + 3145.728, 1e-6);
}

TEST(ModelKernel, WithoutItsOwnRateTheLargerOfFlopAndBandwidthTimeCounts) {
  const DeviceProfile p = kernelProfile();
  // The same kernel: FLOP time 8388.608 ns beats 6 MiB at 4000 GB/s (1572.864 ns).
  EXPECT_NEAR(customModelKernelNs(p, 4 << 20, 2 << 20, 100), 1000 + 8388.608, 1e-6);
  // At 2 flop/B the bytes take longer: 4 FMAs = 8388608 flop = 167.77 ns vs 1572.864.
  EXPECT_NEAR(customModelKernelNs(p, 4 << 20, 2 << 20, 2), 1000 + 1572.864, 1e-6);
}

TEST(ModelKernel, AGridOfFewerBlocksRunsItsFlopsAtItsCurvesFactor) {
  DeviceProfile p = kernelProfile();
  p.modelMemoryGBps = 2000;
  p.modelKernelBlocksCurve = {{1056, 1.0}, {1188, 1.4}};
  // 1 122 blocks of 256 floats: halfway between the points, 1.2x. 287232 floats at
  // 100 flop/B: 200 FMAs each = 114892800 flop = 2297.856 ns, x 1.2 = 2757.4272;
  // 1148928 B in and as much out at 2000 GB/s = 1148.928 ns; plus the fixed 1000.
  const std::uint64_t in = 1122ull * 256 * 4;
  EXPECT_EQ(modelKernelBlocks(in / 4), 1122u);
  EXPECT_NEAR(modelKernelBlocksFactor(p, in / 4), 1.2, 1e-12);
  EXPECT_NEAR(customModelKernelNs(p, in, in, 100), 1000 + 2757.4272 + 1148.928, 1e-6);
  // Below the first point: its factor; a full grid (threads looping): the rates alone.
  EXPECT_DOUBLE_EQ(modelKernelBlocksFactor(p, 256 * 10), 1.0);
  EXPECT_DOUBLE_EQ(modelKernelBlocksFactor(p, kModelKernelThreads * kModelKernelMaxBlocks), 1.0);
  EXPECT_EQ(modelKernelBlocks(1), 1u);
  EXPECT_EQ(modelKernelBlocks(1ull << 30), kModelKernelMaxBlocks);
  p.modelKernelBlocksCurve = {{132, 1.3}, {264, 1.1}};
  EXPECT_DOUBLE_EQ(modelKernelBlocksFactor(p, 256 * 10), 1.3);
  EXPECT_DOUBLE_EQ(modelKernelBlocksFactor(p, 256 * 1000), 1.1);  // flat after the last point
}

TEST(ModelKernel, TheFormSolvedForItsFlopShareGivesBackTheBlocksFactor) {
  // calibrate reads the blocks curve off a kernel's time this way, and a configuration
  // derived from an import its FLOPs: both must invert the simulator's own form.
  DeviceProfile p = kernelProfile();
  p.modelMemoryGBps = 2000;
  p.modelKernelBlocksCurve = {{1056, 1.0}, {1188, 1.4}};
  const std::uint64_t in = 1122ull * 256 * 4;
  const ModelKernelParts parts = modelKernelParts(p, in, in, 100);
  EXPECT_NEAR(parts.flopNs, 2297.856, 1e-6);
  EXPECT_NEAR(parts.memoryNs, 1148.928, 1e-6);
  const double ns = customModelKernelNs(p, in, in, 100) - p.kernelFixedNs;
  EXPECT_NEAR(modelKernelFlopShareNs(parts, ns) / parts.flopNs, 1.2, 1e-12);
  // The max form (no memory rate) gives the FLOPs all of a FLOP-bound kernel's time.
  p.modelMemoryGBps = 0;
  const ModelKernelParts maxForm = modelKernelParts(p, in, in, 100);
  EXPECT_FALSE(maxForm.memoryAdds);
  EXPECT_DOUBLE_EQ(modelKernelFlopShareNs(maxForm, 2757.4272), 2757.4272);
  EXPECT_DOUBLE_EQ(modelKernelFlopShareNs(parts, 100.0), 0.0);  // never below 0
}

TEST(ModelKernel, ItsLastWaveIsChargedOnlyWhenNoOtherKernelIsReadyToFillIt) {
  DeviceProfile p = simtest::roundProfile();
  p.kernelGapNs = 0;
  p.streamDependencyNs = 0;
  GpuModel gpu(p);
  // 1400 ns of which 400 are the last wave's: alone, all of it; with a kernel of
  // another stream ready before that wave begins, its blocks fill the wave (1000 ns).
  GpuCommand tailed{OpKind::Kernel, 0, EngineId::Compute, 1400};
  tailed.tailNs = 400;
  GpuCommand other{OpKind::Kernel, 1, EngineId::Compute, 500};
  const auto alone = gpu.submit(tailed, 0);
  gpu.runAll();
  EXPECT_DOUBLE_EQ(gpu.op(alone).end - gpu.op(alone).start, 1400.0);
  // The other submitted 500 ns into it, before its last wave (at 6000): filled.
  const auto a = gpu.submit(tailed, 5000);
  const auto b = gpu.submit(other, 5500);
  gpu.runAll();
  EXPECT_DOUBLE_EQ(gpu.op(a).start, 5000.0);
  EXPECT_DOUBLE_EQ(gpu.op(a).end, 6000.0);
  EXPECT_DOUBLE_EQ(gpu.op(b).start, 6000.0);
  EXPECT_DOUBLE_EQ(gpu.op(b).end, 6500.0);
  // Submitted 1200 ns into it, once the last wave has begun: too late.
  const auto late = gpu.submit(tailed, 10000);
  const auto behind = gpu.submit(other, 11200);
  gpu.runAll();
  EXPECT_DOUBLE_EQ(gpu.op(late).end, 11400.0);
  EXPECT_DOUBLE_EQ(gpu.op(behind).start, 11400.0);
}

TEST(ModelKernel, TheSimulatorGivesItsKernelsTheirTail) {
  DeviceProfile p = kernelProfile();
  p.modelMemoryGBps = 2000;
  p.modelKernelBlocksCurve = {{1056, 1.0}, {1188, 1.4}};
  // The kernel of AGridOfFewerBlocks... above: its FLOP time 2297.856 ns, x 0.2 more.
  const std::uint64_t in = 1122ull * 256 * 4;
  EXPECT_NEAR(customModelKernelTime(p, in, in, 100).tailNs, 0.2 * 2297.856, 1e-6);
  EXPECT_DOUBLE_EQ(customModelKernelTime(p, 1000ull * 256 * 4, 1000ull * 256 * 4, 100).tailNs, 0.0);  // factor 1
  // Without the memory rate, a kernel whose bytes outlast its FLOPs has no tail to
  // lose: at 2 flop/B, 1.2 x 45.96 ns of FLOPs under 2297856 B / 4000 GB/s = 574.464 ns.
  p.modelMemoryGBps = 0;
  EXPECT_DOUBLE_EQ(customModelKernelTime(p, in, in, 2).tailNs, 0.0);
  // One stream: each batch's model kernel runs alone, its wave charged.
  PipelineConfig c = simtest::roundConfig(1122ull * 256 * 4, 2);
  c.modelFlopsPerByte = 100;
  c.normalizeKernel = false;
  const auto r = simtest::runSim(c, p);
  ASSERT_EQ(r.outcome.state, RunState::Finished) << r.outcome.message;
  for (const auto& k : r.of(OpKind::Kernel))
    EXPECT_NEAR(double(k.end - k.start), customModelKernelNs(p, c.batchBytes(), c.outputBytes(), 100), 1.0);
}

TEST(ModelKernel, TheBlocksCurveRoundTripsThroughJsonAndABadPointIsNamed) {
  DeviceProfile p = kernelProfile();
  EXPECT_FALSE(profileToJson(p).contains("modelKernelBlocksCurve"));
  p.modelKernelBlocksCurve = {{132, 1.2}, {1188, 1.42}, {4224, 1.0}};
  EXPECT_EQ(profileFromJson(profileToJson(p)).modelKernelBlocksCurve, p.modelKernelBlocksCurve);
  const nlohmann::json base = profileToJson(p);
  const std::string tooMany = simtest::profileError(base, "modelKernelBlocksCurve",
                                                    nlohmann::json::array({{{"blocks", 5000}, {"factor", 1.0}}}));
  EXPECT_NE(tooMany.find("modelKernelBlocksCurve[0]"), std::string::npos) << tooMany;
  const std::string zero = simtest::profileError(base, "modelKernelBlocksCurve",
                                                 nlohmann::json::array({{{"blocks", 132}, {"factor", 0.0}}}));
  EXPECT_NE(zero.find("modelKernelBlocksCurve[0]"), std::string::npos) << zero;
}

TEST(ModelKernel, TheRateRoundTripsThroughJsonAndOutOfRangeIsNamed) {
  simtest::expectOptionalProfileNumber("modelMemoryGBps", &DeviceProfile::modelMemoryGBps, kernelProfile(), 2500,
                                       2e5);
}

std::vector<ModelKernelSample> timedAt(double gflops, double memoryGBps, const std::vector<double>& noise) {
  // The calibration's four runs: 32 MiB in and out, 20 to 3200 flop/B.
  const double bytes = 2.0 * 32 * (1 << 20);
  std::vector<ModelKernelSample> out;
  const double intensities[] = {20, 100, 1050, 3200};
  for (std::size_t i = 0; i < 4; ++i) {
    const double flops = bytes / 2 * intensities[i];
    const double ns = flops / gflops + (memoryGBps > 0 ? bytes / memoryGBps : 0.0);
    out.push_back({flops, bytes, ns * (1.0 + noise[i])});
  }
  return out;
}

TEST(ModelKernelFit, RecoversBothRatesFromFourIntensities) {
  const ModelKernelRates exact = fitModelKernelRates(timedAt(62000, 2500, {0, 0, 0, 0}));
  EXPECT_NEAR(exact.gflops, 62000, 62000 * 1e-9);
  EXPECT_NEAR(exact.memoryGBps, 2500, 2500 * 1e-9);
  EXPECT_NEAR(exact.worstRelativeError, 0.0, 1e-12);
  // A percent of timing noise moves the rates by a few percent and shows as the miss.
  const ModelKernelRates noisy = fitModelKernelRates(timedAt(62000, 2500, {0.01, -0.01, 0.01, -0.01}));
  EXPECT_NEAR(noisy.gflops, 62000, 62000 * 0.03);
  EXPECT_NEAR(noisy.memoryGBps, 2500, 2500 * 0.05);
  EXPECT_GT(noisy.worstRelativeError, 0.001);
  EXPECT_LT(noisy.worstRelativeError, 0.03);
}

TEST(ModelKernelFit, LoadsHiddenBehindTheComputeLeaveTheFlopRateAlone) {
  // Times of FLOPs alone, the longer ones a little slow: the two-rate fit would want a
  // negative memory term, so only the FLOP rate is fitted.
  const ModelKernelRates r = fitModelKernelRates(timedAt(60000, 0, {-0.02, -0.01, 0.0, 0.01}));
  EXPECT_EQ(r.memoryGBps, 0.0);
  EXPECT_NEAR(r.gflops, 60000, 60000 * 0.02);
}

TEST(ModelKernelFit, OneUsableSampleIsRefused) {
  std::vector<ModelKernelSample> one = timedAt(62000, 2500, {0, 0, 0, 0});
  one.resize(1);
  one.push_back({0, 1e6, 100});  // no work: unusable
  EXPECT_THROW(fitModelKernelRates(one), std::invalid_argument);
}

}  // namespace
}  // namespace pipescope
