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

// Seed 7's first draws as they were before sets over several GPUs existed: adding
// them must not move a one-GPU seed's set (saved measurements and published
// judgements name their sets by seed). The batch counts follow the simulator's
// predictions and are left out; the drawn knobs are not.
TEST(RandomCases, AKnownOneGpuSeedDrawsTheSameSetAsBefore) {
  struct Drawn {
    HostMemory memory;
    TransferMode mode;
    int streams, batchSamples;
    std::uint64_t sampleBytes;
    double flopsPerByte;
  };
  const std::vector<Drawn> before = {
      {HostMemory::ManagedPrefetch, TransferMode::Async, 2, 214, 484, 738},
      {HostMemory::Registered, TransferMode::Async, 5, 16, 11456, 544},
      {HostMemory::Mapped, TransferMode::Blocking, 1, 16, 439900, 304},
      {HostMemory::Pinned, TransferMode::Blocking, 1, 8, 688800, 556},
      {HostMemory::Pinned, TransferMode::Blocking, 1, 16, 9048, 20},
      {HostMemory::Registered, TransferMode::Blocking, 1, 16, 27360, 13},
      {HostMemory::Pinned, TransferMode::Async, 11, 141, 99628, 73},
      {HostMemory::Mapped, TransferMode::Async, 11, 52, 40248, 499},
  };
  const auto cases = drawRandomCases(int(before.size()), 7, h100());
  ASSERT_EQ(cases.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    const PipelineConfig& c = cases[i].config;
    EXPECT_EQ(cases[i].name, "r7-" + std::to_string(i));
    EXPECT_EQ(c.memory, before[i].memory) << i;
    EXPECT_EQ(c.mode, before[i].mode) << i;
    EXPECT_EQ(c.streams, before[i].streams) << i;
    EXPECT_EQ(c.batchSamples, before[i].batchSamples) << i;
    EXPECT_EQ(c.sampleBytes, before[i].sampleBytes) << i;
    EXPECT_EQ(c.modelFlopsPerByte, before[i].flopsPerByte) << i;
    EXPECT_FALSE(c.isMultiGpu()) << i;
  }
}

TEST(RandomMultiGpuCases, TheSameSeedAndGpuCountDrawTheSameSetAndLeaveTheOneGpuSetAlone) {
  const auto one = drawRandomCases(10, 7, h100());
  const auto a = drawRandomMultiGpuCases(20, 7, 2, h100());
  const auto b = drawRandomMultiGpuCases(20, 7, 2, h100());
  const auto four = drawRandomMultiGpuCases(20, 7, 4, h100());
  const auto other = drawRandomMultiGpuCases(20, 8, 2, h100());
  ASSERT_EQ(a.size(), 20u);
  EXPECT_EQ(a.front().name, "r7-2g-0");
  EXPECT_EQ(four.back().name, "r7-4g-19");
  int sameAsFour = 0, sameAsOther = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].config, b[i].config) << a[i].name;
    EXPECT_EQ(a[i].config.devices, (std::vector<int>{0, 1})) << a[i].name;
    EXPECT_EQ(four[i].config.devices, (std::vector<int>{0, 1, 2, 3})) << four[i].name;
    PipelineConfig asTwo = four[i].config;
    asTwo.devices = {0, 1};
    sameAsFour += asTwo.memory == a[i].config.memory && asTwo.sampleBytes == a[i].config.sampleBytes ? 1 : 0;
    sameAsOther += other[i].config == a[i].config ? 1 : 0;
  }
  EXPECT_LT(sameAsFour, 3) << "the sets over 2 and 4 GPUs of one seed should share no draws";
  EXPECT_EQ(sameAsOther, 0);
  const auto oneAgain = drawRandomCases(10, 7, h100());
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i].config, oneAgain[i].config) << one[i].name;
  EXPECT_THROW(drawRandomMultiGpuCases(2, 7, 1, h100()), std::invalid_argument);
  EXPECT_THROW(drawRandomMultiGpuCases(2, 7, 9, h100()), std::invalid_argument);
}

TEST(RandomMultiGpuCases, EveryDrawIsValidSizedWithinTheLimitsAndDataParallelRunsWholeSteps) {
  const RandomCaseLimits limits = multiGpuCaseLimits();
  EXPECT_LT(limits.maxMakespanNs, RandomCaseLimits{}.maxMakespanNs);
  auto sim = makeSimulatorBackend(h100());
  for (const auto& c : drawRandomMultiGpuCases(40, 11, 3, h100(), limits)) {
    const PipelineConfig& p = c.config;
    EXPECT_TRUE(validate(p).empty()) << c.name;
    EXPECT_EQ(p.gpuCount(), 3) << c.name;
    const auto streams = std::uint64_t(p.isAsync() ? p.streams : 1);
    const std::uint64_t hostPerGpu = std::uint64_t(p.hostSlots()) * (p.batchBytes() + p.outputBytes());
    if (p.parallel == ParallelMode::Data) {
      EXPECT_EQ(p.batchCount % 3, 0) << c.name;
      EXPECT_GE(p.batchCount, 3 * 4) << c.name;
      EXPECT_LE(3 * hostPerGpu, limits.maxHostBufferBytes) << c.name;
      EXPECT_LE(p.batchBytes() + p.allreduceBytes, limits.maxDeviceBufferBytes) << c.name;
    } else {
      EXPECT_GE(p.batchCount, 4) << c.name;
      EXPECT_LE(hostPerGpu, limits.maxHostBufferBytes) << c.name;
      EXPECT_LE(2 * streams * p.activationBytes, limits.maxDeviceBufferBytes) << c.name;
    }
    std::string failure;
    const double t = measureMakespanNs(*sim, p, failure);
    EXPECT_TRUE(failure.empty()) << failure;
    EXPECT_GE(t, limits.minMakespanNs) << c.name;
    EXPECT_LE(t, limits.maxMakespanNs) << c.name;
  }
}

