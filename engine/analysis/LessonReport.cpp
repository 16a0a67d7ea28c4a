#include "analysis/LessonReport.h"

#include <cmath>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

std::string formatLessonRuns(const LessonOutcome& o) {
  std::string s;
  for (const MeasuredRun& m : o.runs) {
    std::string line = "  " + m.label + ": " + formatNs(m.makespan.median);
    if (m.reps.size() > 1)
      line += " (" + formatNs(m.makespan.min) + "–" + formatNs(m.makespan.max) + " over " +
              std::to_string(m.reps.size()) + " runs)";
    line += ", " + m.where();
    if (m.predicted && m.predicted->makespanNs > 0 && m.makespan.median > 0) {
      const double p = m.predicted->makespanNs, r = p / m.makespan.median - 1.0;
      line += "; predicted " + formatNs(p) + " by " + o.predictionProfile;
      if (m.measured)
        line += std::fabs(r) < 0.005 ? " (as measured)"
                                     : " (" + formatPercent(std::fabs(r)) + (r < 0 ? " faster" : " slower") +
                                           " than measured)";
    }
    s += line + "\n";
  }
  return s;
}

std::string verdictMark(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "yes";
    case Verdict::Fails: return "NO ";
    case Verdict::Unclear: return " ? ";
  }
  return "   ";
}

std::string formatClaim(const ClaimVerdict& c) {
  switch (c.verdict) {
    case Verdict::Holds: return c.claim;
    case Verdict::Fails: return c.claim + " — not on these runs: " + c.evidence();
    case Verdict::Unclear:
      return c.claim + " — not shown clearly on this GPU: the outcome flips within the run-to-run spread (" +
             c.evidence() + ")";
  }
  return c.claim;
}

std::string formatLessonSetting(const LessonOutcome& o) {
  std::string s;
  if (o.measured()) {
    s = "Measured on " + o.device.summary();
    if (!o.device.timingSource.empty()) s += " (" + o.device.timingSource + " timing)";
    s += ", " + std::to_string(o.reps) + (o.reps == 1 ? " run" : " repetitions") +
         " of each after a warm-up; claims are judged on the medians, and a claim that flips within the "
         "run-to-run spread is 'not shown clearly'.";
  } else {
    s = "Simulated on profile '" + o.device.profile + "' (deterministic: one run each).";
  }
  if (!o.backendNote.empty()) s += " Note: " + o.backendNote + ".";
  bool legacy = false;
  for (const MeasuredRun& m : o.runs) legacy = legacy || m.legacy;
  if (legacy) s += " Runs on legacy GPUs are simulated: those devices exist only in the model.";
  if (!o.predictionNote.empty() && o.measured()) s += " Predictions: " + o.predictionNote + ".";
  return s;
}

}  // namespace pipescope
