// Where a configuration's fields came from, so that a value error names the file and
// field the user must edit (a --config file) or the option they typed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/ConfigJson.h"
#include "config/ConfigOrigins.h"

using namespace pipescope;

namespace {

ConfigIssue issueOf(const PipelineConfig& c, const std::string& field) {
  for (const ConfigIssue& i : validate(c))
    if (i.field == field) return i;
  ADD_FAILURE() << "no issue for " << field;
  return {};
}

}  // namespace

TEST(ConfigOrigins, AFieldReadFromAConfigFileIsBlamedOnIt) {
  const auto path = (std::filesystem::temp_directory_path() / "pipescope-origins-test.json").string();
  std::ofstream(path) << R"({"streams": 0, "mode": "async"})";
  ConfigOrigins origins;
  origins.setAll({ConfigOrigin::Kind::Preset, "pinned"});
  const PipelineConfig c = loadConfigFile(path, {}, &origins);
  std::filesystem::remove(path);
  EXPECT_EQ(origins.of("streams").kind, ConfigOrigin::Kind::File);
  EXPECT_EQ(origins.of("streams").name, path);
  EXPECT_EQ(origins.of("roi").kind, ConfigOrigin::Kind::Preset) << "fields the file leaves alone keep theirs";
  EXPECT_EQ(origins.describe(issueOf(c, "streams")),
            "config file '" + path + "': field 'streams' = 0: allowed 1..32 (" + issueOf(c, "streams").reason + ")");
}

TEST(ConfigOrigins, OptionsAndDefaultsReadAsOptions) {
  PipelineConfig c;
  c.streams = 0;
  ConfigOrigins origins;
  EXPECT_EQ(origins.describe(issueOf(c, "streams")), "--" + issueOf(c, "streams").message());
  origins.set("streams", {ConfigOrigin::Kind::Option, "--streams"});
  EXPECT_EQ(origins.describe(issueOf(c, "streams")), "--" + issueOf(c, "streams").message());
}

TEST(ConfigOrigins, AContradictionSaysWhereTheOtherSideIsSet) {
  PipelineConfig c;
  c.mode = TransferMode::Blocking;
  c.streams = 4;
  const ConfigIssue issue = issueOf(c, "streams");
  EXPECT_EQ(issue.related, std::vector<std::string>{"mode"});
  ConfigOrigins origins;
  origins.set("mode", {ConfigOrigin::Kind::File, "a.json"});
  origins.set("streams", {ConfigOrigin::Kind::Option, "--streams"});
  const std::string text = origins.describe(issue);
  EXPECT_EQ(text.rfind("--streams = 4: allowed 1 in blocking mode (", 0), 0u) << text;
  EXPECT_NE(text.find("; 'mode' is set in config file 'a.json')"), std::string::npos) << text;
  // Both sides in the same file: the file is named once, first.
  origins.set("streams", {ConfigOrigin::Kind::File, "a.json"});
  EXPECT_EQ(origins.describe(issue).find("is set in"), std::string::npos);
}
