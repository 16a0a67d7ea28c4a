#include "io/TraceJsonWriter.h"

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "config/ConfigJson.h"
#include "io/OutputFile.h"
#include "io/TraceMetadataJson.h"

namespace pipescope {

void writeTraceJson(const Trace& trace, std::ostream& out) {
  using nlohmann::json;
  const TraceView ops = trace.ops().snapshot();
  json head;
  head["format"] = kTraceJsonFormat;
  head["version"] = kTraceJsonVersion;
  json history = json::array();
  for (const auto& change : trace.configHistory())
    history.push_back({{"first_batch", change.firstBatch}, {"config", configToJson(change.config)}});
  head["config_history"] = history;
  head["device"] = deviceToJson(trace.device());
  head["devices"] = devicesToJson(trace.devices());
  const RunOutcome outcome = trace.outcome();
  head["outcome"] = {{"state", toString(outcome.state)}, {"message", outcome.message}};
  head["completed_batches"] = trace.completedBatches();
  head["first_op_index"] = ops.begin();
  json lanes = json::array();
  for (const auto& l : trace.lanes())
    lanes.push_back(laneToJson(l));
  head["lanes"] = lanes;
  head["names"] = trace.names();
  head["op_fields"] = {"kind",   "batch", "stream", "lane", "engine_lane", "name",       "flags",
                       "submit", "ready", "start",  "end",  "bytes",       "correlation"};

  // The header is written by nlohmann; ops are streamed so a large trace never
  // exists twice in memory.
  std::string text = head.dump(1);
  text.erase(text.find_last_of('}'));  // reopen the object to append "ops"
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  out << text << ",\n \"ops\": [";
  bool first = true;
  ops.forEach([&](const Op& op) {
    out << (first ? "\n  [" : ",\n  [") << json(toString(op.kind)).dump() << ',' << op.batch << ',' << op.stream << ','
        << (op.lane == kNoLane ? -1 : int(op.lane)) << ',' << (op.engineLane == kNoLane ? -1 : int(op.engineLane))
        << ',' << op.name << ',' << int(op.flags) << ',' << op.submit << ',' << op.ready << ',' << op.start << ','
        << op.end << ',' << op.bytes << ',' << op.correlation << ']';
    first = false;
  });
  out << "\n ]\n}\n";
}

void saveTraceJson(const Trace& trace, const std::string& path) {
  writeOutputFile(path, [&](std::ostream& out) { writeTraceJson(trace, out); });
}

}  // namespace pipescope
