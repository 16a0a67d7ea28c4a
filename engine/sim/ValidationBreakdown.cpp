#include "sim/ValidationBreakdown.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "metrics/Spread.h"
#include "sim/RandomCases.h"

namespace pipescope {

namespace {

std::string fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f", v);
  return buf;
}

}  // namespace

std::vector<KnobError> errorByKnob(const ValidationReport& report) {
  struct Group {
    KnobError e;
    std::vector<double> errors;
  };
  std::vector<Group> groups;
  for (const ValidationRow& r : report.rows) {
    if (!r.ok()) continue;
    for (const KnobValue& kv : knobValues(r.config)) {
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&](const Group& x) { return x.e.knob == kv.knob && x.e.value == kv.value; });
      if (g == groups.end()) g = groups.insert(groups.end(), Group{{kv.knob, kv.value}, {}});
      g->errors.push_back(r.errorPct);
    }
  }
  // Knobs in knobValues() order (a knob absent from the first rows, like the issue
  // order of multi-stream runs, still lands in its place), values as they came.
  const std::vector<std::string> order = knobNames();
  const auto rank = [&](const Group& g) { return std::find(order.begin(), order.end(), g.e.knob) - order.begin(); };
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) { return rank(a) < rank(b); });
  std::vector<KnobError> out;
  for (Group& g : groups) {
    std::vector<double> abs;
    double sum = 0;
    for (double e : g.errors) {
      abs.push_back(std::abs(e));
      sum += e;
    }
    g.e.rows = int(g.errors.size());
    g.e.medianAbsErrorPct = spreadOf(abs).median;
    g.e.maxAbsErrorPct = spreadOf(abs).max;
    g.e.meanSignedErrorPct = sum / double(g.errors.size());
    out.push_back(g.e);
  }
  return out;
}

std::string knobErrorMarkdown(const std::vector<KnobError>& errors) {
  std::ostringstream s;
  s << "| knob | value | rows | median abs. error % | mean signed error % | max abs. error % |\n";
  s << "| --- | --- | ---: | ---: | ---: | ---: |\n";
  for (const KnobError& e : errors) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", e.medianAbsErrorPct);
    std::string median = buf;
    std::snprintf(buf, sizeof buf, "%.1f", e.maxAbsErrorPct);
    s << "| " << e.knob << " | " << e.value << " | " << e.rows << " | " << median << " | "
      << fixed1(e.meanSignedErrorPct) << " | " << buf << " |\n";
  }
  return s.str();
}

}  // namespace pipescope
