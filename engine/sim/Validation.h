#pragma once
// Simulator fidelity: runs a matrix of configurations on two backends (normally
// the real GPU as "measured" and the simulator as "predicted") and compares their
// makespans. The matrix is fixed so results from different machines and profile
// versions can be compared row by row (docs/fidelity.md).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"

namespace pipescope {

struct ValidationCase {
  std::string name;  ///< short, unique: "async-pinned-s4-bf-balanced-large"
  PipelineConfig config;
};

/// The validation matrix. quick: a subset covering each factor at least once
/// (blocking/async, pageable/pinned, 1/2/4/8 streams, both orders, the three
/// workloads, both batch sizes, CPU workers) for a run of a few seconds.
std::vector<ValidationCase> validationMatrix(bool quick);

struct ValidationRow {
  std::string name;
  PipelineConfig config;
  double measuredNs = 0;   ///< median makespan over the repetitions
  double measuredMinNs = 0, measuredMaxNs = 0;  ///< the fastest and slowest repetition: run-to-run noise
  std::vector<double> measuredRunsNs;  ///< every repetition's makespan, in run order
  double predictedNs = 0;
  double errorPct = 0;     ///< (predicted - measured) / measured * 100
  /// How far the prediction lies outside [measuredMinNs, measuredMaxNs], in % of
  /// the median (0 inside): the error the measurement's own noise cannot explain.
  double errorBeyondSpreadPct = 0;
  double spreadPct() const { return measuredNs > 0 ? (measuredMaxNs - measuredMinNs) / measuredNs * 100.0 : 0; }
  std::string failure;     ///< non-empty: a backend failed and the row has no error figure
  std::string measuredStages, predictedStages;  ///< stageSummary() of the last run on each side
  /// The host's speed while the row was measured: the median over its runs of each
  /// run's median cudaLaunchKernel call time (launchCallNs); 0 = unknown. Judged
  /// against the profile's kernelLaunchNs, it says how much of a miss is the host
  /// having been slower or faster than when the profile was calibrated (HostSpeed.h).
  double measuredLaunchNs = 0;
  bool ok() const { return failure.empty(); }
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  double medianAbsErrorPct = 0;  ///< over the rows that ran on both backends
  double p90AbsErrorPct = 0;     ///< 90th percentile of |error|
  double maxAbsErrorPct = 0;
  double meanSignedErrorPct = 0; ///< the bias: < 0 when the simulator is optimistic
  int predictedTooFast = 0;      ///< rows with a negative error
  std::string worstCase;         ///< name of the row with the largest error
  double medianSpreadPct = 0;    ///< median run-to-run spread of the measured side
  double medianBeyondSpreadPct = 0;  ///< median of errorBeyondSpreadPct
  int withinSpread = 0;          ///< rows whose prediction lies within the measured range
  int failures = 0;
};

/// Makespan (first op start to last op end) of one run; 0 with `failure` set when
/// the backend reports a failed run or records nothing.
double measureMakespanNs(Backend& backend, const PipelineConfig& config, std::string& failure,
                         std::string* stages = nullptr, const std::function<void(const Trace&)>& onTrace = {});

/// Median host time of the run's cudaLaunchKernel calls; 0 when it made none.
double launchCallNs(const Trace& trace);

/// One line of per-batch stage times (µs): mean H2D, D2H and kernel time per batch,
/// mean API call and host wait, CPU stages; where a prediction differs from a
/// measurement, this says which stage.
std::string stageSummary(const Trace& trace);

struct ValidationOptions {
  int measuredRepetitions = 3;  ///< the measured backend's makespan is the median of these
  int predictedRepetitions = 1; ///< the simulator is deterministic: once is enough
  bool warmUp = true;           ///< one discarded run of the first case on the measured backend
  /// When set, the last measured run of each row is handed over (row index, trace)
  /// before the prediction runs: for saving real traces to compare op by op.
  std::function<void(std::size_t, const Trace&)> onMeasuredTrace;
  /// Called after each row (index, count, row) for progress output.
  std::function<void(std::size_t, std::size_t, const ValidationRow&)> onRow;
};

ValidationReport runValidation(Backend& measured, Backend& predicted, const std::vector<ValidationCase>& cases,
                               const ValidationOptions& options = {});

/// Fills a row's errorPct and errorBeyondSpreadPct from its makespans.
void setValidationErrors(ValidationRow& row);

/// The rows' predictions again, on `predicted` (offline: a saved measurement judged
/// against another profile), errors and summary recomputed.
void repredict(ValidationReport& report, Backend& predicted);

/// Median and max of |error| over the rows that ran; fills the report's summary fields.
void summarize(ValidationReport& report);

/// One line describing a configuration's factors, for tables ("async pinned 4 streams breadth-first ...").
std::string describeCase(const PipelineConfig& config);

/// The report as a markdown table plus summary lines; `title` heads it.
std::string validationMarkdown(const ValidationReport& report, const std::string& title);

}  // namespace pipescope
