#pragma once
// Parameters of the simulator's device model. Built-in profiles live as JSON in
// resources/profiles/ (embedded at build time); `pipescope-cli calibrate` writes a
// profile measured on a real GPU in the same format.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/ProfileValidation.h"

namespace pipescope {

/// Achieved bandwidth for one transfer size; profiles hold a curve per direction
/// and memory kind, interpolated log-linearly in size.
struct BandwidthPoint {
  std::uint64_t bytes = 0;
  double gbps = 0;  ///< 1e9 bytes per second
  bool operator==(const BandwidthPoint&) const = default;
};

/// GPU time of one GEMM layer of a cuBLAS preset for a number of rows; profiles hold
/// a curve per preset, interpolated log-log in rows.
struct GemmPoint {
  std::uint64_t rows = 0;
  double ns = 0;
  bool operator==(const GemmPoint&) const = default;
};

/// One CPU stage's cost per byte on one worker at a number of rounds
/// (config/ModelWork.h: the stage's ops per byte, rounded).
struct CpuRoundsPoint {
  int rounds = 0;
  double nsPerByte = 0;
  bool operator==(const CpuRoundsPoint&) const = default;
};

/// Host time of handing one CPU stage to `workers` threads and getting the submit
/// thread back (two condition-variable wake-ups), outside the workers' own spans.
struct WorkerHandoff {
  int workers = 1;
  double ns = 0;
  bool operator==(const WorkerHandoff&) const = default;
};

/// Extra host time of the submit thread's first CUDA call after a CPU stage that
/// touched `bytes` bytes, beyond the call's own cost.
struct CallAfterStagePoint {
  std::uint64_t bytes = 0;
  double ns = 0;
  bool operator==(const CallAfterStagePoint&) const = default;
};

/// A CPU stage's fork-join span over its workers' mean time on `workers` threads:
/// how much later than the average worker the last one ends.
struct LateWorkerPoint {
  int workers = 1;
  double factor = 1;
  bool operator==(const LateWorkerPoint&) const = default;
};

/// Measured speed-up of the CPU stages on `workers` threads over one thread.
struct WorkerSpeedup {
  int workers = 1;
  double speedup = 1;
  bool operator==(const WorkerSpeedup&) const = default;
};

/// CPU workers faulting managed pages over together, each its share of one buffer of
/// `bytes`, against one thread faulting all of it: the curve by workers.
struct SizedWorkerSpeedup {
  std::uint64_t bytes = 0;
  std::vector<WorkerSpeedup> curve;
  bool operator==(const SizedWorkerSpeedup&) const = default;
};

/// Throughput of kernels bound by the host link (faulting managed pages over, or
/// reading / writing mapped memory) running on `streams` streams at once, against one
/// such kernel alone.
struct StreamSpeedup {
  int streams = 1;
  double speedup = 1;
  bool operator==(const StreamSpeedup&) const = default;
};

/// The overlap curve by streams of kernels that each fault `bytes` of managed pages in.
struct SizedStreamSpeedup {
  std::uint64_t bytes = 0;
  std::vector<StreamSpeedup> curve;
  bool operator==(const SizedStreamSpeedup&) const = default;
};

/// How much longer managed pages take to move (faults on either side, prefetches that
/// move pages) when a pipeline rotates over `hostSlots` managed buffers, against the one
/// buffer the fault and prefetch curves were measured on.
struct ManagedSlotsPoint {
  int hostSlots = 1;  // not "slots": Qt defines that word as a macro
  double factor = 1;
  bool operator==(const ManagedSlotsPoint&) const = default;
};

/// The custom model kernel's FLOP time on a grid of `blocks` blocks (one element per
/// thread, fewer than the full grid) over what modelGflops gives: a grid just past a
/// whole number of the GPU's resident waves runs its last wave nearly as long as a full
/// one (an H200: 1 174 blocks 1.42x, 2 112 blocks 1.03x).
struct KernelBlocksPoint {
  int blocks = 1;
  double factor = 1;
  bool operator==(const KernelBlocksPoint&) const = default;
};

struct DeviceProfile {
  std::string name;         ///< "h200", "pcie4-desktop", "c1060-like", ...
  std::string description;  ///< one line for lists
  std::string deviceName;   ///< GPU it describes ("NVIDIA H200")
  std::string source;       ///< "built-in from the reference figures" or "calibrated on <device>, driver <v>, <date>"
  /// What the fitted terms were fitted on ("calibration micro-benchmarks and fitting
  /// runs, fit seed 7"): a validation must judge the profile on other configurations.
  std::string fitConfigurations;

