#pragma once
// The ranks of a distributed job as JSON, in every format's header (native, trace
// JSON, Chrome export), so a merged trace of ranks converts without losing who is who.
#include <nlohmann/json.hpp>
#include <vector>

#include "trace/RankInfo.h"

namespace pipescope {

nlohmann::json ranksToJson(const std::vector<RankInfo>& ranks);
/// Throws std::invalid_argument naming the field ("ranks[2].rank: expected an integer").
std::vector<RankInfo> ranksFromJson(const nlohmann::json& list);

}  // namespace pipescope
