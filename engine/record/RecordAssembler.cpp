#include "record/RecordAssembler.h"

#include <limits>
#include <stdexcept>

namespace pipescope::record {

namespace {

/// A process's stream broke a rule: its recording stops, what came before stays.
struct Refused {
  std::string what;
};

// A recorded time more than a minute before the recording began, or decades after
// it, is not on this machine's monotonic clock.
constexpr std::int64_t kEarlySlackNs = 60'000'000'000;
constexpr std::int64_t kMaxSpanNs = 1'000'000'000'000'000'000;  // ~31 years

std::string kindName(std::uint8_t k) { return std::string(toString(OpKind(k))); }

}  // namespace

std::string RecordedProcess::label() const {
  if (pid == 0) return "process " + std::to_string(index + 1);
  return "pid " + std::to_string(pid) + (name.empty() ? "" : " (" + name + ")");
}

std::string RecordedProcess::lanePrefix() const {
  return index == 0 ? std::string() : "P" + std::to_string(index + 1) + " · ";
}

RecordAssembler::RecordAssembler(std::shared_ptr<Trace> trace, std::int64_t originNs)
    : trace_(trace), assembler_("recording", std::move(trace)), origin_(std::max<std::int64_t>(0, originNs)) {}

std::size_t RecordAssembler::addProcess() {
  RecordedProcess p;
  p.index = processes_.size();
  processes_.push_back(std::move(p));
  connections_.push_back(std::make_unique<Connection>());
  return processes_.size() - 1;
}

void RecordAssembler::refuse(std::size_t p, const std::string& what) const {
  (void)p;
  throw Refused{what};
}

bool RecordAssembler::feed(std::size_t p, std::string_view bytes, std::int64_t arrivalNs) {
  RecordedProcess& proc = processes_.at(p);
  Connection& c = *connections_.at(p);
  if (!proc.problem.empty() || !proc.connected) return false;
  arrivalNs_ = arrivalNs;
  c.decoder.feed(bytes);
  wire::Message m;
  try {
    while (true) {
      const auto status = c.decoder.next(m);
      if (status == wire::Decoder::Status::NeedMore) return true;
      if (status == wire::Decoder::Status::Failed) refuse(p, c.decoder.error());
      apply(p, m);
    }
  } catch (const Refused& r) {
    proc.problem = r.what;
  } catch (const TraceFileError& e) {
    proc.problem = e.what();
  }
  return false;
}

void RecordAssembler::close(std::size_t p, const std::string& cutBecause) {
  RecordedProcess& proc = processes_.at(p);
  if (!proc.connected) return;
  proc.connected = false;
  if (!proc.problem.empty() || proc.endedCleanly) return;
  proc.problem = cutBecause.empty() ? connections_.at(p)->decoder.endOfStream() : cutBecause;
}

void RecordAssembler::apply(std::size_t p, wire::Message& m) {
  RecordedProcess& proc = processes_[p];
  Connection& c = *connections_[p];
  if (auto* h = std::get_if<wire::Hello>(&m)) {
    proc.pid = h->pid;
    proc.parentPid = h->parentPid;
    proc.name = h->processName;
    proc.commandLine = h->commandLine;
    proc.timing = h->timing;
  } else if (auto* d = std::get_if<wire::Device>(&m)) {
    applyDevice(p, *d);
  } else if (auto* l = std::get_if<wire::Lane>(&m)) {
    applyLane(p, *l);
  } else if (auto* n = std::get_if<wire::Name>(&m)) {
    if (n->id != c.names.size() + 1)
      refuse(p, "name " + std::to_string(n->id) + " declared where name " + std::to_string(c.names.size() + 1) +
                    " was due (names are numbered 1, 2, 3, ... in order)");
    if (n->text.empty()) refuse(p, "name " + std::to_string(n->id) + " is empty");
    // A full table gives 0 (the kind's own name): the op is kept, only its name is lost.
    c.names.push_back(assembler_.internName(n->text));
  } else if (auto* o = std::get_if<wire::Ops>(&m)) {
    applyOps(p, *o);
  } else if (auto* note = std::get_if<wire::Note>(&m)) {
    if (proc.notes.size() < 100) proc.notes.push_back(std::move(*note));
  } else if (auto* e = std::get_if<wire::End>(&m)) {
    proc.endedCleanly = true;
    proc.endReason = e->reason;
    proc.recordsDropped = e->recordsDropped;
  }
}

void RecordAssembler::applyDevice(std::size_t p, const wire::Device& d) {
  RecordedProcess& proc = processes_[p];
  for (const auto& known : proc.devices)
    if (known.id == d.id) return;
  proc.devices.push_back(d);
  if (deviceKnown_) return;
  // The trace describes the first GPU the recording saw (as a run describes its device).
  deviceKnown_ = true;
  DeviceInfo info = trace_->device();
  info.name = d.name;
  info.computeMajor = d.computeMajor;
  info.computeMinor = d.computeMinor;
  info.memoryBytes = d.memoryBytes;
  info.copyEngines = d.copyEngines;
  trace_->setDevice(info);
}

std::int16_t RecordAssembler::traceStream(Connection& c, std::int32_t wireStream) {
  if (wireStream < 0) return kNoStream;
  auto it = c.streams.find(wireStream);
  if (it != c.streams.end()) return it->second;
  // A process keeps its own stream numbers where no other process has them.
  std::int32_t n = std::min<std::int32_t>(wireStream, std::numeric_limits<std::int16_t>::max());
  while (usedStreams_.count(std::int16_t(n)) && n < std::numeric_limits<std::int16_t>::max()) ++n;
  if (usedStreams_.count(std::int16_t(n))) {
    n = 0;
    while (usedStreams_.count(std::int16_t(n))) ++n;  // at most 32768 streams exist
  }
  usedStreams_.insert(std::int16_t(n));
  c.streams.emplace(wireStream, std::int16_t(n));
  return std::int16_t(n);
}

void RecordAssembler::applyLane(std::size_t p, const wire::Lane& l) {
  RecordedProcess& proc = processes_[p];
  Connection& c = *connections_[p];
  if (l.id != c.lanes.size())
    refuse(p, "lane " + std::to_string(l.id) + " declared where lane " + std::to_string(c.lanes.size()) +
                  " was due (lanes are numbered 0, 1, 2, ... in order)");
  const auto kind = LaneKind(l.kind);
  int index = l.index;
  if (kind == LaneKind::Stream) {
    index = traceStream(c, l.index);
  } else {
    // Lanes of one kind need distinct indices across processes.
    std::set<int>& used = usedLaneIndices_[l.kind];
    while (used.count(index) && index < std::numeric_limits<int>::max()) ++index;
  }
  usedLaneIndices_[l.kind].insert(index);
  // Until lanes carry their device and process, the process index is in the name, and
  // each process keeps its own engine lanes (its own view of the device's engines).
  const std::uint16_t id = assembler_.addLane(kind, index, proc.lanePrefix() + l.name);
  c.lanes.push_back(id);
}

std::int64_t RecordAssembler::rebase(std::size_t p, std::uint64_t opIndex, const char* field, std::int64_t t) const {
  if (t < origin_ - kEarlySlackNs || t - origin_ > kMaxSpanNs)
    refuse(p, "op " + std::to_string(opIndex) + ": its " + field + " time " + std::to_string(t) +
                  " ns is not on this machine's monotonic clock (the recording began at " + std::to_string(origin_) +
                  " ns)");
  return t - origin_;
}

void RecordAssembler::applyOps(std::size_t p, const wire::Ops& ops) {
  RecordedProcess& proc = processes_[p];
  Connection& c = *connections_[p];
  auto lane = [&](std::uint64_t i, std::uint32_t w, const char* what) -> std::uint16_t {
    if (w == wire::kWireNone) return kNoLane;
    if (w >= c.lanes.size())
      refuse(p, "op " + std::to_string(i) + ": " + what + " " + std::to_string(w) + " was never declared (the process " +
                    "declared " + std::to_string(c.lanes.size()) + " lanes)");
    return c.lanes[w];
  };
  for (const wire::Op& w : ops.ops) {
    const std::uint64_t i = proc.ops;
    if (w.kind >= kOpKindCount)
      refuse(p, "op " + std::to_string(i) + ": unknown op kind " + std::to_string(w.kind) + " (kinds are 0 to " +
                    std::to_string(kOpKindCount - 1) + ")");
    if (w.end < w.start)
      refuse(p, "op " + std::to_string(i) + " (" + kindName(w.kind) + ") ends before it starts (start " +
                    std::to_string(w.start) + " ns, end " + std::to_string(w.end) + " ns)");
    Op op;
    op.submit = rebase(p, i, "submit", w.submit);
    op.ready = rebase(p, i, "ready", w.ready);
    op.start = rebase(p, i, "start", w.start);
    op.end = rebase(p, i, "end", w.end);
    op.bytes = w.bytes;
    op.batch = w.batch;
    op.correlation = w.correlation;
    op.lane = lane(i, w.lane, "lane");
    op.engineLane = lane(i, w.engineLane, "engine lane");
    if (w.name != 0) {
      if (w.name > c.names.size())
        refuse(p, "op " + std::to_string(i) + ": name " + std::to_string(w.name) + " was never declared (the process " +
                      "declared " + std::to_string(c.names.size()) + " names)");
      op.name = c.names[w.name - 1];
    }
    op.stream = traceStream(c, w.stream);
    op.kind = OpKind(w.kind);
    op.flags = w.flags;
    // The assembler's checks are the ones every imported file passes.
    assembler_.addOp(op, OpOrigin{"op", opsAppended_});
    ++opsAppended_;
    ++proc.ops;
    if (op.kind == OpKind::Kernel) ++proc.kernels;
    if (isCopyKind(op.kind)) ++proc.copies;
    if (arrivalNs_ >= 0 && isGpuKind(op.kind)) arrival_.add(w.end, arrivalNs_);
  }
}

}  // namespace pipescope::record
