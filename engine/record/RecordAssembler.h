#pragma once
// The receiving side of a recording: the wire streams of the recorded processes (one
// per process that used CUDA) go into one live Trace through TraceAssembler, so
// every check of an imported file applies, and ops become visible with the same
// publication the engine thread uses (TraceStore::publish, once per batch of data).
//
// Each process is its own group of lanes: its lane and name declarations are mapped
// onto the trace's tables (lane names of the second and later processes start with
// "P2 · ", "P3 · ", ...), its stream numbers onto trace stream numbers that stay
// unique, and its times (CLOCK_MONOTONIC) onto the trace's time base (zero when the
// recording started). A damaged stream stops that process's recording with a message
// naming the process, the byte and what is wrong; everything it sent before stays.
//
// One thread feeds it (the recorder's reader); readers of the Trace see ops only after
// publish().
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "io/TraceAssembler.h"
#include "record/ArrivalLatency.h"
#include "record/WireDecoder.h"
#include "trace/Trace.h"

namespace pipescope::record {

/// What the recording knows about one recorded process.
struct RecordedProcess {
  std::size_t index = 0;      ///< 0 for the first process that connected
  std::int64_t pid = 0;       ///< 0 until its hello arrived
  std::int64_t parentPid = 0;
  std::string name;           ///< process name ("python3")
  std::string commandLine;
  std::string timing;         ///< how its times reached the monotonic clock
  std::vector<wire::Device> devices;
  std::uint64_t ops = 0, kernels = 0, copies = 0;
  std::uint64_t recordsDropped = 0;  ///< CUPTI's count, from its end message
  std::vector<wire::Note> notes;     ///< what the injection said (CUPTI unavailable, records dropped, ...)
  bool connected = true;      ///< its stream is still open
  bool endedCleanly = false;  ///< its end-of-stream message arrived
  std::string endReason;      ///< from the end message ("exit", "the recorder stopped reading")
  std::string problem;        ///< why its stream ended early or was refused (empty: none)

  /// "pid 1234 (python3)", or "process 2" before its hello.
  std::string label() const;
  /// "" for the first process, "P2 · " for the second, ...
  std::string lanePrefix() const;
};

class RecordAssembler {
 public:
  /// `originNs`: the CLOCK_MONOTONIC time that is the trace's zero.
  RecordAssembler(std::shared_ptr<Trace> trace, std::int64_t originNs);

  /// A process connected: its index for feed() and close().
  std::size_t addProcess();
  /// Bytes from process `p`: every complete message is applied. Returns false once the
  /// process's stream is damaged or refused (RecordedProcess::problem says why): the
  /// caller stops reading it. `arrivalNs` (CLOCK_MONOTONIC, >= 0): when the bytes were
  /// read; each GPU op completed by them adds its delay since its end to arrivalLatency().
  bool feed(std::size_t p, std::string_view bytes, std::int64_t arrivalNs = -1);
  /// Process `p`'s stream ended: it closed it, or (`cutBecause` says why) the recorder
  /// stopped reading it while it was still sending.
  void close(std::size_t p, const std::string& cutBecause = {});
  /// Makes every op appended so far visible to the trace's readers.
  void publish() { trace_->ops().publish(); }

  const std::vector<RecordedProcess>& processes() const { return processes_; }
  Trace& trace() { return *trace_; }
  std::uint64_t opsAppended() const { return opsAppended_; }
  /// GPU ops: from their end on the GPU to the arrival of their record (feed's arrivalNs).
  const ArrivalLatency& arrivalLatency() const { return arrival_; }

 private:
  struct Connection {
    wire::Decoder decoder;
    std::vector<std::uint16_t> lanes;  // wire lane id -> trace lane
    std::vector<std::uint16_t> names;  // wire name id - 1 -> trace name
    std::map<std::int32_t, std::int16_t> streams;  // wire stream number -> trace stream number
  };

  void apply(std::size_t p, wire::Message& m);
  void applyLane(std::size_t p, const wire::Lane& l);
  void applyOps(std::size_t p, const wire::Ops& ops);
  void applyDevice(std::size_t p, const wire::Device& d);
  std::int16_t traceStream(Connection& c, std::int32_t wireStream);
  std::int64_t rebase(std::size_t p, std::uint64_t opIndex, const char* field, std::int64_t t) const;
  [[noreturn]] void refuse(std::size_t p, const std::string& what) const;

  std::shared_ptr<Trace> trace_;
  TraceAssembler assembler_;
  std::int64_t origin_;
  std::vector<RecordedProcess> processes_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::set<std::int16_t> usedStreams_;
  std::map<std::uint8_t, std::set<int>> usedLaneIndices_;  // per lane kind
  bool deviceKnown_ = false;
  std::uint64_t opsAppended_ = 0;
  ArrivalLatency arrival_;
  std::int64_t arrivalNs_ = -1;  // of the bytes being fed
};

}  // namespace pipescope::record
