#include "io/TraceMetadataJson.h"

#include <limits>
#include <stdexcept>

#include "config/ConfigJson.h"

namespace pipescope {

using nlohmann::json;

json deviceToJson(const DeviceInfo& d) {
  return {{"backend", d.backend},
          {"name", d.name},
          {"profile", d.profile},
          {"compute_capability", std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
          {"copy_engines", d.copyEngines},
          {"pcie_generation", d.pcieGeneration},
          {"pcie_width", d.pcieWidth},
          {"memory_bytes", d.memoryBytes},
          {"driver_version", d.driverVersion},
          {"runtime_version", d.runtimeVersion},
          {"timing_source", d.timingSource},
          {"note", d.note},
          {"ordinal", d.ordinal}};
}

json outcomeToJson(const RunOutcome& o) { return {{"state", toString(o.state)}, {"message", o.message}}; }

json configHistoryToJson(const std::vector<ConfigChange>& history) {
  json h = json::array();
  for (const auto& change : history)
    h.push_back({{"first_batch", change.firstBatch}, {"config", configToJson(change.config)}});
  return h;
}

json laneToJson(const Lane& l) {
  return {{"id", l.id}, {"kind", toString(l.kind)}, {"name", l.name}, {"index", l.index}, {"device", l.device}};
}

json devicesToJson(const std::vector<DeviceInfo>& devices) {
  json list = json::array();
  for (const auto& d : devices) list.push_back(deviceToJson(d));
  return list;
}

std::vector<DeviceInfo> devicesFromJson(const json& object, const std::string& where, const DeviceInfo& first) {
  if (!object.is_object() || !object.contains("devices")) return {first};
  const json& list = object["devices"];
  if (!list.is_array() || list.empty() || list.size() > std::size_t(kMaxTraceDevices))
    throw std::invalid_argument("'" + where + ".devices': expected an array of 1 to " +
                                std::to_string(kMaxTraceDevices) + " devices");
  std::vector<DeviceInfo> devices;
  for (std::size_t i = 0; i < list.size(); ++i) {
    try {
      devices.push_back(deviceFromJson(list[i]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("'" + where + ".devices[" + std::to_string(i) + "]': " + e.what());
    }
  }
  return devices;
}

const json& requireField(const json& obj, const std::string& key, const std::string& where) {
  if (!obj.is_object()) throw std::invalid_argument("'" + where + "': expected an object, got " + obj.type_name());
  auto it = obj.find(key);
  if (it == obj.end()) throw std::invalid_argument("'" + where + "': missing field '" + key + "'");
  return *it;
}

std::string requireString(const json& obj, const std::string& key, const std::string& where) {
  const json& v = requireField(obj, key, where);
  if (!v.is_string())
    throw std::invalid_argument("'" + where + "." + key + "': expected a string, got " + v.type_name());
  return v.get<std::string>();
}

std::int64_t requireInt(const json& obj, const std::string& key, const std::string& where, std::int64_t lo,
                        std::int64_t hi) {
  const json& v = requireField(obj, key, where);
  std::int64_t x = 0;
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      throw std::invalid_argument("'" + where + "." + key + "': " + v.dump() + " is out of range");
    x = std::int64_t(v.get<std::uint64_t>());
  } else if (v.is_number_integer()) {
    x = v.get<std::int64_t>();
  } else {
    throw std::invalid_argument("'" + where + "." + key + "': expected an integer, got " + v.dump());
  }
  if (x < lo || x > hi)
    throw std::invalid_argument("'" + where + "." + key + "': " + std::to_string(x) + " is outside [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

namespace {
constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
}

DeviceInfo deviceFromJson(const json& j) {
  DeviceInfo d;
  const std::string w = "device";
  d.backend = requireString(j, "backend", w);
  d.name = requireString(j, "name", w);
  d.profile = requireString(j, "profile", w);
  const std::string cc = requireString(j, "compute_capability", w);
  const auto dot = cc.find('.');
  try {
    if (dot == std::string::npos || cc.size() > 12) throw std::invalid_argument("no dot");
    std::size_t used = 0;
    d.computeMajor = std::stoi(cc.substr(0, dot), &used);
    d.computeMinor = std::stoi(cc.substr(dot + 1));
  } catch (const std::exception&) {
    throw std::invalid_argument("'device.compute_capability': expected \"MAJOR.MINOR\", got \"" + cc + "\"");
  }
  d.copyEngines = int(requireInt(j, "copy_engines", w, 0, 64));
  d.pcieGeneration = int(requireInt(j, "pcie_generation", w, 0, 64));
  d.pcieWidth = int(requireInt(j, "pcie_width", w, 0, 64));
  const json& mem = requireField(j, "memory_bytes", w);
  if (!mem.is_number_integer() || (mem.is_number_integer() && !mem.is_number_unsigned() && mem.get<std::int64_t>() < 0))
    throw std::invalid_argument("'device.memory_bytes': expected a non-negative integer, got " + mem.dump());
  d.memoryBytes = mem.get<std::uint64_t>();
  d.driverVersion = requireString(j, "driver_version", w);
  d.runtimeVersion = requireString(j, "runtime_version", w);
  d.timingSource = requireString(j, "timing_source", w);
  d.note = requireString(j, "note", w);
  d.ordinal = j.contains("ordinal") ? int(requireInt(j, "ordinal", w, 0, kMaxTraceDevices - 1)) : 0;
  (void)kIntMax;
  return d;
}

std::optional<OpKind> parseOpKind(std::string_view s) {
  for (int k = 0; k < kOpKindCount; ++k)
    if (toString(OpKind(k)) == s) return OpKind(k);
  return std::nullopt;
}

std::optional<LaneKind> parseLaneKind(std::string_view s) {
  for (int k = 0; k <= int(kLastLaneKind); ++k)
    if (toString(LaneKind(k)) == s) return LaneKind(k);
  return std::nullopt;
}

std::optional<RunState> parseRunState(std::string_view s) {
  for (int k = 0; k <= int(RunState::Failed); ++k)
    if (toString(RunState(k)) == s) return RunState(k);
  return std::nullopt;
}

RunOutcome outcomeFromJson(const json& j) {
  RunOutcome o;
  const std::string state = requireString(j, "state", "outcome");
  auto s = parseRunState(state);
  if (!s) throw std::invalid_argument("'outcome.state': unknown state \"" + state + "\"");
  o.state = *s;
  o.message = requireString(j, "message", "outcome");
  return o;
}

std::vector<ConfigChange> configHistoryFromJson(const json& j) {
  if (!j.is_array())
    throw std::invalid_argument("'config_history': expected an array, got " + std::string(j.type_name()));
  std::vector<ConfigChange> history;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string w = "config_history[" + std::to_string(i) + "]";
    ConfigChange c;
    c.firstBatch = std::int32_t(requireInt(j[i], "first_batch", w, 0, std::numeric_limits<std::int32_t>::max()));
    try {
      c.config = configFromJson(requireField(j[i], "config", w));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("'" + w + ".config': " + e.what());
    }
    history.push_back(std::move(c));
  }
  return history;
}

Lane laneFromJson(const json& j, std::size_t position) {
  const std::string w = "lanes[" + std::to_string(position) + "]";
  Lane l;
  // Numbering (0..n-1 in order) is checked with the whole table (TraceAssembler).
  l.id = std::uint16_t(requireInt(j, "id", w, 0, kNoLane - 1));
  const std::string kind = requireString(j, "kind", w);
  auto k = parseLaneKind(kind);
  if (!k) throw std::invalid_argument("'" + w + ".kind': unknown lane kind \"" + kind + "\"");
  l.kind = *k;
  l.name = requireString(j, "name", w);
  l.index = int(requireInt(j, "index", w, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  l.device = j.contains("device") ? int(requireInt(j, "device", w, kSharedLane, kMaxTraceDevices - 1))
                                  : defaultLaneDevice(l.kind);
  return l;
}

void applyRunInfo(Trace& trace, const std::vector<ConfigChange>& history, const DeviceInfo& device,
                  const RunOutcome& outcome, std::int64_t completedBatches) {
  applyRunInfo(trace, history, std::vector<DeviceInfo>{device}, outcome, completedBatches);
}

void applyRunInfo(Trace& trace, const std::vector<ConfigChange>& history, const std::vector<DeviceInfo>& devices,
                  const RunOutcome& outcome, std::int64_t completedBatches) {
  for (std::size_t i = 0; i < history.size(); ++i) {
    if (i == 0)
      trace.setConfig(history[i].config);
    else
      trace.addConfigChange(history[i].firstBatch, history[i].config);
  }
  trace.setDevices(devices);
  trace.setOutcome(outcome);
  trace.setCompletedBatches(completedBatches);
}

}  // namespace pipescope
