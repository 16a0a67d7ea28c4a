#include "io/ChromeTraceReader.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "io/JsonValueBuilder.h"
#include "io/MicrosText.h"
#include "io/TraceMetadataJson.h"
#include "io/Utf8.h"

namespace pipescope {

namespace {

using nlohmann::json;

// Dims: inside args["Input Dims"] (PyTorch record_shapes), whose first input's shape is kept.
enum class Frame : std::uint8_t { TopObject, Events, Event, Args, Build, Skip, Dims };

/// The member names the reader acts on, told apart once per key so that every value
/// after it is dispatched by a switch rather than by comparing strings.
enum class Member : std::uint8_t {
  Other,
  TraceEvents,
  OtherData,
  DeviceProperties,
  DistributedInfo,
  BaseTimeNanoseconds,
  Ph,
  Name,
  Cat,
  Pid,
  Tid,
  Ts,
  Dur,
  Id,
  Bp,
  Args,
  InputDims,
  Labels,
  SortIndex,
  PipescopeLane,
  LaneKind,
  LaneIndex,
  LaneDevice,
  Stream,
  Bytes,
  Correlation,
  Batch,
  StreamWait,
  EngineWait,
  EngineLane,
  Kind,
  Flags,
  Mirror,
  MessageElements,
  Dtype,
  Count
};

constexpr std::array<std::string_view, std::size_t(Member::Count)> kKeyNames{"",
                                                                             "traceEvents",
                                                                             "otherData",
                                                                             "deviceProperties",
                                                                             "distributedInfo",
                                                                             "baseTimeNanoseconds",
                                                                             "ph",
                                                                             "name",
                                                                             "cat",
                                                                             "pid",
                                                                             "tid",
                                                                             "ts",
                                                                             "dur",
                                                                             "id",
                                                                             "bp",
                                                                             "args",
                                                                             "Input Dims",
                                                                             "labels",
                                                                             "sort_index",
                                                                             "pipescope_lane",
                                                                             "lane_kind",
                                                                             "lane_index",
                                                                             "lane_device",
                                                                             "stream",
                                                                             "bytes",
                                                                             "correlation",
                                                                             "batch",
                                                                             "stream wait (ns)",
                                                                             "engine wait (ns)",
                                                                             "engine_lane",
                                                                             "kind",
                                                                             "flags",
                                                                             "mirror",
                                                                             "In msg nelems",
                                                                             "dtype"};

Member memberOf(std::string_view s) {
  for (std::size_t i = 1; i < kKeyNames.size(); ++i)
    if (kKeyNames[i].size() == s.size() && kKeyNames[i][0] == s[0] && kKeyNames[i] == s) return Member(i);
  return Member::Other;
}

std::string keyName(Member k) { return std::string(kKeyNames[std::size_t(k)]); }

/// One JSON scalar as the SAX parser delivers it.
struct Scalar {
  enum Type : std::uint8_t { Null, Bool, Int, UInt, Float, String } type = Null;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::string_view text;  ///< a number's text (as written), or the string
  bool b = false;

  const char* typeName() const {
    switch (type) {
      case Null: return "null";
      case Bool: return "a boolean";
      case Int:
      case UInt: return "an integer";
      case Float: return "a number";
      case String: return "a string";
    }
    return "?";
  }
  json toJson() const {
    switch (type) {
      case Null: return nullptr;
      case Bool: return b;
      case Int: return i;
      case UInt: return u;
      case Float: return d;
      case String: return std::string(text);
    }
    return nullptr;
  }
};
/// The event being read.
struct Pending {
  bool hasPh = false, hasTs = false, hasDur = false, hasId = false, hasName = false;
  char ph = 0;
  std::string name, cat, pid, tid, id, bp;
  std::int64_t ts = 0, dur = 0;
  // args
  std::string argName, argLabels;
  bool hasSortIndex = false;
  std::int64_t sortIndex = 0;
  ChromeSlice slice;
  std::int32_t pipescopeLane = -1;
  std::string laneKind;
  std::int64_t laneIndex = 0;
  std::optional<std::int64_t> laneDevice;
  // PyTorch's NCCL kernels: the message as elements and their type, for the bytes.
  std::int64_t messageElements = -1, elementBytes = -1;

