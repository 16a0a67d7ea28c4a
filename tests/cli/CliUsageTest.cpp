// Exit codes and messages of pipescope-cli for good and bad command lines.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "CliProcess.h"
#include "config/ConfigJson.h"
#include "config/Presets.h"

using pipescope::testing::CliResult;
using pipescope::testing::runCli;

namespace {

constexpr int kOk = 0, kUsage = 2;

::testing::AssertionResult contains(const std::string& haystack, const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << needle << "' not found in:\n" << haystack;
}

// A file in the test's temporary folder holding `text`, removed at scope exit.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() / ("pipescope_cli_test_" + std::to_string(::getpid()) + "_" + name)) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace

TEST(CliUsage, NoCommandPrintsUsageAndFails) {
  const CliResult r = runCli({});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "usage: pipescope-cli COMMAND"));
}

TEST(CliUsage, HelpListsTheCommands) {
  const CliResult r = runCli({"--help"});
  EXPECT_EQ(r.exitCode, kOk);
  for (const char* c : {"run", "presets", "profiles"}) EXPECT_TRUE(contains(r.out, std::string("  ") + c + " "));
}

TEST(CliUsage, UnknownCommandFails) {
  const CliResult r = runCli({"rn"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "unknown command 'rn'"));
}

TEST(CliUsage, RunHelpDocumentsEveryOption) {
  const CliResult r = runCli({"run", "--help"});
  ASSERT_EQ(r.exitCode, kOk);
  for (const char* o : {"mode", "memory", "streams", "order", "batch-samples", "sample-bytes", "batches", "normalize",
                        "no-normalize", "model", "model-flops-per-byte", "cpu-workers", "preprocess-ops-per-byte",
                        "postprocess-ops-per-byte", "residency", "output-ratio", "roi", "chunks", "sync", "preset",
                        "config", "backend", "profile", "device", "trace", "json", "quiet", "progress"})
    EXPECT_TRUE(contains(r.out, std::string("--") + o + " ")) << o;
  // Every field a config file can set is also an option, so no knob is left out.
  const nlohmann::json fields = pipescope::configToJson({});
  for (const auto& [key, value] : fields.items())
    EXPECT_TRUE(contains(r.out, "--" + key + " ")) << key;
  EXPECT_TRUE(contains(r.out, "1..32"));   // streams range
  EXPECT_TRUE(contains(r.out, "512K"));    // byte units
}

TEST(CliUsage, UnknownOptionIsNamedWithASuggestion) {
  const CliResult r = runCli({"run", "--stream", "4"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "unknown option '--stream'"));
  EXPECT_TRUE(contains(r.err, "did you mean --streams?"));
}

