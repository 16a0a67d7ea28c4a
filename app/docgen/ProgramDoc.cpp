#include "ProgramDoc.h"

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace pipescope::docgen {

std::vector<std::string> OptionDoc::choices() const {
  if (value.empty()) return {};
  if (!namedChoices.empty()) return namedChoices;
  // The help text names the allowed words as "a|b|c" (e.g. "sim|cuda|auto").
  static const std::regex list(R"(([a-z][a-z0-9-]*)(\|[a-z][a-z0-9-]*)+)");
  std::smatch m;
  if (!std::regex_search(help, m, list)) return {};
  std::vector<std::string> words;
  std::stringstream s(m.str());
  for (std::string w; std::getline(s, w, '|');) words.push_back(w);
  return words;
}

bool OptionDoc::takesFile() const {
  return value.find("FILE") != std::string::npos || value == "IN" || value == "OUT";
}

bool OptionDoc::takesDirectory() const { return value == "DIR"; }

bool CommandDoc::takesFileOperands() const {
  // An operand is FILE, IN or OUT standing alone, not the value of the option before it
  // ("analyze FILE" and "convert IN OUT" take files; "calibrate --out FILE" does not).
  std::istringstream words(usage);
  std::string previous;
  for (std::string w; words >> w; previous = w) {
    const bool operand = w == "FILE" || w == "IN" || w == "OUT" || w == "[FILE]";
    const bool afterOption = previous.rfind("-", 0) == 0 || previous.rfind("[-", 0) == 0;
    if (operand && !afterOption) return true;
  }
  return false;
}

namespace {
std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<OptionDoc> optionsFrom(const nlohmann::json& list) {
  std::vector<OptionDoc> out;
  if (!list.is_array()) return out;
  for (const auto& o : list) {
    if (text(o, "name").empty()) throw std::runtime_error("an option without a name in the catalogue");
    OptionDoc d{text(o, "name"), text(o, "short"), text(o, "value"), text(o, "help"), text(o, "group"), {}};
    if (auto c = o.find("choices"); c != o.end() && c->is_array())
      for (const auto& w : *c)
        if (w.is_string()) d.namedChoices.push_back(w.get<std::string>());
    out.push_back(std::move(d));
  }
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}
}  // namespace

ProgramDoc programFromCatalogue(const nlohmann::json& catalogue) {
  if (!catalogue.is_object() || !catalogue.contains("commands"))
    throw std::runtime_error("not an option catalogue (expected the output of 'pipescope-cli --dump-options json')");
  ProgramDoc p;
  p.program = text(catalogue, "program");
  p.version = text(catalogue, "version");
  p.usage = "COMMAND [options]";
  p.options = optionsFrom(catalogue["options"]);
  for (const auto& c : catalogue["commands"]) {
    CommandDoc d{text(c, "name"), text(c, "summary"), text(c, "usage"), text(c, "description"), text(c, "epilogue"), {}};
    d.options = optionsFrom(c["options"]);
    if (d.name.empty()) throw std::runtime_error("a command without a name in the catalogue");
    p.commands.push_back(std::move(d));
  }
  return p;
}

ProgramDoc programFromQtHelp(const std::string& program, const std::string& version, const std::string& helpText) {
  ProgramDoc p;
  p.program = program;
  p.version = version;
  std::istringstream in(helpText);
  enum class Part { Head, Options, Arguments } part = Part::Head;
  std::string line;
  OptionDoc* current = nullptr;
  // Qt lays an entry out as "  -s, --long <value>  Help text" with continuation lines
  // indented to the help column.
  static const std::regex optionLine(R"(^\s+(?:-([A-Za-z0-9?]),\s+)?(?:--([A-Za-z0-9-]+))?(?:\s+<([^>]+)>)?\s{2,}(.*)$)");
  static const std::regex shortOnly(R"(^\s+-([A-Za-z0-9?])(?:\s+<([^>]+)>)?\s{2,}(.*)$)");
  static const std::regex argumentLine(R"(^\s+(\S+)\s{2,}(.*)$)");
  while (std::getline(in, line)) {
    if (line.rfind("Usage: ", 0) == 0) {
      const auto space = line.find(' ', 7);
      p.usage = space == std::string::npos ? std::string() : trim(line.substr(space + 1));
      continue;
    }
    if (line == "Options:") {
      part = Part::Options;
      continue;
    }
    if (line == "Arguments:") {
      part = Part::Arguments;
      continue;
    }
    std::smatch m;
    if (part == Part::Head) {
      if (!trim(line).empty()) p.description += trim(line) + "\n";
    } else if (part == Part::Options && std::regex_match(line, m, optionLine) && (m[1].matched || m[2].matched)) {
      OptionDoc o{m[2].matched ? m[2].str() : m[1].str(), m[2].matched ? m[1].str() : std::string(),
                  m[3].str(), trim(m[4].str()), "", {}};
      p.options.push_back(o);
      current = &p.options.back();
    } else if (part == Part::Options && std::regex_match(line, m, shortOnly)) {
      p.options.push_back({m[1].str(), "", m[2].str(), trim(m[3].str()), "", {}});
      current = &p.options.back();
    } else if (part == Part::Arguments && std::regex_match(line, m, argumentLine)) {
      p.operands.push_back(m[1].str());
      p.operandHelp.push_back(trim(m[2].str()));
      current = nullptr;
    } else if (!trim(line).empty()) {
      // A continuation of the previous entry's help.
      if (current)
        current->help += " " + trim(line);
      else if (!p.operandHelp.empty())
        p.operandHelp.back() += " " + trim(line);
    }
  }
  p.summary = p.description.substr(0, p.description.find('\n'));
  if (p.options.empty()) throw std::runtime_error("no options found in the help text of " + program);
  return p;
}

}  // namespace pipescope::docgen
