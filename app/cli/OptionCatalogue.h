#pragma once
// `pipescope-cli --dump-options json`: every command's options as data, for the
// build-time generator of the man page and the shell completions (app/docgen).
//
// Commands build their option tables where they parse them, and every command
// prints them through OptionSet::help() when asked for --help. So the catalogue runs
// each command's --help with standard output captured and, while it does, records
// each table help() renders: what the man page and completions offer is exactly what
// --help shows and what the parser accepts.
#include <nlohmann/json_fwd.hpp>
#include <ostream>

#include "Options.h"

namespace pipescope::cli {

/// While one exists, OptionSet::help() hands it the table it renders.
class HelpRecorder {
 public:
  HelpRecorder();
  ~HelpRecorder();
  HelpRecorder(const HelpRecorder&) = delete;
  HelpRecorder& operator=(const HelpRecorder&) = delete;

  static HelpRecorder* active();
  void record(const OptionSet& options, const std::string& renderedHelp);
  struct Table {
    std::vector<Option> options;
    std::string renderedHelp;
  };
  const std::vector<Table>& tables() const { return tables_; }

 private:
  std::vector<Table> tables_;
  HelpRecorder* previous_;
};

/// Every registered command (sorted by name): its summary, --help text split into
/// usage, description and epilogue, and its options (name, value, help, group).
nlohmann::json optionCatalogue(const std::string& version);

}  // namespace pipescope::cli
