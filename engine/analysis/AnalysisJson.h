#pragma once
// JSON forms of the analysis results, shared by the CLI (--json) and exports.
#include <nlohmann/json_fwd.hpp>

#include "analysis/Comparison.h"
#include "analysis/LessonRunner.h"
#include "analysis/RunAnalysis.h"

namespace pipescope {

nlohmann::json limitsToJson(const Limits& limits);
nlohmann::json waitSummaryToJson(const WaitSummary& summary, const std::vector<std::string>& sentences);
nlohmann::json adviceToJson(const AdviceResult& advice);
/// Several GPUs: per GPU, links, communication, collectives, bound (metrics/MultiGpuMetrics.h).
nlohmann::json multiGpuToJson(const MultiGpuMetrics& m);
nlohmann::json scalingToJson(const ScalingEstimate& s);
/// {"limits": ..., "waits": ..., "advice": ... (null when not computed)}.
nlohmann::json runAnalysisToJson(const RunAnalysis& analysis);
/// An imported trace's derived configuration: the configuration, the profile, the fit.
nlohmann::json derivedConfigToJson(const DerivedConfig& derived);
nlohmann::json comparisonToJson(const ComparisonTable& table);
nlohmann::json lessonToJson(const Lesson& lesson);
nlohmann::json lessonOutcomeToJson(const Lesson& lesson, const LessonOutcome& outcome);

}  // namespace pipescope
