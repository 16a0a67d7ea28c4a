#pragma once
// A recorded process without CUPTI: activity records made by hand go through the
// translator (what the injection library runs) and the wire into a Trace, as they
// would from a real program.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "record/ActivityTranslator.h"
#include "record/RecordAssembler.h"
#include "record/WireEncoder.h"

namespace pipescope::testing {

inline constexpr std::int64_t kRecordOrigin = 1'000'000'000;  // the recording's zero on the monotonic clock
inline constexpr std::int64_t kProcessPid = 4000;

/// Records in, rounds ended, a trace out.
class FakeRecordedProcess {
 public:
  explicit FakeRecordedProcess(record::ActivityTranslator::Options options = {kProcessPid, "python3"})
      : options_(withPid(options)), translator_(options_) {
    wire::Hello h;
    h.pid = options_.pid;
    h.processName = options_.processName;
    h.timing = "test";
    wire_.add(h);
  }
  record::ActivityTranslator& translator() { return translator_; }
  void endRound() { translator_.endRound(wire_); }
  void finish(const std::string& reason = "exit") {
    translator_.finish(wire_);
    wire_.add(wire::End{translator_.opsSent(), 0, reason});
  }
  /// Everything sent so far (taken: the next call returns what came after).
  std::string takeBytes() { return wire_.take(); }

  /// The bytes of this process fed into a fresh recording.
  std::shared_ptr<Trace> toTrace(std::string* problem = nullptr) {
    auto trace = std::make_shared<Trace>();
    record::RecordAssembler a(trace, kRecordOrigin);
    const auto p = a.addProcess();
    a.feed(p, takeBytes());
    a.close(p);
    a.publish();
    if (problem) *problem = a.processes()[p].problem;
    return trace;
  }

 private:
  static record::ActivityTranslator::Options withPid(record::ActivityTranslator::Options o) {
    if (o.pid == 0) o.pid = kProcessPid;
    return o;
  }
  record::ActivityTranslator::Options options_;
  record::ActivityTranslator translator_;
  wire::Encoder wire_;
};

/// Times in the tests: microseconds after the recording's zero.
inline std::int64_t at(double us) { return kRecordOrigin + std::int64_t(us * 1000); }

inline record::ApiRecord apiCall(const std::string& name, double startUs, double endUs, std::uint32_t corr,
                                 std::uint32_t thread = 1, bool driver = false) {
  record::ApiRecord r;
  r.driver = driver;
  r.name = name;
  r.start = at(startUs);
  r.end = at(endUs);
  r.threadId = thread;
  r.correlation = corr;
  return r;
}

inline record::GpuRecord kernel(const std::string& name, double startUs, double endUs, std::uint32_t corr,
                                std::uint32_t stream = 7, std::uint32_t device = 0) {
  record::GpuRecord r;
  r.kind = record::GpuRecord::Kind::Kernel;
  r.name = name;
  r.start = at(startUs);
  r.end = at(endUs);
  r.correlation = corr;
  r.stream = stream;
  r.device = device;
  r.context = 1;
  return r;
}

inline record::GpuRecord copy(record::GpuRecord::Direction dir, record::GpuRecord::HostMemory memory, bool async,
                              double startUs, double endUs, std::uint32_t corr, std::uint32_t stream = 7) {
  record::GpuRecord r;
  r.kind = record::GpuRecord::Kind::Copy;
  r.direction = dir;
  r.hostMemory = memory;
  r.async = async;
  r.start = at(startUs);
  r.end = at(endUs);
  r.correlation = corr;
  r.stream = stream;
  r.context = 1;
  r.bytes = 1 << 20;
  return r;
}

/// The published ops of `trace`, in publication order.
inline std::vector<Op> opsOf(const Trace& trace) {
  std::vector<Op> ops;
  trace.ops().snapshot().forEach([&](const Op& op) { ops.push_back(op); });
  return ops;
}

/// The first op named `name` (or of `kind` when name is empty); fails the test when none.
inline Op findOp(const Trace& trace, OpKind kind, const std::string& name = {}) {
  for (const Op& op : opsOf(trace))
    if (op.kind == kind && (name.empty() || trace.opName(op) == name)) return op;
  ADD_FAILURE() << "no " << toString(kind) << " op named '" << name << "'";
  return {};
}

inline std::string laneName(const Trace& trace, std::uint16_t lane) {
  if (lane == kNoLane) return "(none)";
  return trace.lanes().at(lane).name;
}

}  // namespace pipescope::testing