  void clear() {
    messageElements = elementBytes = -1;
    hasPh = hasTs = hasDur = hasId = hasName = false;
    ph = 0;
    name.clear(), cat.clear(), pid.clear(), tid.clear(), id.clear(), bp.clear();
    ts = dur = 0;
    argName.clear(), argLabels.clear();
    hasSortIndex = false;
    sortIndex = 0;
    slice = ChromeSlice{};
    pipescopeLane = -1;
    laneKind.clear();
    laneIndex = 0;
    laneDevice.reset();
  }
};

class ChromeSax {
 public:
  ChromeSax(JsonTextSource& src, ChromeEvents& out) : src_(src), out_(out) { out_.source = src.name(); }

  // --- RapidJSON's SAX handler (numbers arrive as text: kParseNumbersAsStringsFlag) ---
  bool Null() { return onScalar(Scalar{}); }
  bool Bool(bool v) {
    Scalar s;
    s.type = Scalar::Bool;
    s.b = v;
    return onScalar(s);
  }
  // Called only without kParseNumbersAsStringsFlag; there to complete the handler.
  bool Int(int v) { return Int64(v); }
  bool Uint(unsigned v) { return Uint64(v); }
  bool Int64(std::int64_t v) {
    Scalar s;
    s.type = Scalar::Int;
    s.i = v;
    return onScalar(s);
  }
  bool Uint64(std::uint64_t v) {
    Scalar s;
    s.type = Scalar::UInt;
    s.u = v;
    return onScalar(s);
  }
  bool Double(double v) {
    Scalar s;
    s.type = Scalar::Float;
    s.d = v;
    return onScalar(s);
  }
  bool RawNumber(const char* str, rapidjson::SizeType length, bool) {
    Scalar s;
    s.text = std::string_view(str, length);
    const char* end = str + length;
    // As nlohmann's JSON reads numbers: a negative integer is Int, a non-negative one
    // UInt, and one with a fraction or exponent, or beyond 64 bits, a double.
    bool integral = true;
    for (const char c : s.text) integral = integral && c != '.' && c != 'e' && c != 'E';
    if (integral) {
      if (str[0] == '-' ? std::from_chars(str, end, s.i).ec == std::errc{}
                        : std::from_chars(str, end, s.u).ec == std::errc{}) {
        s.type = str[0] == '-' ? Scalar::Int : Scalar::UInt;
        return onScalar(s);
      }
    }
    s.type = Scalar::Float;
    if (std::from_chars(str, end, s.d).ec == std::errc::result_out_of_range) {
      // Beyond a double only with a positive exponent; otherwise it is a value too close to 0.
      const auto e = s.text.find_first_of("eE");
      if (e != std::string_view::npos && str[e + 1] != '-')
        invalidJson(src_.offset(), "number overflow parsing '" + std::string(s.text) + "'");
      s.d = 0;
    }
    return onScalar(s);
  }
  bool String(const char* str, rapidjson::SizeType length, bool) {
    checkUtf8(str, length);
    Scalar s;
    s.type = Scalar::String;
    s.text = std::string_view(str, length);
    return onScalar(s);
  }
  bool StartObject() { return onStart(true); }
  bool StartArray() { return onStart(false); }
  bool EndObject(rapidjson::SizeType) { return onEnd(); }
  bool EndArray(rapidjson::SizeType) { return onEnd(); }
  bool Key(const char* str, rapidjson::SizeType length, bool) {
    src_.markToken();
    checkUtf8(str, length);
    const std::string_view k(str, length);
    key_.back() = memberOf(k);
    if (stack_.back() == Frame::Build) builder_.key(std::string(k));
    return true;
  }

  // RapidJSON's own check (kParseValidateEncodingFlag) goes through the stream byte by
  // byte; strings and keys, the only places other than bad syntax where bytes above
  // 0x7F can stand, are checked here whole instead.
  void checkUtf8(const char* str, rapidjson::SizeType length) const {
    if (!isValidUtf8(std::string_view(str, length)))
      invalidJson(src_.offset(), rapidjson::GetParseError_En(rapidjson::kParseErrorStringInvalidEncoding));
  }

