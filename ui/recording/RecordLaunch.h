#pragma once
// `pipescope record [--] PROGRAM [ARGUMENTS...]`: the window opens already recording
// PROGRAM. Decided from argv before the QApplication exists, because everything after
// "record" is the program's and must reach neither Qt's own option parsing nor the
// app's (a program argument "--version" is the program's, not pipescope's).
#include <string>
#include <vector>

namespace pipescope::ui {

struct RecordLaunch {
  bool requested = false;  ///< argv[1] is "record"
  bool help = false;       ///< `pipescope record --help`
  std::vector<std::string> command;
  std::string error;       ///< a record launch without a program
  /// How many of argv's leading entries are pipescope's own (the rest is the record
  /// request): what Qt and the app's parser may see.
  int ownArgc = 0;
};

RecordLaunch recordLaunch(int argc, const char* const* argv);
/// The usage text of `pipescope record`.
std::string recordLaunchUsage();

}  // namespace pipescope::ui
