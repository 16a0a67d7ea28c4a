#pragma once
// A lesson's claim judged on repeated runs. On a real GPU no two runs take the same
// time, so a claim is evaluated on the median of its runs' repetitions, and the
// run-to-run spread (fastest to slowest) says whether that outcome can be trusted:
// a claim whose outcome flips somewhere inside the spread is "not shown clearly on
// this GPU" rather than true or false. One repetition (the deterministic simulator)
// has no spread, so its verdict is always clear.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/Lesson.h"
#include "metrics/Spread.h"

namespace pipescope {

enum class Verdict : std::uint8_t { Holds, Fails, Unclear };
/// "holds", "does not hold", "not shown clearly on this GPU".
std::string_view toString(Verdict v);

/// Repetitions of each lesson run: perRun[i][r] = the metrics of repetition r of run i.
using RepeatedMetrics = std::vector<std::vector<Metrics>>;

struct ClaimVerdict {
  std::string claim;  ///< Expectation::describe()
  MetricId metric = MetricId::Makespan;
  Verdict verdict = Verdict::Fails;
  double value = 0;      ///< median of the claim's metric on its run
  double reference = 0;  ///< median on the other run, or the claim's threshold
  Spread valueSpread, referenceSpread;  ///< over the repetitions (zero width for a threshold)
  bool holds() const { return verdict == Verdict::Holds; }
  /// "12.1 ms [11.9–12.4 ms] against 30.2 ms [29.8–30.9 ms]": what the verdict was made on.
  std::string evidence() const;
};

/// Median, fastest and slowest of `metric` over the repetitions of run `run`.
Spread metricSpread(const RepeatedMetrics& perRun, int run, MetricId metric);

/// Judges one claim on the medians, then checks every combination of the run-to-run
/// extremes: if any of them gives the other outcome, the claim is Unclear.
ClaimVerdict judgeClaim(const Expectation& e, const std::vector<LessonRun>& runs, const RepeatedMetrics& perRun);

/// The first prediction choice whose conditions all hold on the medians, -1 if none.
int observedChoiceOnMedians(const Prediction& prediction, const RepeatedMetrics& perRun);

}  // namespace pipescope