  // Engines and queues.
  int copyEngines = 2;               ///< 1 = one engine shared by both directions
  int hardwareQueues = 32;           ///< 1 = single queue (pre-Hyper-Q): engines run work in issue order
  bool delayedKernelSignal = false;  ///< Fermi: back-to-back kernels signal completion together

  // Copies (GB/s = 1e9 B/s). The curves win over the flat figures when present.
  double h2dPinnedGBps = 55.2;
  double d2hPinnedGBps = 55.2;
  double h2dPageableGBps = 8.0;
  double d2hPageableGBps = 15.2;
  double bidirectionalGBps = 96.0;  ///< both directions at once, together
  std::vector<BandwidthPoint> h2dPinnedCurve, d2hPinnedCurve, h2dPageableCurve, d2hPageableCurve;
  /// Pageable copies go through the CPU (a memcpy to or from the driver's pinned
  /// staging buffer). The curves above copy the same host buffer again and again, as
  /// a blocking pipeline (one host slot) does; these copy a buffer not copied for a
  /// long time, as a pipeline rotating over several host slots does: 7-9 vs 13-15 GB/s
  /// at 1-4 MiB on an H200 host (docs/fidelity.md). Empty = the curves above for
  /// every pipeline.
  std::vector<BandwidthPoint> h2dPageableRotatingCurve, d2hPageableRotatingCurve;
  /// cudaMemcpyAsync with pageable memory: the call itself copies the bytes through
  /// the driver's pinned staging buffer on the CPU (H2D: before the DMA, returning
  /// once staged; D2H: after the DMA, returning once copied out), and the DMA runs
  /// at the pinned rate. The host's staging rate (GB/s) by copy size, rotating over
  /// a buffer as an async pipeline's host slots do: 250-290 KiB copies held the
  /// call 26-45 us with a 7-8 us DMA behind it on an H200 host (docs/fidelity.md).
  /// Empty = the older model (engine copies at the pageable curves' rate, the host
  /// waiting for them).
  std::vector<BandwidthPoint> h2dPageableStagingCurve, d2hPageableStagingCurve;
  /// Blocking cudaMemcpy from pinned memory (slower than cudaMemcpyAsync on an H200);
  /// empty = the pinned curves above.
  std::vector<BandwidthPoint> h2dPinnedBlockingCurve, d2hPinnedBlockingCurve;
  /// The GPU reading host memory the CPU has just written (a preprocessing stage
  /// writes the input in place) is slower while the written lines sit in the CPU's
  /// caches: 2.7x for a 693 KiB pinned H2D copy on an H100 and an H200, about 1x
  /// beyond 40 MiB (docs/fidelity.md). By size; empty = the plain curves.
  std::vector<BandwidthPoint> h2dPinnedCpuWrittenCurve, mappedReadCpuWrittenCurve;
  double copyLatencyNs = 2000;   ///< fixed engine cost per copy (DMA setup)
  double mappedReadGBps = 50.0;  ///< kernel reading host memory over PCIe (zero-copy)
  double mappedWriteGBps = 0;    ///< kernel writing host memory over PCIe; 0 = mappedReadGBps
  /// One kernel reading and writing host memory over PCIe at once, both directions
  /// together (GB/s): the link's two directions do not both reach their own rate
  /// then (H100: ~84 GB/s together against ~51 + 52 alone). 0 = unknown: no cap.
  double mappedDuplexGBps = 0;
  /// How much of a mapped write a kernel hides behind its own work: a model kernel
  /// doing work W and writing its output in time X takes max(W, X) + (1 - this) x
  /// min(W, X). 1 (the default, and profiles without the field): the longer alone.
  double mappedWriteOverlap = 1.0;
  /// Managed memory. A kernel touching pages that live on the host faults them over
  /// (GPU side), and a CPU stage touching pages that live on the device faults them
  /// back (CPU side). Effective rates by size (fault handling included), like the
  /// copy curves; empty = managedMigrationGBps flat.
  double managedMigrationGBps = 20.0;
  std::vector<BandwidthPoint> managedGpuFaultCurve, managedCpuFaultCurve;
  /// A CPU stage *writing* pages that live on the device (preprocessing the input a
  /// kernel or a prefetch took over); empty = managedCpuFaultCurve. Its own curve:
  /// in the pipeline traces of both GPUs the preprocessing of such pages ran 2-3x
  /// slower than the read curve (postprocessing's) says.
  std::vector<BandwidthPoint> managedCpuWriteFaultCurve;
  /// How much faster the CPU stage's workers fault a buffer's pages over together than
  /// one thread does (the curves above are one thread's), for preprocessing's writes and
  /// postprocessing's reads: a curve by workers at each measured size, sorted by
  /// strictly increasing bytes; between sizes linear in log(bytes), beyond them the
  /// nearest size's; by workers linear from 1 at one worker, the last point's value
  /// beyond it. Below 1 where the workers get in each other's way. In an H200 set a
  /// 15.6 MiB input written by 7 workers spent 0.8 ms faulting where one thread's curve
  /// says 4.5 ms (docs/fidelity.md). Empty (the default, and profiles without the
  /// field) = each worker waits the whole buffer's one-thread fault time.
  std::vector<SizedWorkerSpeedup> managedCpuWriteFaultWorkers, managedCpuReadFaultWorkers;
  /// cudaMemPrefetchAsync that moves pages, effective rate by size; empty = the
  /// pageable copy curves. A prefetch of pages already there costs nothing.
  std::vector<BandwidthPoint> prefetchToDeviceCurve, prefetchToHostCurve;
  /// A prefetch to the host queued behind a kernel on its stream starts this long
  /// after the kernel ends (ns), where one issued on an idle stream starts at once:
  /// the driver moves the pages only once it sees the kernel done. 85-185 us in every
  /// managed-prefetch row of four H200 sets (docs/fidelity.md). While it waits, its
  /// copy engine counts as busy, as for any copy whose dependency is resolving.
  /// 0 (the default, and profiles without the field) = the stream dependency alone.
  double prefetchAfterKernelNs = 0;
  /// Kernels waiting on the host link overlap on the GPU when several streams run
  /// them: managed rows on 6-13 streams without CPU stages ran up to 3.3x faster than
  /// one-kernel-at-a-time faulting predicts, mapped rows on 11-15 streams 6-25 %
  /// (docs/fidelity.md). By streams (sorted; linear between points, the last point's
  /// value beyond it); empty = such kernels run one at a time like any other.
  std::vector<StreamSpeedup> managedFaultStreamsSpeedup, mappedStreamsSpeedup;
  /// The managed curve at several fault sizes: large faults overlap less (a random
  /// row faulting 48 MiB a batch on several streams ran its faults about 1.4 at a
  /// time, where 1 MiB kernels reached 2.1x on 8 streams; docs/fidelity.md). Sorted by
  /// strictly increasing bytes; between sizes linear in log(bytes), beyond them the
  /// nearest size's curve. Kernels running together follow the curve at the largest
  /// fault among them. Empty = managedFaultStreamsSpeedup at every size (which then
  /// holds the smallest size's curve: the field keeps its meaning).
  std::vector<SizedStreamSpeedup> managedFaultStreamsSpeedupBySize;
  /// The SMs a kernel bound by the host link keeps while it waits on the link: beside
  /// a compute kernel on the same GPU, each running link kernel counts as this many
  /// compute kernels for the SMs, so with n of them the compute kernel runs at
  /// 1 / (1 + w n) of its rate and the link kernels at w n / (1 + w n) of theirs. On an
  /// H200 host a mapped read beside the model kernel took about half the SMs (both ran
  /// near half speed), and a GEMM beside 7 mapped GEMMs ran 7.6x slower than alone
  /// (docs/fidelity.md). 0 (the default, and profiles without the field): link
  /// kernels run beside compute kernels without slowing them.
  double linkKernelSmWeight = 0;
  /// Managed page moves grow with the buffers the pipeline rotates over (its host
  /// slots): on 30 slots an H200 host spent 4.8x the one-buffer curve's time on a CPU
  /// stage's write fault and 1.8x prefetching the output (docs/fidelity.md). By slots
  /// (sorted; linear between points, from 1 at one slot, the last point's value beyond
  /// it): the GPU side (kernels faulting pages in, prefetches that move pages) and the
  /// CPU stages' faults; empty = every slot count moves pages as one buffer does.
  std::vector<ManagedSlotsPoint> managedSlotsSlowdown, managedSlotsCpuSlowdown;

