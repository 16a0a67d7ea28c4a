#pragma once
// What the calibration's in-pipeline fits share: measuring the backend's own runs
// (interleaved, so a slow spell of a shared host hits every configuration alike),
// and solving one profile field until the simulator reproduces a measured run.
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"
#include "sim/DeviceProfile.h"
#include "sim/PipelineCallTimes.h"

namespace pipescope {

/// The fitting runs' base: async pinned, 1 stream, 64 KiB batches (16 x 4 KiB),
/// `batches` of them, the custom model at 100 flop/B: host costs dominate.
PipelineConfig tinyBatchFitConfig(int batches);

/// `ns` in microseconds with one decimal, for the fits' log lines.
std::string fitMicros(double ns);

/// One log line per fitting run: "<what> run i (<configuration>): measured X us,
/// simulated with the fit Y us". Nothing without a `log`.
void logFitRuns(const std::function<void(const std::string&)>& log, const std::string& what,
                const std::vector<PipelineConfig>& configs, const std::vector<double>& measuredNs,
                const std::vector<double>& predictedNs);

/// Makespan of each of `configs` on `measured`, median of `reps` runs taken one of
/// each in turn, after one warm-up run of the first. `what` names the fit in the
/// message of the std::runtime_error thrown when a run fails.
std::vector<double> measureInterleavedNs(Backend& measured, const std::vector<PipelineConfig>& configs, int reps,
                                         const std::string& what);

/// One run of `c` on `measured`: the host's calls as its trace shows them
/// (readPipelineCallTimes), and its makespan in `makespanNs` when given. Throws
/// std::runtime_error naming `what` when the run fails.
PipelineCallTimes tracedCallTimes(Backend& measured, const PipelineConfig& c, const std::string& what,
                                  double* makespanNs = nullptr);

/// The simulator's makespan of `c` on `profile`; throws std::runtime_error naming `what`.
double simulatedMakespanNs(const DeviceProfile& profile, const PipelineConfig& c, const std::string& what);

/// The smallest value of `field` in [minValue, maxValue] at which the simulated
/// makespan of `c` reaches `targetNs` (the makespan must grow with the field):
/// minValue when the simulator is already that slow with it, maxValue when it never
/// gets there.
double solveProfileField(DeviceProfile p, double DeviceProfile::*field, const PipelineConfig& c, double targetNs,
                         double minValue, double maxValue, const std::string& what);
/// The same for a value `set` writes into the profile (a curve's point, say).
double solveProfileValue(const DeviceProfile& p, const std::function<void(DeviceProfile&, double)>& set,
                         const PipelineConfig& c, double targetNs, double minValue, double maxValue,
                         const std::string& what);

}  // namespace pipescope
