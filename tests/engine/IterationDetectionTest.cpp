// Iterations of imported traces (io/IterationDetection.h): every way they are found,
// and how GPU ops are assigned to them. Synthetic Chrome traces, times in µs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/TraceFiles.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

std::string traceOf(const std::string& events) { return R"({"traceEvents":[)" + events + "]}"; }

std::string range(const std::string& cat, const std::string& name, double ts, double dur, int pid = 1, int tid = 1) {
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":)" + std::to_string(pid) +
         R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
         "}";
}

std::string api(const std::string& name, double ts, double dur, int corr) {
  return R"({"ph":"X","cat":"cuda_runtime","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"correlation":)" + std::to_string(corr) + "}}";
}

std::string gpu(const std::string& cat, const std::string& name, int stream, double ts, double dur, int corr = 0,
                long bytes = 0) {
  std::string args = R"("stream":)" + std::to_string(stream);
  if (corr > 0) args += R"(,"correlation":)" + std::to_string(corr);
  if (bytes > 0) args += R"(,"bytes":)" + std::to_string(bytes);
  return R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":0,"tid":)" + std::to_string(stream) +
         R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{)" + args + "}}";
}

std::shared_ptr<Trace> load(const std::string& events, ImportOptions options = {}) {
  return loadTraceFromBytes(traceOf(events), "synthetic.json", options);
}

/// The batch of the first op named `name`.
std::int32_t batchOf(const Trace& t, const std::string& name) {
  std::int32_t b = -99;
  t.ops().snapshot().forEach([&](const Op& op) {
    if (b == -99 && t.opName(op) == name) b = op.batch;
  });
  return b;
}

TEST(IterationDetection, ProfilerStepsAndLaunchCorrelation) {
  // k1 is launched in step 5 but runs during step 6: it belongs to step 5's iteration.
  auto t = load(range("user_annotation", "ProfilerStep#5", 0, 100) + "," +
                range("user_annotation", "ProfilerStep#6", 100, 100) + "," + api("cudaLaunchKernel", 90, 5, 1) + "," +
                api("cudaLaunchKernel", 150, 5, 2) + "," + gpu("kernel", "k1", 7, 120, 50, 1) + "," +
                gpu("kernel", "k2", 7, 175, 10, 2));
  const IterationInfo it = t->iterations();
  EXPECT_EQ(it.count, 2);
  EXPECT_EQ(it.source, "ProfilerStep#N ranges");
  EXPECT_EQ(t->completedBatches(), 2);
  EXPECT_EQ(batchOf(*t, "k1"), 0);
  EXPECT_EQ(batchOf(*t, "k2"), 1);
  EXPECT_EQ(computeMetrics(*t).batches, 2);
}

std::string stagesTrace() {
  std::string e = range("user_annotation", "setup", 0, 10);
  double ts = 10;
  for (int i = 0; i < 3; ++i) {
    for (const char* stage : {"cpu_to_gpu", "model", "gpu_to_cpu"}) {
      e += "," + range("user_annotation", stage, ts, 10);
      e += "," + range("cpu_op", std::string("aten::op_") + stage, ts + 1, 5);  // nested: not a marker
      ts += 10;
    }
  }
  return e + "," + api("cudaLaunchKernel", 21, 1, 1) + "," + gpu("kernel", "k", 7, 25, 3, 1);
}

TEST(IterationDetection, RepeatingHostRangesAfterAPrologue) {
  auto t = load(stagesTrace());
  const IterationInfo it = t->iterations();
  EXPECT_EQ(it.count, 3);
  EXPECT_EQ(it.marker, "cpu_to_gpu");
  EXPECT_EQ(it.source, "repeating host user ranges");
  EXPECT_EQ(batchOf(*t, "setup"), kNoBatch);  // before the first iteration
  EXPECT_EQ(batchOf(*t, "k"), 0);
}

