#pragma once
// What `pipescope-cli record` was asked to do. Its own options come first; the
// program to record follows `--` (or starts at the first word that is not an
// option), and everything from there on is the program's, passed exactly as given.
#include <string>
#include <vector>

#include "Options.h"
#include "TraceReport.h"
#include "io/ImportOptions.h"

namespace pipescope::cli {

struct RecordCommandRequest {
  std::vector<std::string> command;  ///< the program and its arguments
  std::string tracePath;             ///< --trace FILE, empty = not written
  double durationSeconds = 0;        ///< --duration S; 0 = until the program exits
  int device = -1;                   ///< --device N
  std::uint64_t maxOps = 4u << 20;   ///< --max-ops N (0: keep all)
  bool quiet = false;
  bool progress = false;             ///< --progress: also when stderr is not a terminal
  ImportOptions import;              ///< --iteration-marker, --batch-size
  TraceReportOptions report;         ///< --profile, --derive-config, --no-advice
};

class RecordOptionParser {
 public:
  RecordOptionParser();
  /// Throws UsageError: an unknown option, a bad value, no program to record.
  RecordCommandRequest parse(const std::vector<std::string>& args);
  /// --help or -h among record's own options (not the program's).
  static bool wantsHelp(const std::vector<std::string>& args);
  std::string help() const;

 private:
  OptionSet options_;
  RecordCommandRequest request_;
};

}  // namespace pipescope::cli
