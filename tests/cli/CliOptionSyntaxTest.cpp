// The command-line syntax CLI11 gives every command (values after a space or '=',
// later values win, stray words rejected) and `--dump-options json`, which the man
// page and shell completions are generated from.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <set>

#include "CliProcess.h"

using pipescope::testing::CliResult;
using pipescope::testing::runCli;
using nlohmann::json;

namespace {

json runJson(const std::vector<std::string>& args) {
  const CliResult r = runCli(args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return json::parse(r.out, nullptr, false);
}

const json* command(const json& catalogue, const std::string& name) {
  for (const auto& c : catalogue["commands"])
    if (c["name"] == name) return &c;
  return nullptr;
}

}  // namespace

TEST(CliOptionSyntax, ValuesAfterEqualsOrSpaceMeanTheSame) {
  const json spaced = runJson({"run", "--backend", "sim", "--batches", "3", "--streams", "2", "--memory", "pinned", "--json"});
  const json equals = runJson({"run", "--backend=sim", "--batches=3", "--streams=2", "--memory=pinned", "--json"});
  ASSERT_TRUE(spaced.is_object() && equals.is_object());
  EXPECT_EQ(spaced["config"], equals["config"]);
  EXPECT_EQ(equals["config"]["streams"], 2);
  EXPECT_EQ(equals["config"]["memory"], "pinned");
}

TEST(CliOptionSyntax, TheLastValueOfARepeatedOptionWins) {
  const json j = runJson({"run", "--backend", "sim", "--batches", "2", "--streams", "2", "--streams=4", "--json"});
  EXPECT_EQ(j["config"]["streams"], 4);
}

TEST(CliOptionSyntax, AStrayWordIsRejected) {
  const CliResult r = runCli({"run", "--backend", "sim", "four"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unexpected argument 'four': options start with --"), std::string::npos) << r.err;
}

TEST(CliOptionSyntax, ErrorsNameTheCommand) {
  const CliResult r = runCli({"presets", "--verbos"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown option '--verbos' (did you mean --verbose?)"), std::string::npos) << r.err;
}

TEST(CliOptionSyntax, DumpOptionsDescribesEveryCommandAndOption) {
  const CliResult r = runCli({"--dump-options", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json catalogue = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(catalogue.is_object()) << r.out.substr(0, 200);
  EXPECT_EQ(catalogue["program"], "pipescope-cli");
  std::set<std::string> names;
  for (const auto& c : catalogue["commands"]) names.insert(c["name"].get<std::string>());
  for (const char* c : {"analyze", "compare", "convert", "presets", "profiles", "run", "sweep", "validate"})
    EXPECT_TRUE(names.count(c)) << c;

  // run: every option of its --help, with value names, help text and groups.
  const json* run = command(catalogue, "run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ((*run)["usage"], "pipescope-cli run [options]");
  std::map<std::string, json> options;
  for (const auto& o : (*run)["options"]) options[o["name"].get<std::string>()] = o;
  ASSERT_TRUE(options.count("streams"));
  EXPECT_EQ(options["streams"]["value"], "N");
  EXPECT_NE(options["streams"]["help"].get<std::string>().find("1..32"), std::string::npos);
  EXPECT_EQ(options["streams"]["group"], "Transfers and streams");
  EXPECT_EQ(options["json"]["value"], "");  // a flag
  EXPECT_NE((*run)["epilogue"].get<std::string>().find("Exit status"), std::string::npos);

  // sweep lists its own grid options and run's base-configuration knobs.
  const json* sweep = command(catalogue, "sweep");
  ASSERT_NE(sweep, nullptr);
  std::set<std::string> sweepOptions;
  for (const auto& o : (*sweep)["options"]) sweepOptions.insert(o["name"].get<std::string>());
  for (const char* o : {"batch", "streams", "repeat", "mode", "profile"}) EXPECT_TRUE(sweepOptions.count(o)) << o;

  // The catalogue run did not run anything: the output is JSON only.
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliOptionSyntax, DumpOptionsNeedsAKnownFormat) {
  const CliResult r = runCli({"--dump-options", "yaml"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--dump-options json"), std::string::npos) << r.err;
  EXPECT_EQ(runCli({"--dump-options=json"}).exitCode, 0);
}
