#include "io/TraceJsonReader.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "io/JsonValueBuilder.h"
#include "io/TraceAssembler.h"
#include "io/TraceJsonWriter.h"
#include "io/TraceMetadataJson.h"

namespace pipescope {

namespace {

using nlohmann::json;

// The op fields a file may declare in "op_fields", in the order version 1 writes them.
enum Column : int { Kind, Batch, Stream, Lane, EngineLane, Name, Flags, Submit, Ready, Start, End, Bytes, Correlation };
constexpr int kOpFields = 13;
constexpr const char* kColumnNames[kOpFields] = {"kind", "batch", "stream",     "lane",  "engine_lane",
                                                 "name", "flags", "submit",     "ready", "start",
                                                 "end",  "bytes", "correlation"};
// Without these an op cannot be placed on the timeline; the others have a meaning
// when absent (no batch, no stream, no engine lane, the kind's name, no flags, no
// bytes, no correlation; submitted and ready when it started: no wait recorded).
constexpr Column kRequiredColumns[] = {Kind, Lane, Start, End};

std::string knownColumns() {
  std::string s;
  for (const char* n : kColumnNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

// The columns "op_fields" declares, by position; throws std::invalid_argument naming
// the field that is wrong.
std::vector<Column> columnsFromJson(const json& declared) {
  if (!declared.is_array()) throw std::invalid_argument("'op_fields': expected an array of field names");
  std::vector<Column> columns;
  bool seen[kOpFields] = {};
  for (const json& n : declared) {
    if (!n.is_string()) throw std::invalid_argument("'op_fields': expected an array of field names, got " + n.dump());
    const std::string name = n.get<std::string>();
    int c = 0;
    while (c < kOpFields && name != kColumnNames[c]) ++c;
    if (c == kOpFields)
      throw std::invalid_argument("'op_fields': unknown op field \"" + name.substr(0, 64) + "\" (this build reads " +
                                  knownColumns() + ")");
    if (seen[c]) throw std::invalid_argument("'op_fields': names \"" + name + "\" twice");
    seen[c] = true;
    columns.push_back(Column(c));
  }
  for (Column c : kRequiredColumns)
    if (!seen[c])
      throw std::invalid_argument("'op_fields': lacks \"" + std::string(kColumnNames[c]) +
                                  "\", which every op needs (declare it and give each op a value for it)");
  return columns;
}

std::vector<Column> versionOneColumns() {
  std::vector<Column> columns;
  for (int c = 0; c < kOpFields; ++c) columns.push_back(Column(c));
  return columns;
}

class TraceJsonSax {
 public:
  explicit TraceJsonSax(JsonTextSource& src) : src_(src) {}

  bool null() { return value(json()); }
  bool boolean(bool v) { return value(json(v)); }
  bool number_integer(std::int64_t v) {
    if (inOp()) return opInt(v, true);
    return value(json(v));
  }
  bool number_unsigned(std::uint64_t v) {
    if (inOp()) {
      if (column() == Bytes) {  // bytes may exceed int64
        pending_.bytes = v;
        ++field_;
        return true;
      }
      if (v > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        failOp("value " + std::to_string(v) + " is too large");
      return opInt(std::int64_t(v), true);
    }
    return value(json(v));
  }
  bool number_float(double v, const std::string& text) {
    if (inOp()) failOp(fieldName() + ": expected an integer, got " + text);
    return value(json(v));
  }
  bool string(std::string& v) {
    if (inOp()) {
      if (column() != Kind) failOp(fieldName() + ": expected an integer, got a string");
      auto kind = parseOpKind(v);
      if (!kind) failOp("unknown op kind \"" + v.substr(0, 64) + "\"");
      pending_.kind = *kind;
      ++field_;
      return true;
    }
    return value(json(v));
  }
  bool binary(json::binary_t&) { return value(json()); }
  bool key(std::string& k) {
    src_.markToken();
    if (depth_ == 1) key_ = k;
    if (building_) builder_.key(k);
    return true;
  }
  bool start_object(std::size_t) { return start(true); }
  bool start_array(std::size_t) { return start(false); }
  bool end_object() { return end(); }
  bool end_array() { return end(); }
  bool parse_error(std::size_t position, const std::string&, const json::exception& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 9: <explanation>"
    const auto colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    const bool truncated = what.find("unexpected end of input") != std::string::npos ||
                           (what.find("missing closing quote") != std::string::npos && src_.exhausted());
    if (truncated)
      throw TraceFileError("'" + src_.name() + "': byte " + std::to_string(position) +
                           ": the JSON text ends early; the file is truncated");
    throw TraceFileError("'" + src_.name() + "': byte " + std::to_string(position) + ": invalid JSON: " + what);
  }

  json header;
  std::vector<Op> ops;
  /// "ops" came before "op_fields" (or without it) and was read in version 1's order.
  bool opsBeforeFields = false;
  /// The fields the ops were read as, by position (empty when there was no "ops").
  std::vector<Column> columns;

 private:
  [[noreturn]] void failAt(const std::string& what) const {
    throw TraceFileError("'" + src_.name() + "': byte " + std::to_string(src_.offset()) + ": " + what);
  }
  [[noreturn]] void failOp(const std::string& what) const {
    throw TraceFileError("'" + src_.name() + "': op " + std::to_string(ops.size()) + " (near byte " +
                         std::to_string(src_.offset()) + "): " + what);
  }
  bool inOp() const { return inOps_ && depth_ == 3; }
  // The field the next value of the op fills; fails once the op has them all.
  Column column() const {
    if (std::size_t(field_) >= columns_.size())
      failOp("more than " + std::to_string(columns_.size()) + " fields (\"op_fields\" declares " +
             std::to_string(columns_.size()) + ")");
    return columns_[std::size_t(field_)];
  }
  // "field 3 (lane)": where the value is and what it stands for.
  std::string fieldName() const {
    std::string s = "field " + std::to_string(field_);
    if (std::size_t(field_) < columns_.size())
      s += " (" + std::string(kColumnNames[columns_[std::size_t(field_)]]) + ")";
    return s;
  }

  bool opInt(std::int64_t v, bool) {
    Op& o = pending_;
    auto narrow = [&](std::int64_t lo, std::int64_t hi, const char* what) {
      if (v < lo || v > hi) failOp(std::string(what) + " " + std::to_string(v) + " is out of range");
    };
    switch (column()) {
      case Kind: failOp(fieldName() + ": expected the op kind as a string");
      case Batch: narrow(-1, std::numeric_limits<std::int32_t>::max(), "batch"), o.batch = std::int32_t(v); break;
      case Stream: narrow(-1, std::numeric_limits<std::int16_t>::max(), "stream"), o.stream = std::int16_t(v); break;
      case Lane: narrow(-1, kNoLane - 1, "lane"), o.lane = v < 0 ? kNoLane : std::uint16_t(v); break;
      case EngineLane: narrow(-1, kNoLane - 1, "engine lane"), o.engineLane = v < 0 ? kNoLane : std::uint16_t(v); break;
      case Name: narrow(0, 0xFFFF, "name"), o.name = std::uint16_t(v); break;
      case Flags: narrow(0, 255, "flags"), o.flags = std::uint8_t(v); break;
      case Submit: o.submit = v; break;
      case Ready: o.ready = v; break;
      case Start: o.start = v; break;
      case End: o.end = v; break;
      case Bytes: narrow(0, std::numeric_limits<std::int64_t>::max(), "bytes"), o.bytes = std::uint64_t(v); break;
      case Correlation:
        narrow(0, std::numeric_limits<std::uint32_t>::max(), "correlation"), o.correlation = std::uint32_t(v);
        break;
    }
    ++field_;
    return true;
  }

  bool value(json v) {
    src_.markToken();
    if (depth_ == 0) failAt("expected a JSON object (a pipescope-trace-json file)");
    if (inOps_) {
      if (depth_ == 2) failOp("expected an array of " + std::to_string(columns_.size()) + " fields");
      if (depth_ == 3) failOp(fieldName() + ": unexpected " + v.type_name());
      return true;
    }
    if (building_) {
      try {
        builder_.scalar(std::move(v));
      } catch (const std::length_error& e) {
        failAt(e.what());
      }
      if (!builder_.building()) finishBuilt();
      return true;
    }
    if (depth_ == 1) {
      if (key_ == "ops") failAt("\"ops\" must be an array");
      header[key_] = std::move(v);
    }
    return true;
  }

  bool start(bool object) {
    src_.markToken();
    if (depth_ >= kMaxJsonDepth) failAt("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    ++depth_;
    if (depth_ == 1) {
      if (!object) failAt("expected a JSON object (a pipescope-trace-json file), got an array");
      return true;
    }
    if (depth_ == 2 && key_ == "ops") {
      if (object) failAt("\"ops\" must be an array");
      inOps_ = true;
      // The ops are read by the names "op_fields" declares. A file that declares them
      // only after its ops is read in version 1's order and checked against the
      // declaration at the end (readTraceJson).
      if (const auto it = header.find("op_fields"); it != header.end()) {
        try {
          columns_ = columnsFromJson(*it);
        } catch (const std::invalid_argument& e) {
          failAt(e.what());
        }
      } else {
        columns_ = versionOneColumns();
        opsBeforeFields = true;
      }
      columns = columns_;
      hasSubmit_ = std::find(columns_.begin(), columns_.end(), Submit) != columns_.end();
      hasReady_ = std::find(columns_.begin(), columns_.end(), Ready) != columns_.end();
      return true;
    }
    if (inOps_) {
      if (depth_ == 3) {
        if (object) failOp("expected an array of " + std::to_string(columns_.size()) + " fields, got an object");
        if (ops.size() >= kMaxTraceOps) failOp("more than " + std::to_string(kMaxTraceOps) + " ops");
        pending_ = Op{};
        field_ = 0;
        return true;
      }
      failOp(fieldName() + ": unexpected nested value");
    }
    if (!building_) {
      building_ = true;
      builder_.reset();
    }
    try {
      builder_.startContainer(object);
    } catch (const std::length_error& e) {
      failAt(e.what());
    }
    return true;
  }

  bool end() {
    src_.markToken();
    if (inOps_ && depth_ == 3) {
      if (std::size_t(field_) != columns_.size())
        failOp("expected " + std::to_string(columns_.size()) + " fields (as \"op_fields\" declares), got " +
               std::to_string(field_));
      if (!hasSubmit_) pending_.submit = hasReady_ ? pending_.ready : pending_.start;
      if (!hasReady_) pending_.ready = pending_.start;
      ops.push_back(pending_);
    } else if (inOps_ && depth_ == 2) {
      inOps_ = false;
    } else if (building_ && builder_.endContainer()) {
      finishBuilt();
    }
    --depth_;
    return true;
  }

  void finishBuilt() {
    building_ = false;
    header[key_] = std::move(builder_.result());
  }

  JsonTextSource& src_;
  int depth_ = 0;
  std::string key_;
  bool inOps_ = false;
  bool building_ = false;
  JsonValueBuilder builder_;
  Op pending_;
  int field_ = 0;
  std::vector<Column> columns_;
  bool hasSubmit_ = true, hasReady_ = true;
};

}  // namespace

std::shared_ptr<Trace> readTraceJson(JsonTextSource& source) {
  TraceJsonSax sax(source);
  json::sax_parse(source.begin(), source.end(), &sax);
  const std::string& name = source.name();
  TraceAssembler out(name);
  TraceTables tables;
  try {
    const json& h = sax.header;
    if (requireString(h, "format", "file") != kTraceJsonFormat)
      throw std::invalid_argument("'format': expected \"" + std::string(kTraceJsonFormat) + "\"");
    const std::int64_t version = requireInt(h, "version", "file", 0, std::numeric_limits<int>::max());
    if (version > kTraceJsonVersion)
      throw TraceFileError("'" + name + "': written by a newer pipescope (pipescope-trace-json version " +
                           std::to_string(version) + "); this build reads version " +
                           std::to_string(kTraceJsonVersion) + ". Update pipescope to open it.");
    // "ops" is streamed by the parser, not stored in the header.
    if (!sax.columns.empty()) {
      // The ops were read as the declaration seen before them said (or, with none yet,
      // in version 1's order): right only if the file's last word agrees.
      const std::vector<Column> declared = columnsFromJson(requireField(h, "op_fields", "file"));
      if (declared != sax.columns)
        throw std::invalid_argument(sax.opsBeforeFields
                                        ? "'op_fields' comes after \"ops\" and declares another order (" +
                                              h["op_fields"].dump() +
                                              "); the ops cannot be read by name: write \"op_fields\" before \"ops\""
                                        : "'op_fields' is given twice, with different fields; the file is damaged");
    }
    tables = tablesFromJson(h, "file");
    applyRunInfo(out.trace(), configHistoryFromJson(requireField(h, "config_history", "file")),
                 devicesFromJson(h, "file", deviceFromJson(requireField(h, "device", "file"))), outcomeFromJson(requireField(h, "outcome", "file")),
                 requireInt(h, "completed_batches", "file", 0, std::numeric_limits<std::int64_t>::max()));
  } catch (const std::invalid_argument& e) {
    throw TraceFileError("'" + name + "': " + e.what());
  }
  out.declareTables(tables);
  out.addOps(sax.ops, OpOrigin{"op", 0});
  return out.finish();
}

}  // namespace pipescope
