// Round trips through every trace format: own format, Chrome export, the v1 JSON
// form, atomic saves and the newer-version error.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "TraceFileTestSupport.h"
#include "io/OutputFile.h"
#include "io/ChromeTraceWriter.h"
#include "io/CsvExport.h"
#include "io/NativeFormat.h"
#include "io/TraceFiles.h"
#include "io/TraceJsonWriter.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

using filetest::expectSameTrace;
using filetest::makeSimTrace;
using filetest::ScratchDir;

TEST(NativeFormat, RoundTripIsIdentical) {
  auto trace = makeSimTrace();
  ASSERT_GT(trace->ops().publishedCount(), 100u);
  ScratchDir dir;
  const std::string path = dir.file("run.pipescope");
  saveNativeTrace(*trace, path);
  EXPECT_EQ(detectTraceFileFormat(path), TraceFileFormat::Native);
  auto back = loadTraceFile(path);
  expectSameTrace(*trace, *back);
  // Saving the loaded trace again gives the same bytes: nothing was lost or invented.
  const std::string again = dir.file("again.pipescope");
  saveNativeTrace(*back, again);
  EXPECT_EQ(filetest::readText(path), filetest::readText(again));
}

TEST(NativeFormat, ExtremeValuesRoundTrip) {
  Trace t;
  const auto lane = t.lane(LaneKind::Stream, 0, "stream 0");
  Op a;
  a.submit = INT64_MIN;
  a.ready = -5;
  a.start = INT64_MAX - 10;
  a.end = INT64_MAX;
  a.bytes = UINT64_MAX;
  a.batch = INT32_MAX;
  a.correlation = UINT32_MAX;
  a.lane = lane;
  a.stream = INT16_MAX;
  a.kind = OpKind::Memset;
  a.flags = 0xFF;
  a.name = t.internName("ünïcødé \"name\"\n");
  t.ops().append(a);
  t.ops().publish();
  std::stringstream s;
  writeNativeTrace(t, s);
  auto back = readNativeTrace(s, "memory");
  expectSameTrace(t, *back);
}

TEST(NativeFormat, MillionOpsStayCompact) {
  // Size only (load time and the 1M-op size are in bench/trace_io_bench): 250k
  // simulator-like ops, so 1M stays well under 100 MB.
  Trace t;
  const auto lane = t.lane(LaneKind::Stream, 0, "stream 0");
  std::int64_t now = 0;
  for (int i = 0; i < 250'000; ++i) {
    Op op;
    op.submit = now;
    op.ready = now + 100 + i % 7;
    op.start = op.ready + 50 + i % 13;
    op.end = op.start + 1000 + (std::int64_t(i) * 7919) % 5000;
    now = op.end;
    op.kind = OpKind(i % 5);
    op.batch = i / 5;
    op.stream = std::int16_t(i % 4);
    op.lane = lane;
    op.bytes = op.kind == OpKind::CopyH2D ? 1 << 20 : 0;
    op.correlation = std::uint32_t(i);
    t.ops().append(op);
  }
  t.ops().publish();
  std::stringstream s;
  writeNativeTrace(t, s);
  const auto size = s.str().size();
  EXPECT_LT(size, 25u << 20);
  EXPECT_LT(size, 8u << 20) << "ops should compress far below the 64 bytes each takes in memory";
}

TEST(NativeFormat, NewerVersionGivesClearError) {
  auto trace = makeSimTrace(2);
  std::stringstream s;
  writeNativeTrace(*trace, s);
  std::string bytes = s.str();
  bytes[16] = 7;  // the version field follows the 16-byte signature
  ScratchDir dir;
  filetest::writeText(dir.file("new.pipescope"), bytes);
  try {
    loadTraceFile(dir.file("new.pipescope"));
    FAIL() << "expected an error";
  } catch (const TraceFileError& e) {
    EXPECT_NE(std::string(e.what()).find("newer pipescope (trace format version 7)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Update pipescope"), std::string::npos) << e.what();
  }
}

