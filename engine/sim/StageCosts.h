#pragma once
// How long each pipeline stage takes on a device profile, apart from contention.
// The simulator uses these costs; the CUDA backend's presets are sized with the
// same figures so the two backends run comparable work.
#include <cstdint>

#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

enum class CopyDirection : std::uint8_t { H2D, D2H };

/// A curve's rate for `bytes`: interpolated linearly in log(size), flat beyond its
/// ends; `fallback` when the curve is empty.
double curveGBps(const std::vector<BandwidthPoint>& curve, std::uint64_t bytes, double fallback);

/// Host cost of one cublasSgemm call of a preset.
double gemmCallNs(const DeviceProfile& p, ModelPreset preset);

/// How a copy meets host memory: what decides which of the profile's curves times it.
struct CopyPath {
  CopyDirection dir = CopyDirection::H2D;
  bool pageable = false;
  bool blocking = false;  ///< a blocking cudaMemcpy (its own pinned curve when the profile has one)
  /// Pageable: a host buffer other than the one copied last (the rotating pageable
  /// curve when the profile has one; see copiesRotateHostBuffers).
  bool rotating = false;
  /// Pinned H2D of bytes the CPU has just written (the profile's CPU-written curve
  /// caps the rate when it has one).
  bool cpuWritten = false;
  /// Pageable, same buffer: the host bytes this direction copies before it copies
  /// these bytes again (a batch copied in chunks from one host slot: the whole
  /// batch). The same-buffer curve at size b copies b bytes again and again, so its
  /// cache warmth is a b-byte working set's; a larger footprint is no warmer than the
  /// curve at its size. 0 = the copy's own bytes.
  std::uint64_t footprintBytes = 0;
};

/// Achieved bandwidth (GB/s = bytes per ns) of one copy of `bytes` along `path`: the
/// profile's curve for it, interpolated linearly in log(size) and held flat beyond
/// its ends; the flat figure when there is no curve.
double copyGBps(const DeviceProfile& p, const CopyPath& path, std::uint64_t bytes);

/// Engine time of a copy running alone: fixed DMA setup plus bytes / bandwidth.
double copySoloNs(const DeviceProfile& p, const CopyPath& path, std::uint64_t bytes);

/// cudaMemcpyAsync with pageable memory stages its bytes on the host inside the call
/// when the profile measured that (a staging curve for the direction); otherwise the
/// older model holds: the engine copies at the pageable curves' rate.
bool stagesPageableCopiesOnHost(const DeviceProfile& p, CopyDirection dir);

/// The host's staging memcpy inside such a call (ns): bytes / the staging curve's
/// rate at that size.
double pageableStagingNs(const DeviceProfile& p, CopyDirection dir, std::uint64_t bytes);

/// A kernel reading `bytes` of mapped host memory over PCIe, GB/s; `cpuWritten`:
/// bytes the CPU has just written (the CPU-written curve caps it when there is one).
double mappedReadGBps(const DeviceProfile& p, std::uint64_t bytes, bool cpuWritten);
/// A kernel that works `workNs` and writes its output to mapped host memory in
/// `writeNs`: the longer of the two plus the part of the shorter the kernel does not
/// overlap (mappedWriteOverlap: 1 = the longer alone, 0 = one after the other, as
/// the model kernel's threads compute, then write).
double mappedWriteKernelNs(const DeviceProfile& p, double workNs, double writeNs);

/// Whether a pipeline's copies rotate over several host buffers (more than one host
/// slot: every asynchronous pipeline), rather than copying one buffer again and again.
bool copiesRotateHostBuffers(const PipelineConfig& config);

/// Normalisation kernel: reads and writes the batch once from device memory.
double normalizeKernelNs(const DeviceProfile& p, std::uint64_t bytes);
/// The custom model kernel (config/ModelWork.h) on a configuration's batch: see
/// customModelKernelTime.
double modelKernelNs(const DeviceProfile& p, const PipelineConfig& config);

/// The custom model kernel's rate times on `in` input bytes writing `out` bytes at
/// `flopsPerByte`, before its fixed cost and its grid's blocks factor: its FMA rounds at
/// modelGflops, and its own bytes (read + written). With modelMemoryGBps the two add
/// up; without it (older profiles) the kernel takes the longer of the FLOP time and
/// the bytes at deviceMemoryGBps.
struct ModelKernelParts {
  double flopNs = 0;
  double memoryNs = 0;
  bool memoryAdds = false;  ///< the two-rate form (modelMemoryGBps > 0)
};
ModelKernelParts modelKernelParts(const DeviceProfile& p, std::uint64_t in, std::uint64_t out, double flopsPerByte);
/// The part of a kernel's time `ns` (beyond its fixed cost) that the form above gives
/// its FLOPs: what is left after its bytes in the two-rate form, all of it in the max
/// form (where the kernels this is used on are FLOP-bound). Inverts the form for
/// calibrate's blocks curve and for configurations derived from an import.
double modelKernelFlopShareNs(const ModelKernelParts& parts, double ns);

/// The custom model kernel's time on `in` input bytes writing `out` bytes at
/// `flopsPerByte` (the whole batch, one piece of a split model, or one pipeline
/// stage's share of a micro-batch): kernelFixedNs plus the parts above, the FLOP part
/// times the blocks factor of its grid; and `tailNs`, the part that factor adds (0
/// where it is 1 or less): what the grid's last wave costs when no other kernel fills
/// it (GpuCommand::tailNs).
struct ModelKernelTime {
  double ns = 0;
  double tailNs = 0;
};
ModelKernelTime customModelKernelTime(const DeviceProfile& p, std::uint64_t in, std::uint64_t out,
                                      double flopsPerByte);
