#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "io/OutputFile.h"
#include "sim/DeviceProfile.h"
#include "sim/RandomCases.h"
#include "sim/SimulatorBackend.h"
#include "sim/ValidationBreakdown.h"
#include "sim/ValidationFile.h"

namespace pipescope {
namespace {

DeviceProfile h100() { return *builtinProfile("h100-calibrated"); }

TEST(RandomCases, TheSameSeedDrawsTheSameSetAndAnotherSeedAnotherSet) {
  const auto a = drawRandomCases(40, 7, h100());
  const auto b = drawRandomCases(40, 7, h100());
  const auto c = drawRandomCases(40, 8, h100());
  ASSERT_EQ(a.size(), 40u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].config, b[i].config) << a[i].name;
  }
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i].config == c[i].config ? 1 : 0;
  EXPECT_EQ(same, 0);
  EXPECT_EQ(a.front().name, "r7-0");
}

TEST(RandomCases, EveryDrawIsValidAndSizedToRunFiveTo300MsOnTheSizingProfile) {
  const RandomCaseLimits limits;
  auto sim = makeSimulatorBackend(h100());
  for (const auto& c : drawRandomCases(60, 11, h100(), limits)) {
    EXPECT_TRUE(validate(c.config).empty()) << c.name;
    EXPECT_GE(c.config.batchBytes(), limits.minBatchBytes / 2) << c.name;
    EXPECT_LE(c.config.batchBytes(), limits.maxBatchBytes) << c.name;
    EXPECT_GE(c.config.batchCount, 4) << c.name;
    std::string failure;
    const double t = measureMakespanNs(*sim, c.config, failure);
    EXPECT_TRUE(failure.empty()) << failure;
    EXPECT_GE(t, limits.minMakespanNs) << c.name;
    EXPECT_LE(t, limits.maxMakespanNs) << c.name;
  }
}

// Every value of every knob the command line accepts appears in a set of a few
// hundred draws: the judgement covers the whole space, not the matrix's corner.
TEST(RandomCases, ASetOfAFewHundredReachesEveryKnobValue) {
  const auto cases = drawRandomCases(300, 3, h100());
  std::set<HostMemory> memories;
  std::set<int> streams;
  std::set<SyncMode> syncs;
  std::set<ModelPreset> models;
  std::set<std::string> labels;
  bool blocking = false, breadth = false, resident = false, roi = false, chunks = false, smallOutput = false,
       bigOutput = false, workers = false, notPow2 = false, normalizeOff = false;
  for (const auto& c : cases) {
    const PipelineConfig& p = c.config;
    memories.insert(p.memory);
    if (p.isAsync()) streams.insert(p.streams);
    syncs.insert(p.sync);
    models.insert(p.model);
    blocking |= !p.isAsync();
    breadth |= p.isAsync() && p.order == IssueOrder::BreadthFirst;
    resident |= p.residency == DataResidency::KeepResident;
    roi |= p.roiFraction < 1;
    chunks |= p.transferChunks > 1;
    smallOutput |= p.outputRatio < 1;
    bigOutput |= p.outputRatio > 1;
    workers |= p.cpuWorkers > 1 && (p.preprocessOpsPerByte > 0 || p.postprocessOpsPerByte > 0);
    normalizeOff |= !p.normalizeKernel;
    const std::uint64_t b = p.batchBytes();
    notPow2 |= (b & (b - 1)) != 0;
    for (const auto& kv : knobValues(p)) labels.insert(kv.knob + "=" + kv.value);
  }
  EXPECT_EQ(memories.size(), 6u);
  for (int s = 1; s <= 16; ++s) EXPECT_TRUE(streams.count(s)) << s << " streams never drawn";
  EXPECT_EQ(syncs.size(), 3u);
  EXPECT_EQ(models.size(), 3u);
  EXPECT_TRUE(blocking && breadth && resident && roi && chunks && smallOutput && bigOutput && workers && notPow2 &&
              normalizeOff);
  for (const char* l : {"batch size=< 1 MiB", "batch size=1-16 MiB", "batch size=>= 16 MiB", "CPU stages=1 worker",
                        "CPU stages=2+ workers", "CPU stages=none"})
    EXPECT_TRUE(labels.count(l)) << l;
}

ValidationReport reportWithErrors(const std::vector<std::pair<PipelineConfig, double>>& rows) {
  ValidationReport r;
  for (const auto& [config, error] : rows) {
    ValidationRow row;
    row.name = "row" + std::to_string(r.rows.size());
    row.config = config;
    row.measuredRunsNs = {100.0, 100.0, 100.0};
    row.measuredNs = row.measuredMinNs = row.measuredMaxNs = 100;
    row.predictedNs = 100 + error;
    setValidationErrors(row);
    r.rows.push_back(row);
  }
  summarize(r);
  return r;
}

TEST(ValidationSummary, GivesThe90thPercentileAndTheBias) {
  std::vector<std::pair<PipelineConfig, double>> rows;
  for (int e = 1; e <= 10; ++e) rows.push_back({PipelineConfig{}, e % 2 ? -double(e) : double(e)});
  const ValidationReport r = reportWithErrors(rows);
  EXPECT_DOUBLE_EQ(r.medianAbsErrorPct, 5.5);
  EXPECT_DOUBLE_EQ(r.p90AbsErrorPct, 9);  // nearest rank: the 9th of 10
  EXPECT_DOUBLE_EQ(r.maxAbsErrorPct, 10);
  EXPECT_DOUBLE_EQ(r.meanSignedErrorPct, (-1 + 2 - 3 + 4 - 5 + 6 - 7 + 8 - 9 + 10) / 10.0);
  EXPECT_EQ(r.predictedTooFast, 5);
}