  // Compute.
  double modelGflops = 45000;      ///< custom model kernel rate, GFLOP/s
  double deviceMemoryGBps = 4000;  ///< normalize kernel (bytes read + written)
  /// The custom model kernel's own bytes (read + written) move at this rate *on top
  /// of* its FLOP time: each thread loads an element, runs its FMA chains, stores,
  /// and at a few hundred flop/B the other warps do not hide the loads (H200: 100
  /// flop/B on 32 MiB ran 81 us where the larger of FLOP and bandwidth time gives
  /// 57). 0 = the larger of FLOP time and bytes / deviceMemoryGBps (older profiles).
  double modelMemoryGBps = 0;
  /// KernelBlocksPoint by increasing blocks, up to the full grid (config/ModelWork.h:
  /// modelKernelBlocks); linear between points, flat before the first; 1 for a batch
  /// that fills the full grid (its threads loop, as in the 32 MiB runs the rates come
  /// from). Empty = 1 everywhere.
  std::vector<KernelBlocksPoint> modelKernelBlocksCurve;
  double gemmTflops = 400;         ///< light/heavy presets' GEMMs when there is no curve
  /// One GEMM layer's GPU time by rows, for the light (128 wide) and heavy (1024 wide)
  /// presets (config/ModelWork.h); empty = kernelFixedNs + flops / gemmTflops.
  std::vector<GemmPoint> lightGemmCurve, heavyGemmCurve;
  double kernelGapNs = 1550;  ///< minimum spacing of back-to-back kernels on the GPU
  /// Fixed duration of every pipeline kernel beyond its bandwidth or FLOP-rate time
  /// (block scheduling, ramp-up and tail): what makes a 1 MiB kernel slower than
  /// its rate says. 0 = none.
  double kernelFixedNs = 0;
  /// From an op finishing to the next op of its stream starting on another engine
  /// (copy -> kernel -> copy): the GPU front end resolving the stream dependency.
  /// 0 = immediate.
  double streamDependencyNs = 0;

