// The host's speed in a validation: each row's kernel launch time from its runs, and
// the set's median against the profile's calibrated launch cost.
#include <gtest/gtest.h>

#include "sim/HostSpeed.h"
#include "sim/SimulatorBackend.h"
#include "sim/Validation.h"
#include "sim/ValidationFile.h"

#include <cstdio>
#include <fstream>

namespace pipescope {
namespace {

Op launch(std::uint16_t name, std::int64_t start, std::int64_t ns) {
  Op op;
  op.kind = OpKind::ApiCall;
  op.name = name;
  op.submit = op.ready = op.start = start;
  op.end = start + ns;
  return op;
}

TEST(HostSpeed, ARunsLaunchTimeIsTheMedianOfItsLaunchCallsAlone) {
  Trace t;
  const std::uint16_t l = t.internName("cudaLaunchKernel");
  const std::uint16_t m = t.internName("cudaMemcpyAsync H2D");
  t.ops().append(launch(l, 0, 4000));
  t.ops().append(launch(m, 5000, 90000));  // another call: not a launch
  t.ops().append(launch(l, 100000, 9000));
  t.ops().append(launch(l, 200000, 5000));
  Op kernel = launch(l, 300000, 70000);  // a kernel op under the same name is no call
  kernel.kind = OpKind::Kernel;
  t.ops().append(kernel);
  t.ops().publish();
  EXPECT_DOUBLE_EQ(launchCallNs(t), 5000);
  Trace none;
  EXPECT_DOUBLE_EQ(launchCallNs(none), 0);
}

ValidationRow row(HostMemory memory, double preprocess, double launchNs) {
  ValidationRow r;
  r.config.memory = memory;
  r.config.preprocessOpsPerByte = preprocess;
  r.measuredNs = r.predictedNs = 1e6;
  r.measuredLaunchNs = launchNs;
  return r;
}

TEST(HostSpeed, TheSetsSpeedComesFromRowsWhereNothingCompetedWithTheLaunches) {
  DeviceProfile p;
  p.kernelLaunchNs = 5000;
  ValidationReport r;
  r.rows = {row(HostMemory::Pinned, 0, 6000), row(HostMemory::Mapped, 0, 8000), row(HostMemory::Registered, 0, 7000),
            row(HostMemory::Pageable, 0, 40000),   // staged by driver threads
            row(HostMemory::Pinned, 2.0, 30000),   // CPU workers beside the launches
            row(HostMemory::Managed, 0, 20000),    // fault handling on the CPU
            row(HostMemory::Pinned, 0, 0)};        // no launch time measured
  auto s = hostSpeedOf(r, p);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rows, 3);
  EXPECT_TRUE(s->aloneRows);
  EXPECT_DOUBLE_EQ(s->measuredLaunchNs, 7000);
  EXPECT_DOUBLE_EQ(s->ratio, 1.4);
  EXPECT_EQ(describeHostSpeed(*s, p),
            "host speed: the measured runs' kernel launches took 7.0 us (median over 3 rows where nothing else on "
            "the host competed with them), 1.40x the 5.0 us the profile was calibrated with");
  // Only competing rows: all of them count, and the line says so.
  r.rows = {row(HostMemory::Pageable, 0, 40000), row(HostMemory::Managed, 0, 20000)};
  s = hostSpeedOf(r, p);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->aloneRows);
  EXPECT_DOUBLE_EQ(s->measuredLaunchNs, 30000);
  EXPECT_EQ(describeHostSpeed(*s, p).find("competed"), std::string::npos);
  // Nothing measured, or no calibrated launch cost: no reading.
  r.rows = {row(HostMemory::Pinned, 0, 0)};
  EXPECT_FALSE(hostSpeedOf(r, p));
  r.rows = {row(HostMemory::Pinned, 0, 6000)};
  p.kernelLaunchNs = 0;
  EXPECT_FALSE(hostSpeedOf(r, p));
}

TEST(HostSpeed, AValidationKeepsEachRowsLaunchTimeAndItsFileToo) {
  // The simulator as the measured side launches at its profile's cost: a profile
  // with launches 1.5x as slow reads 1.5x the judged profile's.
  DeviceProfile judged = *builtinProfile("h100-calibrated");
  judged.kernelLaunchNs = 5000;
  DeviceProfile slower = judged;
  slower.kernelLaunchNs = 7500;
  auto measured = makeSimulatorBackend(slower);
  auto predicted = makeSimulatorBackend(judged);
  std::vector<ValidationCase> cases = validationMatrix(true);
  cases.resize(3);
  ValidationOptions o;
  o.measuredRepetitions = 1;
  o.warmUp = false;
  const ValidationReport report = runValidation(*measured, *predicted, cases, o);
  // Trace times are whole nanoseconds: a call's ends round apart by at most 1 ns.
  for (const ValidationRow& r : report.rows) EXPECT_NEAR(r.measuredLaunchNs, 7500, 1) << r.name;
  const auto s = hostSpeedOf(report, judged);
  ASSERT_TRUE(s);
  EXPECT_NEAR(s->ratio, 1.5, 1.0 / 5000);
  ValidationRecord record;
  record.measuredDevice = "sim";
  record.profile = judged.name;
  record.recordedAt = "now";
  record.report = report;
  const std::string path = ::testing::TempDir() + "host-speed-measurements.json";
  {
    std::ofstream out(path);
    out << validationRecordToJson(record);
  }
  const ValidationRecord loaded = loadValidationRecord(path);
  ASSERT_EQ(loaded.report.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(loaded.report.rows[0].measuredLaunchNs, report.rows[0].measuredLaunchNs);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pipescope
