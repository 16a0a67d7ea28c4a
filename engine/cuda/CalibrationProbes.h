#pragma once
// Calibration measurements of the work the CUDA backend does beyond copies and its
// own kernels: the cuBLAS presets' GEMMs in their own shapes, managed memory's page
// faults and prefetches, and kernels writing mapped memory. Each returns what the simulator's profile holds
// (docs/fidelity.md says how each figure is measured).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"

namespace pipescope::cuda {

class CuptiTracer;

using CalibrationLog = std::function<void(const std::string&)>;

/// GPU time per op of `n` back-to-back ops issued by `issue` on `stream`, from CUDA
/// events, after one discarded warm-up op.
double gpuPeriodNs(cudaStream_t stream, int n, const std::function<void()>& issue);

/// GPU time between two events around `issue` on `stream`, median of `reps`; each
/// repetition runs `before` (if any) and synchronizes the stream first.
double eventTimedNs(cudaStream_t stream, int reps, const std::function<void()>& before,
                    const std::function<void()>& issue);

struct GemmCalibration {
  std::vector<GemmPoint> curve;  ///< one layer's GPU time by rows (the kernel gap taken out)
  double callNs = 0;             ///< host time of one cublasSgemm call, CUPTI on, correlated
};

/// One layer of `preset` (config/ModelWork.h's shape, TF32 as the backend runs it) at
/// rows from a few to hundreds of MiB of activations; `kernelGapNs` is the spacing of
/// back-to-back kernels that the simulator adds itself.
GemmCalibration calibrateGemm(ModelPreset preset, cudaStream_t stream, CuptiTracer& tracer, double kernelGapNs,
                              bool quick, const CalibrationLog& log);

struct ManagedCalibration {
  std::vector<BandwidthPoint> gpuFault, cpuFault, cpuWriteFault, prefetchToDevice, prefetchToHost;
};

/// Effective rates by size: a kernel faulting in pages the host wrote (minus the
/// kernel's own time), the CPU reading pages a kernel wrote and writing pages the
/// device holds (postprocessing's read and preprocessing's write, each minus the same
/// on pinned host memory), and cudaMemPrefetchAsync each way.
ManagedCalibration calibrateManaged(cudaStream_t stream, double normalizeOwnNsPerByte, double normalizeFixedNs,
                                    int device, bool quick, const CalibrationLog& log);

struct CpuWrittenCalibration {
  std::vector<BandwidthPoint> h2dPinned;   ///< cudaMemcpyAsync H2D of pinned bytes the CPU just wrote
  std::vector<BandwidthPoint> mappedRead;  ///< a kernel reading mapped bytes the CPU just wrote
};

/// Host memory the CPU has just written is read by the GPU more slowly (the lines sit
/// dirty in the CPU's caches): by size, the CPU writes the bytes, then an H2D copy of
/// pinned memory, and a normalize kernel reading mapped memory, each timed with events.
/// The copy's `copyLatencyNs` comes off; the kernel's whole time counts (the
/// simulator gives a mapped kernel the longer of its own time and the read's).
CpuWrittenCalibration calibrateCpuWritten(cudaStream_t stream, double copyLatencyNs, bool quick,
                                          const CalibrationLog& log);

/// A kernel writing mapped host memory over PCIe, GB/s; `tinyPeriodNs` is the period
/// of back-to-back tiny kernels (taken out of the kernel's period).
double calibrateMappedWrite(cudaStream_t stream, double tinyPeriodNs, const CalibrationLog& log);

/// A kernel reading mapped host memory and writing other mapped host memory, both
/// directions at once: all bytes moved (read + written) per second, GB/s.
double calibrateMappedDuplex(cudaStream_t stream, double tinyPeriodNs, const CalibrationLog& log);

/// The submit thread's first CUDA calls after a CPU stage, against the same calls in a
/// steady stream of calls: the backend's WorkerPool runs preprocessing over a host
/// buffer of each size (the stage's bytes), then `calls` (the calls a pipeline makes
/// after its stage) are timed on the host; the same calls timed right after a first
/// round of them are the steady figure. Extra ns by stage bytes (median of the
/// repetitions, at least 1 ns): the profile's callAfterCpuStage.
std::vector<CallAfterStagePoint> calibrateCallAfterCpuStage(cudaStream_t stream, const std::function<void()>& calls,
                                                            bool quick, const CalibrationLog& log);

/// How much of its mapped write a model kernel hides behind its own work: the model
/// kernel over 4 MiB at about as much work as its write, writing device memory (W),
/// writing mapped memory with no work (X), then both (B): (W + X - B) / min(W, X),
/// clamped to 0..1 (DeviceProfile::mappedWriteOverlap).
double calibrateMappedWriteOverlap(cudaStream_t stream, double tinyPeriodNs, double modelGflops, double mappedWriteGBps,
                                   const CalibrationLog& log);

}  // namespace pipescope::cuda
