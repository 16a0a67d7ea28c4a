#include "Options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "config/PipelineConfig.h"

namespace pipescope::cli {

void OptionSet::value(std::string name, std::string valueName, std::string help,
                      std::function<void(const std::string&)> apply) {
  options_.push_back({std::move(name), std::move(valueName), std::move(help), std::move(apply), group_});
}

void OptionSet::flag(std::string name, std::string help, std::function<void()> apply) {
  options_.push_back({std::move(name), {}, std::move(help), [f = std::move(apply)](const std::string&) { f(); }, group_});
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
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0)
      throw UsageError("unexpected argument '" + arg + "': options start with --");
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const Option* o = find(name);
    if (!o) throw UsageError("unknown option '--" + name + "'" + suggestion(name));
    if (o->valueName.empty()) {
      if (eq != std::string::npos) throw UsageError("option --" + name + " takes no value");
      o->apply({});
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else {
      if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value (" + o->valueName + ")");
      value = args[++i];
    }
    o->apply(value);
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
  return out;
}

bool wantsHelp(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
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
