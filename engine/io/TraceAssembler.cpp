#include "io/TraceAssembler.h"

#include <algorithm>
#include <stdexcept>

#include "io/TraceMetadataJson.h"

namespace pipescope {

using nlohmann::json;

namespace {

std::string tooManyLanes(std::size_t n) {
  return std::to_string(n) + " lanes; a trace holds at most " + std::to_string(kMaxTraceLanes) +
         " (threads, streams, engines and nesting levels together)";
}

/// "the trace has 3 lanes, 0 to 2": what a wrong reference could have pointed at.
std::string tableSize(std::size_t n, const char* what) {
  if (n == 0) return std::string("the trace has no ") + what + "s";
  if (n == 1) return std::string("the trace has 1 ") + what + ", 0";
  return "the trace has " + std::to_string(n) + " " + what + "s, 0 to " + std::to_string(n - 1);
}

std::vector<Lane> lanesFromJson(const json& list, const std::string& field) {
  if (!list.is_array()) throw std::invalid_argument("'" + field + "': expected an array of lanes");
  if (list.size() > kMaxTraceLanes) throw std::invalid_argument("'" + field + "': " + tooManyLanes(list.size()));
  std::vector<Lane> lanes;
  lanes.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) lanes.push_back(laneFromJson(list[i], i));
  return lanes;
}

}  // namespace

std::vector<std::string> namesFromJson(const json& list, const std::string& field) {
  if (!list.is_array()) throw std::invalid_argument("'" + field + "': expected an array of strings");
  std::vector<std::string> names;
  names.reserve(list.size());
  for (const auto& n : list) {
    if (!n.is_string()) throw std::invalid_argument("'" + field + "': expected an array of strings");
    names.push_back(n.get<std::string>());
  }
  return names;
}

TraceTables tablesFromJson(const json& object, const std::string& where) {
  TraceTables t;
  t.lanes = lanesFromJson(requireField(object, "lanes", where), "lanes");
  t.names = namesFromJson(requireField(object, "names", where), "names");
  return t;
}

void OpCheck::fail(const Op& op, const OpOrigin& at) const {
  std::string where = "'" + std::string(source_) + "': ";
  if (at.byte != OpOrigin::kUnknownByte) where += "byte " + std::to_string(at.byte) + ": ";
  where += std::string(at.unit) + " " + std::to_string(at.index) + ": ";
  std::string what;
  if (op.lane != kNoLane && op.lane >= lanes_)
    what = "lane " + std::to_string(op.lane) + " does not exist (" + tableSize(lanes_, "lane") + ")";
  else if (op.engineLane != kNoLane && op.engineLane >= lanes_)
    what = "engine lane " + std::to_string(op.engineLane) + " does not exist (" + tableSize(lanes_, "lane") + ")";
  else if (op.name >= names_)
    what = "name " + std::to_string(op.name) + " does not exist (" + tableSize(names_, "name") + ")";
  else if (std::uint8_t(op.kind) >= kOpKindCount)
    what = "unknown op kind " + std::to_string(int(op.kind)) + " (kinds are 0 to " + std::to_string(kOpKindCount - 1) +
           ")";
  else if (op.end < op.start)
    what = "ends before it starts (negative duration: start " + std::to_string(op.start) + " ns, end " +
           std::to_string(op.end) + " ns)";
  else
    throw std::logic_error("OpCheck::fail called for a valid op");
  throw TraceFileError(where + what + "; the file is damaged: write or export it again");
}

TraceAssembler::TraceAssembler(std::string source, std::shared_ptr<Trace> trace)
    : source_(std::move(source)),
      trace_(std::move(trace)),
      laneCount_(trace_->laneCount()),
      nameCount_(trace_->names().size()),
      check_(opCheck()) {}

void TraceAssembler::fail(const std::string& what) const { throw TraceFileError("'" + source_ + "': " + what); }