  // Host-side API costs (ns).
  double kernelLaunchNs = 3700;
  /// Host time of one cublasSgemm call of the light / heavy preset; 0 = kernelLaunchNs.
  double lightGemmCallNs = 0;
  double heavyGemmCallNs = 0;
  double memcpyAsyncCallNs = 2500;
  double memcpySyncCallNs = 5000;  ///< fixed cost of a blocking cudaMemcpy beyond the copy
  double eventRecordNs = 1300;
  double syncWakeNs = 5000;  ///< from device completion to the host returning from a sync
  /// Blocking sync after the host thread has really slept (it waited longer than
  /// syncSleepAfterNs): the interrupt and scheduler wake-up, slower than syncWakeNs
  /// measured on a short wait. 0 = always syncWakeNs.
  double syncSleepWakeNs = 0;
  double syncSleepAfterNs = 0;  ///< waits longer than this wake up in syncSleepWakeNs
  /// A blocking cudaMemcpy under blocking sync puts the thread to sleep however short
  /// the copy, so it always wakes up in syncSleepWakeNs (on an H100 host a 4 KiB one
  /// took 63 us where a tiny kernel's sync took 29: the driver sleeps in the copy call
  /// at once). calibrate sets it when the 4 KiB copy took longer than the slow wake-up.
  bool memcpySyncSleeps = false;
  /// The same for a blocking cudaMemcpy from pageable memory only (the driver's staging
  /// path waits for its DMA by sleeping where the pinned path does not): on a 2 x H200
  /// host a 4.8 KiB pageable one took 54 us where the pinned 4 KiB one took 28.
  /// calibrate sets it when a 4 KiB pageable copy took longer than its call, the copy
  /// and the slow wake-up. memcpySyncSleeps implies it.
  bool pageableMemcpySyncSleeps = false;
  double spinSyncWakeNs = 1000;
  double yieldSyncWakeNs = 2500;
  /// Host time the measuring tool itself spends per GPU op and per retired batch
  /// beyond the bare CUDA calls (pipescope's CUDA backend: CUPTI correlation ids, op
  /// records, publishing). Calibrated by running the backend on tiny batches; 0 for
  /// an uninstrumented program.
  double hostOpOverheadNs = 0;
  double hostBatchOverheadNs = 0;
  /// Per GPU op the backend still holds (issued, its batch not yet retired) each time
  /// a batch retires: its finalising scans them all (16 streams x 4 ops cost an H200
  /// host about 4 us a batch, one stream under 2). 0 for an uninstrumented program.
  double hostPendingOpNs = 0;
  /// The backend's periodic CUPTI flush (every kRecorderFlushIntervalNs from the run's
  /// first GPU op, at the next retired batch): it delivers and resolves the records of
  /// every GPU op issued since the last one on the submit thread, this much per op
  /// (10-14 ms at 100 ms into H200 runs of 12 000-20 000 ops: ~0.8 us an op). Runs
  /// shorter than the interval never pay it. 0 for an uninstrumented program.
  double recorderFlushNsPerOp = 0;
  /// What a cudaEventSynchronize / cudaDeviceSynchronize costs when the work it waits
  /// for is already done (about 2 us on the GPU hosts); a wait that does wait costs
  /// its wake-up instead when that is longer.
  double syncReturnNs = 0;

