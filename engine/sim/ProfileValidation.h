#pragma once
// How well a device profile predicted a real GPU on configurations it was not
// fitted to, kept with the profile: every prediction made with it (advice, sweep
// predictions) can then say how far off this profile was on runs like the one it
// predicts ("this profile's error on similar runs: ±4 %").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/PipelineConfig.h"

namespace pipescope {

struct ValidatedRun {
  PipelineConfig config;
  double errorPct = 0;  ///< (predicted - measured) / measured
  bool operator==(const ValidatedRun&) const = default;
};

struct ProfileValidation {
  std::string device;      ///< the GPU it was measured on
  std::uint64_t seed = 0;  ///< the random set's seed (never one the profile was fitted with)
  std::string recordedAt;  ///< UTC time of the measurement
  std::vector<ValidatedRun> runs;
  bool operator==(const ProfileValidation&) const = default;
};

struct SimilarRunsError {
  int runs = 0;                  ///< how many neighbours the figures cover
  double medianAbsErrorPct = 0;
  double maxAbsErrorPct = 0;
  std::string text;              ///< "this profile's error on the 5 most similar validation runs: ±4 % (median), up to 9 %"
};

/// The `k` validated runs most like `config` (same transfer mode and memory kind
/// weigh most; then model, CPU stages, streams and batch size on log scales) and
/// their error; empty when the profile carries no validation.
std::optional<SimilarRunsError> similarRunsError(const ProfileValidation& validation, const PipelineConfig& config,
                                                 int k = 5);

}  // namespace pipescope
