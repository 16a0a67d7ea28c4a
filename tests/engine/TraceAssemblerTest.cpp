// The one import path (io/TraceAssembler.h): every check it makes on lane and name
// tables and on op references, each test failing without its check; then one bad
// reference per importer (native, pipescope JSON, Chrome export, Chrome/PyTorch),
// caught by the same check with the same message shape.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "io/ChromeTraceWriter.h"
#include "io/NativeFormat.h"
#include "io/TraceAssembler.h"
#include "io/TraceFiles.h"
#include "io/TraceJsonWriter.h"

namespace pipescope {
namespace {

constexpr const char* kDamaged = "; the file is damaged: write or export it again";

Op opOn(std::uint16_t lane, std::uint16_t name = 0) {
  Op op;
  op.kind = OpKind::Kernel;
  op.lane = lane;
  op.name = name;
  op.start = 10;
  op.end = 20;
  return op;
}

/// The message `f` throws as a TraceFileError ("" and a test failure when it does not throw).
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const TraceFileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no TraceFileError";
  return {};
}

TraceTables twoLanes() {
  TraceTables t;
  t.lanes = {Lane{0, LaneKind::Stream, "stream 0", 0}, Lane{1, LaneKind::ComputeEngine, "compute", 0}};
  t.names = {"", "model"};
  return t;
}

// --- OpCheck: every op of every file ---------------------------------------------

TEST(OpCheck, AcceptsNoLaneNameZeroAndZeroDuration) {
  const OpCheck check("f", 2, 2);
  Op op = opOn(kNoLane);
  op.engineLane = kNoLane;
  op.end = op.start;
  EXPECT_TRUE(check.valid(op));
  EXPECT_NO_THROW(check(op, OpOrigin{}));
  EXPECT_TRUE(check.valid(opOn(1, 1)));
}

TEST(OpCheck, LaneOutOfRange) {
  const OpCheck check("f", 2, 1);
  EXPECT_FALSE(check.valid(opOn(2)));
  EXPECT_EQ(errorOf([&] { check(opOn(2), OpOrigin{"op", 3}); }),
            std::string("'f': op 3: lane 2 does not exist (the trace has 2 lanes, 0 to 1)") + kDamaged);
}

TEST(OpCheck, EngineLaneOutOfRange) {
  const OpCheck check("f", 1, 1);
  Op op = opOn(0);
  op.engineLane = 1;
  EXPECT_EQ(errorOf([&] { check(op, OpOrigin{"op", 0}); }),
            std::string("'f': op 0: engine lane 1 does not exist (the trace has 1 lane, 0)") + kDamaged);
}

TEST(OpCheck, NameOutOfRange) {
  const OpCheck check("f", 1, 2);
  EXPECT_EQ(errorOf([&] { check(opOn(0, 2), OpOrigin{"op", 9}); }),
            std::string("'f': op 9: name 2 does not exist (the trace has 2 names, 0 to 1)") + kDamaged);
}

TEST(OpCheck, UnknownKind) {
  const OpCheck check("f", 1, 1);
  Op op = opOn(0);
  op.kind = OpKind(200);
  EXPECT_EQ(errorOf([&] { check(op, OpOrigin{"op", 1}); }),
            std::string("'f': op 1: unknown op kind 200 (kinds are 0 to 10)") + kDamaged);
}

TEST(OpCheck, EndBeforeStart) {
  const OpCheck check("f", 1, 1);
  Op op = opOn(0);
  op.end = op.start - 1;
  EXPECT_NE(errorOf([&] { check(op, OpOrigin{"op", 4}); }).find("'f': op 4: ends before it starts (negative duration"),
            std::string::npos);
}

TEST(OpCheck, NamesTheEventAndTheByteWhenKnown) {
  const OpCheck check("f", 0, 1);
  EXPECT_EQ(errorOf([&] { check(opOn(0), OpOrigin{"event", 12, 4096}); }),
            std::string("'f': byte 4096: event 12: lane 0 does not exist (the trace has no lanes)") + kDamaged);
}

// --- TraceAssembler: tables ------------------------------------------------------

TEST(TraceAssembler, DeclaredTablesReachTheTraceAndBoundTheOps) {
  TraceAssembler a("f");
  a.declareTables(twoLanes());
  a.addOp(opOn(1, 1), OpOrigin{});
  EXPECT_NE(errorOf([&] { a.addOp(opOn(2), OpOrigin{"op", 1}); }).find("lane 2 does not exist"), std::string::npos);
  EXPECT_NE(errorOf([&] { a.addOp(opOn(0, 2), OpOrigin{"op", 1}); }).find("name 2 does not exist"), std::string::npos);
  auto t = a.finish();
  EXPECT_EQ(t->lanes(), twoLanes().lanes);
  EXPECT_EQ(t->names(), twoLanes().names);
  EXPECT_EQ(t->ops().publishedCount(), 1u);  // the bad ops never reached the trace
}

TEST(TraceAssembler, LanesAreNumberedInOrder) {
  TraceTables t = twoLanes();
  t.lanes[1].id = 2;
  EXPECT_EQ(errorOf([&] { TraceAssembler("f").declareTables(t); }),
            "'f': lane 1: numbered 2; lanes are numbered 0 to n-1 in order, so lane 1 is missing or out of place");
}

TEST(TraceAssembler, DuplicateLane) {
  TraceTables t = twoLanes();
  t.lanes[1].kind = LaneKind::Stream;  // same kind and index as lane 0
  EXPECT_EQ(errorOf([&] { TraceAssembler("f").declareTables(t); }),
            "'f': lane 1: same kind, index and device as lane 0 (each lane must be unique)");
}

TEST(TraceAssembler, TooManyLanes) {
  TraceTables t;
  for (std::size_t i = 0; i <= kMaxTraceLanes; ++i)
    t.lanes.push_back(Lane{std::uint16_t(i), LaneKind::HostOther, "t", int(i)});
  EXPECT_NE(errorOf([&] { TraceAssembler("f").declareTables(t); })
                .find("'f': 65535 lanes; a trace holds at most 65534"),
            std::string::npos);
}

TEST(TraceAssembler, NameZeroIsEmpty) {
  TraceTables t = twoLanes();
  t.names[0] = "x";
  EXPECT_NE(errorOf([&] { TraceAssembler("f").declareTables(t); }).find("'f': name 0 must be the empty string"),
            std::string::npos);
  t.names.clear();
  EXPECT_NE(errorOf([&] { TraceAssembler("f").declareTables(t); }).find("name 0 must be the empty string"),
            std::string::npos);
}

TEST(TraceAssembler, EmptyName) {
  TraceTables t = twoLanes();
  t.names.push_back("");
  EXPECT_EQ(errorOf([&] { TraceAssembler("f").declareTables(t); }), "'f': name 2 is empty (only name 0 may be)");
}

TEST(TraceAssembler, DuplicateName) {
  TraceTables t = twoLanes();
  t.names.push_back("model");
  EXPECT_EQ(errorOf([&] { TraceAssembler("f").declareTables(t); }),
            "'f': name 2 duplicates name 1 (each name must appear once)");
}

TEST(TraceAssembler, TooManyNames) {
  TraceTables t;
  for (std::size_t i = 1; i <= kMaxTraceNames; ++i) t.names.push_back("n" + std::to_string(i));
  EXPECT_EQ(errorOf([&] { TraceAssembler("f").declareTables(t); }), "'f': 65536 names; a trace holds at most 65535");
}

TEST(TraceAssembler, TablesDeclaredAgainExtendTheOnesBefore) {
  TraceTables first = twoLanes();
  first.lanes.pop_back();
  TraceAssembler a("f");
  a.declareTables(first);
  EXPECT_FALSE(a.opCheck().valid(opOn(1)));
  a.declareTables(twoLanes());  // a later chunk of a streamed file: one lane more
  EXPECT_TRUE(a.opCheck().valid(opOn(1, 1)));
  EXPECT_EQ(a.trace().lanes().size(), 2u);

  EXPECT_NE(errorOf([&] { a.declareTables(first); }).find("fewer entries than the ones before them"),
            std::string::npos);
  TraceTables renamed = twoLanes();
  renamed.lanes[0].name = "another stream";
  EXPECT_EQ(errorOf([&] { a.declareTables(renamed); }),
            "'f': lane 0: differs from the lane 0 declared before it; the file is damaged");
  TraceTables otherName = twoLanes();
  otherName.names[1] = "other";
  EXPECT_EQ(errorOf([&] { a.declareTables(otherName); }),
            "'f': name 1: differs from the name 1 declared before it; the file is damaged");
}

TEST(TraceAssembler, FoundLanesAndNames) {
  TraceAssembler a("f");
  const auto s0 = a.addLane(LaneKind::Stream, 7, "stream 7");
  EXPECT_EQ(a.addLane(LaneKind::Stream, 7, "again"), s0);  // same kind and index: same lane
  EXPECT_EQ(a.internName("", OpKind::Kernel), 0);
  EXPECT_EQ(a.internName(std::string(toString(OpKind::Kernel)), OpKind::Kernel), 0);  // the kind's own name
  const auto n = a.internName("gemm", OpKind::Kernel);
  EXPECT_EQ(n, 1);
  a.addOp(opOn(s0, n), OpOrigin{});  // found lanes and names count at once
  EXPECT_FALSE(a.opCheck().valid(opOn(1)));
}

TEST(TraceAssembler, ReservingTooManyLanesFailsBeforeAnyIsMade) {
  TraceAssembler a("f");
  a.addLane(LaneKind::Stream, 0, "stream 0");
  EXPECT_NO_THROW(a.reserveLanes(kMaxTraceLanes - 1));
  EXPECT_NE(errorOf([&] { a.reserveLanes(kMaxTraceLanes); }).find("'f': 65535 lanes; a trace holds at most 65534"),
            std::string::npos);
}

TEST(TraceAssembler, AddOpsNumbersEachOp) {
  TraceAssembler a("f");
  a.declareTables(twoLanes());
  const std::vector<Op> ops = {opOn(0), opOn(1), opOn(5)};
  EXPECT_NE(errorOf([&] { a.addOps(ops, OpOrigin{"op", 100}); }).find("'f': op 102: lane 5 does not exist"),
            std::string::npos);
}

TEST(TraceAssembler, OpsCheckedAheadNeedTheirTablesDeclaredByTheEnd) {
  const OpCheck chunk("f", 2, 2);  // a native chunk's tables, declared after its ops
  TraceAssembler early("f");
  early.addCheckedOps({opOn(1, 1)}, chunk);
  EXPECT_THROW(early.finish(), std::logic_error);
  TraceAssembler declared("f");
  declared.addCheckedOps({opOn(1, 1)}, chunk);
  declared.declareTables(twoLanes());
  EXPECT_EQ(declared.finish()->ops().publishedCount(), 1u);
}

TEST(TraceAssembler, TablesFromJson) {
  using nlohmann::json;
  const json good = {{"lanes", json::array({{{"id", 0}, {"kind", "stream"}, {"name", "s"}, {"index", 0}}})},
                     {"names", json::array({"", "a"})}};
  const TraceTables t = tablesFromJson(good, "header");
  ASSERT_EQ(t.lanes.size(), 1u);
  EXPECT_EQ(t.names, (std::vector<std::string>{"", "a"}));
  auto message = [](const json& j) {
    try {
      tablesFromJson(j, "header");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message({{"names", json::array()}}), "'header': missing field 'lanes'");
  EXPECT_EQ(message({{"lanes", 3}, {"names", json::array()}}), "'lanes': expected an array of lanes");
  EXPECT_EQ(message({{"lanes", json::array()}, {"names", json::array({1})}}), "'names': expected an array of strings");
}

// --- Each importer: a bad reference meets the shared check -----------------------

/// One lane, one op on `lane` named `name`.
std::unique_ptr<Trace> oneOp(std::uint16_t lane, std::uint16_t name = 0) {
  auto t = std::make_unique<Trace>();
  t->lane(LaneKind::Stream, 0, "stream 0");
  t->ops().append(opOn(lane, name));
  t->ops().publish();
  return t;
}

std::string loadError(const std::string& bytes) {
  return errorOf([&] { loadTraceFromBytes(bytes, "bad"); });
}

TEST(OneImportPath, NativeFile) {
  std::stringstream lane, name;
  writeNativeTrace(*oneOp(5), lane);
  writeNativeTrace(*oneOp(0, 3), name);
  EXPECT_TRUE(std::regex_match(loadError(lane.str()),
                               std::regex("'bad': byte [0-9]+: op 0: lane 5 does not exist \\(the trace has 1 "
                                          "lane, 0\\); the file is damaged: write or export it again")))
      << loadError(lane.str());
  EXPECT_TRUE(std::regex_search(loadError(name.str()),
                                std::regex("^'bad': byte [0-9]+: op 0: name 3 does not exist \\(the trace has 1 name, "
                                           "0\\); the file is damaged")))
      << loadError(name.str());
}

TEST(OneImportPath, PipescopeTraceJson) {
  std::stringstream lane, name;
  writeTraceJson(*oneOp(5), lane);
  writeTraceJson(*oneOp(0, 3), name);
  EXPECT_EQ(loadError(lane.str()), std::string("'bad': op 0: lane 5 does not exist (the trace has 1 lane, 0)") + kDamaged);
  EXPECT_EQ(loadError(name.str()), std::string("'bad': op 0: name 3 does not exist (the trace has 1 name, 0)") + kDamaged);
}

TEST(OneImportPath, ChromeExportOfPipescope) {
  std::stringstream out;
  writeChromeTrace(*oneOp(0), out);
  std::string text = out.str();
  const auto at = text.find("\"kind\":\"kernel\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"engine_lane\":9,");
  const std::string e = loadError(text);
  EXPECT_TRUE(std::regex_match(e, std::regex("'bad': event [0-9]+: engine lane 9 does not exist \\(the trace has 1 "
                                             "lane, 0\\); the file is damaged: write or export it again")))
      << e;
}

TEST(OneImportPath, PyTorchTraceWithTooManyThreadsFailsBeforeMakingLanes) {
  // A PyTorch-shaped trace whose CPU ops sit on 65535 threads: one lane each is one too many.
  std::string text = "{\"traceEvents\":[";
  for (std::size_t i = 0; i <= kMaxTraceLanes; ++i) {
    if (i > 0) text += ',';
    text += R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":)" + std::to_string(i) +
            R"(,"ts":)" + std::to_string(i) + R"(,"dur":1})";
  }
  text += "]}";
  EXPECT_EQ(loadError(text),
            "'bad': 65535 lanes; a trace holds at most 65534 (threads, streams, engines and nesting levels together)");
}

}  // namespace
}  // namespace pipescope
