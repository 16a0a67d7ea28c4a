#pragma once
// Option parsing shared by every sub-command: one table per command drives the parser
// (CLI11 underneath), the --help text, and through `pipescope-cli --dump-options json`
// the man page and shell completions, so a documented option always exists and vice versa.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pipescope::cli {

/// A bad command line; the message names the option, the value and what is allowed.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Option {
  std::string name;       ///< without the leading dashes: "streams"
  std::string valueName;  ///< "N", "BYTES", "FILE"; empty for a flag
  std::string help;       ///< what it does, its unit and its range
  std::function<void(const std::string& value)> apply;  ///< flags get ""
  std::string group;      ///< heading in --help
  std::vector<std::string> choices;  ///< words shell completion offers (a preset's names); may be empty
};

class OptionSet {
 public:
  void value(std::string name, std::string valueName, std::string help, std::function<void(const std::string&)> apply);
  void flag(std::string name, std::string help, std::function<void()> apply);
  /// The words shell completion offers for the option added last, where its help text
  /// does not already list them as "a|b|c" (preset and profile names).
  void choices(std::vector<std::string> words) { options_.back().choices = std::move(words); }
  /// Following options are listed under this heading in help().
  void group(std::string heading) { group_ = std::move(heading); }

  /// Applies the options in command-line order; `--name value` and `--name=value`.
  /// Throws UsageError for an unknown option, a missing value or a positional argument.
  /// `--help`/`-h` is not handled here: see wantsHelp().
  void parse(const std::vector<std::string>& args) const;
  /// The options part of the help text, grouped, one option per entry.
  std::string help() const;
  const std::vector<Option>& options() const { return options_; }
  /// The option named `name` (no dashes), or nullptr.
  const Option* find(std::string_view name) const;

 private:
  std::string suggestion(std::string_view name) const;
  std::vector<Option> options_;
  std::string group_;
};

bool wantsHelp(const std::vector<std::string>& args);

// Value parsers: each throws UsageError naming "--option", the value and what is allowed.
long long parseInteger(const std::string& option, const std::string& value, long long lo, long long hi);
double parseNumber(const std::string& option, const std::string& value);
std::uint64_t parseByteCount(const std::string& option, const std::string& value);
/// A comma-separated list of names or files ("a.json,b.json"), each trimmed, none empty.
std::vector<std::string> parseNameListValue(const std::string& option, const std::string& value);

template <typename E>
E parseChoice(const std::string& option, const std::string& value, std::optional<E> (*parse)(std::string_view),
              const std::string& allowed) {
  if (auto e = parse(value)) return *e;
  throw UsageError("--" + option + " = '" + value + "': allowed " + allowed);
}

/// Wraps text to `width` columns, indenting continuation lines by `indent`.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent);

}  // namespace pipescope::cli
