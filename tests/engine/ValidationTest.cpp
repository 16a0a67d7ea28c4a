#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "sim/DeviceProfile.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"

namespace pipescope {
namespace {

DeviceProfile h200() { return *builtinProfile("h200"); }

TEST(ValidationMatrix, FullMatrixCoversEveryFactor) {
  const auto cases = validationMatrix(false);
  std::set<std::string> names;
  std::set<int> streams;
  std::set<double> intensities;
  std::set<std::uint64_t> batchBytes;
  std::set<int> workers;
  bool blocking = false, async = false, pageable = false, pinned = false, depth = false, breadth = false;
  for (const auto& c : cases) {
    EXPECT_TRUE(validate(c.config).empty()) << c.name;
    names.insert(c.name);
    blocking |= !c.config.isAsync();
    async |= c.config.isAsync();
    pageable |= c.config.memory == HostMemory::Pageable;
    pinned |= c.config.memory == HostMemory::Pinned;
    if (c.config.isAsync()) {
      streams.insert(c.config.streams);
      if (c.config.streams > 1) {
        depth |= c.config.order == IssueOrder::DepthFirst;
        breadth |= c.config.order == IssueOrder::BreadthFirst;
      }
    }
    intensities.insert(c.config.modelFlopsPerByte);
    batchBytes.insert(c.config.batchBytes());
    if (c.config.preprocessOpsPerByte > 0) workers.insert(c.config.cpuWorkers);
  }
  EXPECT_EQ(names.size(), cases.size()) << "case names must be unique";
  EXPECT_TRUE(blocking && async && pageable && pinned && depth && breadth);
  EXPECT_EQ(streams, (std::set<int>{1, 2, 4, 8}));
  EXPECT_EQ(intensities, (std::set<double>{100, 1050, 3200}));
  EXPECT_EQ(batchBytes, (std::set<std::uint64_t>{1u << 20, 32u << 20}));
  EXPECT_EQ(workers, (std::set<int>{1, 2, 4}));
  // 3 workloads x 2 sizes x (2 blocking + 7 async pinned + 2 async pageable) + 6 CPU-worker cases.
  EXPECT_EQ(cases.size(), 72u);
}

TEST(ValidationMatrix, QuickMatrixIsASmallerValidSubset) {
  const auto full = validationMatrix(false);
  const auto quick = validationMatrix(true);
  EXPECT_EQ(quick.size(), 14u);
  for (const auto& q : quick) {
    EXPECT_TRUE(validate(q.config).empty()) << q.name;
    const bool inFull = std::any_of(full.begin(), full.end(), [&](const ValidationCase& f) { return f.name == q.name; });
    EXPECT_TRUE(inFull) << q.name << " is not in the full matrix";
  }
}

TEST(Validation, SameBackendOnBothSidesHasZeroError) {
  auto measured = makeSimulatorBackend(h200());
  auto predicted = makeSimulatorBackend(h200());
  const auto cases = validationMatrix(true);
  ValidationOptions o;
  o.measuredRepetitions = 2;
  o.warmUp = false;
  std::size_t calls = 0;
  o.onRow = [&](std::size_t i, std::size_t n, const ValidationRow& r) {
    EXPECT_EQ(i, calls++);
    EXPECT_EQ(n, cases.size());
    EXPECT_TRUE(r.ok()) << r.failure;
  };
  const ValidationReport report = runValidation(*measured, *predicted, cases, o);
  EXPECT_EQ(calls, cases.size());
  ASSERT_EQ(report.rows.size(), cases.size());
  for (const auto& r : report.rows) {
    EXPECT_GT(r.measuredNs, 0) << r.name;
    EXPECT_EQ(r.measuredNs, r.predictedNs) << r.name;
    EXPECT_EQ(r.errorPct, 0.0) << r.name;
  }
  EXPECT_EQ(report.medianAbsErrorPct, 0.0);
  EXPECT_EQ(report.maxAbsErrorPct, 0.0);
  EXPECT_EQ(report.failures, 0);
}

TEST(Validation, SlowerComputeIsPredictedSlowerOnComputeBoundCases) {
  DeviceProfile slow = h200();
  slow.modelGflops /= 2;  // the model kernel takes twice as long
  auto measured = makeSimulatorBackend(h200());
  auto predicted = makeSimulatorBackend(slow);
  std::vector<ValidationCase> cases;
  for (const auto& c : validationMatrix(false))
    if (c.name == "async-pinned-s4-df-compute-large" || c.name == "blocking-pinned-copy-large") cases.push_back(c);
  ASSERT_EQ(cases.size(), 2u);
  ValidationOptions o;
  o.measuredRepetitions = 1;
  const ValidationReport report = runValidation(*measured, *predicted, cases, o);
  ASSERT_EQ(report.rows.size(), 2u);
  // Compute-bound with overlap: the makespan nearly doubles (the copies of the first
  // and last batch do not), so the error is a little under +100 %.
  const bool computeFirst = report.rows[0].name == "async-pinned-s4-df-compute-large";
  const ValidationRow& compute = computeFirst ? report.rows[0] : report.rows[1];
  const ValidationRow& copy = computeFirst ? report.rows[1] : report.rows[0];
  EXPECT_GT(compute.errorPct, 80.0);
  EXPECT_LT(compute.errorPct, 100.0);
  // Blocking copy-heavy: the kernel is a smaller part of each batch, the error is smaller but positive.
  EXPECT_GT(copy.errorPct, 0.0);
  EXPECT_LT(copy.errorPct, compute.errorPct);
  EXPECT_DOUBLE_EQ(report.maxAbsErrorPct, compute.errorPct);
  EXPECT_EQ(report.worstCase, compute.name);
}

TEST(Validation, SummarizeTakesMedianAndMaxOfAbsoluteErrorsAndSkipsFailures) {
  ValidationReport r;
  auto row = [](const char* name, double err, const char* failure = "") {
    ValidationRow x;
    x.name = name;
    x.errorPct = err;
    x.failure = failure;
    return x;
  };
  r.rows = {row("a", 2.0), row("b", -8.0), row("c", 3.0), row("d", -1.0), row("e", 50.0, "cuda run failed")};
  summarize(r);
  EXPECT_DOUBLE_EQ(r.medianAbsErrorPct, 2.5);  // |errors| 1, 2, 3, 8
  EXPECT_DOUBLE_EQ(r.maxAbsErrorPct, 8.0);
  EXPECT_EQ(r.worstCase, "b");
  EXPECT_EQ(r.failures, 1);
}

TEST(Validation, ErrorBeyondTheMeasuredRangeIsWhatNoiseCannotExplain) {
  // Measured 90..120 (median 100): 110 lies inside, 130 is 10 % of the median above
  // the slowest run, 81 is 9 % below the fastest.
  auto row = [](double predicted) {
    ValidationReport r;
    ValidationRow x;
    x.name = "x";
    x.measuredNs = 100;
    x.measuredMinNs = 90;
    x.measuredMaxNs = 120;
    x.predictedNs = predicted;
    r.rows = {x};
    return r;
  };
  // runValidation fills the errors; here the same arithmetic through a real run's
  // fields: a simulator measured against itself lies inside its own range.
  auto sim = makeSimulatorBackend(h200());
  ValidationOptions o;
  o.warmUp = false;
  PipelineConfig c;
  c.batchCount = 4;
  const ValidationReport self = runValidation(*sim, *sim, {{"self", c}}, o);
  ASSERT_TRUE(self.rows[0].ok());
  EXPECT_EQ(self.rows[0].errorBeyondSpreadPct, 0.0);
  EXPECT_EQ(self.rows[0].measuredMinNs, self.rows[0].measuredMaxNs);
  EXPECT_EQ(self.withinSpread, 1);
  for (auto [predicted, beyond] : {std::pair{110.0, 0.0}, {130.0, 10.0}, {81.0, 9.0}}) {
    ValidationReport r = row(predicted);
    setValidationErrors(r.rows[0]);
    summarize(r);
    EXPECT_DOUBLE_EQ(r.rows[0].errorBeyondSpreadPct, beyond) << predicted;
    EXPECT_EQ(r.withinSpread, beyond == 0 ? 1 : 0) << predicted;
    EXPECT_DOUBLE_EQ(r.rows[0].spreadPct(), 30.0);
  }
}

TEST(Validation, FailedRunIsReportedNotCounted) {
  PipelineConfig bad;
  bad.streams = 0;  // invalid: the simulator refuses it
  auto a = makeSimulatorBackend(h200());
  auto b = makeSimulatorBackend(h200());
  ValidationOptions o;
  o.warmUp = false;
  const ValidationReport report = runValidation(*a, *b, {{"bad", bad}}, o);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_FALSE(report.rows[0].ok());
  EXPECT_NE(report.rows[0].failure.find("simulator run failed"), std::string::npos) << report.rows[0].failure;
  EXPECT_EQ(report.failures, 1);
  EXPECT_EQ(report.maxAbsErrorPct, 0.0);
}

TEST(Validation, MarkdownHasOneRowPerCaseAndTheSummary) {
  ValidationReport r;
  ValidationRow x;
  x.name = "async-pinned-s2-df-balanced-large";
  x.config.streams = 2;
  x.measuredNs = 2'000'000;
  x.measuredMinNs = 1'900'000;
  x.measuredMaxNs = 2'060'000;
  x.predictedNs = 2'100'000;
  x.errorPct = 5.0;
  x.errorBeyondSpreadPct = 2.0;
  x.measuredLaunchNs = 7'480;
  r.rows = {x};
  summarize(r);
  const std::string md = validationMarkdown(r, "H100 vs h100");
  EXPECT_NE(md.find("### H100 vs h100"), std::string::npos);
  EXPECT_NE(md.find("| async-pinned-s2-df-balanced-large | async pinned, 2 streams depth-first"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| 2.000 | 1.900–2.060 | 2.100 | +5.0 | 2.0 | 7.5 |"), std::string::npos) << md;
  EXPECT_NE(md.find("spread of the measured side (slowest - fastest, median over rows): 8.0 %"), std::string::npos)
      << md;
  EXPECT_NE(md.find("Predictions within the measured range: 0 of 1; median error beyond the range: 2.0 %"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Median |error|: 5.0 %"), std::string::npos);
  EXPECT_NE(md.find("Max |error|: 5.0 % (async-pinned-s2-df-balanced-large)"), std::string::npos);
}

}  // namespace
}  // namespace pipescope