TEST(ValidationBreakdown, GroupsTheErrorByEachKnobsValue) {
  PipelineConfig pinned, pageable;
  pageable.memory = HostMemory::Pageable;
  const ValidationReport r = reportWithErrors({{pinned, 2}, {pinned, -4}, {pageable, -20}});
  std::map<std::string, KnobError> byKey;
  for (const KnobError& e : errorByKnob(r)) byKey[e.knob + "=" + e.value] = e;
  ASSERT_TRUE(byKey.count("memory=pinned"));
  ASSERT_TRUE(byKey.count("memory=pageable"));
  EXPECT_EQ(byKey["memory=pinned"].rows, 2);
  EXPECT_DOUBLE_EQ(byKey["memory=pinned"].medianAbsErrorPct, 3);
  EXPECT_DOUBLE_EQ(byKey["memory=pinned"].meanSignedErrorPct, -1);
  EXPECT_DOUBLE_EQ(byKey["memory=pageable"].meanSignedErrorPct, -20);
  EXPECT_EQ(byKey["mode=async"].rows, 3);
  const std::string md = knobErrorMarkdown(errorByKnob(r));
  EXPECT_NE(md.find("| memory | pageable | 1 | 20.0 | -20.0 | 20.0 |"), std::string::npos) << md;
}

TEST(ValidationFile, SavedMeasurementsJudgeAnotherProfileWithoutTheGpu) {
  // The "measured" side is the simulator with one profile; judged again against
  // another profile from the saved file, the errors are those of a direct run.
  auto measured = makeSimulatorBackend(*builtinProfile("h200-calibrated"));
  auto first = makeSimulatorBackend(*builtinProfile("h100-calibrated"));
  const auto cases = drawRandomCases(8, 5, h100());
  ValidationOptions vo;
  vo.warmUp = false;
  vo.measuredRepetitions = 2;
  ValidationRecord rec;
  rec.report = runValidation(*measured, *first, cases, vo);
  rec.measuredDevice = "simulator h200-calibrated";
  rec.profile = "h100-calibrated";
  rec.seed = 5;
  rec.recordedAt = "2026-11-24 12:00 UTC";
  const auto path = (std::filesystem::temp_directory_path() / "pipescope-validation-record.json").string();
  writeOutputFile(path, [&](std::ostream& o) { o << validationRecordToJson(rec); });

  ValidationRecord loaded = loadValidationRecord(path);
  EXPECT_EQ(loaded.seed, std::optional<std::uint64_t>(5));
  ASSERT_EQ(loaded.report.rows.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(loaded.report.rows[i].config, cases[i].config);
    EXPECT_EQ(loaded.report.rows[i].measuredRunsNs.size(), 2u);
    EXPECT_DOUBLE_EQ(loaded.report.rows[i].errorPct, rec.report.rows[i].errorPct);
  }
  auto other = makeSimulatorBackend(*builtinProfile("pcie4-desktop"));
  repredict(loaded.report, *other);
  const ValidationReport direct = runValidation(*measured, *other, cases, vo);
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_NEAR(loaded.report.rows[i].errorPct, direct.rows[i].errorPct, 1e-9) << cases[i].name;
  EXPECT_NEAR(loaded.report.medianAbsErrorPct, direct.medianAbsErrorPct, 1e-9);
  std::filesystem::remove(path);
}

TEST(ValidationFile, ABrokenFileGetsAMessageNamingIt) {
  const auto path = (std::filesystem::temp_directory_path() / "pipescope-validation-broken.json").string();
  {
    std::ofstream f(path);
    f << R"({"format": "pipescope-validation", "version": 1, "rows": [{"name": 3}]})";
  }
  try {
    loadValidationRecord(path);
    FAIL() << "a broken file must not load";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing or wrong field"), std::string::npos) << e.what();
  }
  {
    std::ofstream f(path);
    f << R"({"something": "else"})";
  }
  EXPECT_THROW(loadValidationRecord(path), std::runtime_error);
  std::filesystem::remove(path);
}

TEST(ProfileValidation, SimilarRunsAreThoseOfTheSameMemoryKindAndMode) {
  ProfileValidation v;
  v.device = "test GPU";
  v.seed = 9;
  PipelineConfig pinned, pageable;
  pageable.memory = HostMemory::Pageable;
  for (int i = 0; i < 5; ++i) v.runs.push_back({pinned, 2.0 + i});       // |error| 2..6 on pinned runs
  for (int i = 0; i < 5; ++i) v.runs.push_back({pageable, -30.0 - i});   // 30..34 on pageable runs
  PipelineConfig query = pageable;
  query.streams = 2;
  const auto e = similarRunsError(v, query, 5);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->runs, 5);
  EXPECT_DOUBLE_EQ(e->medianAbsErrorPct, 32);
  EXPECT_DOUBLE_EQ(e->maxAbsErrorPct, 34);
  EXPECT_NE(e->text.find("the 5 most similar validation runs"), std::string::npos) << e->text;
  EXPECT_FALSE(similarRunsError(ProfileValidation{}, query));

  DeviceProfile p = h100();
  p.validation = v;
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
}

}  // namespace
}  // namespace pipescope
