#include "sim/RepeatJudgement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "metrics/Spread.h"
#include "sim/RandomCases.h"

namespace pipescope {

namespace {

const ValidationRow* matching(const ValidationReport& report, const PipelineConfig& config) {
  for (const ValidationRow& r : report.rows)
    if (r.config == config) return &r;
  return nullptr;
}

bool judged(const ValidationRow* r) { return r && r->ok() && r->measuredNs > 0 && r->predictedNs > 0; }

double medianAbs(const std::vector<double>& v) {
  std::vector<double> a;
  for (double x : v) a.push_back(std::abs(x));
  return spreadOf(std::move(a)).median;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / double(v.size());
}

/// Every repeat's |error| above the row's threshold, all with one sign.
bool isStructural(const RepeatRow& r) {
  bool above = true, negative = true, positive = true;
  for (double e : r.errorPct) {
    above = above && std::abs(e) > r.thresholdPct;
    negative = negative && e < 0;
    positive = positive && e > 0;
  }
  return above && (negative || positive);
}

RepeatRow judgeRow(const std::vector<const ValidationRow*>& repeats) {
  RepeatRow row;
  row.name = repeats.front()->name;
  row.config = repeats.front()->config;
  row.predictedNs = repeats.front()->predictedNs;
  for (const ValidationRow* r : repeats) {
    row.measuredNs.push_back(r->measuredNs);
    row.errorPct.push_back((r->predictedNs - r->measuredNs) / r->measuredNs * 100.0);
  }
  for (std::size_t i = 0; i < repeats.size(); ++i) {
    std::vector<double> others;
    for (std::size_t j = 0; j < repeats.size(); ++j)
      if (j != i) others.push_back(row.measuredNs[j]);
    const double other = spreadOf(std::move(others)).median;
    const double floor = (other - row.measuredNs[i]) / row.measuredNs[i] * 100.0;
    row.floorPct.push_back(floor);
    row.repeatDifferencePct = std::max(row.repeatDifferencePct, std::abs(floor));
  }
  row.thresholdPct = std::max(kStructuralMinPct, kStructuralNoiseFactor * row.repeatDifferencePct);
  row.structural = isStructural(row);
  return row;
}

std::vector<RepeatKnob> byKnob(const std::vector<RepeatRow>& rows) {
  struct Group {
    RepeatKnob k;
    std::vector<double> errors, floors;
  };
  std::vector<Group> groups;
  for (const RepeatRow& r : rows)
    for (const KnobValue& kv : knobValues(r.config)) {
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&](const Group& x) { return x.k.knob == kv.knob && x.k.value == kv.value; });
      if (g == groups.end()) g = groups.insert(groups.end(), Group{{kv.knob, kv.value, 0, 0, 0, 0, {}}, {}, {}});
      ++g->k.rows;
      g->errors.insert(g->errors.end(), r.errorPct.begin(), r.errorPct.end());
      g->floors.insert(g->floors.end(), r.floorPct.begin(), r.floorPct.end());
      if (r.structural) g->k.structuralRows.push_back(r.name);
    }
  const std::vector<std::string> order = knobNames();
  const auto rank = [&](const Group& g) { return std::find(order.begin(), order.end(), g.k.knob) - order.begin(); };
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) { return rank(a) < rank(b); });
  std::vector<RepeatKnob> out;
  for (Group& g : groups) {
    g.k.modelMedianPct = medianAbs(g.errors);
    g.k.modelMeanSignedPct = mean(g.errors);
    g.k.floorMedianPct = medianAbs(g.floors);
    out.push_back(std::move(g.k));
  }
  return out;
}

std::string fixed(double v, int digits, bool sign = false) {
  char buf[64];
  std::snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", digits, v);
  return buf;
}

std::string joined(const std::vector<double>& v, double scale, int digits, bool sign, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + fixed(v[i] * scale, digits, sign);
  return s;
}

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

}  // namespace

RepeatJudgement judgeRepeats(const std::vector<ValidationReport>& repeats) {
  if (repeats.size() < 2)
    throw std::invalid_argument("a repeat judgement needs the same set measured at least twice; got " +
                                std::to_string(repeats.size()) + " measurement(s)");
  RepeatJudgement j;
  j.repeats = int(repeats.size());
  for (const ValidationRow& first : repeats.front().rows) {
    std::vector<const ValidationRow*> same;
    for (const ValidationReport& rep : repeats) same.push_back(matching(rep, first.config));
    if (!std::all_of(same.begin(), same.end(), judged)) {
      ++j.rowsLeftOut;
      continue;
    }
    j.rows.push_back(judgeRow(same));
  }
  // Rows of later repeats that the first lacks are left out too.
  for (std::size_t i = 1; i < repeats.size(); ++i)
    for (const ValidationRow& r : repeats[i].rows)
      if (!matching(repeats.front(), r.config)) ++j.rowsLeftOut;
  if (j.rows.empty())
    throw std::invalid_argument("no configuration ran in every repeat: the measurements are not repeats of one set");
  std::vector<double> errors, floors;
  for (const RepeatRow& r : j.rows) {
    errors.insert(errors.end(), r.errorPct.begin(), r.errorPct.end());
    floors.insert(floors.end(), r.floorPct.begin(), r.floorPct.end());
    if (r.structural) ++j.structuralRows;
  }
  j.modelMedianPct = medianAbs(errors);
  j.modelMeanSignedPct = mean(errors);
  j.floorMedianPct = medianAbs(floors);
  j.byKnob = byKnob(j.rows);
  return j;
}

