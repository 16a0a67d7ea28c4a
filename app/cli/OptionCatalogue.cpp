#include "OptionCatalogue.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Commands.h"

namespace pipescope::cli {

namespace {
HelpRecorder* g_active = nullptr;  // the CLI is single-threaded; one recorder at a time

// Runs `command --help` with std::cout captured.
std::string captureHelp(const Command& c) {
  std::ostringstream text;
  std::streambuf* saved = std::cout.rdbuf(text.rdbuf());
  try {
    c.main({"--help"});
  } catch (...) {
    std::cout.rdbuf(saved);
    throw;
  }
  std::cout.rdbuf(saved);
  return text.str();
}
}  // namespace

HelpRecorder::HelpRecorder() : previous_(g_active) { g_active = this; }
HelpRecorder::~HelpRecorder() { g_active = previous_; }
HelpRecorder* HelpRecorder::active() { return g_active; }

void HelpRecorder::record(const OptionSet& options, const std::string& renderedHelp) {
  tables_.push_back({options.options(), renderedHelp});
}

nlohmann::json optionCatalogue(const std::string& version) {
  auto commands = commandRegistry();
  std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  nlohmann::json out{{"program", "pipescope-cli"}, {"version", version}, {"commands", nlohmann::json::array()}};
  out["options"] = nlohmann::json::array({
      {{"name", "help"}, {"short", "h"}, {"value", ""}, {"help", "print the help; 'pipescope-cli COMMAND --help' documents a command's options"}, {"group", ""}},
      {{"name", "version"}, {"value", ""}, {"help", "print the version"}, {"group", ""}},
      {{"name", "dump-options"}, {"value", "json"}, {"help", "print every command's options as JSON (what the man page and completions are generated from)"}, {"group", ""}},
  });
  for (const auto& c : commands) {
    HelpRecorder recorder;
    const std::string help = captureHelp(c);
    nlohmann::json options = nlohmann::json::array();
    for (const auto& table : recorder.tables())
      for (const auto& o : table.options)
        options.push_back(
            {{"name", o.name}, {"value", o.valueName}, {"help", o.help}, {"group", o.group}, {"choices", o.choices}});
    // The text around the option tables: usage line, description before, exit status and examples after.
    std::size_t first = help.size(), last = 0;
    for (const auto& table : recorder.tables()) {
      const std::size_t at = table.renderedHelp.empty() ? std::string::npos : help.find(table.renderedHelp);
      if (at == std::string::npos) continue;
      first = std::min(first, at);
      last = std::max(last, at + table.renderedHelp.size());
    }
    if (first > last) first = last = help.size();
    // The usage may wrap onto indented lines; the description follows a blank line.
    std::istringstream before(help.substr(0, first));
    std::string usage, description, line;
    bool inUsage = true;
    while (std::getline(before, line)) {
      const bool continuation = !line.empty() && line[0] == ' ';
      if (inUsage && (usage.empty() || continuation)) {
        const auto b = line.find_first_not_of(' ');
        if (b == std::string::npos) continue;
        const std::string text = line.substr(b);
        // A second form of the command ("usage: A\n       B") starts a new line.
        const bool newForm = !usage.empty() && text.rfind("pipescope-cli ", 0) == 0;
        usage += (usage.empty() ? "" : newForm ? "\n" : " ") + text;
        continue;
      }
      inUsage = false;
      if (description.empty() && line.empty()) continue;
      description += line + "\n";
    }
    while (!description.empty() && description.size() >= 2 && description.compare(description.size() - 2, 2, "\n\n") == 0)
      description.pop_back();
    if (usage.rfind("usage: ", 0) == 0) usage.erase(0, 7);  // one usage form per line
    std::string epilogue = help.substr(last);
    epilogue.erase(0, std::min(epilogue.find_first_not_of('\n'), epilogue.size()));
    out["commands"].push_back({{"name", c.name},
                               {"summary", c.summary},
                               {"usage", usage},
                               {"description", description},
                               {"epilogue", epilogue},
                               {"options", options}});
  }
  return out;
}

}  // namespace pipescope::cli
