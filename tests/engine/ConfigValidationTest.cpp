#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "config/ConfigJson.h"
#include "config/PipelineConfig.h"
#include "config/Presets.h"

#include <nlohmann/json.hpp>

using namespace pipescope;

namespace {

// The single issue validate() reports for `field`, failing the test when there is
// not exactly one.
ConfigIssue onlyIssueFor(const PipelineConfig& c, const std::string& field) {
  const auto issues = validate(c);
  std::vector<ConfigIssue> matching;
  for (const auto& i : issues)
    if (i.field == field) matching.push_back(i);
  EXPECT_EQ(matching.size(), 1u) << "expected one issue for " << field << ", got " << issues.size() << " issues";
  return matching.empty() ? ConfigIssue{} : matching.front();
}

}  // namespace

TEST(ConfigValidation, DefaultAndPresetsAreValid) {
  EXPECT_TRUE(validate(PipelineConfig{}).empty());
  for (const auto& p : builtinPresets()) EXPECT_TRUE(validate(p.config).empty()) << p.name;
}

struct BadValueCase {
  const char* name;
  void (*mutate)(PipelineConfig&);
  const char* field;
  const char* allowedContains;
};

class ConfigBadValue : public ::testing::TestWithParam<BadValueCase> {};

TEST_P(ConfigBadValue, ReportsFieldValueRangeAndReason) {
  PipelineConfig c;
  GetParam().mutate(c);
  const ConfigIssue issue = onlyIssueFor(c, GetParam().field);
  EXPECT_NE(issue.allowed.find(GetParam().allowedContains), std::string::npos) << issue.message();
  EXPECT_FALSE(issue.reason.empty());
  EXPECT_FALSE(issue.value.empty());
  EXPECT_NE(issue.message().find(GetParam().field), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    AllFields, ConfigBadValue,
    ::testing::Values(
        BadValueCase{"streams_zero", [](PipelineConfig& c) { c.streams = 0; }, "streams", "1..32"},
        BadValueCase{"streams_negative", [](PipelineConfig& c) { c.streams = -3; }, "streams", "1..32"},
        BadValueCase{"streams_over", [](PipelineConfig& c) { c.streams = 33; }, "streams", "1..32"},
        BadValueCase{"samples_zero", [](PipelineConfig& c) { c.batchSamples = 0; }, "batch-samples", "1.."},
        BadValueCase{"samples_negative", [](PipelineConfig& c) { c.batchSamples = -1; }, "batch-samples", "1.."},
        BadValueCase{"sample_bytes_tiny", [](PipelineConfig& c) { c.sampleBytes = 2; }, "sample-bytes", "4.."},
        BadValueCase{"sample_bytes_huge", [](PipelineConfig& c) { c.sampleBytes = 2ull << 30; }, "sample-bytes", "4.."},
        BadValueCase{"batch_too_big", [](PipelineConfig& c) { c.batchSamples = 1 << 16; c.sampleBytes = 1 << 20; }, "batch-samples", "at most"},
        BadValueCase{"batches_negative", [](PipelineConfig& c) { c.batchCount = -1; }, "batches", "0.."},
        BadValueCase{"flops_negative", [](PipelineConfig& c) { c.modelFlopsPerByte = -1; }, "model-flops-per-byte", "0.."},
        BadValueCase{"flops_nan", [](PipelineConfig& c) { c.modelFlopsPerByte = std::nan(""); }, "model-flops-per-byte", "0.."},
        BadValueCase{"flops_inf", [](PipelineConfig& c) { c.modelFlopsPerByte = std::numeric_limits<double>::infinity(); }, "model-flops-per-byte", "0.."},
        BadValueCase{"workers_zero", [](PipelineConfig& c) { c.cpuWorkers = 0; }, "cpu-workers", "1.."},
        BadValueCase{"workers_over", [](PipelineConfig& c) { c.cpuWorkers = 1000; }, "cpu-workers", "1.."},
        BadValueCase{"pre_negative", [](PipelineConfig& c) { c.preprocessOpsPerByte = -0.5; }, "preprocess-ops-per-byte", "0.."},
        BadValueCase{"post_over", [](PipelineConfig& c) { c.postprocessOpsPerByte = 1e9; }, "postprocess-ops-per-byte", "0.."},
        BadValueCase{"output_zero", [](PipelineConfig& c) { c.outputRatio = 0; }, "output-ratio", "greater than 0"},
        BadValueCase{"output_over", [](PipelineConfig& c) { c.outputRatio = 100; }, "output-ratio", "at most 16"},
        BadValueCase{"roi_zero", [](PipelineConfig& c) { c.roiFraction = 0; }, "roi", "greater than 0"},
        BadValueCase{"roi_over", [](PipelineConfig& c) { c.roiFraction = 1.5; }, "roi", "at most 1"},
        BadValueCase{"chunks_zero", [](PipelineConfig& c) { c.transferChunks = 0; }, "chunks", "1.."},
        BadValueCase{"chunks_over", [](PipelineConfig& c) { c.transferChunks = 5000; }, "chunks", "1.."},
        BadValueCase{"blocking_streams", [](PipelineConfig& c) { c.mode = TransferMode::Blocking; c.streams = 4; }, "streams", "1 in blocking"},
        BadValueCase{"blocking_breadth", [](PipelineConfig& c) { c.mode = TransferMode::Blocking; c.order = IssueOrder::BreadthFirst; }, "order", "depth-first"},
        BadValueCase{"mapped_resident", [](PipelineConfig& c) { c.memory = HostMemory::Mapped; c.residency = DataResidency::KeepResident; }, "residency", "every-batch"},
        BadValueCase{"mapped_chunks", [](PipelineConfig& c) { c.memory = HostMemory::Mapped; c.transferChunks = 4; }, "chunks", "1 with mapped"},
        BadValueCase{"no_gpu_stage", [](PipelineConfig& c) { c.normalizeKernel = false; c.modelFlopsPerByte = 0; }, "model-flops-per-byte", "greater than 0"}),
    [](const auto& p) { return std::string(p.param.name); });

TEST(ConfigValidation, ReportsEveryProblemAtOnce) {
  PipelineConfig c;
  c.streams = 0;
  c.batchSamples = 0;
  c.roiFraction = 2;
  EXPECT_EQ(validate(c).size(), 3u);
}

TEST(ConfigNames, RoundTripEveryEnum) {
  for (auto n : hostMemoryNames()) EXPECT_EQ(toString(*parseHostMemory(n)), n);
  for (auto n : transferModeNames()) EXPECT_EQ(toString(*parseTransferMode(n)), n);
  for (auto n : issueOrderNames()) EXPECT_EQ(toString(*parseIssueOrder(n)), n);
  for (auto n : syncModeNames()) EXPECT_EQ(toString(*parseSyncMode(n)), n);
  for (auto n : dataResidencyNames()) EXPECT_EQ(toString(*parseDataResidency(n)), n);
  for (auto n : modelPresetNames()) EXPECT_EQ(toString(*parseModelPreset(n)), n);
  EXPECT_FALSE(parseHostMemory("Pinned"));
  EXPECT_FALSE(parseIssueOrder(""));
}

TEST(ConfigBytes, ParsesUnits) {
  EXPECT_EQ(parseBytes("4096"), 4096u);
  EXPECT_EQ(parseBytes("512K"), 512u * 1024);
  EXPECT_EQ(parseBytes("32M"), 32u << 20);
  EXPECT_EQ(parseBytes("32MiB"), 32u << 20);
  EXPECT_EQ(parseBytes("1G"), 1u << 30);
  EXPECT_EQ(parseBytes("1.5K"), 1536u);
  EXPECT_FALSE(parseBytes(""));
  EXPECT_FALSE(parseBytes("M"));
  EXPECT_FALSE(parseBytes("12Q"));
  EXPECT_FALSE(parseBytes("-5"));
  EXPECT_FALSE(parseBytes("0.3"));  // not a whole number of bytes
  EXPECT_EQ(formatBytes(32u << 20), "32 MiB");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
}

TEST(ConfigJson, RoundTripsEveryField) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::ManagedPrefetch;
  c.streams = 7;
  c.order = IssueOrder::BreadthFirst;
  c.batchSamples = 3;
  c.sampleBytes = 12345;
  c.batchCount = 0;
  c.normalizeKernel = false;
  c.model = ModelPreset::Heavy;
  c.modelFlopsPerByte = 12.5;
  c.cpuWorkers = 5;
  c.preprocessOpsPerByte = 1.25;
  c.postprocessOpsPerByte = 0.5;
  c.residency = DataResidency::KeepResident;
  c.outputRatio = 0.25;
  c.roiFraction = 0.5;
  c.transferChunks = 9;
  c.sync = SyncMode::Spin;
  EXPECT_EQ(configFromJson(configToJson(c)), c);
}

TEST(ConfigJson, RejectsUnknownFieldsAndWrongTypes) {
  using nlohmann::json;
  EXPECT_THROW(configFromJson(json{{"stream", 4}}), std::invalid_argument);
  EXPECT_THROW(configFromJson(json{{"streams", "four"}}), std::invalid_argument);
  EXPECT_THROW(configFromJson(json{{"streams", 1.5}}), std::invalid_argument);
  EXPECT_THROW(configFromJson(json{{"memory", "pinnned"}}), std::invalid_argument);
  EXPECT_THROW(configFromJson(json{{"streams", 1e12}}), std::invalid_argument);
  EXPECT_THROW(configFromJson(json::array()), std::invalid_argument);
  try {
    configFromJson(json{{"memory", "pinnned"}});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pageable|pinned"), std::string::npos) << e.what();
  }
  EXPECT_EQ(configFromJson(json{{"streams", 8}}).streams, 8);
}
