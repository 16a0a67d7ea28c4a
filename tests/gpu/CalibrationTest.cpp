// A quick calibration on the real GPU gives a sane device profile. Skips cleanly
// without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "GpuTestEnvironment.h"
#include "config/ModelWork.h"
#include "sim/DeviceProfile.h"
#include "sim/HostOverheadFit.h"

namespace pipescope {
namespace {

void expectPlausibleCurve(const std::vector<BandwidthPoint>& curve, double lo, double hi, const char* what) {
  ASSERT_FALSE(curve.empty()) << what;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    EXPECT_GT(curve[i].gbps, lo) << what << " at " << curve[i].bytes << " bytes";
    EXPECT_LT(curve[i].gbps, hi) << what << " at " << curve[i].bytes << " bytes";
    if (i > 0) {
      EXPECT_GT(curve[i].bytes, curve[i - 1].bytes) << what;
    }
  }
}

TEST(CalibrationTest, QuickCalibrationGivesASaneProfile) {
  PIPESCOPE_LOAD_CUDA_MODULE(cuda);
  const CudaProbe probe = cuda.probe();
  if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
  if (sanitizerTool() == "racecheck")
    GTEST_SKIP() << "the calibration's kernel ladders and GEMMs do not finish under racecheck within its budget; "
                    "they run the backend's kernels, which the other tests check, and memcheck covers this test";
  std::string error;
  auto backend = cuda.makeBackend(0, error);
  ASSERT_TRUE(backend) << error;
  const DeviceInfo device = backend->describe();

  CalibrationOptions o;
  o.quick = true;
  o.gpus = 1;  // one GPU here; the multi-GPU probes have their own test below
  std::vector<std::string> lines;
  o.log = [&](const std::string& line) { lines.push_back(line); };
  const DeviceProfile p = cuda.calibrate(o);

  EXPECT_EQ(p.deviceName, device.name);
  EXPECT_FALSE(p.deviceName.empty());
  EXPECT_NE(p.source.find("calibrated on " + device.name), std::string::npos) << p.source;
  EXPECT_NE(p.name.find("calibrated"), std::string::npos) << p.name;
  EXPECT_GE(p.copyEngines, 1);
  EXPECT_LE(p.copyEngines, 2);
  EXPECT_GE(p.hardwareQueues, 1);
  // PCIe Gen3 x1 .. anything this decade: pinned copies between 0.5 and 1000 GB/s.
  expectPlausibleCurve(p.h2dPinnedCurve, 0.5, 1000, "H2D pinned");
  expectPlausibleCurve(p.d2hPinnedCurve, 0.5, 1000, "D2H pinned");
  expectPlausibleCurve(p.h2dPinnedBlockingCurve, 0.1, 1000, "H2D pinned blocking");
  expectPlausibleCurve(p.d2hPinnedBlockingCurve, 0.1, 1000, "D2H pinned blocking");
  expectPlausibleCurve(p.h2dPageableCurve, 0.05, 1000, "H2D pageable");
  expectPlausibleCurve(p.d2hPageableCurve, 0.05, 1000, "D2H pageable");
  // The host's staging memcpy inside a pageable cudaMemcpyAsync: a CPU memcpy, never
  // faster than ~200 GB/s; one point per size from 4 KiB, logged for each direction.
  expectPlausibleCurve(p.h2dPageableStagingCurve, 0.05, 200, "H2D pageable staging");
  expectPlausibleCurve(p.d2hPageableStagingCurve, 0.01, 200, "D2H pageable staging");
  EXPECT_EQ(p.h2dPageableStagingCurve.front().bytes, 4096u);
  for (const char* line : {"H2D pageable staging GB/s", "D2H pageable staging GB/s"})
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                            [&](const std::string& l) { return l.find(line) != std::string::npos; }))
        << line;
  // The blocking cudaMemcpy's call cost comes from a copy timed with the spin sync:
  // microseconds (2.7-5.7 us on H200 hosts), logged, or the refusal of the flag is.
  EXPECT_GE(p.memcpySyncCallNs, 0.0);
  EXPECT_LT(p.memcpySyncCallNs, 1e5);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("blocking 4 KiB cudaMemcpy with the spin sync") != std::string::npos ||
           l.find("the blocking cudaMemcpy call timed with the blocking sync") != std::string::npos;
  }));
  // The copies the host waits for are timed with the spin sync (or, where the driver
  // refuses it, the blocking one), and the log says which.
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("copies the host waits for timed with the spin sync") != std::string::npos ||
           l.find("copies timed with the blocking sync") != std::string::npos;
  }));
  EXPECT_GT(p.bidirectionalGBps, 0.5);
  // Zero-copy: each direction alone, and both at once never less than the slower alone
  // nor more than both alone together (with 10 % for timing noise).
  EXPECT_GT(p.mappedReadGBps, 0.5);
  EXPECT_GT(p.mappedWriteGBps, 0.5);
  EXPECT_GT(p.mappedDuplexGBps, 0.9 * std::min(p.mappedReadGBps, p.mappedWriteGBps));
  EXPECT_LT(p.mappedDuplexGBps, 1.1 * (p.mappedReadGBps + p.mappedWriteGBps));
  EXPECT_GE(p.mappedWriteOverlap, 0);
  EXPECT_LE(p.mappedWriteOverlap, 1);
  // Managed pages a kernel faults in: effective rates between a crawl and the host
  // link's ceiling (0.2-10 GB/s on H200 hosts).
  expectPlausibleCurve(p.managedGpuFaultCurve, 0.01, 200, "managed kernel read fault");
  // A mapped read beside a compute kernel keeps SMs the compute kernel then lacks (2.2
  // compute kernels' worth on two H200 hosts). Never more than the 4 the profile
  // allows, and logged with both kernels' times.
  // A prefetch back to the host queued behind the kernel that wrote the pages: a wait of
  // the driver's, tens to hundreds of microseconds in the pipeline traces, never
  // negative, never milliseconds; both variants logged.
  EXPECT_GE(p.prefetchAfterKernelNs, 0.0);
  EXPECT_LT(p.prefetchAfterKernelNs, 2e6);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("queued behind the kernel that wrote them") != std::string::npos;
  }));
  EXPECT_GT(p.linkKernelSmWeight, 0.1);
  EXPECT_LE(p.linkKernelSmWeight, 4.0);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("mapped read beside a compute kernel") != std::string::npos;
  }));
  EXPECT_GT(p.modelGflops, 10.0);
  EXPECT_GT(p.deviceMemoryGBps, 10.0);
  // The model kernel's own bytes: a rate of its own or none (the loads hid behind the
  // compute), and the two-rate form within 10 % of each of its four timed intensities
  // (20 to 3200 flop/B: H200 hosts missed by 0.3-0.8 %; the FLOP rate alone missed the
  // 100 flop/B kernel by 30 %). Grids of fewer blocks: a point every 132 blocks up to
  // the full grid, each a time over the rates' of 0.5-3 (H200: 1.0-1.43), the full
  // grid's near the rates' own. Those are timings of the plain build: under a
  // compute-sanitizer tool every load is instrumented (memcheck: 82 GB/s, a 24 % miss).
  EXPECT_GE(p.modelMemoryGBps, 0.0);
  const auto fit = std::find_if(lines.begin(), lines.end(),
                                [](const std::string& l) { return l.find("model kernel fit:") != std::string::npos; });
  ASSERT_NE(fit, lines.end());
  const auto miss = fit->find("worst miss ");
  ASSERT_NE(miss, std::string::npos) << *fit;
  ASSERT_EQ(p.modelKernelBlocksCurve.size(), std::size_t(kModelKernelMaxBlocks / 132));
  for (std::size_t i = 0; i < p.modelKernelBlocksCurve.size(); ++i)
    EXPECT_EQ(p.modelKernelBlocksCurve[i].blocks, int(132 * (i + 1)));
  if (sanitizerTool().empty()) {
    if (p.modelMemoryGBps > 0) {
      EXPECT_GT(p.modelMemoryGBps, 10.0);
      EXPECT_LT(p.modelMemoryGBps, 4.0 * p.deviceMemoryGBps);
    }
    EXPECT_LT(std::stod(fit->substr(miss + 11)), 10.0) << *fit;
    for (std::size_t i = 0; i < p.modelKernelBlocksCurve.size(); ++i) {
      EXPECT_GT(p.modelKernelBlocksCurve[i].factor, 0.5) << i;
      EXPECT_LT(p.modelKernelBlocksCurve[i].factor, 3.0) << i;
    }
    EXPECT_NEAR(p.modelKernelBlocksCurve.back().factor, 1.0, 0.25);
  }
  EXPECT_GT(p.gemmTflops, 0.01);
  EXPECT_GT(p.kernelLaunchNs, 0.0);
  EXPECT_LT(p.kernelLaunchNs, 1e6);
  EXPECT_GT(p.kernelGapNs, 0.0);
  // The latency terms: microseconds on any GPU of this decade, never negative.
  EXPECT_GE(p.kernelFixedNs, 0.0);
  EXPECT_LT(p.kernelFixedNs, 50e3);
  EXPECT_GE(p.streamDependencyNs, 0.0);
  EXPECT_LT(p.streamDependencyNs, 100e3);
  EXPECT_GE(p.syncSleepWakeNs, 0.0);
  EXPECT_LT(p.syncSleepWakeNs, 1e6);
  if (p.syncSleepWakeNs > 0) {
    EXPECT_GT(p.syncSleepWakeNs, p.syncWakeNs);
  }
  // A blocking cudaMemcpy's own cost, beyond its 4 KiB copy and the wake-up it paid,
  // is a call's, less than a sleep: a figure above it still holds a sleep the host
  // thread took in the call (memcpySyncSleeps).
  EXPECT_GE(p.memcpySyncCallNs, 0.0);
  EXPECT_LT(p.memcpySyncCallNs, std::max(p.syncWakeNs, p.syncSleepWakeNs));
  if (p.memcpySyncSleeps) {
    EXPECT_GT(p.syncSleepWakeNs, 0.0);
    EXPECT_TRUE(p.pageableMemcpySyncSleeps);  // the pinned path sleeping implies the pageable one
  }
  if (p.pageableMemcpySyncSleeps) {
    EXPECT_GT(p.syncSleepWakeNs, 0.0);
  }
  EXPECT_GT(p.cpuNsPerOp, 0.0);
  // The first calls after a CPU stage: at least the 1 ns floor, at most milliseconds
  // (a few calls), by increasing stage size.
  ASSERT_FALSE(p.callAfterCpuStage.empty());
  for (std::size_t i = 0; i < p.callAfterCpuStage.size(); ++i) {
    EXPECT_GE(p.callAfterCpuStage[i].ns, 1.0);
    EXPECT_LT(p.callAfterCpuStage[i].ns, 5e6);
    if (i > 0) {
      EXPECT_GT(p.callAfterCpuStage[i].bytes, p.callAfterCpuStage[i - 1].bytes);
    }
  }
  // Managed page moves on 4-32 slots against one buffer: never below one (noise is
  // clamped there); above 50 would be a probe gone wrong (the pipeline traces showed
  // up to 4.8x on 30 slots).
  for (const auto* curve : {&p.managedSlotsSlowdown, &p.managedSlotsCpuSlowdown}) {
    ASSERT_EQ(curve->size(), 4u);
    EXPECT_EQ(curve->front().hostSlots, 4);
    EXPECT_EQ(curve->back().hostSlots, 32);
    for (const ManagedSlotsPoint& s : *curve) {
      EXPECT_GE(s.factor, 1.0) << s.hostSlots << " slots";
      EXPECT_LT(s.factor, 50.0) << s.hostSlots << " slots";
    }
  }
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find("managed slots (256 KiB each)") != std::string::npos; }));
  // CPU workers faulting a managed buffer back together, at 256 KiB, 4 and 32 MiB, on
  // 2, 4 and 8 workers against one: within what the simulator uses (0.05 to the worker
  // count), and at 32 MiB (7-10 ms of faults for one thread) eight workers beat one
  // (2.3-5.8x in six H200 calibrations, each way).
  for (const auto* sizes : {&p.managedCpuWriteFaultWorkers, &p.managedCpuReadFaultWorkers}) {
    ASSERT_EQ(sizes->size(), 3u);
    EXPECT_EQ(sizes->front().bytes, 256u << 10);
    EXPECT_EQ(sizes->back().bytes, 32u << 20);
    for (const SizedWorkerSpeedup& s : *sizes) {
      ASSERT_EQ(s.curve.size(), 3u);
      for (const WorkerSpeedup& w : s.curve) {
        EXPECT_GE(w.speedup, 0.05) << s.bytes << " B, " << w.workers << " workers";
        EXPECT_LE(w.speedup, double(w.workers)) << s.bytes << " B, " << w.workers << " workers";
      }
    }
    EXPECT_GT(sizes->back().curve.back().speedup, 1.0) << "32 MiB, 8 workers";
  }
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("managed pages faulted back by N CPU workers together") != std::string::npos;
  }));
  // Kernels faulting managed pages in on 2, 4 and 8 streams, at 1, 2, 4 and 32 MiB each:
  // together at least one kernel's throughput (noise below is clamped to 1), at most
  // the stream count's (n kernels cannot beat n alone); the one-size field holds the
  // 1 MiB curve, as before the sizes were measured, and each size's line is logged.
  ASSERT_EQ(p.managedFaultStreamsSpeedupBySize.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(p.managedFaultStreamsSpeedupBySize[i].bytes, std::uint64_t(std::array{1, 2, 4, 32}[i]) << 20);
  EXPECT_EQ(p.managedFaultStreamsSpeedup, p.managedFaultStreamsSpeedupBySize[0].curve);
  for (const SizedStreamSpeedup& size : p.managedFaultStreamsSpeedupBySize) {
    ASSERT_EQ(size.curve.size(), 3u) << size.bytes << " B";
    EXPECT_EQ(size.curve.front().streams, 2);
    EXPECT_EQ(size.curve.back().streams, 8);
    for (const StreamSpeedup& s : size.curve) {
      EXPECT_GE(s.speedup, 1.0) << size.bytes << " B on " << s.streams << " streams";
      EXPECT_LE(s.speedup, double(s.streams)) << size.bytes << " B on " << s.streams << " streams";
    }
  }
  for (const char* line :
       {"normalize faulting 1 MiB of managed pages in", "normalize faulting 2 MiB of managed pages in",
        "normalize faulting 4 MiB of managed pages in", "normalize faulting 32 MiB of managed pages in"})
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(line) != std::string::npos;
    })) << line;
  EXPECT_GE(p.deviceMemoryBytes, device.memoryBytes / 2);
  EXPECT_FALSE(lines.empty());
  // What calibrate writes, the simulator reads back unchanged.
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
}

}  // namespace
}  // namespace pipescope