TEST(AtomicSave, FailureMidwayLeavesOldFileIntact) {
  ScratchDir dir;
  const std::string path = dir.file("keep.pipescope");
  auto original = makeSimTrace(3);
  saveNativeTrace(*original, path);
  const std::string before = filetest::readText(path);

  auto other = makeSimTrace(6);
  setAtomicWriteFaultHook([](const std::string&) { throw std::runtime_error("injected: disk full"); });
  EXPECT_THROW(saveNativeTrace(*other, path), TraceFileError);
  EXPECT_THROW(saveChromeTrace(*other, path), TraceFileError);
  setAtomicWriteFaultHook({});
  EXPECT_EQ(filetest::readText(path), before);
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  expectSameTrace(*original, *loadTraceFile(path));
}

TEST(AtomicSave, WriterExceptionLeavesOldFileIntact) {
  ScratchDir dir;
  const std::string path = dir.file("keep.csv");
  filetest::writeText(path, "old content");
  EXPECT_THROW(writeOutputFile(path,
                                   [](std::ostream& out) {
                                     out << "partial";
                                     throw std::runtime_error("the writer failed midway");
                                   }),
               TraceFileError);
  EXPECT_EQ(filetest::readText(path), "old content");
}

TEST(AtomicSave, MissingFolderNamesTheFile) {
  auto trace = makeSimTrace(2);
  try {
    saveNativeTrace(*trace, "/nonexistent-folder-pipescope/x.pipescope");
    FAIL();
  } catch (const TraceFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder-pipescope/x.pipescope"), std::string::npos);
  }
}

TEST(ChromeExport, ImportPreservesEveryOp) {
  auto trace = makeSimTrace();
  ScratchDir dir;
  const std::string path = dir.file("run.json");
  saveChromeTrace(*trace, path);
  EXPECT_EQ(detectTraceFileFormat(path), TraceFileFormat::ChromeJson);
  auto back = loadTraceFile(path);
  // Times are written in µs with three decimals, so nanoseconds survive exactly.
  expectSameTrace(*trace, *back);
}

TEST(ChromeExport, StructureForPerfetto) {
  auto trace = makeSimTrace(6);
  std::stringstream s;
  writeChromeTrace(*trace, s);
  const auto j = nlohmann::json::parse(s.str());
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::set<std::pair<int, int>> named;
  std::set<int> processes;
  int flowsS = 0, flowsF = 0, counters = 0, complete = 0;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "thread_name") named.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    if (ph == "M" && e["name"] == "process_name") processes.insert(int(e["pid"]));
    if (ph == "s") ++flowsS;
    if (ph == "f") {
      ++flowsF;
      EXPECT_EQ(e["bp"], "e");
    }
    if (ph == "C") ++counters;
    if (ph == "X") {
      ++complete;
      EXPECT_TRUE(e["args"].contains("stream wait (ns)"));
      EXPECT_TRUE(e["args"].contains("engine wait (ns)"));
      slices[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
          {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
    }
  }
  EXPECT_EQ(processes.size(), 2u);
  EXPECT_GT(flowsS, 0);
  EXPECT_EQ(flowsS, flowsF);
  EXPECT_GT(counters, 0);
  EXPECT_GT(complete, int(trace->ops().publishedCount()));  // GPU ops also on their engine lane
  for (auto& [thread, list] : slices) {
    EXPECT_TRUE(named.count(thread)) << "every thread with slices is named";
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i)
      EXPECT_LE(list[i - 1].second, list[i].first + 1e-9) << "slices on one thread never overlap";
  }
}

TEST(ChromeExport, OverlappingOpsGetSubThreads) {
  Trace t;
  const auto lane = t.lane(LaneKind::HostOther, 0, "busy");
  for (int i = 0; i < 3; ++i) {
    Op op;
    op.kind = OpKind::Annotation;
    op.lane = lane;
    op.start = i * 10;
    op.end = op.start + 100;  // all three overlap
    op.submit = op.ready = op.start;
    t.ops().append(op);
  }
  t.ops().publish();
  std::stringstream s;
  writeChromeTrace(t, s);
  const auto j = nlohmann::json::parse(s.str());
  std::set<std::string> names;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") names.insert(e["args"]["name"]);
  EXPECT_EQ(names, (std::set<std::string>{"busy", "busy (2)", "busy (3)"}));
  std::stringstream back(s.str());
  ScratchDir dir;
  filetest::writeText(dir.file("o.json"), s.str());
  auto imported = loadTraceFile(dir.file("o.json"));
  expectSameTrace(t, *imported);
}

