#pragma once
// The small part of a trace (configuration history, device, outcome, lanes, names)
// as JSON, shared by the native format's header, the versioned JSON form and the
// Chrome export's "otherData", so every format records and reads it the same way.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/Trace.h"

namespace pipescope {

nlohmann::json deviceToJson(const DeviceInfo& d);
nlohmann::json outcomeToJson(const RunOutcome& o);
nlohmann::json configHistoryToJson(const std::vector<ConfigChange>& history);
nlohmann::json laneToJson(const Lane& l);

// Readers throw std::invalid_argument naming the field and what was expected;
// callers add the file name.
DeviceInfo deviceFromJson(const nlohmann::json& j);
RunOutcome outcomeFromJson(const nlohmann::json& j);
std::vector<ConfigChange> configHistoryFromJson(const nlohmann::json& j);
Lane laneFromJson(const nlohmann::json& j, std::size_t position);

std::optional<OpKind> parseOpKind(std::string_view s);
std::optional<LaneKind> parseLaneKind(std::string_view s);
std::optional<RunState> parseRunState(std::string_view s);

/// Copies what a run was into a trace: config history, device, outcome, completed batches.
/// Lanes, names and ops go in through TraceAssembler, which checks them.
void applyRunInfo(Trace& trace, const std::vector<ConfigChange>& history, const DeviceInfo& device,
                  const RunOutcome& outcome, std::int64_t completedBatches);

/// Typed field access with messages like "field 'lanes[3].kind': expected a string".
const nlohmann::json& requireField(const nlohmann::json& obj, const std::string& key, const std::string& where);
std::string requireString(const nlohmann::json& obj, const std::string& key, const std::string& where);
std::int64_t requireInt(const nlohmann::json& obj, const std::string& key, const std::string& where, std::int64_t lo,
                        std::int64_t hi);

}  // namespace pipescope
