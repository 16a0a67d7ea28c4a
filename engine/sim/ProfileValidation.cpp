#include "sim/ProfileValidation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "metrics/Spread.h"

namespace pipescope {

namespace {

double log2Of(double v) { return std::log2(std::max(v, 1.0)); }

/// A distance in knob space: a different transfer mode or memory kind outweighs any
/// difference in size, since they change which mechanisms the run exercises.
double distance(const PipelineConfig& a, const PipelineConfig& b) {
  double d = 0;
  d += a.mode != b.mode ? 4 : 0;
  d += a.memory != b.memory ? 4 : 0;
  d += a.model != b.model ? 2 : 0;
  const bool cpuA = a.preprocessOpsPerByte > 0 || a.postprocessOpsPerByte > 0;
  const bool cpuB = b.preprocessOpsPerByte > 0 || b.postprocessOpsPerByte > 0;
  d += cpuA != cpuB ? 2 : 0;
  d += a.sync != b.sync ? 1 : 0;
  d += (a.transferChunks > 1) != (b.transferChunks > 1) ? 0.5 : 0;
  d += 0.5 * std::abs(log2Of(a.isAsync() ? a.streams : 1) - log2Of(b.isAsync() ? b.streams : 1));
  d += 0.25 * std::abs(log2Of(double(a.batchBytes())) - log2Of(double(b.batchBytes())));
  if (a.model == ModelPreset::Custom && b.model == ModelPreset::Custom)
    d += 0.25 * std::abs(log2Of(a.modelFlopsPerByte) - log2Of(b.modelFlopsPerByte));
  return d;
}

}  // namespace

std::optional<SimilarRunsError> similarRunsError(const ProfileValidation& validation, const PipelineConfig& config,
                                                 int k) {
  if (validation.runs.empty() || k <= 0) return std::nullopt;
  std::vector<std::pair<double, double>> byDistance;  // distance, |error|
  for (const ValidatedRun& r : validation.runs) byDistance.push_back({distance(config, r.config), std::abs(r.errorPct)});
  const auto n = std::min<std::size_t>(std::size_t(k), byDistance.size());
  std::partial_sort(byDistance.begin(), byDistance.begin() + std::ptrdiff_t(n), byDistance.end());
  std::vector<double> errors;
  for (std::size_t i = 0; i < n; ++i) errors.push_back(byDistance[i].second);
  const Spread s = spreadOf(errors);
  SimilarRunsError out;
  out.runs = int(n);
  out.medianAbsErrorPct = s.median;
  out.maxAbsErrorPct = s.max;
  char buf[200];
  std::snprintf(buf, sizeof buf, "this profile's error on the %d most similar validation runs: \u00b1%.0f %% (median), up to %.0f %%",
                out.runs, s.median, s.max);
  out.text = buf;
  return out;
}

}  // namespace pipescope
