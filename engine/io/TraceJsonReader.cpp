#include "io/TraceJsonReader.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "io/JsonValueBuilder.h"
#include "io/TraceAssembler.h"
#include "io/TraceJsonWriter.h"
#include "io/TraceMetadataJson.h"

namespace pipescope {

namespace {

using nlohmann::json;

constexpr int kOpFields = 13;

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
      if (field_ == 11 && depth_ == 3) {  // bytes may exceed int64
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
    if (inOp()) failOp("field " + std::to_string(field_) + ": expected an integer, got " + text);
    return value(json(v));
  }
  bool string(std::string& v) {
    if (inOp()) {
      if (field_ != 0) failOp("field " + std::to_string(field_) + ": expected an integer, got a string");
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

 private:
  [[noreturn]] void failAt(const std::string& what) const {
    throw TraceFileError("'" + src_.name() + "': byte " + std::to_string(src_.offset()) + ": " + what);
  }
  [[noreturn]] void failOp(const std::string& what) const {
    throw TraceFileError("'" + src_.name() + "': op " + std::to_string(ops.size()) + " (near byte " +
                         std::to_string(src_.offset()) + "): " + what);
  }
  bool inOp() const { return inOps_ && depth_ == 3; }

  bool opInt(std::int64_t v, bool) {
    Op& o = pending_;
    auto narrow = [&](std::int64_t lo, std::int64_t hi, const char* what) {
      if (v < lo || v > hi) failOp(std::string(what) + " " + std::to_string(v) + " is out of range");
    };
    switch (field_) {
      case 0: failOp("field 0: expected the op kind as a string");
      case 1: narrow(-1, std::numeric_limits<std::int32_t>::max(), "batch"), o.batch = std::int32_t(v); break;
      case 2: narrow(-1, std::numeric_limits<std::int16_t>::max(), "stream"), o.stream = std::int16_t(v); break;
      case 3: narrow(-1, kNoLane - 1, "lane"), o.lane = v < 0 ? kNoLane : std::uint16_t(v); break;
      case 4: narrow(-1, kNoLane - 1, "engine lane"), o.engineLane = v < 0 ? kNoLane : std::uint16_t(v); break;
      case 5: narrow(0, 0xFFFF, "name"), o.name = std::uint16_t(v); break;
      case 6: narrow(0, 255, "flags"), o.flags = std::uint8_t(v); break;
      case 7: o.submit = v; break;
      case 8: o.ready = v; break;
      case 9: o.start = v; break;
      case 10: o.end = v; break;
      case 11: narrow(0, std::numeric_limits<std::int64_t>::max(), "bytes"), o.bytes = std::uint64_t(v); break;
      case 12:
        narrow(0, std::numeric_limits<std::uint32_t>::max(), "correlation"), o.correlation = std::uint32_t(v);
        break;
      default: failOp("more than " + std::to_string(kOpFields) + " fields");
    }
    ++field_;
    return true;
  }

  bool value(json v) {
    src_.markToken();
    if (depth_ == 0) failAt("expected a JSON object (a pipescope-trace-json file)");
    if (inOps_) {
      if (depth_ == 2) failOp("expected an array of " + std::to_string(kOpFields) + " fields");
      if (depth_ == 3) failOp("field " + std::to_string(field_) + ": unexpected " + v.type_name());
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
      return true;
    }
    if (inOps_) {
      if (depth_ == 3) {
        if (object) failOp("expected an array of " + std::to_string(kOpFields) + " fields, got an object");
        if (ops.size() >= kMaxTraceOps) failOp("more than " + std::to_string(kMaxTraceOps) + " ops");
        pending_ = Op{};
        field_ = 0;
        return true;
      }
      failOp("field " + std::to_string(field_) + ": unexpected nested value");
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
      if (field_ != kOpFields)
        failOp("expected " + std::to_string(kOpFields) + " fields, got " + std::to_string(field_));
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
