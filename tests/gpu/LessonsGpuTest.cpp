// Every lesson on the CUDA backend: its "this GPU" runs measured on the card (three
// repetitions after a warm-up), its legacy runs simulated, and each claim's verdict
// computed from the measured repetitions. Whether a claim holds depends on the card
// (docs/analysis.md records it for an H100 and an H200); this test checks that the
// verdicts are the ones the measurements give. Skips cleanly without a GPU.
#include <gtest/gtest.h>

#include "analysis/LessonReport.h"
#include "analysis/LessonRunner.h"
#include "GpuTestEnvironment.h"

namespace pipescope {
namespace {

class LessonsGpu : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    PIPESCOPE_LOAD_CUDA_MODULE(cuda);
    const CudaProbe probe = cuda.probe();
    if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
    if (!sanitizerTool().empty()) GTEST_SKIP() << "lessons are minutes of GPU work under compute-sanitizer";
  }
};

TEST_P(LessonsGpu, ClaimsAreJudgedOnTheMeasuredRuns) {
  const Lesson& lesson = builtinLessons()[std::size_t(GetParam())];
  BackendOptions cuda;
  cuda.choice = BackendChoice::Cuda;
  LessonRunOptions options = lessonOnBackend(cuda);
  options.reps = 3;
  const LessonOutcome out = runLesson(lesson, options);
  ASSERT_TRUE(out.ok()) << lesson.id << ": " << out.error;
  ASSERT_TRUE(out.measured()) << out.device.summary();
  EXPECT_EQ(out.device.backend, "cuda");
  ASSERT_EQ(out.runs.size(), lesson.runs.size());
  RepeatedMetrics perRun;
  for (std::size_t i = 0; i < out.runs.size(); ++i) {
    const MeasuredRun& m = out.runs[i];
    const bool legacy = !lesson.runs[i].profile.empty();
    EXPECT_EQ(m.legacy, legacy);
    EXPECT_EQ(m.measured, !legacy);
    ASSERT_EQ(m.reps.size(), legacy ? 1u : 3u) << m.label;
    for (std::size_t r = 0; r < m.traces.size(); ++r) {
      EXPECT_EQ(m.traces[r]->device().backend, legacy ? "simulator" : "cuda") << m.label;
      EXPECT_EQ(m.traces[r]->outcome().state, RunState::Finished) << m.label;
      EXPECT_EQ(m.reps[r].batches, lesson.runs[i].config.batchCount) << m.label;
      EXPECT_GT(m.reps[r].makespanNs, 0) << m.label;
      // The figures are the trace's: recomputing them gives the same makespan.
      EXPECT_DOUBLE_EQ(computeMetrics(*m.traces[r]).makespanNs, m.reps[r].makespanNs) << m.label;
    }
    perRun.push_back(m.reps);
  }
  // Each verdict is the one the measured repetitions give.
  ASSERT_EQ(out.checks.size(), lesson.expectations.size());
  for (std::size_t i = 0; i < out.checks.size(); ++i) {
    const ClaimVerdict expected = judgeClaim(lesson.expectations[i], lesson.runs, perRun);
    EXPECT_EQ(out.checks[i].verdict, expected.verdict) << out.checks[i].claim;
    EXPECT_EQ(out.checks[i].valueSpread, expected.valueSpread) << out.checks[i].claim;
    EXPECT_EQ(out.checks[i].referenceSpread, expected.referenceSpread) << out.checks[i].claim;
  }
  EXPECT_EQ(out.observedChoice, observedChoiceOnMedians(lesson.prediction, perRun));
  // Tell the log what this card showed (docs/analysis.md collects it).
  std::string report = lesson.id + " on " + out.device.summary() + "\n" + formatLessonRuns(out);
  for (const ClaimVerdict& c : out.checks) report += "  [" + verdictMark(c.verdict) + "] " + formatClaim(c) + "\n";
  std::cout << report;
}

INSTANTIATE_TEST_SUITE_P(AllLessons, LessonsGpu, ::testing::Range(0, 9), [](const auto& param) {
  std::string id = builtinLessons()[std::size_t(param.param)].id;
  for (char& c : id)
    if (c == '-') c = '_';
  return std::to_string(param.param + 1) + "_" + id;
});

}  // namespace
}  // namespace pipescope
