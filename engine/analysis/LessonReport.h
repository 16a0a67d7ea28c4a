#pragma once
// The text of a lesson's results shared by the command line and the app: each run
// with where it ran, its median and spread over the repetitions and the model's
// prediction beside it, and each claim with its verdict and what it was judged on.
#include <string>

#include "analysis/LessonRunner.h"

namespace pipescope {

/// "  4 streams: 12.3 ms (12.1–12.6 ms over 3 runs), measured on NVIDIA H100 80GB HBM3;
///  predicted 11.9 ms by h100-calibrated (3% faster than measured)"; one line per run.
std::string formatLessonRuns(const LessonOutcome& outcome);
/// "yes", "NO ", " ? ".
std::string verdictMark(Verdict v);
/// The claim, then for an unclear or failed claim what the verdict was made on.
std::string formatClaim(const ClaimVerdict& c);
/// One sentence on where the "this GPU" runs ran and how often ("Measured on NVIDIA
/// H100 80GB HBM3 (CUPTI timing), 3 repetitions of each run after a warm-up; claims are
/// judged on the medians.").
std::string formatLessonSetting(const LessonOutcome& outcome);

}  // namespace pipescope
