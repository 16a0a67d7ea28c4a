// Every importer meets hostile input with a clear error naming where and what:
// a table of malformed, truncated, wrongly typed, huge, negative, inconsistent and
// newer-version files, each with the text its error must contain.
#include <gtest/gtest.h>
#include <zlib.h>

#include <sstream>

#include "TraceFileTestSupport.h"
#include "io/ChromeTraceWriter.h"
#include "io/NativeFormat.h"
#include "io/TraceFiles.h"
#include "io/TraceJsonWriter.h"

namespace pipescope {
namespace {

std::string gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, uLong(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = uInt(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// A one-lane, one-op trace: small enough to mutate by hand.
std::unique_ptr<Trace> tinyTrace(std::uint16_t opLane = 0) {
  auto t = std::make_unique<Trace>();
  t->lane(LaneKind::Stream, 0, "stream 0");
  Op op;
  op.kind = OpKind::Kernel;
  op.lane = opLane;
  op.start = 10;
  op.end = 20;
  t->ops().append(op);
  t->ops().publish();
  return t;
}

std::string nativeBytes(const Trace& t) {
  std::stringstream s;
  writeNativeTrace(t, s);
  return s.str();
}

std::string v1Text(const Trace& t) {
  std::stringstream s;
  writeTraceJson(t, s);
  return s.str();
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

struct Case {
  const char* what;
  std::string bytes;
  const char* expected;
};

std::vector<Case> cases() {
  const std::string ev = R"({"ph":"X","ts":1,"dur":1})";
  const std::string valid = "{\"traceEvents\":[" + ev + "]}";
  const std::string native = nativeBytes(*tinyTrace());
  std::string corrupt = native;
  corrupt[corrupt.size() - 12] ^= 0x5A;  // inside the op block's zstd frame
  std::string hugeHeader = native;
  // The first chunk's header compressed size (after signature, version, flags, "CHNK",
  // ops before, op count, block count): its top byte.
  hugeHeader[44 + 7] = 0x40;
  std::string extra = native + "xyz";
  const std::string gz = gzip(valid + std::string(4000, ' '));
  std::string gzCorrupt = gz;
  for (std::size_t i = 12; i < gzCorrupt.size() - 8; ++i) gzCorrupt[i] = char(0xFF);
  std::stringstream exported;
  writeChromeTrace(*tinyTrace(), exported);
  const std::string v1 = v1Text(*tinyTrace());
  return {
      {"empty file", "", "empty"},
      {"whitespace only", "   \n ", "not a trace file pipescope can open"},
      {"plain text", "hello world", "not a trace file pipescope can open"},
      {"truncated JSON", R"({"traceEvents":[{"ph":"X","ts":1)", "ends early"},
      {"truncated inside a string", R"([{"ph":"X)", "ends early"},
      {"traceEvents is an object", R"({"traceEvents":{}})", "\"traceEvents\" must be an array"},
      {"traceEvents is a number", R"({"traceEvents":5})", "\"traceEvents\" must be an array"},
      {"no traceEvents", R"({"foo":1})", "not a Chrome trace"},
      {"event is a number", "[1]", "event 0 (near byte"},
      {"event is an array", "[[1]]", "expected an event object, got an array"},
      {"missing ph", R"([{"ts":1,"dur":1}])", "missing \"ph\""},
      {"X without ts", R"([{"ph":"X","dur":1}])", "without \"ts\""},
      {"X without dur", R"([{"ph":"X","ts":1}])", "without \"dur\""},
      {"negative duration", R"([{"ph":"X","ts":1,"dur":-5}])", "negative duration"},
      {"ts is a string", R"([{"ph":"X","ts":"1","dur":1}])", "\"ts\" must be a number"},
      {"huge ts", R"([{"ph":"X","ts":1e300,"dur":1}])", "out of range"},
      {"ts plus dur overflows", R"([{"ph":"X","ts":900000000000000,"dur":900000000000000}])", "out of range"},
      {"name is a number", R"([{"ph":"X","ts":1,"dur":1,"name":5}])", "\"name\" must be a string"},
      {"ph is a number", R"([{"ph":7,"ts":1,"dur":1}])", "\"ph\" must be a one-letter string"},
      {"ph too long", R"([{"ph":"XX","ts":1,"dur":1}])", "\"ph\" must be a one-letter string"},
      {"pid is an object", R"([{"ph":"X","ts":1,"dur":1,"pid":{}}])", "\"pid\" must be a string or number"},
      {"args is an array", R"([{"ph":"X","ts":1,"dur":1,"args":[]}])", "\"args\" must be an object"},
      {"negative bytes", R"([{"ph":"X","ts":1,"dur":1,"cat":"gpu_memcpy","args":{"bytes":-1}}])",
       "non-negative integer"},
      {"fractional bytes", R"([{"ph":"X","ts":1,"dur":1,"args":{"bytes":1.5}}])", "non-negative integer, got 1.5"},
      {"huge bytes", R"([{"ph":"X","ts":1,"dur":1,"args":{"bytes":18446744073709551615}}])", "too large"},
      {"float bytes beyond int64 (fuzzer finding)", R"([{"ph":"X","ts":1,"dur":1,"args":{"bytes":3.84458e+22}}])",
       "non-negative integer, got 3.84458e+22"},
      {"negative correlation", R"([{"ph":"X","ts":1,"dur":1,"args":{"correlation":-3}}])", "non-negative integer"},
      {"E without B", R"([{"ph":"E","ts":1}])", "no open begin event"},
      {"E before B", R"([{"ph":"B","ts":5},{"ph":"E","ts":1}])", "before its begin event"},
      {"flow without id", R"([{"ph":"s","ts":1}])", "without \"id\""},
      {"no timed events", R"([{"ph":"i","ts":1}])", "no timed events"},
      {"nesting bomb",
       [] {
         std::string s;
         for (int i = 0; i < 200; ++i) s += "{\"x\":";
         return s + "1" + std::string(200, '}');
       }(),
       "nested deeper than 64"},
      {"trailing garbage", valid + " trailing", "invalid JSON"},
      {"trailing comma", "{\"traceEvents\":[" + ev + ",]}", "invalid JSON"},
      {"invalid UTF-8", "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"\xC3\x28\"}]", "invalid JSON"},
      {"UTF-8 surrogate", "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"\xED\xA0\x80\"}]", "invalid JSON"},
      {"invalid UTF-8 in an ignored key", "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"\xC0\xAF\":0}]", "invalid JSON"},
      {"raw tab in a string", "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"a\tb\"}]", "control character U+0009"},
      {"number beyond a double", R"([{"ph":"X","ts":1,"dur":1,"args":{"x":9.99e308}}])", "number overflow"},
      {"lone surrogate escape", R"([{"ph":"X","ts":1,"dur":1,"name":"\ud800"}])", "invalid JSON"},
      {"gzip truncated", gz.substr(0, gz.size() / 2), "gzip data is truncated"},
      {"gzip corrupt", gzCorrupt, "corrupt gzip data"},
      {"newer Chrome export", replaced(exported.str(), "\"version\":2", "\"version\":9"),
       "newer pipescope (Chrome export version 9)"},
      {"export: op on a missing engine lane",
       replaced(exported.str(), "\"kind\":\"kernel\"", "\"kind\":\"kernel\",\"engine_lane\":9"),
       "engine lane 9 does not exist"},
      {"export: unknown lane kind", replaced(exported.str(), "\"lane_kind\":\"stream\"", "\"lane_kind\":\"tape\""),
       "unknown lane kind \"tape\""},
      {"v1: newer version", replaced(v1, "\"version\": 2", "\"version\": 3"),
       "newer pipescope (pipescope-trace-json version 3)"},
      {"v1: op with 12 fields", replaced(v1, "[\"kernel\",-1,", "[-1,"), "field 0 (kind): expected the op kind"},
      {"v1: unknown op kind", replaced(v1, "[\"kernel\"", "[\"bogus\""), "unknown op kind \"bogus\""},
      {"v1: missing lanes", replaced(v1, "\"lanes\"", "\"lanez\""), "missing field 'lanes'"},
      {"v1: op on a missing lane", v1Text(*tinyTrace(5)), "op 0: lane 5 does not exist"},
      {"v1: fractional time", replaced(v1, ",10,20,", ",10.5,20,"), "expected an integer, got 10.5"},
      {"native: signature only", native.substr(0, 16), "file ends early"},
      {"native: truncated block", native.substr(0, native.size() - 20), "truncated"},
      {"native: corrupt block", corrupt, "the file is damaged"},
      {"native: huge header size", hugeHeader, "declared"},
      {"native: bytes after the end", extra, "unexpected bytes after the end marker"},
      {"native: op on a missing lane", nativeBytes(*tinyTrace(5)), "op 0: lane 5 does not exist"},
  };
}

TEST(HostileInput, EveryMalformedFileGetsItsClearError) {
  const auto table = cases();
  ASSERT_GE(table.size(), 30u);
  for (const Case& c : table) {
    SCOPED_TRACE(c.what);
    try {
      loadTraceFromBytes(c.bytes, "bad.trace");
      ADD_FAILURE() << c.what << ": loaded without an error";
    } catch (const TraceFileError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(c.expected), std::string::npos) << c.what << ": got \"" << msg << "\"";
      EXPECT_NE(msg.find("bad.trace"), std::string::npos) << "the message names the file: " << msg;
    }
  }
}

TEST(HostileInput, SameErrorsFromDisk) {
  filetest::ScratchDir dir;
  const auto table = cases();
  for (const Case& c : table) {
    SCOPED_TRACE(c.what);
    const std::string path = dir.file("bad.file");
    filetest::writeText(path, c.bytes);
    try {
      loadTraceFile(path);
      ADD_FAILURE() << c.what << ": loaded without an error";
    } catch (const TraceFileError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
    }
  }
}

TEST(HostileInput, UnsortedEventsAreAcceptedAndSorted) {
  auto t = loadTraceFromBytes(
      R"([{"ph":"X","ts":30,"dur":1,"name":"c"},{"ph":"X","ts":10,"dur":1,"name":"a"},{"ph":"X","ts":20,"dur":1,"name":"b"}])",
      "unsorted");
  const TraceView v = t->ops().snapshot();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(t->opName(v[0]), "a");
  EXPECT_EQ(v[0].start, 0);  // rebased to the earliest event
  EXPECT_EQ(v[2].start, 20000);
}

TEST(HostileInput, ExactMicrosecondFractions) {
  auto t = loadTraceFromBytes(
      R"([{"ph":"X","ts":4458251780891.005,"dur":2192.513},{"ph":"X","ts":4458251780890,"dur":0.0015}])", "fractions");
  const TraceView v = t->ops().snapshot();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].duration(), 2);  // 1.5 ns rounds to 2
  EXPECT_EQ(v[1].start, 1005);    // 891.005 - 890 µs, exactly
  EXPECT_EQ(v[1].duration(), 2192513);
}

}  // namespace
}  // namespace pipescope