  /// The parser stopped at `offset` with `code`.
  [[noreturn]] void parseError(rapidjson::ParseErrorCode code, std::size_t offset) {
    // Text that stops inside a value is a truncated file, whatever the parser expected next.
    if (src_.exhausted())
      throw TraceFileError("'" + src_.name() + "': byte " + std::to_string(offset) + ": the JSON text ends early" +
                           eventContext() + "; the file is truncated");
    // "Missing a comma or ']' after an array element." -> "missing a comma or ']' after an array element"
    std::string what = rapidjson::GetParseError_En(code);
    if (what.back() == '.') what.pop_back();
    // The parser stops on the character it could not take: name it.
    JsonTextSource::Stream at(src_);
    if (src_.offset() == offset) {
      const auto c = static_cast<unsigned char>(at.Peek());
      // RapidJSON says "invalid escape" for a raw control character in a string too.
      if (code == rapidjson::kParseErrorStringEscapeInvalid && c < 0x20) {
        char control[64];
        std::snprintf(control, sizeof control, "control character U+%04X in a string (write it as \\u%04X)", c, c);
        invalidJson(offset, control);
      }
      char shown[16];
      std::snprintf(shown, sizeof shown, c >= 0x20 && c < 0x7F ? "'%c'" : "byte 0x%02X", c);
      what += std::string(" (found ") + shown + ")";
    }
    invalidJson(offset, what);
  }
  [[noreturn]] void invalidJson(std::uint64_t offset, std::string what) const {
    if (!what.empty() && what.back() == '.') what.pop_back();
    if (!what.empty()) what[0] = char(std::tolower(static_cast<unsigned char>(what[0])));
    throw TraceFileError("'" + src_.name() + "': byte " + std::to_string(offset) + ": invalid JSON" + eventContext() +
                         ": " + what);
  }
  std::string eventContext() const { return inEvents_ ? " (in event " + std::to_string(out_.eventCount) + ")" : ""; }

  void finish() {
    if (!sawEvents_)
      throw TraceFileError("'" + src_.name() +
                           "': not a Chrome trace: expected a JSON object with a \"traceEvents\" array, or an array "
                           "of events");
    // Unclosed B events end where the trace ends (a trace cut off mid-range).
    for (auto& [thread, open] : openBegins_)
      for (auto& b : open) {
        b.dur = std::max<std::int64_t>(0, maxTs_ - b.ts);
        out_.slices.push_back(b);
      }
  }

 private:
  [[noreturn]] void failEvent(const std::string& what) const {
    throw TraceFileError("'" + src_.name() + "': event " + std::to_string(out_.eventCount - 1) + " (near byte " +
                         std::to_string(src_.offset()) + "): " + what);
  }
  [[noreturn]] void failAt(const std::string& what) const {
    throw TraceFileError("'" + src_.name() + "': byte " + std::to_string(src_.offset()) + ": " + what);
  }

