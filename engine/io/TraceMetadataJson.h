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
/// Every GPU of the trace ("devices"; "device" keeps the first for older readers).
nlohmann::json devicesToJson(const std::vector<DeviceInfo>& devices);

// Readers throw std::invalid_argument naming the field and what was expected;
// callers add the file name.
DeviceInfo deviceFromJson(const nlohmann::json& j);
RunOutcome outcomeFromJson(const nlohmann::json& j);
std::vector<ConfigChange> configHistoryFromJson(const nlohmann::json& j);
/// A lane; "device" is optional (files from before several GPUs): defaultLaneDevice(kind).
Lane laneFromJson(const nlohmann::json& j, std::size_t position);
/// The optional "devices" array of `object` (called `where`); {first} when absent.
std::vector<DeviceInfo> devicesFromJson(const nlohmann::json& object, const std::string& where,
                                        const DeviceInfo& first);

std::optional<OpKind> parseOpKind(std::string_view s);
std::optional<LaneKind> parseLaneKind(std::string_view s);
std::optional<RunState> parseRunState(std::string_view s);

/// Copies what a run was into a trace: config history, device, outcome, completed batches.
/// Lanes, names and ops go in through TraceAssembler, which checks them.
void applyRunInfo(Trace& trace, const std::vector<ConfigChange>& history, const DeviceInfo& device,
                  const RunOutcome& outcome, std::int64_t completedBatches);
/// The same with every GPU of the run (`devices` not empty; the first is device()).
void applyRunInfo(Trace& trace, const std::vector<ConfigChange>& history, const std::vector<DeviceInfo>& devices,
                  const RunOutcome& outcome, std::int64_t completedBatches);

/// Lane::device values a file may give: -1 (shared) to kMaxTraceDevices - 1.
inline constexpr int kMaxTraceDevices = 64;

/// Typed field access with messages like "field 'lanes[3].kind': expected a string".
const nlohmann::json& requireField(const nlohmann::json& obj, const std::string& key, const std::string& where);
std::string requireString(const nlohmann::json& obj, const std::string& key, const std::string& where);
std::int64_t requireInt(const nlohmann::json& obj, const std::string& key, const std::string& where, std::int64_t lo,
                        std::int64_t hi);

}  // namespace pipescope