TEST(CliUsage, NonNumericValueNamesOptionAndValue) {
  const CliResult r = runCli({"run", "--streams", "four"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--streams = 'four': not an integer"));
}

TEST(CliUsage, OutOfRangeValueGivesTheAllowedRange) {
  const CliResult r = runCli({"run", "--streams", "0"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--streams = 0: allowed 1..32"));
}

TEST(CliUsage, EveryBadValueIsReportedAtOnce) {
  const CliResult r = runCli({"run", "--batch-samples", "0", "--roi", "1.5"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--batch-samples = 0"));
  EXPECT_TRUE(contains(r.err, "--roi = 1.5"));
}

TEST(CliUsage, IncompatibleCombinationExplainsWhy) {
  const CliResult r = runCli({"run", "--mode", "blocking", "--streams", "4"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--streams = 4: allowed 1 in blocking mode"));
  EXPECT_TRUE(contains(r.err, "--mode async"));
}

TEST(CliUsage, BadChoiceListsTheChoices) {
  const CliResult r = runCli({"run", "--memory", "fast"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--memory = 'fast': allowed pageable|pinned|registered|mapped|managed|managed-prefetch"));
}

TEST(CliUsage, BadByteCountShowsTheAcceptedForms) {
  const CliResult r = runCli({"run", "--sample-bytes", "12Q"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--sample-bytes = '12Q': not a byte count"));
}

TEST(CliUsage, MissingValueIsReported) {
  const CliResult r = runCli({"run", "--batches"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "option --batches needs a value"));
}

TEST(CliUsage, FlagWithValueIsRejected) {
  const CliResult r = runCli({"run", "--json=yes"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "option --json takes no value"));
}

TEST(CliUsage, UnknownBackendIsRejected) {
  const CliResult r = runCli({"run", "--backend", "gpu"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--backend = 'gpu': allowed sim|cuda|auto"));
}

TEST(CliUsage, UnknownPresetListsTheKnownOnes) {
  const CliResult r = runCli({"run", "--preset", "fast"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--preset = 'fast': unknown preset"));
  EXPECT_TRUE(contains(r.err, "multi-stream"));
}

TEST(CliUsage, UnknownProfileIsRejected) {
  const CliResult r = runCli({"run", "--profile", "no-such-gpu"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--profile = 'no-such-gpu'"));
}

TEST(CliUsage, MissingConfigFileIsNamed) {
  const CliResult r = runCli({"run", "--config", "/nonexistent/pipescope.json"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "/nonexistent/pipescope.json"));
}

TEST(CliUsage, MalformedConfigFileIsNamed) {
  TempFile f("bad.json", "{\"streams\": ");
  const CliResult r = runCli({"run", "--config", f.path()});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, f.path()));
}

TEST(CliUsage, ConfigFileWithUnknownFieldNamesTheField) {
  TempFile f("typo.json", "{\"stremas\": 4}");
  const CliResult r = runCli({"run", "--config", f.path()});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "stremas"));
}

// A value error inside a config file names the file and the field, as type errors do:
// the user edits the file, not an option they never typed.
TEST(CliUsage, ConfigFileValueOutOfRangeNamesTheFileAndTheField) {
  TempFile f("range.json", "{\"streams\": 0, \"roi\": 2}");
  const CliResult r = runCli({"run", "--config", f.path()});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "config file '" + f.path() + "': field 'streams' = 0: allowed 1..32"));
  EXPECT_TRUE(contains(r.err, "config file '" + f.path() + "': field 'roi' = 2"));
  EXPECT_FALSE(contains(r.err, "--streams")) << "no option was given";
}

TEST(CliUsage, ConfigFileContradictionNamesTheFileAndTheField) {
  TempFile f("contradiction.json", "{\"mode\": \"blocking\", \"streams\": 4}");
  const CliResult r = runCli({"run", "--config", f.path()});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "config file '" + f.path() + "': field 'streams' = 4: allowed 1 in blocking mode"));
}

TEST(CliUsage, ContradictionBetweenAnOptionAndAConfigFileNamesBoth) {
  TempFile f("blocking.json", "{\"mode\": \"blocking\"}");
  CliResult r = runCli({"run", "--config", f.path(), "--streams", "4"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "--streams = 4: allowed 1 in blocking mode"));
  EXPECT_TRUE(contains(r.err, "'mode' is set in config file '" + f.path() + "'"));
  // An option given after the file's value wins, and the file is then not to blame.
  TempFile zero("zero.json", "{\"streams\": 0}");
  r = runCli({"run", "--config", zero.path(), "--streams", "0", "--backend", "sim", "--batches", "1"});
  EXPECT_TRUE(contains(r.err, "--streams = 0: allowed 1..32"));
  EXPECT_FALSE(contains(r.err, zero.path()));
}

TEST(CliUsage, SweepConfigFileValueErrorNamesTheFile) {
  TempFile f("chunks.json", "{\"chunks\": 0}");
  const CliResult r = runCli({"sweep", "--config", f.path(), "--backend", "sim", "--streams", "1"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "config file '" + f.path() + "': field 'chunks' = 0: allowed 1.."));
}

TEST(CliUsage, PresetsListsTheTeachingSequenceOneLineEach) {
  const CliResult r = runCli({"presets"});
  ASSERT_EQ(r.exitCode, kOk);
  for (const char* name : {"naive", "pinned", "async", "multi-stream", "breadth-first"})
    EXPECT_TRUE(contains(r.out, std::string("\n") + name + " ") || r.out.rfind(std::string(name) + " ", 0) == 0)
        << name;
  std::size_t lines = 0;
  for (char ch : r.out) lines += ch == '\n';
  EXPECT_EQ(lines, pipescope::builtinPresets().size());
}

TEST(CliUsage, PresetsRejectsUnknownOptions) {
  const CliResult r = runCli({"presets", "--long"});
  EXPECT_EQ(r.exitCode, kUsage);
  EXPECT_TRUE(contains(r.err, "unknown option '--long'"));
}

TEST(CliUsage, ProfilesListsTheDefaultProfile) {
  const CliResult r = runCli({"profiles"});
  ASSERT_EQ(r.exitCode, kOk);
  EXPECT_TRUE(contains(r.out, "h200"));
}
