#pragma once
// What the generators know about a program's command line: its options and, for
// pipescope-cli, its sub-commands. Filled from `pipescope-cli --dump-options json`
// or from the Qt help text of the desktop app (`pipescope --help`).
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace pipescope::docgen {

struct OptionDoc {
  std::string name;       ///< long name without dashes: "streams"
  std::string shortName;  ///< one letter without the dash, or empty
  std::string value;      ///< value placeholder ("N", "FILE"); empty for a flag
  std::string help;       ///< what it does, with its unit and range
  std::string group;      ///< heading it is listed under; empty for none
  std::vector<std::string> namedChoices;  ///< words the program lists for completion (preset names)

  /// The words a shell can offer for the value: namedChoices, else "a|b|c" found in the help text.
  std::vector<std::string> choices() const;
  /// The value names a file or directory (FILE, IN, OUT, DIR, FILE.json, NAME|FILE).
  bool takesFile() const;
  bool takesDirectory() const;
};

struct CommandDoc {
  std::string name, summary;
  std::string usage;        ///< synopsis after the program name
  std::string description;  ///< --help text before the options
  std::string epilogue;     ///< --help text after the options (exit status, examples)
  std::vector<OptionDoc> options;
  /// Whether the synopsis takes file operands (analyze FILE, convert IN OUT).
  bool takesFileOperands() const;
};

struct ProgramDoc {
  std::string program, version;
  std::string summary;      ///< one line for the NAME section
  std::string description;  ///< paragraphs for DESCRIPTION
  std::string usage;        ///< synopsis after the program name
  std::vector<OptionDoc> options;    ///< options of the program itself
  std::vector<std::string> operands; ///< positional arguments ("file")
  std::vector<std::string> operandHelp;
  std::vector<CommandDoc> commands;  ///< sub-commands, sorted
};

/// From `pipescope-cli --dump-options json`. Throws std::runtime_error naming what is missing.
ProgramDoc programFromCatalogue(const nlohmann::json& catalogue);
/// From QCommandLineParser::helpText() ("Usage: …", description, "Options:", "Arguments:").
ProgramDoc programFromQtHelp(const std::string& program, const std::string& version, const std::string& helpText);

}  // namespace pipescope::docgen
