#include "CompareTraceFile.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "config/ConfigJson.h"
#include "io/TraceJsonWriter.h"

namespace pipescope::cli {

namespace {

template <typename E, int N>
std::optional<E> enumFromString(const std::string& s) {
  for (int i = 0; i < N; ++i)
    if (toString(E(i)) == s) return E(i);
  return std::nullopt;
}

struct Reader {
  const std::string& path;
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("trace file '" + path + "': " + what);
  }
};

}  // namespace

std::unique_ptr<Trace> readComparisonTrace(const std::string& path) {
  const Reader r{path};
  std::ifstream in(path, std::ios::binary);
  if (!in) r.fail(std::string("cannot open it: ") + std::strerror(errno));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    r.fail(std::string("not valid JSON (truncated or not a pipescope trace?): ") + e.what());
  }
  if (!j.is_object() || j.value("format", std::string()) != kTraceJsonFormat)
    r.fail("not a " + std::string(kTraceJsonFormat) +
           " file (compare reads traces written by 'pipescope-cli run --trace FILE.json')");
  if (j.value("version", 0) != kTraceJsonVersion)
    r.fail("format version " + j.value("version", nlohmann::json()).dump() + " is not supported (this build reads " +
           std::to_string(kTraceJsonVersion) + ")");
  auto trace = std::make_unique<Trace>();
  try {
    for (const auto& change : j.at("config_history")) {
      const PipelineConfig c = configFromJson(change.at("config"));
      const auto first = change.at("first_batch").get<std::int32_t>();
      if (trace->configHistory().empty())
        trace->setConfig(c);
      else
        trace->addConfigChange(first, c);
    }
    const auto& d = j.at("device");
    DeviceInfo device;
    device.backend = d.value("backend", "");
    device.name = d.value("name", "");
    device.profile = d.value("profile", "");
    device.copyEngines = d.value("copy_engines", 0);
    device.pcieGeneration = d.value("pcie_generation", 0);
    device.pcieWidth = d.value("pcie_width", 0);
    device.memoryBytes = d.value("memory_bytes", std::uint64_t(0));
    device.driverVersion = d.value("driver_version", "");
    device.runtimeVersion = d.value("runtime_version", "");
    device.timingSource = d.value("timing_source", "");
    device.note = d.value("note", "");
    trace->setDevice(device);
    for (const auto& l : j.at("lanes")) {
      const auto kind = enumFromString<LaneKind, 8>(l.at("kind").get<std::string>());
      if (!kind) r.fail("lane " + l.dump() + " has an unknown kind");
      const auto id = trace->lane(*kind, l.at("index").get<int>(), l.at("name").get<std::string>());
      if (id != l.at("id").get<int>()) r.fail("lane ids are not 0, 1, 2, ... in order");
    }
    const auto names = j.at("names").get<std::vector<std::string>>();
    for (std::size_t i = 1; i < names.size(); ++i)
      if (trace->internName(names[i]) != i) r.fail("op names repeat");
    const std::vector<std::string> expected = {"kind", "batch", "stream",     "lane",  "engine_lane",
                                               "name", "flags", "submit",     "ready", "start",
                                               "end",  "bytes", "correlation"};
    if (j.at("op_fields").get<std::vector<std::string>>() != expected) r.fail("unexpected op_fields");
    const std::size_t laneCount = trace->laneCount();
    std::size_t index = 0;
    for (const auto& row : j.at("ops")) {
      if (!row.is_array() || row.size() != expected.size()) r.fail("op " + std::to_string(index) + " is malformed");
      const auto kind = enumFromString<OpKind, kOpKindCount>(row[0].get<std::string>());
      if (!kind) r.fail("op " + std::to_string(index) + " has an unknown kind");
      Op op;
      op.kind = *kind;
      op.batch = row[1].get<std::int32_t>();
      op.stream = row[2].get<std::int16_t>();
      const int lane = row[3].get<int>(), engine = row[4].get<int>();
      if (lane >= int(laneCount) || engine >= int(laneCount))
        r.fail("op " + std::to_string(index) + " names a lane that does not exist");
      op.lane = lane < 0 ? kNoLane : std::uint16_t(lane);
      op.engineLane = engine < 0 ? kNoLane : std::uint16_t(engine);
      op.name = row[5].get<std::uint16_t>();
      if (op.name >= names.size()) r.fail("op " + std::to_string(index) + " names an unknown op name");
      op.flags = row[6].get<std::uint8_t>();
      op.submit = row[7].get<std::int64_t>();
      op.ready = row[8].get<std::int64_t>();
      op.start = row[9].get<std::int64_t>();
      op.end = row[10].get<std::int64_t>();
      op.bytes = row[11].get<std::uint64_t>();
      op.correlation = row[12].get<std::uint32_t>();
      trace->ops().append(op);
      ++index;
    }
    trace->ops().publish();
    trace->setCompletedBatches(j.at("completed_batches").get<std::int64_t>());
    const auto& outcome = j.at("outcome");
    const auto state = enumFromString<RunState, 5>(outcome.at("state").get<std::string>());
    trace->setOutcome({state.value_or(RunState::Finished), outcome.value("message", "")});
  } catch (const std::runtime_error&) {
    throw;
  } catch (const std::exception& e) {
    r.fail(std::string("a field is missing or has the wrong type: ") + e.what());
  }
  return trace;
}

}  // namespace pipescope::cli