// Every value of every several-GPU knob, and the one-GPU knobs beside them, in a set
// of a few hundred draws.
TEST(RandomMultiGpuCases, ASetOfAFewHundredReachesEverySeveralGpuKnobValue) {
  const auto cases = drawRandomMultiGpuCases(250, 3, 4, h100());
  std::set<int> buckets, microBatches, streams;
  std::set<HostMemory> memories;
  std::set<ModelPreset> models;
  std::set<std::string> labels;
  bool blocking = false, noAllReduce = false, cpu = false;
  std::uint64_t smallestAllReduce = ~0ull, largestAllReduce = 0, smallestActivation = ~0ull, largestActivation = 0;
  for (const auto& c : cases) {
    const PipelineConfig& p = c.config;
    memories.insert(p.memory);
    models.insert(p.model);
    if (p.isAsync()) streams.insert(p.streams);
    blocking |= !p.isAsync();
    cpu |= p.preprocessOpsPerByte > 0 || p.postprocessOpsPerByte > 0;
    if (p.parallel == ParallelMode::Data && p.allreduceBytes == 0) noAllReduce = true;
    if (p.parallel == ParallelMode::Data && p.allreduceBytes > 0) {
      buckets.insert(p.buckets);
      EXPECT_NE(p.allreduceBytes & (p.allreduceBytes - 1), 0u) << c.name << ": a power of two";
      EXPECT_EQ(p.allreduceBytes % 4, 0u) << c.name;
      smallestAllReduce = std::min(smallestAllReduce, p.allreduceBytes);
      largestAllReduce = std::max(largestAllReduce, p.allreduceBytes);
    }
    if (p.parallel == ParallelMode::Pipeline) {
      microBatches.insert(p.microBatches);
      EXPECT_NE(p.activationBytes & (p.activationBytes - 1), 0u) << c.name << ": a power of two";
      smallestActivation = std::min(smallestActivation, p.activationBytes);
      largestActivation = std::max(largestActivation, p.activationBytes);
    }
    for (const auto& kv : knobValues(p)) labels.insert(kv.knob + "=" + kv.value);
  }
  for (int b = 0; b <= 8; ++b) EXPECT_TRUE(buckets.count(b)) << b << " buckets never drawn";
  for (int m = 1; m <= 8; ++m) EXPECT_TRUE(microBatches.count(m)) << m << " micro-batches never drawn";
  EXPECT_GE(smallestAllReduce, 1u << 20);
  EXPECT_LE(largestAllReduce, 256u << 20);
  EXPECT_LT(smallestAllReduce, 2u << 20);
  EXPECT_GT(largestAllReduce, 128u << 20);
  EXPECT_LT(smallestActivation, 256u << 10);
  EXPECT_GT(largestActivation, 16u << 20);
  EXPECT_TRUE(noAllReduce && blocking && cpu);
  EXPECT_EQ(memories.size(), 6u);
  EXPECT_EQ(models.size(), 3u);
  EXPECT_GE(streams.size(), 12u);
  for (const char* l : {"gpus=4", "parallel=data", "parallel=pipeline", "all-reduce=none", "all-reduce=< 4 MiB",
                        "all-reduce=4-64 MiB", "all-reduce=>= 64 MiB", "buckets=0-1 (no overlap)", "buckets=2-4",
                        "buckets=5+", "micro-batches=1", "micro-batches=2-4", "micro-batches=5+"})
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

TEST(ValidationBreakdown, ListsTheSeveralGpuKnobsAfterTheOneGpuKnobsInTheirOrder) {
  PipelineConfig one;
  one.streams = 2;
  PipelineConfig pipeline = one, data = one;
  pipeline.devices = data.devices = {0, 1};
  pipeline.parallel = ParallelMode::Pipeline;
  pipeline.microBatches = 4;
  data.allreduceBytes = 3 << 20;
  data.buckets = 6;
  // The pipeline row comes first, yet "all-reduce" and "buckets" still precede "micro-batches".
  const ValidationReport r = reportWithErrors({{one, 1}, {pipeline, 2}, {data, 3}});
  std::vector<std::string> knobs;
  for (const KnobError& e : errorByKnob(r))
    if (knobs.empty() || knobs.back() != e.knob) knobs.push_back(e.knob);
  ASSERT_GE(knobs.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(knobs.end() - 5, knobs.end()),
            (std::vector<std::string>{"gpus", "parallel", "all-reduce", "buckets", "micro-batches"}));
  EXPECT_EQ(knobs, knobNames());
  std::map<std::string, int> rows;
  for (const KnobError& e : errorByKnob(r)) rows[e.knob + "=" + e.value] = e.rows;
  EXPECT_EQ(rows["gpus=2"], 2);
  EXPECT_EQ(rows["buckets=5+"], 1);
  EXPECT_EQ(rows["micro-batches=2-4"], 1);
  EXPECT_EQ(rows["all-reduce=< 4 MiB"], 1);
  EXPECT_EQ(rows.count("gpus=1"), 0u);  // a one-GPU row has no several-GPU knobs
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
