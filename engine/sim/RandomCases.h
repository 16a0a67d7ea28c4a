#pragma once
// Random validation configurations: the simulator is judged on configurations it
// was never fitted to, drawn from the whole space the command line accepts (every
// memory kind, 1..16 streams, both orders, sync modes, batch sizes from 64 KiB to
// 256 MiB that are not powers of two, chunks, ROI, residency, output ratio, the
// custom and cuBLAS models, CPU workers). A seed makes a set reproducible; a set
// drawn with another seed is an independent judgement (docs/fidelity.md).
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

/// `count` configurations drawn with `seed`; the same seed gives the same set on any
/// machine. Names are "r<seed>-<index>". `sizing` is the profile whose prediction
/// sets each batch count.
std::vector<ValidationCase> drawRandomCases(int count, std::uint64_t seed, const DeviceProfile& sizing,
                                            const RandomCaseLimits& limits = {});

/// The knobs a validation report breaks its error down by, with the value label of
/// one configuration for each ("memory" -> "pinned", "streams" -> "4-7", ...).
struct KnobValue {
  std::string knob;
  std::string value;
};
std::vector<KnobValue> knobValues(const PipelineConfig& config);

}  // namespace pipescope
