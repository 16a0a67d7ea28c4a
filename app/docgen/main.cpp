// pipescope-docgen: writes the man pages and shell completions at build time from
// the programs' own option definitions, so they never drift from --help.
//
//   pipescope-docgen cli CATALOGUE.json OUTDIR   (from `pipescope-cli --dump-options json`)
//   pipescope-docgen gui HELP.txt VERSION OUTDIR (from `pipescope --help`)
//
// Each writes OUTDIR/PROGRAM.1, OUTDIR/PROGRAM.bash and OUTDIR/_PROGRAM (zsh).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Completions.h"
#include "ManPage.h"
#include "ProgramDoc.h"

using namespace pipescope::docgen;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void writeAll(const ProgramDoc& p, const ManPageText& man, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  writeFile(dir / (p.program + ".1"), renderManPage(p, man));
  writeFile(dir / (p.program + ".bash"), renderBashCompletion(p));
  writeFile(dir / ("_" + p.program), renderZshCompletion(p));
}

const char* kCliDescription =
    "pipescope shows how a CPU-GPU pipeline spends its time. pipescope-cli runs the pipeline headless, on a CUDA\n"
    "GPU or on the simulator, records every operation, and prints what the run achieved and what limited it.\n"
    "It also analyses, converts and compares trace files, sweeps batch sizes and stream counts, runs the\n"
    "lessons, and calibrates and validates the simulator's device profiles.\n"
    "\n"
    "Every option value goes after a space or '=' (--streams 4, --streams=4). 'pipescope-cli COMMAND --help'\n"
    "prints the same text as the command's section below.\n";

const char* kCliExtra =
    ".SH EXIT STATUS\n"
    "0 success; 1 the run, analysis or a file failed; 2 a bad command line (the message names the option, the\n"
    "value, what is allowed, and a suggestion).\n"
    ".SH FILES\n"
    ".TP\n"
    ".I /usr/share/pipescope/profiles/*.json\n"
    "The built-in simulator device profiles (also compiled into the program); 'pipescope-cli profiles' lists them.\n";

const char* kGuiExtra =
    ".SH FILES\n"
    ".TP\n"
    ".I ~/.config/pipescope/pipescope.conf\n"
    "Settings: theme, window layout and the recent files of File \\(ra Open Recent.\n"
    ".TP\n"
    ".I *.pipescope\n"
    "pipescope's own trace format (MIME type application/x-pipescope); Chrome/Perfetto and PyTorch profiler\n"
    "JSON traces open too.\n";

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 3 && args[0] == "cli") {
      ProgramDoc p = programFromCatalogue(nlohmann::json::parse(readFile(args[1])));
      p.description = kCliDescription;
      writeAll(p, {"run, analyse and compare CPU-GPU pipelines from the command line", kCliExtra, "pipescope(1)"}, args[2]);
      return 0;
    }
    if (args.size() == 4 && args[0] == "gui") {
      ProgramDoc p = programFromQtHelp("pipescope", args[2], readFile(args[1]));
      writeAll(p, {"live view of how a CPU-GPU pipeline spends its time", kGuiExtra, "pipescope-cli(1)"}, args[3]);
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "pipescope-docgen: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: pipescope-docgen cli CATALOGUE.json OUTDIR\n"
               "       pipescope-docgen gui HELP.txt VERSION OUTDIR\n";
  return 2;
}