  bool onStart(bool object) {
    src_.markToken();
    if (stack_.size() >= std::size_t(kMaxJsonDepth))
      failAt("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    if (stack_.empty()) {
      if (object) {
        push(Frame::TopObject);
      } else {
        push(Frame::Events);
        sawEvents_ = inEvents_ = true;
      }
      return true;
    }
    const Member k = key_.back();
    switch (stack_.back()) {
      case Frame::TopObject:
        if (k == Member::TraceEvents) {
          if (object) failAt("\"traceEvents\" must be an array of events, got an object");
          sawEvents_ = inEvents_ = true;
          push(Frame::Events);
        } else if (k == Member::OtherData || k == Member::DeviceProperties || k == Member::DistributedInfo) {
          builder_.reset();
          buildKey_ = k;
          builder_.startContainer(object);
          push(Frame::Build);
        } else {
          push(Frame::Skip);
        }
        return true;
      case Frame::Events:
        ++out_.eventCount;
        if (!object) failEvent("expected an event object, got an array");
        if (out_.eventCount > kMaxTraceOps)
          failEvent("more than " + std::to_string(kMaxTraceOps) + " events; pipescope opens traces up to that size");
        pending_.clear();
        push(Frame::Event);
        return true;
      case Frame::Event:
        if (k == Member::Args) {
          if (!object) failEvent("\"args\" must be an object, got an array");
          push(Frame::Args);
        } else if (k == Member::Ph || k == Member::Ts || k == Member::Dur || k == Member::Name || k == Member::Cat ||
                   k == Member::Pid || k == Member::Tid) {
          failEvent("\"" + keyName(k) + "\" must be a " +
                    (k == Member::Ts || k == Member::Dur ? "number" : "string or number") + ", got " +
                    (object ? "an object" : "an array"));
        } else {
          push(Frame::Skip);
        }
        return true;
      case Frame::Build: try { builder_.startContainer(object);
        } catch (const std::length_error& e) {
          failAt("\"" + keyName(buildKey_) + "\": " + e.what());
        }
        push(Frame::Build);
        return true;
      case Frame::Args:
        if (k == Member::InputDims && !object) {
          push(Frame::Dims);
          dimsDepth_ = 1;
          dimsInput_ = -1;
          return true;
        }
        push(Frame::Skip);
        return true;
      case Frame::Dims:
        // [[16, 3, 224, 224], [64, 3, 7, 7], ...]: depth 2 is one input's shape.
        if (!object && dimsDepth_ == 1) ++dimsInput_;
        push(object ? Frame::Skip : Frame::Dims);
        ++dimsDepth_;
        return true;
      case Frame::Skip: push(Frame::Skip); return true;
    }
    return true;
  }

  bool onEnd() {
    const Frame f = stack_.back();
    if (f == Frame::Dims) --dimsDepth_;
    stack_.pop_back();
    key_.pop_back();
    if (f == Frame::Event) finishEvent();
    if (f == Frame::Events) inEvents_ = false;
    if (f == Frame::Build && builder_.endContainer()) {
      if (buildKey_ == Member::DeviceProperties) out_.deviceProperties = std::move(builder_.result());
      if (buildKey_ == Member::DistributedInfo) out_.distributedInfo = std::move(builder_.result());
      if (buildKey_ == Member::OtherData && builder_.result().is_object() && builder_.result().contains("pipescope"))
        out_.pipescope = std::move(builder_.result()["pipescope"]);
    }
    src_.markToken();
    return true;
  }

  bool onScalar(const Scalar& v) {
    src_.markToken();
    if (stack_.empty()) failAt(std::string("expected a JSON object or array, got ") + v.typeName());
    switch (stack_.back()) {
      case Frame::TopObject:
        if (key_.back() == Member::TraceEvents)
          failAt(std::string("\"traceEvents\" must be an array, got ") + v.typeName());
        // PyTorch: event times are microseconds after this instant (ns since the epoch),
        // the same on every rank of a job, so ranks share one time base through it.
        if (key_.back() == Member::BaseTimeNanoseconds && (v.type == Scalar::Int || v.type == Scalar::UInt))
          out_.baseTimeNs = v.type == Scalar::Int ? std::max<std::int64_t>(0, v.i)
                                                  : std::int64_t(std::min<std::uint64_t>(v.u, std::numeric_limits<std::int64_t>::max() / 2));
        return true;
      case Frame::Events: ++out_.eventCount; failEvent(std::string("expected an event object, got ") + v.typeName());
      case Frame::Event: eventField(key_.back(), v); return true;
      case Frame::Args: argField(key_.back(), v); return true;
      case Frame::Dims:
        // The first input's shape: its rank and its first (batch) dimension.
        if (dimsDepth_ == 2 && dimsInput_ == 0 && (v.type == Scalar::Int || v.type == Scalar::UInt)) {
          ChromeSlice& sl = pending_.slice;
          // Shapes are only a hint: an odd value is ignored, never an error.
          const std::int64_t d = v.type == Scalar::Int ? v.i : v.u > (1ull << 40) ? -1 : std::int64_t(v.u);
          if (sl.inputRank == 0) sl.inputFirstDim = d >= 0 && d <= (std::int64_t(1) << 40) ? d : -1;
          sl.inputRank = std::uint8_t(std::min(255, sl.inputRank + 1));
        }
        return true;
      case Frame::Build: try { builder_.scalar(v.toJson());
        } catch (const std::length_error& e) {
          failAt("\"" + keyName(buildKey_) + "\": " + e.what());
        }
        return true;
      case Frame::Skip: return true;
    }
    return true;
  }