  // Host CPU (pre/postprocessing), for this host.
  /// One round of preprocess/postprocess work (config/ModelWork.h: rounds =
  /// opsPerByte rounded) on one byte, on one worker.
  double cpuNsPerOp = 0.25;
  /// What a stage costs per byte at zero rounds: generating the samples
  /// (preprocessing), reading the output (postprocessing). 0 = nothing.
  double cpuPreprocessNsPerByte = 0;
  double cpuPostprocessNsPerByte = 0;
  /// One round on one byte for each stage, when calibrated apart (0 = cpuNsPerOp):
  /// preprocessing writes the samples it computes, postprocessing only reads, and an
  /// H100 host measured 0.32 vs 0.17 ns per round-byte.
  double cpuPreprocessNsPerOp = 0;
  double cpuPostprocessNsPerOp = 0;
  /// Each stage's cost per byte on one worker by rounds (calibrated at 0, 4 and 8),
  /// linear between points and along the last segment beyond them; wins over the two
  /// fields above when present. A round costs more above 4 rounds than below on the
  /// GPU hosts, so a line through 0 and 4 made 5-8-round stages 1.1-1.5x too fast.
  std::vector<CpuRoundsPoint> cpuPreprocessRoundsCurve, cpuPostprocessRoundsCurve;
  /// Sorted by workers; empty = perfect scaling. Beyond the last point the last
  /// point's efficiency (speedup / workers) holds.
  std::vector<WorkerSpeedup> cpuWorkerSpeedup;
  /// A CPU stage ends when its last worker does: over its workers' mean time, by
  /// workers (sorted; linear between points, 1 at one worker, the last point's value
  /// beyond it; empty = 1). A few workers of a run stay slower than the rest for the
  /// whole run and which ones changes from run to run; in the traces of random sets on
  /// two H200 hosts the span was 1.1x the mean on 2 workers, 1.2x on 3-4, 1.3x on
  /// 5-8. With this curve present, cpuWorkerSpeedup is the speed-up of the workers'
  /// mean time (calibrate fits both from the same runs); without it, of the span.
  std::vector<LateWorkerPoint> cpuStageLateWorker;
  /// The submit thread's time around each CPU stage, by workers (sorted; linear
  /// between points, the nearest point outside them; empty = none): half before the
  /// workers start (waking them), half after the last one ends (waking the submit
  /// thread). 15-35 us each way on the GPU hosts, so a pipeline with pre- and
  /// postprocessing on small batches spent 50-100 us per batch the model left out.
  std::vector<WorkerHandoff> cpuStageHandoff;
  /// The submit thread's first CUDA call after a CPU stage runs slower than the same
  /// call in a steady stream of calls, by more the more memory the stage touched (the
  /// stage's traffic leaves the driver's state cold in the caches): in the traces of
  /// a random set on an H200 host, 12-100 us where the steady call took 4-12 us. By the
  /// stage's bytes (sorted; linear in log(bytes) between points, flat beyond them);
  /// the simulator adds it to the first call after each stage. Empty = none.
  std::vector<CallAfterStagePoint> callAfterCpuStage;

