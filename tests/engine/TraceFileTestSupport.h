#pragma once
// Shared by the trace file tests: a simulated trace with every kind of metadata set,
// a whole-trace comparison, and a scratch folder removed at the end of the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "SimulatorTestSupport.h"
#include "trace/Trace.h"

namespace pipescope::filetest {

/// A 2-stream async pinned run with a live config change, a failed outcome and a note,
/// so every piece of metadata differs from its default.
inline std::unique_ptr<Trace> makeSimTrace(int batches = 12) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::Pinned;
  c.streams = 2;
  c.batchCount = batches;
  c.batchSamples = 8;
  c.sampleBytes = 64 * 1024;
  simtest::SimRun run = simtest::runSim(c, simtest::h200());
  PipelineConfig later = c;
  later.streams = 3;
  later.modelFlopsPerByte = 123.25;
  run.trace->addConfigChange(5, later);
  run.trace->setOutcome(RunOutcome{RunState::Stopped, "stopped by the user, \"quoted\""});
  run.trace->setCompletedBatches(batches);
  return std::move(run.trace);
}

inline void expectSameOps(const Trace& a, const Trace& b) {
  const TraceView va = a.ops().snapshot(), vb = b.ops().snapshot();
  ASSERT_EQ(va.size(), vb.size());
  for (std::uint64_t i = 0; i < va.size(); ++i) {
    ASSERT_EQ(va[i], vb[i]) << "op " << i;
    ASSERT_EQ(a.opName(va[i]), b.opName(vb[i])) << "op " << i;
  }
}

inline void expectSameTrace(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.configHistory(), b.configHistory());
  EXPECT_EQ(a.device(), b.device());
  EXPECT_EQ(a.outcome(), b.outcome());
  EXPECT_EQ(a.completedBatches(), b.completedBatches());
  EXPECT_EQ(a.lanes(), b.lanes());
  EXPECT_EQ(a.names(), b.names());
  expectSameOps(a, b);
}

class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("pipescope-files-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::filesystem::path path_;
};

inline void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace pipescope::filetest
