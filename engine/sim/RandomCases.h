#pragma once
// Random validation configurations: the simulator is judged on configurations it
// was never fitted to, drawn from the whole space the command line accepts (every
// memory kind, 1..16 streams, both orders, sync modes, batch sizes from 64 KiB to
// 256 MiB that are not powers of two, chunks, ROI, residency, output ratio, the
// custom and cuBLAS models, CPU workers). A seed makes a set reproducible; a set
// drawn with another seed is an independent judgement (docs/fidelity.md). A set
// over several GPUs adds the several-GPU knobs (data or pipeline parallelism,
// all-reduce size and buckets, activation size and micro-batches).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/DeviceProfile.h"
#include "sim/Validation.h"

namespace pipescope {

struct RandomCaseLimits {
  /// Each run is sized (batch count) so the sizing profile predicts a makespan in
  /// this range; the GPU's own time lies near it when the profile is calibrated.
  double minMakespanNs = 5e6;
  double maxMakespanNs = 300e6;
  std::uint64_t minBatchBytes = 64ull << 10;
  std::uint64_t maxBatchBytes = 256ull << 20;
  int maxStreams = 16;
  /// Host and device buffers of one run stay below these (pinning gigabytes takes
  /// seconds, and managed memory beyond free device memory can hang a GPU).
  std::uint64_t maxHostBufferBytes = 2ull << 30;
  std::uint64_t maxDeviceBufferBytes = 8ull << 30;
};

/// The limits of a set over several GPUs: shorter runs (each CUDA run sets up its
/// GPUs and NCCL communicators anew, seconds that no makespan shows, so a set of a
/// dozen measured twice stays within a few minutes) and the host buffers of all
/// GPUs together below 1 GiB; the device limit holds per GPU.
RandomCaseLimits multiGpuCaseLimits();

/// `count` configurations drawn with `seed`; the same seed gives the same set on any
/// machine. Names are "r<seed>-<index>". `sizing` is the profile whose prediction
/// sets each batch count.
std::vector<ValidationCase> drawRandomCases(int count, std::uint64_t seed, const DeviceProfile& sizing,
                                            const RandomCaseLimits& limits = {});

/// `count` configurations over GPUs 0..gpus-1 (2..8) drawn with `seed`: data
/// parallel (all-reduce none or 1..256 MiB, buckets 0..8) or pipeline parallel
/// (activations 64 KiB..64 MiB, 1..8 micro-batches), with the one-GPU knobs each GPU
/// runs. The same seed and GPU count give the same set on any machine; a one-GPU
/// set of the same seed is not affected. Names are "r<seed>-<gpus>g-<index>".
std::vector<ValidationCase> drawRandomMultiGpuCases(int count, std::uint64_t seed, int gpus,
                                                    const DeviceProfile& sizing,
                                                    const RandomCaseLimits& limits = multiGpuCaseLimits());

/// The knobs a validation report breaks its error down by, with the value label of
/// one configuration for each ("memory" -> "pinned", "streams" -> "4-7", ...).
struct KnobValue {
  std::string knob;
  std::string value;
};
/// Several-GPU configurations add "gpus", "parallel", and for data parallelism
/// "all-reduce" (its size class) and, with one, "buckets", for pipeline "micro-batches".
std::vector<KnobValue> knobValues(const PipelineConfig& config);

/// Every knob knobValues() can name, in its order (for reports that list knobs a
/// first row may lack in their place).
std::vector<std::string> knobNames();

}  // namespace pipescope
