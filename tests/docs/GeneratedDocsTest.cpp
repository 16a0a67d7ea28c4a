// The man pages and shell completions generated at build time (app/docgen): they
// cover every option the programs accept, render without troff warnings, and the
// completions complete what a user types.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace {

const std::string kDir = PIPESCOPE_DOCS_DIR;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a shell command; stdout and stderr together, and the exit status.
std::pair<int, std::string> shell(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The CLI's generated file, and the app's where the build has the UI.
std::vector<std::string> pages(const char* cli, const char* gui) {
  if (PIPESCOPE_GUI_DOCS) return {cli, gui};
  return {cli};
}

bool have(const char* tool) { return shell(std::string("command -v ") + tool).first == 0; }

// What bash's completion function offers for the words typed so far (the last one
// being completed; bash splits "--memory=pi" into "--memory", "=", "pi").
std::string bashComplete(const std::string& program, const std::string& words) {
  std::string fn = "_" + program;
  for (char& c : fn) c = c == '-' ? '_' : c;
  const std::string script = ::testing::TempDir() + "pipescope-complete-" + std::to_string(::getpid()) + ".sh";
  std::ofstream(script) << "source '" << kDir << "/" << program << ".bash'\n"
                        << "COMP_WORDS=(" << words << ")\n"
                        << "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                        << fn << "\n"
                        << "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
  return shell("bash '" + script + "'").second;
}

nlohmann::json catalogue() {
  const auto [rc, out] = shell(std::string("'") + PIPESCOPE_CLI + "' --dump-options json");
  EXPECT_EQ(rc, 0) << out;
  return nlohmann::json::parse(out, nullptr, false);
}

}  // namespace

TEST(GeneratedManPage, DocumentsEveryCommandAndOptionOfTheCli) {
  const std::string man = readFile(kDir + "/pipescope-cli.1");
  ASSERT_FALSE(man.empty());
  EXPECT_NE(man.find(".TH PIPESCOPE-CLI 1"), std::string::npos);
  const auto cat = catalogue();
  ASSERT_TRUE(cat.is_object());
  for (const auto& c : cat["commands"]) {
    EXPECT_NE(man.find(".SS \"" + c["name"].get<std::string>() + "\""), std::string::npos) << c["name"];
    for (const auto& o : c["options"]) {
      std::string escaped;
      for (char ch : o["name"].get<std::string>()) escaped += ch == '-' ? std::string("\\-") : std::string(1, ch);
      EXPECT_NE(man.find("\\fB\\-\\-" + escaped + "\\fR"), std::string::npos) << c["name"] << " --" << o["name"];
    }
  }
}

TEST(GeneratedManPage, RendersWithoutWarnings) {
  if (!have("groff")) GTEST_SKIP() << "groff not installed";
  for (const std::string& page : pages("pipescope-cli.1", "pipescope.1")) {
    const auto [rc, out] = shell("LC_ALL=C groff -man -Tascii -ww -z '" + kDir + "/" + page + "'");
    EXPECT_EQ(rc, 0) << page << ": " << out;
    EXPECT_TRUE(out.empty()) << page << ": " << out;
  }
  if (!have("man")) return;
  const auto [rc, out] = shell("LC_ALL=C MANWIDTH=100 man -l '" + kDir + "/pipescope-cli.1' | col -b");
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("--sample-bytes BYTES"), std::string::npos) << out.substr(0, 2000);
  EXPECT_NE(out.find("pipescope-cli run [options]"), std::string::npos);
}

TEST(GeneratedManPage, TheAppsPageListsItsOptionsAndFileArgument) {
  if (!PIPESCOPE_GUI_DOCS) GTEST_SKIP() << "built without the UI";
  const std::string man = readFile(kDir + "/pipescope.1");
  EXPECT_NE(man.find(".TH PIPESCOPE 1"), std::string::npos);
  for (const char* o : {"screenshot", "open", "measure\\-startup", "presentation", "help", "version"})
    EXPECT_NE(man.find(std::string("\\fB\\-\\-") + o + "\\fR"), std::string::npos) << o;
  EXPECT_NE(man.find(".SH ARGUMENTS"), std::string::npos);
}

TEST(GeneratedCompletion, BashCompletesCommandsOptionsAndChoices) {
  if (!have("bash")) GTEST_SKIP() << "bash not installed";
  EXPECT_NE(bashComplete("pipescope-cli", "pipescope-cli r").find("run\n"), std::string::npos);
  const std::string commands = bashComplete("pipescope-cli", "pipescope-cli ''");
  for (const char* c : {"analyze", "compare", "convert", "presets", "run", "sweep"})
    EXPECT_NE(commands.find(std::string(c) + "\n"), std::string::npos) << c << " in " << commands;
  EXPECT_EQ(bashComplete("pipescope-cli", "pipescope-cli run --mem"), "--memory\n");
  EXPECT_EQ(bashComplete("pipescope-cli", "pipescope-cli run --memory pi"), "pinned\n");
  EXPECT_EQ(bashComplete("pipescope-cli", "pipescope-cli run --memory = pi"), "pinned\n");
  EXPECT_EQ(bashComplete("pipescope-cli", "pipescope-cli run --backend ''"), "sim\ncuda\nauto\n");
  EXPECT_EQ(bashComplete("pipescope-cli", "pipescope-cli sweep --bat"), "--batch\n--batches\n");
  // A file option completes file names.
  const std::string files = bashComplete("pipescope-cli", "pipescope-cli run --config '" + kDir + "/pipescope-cli.b'");
  EXPECT_NE(files.find("pipescope-cli.bash"), std::string::npos) << files;
}

TEST(GeneratedCompletion, ZshCompletionIsValidZsh) {
  if (!have("zsh")) GTEST_SKIP() << "zsh not installed";
  for (const std::string& f : pages("_pipescope-cli", "_pipescope")) {
    const std::string text = readFile(kDir + "/" + f);
    EXPECT_EQ(text.rfind("#compdef ", 0), 0u) << f;
    const auto [rc, out] = shell("zsh -n '" + kDir + "/" + f + "'");
    EXPECT_EQ(rc, 0) << f << ": " << out;
  }
  const std::string cli = readFile(kDir + "/_pipescope-cli");
  EXPECT_NE(cli.find("'run:"), std::string::npos);
  EXPECT_NE(cli.find("--memory=[host memory"), std::string::npos);
  EXPECT_NE(cli.find(":(pageable pinned registered mapped managed managed-prefetch)"), std::string::npos);
}

TEST(GeneratedCompletion, BashScriptsAreValidBash) {
  for (const std::string& f : pages("pipescope-cli.bash", "pipescope.bash")) {
    const auto [rc, out] = shell("bash -n '" + kDir + "/" + f + "'");
    EXPECT_EQ(rc, 0) << f << ": " << out;
  }
}
