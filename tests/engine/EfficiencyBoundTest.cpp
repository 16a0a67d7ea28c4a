// Efficiency never lies on the simulator: on every preset, every built-in device
// profile and every stream count, the ideal bound stays at or below the makespan
// (efficiency <= 101 %, the measurement-noise allowance the GPU test shares), and the
// host-bound preset sits at its bound with the host critical.
#include <gtest/gtest.h>

#include "SimulatorTestSupport.h"
#include "analysis/Limits.h"
#include "config/Presets.h"
#include "metrics/Metrics.h"

namespace pipescope {
namespace {

constexpr double kMaxEfficiency = 1.01;

TEST(EfficiencyBound, EveryPresetOnEveryProfileStaysAtOrBelowTheRun) {
  for (const std::string& profile : builtinProfileNames()) {
    for (const Preset& preset : builtinPresets()) {
      for (int streams : {1, 2, 4, 8, 16}) {
        PipelineConfig c = preset.config;
        if (c.isAsync()) c.streams = streams;
        else if (streams != 1) continue;
        c.batchCount = 16;  // the bound's fill matters most for short runs
        const auto run = simtest::runSim(c, *builtinProfile(profile));
        ASSERT_EQ(run.outcome.state, RunState::Finished) << run.outcome.message;
        const Metrics m = computeMetrics(*run.trace);
        EXPECT_GT(m.efficiency, 0.0) << profile << " " << preset.name << " " << streams << " streams";
        EXPECT_LE(m.efficiency, kMaxEfficiency)
            << profile << " " << preset.name << " " << streams << " streams: bound " << m.idealBoundNs
            << " ns, makespan " << m.makespanNs << " ns";
      }
    }
  }
}

TEST(EfficiencyBound, CpuBoundPresetIsAtItsBoundWithTheHostCritical) {
  // Current GPUs: on the c1060/c2050-like profiles the kernels outlast the CPU work.
  for (const std::string profile : {"h200", "h200-calibrated", "h100-calibrated", "pcie4-desktop"}) {
    const auto run = simtest::runSim(findPreset("cpu-bound")->config, *builtinProfile(profile));
    const Metrics m = computeMetrics(*run.trace);
    EXPECT_EQ(m.critical, CriticalResource::Host) << profile;
    EXPECT_GE(m.efficiency, 0.97) << profile;
    const Limits l = computeLimits(m);
    EXPECT_EQ(l.critical, CriticalResource::Host) << profile;
    EXPECT_EQ(l.zone, LimitZone::AtFullOverlap) << profile << ": " << l.positionSentence;
    // Nothing in the text blames the engines or the gaps between the stages.
    EXPECT_EQ(l.positionSentence.find("waiting between the stages"), std::string::npos) << l.positionSentence;
    EXPECT_NE(l.criticalSentence.find("The host is critical"), std::string::npos) << l.criticalSentence;
  }
}

}  // namespace
}  // namespace pipescope