std::string repeatVerdictLine(const RepeatJudgement& j) {
  return "model median " + fixed(j.modelMedianPct, 1) + " % vs floor median " + fixed(j.floorMedianPct, 1) +
         " %; structural rows: " + std::to_string(j.structuralRows) + " of " + std::to_string(j.rows.size()) + " (" +
         std::to_string(j.repeats) + " repeats)";
}

std::string repeatReportText(const RepeatJudgement& j) {
  std::ostringstream s;
  char line[512];
  s << "\nthe set measured " << j.repeats << " times in a row: each repeat's error beside the repeats' own difference\n";
  std::snprintf(line, sizeof line, "%-28s %-23s %12s %-17s %9s %9s\n", "configuration", "measured ms (repeats)",
                "predicted ms", "error % (repeats)", "repeat d%", "threshold");
  s << line;
  for (const RepeatRow& r : j.rows) {
    std::snprintf(line, sizeof line, "%-28s %-23s %12.3f %-17s %9.1f %9.1f%s\n", r.name.c_str(),
                  joined(r.measuredNs, 1e-6, 3, false, " / ").c_str(), r.predictedNs / 1e6,
                  joined(r.errorPct, 1, 1, true, " / ").c_str(), r.repeatDifferencePct, r.thresholdPct,
                  r.structural ? "  STRUCTURAL" : "");
    s << line;
  }
  if (j.rowsLeftOut > 0)
    s << j.rowsLeftOut << " row(s) left out: failed in a repeat, or not measured in every repeat\n";
  s << "\nmodel vs floor by knob value (median |error| over the rows' repeats; the floor: the other repeat's "
       "measurement as the prediction):\n";
  std::snprintf(line, sizeof line, "%-14s %-18s %5s %10s %10s %10s %10s\n", "knob", "value", "rows", "model |e|",
                "model e", "floor |d|", "structural");
  s << line;
  for (const RepeatKnob& k : j.byKnob) {
    std::snprintf(line, sizeof line, "%-14s %-18s %5d %9.1f%% %+9.1f%% %9.1f%% %10zu\n", k.knob.c_str(),
                  k.value.c_str(), k.rows, k.modelMedianPct, k.modelMeanSignedPct, k.floorMedianPct,
                  k.structuralRows.size());
    s << line;
  }
  s << "\nstructural misses (|error| > max(" << fixed(kStructuralMinPct, 0) << " %, " << fixed(kStructuralNoiseFactor, 0)
    << " x the row's repeat difference) in every repeat, one sign), by knob:\n";
  bool any = false;
  for (const RepeatKnob& k : j.byKnob)
    if (!k.structuralRows.empty()) {
      s << "  " << k.knob << " = " << k.value << ": " << names(k.structuralRows) << "\n";
      any = true;
    }
  if (!any) s << "  none\n";
  s << repeatVerdictLine(j) << "\n";
  return s.str();
}

std::string repeatReportMarkdown(const RepeatJudgement& j, const std::string& title) {
  std::ostringstream s;
  s << "### " << title << "\n\n";
  s << "| configuration | factors | measured ms (repeats) | predicted ms | error % (repeats) | repeat difference % | "
       "threshold % | structural |\n";
  s << "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const RepeatRow& r : j.rows)
    s << "| " << r.name << " | " << describeCase(r.config) << " | " << joined(r.measuredNs, 1e-6, 3, false, " / ")
      << " | " << fixed(r.predictedNs / 1e6, 3) << " | " << joined(r.errorPct, 1, 1, true, " / ") << " | "
      << fixed(r.repeatDifferencePct, 1) << " | " << fixed(r.thresholdPct, 1) << " | "
      << (r.structural ? "**yes**" : "") << " |\n";
  s << "\n| knob | value | rows | model median abs. error % | model mean signed error % | floor median % | "
       "structural rows |\n";
  s << "| --- | --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const RepeatKnob& k : j.byKnob)
    s << "| " << k.knob << " | " << k.value << " | " << k.rows << " | " << fixed(k.modelMedianPct, 1) << " | "
      << fixed(k.modelMeanSignedPct, 1, true) << " | " << fixed(k.floorMedianPct, 1) << " | "
      << names(k.structuralRows) << " |\n";
  if (j.rowsLeftOut > 0)
    s << "\n" << j.rowsLeftOut << " row(s) left out: failed in a repeat, or not measured in every repeat.\n";
  s << "\n" << repeatVerdictLine(j) << "\n";
  return s.str();
}

}  // namespace pipescope
