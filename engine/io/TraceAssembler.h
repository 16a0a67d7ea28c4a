#pragma once
// The one place where every trace reader — native .pipescope, pipescope trace JSON,
// Chrome / Perfetto / PyTorch-profiler JSON and pipescope's own Chrome export — puts
// lanes, names and ops into a Trace, and so the one place that checks them:
//   - a file's lane and name tables (numbering, duplicates, limits), and the lanes and
//     names an importer finds while reading (limits);
//   - every op's references into them (lane, engine lane, name), its kind and its times.
// A reader only parses its format; what a valid trace is, and the message that says
// what is wrong with an invalid one ("'FILE': [byte B: ]op N: lane 7 does not exist
// (the trace has 3 lanes, 0 to 2) ..."), is decided here, the same for every format.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "io/TraceFileError.h"
#include "io/TraceMetadataJson.h"
#include "trace/Trace.h"

namespace pipescope {

inline constexpr std::size_t kMaxTraceLanes = kNoLane - 1;  ///< 65534: lane ids 0..65533, 0xFFFF is "no lane"
inline constexpr std::size_t kMaxTraceNames = 0xFFFF;       ///< entries of the name table, entry 0 included

/// The lane and name tables a file declares (native header, pipescope trace JSON,
/// Chrome export's otherData). names[0] is always "": an op with name 0 shows its kind.
struct TraceTables {
  std::vector<Lane> lanes;
  std::vector<std::string> names{std::string()};
};

/// Reads the "lanes" and "names" arrays of `object`, called `where` in messages
/// ("header", "file", "otherData.pipescope"). Throws std::invalid_argument naming the
/// field; the tables' consistency is checked when they are declared.
TraceTables tablesFromJson(const nlohmann::json& object, const std::string& where);
/// A name table alone (`list` must be an array of strings; `field` names it in messages).
std::vector<std::string> namesFromJson(const nlohmann::json& list, const std::string& field);

/// Where in its file an op was read: "op 12", "event 3401", and the byte when known.
struct OpOrigin {
  static constexpr std::uint64_t kUnknownByte = ~std::uint64_t(0);
  std::string_view unit = "op";
  std::uint64_t index = 0;
  std::uint64_t byte = kUnknownByte;
};

/// The checks every op of every file passes: its lane and engine lane exist (or are
/// kNoLane), its name exists, its kind is known and it does not end before it starts.
/// A view of the file name, not a copy: remaking the check as an importer's tables
/// grow allocates nothing (the file name must outlive the check).
class OpCheck {
 public:
  OpCheck(std::string_view source, std::size_t laneCount, std::size_t nameCount)
      : source_(source), lanes_(laneCount), names_(nameCount) {}
  bool valid(const Op& op) const {
    return (op.lane == kNoLane || op.lane < lanes_) && (op.engineLane == kNoLane || op.engineLane < lanes_) &&
           op.name < names_ && std::uint8_t(op.kind) < kOpKindCount && op.end >= op.start;
  }
  /// Throws TraceFileError for an invalid op.
  void operator()(const Op& op, const OpOrigin& at) const {
    if (!valid(op)) fail(op, at);
  }
  /// The message for the first check `op` fails (cold: built only for an error).
  [[noreturn]] void fail(const Op& op, const OpOrigin& at) const;
  std::size_t laneCount() const { return lanes_; }
  std::size_t nameCount() const { return names_; }

 private:
  std::string_view source_;
  std::size_t lanes_;
  std::size_t names_;
};

/// Builds one Trace from what a reader parsed. Throws TraceFileError naming the file.
class TraceAssembler {
 public:
  /// `source` stands for the file in messages; `trace` (a fresh one by default) must
  /// have no lanes or names yet.
  explicit TraceAssembler(std::string source, std::shared_ptr<Trace> trace = std::make_shared<Trace>());
  TraceAssembler(const TraceAssembler&) = delete;  // its OpCheck views source_
  TraceAssembler& operator=(const TraceAssembler&) = delete;

  const std::string& source() const { return source_; }
  Trace& trace() { return *trace_; }
  /// Throws TraceFileError("'SOURCE': what").
  [[noreturn]] void fail(const std::string& what) const;

  /// A file's own tables: lanes numbered 0..n-1 in order, each kind, index and device once, at
  /// most kMaxTraceLanes; names[0] empty, the others non-empty and distinct, at most
  /// kMaxTraceNames. Declared again (the chunks of a streamed native file), the new
  /// tables must extend the ones before: same entries first, more after.
  void declareTables(const TraceTables& tables);

  /// Fails when `more` lanes would not fit. An importer that knows how many lanes it
  /// will add asks first, so a file with too many threads fails before they are made.
  void reserveLanes(std::size_t more) const;
  /// A lane an importer found (a thread, a stream, an engine); the same kind and index
  /// give the same lane. Fails beyond kMaxTraceLanes.
  std::uint16_t addLane(LaneKind kind, int index, const std::string& name);
  /// The same on GPU `device` (an index into the trace's devices; kSharedLane for none).
  std::uint16_t addLane(LaneKind kind, int index, int device, const std::string& name);
  /// A name an importer found: 0 (the kind's own name) for "" and for the kind's name,
  /// and once the table is full (a trace keeps its ops when it has too many names).
  std::uint16_t internName(const std::string& name, OpKind kind);
  /// A name of a table without kinds (a recording's declarations): 0 for "" and once
  /// the table is full.
  std::uint16_t internName(const std::string& name);

  /// The op checks against the lanes and names so far.
  OpCheck opCheck() const { return OpCheck(source_, laneCount_, nameCount_); }
  /// Checks `op` (OpCheck) and appends it.
  void addOp(const Op& op, const OpOrigin& at) {
    if (!check_.valid(op)) check_.fail(op, at);
    trace_->ops().append(op);
  }
  /// addOp for each op, numbered first.index, first.index + 1, ...
  void addOps(const std::vector<Op>& ops, OpOrigin first);
  /// Ops that `check` already passed, appended before the tables `check` was made from
  /// are declared: a native chunk's ops are checked while decoded (so an error names
  /// the byte) and go in before the chunk's tables, which keeps the many small table
  /// allocations after the op storage (the other order left freed op storage unused:
  /// twice the peak memory on a second 1M-op load in one process). finish() fails
  /// unless tables at least that large were declared by then.
  void addCheckedOps(const std::vector<Op>& ops, const OpCheck& check);
  /// Publishes the ops and hands the trace over.
  std::shared_ptr<Trace> finish();

 private:
  void tablesChanged() { check_ = opCheck(); }

  std::string source_;
  std::shared_ptr<Trace> trace_;
  std::size_t laneCount_ = 0;  // cached: Trace's own counts take its mutex
  std::size_t nameCount_ = 1;
  std::size_t checkedLanes_ = 0;  // the largest tables addCheckedOps relied on
  std::size_t checkedNames_ = 0;
  OpCheck check_;
};

}  // namespace pipescope
