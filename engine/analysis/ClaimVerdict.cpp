#include "analysis/ClaimVerdict.h"

#include <algorithm>

namespace pipescope {

std::string_view toString(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::Fails: return "does not hold";
    case Verdict::Unclear: return "not shown clearly on this GPU";
  }
  return "?";
}

Spread metricSpread(const RepeatedMetrics& perRun, int run, MetricId metric) {
  if (run < 0 || std::size_t(run) >= perRun.size()) return {};
  std::vector<double> values;
  for (const Metrics& m : perRun[std::size_t(run)]) values.push_back(metricValue(m, metric));
  return spreadOf(std::move(values));
}

namespace {

bool hasRun(const RepeatedMetrics& perRun, int run) {
  return run >= 0 && std::size_t(run) < perRun.size() && !perRun[std::size_t(run)].empty();
}

std::string spreadText(MetricId metric, const Spread& s) {
  std::string t = formatMetric(metric, s.median);
  if (s.max > s.min) t += " [" + formatMetric(metric, s.min) + "–" + formatMetric(metric, s.max) + "]";
  return t;
}

}  // namespace

std::string ClaimVerdict::evidence() const {
  return spreadText(metric, valueSpread) + " against " + spreadText(metric, referenceSpread);
}

ClaimVerdict judgeClaim(const Expectation& e, const std::vector<LessonRun>& runs, const RepeatedMetrics& perRun) {
  ClaimVerdict v;
  v.claim = e.describe(runs);
  v.metric = e.metric;
  if (!hasRun(perRun, e.run) || (e.against >= 0 && !hasRun(perRun, e.against))) return v;  // no data: Fails
  v.valueSpread = metricSpread(perRun, e.run, e.metric);
  v.referenceSpread = e.against >= 0 ? metricSpread(perRun, e.against, e.metric) : Spread{e.threshold, e.threshold,
                                                                                           e.threshold};
  v.value = v.valueSpread.median;
  v.reference = v.referenceSpread.median;
  const bool onMedians = e.holdsOn(v.value, v.reference);
  // Less and Greater are monotonic in both figures, so the corners of the spread box
  // hold their extremes. About can also hold where the two spreads overlap (value
  // equal to reference) even when every corner says it does not.
  const Spread &a = v.valueSpread, &b = v.referenceSpread;
  std::vector<std::pair<double, double>> points{{a.min, b.min}, {a.min, b.max}, {a.max, b.min}, {a.max, b.max}};
  const double lo = std::max(a.min, b.min), hi = std::min(a.max, b.max);
  if (lo <= hi) points.insert(points.end(), {{lo, lo}, {hi, hi}});
  const bool flips = std::any_of(points.begin(), points.end(),
                                 [&](const auto& p) { return e.holdsOn(p.first, p.second) != onMedians; });
  v.verdict = flips ? Verdict::Unclear : onMedians ? Verdict::Holds : Verdict::Fails;
  return v;
}

int observedChoiceOnMedians(const Prediction& prediction, const RepeatedMetrics& perRun) {
  for (std::size_t i = 0; i < prediction.choices.size(); ++i) {
    bool all = true;
    for (const auto& e : prediction.choices[i].when) {
      if (!hasRun(perRun, e.run) || (e.against >= 0 && !hasRun(perRun, e.against))) {
        all = false;
        break;
      }
      const double ref = e.against >= 0 ? metricSpread(perRun, e.against, e.metric).median : e.threshold;
      all = all && e.holdsOn(metricSpread(perRun, e.run, e.metric).median, ref);
    }
    if (all) return int(i);
  }
  return -1;
}

}  // namespace pipescope