void TraceAssembler::declareTables(const TraceTables& tables) {
  const std::vector<Lane> lanesBefore = trace_->lanes();
  const std::vector<std::string> namesBefore = trace_->names();
  if (tables.lanes.size() > kMaxTraceLanes) fail(tooManyLanes(tables.lanes.size()));
  if (tables.names.empty() || !tables.names[0].empty())
    fail("name 0 must be the empty string (it stands for the op kind's name)");
  if (tables.lanes.size() < lanesBefore.size() || tables.names.size() < namesBefore.size())
    fail("the lane and name tables have fewer entries than the ones before them (" +
         std::to_string(tables.lanes.size()) + " lanes and " + std::to_string(tables.names.size()) + " names after " +
         std::to_string(lanesBefore.size()) + " and " + std::to_string(namesBefore.size()) +
         "); the file is damaged");
  for (std::size_t i = 0; i < tables.lanes.size(); ++i) {
    const Lane& l = tables.lanes[i];
    const std::string lane = "lane " + std::to_string(i);
    if (l.id != i)
      fail(lane + ": numbered " + std::to_string(l.id) + "; lanes are numbered 0 to n-1 in order, so lane " +
           std::to_string(i) + " is missing or out of place");
    if (i < lanesBefore.size()) {
      const Lane& b = lanesBefore[i];
      if (b.kind != l.kind || b.index != l.index || b.device != l.device || b.name != l.name)
        fail(lane + ": differs from the lane " + std::to_string(i) + " declared before it; the file is damaged");
      continue;
    }
    if (l.device < kSharedLane || l.device >= kMaxTraceDevices)
      fail(lane + ": device " + std::to_string(l.device) + "; lanes name a GPU 0 to " +
           std::to_string(kMaxTraceDevices - 1) + ", or -1 when shared by all");
    const std::uint16_t id = trace_->lane(l.kind, l.index, l.device, l.name);
    if (id != i)
      fail(lane + ": same kind, index and device as lane " + std::to_string(id) + " (each lane must be unique)");
  }
  const auto& names = tables.names;
  if (names.size() > kMaxTraceNames)
    fail(std::to_string(names.size()) + " names; a trace holds at most " + std::to_string(kMaxTraceNames));
  for (std::size_t i = 1; i < names.size(); ++i) {
    const std::string name = "name " + std::to_string(i);
    if (i < namesBefore.size()) {
      if (namesBefore[i] != names[i])
        fail(name + ": differs from the name " + std::to_string(i) + " declared before it; the file is damaged");
      continue;
    }
    if (names[i].empty()) fail(name + " is empty (only name 0 may be)");
    const std::uint16_t id = trace_->internName(names[i]);
    if (id != i) fail(name + " duplicates name " + std::to_string(id) + " (each name must appear once)");
  }
  laneCount_ = tables.lanes.size();
  nameCount_ = names.size();
  tablesChanged();
}

void TraceAssembler::reserveLanes(std::size_t more) const {
  if (more > kMaxTraceLanes - std::min(laneCount_, kMaxTraceLanes)) fail(tooManyLanes(laneCount_ + more));
}

std::uint16_t TraceAssembler::addLane(LaneKind kind, int index, const std::string& name) {
  return addLane(kind, index, defaultLaneDevice(kind), name);
}

std::uint16_t TraceAssembler::addLane(LaneKind kind, int index, int device, const std::string& name) {
  reserveLanes(1);
  const std::uint16_t id = trace_->lane(kind, index, device, name);
  if (id >= laneCount_) {
    laneCount_ = std::size_t(id) + 1;
    tablesChanged();
  }
  return id;
}

std::uint16_t TraceAssembler::internName(const std::string& name, OpKind kind) {
  if (name == toString(kind)) return 0;
  return internName(name);
}

std::uint16_t TraceAssembler::internName(const std::string& name) {
  if (name.empty()) return 0;
  const std::uint16_t id = trace_->internName(name);
  if (id >= nameCount_) {
    nameCount_ = std::size_t(id) + 1;
    tablesChanged();
  }
  return id;
}

void TraceAssembler::addOps(const std::vector<Op>& ops, OpOrigin first) {
  const std::uint64_t base = first.index;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!check_.valid(ops[i])) {
      first.index = base + i;
      check_.fail(ops[i], first);
    }
    trace_->ops().append(ops[i]);
  }
}

void TraceAssembler::addCheckedOps(const std::vector<Op>& ops, const OpCheck& check) {
  checkedLanes_ = std::max(checkedLanes_, check.laneCount());
  checkedNames_ = std::max(checkedNames_, check.nameCount());
  for (const Op& op : ops) trace_->ops().append(op);
}

std::shared_ptr<Trace> TraceAssembler::finish() {
  if (checkedLanes_ > laneCount_ || checkedNames_ > nameCount_)
    throw std::logic_error("TraceAssembler: ops were checked against tables that were never declared");
  const std::size_t devices = trace_->deviceCount();
  for (const Lane& l : trace_->lanes())
    if (l.device >= 0 && std::size_t(l.device) >= devices)
      fail("lane " + std::to_string(l.id) + " (\"" + l.name + "\") belongs to device " + std::to_string(l.device) +
           " but the trace describes " + std::to_string(devices) + " device" + (devices == 1 ? "" : "s") +
           " (0 to " + std::to_string(devices - 1) + "); the file is damaged");
  trace_->ops().publish();
  return trace_;
}

}  // namespace pipescope