TEST(ChromeExport, WaitCauseHook) {
  auto trace = makeSimTrace(2);
  ChromeExportOptions o;
  o.waitCause = [](const Op& op, std::uint64_t) { return isGpuKind(op.kind) ? std::string("behind batch 0") : ""; };
  std::stringstream s;
  writeChromeTrace(*trace, s, o);
  EXPECT_NE(s.str().find("\"wait cause\":\"behind batch 0\""), std::string::npos);
}

TEST(ChromeExport, MicrosTextIsExact) {
  EXPECT_EQ(nsToMicrosText(0), "0.000");
  EXPECT_EQ(nsToMicrosText(1234567), "1234.567");
  EXPECT_EQ(nsToMicrosText(-1500), "-1.500");
  EXPECT_EQ(nsToMicrosText(INT64_MIN), "-9223372036854775.808");
}

TEST(TraceJsonV1, ReadsWhatTheCliWrites) {
  auto trace = makeSimTrace();
  ScratchDir dir;
  const std::string path = dir.file("run.json");
  saveTraceJson(*trace, path);
  EXPECT_EQ(detectTraceFileFormat(path), TraceFileFormat::PipescopeJson);
  expectSameTrace(*trace, *loadTraceFile(path));
}

TEST(TraceFiles, FormatDetectionUsesContentNotName) {
  auto trace = makeSimTrace(2);
  ScratchDir dir;
  saveNativeTrace(*trace, dir.file("native.json"));  // misleading extension
  EXPECT_EQ(detectTraceFileFormat(dir.file("native.json")), TraceFileFormat::Native);
  saveChromeTrace(*trace, dir.file("chrome.bin"));
  EXPECT_EQ(detectTraceFileFormat(dir.file("chrome.bin")), TraceFileFormat::ChromeJson);
  EXPECT_EQ(outputFormatForPath("a.PIPESCOPE"), TraceFileFormat::Native);
  EXPECT_EQ(outputFormatForPath("a.json"), TraceFileFormat::ChromeJson);
  EXPECT_EQ(outputFormatForPath("a.csv"), TraceFileFormat::OpsCsv);
  EXPECT_FALSE(outputFormatForPath("a.txt").has_value());
}

TEST(TraceFiles, LoadReportsProgressAndCancels) {
  auto trace = makeSimTrace(40);
  ScratchDir dir;
  saveNativeTrace(*trace, dir.file("a.pipescope"));
  std::vector<double> seen;
  LoadControl c;
  c.progress = [&](double f) { seen.push_back(f); };
  loadTraceFile(dir.file("a.pipescope"), c);
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  std::atomic<bool> cancel{true};
  LoadControl stop;
  stop.cancel = &cancel;
  EXPECT_THROW(loadTraceFile(dir.file("a.pipescope"), stop), TraceLoadCancelled);
  saveChromeTrace(*trace, dir.file("a.json"));
  EXPECT_THROW(loadTraceFile(dir.file("a.json"), stop), TraceLoadCancelled);
}

TEST(CsvExport, OpsRowsCarryEveryField) {
  auto trace = makeSimTrace(2);
  std::stringstream s;
  writeOpsCsv(*trace, s);
  std::string line;
  std::getline(s, line);
  EXPECT_EQ(
      line,
      "index,kind,name,lane,lane_name,engine_lane,engine_lane_name,batch,stream,bytes,submit_ns,ready_ns,start_ns,"
      "end_ns,duration_ns,stream_wait_ns,engine_wait_ns,gbps,correlation,flags,device");
  std::size_t rows = 0;
  const TraceView ops = trace->ops().snapshot();
  while (std::getline(s, line)) {
    const Op& op = ops[rows];
    EXPECT_NE(line.find("," + std::to_string(op.start) + "," + std::to_string(op.end) + ","), std::string::npos)
        << line;
    ++rows;
  }
  EXPECT_EQ(rows, ops.size());
  EXPECT_EQ(csvField("a,\"b\""), "\"a,\"\"b\"\"\"");
}

TEST(CsvExport, MetricsRowsMatchComputeMetrics) {
  auto trace = makeSimTrace(4);
  const Metrics m = computeMetrics(*trace);
  std::stringstream s;
  writeMetricsCsv(m, s);
  const std::string text = s.str();
  char expected[64];
  std::snprintf(expected, sizeof expected, "makespan,%.17g,ns\n", m.makespanNs);
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  EXPECT_NE(text.find("lane busy: "), std::string::npos);
}

}  // namespace
}  // namespace pipescope
