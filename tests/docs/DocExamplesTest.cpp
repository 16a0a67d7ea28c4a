// The docs a reader copies from stay true: every pipescope-cli command line in the
// shell blocks of README.md and docs/*.md runs against this build (on the simulator:
// CI has no GPU), and every option the docs name is one the programs' --help lists.
// The markers a doc can use are described in DocExamples.h.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "DocExamples.h"
#include "ProgramDoc.h"

namespace fs = std::filesystem;
using namespace pipescope::doctest;

namespace {

const fs::path kSource = PIPESCOPE_SOURCE_DIR;

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct ShellResult {
  int exitCode = -1;
  std::string output;  ///< stdout and stderr together
};

// Runs a script with sh, at most `timeoutS` seconds (exit 124 past it).
ShellResult runScript(const fs::path& script, int timeoutS) {
  ShellResult r;
  const std::string cmd = "timeout " + std::to_string(timeoutS) + " sh '" + script.string() + "' 2>&1 </dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

ShellResult runCliDirect(const std::string& args) {
  const fs::path script = fs::path(::testing::TempDir()) / ("pipescope-doc-help-" + std::to_string(::getpid()) + ".sh");
  std::ofstream(script) << "'" << PIPESCOPE_CLI << "' " << args << "\n";
  return runScript(script, 30);
}

// What the programs accept, read from their --help.
struct ProgramOptions {
  std::vector<std::string> commands;
  std::map<std::string, std::set<std::string>> cli;  ///< command ("" = the tool itself) -> options
  std::set<std::string> gui;
  bool haveGui = false;
  std::set<std::string> any;  ///< every option of every program

  bool cliHas(const std::string& command, const std::string& option) const {
    const auto it = cli.find(command);
    return it != cli.end() && it->second.count(option);
  }
};

// Each command's --help, all at once (the programs take a moment to start).
std::map<std::string, std::string> cliHelpTexts(const std::vector<std::string>& commands) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("pipescope-doc-help-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path script = dir / "help.sh";
  {
    std::ofstream out(script);
    for (const auto& c : commands)
      out << "'" << PIPESCOPE_CLI << "' " << c << " --help >'" << (dir / c).string() << "' 2>&1 &\n";
    out << "wait\n";
  }
  runScript(script, 60);
  std::map<std::string, std::string> texts;
  for (const auto& c : commands) texts[c] = readFile(dir / c);
  fs::remove_all(dir);
  return texts;
}

const ProgramOptions& programOptions() {
  static const ProgramOptions options = [] {
    ProgramOptions o;
    const auto top = runCliDirect("--help");
    o.commands = commandsOfCliHelp(top.output);
    o.cli[""] = {"help", "version", "dump-options"};
    for (const auto& [c, help] : cliHelpTexts(o.commands))
      for (const auto& name : optionsOfCliHelp(help)) o.cli[c].insert(name);
    // The desktop app's options, from the --help text the man page is generated from.
    const fs::path guiHelp = fs::path(PIPESCOPE_DOCS_DIR) / "pipescope-help.txt";
    if (PIPESCOPE_GUI_DOCS && fs::exists(guiHelp)) {
      const auto program = pipescope::docgen::programFromQtHelp("pipescope", "0", readFile(guiHelp));
      for (const auto& opt : program.options) o.gui.insert(opt.name);
      o.haveGui = true;
    }
    for (const auto& [command, names] : o.cli) o.any.insert(names.begin(), names.end());
    o.any.insert(o.gui.begin(), o.gui.end());
    return o;
  }();
  return options;
}

// Options of other programs that the docs name in prose without the program's name
// in the same code span (GoogleTest and Google Benchmark flags of the test and bench
// programs).
bool foreignOption(const std::string& name) { return name.rfind("gtest_", 0) == 0 || name.rfind("benchmark_", 0) == 0; }

// What is wrong with one named option, or "" when nothing is.
std::string checkOption(const NamedOption& o, const ProgramOptions& p) {
  using P = Attribution::Program;
  const std::string shown = "'--" + o.name + "' in `" + o.text + "`";
  switch (o.where.program) {
    case P::Cli:
      if (o.where.command.empty()) {
        if (!p.cliHas("", o.name))
          return shown +
                 ": not an option of pipescope-cli itself, and no known command precedes it "
                 "(pipescope-cli --help lists the commands)";
        return {};
      }
      if (!p.cliHas(o.where.command, o.name))
        return shown + ": 'pipescope-cli " + o.where.command + " --help' lists no such option";
      return {};
    case P::Gui:
      if (p.haveGui && !p.gui.count(o.name)) return shown + ": 'pipescope --help' lists no such option";
      return {};
    case P::None:
      if (!p.any.count(o.name) && !foreignOption(o.name))
        return shown + ": no pipescope-cli command" + std::string(p.haveGui ? " and not the desktop app" : "") +
               " has this option";
      return {};
    case P::Other: return {};
  }
  return {};
}

std::vector<std::string> documentedFiles() {
  std::vector<std::string> files{"README.md"};
  std::vector<std::string> docs;
  for (const auto& e : fs::directory_iterator(kSource / "docs"))
    if (e.path().extension() == ".md") docs.push_back("docs/" + e.path().filename().string());
  std::sort(docs.begin(), docs.end());
  files.insert(files.end(), docs.begin(), docs.end());
  return files;
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

std::string tail(const std::string& s, std::size_t n = 1500) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// One doc's working folder: the CLI on PATH, the repository's fixtures and sample
// data at the paths the docs use.
fs::path prepareFolder(const std::string& docName) {
  std::string clean = docName;
  for (char& c : clean)
    if (c == '/' || c == '.') c = '_';
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("pipescope-doc-examples-" + std::to_string(::getpid())) / clean;
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  fs::create_symlink(PIPESCOPE_CLI, dir / "bin" / "pipescope-cli");
  for (const char* sub : {"tests/fixtures", "docs/data"}) {
    fs::create_directories(dir / sub);
    fs::copy(kSource / sub, dir / sub, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
  return dir;
}

ShellResult runInFolder(const fs::path& dir, const std::string& command) {
  const fs::path script = dir / ".doc-example.sh";
  std::ofstream(script) << "cd " << shellQuote(dir.string()) << " || exit 99\n"
                        << "PATH=" << shellQuote((dir / "bin").string()) << ":\"$PATH\"; export PATH\n"
                        << "QT_QPA_PLATFORM=offscreen; export QT_QPA_PLATFORM\n"
                        << command << "\n";
  return runScript(script, 120);
}

bool elided(const std::string& line) {
  return line.empty() || line.find("...") != std::string::npos || line.find("\xE2\x80\xA6") != std::string::npos;
}

class DocFile : public ::testing::TestWithParam<std::string> {};

}  // namespace

// One test for every doc, so the programs' --help is read once.
TEST(DocExamples, EveryOptionTheDocsNameIsInTheProgramsHelp) {
  const auto& programs = programOptions();
  ASSERT_FALSE(programs.commands.empty()) << "pipescope-cli --help listed no commands";
  for (const auto& c : programs.commands)
    ASSERT_GT(programs.cli.at(c).size(), 1u) << "read no option from 'pipescope-cli " << c << " --help'";
  if (!programs.haveGui)
    std::printf("[ note ] this build has no desktop app: options of 'pipescope' are not checked\n");
  std::size_t checked = 0;
  for (const auto& file : documentedFiles()) {
    const auto doc = parseDoc(readFile(kSource / file), programs.commands);
    for (const auto& o : doc.options) {
      const std::string problem = checkOption(o, programs);
      if (!problem.empty()) ADD_FAILURE() << file << ":" << o.line << ": " << problem;
      ++checked;
    }
  }
  std::printf("[ checked ] %zu options named in README.md and docs/*.md\n", checked);
  EXPECT_GT(checked, 200u) << "the docs name far more options than that: is the parser still finding them?";
}

TEST_P(DocFile, EveryCommandExampleRuns) {
  // Steps only: which command an option of prose belongs to does not matter here.
  const auto doc = parseDoc(readFile(kSource / GetParam()), {});
  const bool any = std::any_of(doc.steps.begin(), doc.steps.end(),
                               [](const DocStep& s) { return s.kind == DocStep::Kind::Example; });
  if (!any) {
    std::printf("[ note ] %s shows no pipescope-cli command in a shell block\n", GetParam().c_str());
    return;
  }
  const fs::path dir = prepareFolder(GetParam());
  for (const auto& step : doc.steps) {
    const std::string where = GetParam() + ":" + std::to_string(step.line);
    if (step.kind == DocStep::Kind::Setup) {
      const auto r = runInFolder(dir, step.command);
      EXPECT_EQ(r.exitCode, 0) << where << ": doc-example setup failed: " << step.command << "\n" << tail(r.output);
      continue;
    }
    // Static check first, so a command that is not run is still held to --help.
    if (step.needsGpu || !step.skipReason.empty()) {
      std::printf("[ skipped ] %s: %s (%s)\n", where.c_str(), firstPipelineStage(step.command).c_str(),
                  step.needsGpu ? "needs a GPU" : step.skipReason.c_str());
      continue;
    }
    const std::string command = firstPipelineStage(step.command);
    const auto r = runInFolder(dir, command);
    if (r.exitCode != step.expectedExit) {
      ADD_FAILURE() << where << ": `" << command << "` exited with " << r.exitCode << ", expected " << step.expectedExit
                    << " (mark it '# gpu', '# skip: reason' or '# exit N' if that is right)\n"
                    << tail(r.output);
      continue;
    }
    if (step.expectedExit != 0) {
      for (const auto& shown : step.shownOutput) {
        if (elided(shown)) continue;
        EXPECT_NE(r.output.find(shown), std::string::npos)
            << where << ": `" << command << "` no longer prints the line the doc shows:\n  " << shown
            << "\nit printed:\n"
            << tail(r.output);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Docs, DocFile, ::testing::ValuesIn(documentedFiles()), testName);

// The anchors of a Markdown file's headings, as GitHub makes them: lower case, only
// letters, digits, spaces, '-' and '_' kept, spaces turned into '-'; a repeated
// heading gets "-1", "-2", ...
std::set<std::string> headingAnchors(const std::string& markdown) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  std::istringstream in(markdown);
  bool inBlock = false;
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, 3, "```") == 0) inBlock = !inBlock;
    if (inBlock || line.empty() || line[0] != '#') continue;
    const auto text = line.substr(line.find_first_not_of('#'));
    std::string slug;
    for (char c : text) {
      const auto u = static_cast<unsigned char>(c);
      if (std::isalnum(u))
        slug += char(std::tolower(u));
      else if (c == ' ' || c == '-' || c == '_')
        slug += c == ' ' ? '-' : c;
    }
    while (!slug.empty() && slug.front() == '-') slug.erase(0, 1);
    const int n = seen[slug]++;
    anchors.insert(n == 0 ? slug : slug + "-" + std::to_string(n));
  }
  return anchors;
}

// The files and folders the docs name stay where the docs say: every relative link
// target, and every repository path in a code span ("`engine/io/TraceFiles.h`", or a
// class's stem such as "`ui/run/FiguresWorker`"). Placeholders in capitals (NAME) are
// not paths.
TEST(DocExamples, EveryRepositoryPathAndLinkTheDocsNameExists) {
  const std::vector<std::string> roots{"engine/", "ui/",   "app/",   "tests/",   "bench/",    "tools/",
                                       "docs/",   "fuzz/", "cmake/", "scripts/", "resources/"};
  const auto exists = [](const fs::path& p) {
    if (fs::exists(p)) return true;
    if (!fs::exists(p.parent_path())) return false;
    for (const auto& e : fs::directory_iterator(p.parent_path()))  // a stem: Foo for Foo.h / Foo.cpp
      if (e.path().stem() == p.filename()) return true;
    return false;
  };
  const auto placeholder = [](const std::string& path) {
    for (const char* mark : {"NAME", "FILE", "VERSION", "*", "<"})
      if (path.find(mark) != std::string::npos) return true;
    return false;
  };
  std::size_t checked = 0;
  for (const auto& file : documentedFiles()) {
    std::istringstream in(readFile(kSource / file));
    int lineNo = 0;
    bool inBlock = false;
    for (std::string line; std::getline(in, line);) {
      ++lineNo;
      if (line.find("```") != std::string::npos && line.find_first_not_of(" ") == line.find("```")) inBlock = !inBlock;
      if (inBlock) continue;
      // Links: [text](target), relative to the doc.
      for (std::size_t at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) {
        const auto end = line.find(')', at + 2);
        if (end == std::string::npos) break;
        std::string target = line.substr(at + 2, end - at - 2);
        if (target.empty() || target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
        const auto hash = target.find('#');
        const std::string anchor = hash == std::string::npos ? "" : target.substr(hash + 1);
        target = target.substr(0, hash);
        const fs::path to = target.empty() ? kSource / file : kSource / fs::path(file).parent_path() / target;
        ++checked;
        if (!fs::exists(to)) {
          ADD_FAILURE() << file << ":" << lineNo << ": the link to '" << target << "' leads nowhere";
          continue;
        }
        if (!anchor.empty() && to.extension() == ".md") {
          EXPECT_TRUE(headingAnchors(readFile(to)).count(anchor))
              << file << ":" << lineNo << ": '" << to.filename().string() << "' has no heading for #" << anchor;
        }
      }
      // Repository paths in code spans.
      for (std::size_t open = line.find('`'); open != std::string::npos;) {
        const auto close = line.find('`', open + 1);
        if (close == std::string::npos) break;
        for (const auto& word : [&] {
               std::istringstream w(line.substr(open + 1, close - open - 1));
               std::vector<std::string> out;
               for (std::string x; w >> x;) out.push_back(x);
               return out;
             }()) {
          std::string path = word;
          while (!path.empty() && std::string(",.;:)'\"").find(path.back()) != std::string::npos) path.pop_back();
          const bool inRepo =
              std::any_of(roots.begin(), roots.end(), [&](const std::string& r) { return path.rfind(r, 0) == 0; });
          if (!inRepo || placeholder(path)) continue;
          ++checked;
          EXPECT_TRUE(exists(kSource / path)) << file << ":" << lineNo << ": `" << path << "` is not in the repository";
        }
        open = line.find('`', close + 1);
      }
    }
  }
  std::printf("[ checked ] %zu links and repository paths\n", checked);
  EXPECT_GT(checked, 100u);
}

// The checks themselves, on hand-written Markdown: a renamed option is caught both
// in a shell example and in prose, and nothing is reported for a correct doc.
TEST(DocExamplesParser, FindsExamplesMarkersAndOptions) {
  const std::vector<std::string> commands{"run", "sweep", "analyze"};
  const std::string md =
      "Use `--streams N` or `analyze --derive-config F`; `cmake --preset gpu` is not ours.\n"
      "<!-- doc-example setup: pipescope-cli run --trace a.json -->\n"
      "```sh\n"
      "pipescope-cli run --preset naive   # a comment naming --profile\n"
      "pipescope-cli run --backend cuda \\\n"
      "    --streams 4  # gpu\n"
      "build/gpu/bench/gpu_pipeline_bench 9 --streams-table\n"
      "pipescope-cli sweep --batch 1M | head -3\n"
      "```\n"
      "```console\n"
      "$ pipescope-cli run --stream 4  # exit 2\n"
      "pipescope-cli run: unknown option '--stream' (did you mean --streams?)\n"
      "```\n";
  const auto doc = parseDoc(md, commands);
  ASSERT_EQ(doc.steps.size(), 5u);
  EXPECT_EQ(doc.steps[0].kind, DocStep::Kind::Setup);
  EXPECT_EQ(doc.steps[1].command, "pipescope-cli run --preset naive   # a comment naming --profile");
  EXPECT_TRUE(doc.steps[2].needsGpu);
  EXPECT_EQ(doc.steps[2].line, 5);
  EXPECT_EQ(firstPipelineStage(doc.steps[3].command), "pipescope-cli sweep --batch 1M");
  EXPECT_EQ(doc.steps[4].expectedExit, 2);
  ASSERT_EQ(doc.steps[4].shownOutput.size(), 1u);

  std::set<std::pair<std::string, std::string>> seen;  // (option, its command; "-" for bare)
  for (const auto& o : doc.options)
    if (o.where.program != Attribution::Program::Other)
      seen.insert({o.name, o.where.command.empty() ? "-" : o.where.command});
  EXPECT_TRUE(seen.count({"streams", "-"}));    // the bare span
  EXPECT_TRUE(seen.count({"streams", "run"}));  // the continued example
  EXPECT_TRUE(seen.count({"derive-config", "analyze"}));
  EXPECT_TRUE(seen.count({"profile", "run"}));  // named in the example's comment
  EXPECT_TRUE(seen.count({"batch", "sweep"}));
  EXPECT_FALSE(seen.count({"preset", "-"})) << "cmake's --preset is not ours";
  EXPECT_FALSE(seen.count({"streams-table", "-"})) << "the bench's options are not pipescope-cli's";
  for (const auto& [name, command] : seen)
    EXPECT_NE(name, "stream") << "an example shown failing names a wrong option on purpose";
}

TEST(DocExamplesParser, AttributesByProgramAndCommand) {
  const std::vector<std::string> commands{"run", "convert"};
  EXPECT_EQ(attribute("QT_QPA_PLATFORM=offscreen build/release/app/gui/pipescope --screenshot x.png", commands).program,
            Attribution::Program::Gui);
  EXPECT_EQ(attribute("build/gpu/app/cli/pipescope-cli run --streams 4", commands).command, "run");
  EXPECT_EQ(attribute("convert IN OUT", commands).command, "convert");
  EXPECT_EQ(attribute("--streams 4", commands).program, Attribution::Program::None);
  EXPECT_EQ(attribute("ctest --test-dir build", commands).program, Attribution::Program::Other);
  EXPECT_EQ(optionNames("a -- b --x=1 x--y --no-progress, --gtest_filter=A"),
            (std::vector<std::string>{"x", "no-progress", "gtest_filter"}));
}

// The check fails when an option the doc names is renamed in the program: here the
// doc still says --batches after a (pretend) rename to --batch-count.
TEST(DocExamplesParser, AnOptionRenamedInTheProgramIsReported) {
  ProgramOptions before;
  before.commands = {"run", "sweep"};
  before.cli["run"] = {"help", "preset", "batches", "streams"};
  before.cli["sweep"] = {"help", "batch", "streams"};
  before.any = {"help", "preset", "batches", "streams", "batch"};
  ProgramOptions after = before;
  after.cli["run"] = {"help", "preset", "batch-count", "streams"};
  after.any = {"help", "preset", "batch-count", "streams", "batch"};

  const auto doc =
      parseDoc("```sh\npipescope-cli run --preset naive --batches 4\n```\nSee `--batches N`.\n", before.commands);
  int problems = 0;
  for (const auto& o : doc.options) {
    EXPECT_EQ(checkOption(o, before), "") << o.name;
    if (!checkOption(o, after).empty()) ++problems;
  }
  EXPECT_EQ(problems, 2) << "the example and the prose both name --batches";
}