double customModelKernelNs(const DeviceProfile& p, std::uint64_t in, std::uint64_t out, double flopsPerByte);
/// How much longer the model kernel's FLOP time is on `elements` input floats than the
/// rate says (DeviceProfile::modelKernelBlocksCurve at its block count; 1 on a full grid).
double modelKernelBlocksFactor(const DeviceProfile& p, std::uint64_t elements);
/// One GEMM layer of a cuBLAS preset with `rows` rows: the profile's curve for the
/// preset, else its flops at gemmTflops.
double gemmLayerNs(const DeviceProfile& p, ModelPreset preset, std::uint64_t rows);
/// The cuBLAS presets' head kernel: reads the last activations, writes the output.
double headKernelNs(const DeviceProfile& p, std::uint64_t activationBytes, std::uint64_t outputBytes);

/// Who touches managed pages that live elsewhere, and so faults them over.
enum class ManagedTouch {
  Kernel,    ///< a kernel, the pages live on the host
  CpuRead,   ///< a CPU stage reading pages on the device (postprocessing)
  CpuWrite,  ///< a CPU stage writing pages on the device (preprocessing)
};
/// Managed pages faulted over on first touch; 0 for 0 bytes.
double managedFaultNs(const DeviceProfile& p, std::uint64_t bytes, ManagedTouch touch);
/// How much faster `workers` CPU workers fault a buffer of `bytes` over together (each
/// its share) than one thread (CpuRead or CpuWrite; 1 for a kernel): the profile's
/// managedCpu*FaultWorkers curves at the sizes around `bytes`, linear in log(bytes)
/// between them and the nearest size's beyond; by workers linear from 1 at one worker,
/// the last point's value beyond it; within [0.05, workers]. 1 for one worker or no curve.
double managedCpuFaultWorkersSpeedup(const DeviceProfile& p, int workers, std::uint64_t bytes, ManagedTouch touch);
/// How much longer managed pages take to move when the pipeline rotates over `slots`
/// managed buffers: a managedSlotsSlowdown curve, linear between its points (and from 1
/// at one slot to the first point), its last value beyond it; 1 for one slot or an
/// empty curve.
double managedSlotsFactor(const std::vector<ManagedSlotsPoint>& curve, int slots);
/// A cudaMemPrefetchAsync that moves `bytes` to the device (`toDevice`) or the host.
double prefetchNs(const DeviceProfile& p, std::uint64_t bytes, bool toDevice);

/// From device completion to a blocking-sync host thread running again, after it
/// waited `waitedNs`: a thread that really went to sleep wakes more slowly. Inline:
/// the calibration (libpipescope_cuda, which the engine library links) uses it too.
inline double blockingSyncWakeNs(const DeviceProfile& p, double waitedNs) {
  if (p.syncSleepWakeNs > 0 && waitedNs > p.syncSleepAfterNs) return p.syncSleepWakeNs;
  return p.syncWakeNs;
}

/// Throughput of `streams` link-bound kernels running at once against one alone: the
/// curve, linear between its points, its last value beyond it, 1 for one stream or an
/// empty curve; never above `streams` (n kernels cannot beat n alone).
double streamsSpeedup(const std::vector<StreamSpeedup>& curve, int streams);

/// Whether kernels faulting managed pages in overlap across streams (the profile has a
/// managed overlap curve, by size or not).
bool hasManagedFaultOverlap(const DeviceProfile& p);
/// Throughput of `streams` kernels faulting managed pages in at once against one alone,
/// for faults of `bytes` each: managedFaultStreamsSpeedupBySize's curves at the sizes
/// around `bytes`, linear in log(bytes) between them and the nearest size's beyond;
/// without sizes, managedFaultStreamsSpeedup at every size.
double managedFaultStreamsSpeedup(const DeviceProfile& p, int streams, std::uint64_t bytes);

/// Speed-up of `workers` threads over one: the profile's measured curve, linear
/// between its points; `workers` itself when the profile has no curve.
double workerSpeedup(const DeviceProfile& p, int workers);

/// One CPU stage's cost per byte on one worker: the profile's rounds curve at the
/// stage's rounds (config/ModelWork.h), else the per-byte cost at zero rounds plus
/// the rounds at the per-round cost.
double oneWorkerCpuStageNsPerByte(const DeviceProfile& p, double opsPerByte, bool preprocess);

/// The submit thread's time around one CPU stage on `workers` threads (handing the
/// work over and being woken when it is done): the profile's curve, linear between
/// its points, the nearest point outside them; 0 without a curve.
double cpuStageHandoffNs(const DeviceProfile& p, int workers);

/// Extra host time of the submit thread's first CUDA call after a CPU stage that
/// touched `bytes` bytes: the profile's curve, linear in log(bytes) between its
/// points, flat beyond them; 0 without a curve or for 0 bytes.
double callAfterCpuStageNs(const DeviceProfile& p, std::uint64_t bytes);

/// A CPU stage's span over its workers' mean time on `workers` threads: the
/// profile's cpuStageLateWorker curve, linear between its points (and from 1 at one
/// worker up to its first point), its last value beyond it; 1 for one worker or an
/// empty curve; kept within [1, workers] (the last worker cannot end later than if it
/// had done all the work while the others did nothing).
double cpuStageLateWorkerFactor(const DeviceProfile& p, int workers);

/// The mean time of the `workers` threads of one CPU stage of a batch.
double cpuStageWorkerMeanNs(const DeviceProfile& p, std::uint64_t bytes, double opsPerByte, int workers,
                            bool preprocess);

/// One CPU stage of a batch on `workers` threads in parallel (fork-join): from the
/// first worker's start to the last one's end, the workers' mean time times the late
/// worker factor.
double cpuStageNs(const DeviceProfile& p, std::uint64_t bytes, double opsPerByte, int workers, bool preprocess);

}  // namespace pipescope
