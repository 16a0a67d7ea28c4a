#pragma once
// The rank analysis as the CLI prints it (a per-rank table and the straggler line)
// and as JSON (analyze --json's "ranks" object).
#include <nlohmann/json.hpp>
#include <string>

#include "ranks/RankAnalysis.h"
#include "trace/Trace.h"

namespace pipescope {

std::string formatRankAnalysis(const RankAnalysis& analysis, const std::vector<RankInfo>& ranks);
nlohmann::json rankAnalysisJson(const RankAnalysis& analysis, const std::vector<RankInfo>& ranks);

}  // namespace pipescope