  std::uint64_t deviceMemoryBytes = 141ull << 30;

  // Several GPUs (docs/simulator.md, "Several GPUs"). The defaults are an H200 host's
  // NVLink (NV18) figures; see multiGpuSource for where a profile's came from.
  std::string multiGpuSource;
  /// GPUs reach each other directly (NVLink, or PCIe peer-to-peer); false: a peer copy
  /// is staged through pinned host memory (the link lanes say "via host").
  bool peerAccess = true;
  std::string peerLinkName = "NVLink";  ///< how the link lanes name the link
  /// One peer copy (cudaMemcpyPeerAsync) in one direction, by size; each direction of
  /// each pair of GPUs is a link of its own, and peer copies do not share the host
  /// link (a 256 MiB H2D ran at 55.3 GB/s beside a peer copy, 55.2 alone).
  double peerGBps = 395.8;
  std::vector<BandwidthPoint> peerCopyCurve;
  /// Each direction's rate while both directions of a pair copy at once (390.7 GB/s
  /// on NV18): recorded for calibration; the simulated pipelines send one way only.
  double peerBidirectionalGBps = 390.7;
  double peerLatencyNs = 4128;  ///< fixed cost of one peer copy
  /// NCCL all-reduce bus bandwidth (nccl-tests' busbw = algbw x 2(n-1)/n) by buffer
  /// size, measured on allreduceCurveGpus GPUs; empty = allreduceBusGBps flat.
  double allreduceBusGBps = 338.4;
  std::vector<BandwidthPoint> allreduceBusCurve;
  int allreduceCurveGpus = 4;
  /// Per ring step (2(n-1) steps per all-reduce): NCCL's launch and handshake.
  double allreduceStepLatencyNs = 2594;
  /// The host's time for one NCCL group all-reduce call (ncclGroupStart, one
  /// ncclAllReduce per GPU, ncclGroupEnd) over allreduceCurveGpus GPUs, issued from one
  /// thread: 30-60 us on the 2 x H200 host, 5-6 kernel launches, so a run with many
  /// buckets is bound by the host issuing them. The simulator charges each GPU's share
  /// (this / allreduceCurveGpus) per GPU in the call. 0 = not measured: each GPU's
  /// ncclAllReduce costs one kernel launch (kernelLaunchNs).
  double allreduceCallNs = 0;
  /// All GPUs' host-link copies together, both directions, every GPU copying at once:
  /// the host's memory and root complex share them. On the 2 x H200 host two H2D and
  /// two D2H at once moved about 160 GB/s together, where each GPU alone moves 100
  /// both ways. The simulator scales every GPU's copies down together while more than
  /// one GPU's copies move and their rates add up to more. 0 = not measured: each
  /// GPU's link on its own.
  double hostLinksGBps = 0;
  /// The same for one direction alone: every GPU's H2D at once, every GPU's D2H at
  /// once (on the 2 x H200 host two D2H together ran at 50 GB/s each, 55 alone). 0 =
  /// not measured: only hostLinksGBps.
  double hostLinksH2dGBps = 0;
  double hostLinksD2hGBps = 0;
  /// Share of a GPU's compute the NCCL kernels take while a collective runs on it
  /// (they occupy SMs): kernels beside it run at (1 - share) of their speed. On the
  /// H200s, model kernels that fill every SM and NCCL's barely ran side by side (0.9).
  double collectiveSmShare = 0.9;
  /// Which side gives way when they meet: 0, the kernels run at (1 - share) of their
  /// speed beside a collective and the collective at full speed; 1, the kernels keep
  /// their SMs and the collective moves at (1 - share) while any of its GPUs runs a
  /// kernel (an NCCL call issued beside a kernel that fills the GPU). Measured by
  /// launching a kernel first, then the all-reduces (0 when not measured).
  double collectiveYieldShare = 0;
  /// Extra host time of a copy call (cudaMemcpyAsync, cudaMemcpy, a prefetch, a peer
  /// copy) issued right after a call of another kind (an H2D after an event record, a
  /// D2H after a launch), over several GPUs beyond what the same switch costs on one.
  /// Over 4 H200s the pipelines' copies after another kind took 7.3 us where copies in
  /// a run of copies took 3.5 (launches 8.5 either way); over 2, 0-1 us more. Measured
  /// by calibrate over its GPUs (0 when not measured, and on one GPU).
  double multiGpuCopySwitchNs = 0;
  /// The submit thread's time per GPU op beyond hostOpOverheadNs while a run spans
  /// several GPUs: the driver and the backend switching devices and streams between
  /// calls, cross-device event waits, NCCL's group calls. Over 4 H200s the pipelines'
  /// calls and the gaps between them added up to 20-30 % more host time per op than
  /// the one-GPU figures. Fitted by calibrate over its GPUs from the backend's own
  /// runs (host-bound data- and pipeline-parallel runs), as hostOpOverheadNs is on one
  /// GPU; 0 when not measured, and on one GPU.
  double multiGpuHostOpOverheadNs = 0;

  /// How this profile did against the GPU it describes on a random set it was not
  /// fitted to (`pipescope-cli validate --random N --seed S --attach-to-profile`).
  std::optional<ProfileValidation> validation;

  bool operator==(const DeviceProfile&) const = default;
};

nlohmann::json profileToJson(const DeviceProfile& profile);
/// Throws std::invalid_argument naming the field on a missing/wrong value.
DeviceProfile profileFromJson(const nlohmann::json& j);

std::vector<std::string> builtinProfileNames();
std::optional<DeviceProfile> builtinProfile(const std::string& name);
/// A built-in profile name or a path to a profile JSON file. On failure returns
/// nullopt and sets `error` to a message naming the file or listing known names.
std::optional<DeviceProfile> loadDeviceProfile(const std::string& nameOrPath, std::string& error);

}  // namespace pipescope