TEST(IterationDetection, SingleRepeatingRangeIsEnough) {
  std::string e;
  for (int i = 0; i < 4; ++i) {
    if (i) e += ",";
    e += range("user_annotation", "random_generation", i * 50.0, 20) + "," +
         range("user_annotation", "inner", i * 50.0 + 1, 5);  // nested in it
  }
  auto t = load(e);
  EXPECT_EQ(t->iterations().count, 4);
  EXPECT_EQ(t->iterations().marker, "random_generation");
}

TEST(IterationDetection, GpuSideRangesAssignByStream) {
  // No host ranges; GPU ranges per stream, round robin: s7@0, s8@50, s7@100, s8@150.
  auto t = load(range("gpu_user_annotation", "step", 0, 40, 0, 7) + "," +
                range("gpu_user_annotation", "step", 50, 40, 0, 8) + "," +
                range("gpu_user_annotation", "step", 100, 40, 0, 7) + "," +
                range("gpu_user_annotation", "step", 150, 40, 0, 8) + "," + gpu("kernel", "a", 7, 10, 5) + "," +
                gpu("kernel", "late", 8, 105, 5) + "," + gpu("kernel", "c", 7, 110, 5));
  EXPECT_EQ(t->iterations().count, 4);
  EXPECT_EQ(t->iterations().source, "repeating GPU user ranges");
  EXPECT_EQ(batchOf(*t, "a"), 0);
  EXPECT_EQ(batchOf(*t, "late"), 1) << "stream 8's latest marker, not the time window of stream 7's";
  EXPECT_EQ(batchOf(*t, "c"), 2);
}

TEST(IterationDetection, NamedMarkerOverridesTheGuess) {
  ImportOptions o;
  o.iterations.marker = "model";
  auto t = load(stagesTrace(), o);
  EXPECT_EQ(t->iterations().count, 3);
  EXPECT_EQ(t->iterations().marker, "model");
  EXPECT_EQ(t->iterations().source, "--iteration-marker");
  EXPECT_EQ(batchOf(*t, "cpu_to_gpu"), kNoBatch) << "before the first 'model'";
  EXPECT_EQ(batchOf(*t, "k"), 0) << "launched at 21 µs, inside the first 'model'";
}

TEST(IterationDetection, UnknownMarkerSaysWhichRangesExist) {
  ImportOptions o;
  o.iterations.marker = "nope";
  auto t = load(stagesTrace(), o);
  EXPECT_EQ(t->iterations().count, 0);
  EXPECT_NE(t->iterations().why.find("'nope'"), std::string::npos) << t->iterations().why;
  EXPECT_NE(t->iterations().why.find("'cpu_to_gpu'"), std::string::npos) << t->iterations().why;
  EXPECT_EQ(computeMetrics(*t).batches, 0);
}

TEST(IterationDetection, NoRangesSaysWhyAndWhatToDo) {
  auto t = load(range("cpu_op", "aten::mm", 0, 10) + "," + api("cudaLaunchKernel", 1, 1, 1) + "," +
                gpu("kernel", "k", 7, 3, 2, 1));
  EXPECT_EQ(t->iterations().count, 0);
  EXPECT_NE(t->iterations().why.find("no ProfilerStep#N"), std::string::npos) << t->iterations().why;
  EXPECT_NE(t->iterations().why.find("--iteration-marker"), std::string::npos);
  EXPECT_EQ(batchOf(*t, "k"), kNoBatch);
}

TEST(IterationDetection, RangesThatDoNotRepeat) {
  auto t = load(range("user_annotation", "load", 0, 10) + "," + range("user_annotation", "train", 10, 10) + "," +
                range("user_annotation", "save", 20, 10));
  EXPECT_EQ(t->iterations().count, 0);
  EXPECT_NE(t->iterations().why.find("do not repeat"), std::string::npos) << t->iterations().why;
}