  static std::string cut(std::string_view s) { return std::string(s.substr(0, kMaxNameLength)); }

  std::string idText(const std::string& field, const Scalar& v) const {
    if (v.type == Scalar::String) return "s:" + cut(v.text);
    if (v.type == Scalar::Int) return std::to_string(v.i);
    if (v.type == Scalar::UInt) return std::to_string(v.u);
    failEvent("\"" + field + "\" must be a string or an integer, got " + v.typeName());
  }

  std::int64_t timeNs(const std::string& field, const Scalar& v) const {
    std::optional<std::int64_t> ns;
    if (v.type == Scalar::Int || v.type == Scalar::UInt || v.type == Scalar::Float) {
      ns = microsTextToNs(v.text);
    } else {
      failEvent("\"" + field + "\" must be a number (microseconds), got " + v.typeName());
    }
    if (!ns) failEvent("\"" + field + "\" = " + std::string(v.text) + " is out of range (at most 1e15 µs)");
    return *ns;
  }

  std::int64_t count(const std::string& field, const Scalar& v, std::int64_t hi) const {
    std::int64_t x = 0;
    if (v.type == Scalar::Int) {
      x = v.i;
    } else if (v.type == Scalar::UInt) {
      if (v.u > std::uint64_t(hi)) failEvent("\"args." + field + "\" = " + std::to_string(v.u) + " is too large");
      x = std::int64_t(v.u);
    } else if (v.type == Scalar::Float && v.d >= 0 && v.d <= double(hi) && v.d == std::floor(v.d)) {
      // Range first: converting an out-of-range double to an integer is undefined (found by fuzz_chrome_trace).
      x = std::int64_t(v.d);  // "bytes": 1024.0
    } else {
      failEvent("\"args." + field + "\" must be a non-negative integer, got " +
                (v.type == Scalar::Float ? std::string(v.text) : std::string(v.typeName())));
    }
    if (x < 0) failEvent("\"args." + field + "\" must be a non-negative integer, got " + std::to_string(x));
    if (x > hi)
      failEvent("\"args." + field + "\" = " + std::to_string(x) + " is too large (at most " + std::to_string(hi) + ")");
    return x;
  }

