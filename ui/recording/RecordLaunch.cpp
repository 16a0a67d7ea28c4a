#include "recording/RecordLaunch.h"

#include <cstring>

namespace pipescope::ui {

RecordLaunch recordLaunch(int argc, const char* const* argv) {
  RecordLaunch r;
  r.ownArgc = argc;
  if (argc < 2 || std::strcmp(argv[1], "record") != 0) return r;
  r.requested = true;
  r.ownArgc = 1;
  int first = 2;
  if (first < argc && (std::strcmp(argv[first], "--help") == 0 || std::strcmp(argv[first], "-h") == 0)) {
    r.help = true;
    return r;
  }
  if (first < argc && std::strcmp(argv[first], "--") == 0) ++first;
  for (int i = first; i < argc; ++i) r.command.emplace_back(argv[i]);
  if (r.command.empty() || r.command[0].empty()) r.error = "missing the program to record\n" + recordLaunchUsage();
  return r;
}

std::string recordLaunchUsage() {
  return "usage: pipescope record [--] PROGRAM [ARGUMENTS...]\n"
         "Opens the window recording PROGRAM live (as Run > Record a program...): its kernels, copies and\n"
         "synchronisations, the CUDA calls of each thread and its NVTX ranges. Everything after 'record' (and\n"
         "after '--') is PROGRAM's. Run > Stop stops recording and leaves PROGRAM running; Run > Stop and end\n"
         "the program ends it.\n";
}

}  // namespace pipescope::ui
