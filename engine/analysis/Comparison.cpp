#include "analysis/Comparison.h"

#include <cmath>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

std::string_view toString(Winner w) {
  switch (w) {
    case Winner::A: return "A";
    case Winner::B: return "B";
    case Winner::Same: return "same";
    case Winner::NotComparable: return "";
  }
  return "";
}

const ComparisonRow* ComparisonTable::find(std::string_view key) const {
  for (const auto& r : rows)
    if (r.key == key) return &r;
  return nullptr;
}

namespace {

ComparisonRow metricRow(const Metrics& a, const Metrics& b, MetricId id) {
  const MetricInfo& info = metricInfo(id);
  ComparisonRow r;
  r.label = std::string(info.label);
  r.key = std::string(info.key);
  r.metric = id;
  r.a = metricValue(a, id);
  r.b = metricValue(b, id);
  r.difference = r.b - r.a;
  if (r.a != 0) r.ratio = r.b / r.a;
  r.aText = formatMetric(id, r.a);
  r.bText = formatMetric(id, r.b);
  const double scale = std::max(std::fabs(r.a), std::fabs(r.b));
  // Fractions differing by less than half a percentage point read as equal in the table.
  const bool same = scale == 0 || std::fabs(r.difference) <= kSameRelative * scale ||
                    (info.unit == MetricUnit::Fraction && std::fabs(r.difference) < 0.005);
  if (info.unit == MetricUnit::Fraction) {
    // Fractions differ in percentage points; a ratio of two percentages confuses.
    const double pts = r.difference * 100.0;
    char buf[32];
    if (std::fabs(pts) < 0.5)
      std::snprintf(buf, sizeof buf, "±0 pts");
    else
      std::snprintf(buf, sizeof buf, "%+.0f pts", pts);
    r.differenceText = buf;
  } else {
    std::string sign = r.difference > 0 ? "+" : r.difference < 0 ? "-" : "±";
    std::string abs = info.unit == MetricUnit::Bytes ? formatBytes(std::uint64_t(std::fabs(r.difference)))
                                                     : formatMetric(id, std::fabs(r.difference));
    r.differenceText = sign + abs;
    if (r.ratio) {
      char buf[48];
      std::snprintf(buf, sizeof buf, " (%+.0f%%, %s)", (*r.ratio - 1.0) * 100.0, formatRatio(*r.ratio).c_str());
      r.differenceText += buf;
    }
  }
  if (same)
    r.better = Winner::Same;
  else if (info.better == BetterWhen::Neither)
    r.better = Winner::NotComparable;
  else
    r.better = (info.better == BetterWhen::Lower) == (r.b < r.a) ? Winner::B : Winner::A;
  return r;
}

}  // namespace

ComparisonTable compareRuns(const Metrics& a, const Metrics& b, std::string aName, std::string bName) {
  ComparisonTable t;
  t.aName = std::move(aName);
  t.bName = std::move(bName);
  for (MetricId id :
       {MetricId::Makespan, MetricId::BatchesPerSec, MetricId::SamplesPerSec, MetricId::H2DGBps, MetricId::D2HGBps,
        MetricId::H2DBusy, MetricId::ComputeBusy, MetricId::D2HBusy, MetricId::SubmitThreadBusy, MetricId::GpuIdle,
        MetricId::ComputeOverlap, MetricId::CopyOverlap, MetricId::Efficiency})
    t.rows.push_back(metricRow(a, b, id));
  ComparisonRow bottleneck;
  bottleneck.label = "bottleneck";
  bottleneck.key = "bottleneck";
  bottleneck.aText = std::string(toString(a.bottleneck));
  bottleneck.bText = std::string(toString(b.bottleneck));
  bottleneck.differenceText = a.bottleneck == b.bottleneck ? "same" : "changed";
  bottleneck.better = a.bottleneck == b.bottleneck ? Winner::Same : Winner::NotComparable;
  t.rows.push_back(bottleneck);
  return t;
}

}  // namespace pipescope
