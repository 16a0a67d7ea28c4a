#pragma once
// The calibration steps that run the backend itself, in order: the CPU stages' cost
// and speed-up, the backend's host overhead (and API call scale), the cuBLAS call
// costs, the CPU stage hand-off. Each reads the host's state of the moment, and a
// shared GPU machine's host is not steady: the same H100 type gave a kernel launch of
// 5.1 us in one calibration and 9.5 us in another, an hour apart, and profiles from
// such a moment judged other runs 15-18 % off where the steadier ones judged 10-12 %.
// So the sequence runs several times and the profile takes each fitted value's
// median (docs/fidelity.md).
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "sim/DeviceProfile.h"

namespace pipescope {

using FitLog = std::function<void(const std::string&)>;

/// One round of the in-pipeline fits on `measured`, written into `profile` (whose
/// micro-benchmark fields must already be calibrated). Throws std::runtime_error
/// when a measured run fails.
/// `fitDone` is called after each of its kFitsPerRound fits (for a progress bar).
void fitInPipeline(Backend& measured, DeviceProfile& profile, const FitLog& log = {},
                   const std::function<void()>& fitDone = {});
inline constexpr int kFitsPerRound = 4;

/// `repeats` rounds of fitInPipeline, each on a copy of `profile`, combined by
/// medianOfFits; logs the spread of the main figures over the rounds. `progress`
/// gets (fits done, fits in all) after each fit.
DeviceProfile fitInPipelineRepeated(Backend& measured, const DeviceProfile& profile, int repeats,
                                    const FitLog& log = {}, const std::function<void(int, int)>& progress = {});

/// `fits[0]` with every in-pipeline field replaced by its median over `fits` (curves
/// point by point, where every fit has the same points). Throws std::invalid_argument
/// for an empty list.
DeviceProfile medianOfFits(const std::vector<DeviceProfile>& fits);

}  // namespace pipescope