namespace pipescope {
namespace {

// On a machine with several GPUs, the quick calibration also measures peer copies and
// NCCL's all-reduce into the profile's multi-GPU fields.
TEST(CalibrationTest, RetiringABatchIsReadFromTheBackendsOwnTraces) {
  PIPESCOPE_LOAD_CUDA_MODULE(cuda);
  const CudaProbe probe = cuda.probe();
  if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
  std::string error;
  auto backend = cuda.makeBackend(0, error);
  ASSERT_TRUE(backend) << error;
  std::vector<std::string> lines;
  const HostOverheadResult r =
      fitHostOverhead(*backend, *builtinProfile("h200"), 1, [&](const std::string& l) { lines.push_back(l); });
  // The backend records every cudaEventSynchronize, so both runs give retire figures.
  ASSERT_EQ(r.retireGapsNs.size(), 2u);
  ASSERT_EQ(r.heldOps.size(), 2u);
  // H200 hosts: a sync that finds its batch done returned in 1.9-2.5 us (lower ends of
  // four sets' traces); a thread that slept to return is far below 50 us still.
  EXPECT_GT(r.syncReturnNs, 0.0);
  EXPECT_LT(r.syncReturnNs, 50e3);
  // 8 streams x 18 ops hold far more than one stream's 2 x 4. The backend finalises a
  // retired batch from each stream's own queue, so the gap hardly grows with what the
  // other streams hold: 0-2 ns per held op over 15 rounds on 1-GPU H200 hosts, where
  // scanning one queue of every stream's ops had cost 14-25 ns.
  EXPECT_GT(r.heldOps[1], 4 * r.heldOps[0]);
  EXPECT_GE(r.perHeldOpNs, 0.0);
  // Under compute-sanitizer every call is instrumented (114 ns per held op under memcheck):
  // the bound is a timing of the plain build.
  if (sanitizerTool().empty()) {
    EXPECT_LT(r.perHeldOpNs, 10.0);
  }
  EXPECT_GE(r.perBatchNs, 0.0);
  EXPECT_LT(r.perBatchNs, 100e3);
  // The recorder's first CUPTI flush, 100 ms into the longer run: it resolves every op
  // issued so far on the submit thread, 0.7-1.2 us an op in the traces of twelve
  // random sets (H200, median 0.9). The run passes it on any host.
  std::string flushLine;
  for (const std::string& l : lines)
    if (l.find("the recorder's CUPTI flush") == 0) flushLine = l;
  EXPECT_TRUE(r.flushOps > 0) << flushLine;
  EXPECT_GE(r.flushAtNs, 100e6);
  if (sanitizerTool().empty()) {
    EXPECT_GT(r.recorderFlushNsPerOp, 50.0);
    EXPECT_LT(r.recorderFlushNsPerOp, 10e3);
  }
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("retiring a batch (the traces):"), std::string::npos) << lines.back();
}

TEST(CalibrationTest, SeveralGpusGiveThePeerAndAllReduceFields) {
#if !PIPESCOPE_HAVE_NCCL
  GTEST_SKIP() << "this build has no NCCL: no multi-GPU probes";
#endif
  PIPESCOPE_LOAD_CUDA_MODULE(cuda);
  const CudaProbe probe = cuda.probe();
  if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
  if (probe.deviceCount < 2) GTEST_SKIP() << "needs 2 GPUs; this machine has " << probe.deviceCount;
  if (!sanitizerTool().empty())
    GTEST_SKIP() << "NCCL is not run under compute-sanitizer (" << sanitizerTool()
                 << "): MultiGpuTest covers the all-reduce path there";
  CalibrationOptions o;
  o.quick = true;
  o.gpus = 2;
  std::vector<std::string> lines;
  o.log = [&](const std::string& line) { lines.push_back(line); };
  const DeviceProfile p = cuda.calibrate(o);
  ASSERT_FALSE(p.peerCopyCurve.empty());
  expectPlausibleCurve(p.peerCopyCurve, 1, 5000, "peer copy");
  EXPECT_GT(p.peerGBps, 1);
  EXPECT_GT(p.peerBidirectionalGBps, 1);
  EXPECT_FALSE(p.peerLinkName.empty());
  EXPECT_EQ(p.allreduceCurveGpus, 2);
  ASSERT_FALSE(p.allreduceBusCurve.empty());
  expectPlausibleCurve(p.allreduceBusCurve, 0.1, 5000, "all-reduce bus bandwidth");
  EXPECT_GE(p.allreduceStepLatencyNs, 0);
  EXPECT_GE(p.collectiveSmShare, 0);
  EXPECT_LT(p.collectiveSmShare, 1);
  EXPECT_GE(p.collectiveYieldShare, 0);
  EXPECT_LE(p.collectiveYieldShare, 1);
  // A group call costs the host at least a kernel launch and less than a millisecond;
  // the host links move bytes each way, and both ways together about as much as either.
  EXPECT_GT(p.allreduceCallNs, 1000);
  EXPECT_LT(p.allreduceCallNs, 1e6);
  EXPECT_GT(p.hostLinksH2dGBps, 1);
  EXPECT_GT(p.hostLinksD2hGBps, 1);
  EXPECT_GE(p.hostLinksGBps, 0.9 * std::min(p.hostLinksH2dGBps, p.hostLinksD2hGBps));
  EXPECT_NE(p.multiGpuSource.find("calibrated on 2 x"), std::string::npos) << p.multiGpuSource;
  // Switching call kinds over two GPUs: measured (the probe's line) and a few
  // microseconds at most per call, not the cost of a whole call many times over.
  EXPECT_GE(p.multiGpuCopySwitchNs, 0);
  EXPECT_LT(p.multiGpuCopySwitchNs, 20000);
  bool switchLogged = false;
  for (const std::string& l : lines) switchLogged = switchLogged || l.find("call switch: ") != std::string::npos;
  EXPECT_TRUE(switchLogged);
  bool logged = false;
  for (const std::string& l : lines) logged = logged || l.find("all-reduce over 2 GPUs") != std::string::npos;
  EXPECT_TRUE(logged);
  bool yieldLogged = false;
  for (const std::string& l : lines) yieldLogged = yieldLogged || l.find("-> yield share") != std::string::npos;
  EXPECT_TRUE(yieldLogged);
  bool hostLinksLogged = false;
  for (const std::string& l : lines)
    hostLinksLogged = hostLinksLogged || l.find("host links, every GPU") != std::string::npos;
  EXPECT_TRUE(hostLinksLogged);
}

}  // namespace
}  // namespace pipescope
