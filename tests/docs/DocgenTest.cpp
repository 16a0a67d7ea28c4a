// pipescope-docgen's pieces on hand-written input: reading Qt's help text, troff
// escaping, which options complete files or words.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Completions.h"
#include "ManPage.h"
#include "ProgramDoc.h"

using namespace pipescope::docgen;

namespace {
const char* kQtHelp =
    "Usage: /usr/bin/pipescope [options] [file]\n"
    "Shows, live, how a CPU-GPU pipeline spends its time.\n"
    "\n"
    "Options:\n"
    "  -h, --help                 Displays help on commandline options.\n"
    "  -v, --version              Displays version information.\n"
    "  --screenshot <FILE>        Run headless, save the window to FILE and\n"
    "                             exit.\n"
    "  --theme <NAME>             light|dark (default light).\n"
    "\n"
    "Arguments:\n"
    "  file                       A trace to open.\n";
}  // namespace

TEST(Docgen, ReadsQtHelpText) {
  const ProgramDoc p = programFromQtHelp("pipescope", "1.2.3", kQtHelp);
  EXPECT_EQ(p.usage, "[options] [file]");
  EXPECT_EQ(p.summary, "Shows, live, how a CPU-GPU pipeline spends its time.");
  ASSERT_EQ(p.options.size(), 4u);
  EXPECT_EQ(p.options[0].name, "help");
  EXPECT_EQ(p.options[0].shortName, "h");
  EXPECT_EQ(p.options[2].name, "screenshot");
  EXPECT_EQ(p.options[2].value, "FILE");
  EXPECT_EQ(p.options[2].help, "Run headless, save the window to FILE and exit.");  // continuation joined
  EXPECT_TRUE(p.options[2].takesFile());
  ASSERT_EQ(p.operands, std::vector<std::string>{"file"});
  EXPECT_EQ(p.operandHelp[0], "A trace to open.");
}

TEST(Docgen, RejectsHelpTextWithoutOptions) {
  EXPECT_THROW(programFromQtHelp("x", "1", "Usage: x\n"), std::runtime_error);
  EXPECT_THROW(programFromCatalogue(nlohmann::json::object()), std::runtime_error);
}

TEST(Docgen, TroffEscapesDashesBackslashesAndControlLines) {
  EXPECT_EQ(troffEscape("--streams"), "\\-\\-streams");
  EXPECT_EQ(troffEscape("a\\b"), "a\\eb");
  EXPECT_EQ(troffEscape(".hidden\n'quote"), "\\&.hidden\n\\&'quote");
}

TEST(Docgen, ChoicesComeFromTheProgramOrTheHelpText) {
  OptionDoc listed{"memory", "", "KIND", "host memory: pageable|pinned (default pinned)", "", {}};
  EXPECT_EQ(listed.choices(), (std::vector<std::string>{"pageable", "pinned"}));
  OptionDoc named{"preset", "", "NAME", "a preset: naive, pinned", "", {"naive", "pinned"}};
  EXPECT_EQ(named.choices(), (std::vector<std::string>{"naive", "pinned"}));
  OptionDoc number{"streams", "", "N", "CUDA streams, 1..32", "", {}};
  EXPECT_TRUE(number.choices().empty());
  OptionDoc flag{"json", "", "", "a|b", "", {}};
  EXPECT_TRUE(flag.choices().empty());
}

TEST(Docgen, FileOperandsAreTheUsagesBareFileWords) {
  CommandDoc analyze{"analyze", "", "pipescope-cli analyze FILE [--json]", "", "", {}};
  CommandDoc convert{"convert", "", "pipescope-cli convert IN OUT [--metrics]", "", "", {}};
  CommandDoc calibrate{"calibrate", "", "pipescope-cli calibrate --out FILE [--device N]", "", "", {}};
  EXPECT_TRUE(analyze.takesFileOperands());
  EXPECT_TRUE(convert.takesFileOperands());
  EXPECT_FALSE(calibrate.takesFileOperands());
}

TEST(Docgen, ManPageHasTheStandardSections) {
  ProgramDoc p = programFromQtHelp("pipescope", "1.2.3", kQtHelp);
  const std::string man = renderManPage(p, {"live view", "", "pipescope-cli(1)"});
  for (const char* s : {".TH PIPESCOPE 1 \"\" \"pipescope 1.2.3\"", ".SH NAME\npipescope \\- live view", ".SH SYNOPSIS",
                        ".SH DESCRIPTION", ".SH OPTIONS", ".SH ARGUMENTS", ".SH SEE ALSO\npipescope-cli(1)"})
    EXPECT_NE(man.find(s), std::string::npos) << s << "\n" << man;
  EXPECT_NE(man.find("\\fB\\-h\\fR, \\fB\\-\\-help\\fR"), std::string::npos);
}

TEST(Docgen, CompletionsForAProgramWithoutCommandsOfferOptionsAndFiles) {
  ProgramDoc p = programFromQtHelp("pipescope", "1", kQtHelp);
  const std::string bash = renderBashCompletion(p);
  EXPECT_NE(bash.find("complete -F _pipescope pipescope"), std::string::npos);
  EXPECT_NE(bash.find("--theme) COMPREPLY=($(compgen -W 'light dark'"), std::string::npos) << bash;
  const std::string zsh = renderZshCompletion(p);
  EXPECT_EQ(zsh.rfind("#compdef pipescope\n", 0), 0u);
  EXPECT_NE(zsh.find("'*:file:_files'"), std::string::npos);
}
