#pragma once
// Reads the Markdown of README.md and docs/*.md the way a reader copies from it: the
// pipescope-cli command lines of its shell blocks (to run them), and every option it
// names anywhere (to check them against the programs' --help). Markers a doc can set:
//
//   ```sh / ```console     a shell block; in console blocks commands start with "$ "
//                          and the other lines are what the command printed
//   CMD  # gpu [...]       needs a GPU: the options are checked, the command is not run
//   CMD  # skip: REASON    not run (e.g. it runs until stopped); options still checked
//   CMD  # exit N          the command is expected to exit with N; with N != 0 every
//                          line shown below it in a console block must be in its output
//   <!-- doc-example setup: CMD -->  run CMD first (a shell line: makes a file an example reads)
//
// Examples and setup lines of one file run in document order in one working folder,
// which holds the repository's tests/fixtures/ and docs/data/ at those paths.
#include <string>
#include <vector>

namespace pipescope::doctest {

/// Which program a piece of text belongs to, and so which --help its options are in.
struct Attribution {
  enum class Program { None, Cli, Gui, Other };
  Program program = Program::None;  ///< None: a bare option ("`--streams N`"), any program's
  std::string command;              ///< the pipescope-cli command ("run"), empty for none
};

/// One option named in a doc.
struct NamedOption {
  int line = 0;
  std::string name;  ///< without the dashes: "streams"
  Attribution where;
  std::string text;  ///< the code span or line it came from
};

/// One step of a doc's examples, in document order.
struct DocStep {
  enum class Kind { Example, Setup };
  Kind kind = Kind::Example;
  int line = 0;
  std::string command;  ///< the command line (continuations joined)
  bool needsGpu = false;
  std::string skipReason;  ///< non-empty: not run, for this reason
  int expectedExit = 0;
  std::vector<std::string> shownOutput;  ///< console block lines printed by this command
};

struct ParsedDoc {
  std::vector<DocStep> steps;
  std::vector<NamedOption> options;
};

/// `cliCommands`: the commands `pipescope-cli --help` lists (a word of prose code that
/// is one of them, as in "`analyze --derive-config`", attributes its options to it).
ParsedDoc parseDoc(const std::string& markdown, const std::vector<std::string>& cliCommands);

/// What decides a piece of command text's program: leading VAR=value words are
/// skipped, a path counts by its last component.
Attribution attribute(const std::string& commandText, const std::vector<std::string>& cliCommands);

/// Every "--name" in `text` (a letter after the dashes; "--" alone is not an option).
std::vector<std::string> optionNames(const std::string& text);

/// The part of a shell line before its first pipe (" | ") or comment (" #"), outside quotes.
std::string firstPipelineStage(const std::string& line);

/// The options listed in a `pipescope-cli COMMAND --help` text (lines "  --name ..." and
/// "  -x, --name ...").
std::vector<std::string> optionsOfCliHelp(const std::string& helpText);
/// The command names listed under "Commands:" in `pipescope-cli --help`.
std::vector<std::string> commandsOfCliHelp(const std::string& helpText);

}  // namespace pipescope::doctest