TEST(IterationDetection, BatchSizeGivesSamples) {
  ImportOptions o;
  o.batchSize = 16;
  auto t = load(stagesTrace(), o);
  EXPECT_EQ(t->iterations().samplesPerIteration, 16);
  EXPECT_EQ(computeMetrics(*t).samples, 3 * 16);
}

TEST(IterationDetection, BatchSizeFromRecordedInputShapes) {
  auto withDims = [](const std::string& name, const std::string& dims, double ts) {
    return R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
           R"(,"dur":2,"args":{"Input Dims":)" + dims + R"(,"Input type":["float"]}})";
  };
  auto t = load(stagesTrace() + "," + withDims("aten::conv2d", "[[16, 3, 224, 224], [64, 3, 7, 7], []]", 11) + "," +
                withDims("aten::conv2d", "[[16, 64, 56, 56], [64, 64, 3, 3]]", 12) + "," +
                withDims("aten::add", "[[5, 5], [5, 5]]", 13) + "," + withDims("aten::linear", "[[], [16, 512]]", 14));
  EXPECT_EQ(t->iterations().samplesPerIteration, 16);
  EXPECT_NE(t->iterations().samplesSource.find("aten::conv2d"), std::string::npos) << t->iterations().samplesSource;
  ImportOptions given;
  given.batchSize = 32;  // the user's figure wins
  EXPECT_EQ(loadTraceFromBytes(traceOf(stagesTrace() + "," + withDims("aten::conv2d", "[[16, 3, 8, 8]]", 11)),
                               "t.json", given)
                ->iterations()
                .samplesPerIteration,
            32);
}

TEST(IterationDetection, AssignsOpsDirectly) {
  // The pure function: names table + ops, no importer.
  std::vector<std::string> names{"", "step", "k"};
  std::vector<Op> ops(3);
  ops[0] = Op{0, 0, 0, 100, 0, 0, 0, kNoLane, kNoLane, 1, kNoStream, OpKind::Annotation, kOpUserRange};
  ops[1] = Op{100, 100, 100, 200, 0, 0, 0, kNoLane, kNoLane, 1, kNoStream, OpKind::Annotation, kOpUserRange};
  ops[2] = Op{150, 150, 160, 170, 0, 0, 0, kNoLane, kNoLane, 2, 1, OpKind::Kernel, 0};
  const IterationInfo info = assignIterations(ops, names, {});
  EXPECT_EQ(info.count, 2);
  EXPECT_EQ(ops[0].batch, 0);
  EXPECT_EQ(ops[1].batch, 1);
  EXPECT_EQ(ops[2].batch, 1);  // no launch record: its start's window
}

TEST(TensorBoardFolders, OneTraceOrAChoice) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "pipescope-tb-test";
  fs::remove_all(dir);
  const fs::path run = dir / "plugins" / "profile" / "run1";
  fs::create_directories(run);
  EXPECT_THROW(resolveTracePath(dir.string()), TraceFileError);  // none yet
  std::ofstream(run / "host_1.123.pt.trace.json") << traceOf(stagesTrace());
  EXPECT_EQ(resolveTracePath(dir.string()), (run / "host_1.123.pt.trace.json").string());
  std::ofstream(run / "host_2.456.pt.trace.json") << traceOf(stagesTrace());
  std::ofstream(run / "notes.json") << "{}";
  try {
    resolveTracePath(dir.string());
    ADD_FAILURE() << "two workers' files must ask for a choice";
  } catch (const TraceFileError& e) {
    EXPECT_NE(std::string(e.what()).find("--worker"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host_2.456.pt.trace.json"), std::string::npos) << e.what();
  }
  EXPECT_EQ(resolveTracePath(dir.string(), "host_2"), (run / "host_2.456.pt.trace.json").string());
  EXPECT_EQ(loadTraceFile(resolveTracePath(dir.string(), "host_2"))->iterations().count, 3);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipescope
