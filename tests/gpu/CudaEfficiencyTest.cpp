// On a real GPU: efficiency never lies (ideal bound <= makespan + 1 % noise on every
// preset), the host-bound preset names the host, and the host waits only for the
// batch whose host buffers it reuses (two host slots per stream). Skips without a GPU.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "GpuTestEnvironment.h"
#include "analysis/Limits.h"
#include "config/Presets.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

class CudaEfficiencyTest : public CudaBackendFixture {
 protected:
  std::unique_ptr<Trace> run(const PipelineConfig& c) {
    auto trace = std::make_unique<Trace>();
    trace->setConfig(c);
    RunControl control;
    const RunOutcome o = backend_->run(c, *trace, control);
    EXPECT_EQ(o.state, RunState::Finished) << o.message;
    return trace;
  }

};

TEST_F(CudaEfficiencyTest, EveryPresetStaysAtOrBelowItsBound) {
  for (const Preset& preset : builtinPresets()) {
    const auto trace = run(preset.config);
    const Metrics m = computeMetrics(*trace);
    EXPECT_GT(m.efficiency, 0.0) << preset.name;
    EXPECT_LE(m.efficiency, 1.01) << preset.name << ": bound " << m.idealBoundNs / 1e6 << " ms, makespan "
                                  << m.makespanNs / 1e6 << " ms, critical " << toString(m.critical);
  }
}

TEST_F(CudaEfficiencyTest, CpuBoundPresetIsAtTheHostsBound) {
  // Under racecheck the preset's kernels ran 47.7 ms per batch against the host's
  // 39.9: the sanitizer, not the host, is then the bottleneck.
  if (!sanitizerTool().empty())
    GTEST_SKIP() << "kernels run tens of times slower under compute-sanitizer (" << sanitizerTool()
                 << "): the preset is no longer host-bound there";
  const auto trace = run(findPreset("cpu-bound")->config);
  const Metrics m = computeMetrics(*trace);
  EXPECT_EQ(m.critical, CriticalResource::Host);
  EXPECT_GE(m.efficiency, 0.95);
  const Limits l = computeLimits(m);
  EXPECT_NE(l.criticalSentence.find("The host is critical"), std::string::npos) << l.criticalSentence;
  EXPECT_EQ(l.positionSentence.find("waiting between the stages"), std::string::npos) << l.positionSentence;
}

TEST_F(CudaEfficiencyTest, HostWaitsOnlyForTheBatchWhoseBuffersItReuses) {
  PipelineConfig c;
  c.streams = 2;
  c.batchSamples = 8;
  c.batchCount = 12;
  const auto trace = run(c);
  std::map<std::int32_t, Op> sync, h2dCall;
  std::map<std::int32_t, int> eventRecords;
  trace->ops().snapshot().forEach([&](const Op& op) {
    const std::string name = trace->opName(op);
    if (op.kind == OpKind::HostSync) sync[op.batch] = op;
    if (op.kind == OpKind::ApiCall && name.find("H2D") != std::string::npos) h2dCall[op.batch] = op;
    if (op.kind == OpKind::ApiCall && name == "cudaEventRecord") ++eventRecords[op.batch];
  });
  const int slots = c.hostSlots();  // 4: batch b + 4 takes batch b's host buffers
  for (std::int32_t b = 0; b + slots < c.batchCount; ++b) {
    ASSERT_TRUE(sync.count(b)) << "no wait for batch " << b;
    EXPECT_EQ(trace->opName(sync[b]), "cudaEventSynchronize");
    EXPECT_GE(h2dCall[b + slots].start, sync[b].end) << "batch " << b + slots << " issued before batch " << b
                                                     << " was done";
    // The batch on the same stream one round later did not wait for it.
    EXPECT_LE(h2dCall[b + c.streams].start, sync[b].start) << "batch " << b + c.streams << " waited for " << b;
  }
  for (std::int32_t b = 0; b < c.batchCount; ++b) EXPECT_EQ(eventRecords[b], 1) << "batch " << b;
}

}  // namespace
}  // namespace pipescope