  std::int64_t signedInt(const std::string& field, const Scalar& v) const {
    if (v.type == Scalar::Int) return v.i;
    if (v.type == Scalar::UInt && v.u <= std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      return std::int64_t(v.u);
    failEvent("\"args." + field + "\" must be an integer, got " + v.typeName());
  }

  void eventField(Member k, const Scalar& v) {
    Pending& p = pending_;
    switch (k) {
      case Member::Ph:
        if (v.type != Scalar::String || v.text.size() != 1)
          failEvent(std::string("\"ph\" must be a one-letter string (the event type), got ") +
                    (v.type == Scalar::String ? "\"" + cut(v.text) + "\"" : v.typeName()));
        p.ph = v.text[0];
        p.hasPh = true;
        return;
      case Member::Name:
        if (v.type != Scalar::String) failEvent(std::string("\"name\" must be a string, got ") + v.typeName());
        p.name.assign(v.text.substr(0, kMaxNameLength));
        p.hasName = true;
        return;
      case Member::Cat:
        if (v.type != Scalar::String) failEvent(std::string("\"cat\" must be a string, got ") + v.typeName());
        p.cat.assign(v.text.substr(0, kMaxNameLength));
        return;
      case Member::Pid: p.pid = idText("pid", v); return;
      case Member::Tid: p.tid = idText("tid", v); return;
      case Member::Ts:
        p.ts = timeNs("ts", v);
        p.hasTs = true;
        return;
      case Member::Dur:
        p.dur = timeNs("dur", v);
        p.hasDur = true;
        return;
      case Member::Id:
        p.id = idText("id", v);
        p.hasId = true;
        return;
      case Member::Bp:
        if (v.type == Scalar::String) p.bp = cut(v.text);
        return;
      case Member::Args:
        if (v.type != Scalar::Null) failEvent(std::string("\"args\" must be an object, got ") + v.typeName());
        return;
      default: return;
    }
  }

  void argField(Member k, const Scalar& v) {
    Pending& p = pending_;
    ChromeSlice& s = p.slice;
    if (p.ph == 'M' || !p.hasPh) {
      // Metadata arguments (ph usually comes first; when it does not, keep both readings).
      switch (k) {
        case Member::Name:
          if (v.type == Scalar::String) p.argName = cut(v.text);
          break;
        case Member::Labels:
          if (v.type == Scalar::String) p.argLabels = cut(v.text);
          break;
        case Member::SortIndex:
          p.sortIndex = signedInt("sort_index", v);
          p.hasSortIndex = true;
          break;
        case Member::PipescopeLane: p.pipescopeLane = std::int32_t(count("pipescope_lane", v, kNoLane - 1)); break;
        case Member::LaneKind:
          if (v.type == Scalar::String) p.laneKind = cut(v.text);
          break;
        case Member::LaneIndex: p.laneIndex = signedInt("lane_index", v); break;
        case Member::LaneDevice: p.laneDevice = signedInt("lane_device", v); break;
        default: break;
      }
      if (p.ph == 'M') return;
    }
    switch (k) {
      case Member::Stream:
        // PyTorch writes stream ids as integers; tolerate other kinds of value by ignoring them.
        if (v.type == Scalar::Int || v.type == Scalar::UInt)
          s.stream = count("stream", v, std::numeric_limits<std::int32_t>::max());
        return;
      case Member::Bytes: s.bytes = count("bytes", v, std::int64_t(1) << 50); return;
      case Member::Correlation:
        s.correlation = count("correlation", v, std::numeric_limits<std::uint32_t>::max());
        return;
      case Member::Batch:
        s.batch = std::int32_t(std::max<std::int64_t>(
            -1, std::min<std::int64_t>(signedInt("batch", v), std::numeric_limits<std::int32_t>::max())));
        return;
      case Member::StreamWait: s.streamWait = signedInt("stream wait (ns)", v); return;
      case Member::EngineWait: s.engineWait = signedInt("engine wait (ns)", v); return;
      case Member::EngineLane:
        s.engineLane =
            std::int32_t(std::max<std::int64_t>(-1, std::min<std::int64_t>(signedInt("engine_lane", v), kNoLane)));
        return;
      case Member::Kind:
        if (v.type == Scalar::String)
          if (auto kind = parseOpKind(v.text)) s.kind = std::int8_t(*kind);
        return;
      case Member::Flags: s.flags = std::uint8_t(count("flags", v, 255)); return;
      case Member::Mirror:
        if (v.type == Scalar::Bool) s.mirror = v.b;
        return;
      case Member::MessageElements:
      case Member::Dtype:
        // A collective's size (PyTorch writes no "bytes" for NCCL kernels). Informative
        // only: a value of another shape is ignored, never a reason to refuse the file.
        if (k == Member::Dtype) {
          if (v.type == Scalar::String) p.elementBytes = dtypeBytes(v.text);
        } else if (v.type == Scalar::Int && v.i >= 0 && v.i <= (std::int64_t(1) << 47)) {
          p.messageElements = v.i;
        } else if (v.type == Scalar::UInt && v.u <= (std::uint64_t(1) << 47)) {
          p.messageElements = std::int64_t(v.u);
        }
        if (s.bytes < 0 && p.messageElements >= 0 && p.elementBytes > 0) s.bytes = p.messageElements * p.elementBytes;
        return;
      default: return;
    }
  }

  // Bytes per element of a PyTorch dtype name as the profiler writes it ("Float", "BFloat16"); -1: unknown.
  static std::int64_t dtypeBytes(std::string_view t) {
    if (t == "Double" || t == "Long" || t == "ComplexFloat") return 8;
    if (t == "Float" || t == "Int") return 4;
    if (t == "Half" || t == "BFloat16" || t == "Short") return 2;
    if (t == "Byte" || t == "Char" || t == "Bool" || t.rfind("Float8", 0) == 0) return 1;
    return -1;
  }

  std::uint32_t threadIndex(const std::string& pid, const std::string& tid) {
    // Consecutive events mostly share a thread: skip the hash lookup then.
    if (lastThread_ < out_.threads.size() && out_.threads[lastThread_].pid == pid &&
        out_.threads[lastThread_].tid == tid)
      return lastThread_;
    lastThread_ = threadIndexSlow(pid, tid);
    return lastThread_;
  }

  std::uint32_t threadIndexSlow(const std::string& pid, const std::string& tid) {
    threadKey_.assign(pid);
    threadKey_.push_back('\x1f');
    threadKey_.append(tid);
    auto it = threadIds_.find(threadKey_);
    if (it != threadIds_.end()) return it->second;
    if (out_.threads.size() >= 1'000'000) failEvent("more than a million distinct threads");
    const auto id = std::uint32_t(out_.threads.size());
    ChromeThread t;
    t.pid = pid;
    t.tid = tid;
    out_.threads.push_back(std::move(t));
    threadIds_.emplace(threadKey_, id);
    return id;
  }

  std::uint32_t stringIndex(const std::string& s) {
    auto it = stringIds_.find(s);
    if (it != stringIds_.end()) return it->second;
    if (out_.strings.size() >= 10'000'000) failEvent("more than ten million distinct names");
    const auto id = std::uint32_t(out_.strings.size());
    out_.strings.push_back(s);
    stringIds_.emplace(s, id);
    return id;
  }

  ChromeProcess& process(const std::string& pid) {
    for (auto& pr : out_.processes)
      if (pr.pid == pid) return pr;
    if (out_.processes.size() >= 100'000) failEvent("more than 100000 processes");
    out_.processes.push_back(ChromeProcess{pid, {}, {}, 0});
    return out_.processes.back();
  }

  void finishEvent() {
    Pending& p = pending_;
    if (!p.hasPh) failEvent("missing \"ph\" (the event type)");
    switch (p.ph) {
      case 'X': {
        if (!p.hasTs) failEvent("complete event ('X') without \"ts\"");
        if (!p.hasDur) failEvent("complete event ('X') without \"dur\"");
        if (p.dur < 0) failEvent("negative duration (\"dur\" = " + std::to_string(p.dur / 1000.0) + " µs)");
        if (p.ts > kMaxAbsTimeNs - p.dur) failEvent("\"ts\" + \"dur\" is out of range");
        addSlice(p.ts, p.dur);
        return;
      }
      case 'B': {
        if (!p.hasTs) failEvent("begin event ('B') without \"ts\"");
        ChromeSlice s = sliceFromPending(p.ts, 0);
        auto& open = openBegins_[s.thread];
        if (open.size() >= 10'000) failEvent("more than 10000 nested 'B' events open on one thread");
        open.push_back(s);
        maxTs_ = std::max(maxTs_, p.ts);
        return;
      }
      case 'E': {
        if (!p.hasTs) failEvent("end event ('E') without \"ts\"");
        const std::uint32_t t = threadIndex(p.pid, p.tid);
        auto it = openBegins_.find(t);
        if (it == openBegins_.end() || it->second.empty())
          failEvent("end event ('E') with no open begin event ('B') on the same pid/tid");
        ChromeSlice s = it->second.back();
        it->second.pop_back();
        if (p.ts < s.ts) failEvent("end event ('E') before its begin event (negative duration)");
        s.dur = p.ts - s.ts;
        out_.slices.push_back(s);
        maxTs_ = std::max(maxTs_, p.ts);
        return;
      }
      case 'M': metadata(); return;
      case 's':
      case 'f':
      case 't': {
        if (!p.hasId) failEvent(std::string("flow event ('") + p.ph + "') without \"id\"");
        if (!p.hasTs) failEvent(std::string("flow event ('") + p.ph + "') without \"ts\"");
        if (out_.flows.size() >= kMaxTraceOps) failEvent("too many flow events");
        out_.flows.push_back(ChromeFlow{p.id, threadIndex(p.pid, p.tid), p.ts, p.ph, p.bp == "e"});
        return;
      }
      default:
        ++out_.skippedEvents;  // counters, instants, async and object events carry no op
        return;
    }
  }

  ChromeSlice sliceFromPending(std::int64_t ts, std::int64_t dur) {
    ChromeSlice s = pending_.slice;
    s.ts = ts;
    s.dur = dur;
    s.thread = threadIndex(pending_.pid, pending_.tid);
    s.name = stringIndex(pending_.name);
    s.cat = stringIndex(pending_.cat);
    s.eventIndex = std::uint32_t(out_.eventCount - 1);
    return s;
  }

  void addSlice(std::int64_t ts, std::int64_t dur) {
    out_.slices.push_back(sliceFromPending(ts, dur));
    maxTs_ = std::max(maxTs_, ts + dur);
  }

  void metadata() {
    Pending& p = pending_;
    if (p.name == "thread_name") {
      ChromeThread& t = out_.threads[threadIndex(p.pid, p.tid)];
      t.name = p.argName;
      if (p.pipescopeLane >= 0) {
        t.pipescopeLane = p.pipescopeLane;
        t.laneKind = p.laneKind;
        t.laneIndex = p.laneIndex;
        t.laneDevice = p.laneDevice;
      }
    } else if (p.name == "thread_sort_index" && p.hasSortIndex) {
      ChromeThread& t = out_.threads[threadIndex(p.pid, p.tid)];
      t.sortIndex = p.sortIndex;
      t.hasSortIndex = true;
    } else if (p.name == "process_name") {
      process(p.pid).name = p.argName;
    } else if (p.name == "process_labels") {
      process(p.pid).labels = p.argLabels;
    } else if (p.name == "process_sort_index" && p.hasSortIndex) {
      process(p.pid).sortIndex = p.sortIndex;
    }
  }

  void push(Frame f) {
    stack_.push_back(f);
    key_.resize(stack_.size());
    key_.back() = Member::Other;
  }

  JsonTextSource& src_;
  ChromeEvents& out_;
  std::vector<Frame> stack_;
  int dimsDepth_ = 0;   // nesting inside "Input Dims"
  int dimsInput_ = -1;  // which input's shape is being read
  std::vector<Member> key_;  ///< per open container: the key of the value being read
  Pending pending_;
  JsonValueBuilder builder_;
  Member buildKey_ = Member::Other;
  bool sawEvents_ = false;
  bool inEvents_ = false;
  std::int64_t maxTs_ = std::numeric_limits<std::int64_t>::min();
  std::unordered_map<std::string, std::uint32_t> threadIds_;
  std::unordered_map<std::string, std::uint32_t> stringIds_;
  std::unordered_map<std::uint32_t, std::vector<ChromeSlice>> openBegins_;
  std::string threadKey_;
  std::uint32_t lastThread_ = std::numeric_limits<std::uint32_t>::max();
};

}  // namespace

ChromeEvents readChromeEvents(JsonTextSource& source) {
  ChromeEvents events;
  ChromeSax sax(source, events);
  JsonTextSource::Stream stream(source);
  // nlohmann's JSON (the project's other reader) skips a UTF-8 byte order mark; so does this.
  if (source.peek(3) == "\xEF\xBB\xBF")
    for (int i = 0; i < 3; ++i) stream.Take();
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag;  // UTF-8: see ChromeSax::checkUtf8
  if (!reader.Parse<kFlags>(stream, sax)) sax.parseError(reader.GetParseErrorCode(), reader.GetErrorOffset());
  // Like nlohmann's, RapidJSON's parser takes a NUL character for the end of the text.
  sax.finish();
  return events;
}

}  // namespace pipescope
