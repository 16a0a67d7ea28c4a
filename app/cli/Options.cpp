#include "Options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <CLI/App.hpp>
#include <CLI/Config.hpp>
#include <CLI/Formatter.hpp>

#include "OptionCatalogue.h"
#include "sweep/AxisLists.h"
#include "config/PipelineConfig.h"

namespace pipescope::cli {

void OptionSet::value(std::string name, std::string valueName, std::string help,
                      std::function<void(const std::string&)> apply) {
  options_.push_back({std::move(name), std::move(valueName), std::move(help), std::move(apply), group_, {}});
}

void OptionSet::flag(std::string name, std::string help, std::function<void()> apply) {
  options_.push_back(
      {std::move(name), {}, std::move(help), [f = std::move(apply)](const std::string&) { f(); }, group_, {}});
}

const Option* OptionSet::find(std::string_view name) const {
  for (const auto& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

namespace {
std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string OptionSet::suggestion(std::string_view name) const {
  const Option* best = nullptr;
  std::size_t bestDistance = 3;  // only close misspellings are worth suggesting
  for (const auto& o : options_) {
    const std::size_t d = editDistance(name, o.name);
    if (d < bestDistance) bestDistance = d, best = &o;
  }
  return best ? " (did you mean --" + best->name + "?)" : std::string();
}

void OptionSet::parse(const std::vector<std::string>& args) const {
  // CLI11 splits the command line (`--name value`, `--name=value`, flags, `--`);
  // this table stays the single description of the options, so the help text, the
  // generated man page and completions, and the parser cannot disagree. Our own
  // messages replace CLI11's where the tests and users rely on their wording.
  CLI::App app;
  app.set_help_flag();  // commands answer --help themselves (wantsHelp), before parsing
  app.allow_extras();   // unknown options come back in remaining(): we name them with a suggestion
  std::vector<std::pair<CLI::Option*, const Option*>> bound;
  for (const auto& o : options_) {
    CLI::Option* cli = o.valueName.empty() ? app.add_flag("--" + o.name)->disable_flag_override()
                                           : app.add_option("--" + o.name)->expected(1)->type_name(o.valueName);
    cli->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    bound.emplace_back(cli, &o);
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ArgumentMismatch& e) {
    // Which option failed is the first word of CLI11's message ("--batches: 1 required N missing").
    const std::string what = e.what();
    const std::string name = what.substr(0, what.find_first_of(": "));
    const Option* o = find(name.rfind("--", 0) == 0 ? std::string_view(name).substr(2) : std::string_view(name));
    if (o && o->valueName.empty()) throw UsageError("option --" + o->name + " takes no value");
    if (o) throw UsageError("option --" + o->name + " needs a value (" + o->valueName + ")");
    throw UsageError(what);
  } catch (const CLI::Error& e) {
    throw UsageError(e.what());
  }
  for (const std::string& extra : app.remaining()) {
    if (extra.size() < 3 || extra.compare(0, 2, "--") != 0)
      throw UsageError("unexpected argument '" + extra + "': options start with --");
    const std::string name = extra.substr(2, extra.find('=') == std::string::npos ? std::string::npos : extra.find('=') - 2);
    throw UsageError("unknown option '--" + name + "'" + suggestion(name));
  }
  // Apply in command-line order: a later value wins, and errors come in the order typed.
  std::vector<std::size_t> used(bound.size(), 0);
  for (const CLI::Option* parsed : app.parse_order()) {
    for (std::size_t i = 0; i < bound.size(); ++i) {
      if (bound[i].first != parsed) continue;
      const auto& results = parsed->results();
      const Option& o = *bound[i].second;
      o.apply(o.valueName.empty() || used[i] >= results.size() ? std::string() : results[used[i]]);
      ++used[i];
    }
  }
}

std::string wrap(const std::string& text, std::size_t width, std::size_t indent) {
  std::istringstream words(text);
  std::string out, word;
  std::size_t column = indent;
  bool first = true;
  while (words >> word) {
    if (!first && column + 1 + word.size() > width) {
      out += '\n' + std::string(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out;
}

std::string OptionSet::help() const {
  constexpr std::size_t kColumn = 32, kWidth = 100;
  std::string out, currentGroup = "\x01";
  for (const auto& o : options_) {
    if (o.group != currentGroup) {
      currentGroup = o.group;
      if (!currentGroup.empty()) out += "\n" + currentGroup + ":\n";
    }
    std::string head = "  --" + o.name + (o.valueName.empty() ? "" : " " + o.valueName);
    if (head.size() + 2 > kColumn)
      head += "\n" + std::string(kColumn, ' ');
    else
      head += std::string(kColumn - head.size(), ' ');
    out += head + wrap(o.help, kWidth, kColumn) + "\n";
  }
  if (auto* recorder = HelpRecorder::active()) recorder->record(*this, out);
  return out;
}

bool wantsHelp(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

std::vector<std::string> parseNameListValue(const std::string& option, const std::string& value) {
  try {
    return parseNameList("--" + option, value);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

long long parseInteger(const std::string& option, const std::string& value, long long lo, long long hi) {
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(begin, &end, 10);
  if (value.empty() || end != begin + value.size())
    throw UsageError("--" + option + " = '" + value + "': not an integer (allowed " + std::to_string(lo) + ".." +
                     std::to_string(hi) + ")");
  if (errno == ERANGE || v < lo || v > hi)
    throw UsageError("--" + option + " = " + value + ": allowed " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

double parseNumber(const std::string& option, const std::string& value) {
  const char* begin = value.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (value.empty() || end != begin + value.size() || !std::isfinite(v))
    throw UsageError("--" + option + " = '" + value + "': not a finite number");
  return v;
}

std::uint64_t parseByteCount(const std::string& option, const std::string& value) {
  if (auto b = parseBytes(value)) return *b;
  throw UsageError("--" + option + " = '" + value +
                   "': not a byte count (a whole number of bytes, or with a unit: 512K, 32M, 1G, 1.5MiB)");
}

}  // namespace pipescope::cli
