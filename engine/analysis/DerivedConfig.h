#pragma once
// The pipescope configuration equivalent to an imported trace's iteration, so the
// user's own workload can be swept and what-if'd on the simulator
// (docs/analysis.md, "Imported traces: from a PyTorch trace to a what-if").
//
// From the trace's iterations: bytes copied each way per iteration, the memory kind
// (pageable when a copy was staged), blocking or async copies, the streams that ran
// GPU work, the batch size when known. The GPU work becomes the custom model kernel
// at the FLOP/byte that takes the trace's kernel time per iteration at the profile's
// measured rate; the host's time per iteration (CPU ops and API calls, waits left
// out) becomes CPU stage work. Both are then refined on the simulator until the
// simulated makespan per iteration is within 2% of the trace's (at most 8 runs), and
// the remaining difference is reported: the derivation never claims a match it has
// not simulated.
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "config/PipelineConfig.h"
#include "metrics/Metrics.h"
#include "sim/DeviceProfile.h"
#include "sim/MachineProfiles.h"
#include "trace/Trace.h"

namespace pipescope {

struct DerivedConfig {
  PipelineConfig config;
  std::string profileName;
  double traceNsPerIteration = 0;      ///< the trace's makespan / iterations
  double simulatedNsPerIteration = 0;  ///< the derived configuration's, on the profile
  double error = 0;                    ///< simulated / trace - 1
  int simulations = 0;                 ///< runs the refinement took
  double hostNsPerIteration = 0;       ///< what the CPU stages stand for
  double kernelNsPerIteration = 0;     ///< what the model kernel stands for
  std::vector<std::string> notes;      ///< assumptions the user should know
  std::string failure;                 ///< non-empty: nothing could be derived, and why
  bool ok() const { return failure.empty(); }
  double errorPercent() const { return error * 100.0; }
};

/// The device profile for a trace: `requested` (a built-in name or a file) when given;
/// else this machine's calibration of the trace's GPU (MachineProfiles.h), else the
/// calibrated built-in profile whose device name matches the trace's, else any
/// built-in profile for that device, else "h200". `why` says which and why.
std::optional<DeviceProfile> profileForTrace(const DeviceInfo& device, const std::string& requested, std::string& why,
                                             const MachineContext& machine = MachineContext::current());

/// Derives the configuration of `trace` (with its metrics) on `profile`.
DerivedConfig deriveConfig(const Trace& trace, const Metrics& metrics, const DeviceProfile& profile,
                           std::stop_token stop = {});

/// Lines for people: the configuration and how well it reproduces the trace.
std::vector<std::string> describeDerivedConfig(const DerivedConfig& derived);

}  // namespace pipescope
